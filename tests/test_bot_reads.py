"""Heavy reads (status, history, export: replays and pictures in worker threads) and autocomplete, through the fake
Discord: one member has only so many on their way at once, and all members' reads run only so many at once, so
they cannot fill the worker threads every server uses."""

from __future__ import annotations

import asyncio
import threading

import pytest
from fakediscord import BotRunner, FakeDiscord
from test_bot_stale import _two_played

from bot.service import MAX_COMPLETIONS_AT_ONCE, MAX_READS_AT_ONCE, MAX_READS_RUNNING
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


def _held(bot, name: str, holds, reached: int):
    """Hold the service's `name` (work done in a worker thread) for the calls `holds(*args)` picks, until released:
    (calls made, an event set once `reached` of them are held, release)."""
    loop, entered, release = asyncio.get_running_loop(), asyncio.Event(), threading.Event()
    real, calls = getattr(bot.service, name), []

    def held(*args, **kwargs):
        calls.append(args)
        if holds(*args):
            if sum(1 for c in calls if holds(*c)) == reached:
                loop.call_soon_threadsafe(entered.set)
            release.wait(10)
        return real(*args, **kwargs)

    setattr(bot.service, name, held)
    return calls, entered, release


async def test_all_members_reads_run_only_so_many_at_once(tmp_path):
    """As many histories as may run at once, each by another member, held in their worker threads: one more, by yet
    another member, waits its turn without starting (no replay); once they are released it runs, and all are
    answered."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, members = await _two_played(fake, bot)
        readers = [*members, *(fake.add_user(f"Reader{i}") for i in range(MAX_READS_RUNNING + 1 - len(members)))]
        calls, entered, release = _held(bot, "_sentences", lambda *args: True, MAX_READS_RUNNING)
        reading = [asyncio.ensure_future(fake.command(m, thread, "game", {}, sub="history"))
                   for m in readers[:MAX_READS_RUNNING]]
        await asyncio.wait_for(entered.wait(), 10)
        last = asyncio.ensure_future(fake.command(readers[MAX_READS_RUNNING], thread, "game", {}, sub="history"))
        for _ in range(400):  # until it waits its turn
            if bot.service.reads.waiting:
                break
            await asyncio.sleep(0.025)
        assert bot.service.reads.waiting == 1 and len(calls) == MAX_READS_RUNNING and not last.done()
        release.set()
        for done in await asyncio.gather(*reading, last):
            assert done.final.content.startswith("1. "), done.final.content
        assert len(calls) == MAX_READS_RUNNING + 1 and bot.service.reads.waiting == 0
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_member_has_only_so_many_autocompletes_on_their_way(tmp_path):
    """A member's autocompletes held while their choices are worked out: one more of theirs gets no choices at once,
    and no work is done for it; another member's are answered; once released, theirs are too."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, second, third) = await _two_played(fake, bot)
        seat = {s.member_id: s for s in (await bot.service.live(gid)).seats}

        def theirs(session, cmd, option, current, filled, s=None):
            return s is not None and s.member_id == third

        calls, entered, release = _held(bot, "_choices", theirs, MAX_COMPLETIONS_AT_ONCE)
        ask = ("bid", {"company": "", "price": 0}, "company")
        typing = [asyncio.ensure_future(fake.autocomplete(third, thread, *ask)) for _ in range(MAX_COMPLETIONS_AT_ONCE)]
        await asyncio.wait_for(entered.wait(), 10)
        assert await fake.autocomplete(third, thread, *ask) == [] and len(calls) == MAX_COMPLETIONS_AT_ONCE
        assert await fake.autocomplete(first, thread, *ask) and calls[-1][-1] == seat[first]
        release.set()
        for choices in await asyncio.gather(*typing):
            assert choices, choices
    finally:
        await runner.stop()
        await fake.stop()
