"""Start-up through the fake Discord: the bot connects and answers before the running games are replayed; a
command on a game not built yet builds it, or waits for the build on its way."""

from __future__ import annotations

import asyncio
import threading

import pytest
from fakediscord import BotRunner, FakeDiscord
from test_bot_lobby import _act_first_legal
from test_bot_stale import _started

from bot.session import Engine, engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")


class HeldReplay(Engine):
    """Replays one game only once let go (`going`): a long log, or many games replayed before it."""

    def __init__(self, held: int):
        super().__init__()
        self.held = held
        self.entered, self.going = threading.Event(), threading.Event()

    def replay(self, title, players, seed, setup, actions, game_id=None):
        if game_id == self.held:
            self.entered.set()
            self.going.wait(30)
        return super().replay(title, players, seed, setup, actions, game_id)


async def test_the_bot_answers_before_the_running_games_are_replayed(tmp_path):
    fake = await FakeDiscord().start()
    path = str(tmp_path / "rh.db")
    runner = BotRunner(fake, path, pictures=False)
    bot = await runner.start()
    engine = None
    try:
        played, played_thread, members = await _started(fake, bot)
        waiting, waiting_thread, _ = await _started(fake, bot)
        await _act_first_legal(fake, members[0], played_thread)  # the game played last: the first replayed
        await runner.stop()

        engine = HeldReplay(played)
        runner = BotRunner(fake, path, engine=engine, pictures=False)
        bot = await runner.start()  # connected while the first game's replay is held
        assert await asyncio.to_thread(engine.entered.wait, 10)
        assert waiting not in bot.service._live
        rec = await fake.command(members[0], waiting_thread, "game", {}, sub="status")  # built for this command
        assert "Next:" in rec.final.content, rec.final.content
        asking = asyncio.ensure_future(fake.command(members[1], played_thread, "game", {}, sub="status"))
        await asyncio.sleep(0.2)
        assert not asking.done()  # it waits for the build on its way
        engine.going.set()
        rec = await asking
        assert "Next:" in rec.final.content, rec.final.content
        await asyncio.wait_for(bot.resumed, 10)
        assert {played, waiting} <= set(bot.service._live)
        await _act_first_legal(fake, members[1], played_thread)
        assert await bot.db.action_count(played) == 2
    finally:
        if engine is not None:
            engine.going.set()
        await runner.stop()
        await fake.stop()
