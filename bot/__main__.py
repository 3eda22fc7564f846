"""`python -m bot`: the Discord bot when DISCORD_TOKEN is set, otherwise the local console."""

from bot.config import Config


def main() -> None:
    config = Config.from_env()
    if config.token:
        from bot.discord_bot import main as run
    else:
        from bot.console import main as run
    run(config)


if __name__ == "__main__":
    main()
