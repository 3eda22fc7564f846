"""Test support for the bot: a fake Discord on loopback (server.py)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from bot.config import Config
from bot.discord_bot import RoundhouseBot, make_bot

from .server import AttachmentRef, FakeDiscord, InteractionRecord, Message, UserRef

__all__ = ["FakeDiscord", "InteractionRecord", "Message", "UserRef", "AttachmentRef", "BotRunner"]


class BotRunner:
    """Start/stop the real bot (discord.py client) against a FakeDiscord in the current event loop."""

    def __init__(self, fake: FakeDiscord, db_path: str, engine: Any = None, **config: Any):
        self.fake = fake
        self.db_path = db_path
        self.engine = engine
        self.config = config
        self.bot: RoundhouseBot | None = None
        self.task: asyncio.Task | None = None

    async def start(self) -> RoundhouseBot:
        self.fake.patch()
        self.fake.ready.clear()
        cfg = Config(token="fake-token", db_path=self.db_path, dev_guild=self.fake.guild_id, reminder_check=3600,
                     guild_ready_timeout=0.05, **self.config)
        self.bot = make_bot(cfg, engine=self.engine)
        self.task = asyncio.create_task(self.bot.start("fake-token"))
        done, _ = await asyncio.wait({self.task, asyncio.ensure_future(self.fake.ready.wait())},
                                     timeout=20, return_when=asyncio.FIRST_COMPLETED)
        if self.task in done:
            self.task.result()  # raises the start-up error
        await asyncio.wait_for(self.fake.ready.wait(), 20)
        return self.bot

    async def stop(self) -> None:
        if self.bot is not None:
            await self.bot.close()
        if self.task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self.task, 10)
        self.bot = None
        self.task = None
