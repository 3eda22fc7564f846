"""Run the real bot (`python -m bot`'s entry point) in its own process against a FakeDiscord.

    FAKE_DISCORD=http://127.0.0.1:PORT DISCORD_TOKEN=x ROUNDHOUSE_DB=... python tests/fakediscord/launch.py

discord.py is pointed at the fake before `bot.__main__.main` runs, so the process is the bot as deployed
(owner lock, start-up, signals) talking to loopback only. Used by the crash and two-process tests.
"""

from __future__ import annotations

import os
import sys

import discord.gateway
import discord.http
import yarl


def main() -> int:
    base = os.environ["FAKE_DISCORD"]
    discord.http.Route.BASE = base + "/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(base.replace("http", "ws", 1) + "/gateway/")
    from bot.__main__ import main as bot_main
    return bot_main([])


if __name__ == "__main__":
    sys.exit(main())
