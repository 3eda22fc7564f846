# Roundhouse Discord bot.  docker build -t roundhouse . && docker run -e DISCORD_TOKEN=... -v roundhouse-data:/data roundhouse
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    ROUNDHOUSE_DB=/data/roundhouse.db \
    ROUNDHOUSE_OUT=/data/out

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY render ./render
COPY bot ./bot
COPY i18n ./i18n
COPY migrations ./migrations
RUN pip install . \
    && useradd --create-home --uid 10001 roundhouse \
    && mkdir -p /data \
    && chown roundhouse:roundhouse /data

# migrations/ is found next to bot/ (or via ROUNDHOUSE_MIGRATIONS)
ENV ROUNDHOUSE_MIGRATIONS=/app/migrations
USER roundhouse
VOLUME ["/data"]

# DISCORD_TOKEN comes from the environment (docker run -e / --env-file); without it the console starts.
# Optional: ROUNDHOUSE_DEV_GUILD, ROUNDHOUSE_SYNC, ROUNDHOUSE_SHARDED, ROUNDHOUSE_SHARD_COUNT, ROUNDHOUSE_PICTURES
CMD ["python", "-m", "bot"]
