"""Settings from the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any


def _int_or_none(v: str | None) -> int | None:
    try:
        return int(v) if v not in (None, "") else None
    except ValueError:
        return None


def _number(env: Any, name: str, default: float, least: float, kind: type = float) -> Any:
    """A number setting: `default` when unset; unreadable or below `least`, a start-up error naming it (a typo must
    not quietly keep every game in memory, or none)."""
    given = env.get(name)
    if given in (None, ""):
        return default
    try:
        number = kind(given)
    except ValueError:
        raise ValueError(f"{name}={given!r} is not a {'whole ' if kind is int else ''}number") from None
    if not number >= least:
        raise ValueError(f"{name}={given!r} is below {least:g}")
    return number


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
    # games kept in memory (a long 1817 game takes a few MB): beyond this many, or idle this long, a game not in
    # use leaves memory and its next command rebuilds it from the stored log (docs/operations.md)
    live_games: int = 32
    idle_game_hours: float = 2.0
    read_copies: int = 8                # games keeping a copy of themselves for reads (autocomplete, status)

    def memory(self) -> dict[str, Any]:
        """The service's limits on the games it keeps in memory (`bot.service.Service`'s arguments)."""
        return {"max_live": self.live_games, "idle_after": self.idle_game_hours * 3600.0,
                "read_copies": self.read_copies}

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
            reminder_check=_number(e, "ROUNDHOUSE_REMINDER_CHECK", 60.0, 0.1),
            pictures=(e.get("ROUNDHOUSE_PICTURES") or "1").lower() not in ("0", "false", "no"),
            out_dir=e.get("ROUNDHOUSE_OUT") or "out",
            log_level=(e.get("ROUNDHOUSE_LOG_LEVEL") or "INFO").upper(),
            language=(e.get("ROUNDHOUSE_LANG") or "en").lower(),
            live_games=_number(e, "ROUNDHOUSE_LIVE_GAMES", 32, 1, int),
            idle_game_hours=_number(e, "ROUNDHOUSE_IDLE_GAME_HOURS", 2.0, 0.01),
            read_copies=_number(e, "ROUNDHOUSE_READ_COPIES", 8, 0, int),
        )

