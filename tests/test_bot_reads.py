"""Heavy reads (status, history, export: replays and pictures in worker threads), through the fake Discord: one
member has only so many on their way at once, so one member cannot fill the worker threads every server uses."""

from __future__ import annotations

import asyncio
import threading

import pytest
from fakediscord import BotRunner, FakeDiscord
from test_bot_stale import _two_played

from bot.service import MAX_READS_AT_ONCE
from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")


async def test_a_member_has_only_so_many_reads_on_their_way_at_once(tmp_path):
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, second, _third) = await _two_played(fake, bot)
        loop, entered, release = asyncio.get_running_loop(), asyncio.Event(), threading.Event()
        told, count = bot.service._sentences, []

        def held(*args, **kwargs):  # a history's replay, in its worker thread, held until released
            count.append(1)
            if len(count) == MAX_READS_AT_ONCE:
                loop.call_soon_threadsafe(entered.set)
            release.wait(10)
            return told(*args, **kwargs)

        bot.service._sentences = held
        reading = [asyncio.ensure_future(fake.command(first, thread, "game", {}, sub="history"))
                   for _ in range(MAX_READS_AT_ONCE)]
        await asyncio.wait_for(entered.wait(), 10)
        for sub in ("history", "status", "export"):  # one more, of any kind: refused at once
            rec = await fake.command(first, thread, "game", {}, sub=sub)
            assert rec.final.ephemeral and rec.final.content == \
                f"You have {MAX_READS_AT_ONCE} reads on their way (status, history, export): ask again once they " \
                "are answered.", rec.final.content
        rec = await fake.command(second, thread, "game", {}, sub="status")  # another member's are theirs
        assert "1830" in rec.final.content, rec.final.content
        release.set()
        for done in await asyncio.gather(*reading):
            assert done.final.content.startswith("1. "), done.final.content
        rec = await fake.command(first, thread, "game", {}, sub="history")  # answered: they may read again
        assert rec.final.content.startswith("1. "), rec.final.content
    finally:
        await runner.stop()
        await fake.stop()
