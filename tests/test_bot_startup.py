"""Start-up through the fake Discord: the bot connects and answers before the running games are replayed; a
command on a game not built yet builds it, or waits for the build on its way; a game beyond those memory keeps is
checked all the same."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading

import pytest
from fakediscord import BotRunner, FakeDiscord
from test_bot_lobby import _act_first_legal
from test_bot_stale import _started

from bot.service import Service
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


async def _damaged_while_stopped(fake: FakeDiscord, runner: BotRunner, path: str, language: str
                                 ) -> tuple[int, int, list[int], int, str]:
    """Two running 1830 games, one move each; the bot stops and the first game's log is damaged (and its language
    set to `language`): (that game, its thread, its members, the game played last, its action as it was)."""
    bot = await runner.start()
    damaged, damaged_thread, members = await _started(fake, bot)
    await _act_first_legal(fake, members[0], damaged_thread)
    played, played_thread, others = await _started(fake, bot)
    await _act_first_legal(fake, others[0], played_thread)  # played last: the one memory keeps
    await runner.stop()
    with sqlite3.connect(path) as raw:  # its log damaged while the bot was stopped
        [(sound,)] = raw.execute("SELECT action FROM actions WHERE game_id = ?", (damaged,)).fetchall()
        raw.execute("UPDATE actions SET action = ? WHERE game_id = ?", (json.dumps(
            {"type": "lay_tile", "entity": "X", "entity_type": "corporation", "id": 1}), damaged))
        raw.execute("UPDATE games SET language = ? WHERE id = ?", (language, damaged))
    return damaged, damaged_thread, members, played, sound


async def test_a_game_resumed_broken_is_told_in_its_thread_though_the_check_beyond_memory_fails(tmp_path,
                                                                                               monkeypatch):
    """A running game memory keeps does not replay, and the check of the games beyond memory then fails outright:
    the broken game's thread is still told, once."""
    fake = await FakeDiscord().start()
    path = str(tmp_path / "rh.db")
    runner = BotRunner(fake, path, pictures=False)
    try:
        damaged, damaged_thread, _members, _played, _sound = await _damaged_while_stopped(fake, runner, path, "en")

        async def fails(self, built):
            raise RuntimeError("the database went away")

        monkeypatch.setattr(Service, "check_beyond", fails)
        bot = await runner.start()
        await asyncio.wait_for(bot.resumed, 30)
        assert damaged in bot.service.broken
        assert [m.content for m in fake.channel_messages(damaged_thread) if "cannot be loaded" in m.content] == [
            f"Game #{damaged} cannot be loaded ({bot.service.broken[damaged]}); its log is kept as it was. The bot's "
            "operator has been told."]
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_running_game_beyond_those_kept_in_memory_that_does_not_replay_is_found_at_start_up(tmp_path, caplog):
    """Memory keeps one game: the other running game, whose stored log no longer replays, is found at start-up (not
    kept in memory), reported as `python -m bot check` reports it, and its first command says so at once. Its
    thread is told so once, in the game's language (Russian here), not again at the next start-up; should it load
    again and then break again, it is told again."""
    fake = await FakeDiscord().start()
    path = str(tmp_path / "rh.db")
    runner = BotRunner(fake, path, pictures=False, live_games=1)
    try:
        damaged, damaged_thread, members, played, sound = await _damaged_while_stopped(fake, runner, path, "ru")

        def told() -> list[str]:
            return [m.content for m in fake.channel_messages(damaged_thread) if "не удаётся загрузить" in m.content]

        bot = await runner.start()
        await asyncio.wait_for(bot.resumed, 30)
        assert list(bot.service._live) == [played] and damaged in bot.service.broken
        assert f"game {damaged}: the log does not replay" in caplog.text
        [said] = told()
        assert said.startswith(f"Партию №{damaged} не удаётся загрузить (") and said.endswith("Владелец бота извещён."), \
            said
        rec = await fake.command(members[0], damaged_thread, "game", {}, sub="status")
        assert rec.final.content.startswith(f"Game #{damaged} cannot be loaded"), rec.final.content
        await runner.stop()
        bot = await runner.start()
        await asyncio.wait_for(bot.resumed, 30)
        assert damaged in bot.service.broken and told() == [said]  # once

        for action, broken in ((sound, False), (json.dumps({"type": "pass", "entity": "X", "id": 1}), True)):
            await runner.stop()
            with sqlite3.connect(path) as raw:  # mended, then damaged again
                raw.execute("UPDATE actions SET action = ? WHERE game_id = ?", (action, damaged))
            bot = await runner.start()
            await asyncio.wait_for(bot.resumed, 30)
            assert (damaged in bot.service.broken) == broken
            assert (await bot.db.get_game(damaged)).broken_told == broken and len(told()) == 1 + broken
    finally:
        await runner.stop()
        await fake.stop()
