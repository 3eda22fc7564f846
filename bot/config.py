"""Settings from the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _int_or_none(v: str | None) -> int | None:
    try:
        return int(v) if v not in (None, "") else None
    except ValueError:
        return None


@dataclass
class Config:
    token: str | None = field(default=None, repr=False)  # a secret: never in reprs or logs
    db_path: str = "roundhouse.db"
    dev_guild: int | None = None        # sync commands to this guild at start-up (instant); else global
    sync: str = "auto"                  # auto | global | guild | off
    sharded: bool = False               # AutoShardedBot
    shard_count: int | None = None
    reminder_check: float = 60.0        # seconds between reminder sweeps
    pictures: bool = True
    out_dir: str = "out"                # console: where pictures are written
    guild_ready_timeout: float = 2.0
    log_level: str = "INFO"
    language: str = "en"                # console: its words and its new games' (ROUNDHOUSE_LANG, --lang)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Config:
        e = os.environ if env is None else env
        return cls(
            token=e.get("DISCORD_TOKEN") or None,
            db_path=e.get("ROUNDHOUSE_DB") or "roundhouse.db",
            dev_guild=_int_or_none(e.get("ROUNDHOUSE_DEV_GUILD")),
            sync=(e.get("ROUNDHOUSE_SYNC") or "auto").lower(),
            sharded=(e.get("ROUNDHOUSE_SHARDED") or "").lower() in ("1", "true", "yes"),
            shard_count=_int_or_none(e.get("ROUNDHOUSE_SHARD_COUNT")),
            reminder_check=float(e.get("ROUNDHOUSE_REMINDER_CHECK") or 60),
            pictures=(e.get("ROUNDHOUSE_PICTURES") or "1").lower() not in ("0", "false", "no"),
            out_dir=e.get("ROUNDHOUSE_OUT") or "out",
            log_level=(e.get("ROUNDHOUSE_LOG_LEVEL") or "INFO").upper(),
            language=(e.get("ROUNDHOUSE_LANG") or "en").lower(),
        )
