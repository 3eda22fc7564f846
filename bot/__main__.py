"""`python -m bot`: the Discord bot when DISCORD_TOKEN is set, otherwise the local console.

    python -m bot                 # bot or console on ROUNDHOUSE_DB
    python -m bot --lang ru       # the console in Russian (ROUNDHOUSE_LANG)
    python -m bot check [DB]      # integrity check of a database (safe while the bot runs)
    python -m bot backup FILE     # online backup of ROUNDHOUSE_DB to FILE (safe while the bot runs)
"""

from __future__ import annotations

import sys

from bot.config import Config
from bot.db import DatabaseInUse, MigrationFailed
from i18n import LANGUAGES

USAGE = "usage: python -m bot [--lang en|ru] [check [DB] | backup FILE]"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        config = Config.from_env()
    except ValueError as exc:  # a setting mistyped: said at once, rather than a traceback
        print(f"roundhouse: {exc}", file=sys.stderr)
        return 2
    for i, arg in enumerate(args):
        if arg == "--lang" and i + 1 < len(args) or arg.startswith("--lang="):
            value = arg.split("=", 1)[1] if "=" in arg else args[i + 1]
            del args[i:i + (1 if "=" in arg else 2)]
            if value.lower() not in LANGUAGES:
                print(USAGE, file=sys.stderr)
                return 2
            config.language = value.lower()
            break
    try:
        if args and args[0] == "check":
            from bot.integrity import main as check
            return check(args[1] if len(args) > 1 else config.db_path)
        if args and args[0] == "backup" and len(args) == 2:
            from bot.integrity import backup
            backup(config.db_path, args[1])
            print(f"backed up {config.db_path} to {args[1]}")
            return 0
        if args:
            print(USAGE, file=sys.stderr)
            return 2
        if config.token:
            from bot.discord_bot import main as run
        else:
            from bot.console import main as run
        run(config)
    except (DatabaseInUse, MigrationFailed) as exc:
        print(f"roundhouse: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: stop quietly (every acknowledged action is already stored)
        print("roundhouse: stopped.", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
