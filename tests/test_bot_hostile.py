"""What hostile input or a failing disk can do to the bot: nothing but tell the member what is wrong. Lobbies opened
without end (ten at once per member and server), logs made to
break the reader (nested past what Python parses, a Steam map or seed that is no such thing), many imports at once
(each read one at a time, so memory stays bounded), logs of every family with junk where their values were (imported
or refused, never an engine failure), a commit the disk refuses (what the member was told did not happen never
reaches the log later), an undo vote or trade offer left open when the game is aborted (closed with it), a game
whose thread refuses its posts (no work for it between the hourly tries), a game left without its thread by the
process stopping (closed at the next start). Real engine; the fake Discord where the member's answer is what
matters."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import random
import sqlite3
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from fakediscord import AttachmentRef, BotRunner, FakeDiscord
from fakediscord.play import GUILD, fixture_log, imported_game, started_game, state
from test_bot_stale import _train_from_another_president

from bot.access import Caller
from bot.db import Database
from bot.errors import UserError
from bot.service import IDLE_GAME_SECONDS, MAX_OPEN_LOBBIES, Service
from bot.session import Engine
from engine.core.actions import resolve_undo

NESTED = 100_000  # far deeper than json.loads goes (it raises RecursionError, not ValueError)
FIXTURES = Path(__file__).parent / "fixtures"
JUNK = [None, True, -1, 0, 10**30, 1.5, 1e300, float("nan"), float("inf"), "", "x" * 200, [], {}, [1], {"a": 1}, "1",
        "A", "NYC", "pass", "player", "corporation", "company", "E19", [[1]], [None]]


@pytest.fixture
async def db(tmp_path):
    async with Database(tmp_path / "rh.db") as database:
        yield database


async def test_a_log_nested_too_deeply_is_refused_with_what_is_wrong(tmp_path):
    """A file of lists in lists, deeper than the JSON reader goes: the member is told so, no game is made."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        ann = fake.add_user("Ann")
        nested = '{"title": "1830", "players": [{"id": 1}, {"id": 2}], "actions": ' + "[" * NESTED + "]" * NESTED + "}"
        rec = await fake.command(ann, fake.channel_id, "game", {"file": AttachmentRef("game.json", nested.encode())},
                                 sub="import")
        assert "its lists or objects lie more than 20 deep" in rec.final.content, rec.final.content
        assert await bot.service.db.list_games(guild_id=fake.guild_id) == []
    finally:
        await runner.stop()
        await fake.stop()


@pytest.mark.parametrize("settings, words", [
    ({"map": "../../etc/passwd", "seed": 3}, "map must be 'eastern_us_and_canada' or 'rust_belt', not"),
    ({"map": "rust_belt", "seed": "three"}, "seed must be a whole number"),
    ({"map": "rust_belt", "seed": float("nan")}, "seed must be"),
], ids=["map", "seed text", "seed NaN"])
async def test_a_steam_log_with_settings_that_are_no_such_thing_is_refused(db, caplog, settings, words):
    """The engine's own refusal, not its failure (which is logged for the developers as a fault of theirs)."""
    svc = Service(db, Engine(), pictures=False)
    players = [{"id": i, "name": n} for i, n in enumerate(("Ann", "Bob", "Cid"), 1)]
    data = json.dumps({"title": "steam", "players": players, "settings": settings, "actions": []})
    with caplog.at_level(logging.ERROR, logger="bot.service"), pytest.raises(UserError) as refused:
        await svc.import_game(Caller(11, "Ann", GUILD, 8000), data, [(11, "Ann")])
    assert "The log does not replay" in str(refused.value) and words in str(refused.value), str(refused.value)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert await db.list_games(guild_id=GUILD) == []


async def test_imports_are_read_one_at_a_time(db, monkeypatch):
    """An import waiting for another is not read meanwhile: 12 MB of JSON takes some 270 MB once read, and many
    members importing at once must not each hold that."""
    svc = Service(db, Engine(), pictures=False)
    loop = asyncio.get_running_loop()
    replaying, release = asyncio.Event(), threading.Event()
    real_load = svc.engine.load

    def held_load(log: dict):
        loop.call_soon_threadsafe(replaying.set)
        release.wait(30)
        return real_load(log)

    svc.engine.load = held_load  # type: ignore[method-assign]
    read = []
    real_parse = Service.parse_log

    def noted(self, data):
        read.append(data)
        return real_parse(self, data)

    monkeypatch.setattr(Service, "parse_log", noted)
    waiting = asyncio.Event()
    acquire = svc._importing.acquire

    async def queued() -> bool:
        if svc._importing.locked():
            waiting.set()
        return await acquire()

    svc._importing.acquire = queued  # type: ignore[method-assign]
    first = asyncio.ensure_future(imported_game(svc, fixture_log(), 20, thread=9101))
    try:
        await replaying.wait()
        second = asyncio.ensure_future(imported_game(svc, fixture_log(), 30, thread=9102))
        await waiting.wait()
        assert len(read) == 1  # the second waits for its turn before reading its file
    finally:
        release.set()
    (one, _), (two, _) = await first, await second
    assert len(read) == 2
    assert (await db.action_count(one), await db.action_count(two)) == (20, 30)


async def test_an_action_whose_commit_failed_is_not_stored_by_a_later_write(db):
    """A COMMIT that fails (the disk full, an I/O error) may leave SQLite's transaction open: the member told that
    their action did not happen must not find it stored by the next write, of anything, and sends it again once."""
    svc = Service(db, Engine(), pictures=False)
    gid, who = await started_game(svc)
    commit = db.conn.commit

    async def disk_full_once():
        db.conn.commit = commit
        raise sqlite3.OperationalError("database or disk is full")

    db.conn.commit = disk_full_once  # type: ignore[method-assign]
    with pytest.raises(UserError, match="did not happen"):
        await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20})
    await svc.set_notify(who["Bob"], True)  # the next write, of anything
    assert await db.dm_optin(who["Bob"].member_id) and await db.action_count(gid) == 0
    await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20})
    assert await db.action_count(gid) == 1
    assert state((await svc.live(gid)).game) == state((await Service(db, Engine(), pictures=False).live(gid)).game)


def mutated(log: dict, rnd: random.Random) -> dict:
    """The log with one to three of its values (the settings', the players', an action's, the log's own) replaced
    by junk, or taken out."""
    log = copy.deepcopy(log)
    for _ in range(rnd.randint(1, 3)):
        where: object = log
        while isinstance(where, (dict, list)) and where and rnd.random() < 0.6:
            inner = [v for v in (where.values() if isinstance(where, dict) else where) if isinstance(v, (dict, list)) and v]
            if not inner:
                break
            where = rnd.choice(inner)
        if isinstance(where, dict) and where:
            key = rnd.choice(sorted(where, key=str))
            if rnd.random() < 0.2:
                del where[key]
            else:
                where[key] = copy.deepcopy(rnd.choice(JUNK))
        elif isinstance(where, list) and where:
            where[rnd.randrange(len(where))] = copy.deepcopy(rnd.choice(JUNK))
    return log


@pytest.mark.parametrize("fixture", ["1830/26855", "1817/15528", "18MEX/13315", "1860/1860_game_end_stock_market",
                                     "steam/rust_belt_basic_4p"])
async def test_a_log_with_junk_in_it_is_imported_or_refused_never_failing(db, caplog, fixture):
    """Logs of every family with junk where their values were: each is imported (and replays as stored) or refused
    with the engine's or the reader's words; the engine never fails on one (its failure would be logged for the
    developers as a fault of theirs)."""
    svc = Service(db, Engine(), pictures=False)
    log = json.loads((FIXTURES / f"{fixture}.json").read_text())
    log = dict(log, actions=(resolve_undo(log["actions"]) if log["title"] != "steam" else log["actions"])[:40])
    rnd = random.Random(fixture)
    imported = refused = 0
    with caplog.at_level(logging.ERROR):
        for _ in range(60):
            try:
                row, _ = await svc.import_game(Caller(11, "Ann", GUILD, 8000), json.dumps(mutated(log, rnd)), [])
            except UserError as e:
                assert "failed" not in str(e), str(e)
                refused += 1
                continue
            imported += 1
            assert state((await svc.live(row.id)).game) == \
                state((await Service(db, Engine(), pictures=False).live(row.id)).game)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert imported and refused


async def test_a_thread_refusing_its_catch_up_costs_nothing_until_it_is_tried_again(db):
    """A game whose thread is gone (deleted, or closed to the bot) stays untold: until its catch-up is tried again an
    hour later, the sweeps every minute neither rebuild it from its log nor keep it in memory."""
    replays = []

    class Counted(Engine):
        def replay(self, *args, **kwargs):
            replays.append(args[0])
            return super().replay(*args, **kwargs)

    async def refuses(reply):
        return None

    svc = Service(db, Counted(), pictures=False)
    gid, who = await started_game(svc)
    await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20}, refuses)
    assert await svc.catch_up(refuses, now=1000.0) == []
    assert svc.evict(now=time.monotonic() + IDLE_GAME_SECONDS) == [gid]  # idle: it leaves memory
    replays.clear()
    for minute in range(1, 6):
        assert await svc.catch_up(refuses, now=1000.0 + 60 * minute) == []
    assert replays == [] and gid not in svc._live
    assert await svc.catch_up(refuses, now=1000.0 + svc.CATCH_UP_RETRY) == []
    assert replays and gid in svc._live  # tried again: rebuilt to tell what it missed


async def test_a_member_hosts_so_many_open_lobbies_at_once(tmp_path):
    """Each lobby is a thread in the channel: one member may not open them without end. Past the limit the member is
    told why and no thread is opened; others may still open theirs, and so may they once one of theirs is started
    or aborted."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        ann, bob = fake.add_user("Ann"), fake.add_user("Bob")

        async def opened(uid: int) -> str:
            rec = await fake.command(uid, fake.channel_id, "game", {"title": "1830"}, sub="new")
            return rec.final.content

        for _ in range(MAX_OPEN_LOBBIES):
            assert (await opened(ann)).startswith("Game #")
        threads = [c for c, ch in fake.channels.items() if ch.get("type") == 11]
        refusal = await opened(ann)
        assert refusal.startswith(f"You already host {MAX_OPEN_LOBBIES} open lobbies in this server"), refusal
        assert [c for c, ch in fake.channels.items() if ch.get("type") == 11] == threads
        assert (await opened(bob)).startswith("Game #")
        first = min(r.id for r in await bot.service.db.list_games(guild_id=fake.guild_id))
        rec = await fake.command(ann, fake.channel_id, "game", {"game": first}, sub="abort")
        assert rec.final.content == "Done.", rec.final.content
        assert (await opened(ann)).startswith("Game #")
    finally:
        await runner.stop()
        await fake.stop()


async def test_an_undo_vote_or_trade_offer_left_open_closes_with_the_aborted_game(db):
    """Completed after the host aborted the game, the vote would have brought it back as running and the offer
    stored a trade in it: both close with it, their messages saying so."""
    messages = iter(range(1, 1000))
    posts: list = []

    async def posted(reply):  # as the bot posts it: the reply, then the edits it carries
        posts.extend([reply, *reply.also])
        return SimpleNamespace(id=next(messages))

    svc = Service(db, Engine(), pictures=False)
    gid, who = await started_game(svc)
    await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20}, posted)
    await svc.undo(gid, who["Bob"], 1, posted)  # Ann's action: Ann and Cid must agree
    vote = await db.undo_request(gid)
    await svc.abort(gid, who["Ann"], posted)
    assert any(p.edit == vote.message_id and "closed: the game was aborted" in p.text for p in posts)
    for member in (who["Ann"], who["Cid"]):
        with pytest.raises(UserError, match="no longer open"):
            await svc.vote_undo(gid, member, True, vote.token, posted, message_id=vote.message_id)
    assert (await db.get_game(gid)).status == "aborted" and await db.action_count(gid) == 1

    trade, buyer, seller, wanted = await _train_from_another_president(svc)
    await svc.act(trade, buyer, "train", {"train": wanted["train"], "price": 300}, posted)
    offer = await db.trade_offer(trade)
    host = Caller((await db.get_game(trade)).created_by, "", GUILD, 9101)
    await svc.abort(trade, host, posted)
    assert any(p.edit == offer.message_id and "closed: the game was aborted" in p.text for p in posts)
    with pytest.raises(UserError, match="no longer open"):
        await svc.answer_offer(trade, seller, True, offer.token, posted, message_id=offer.message_id)
    assert (await db.get_game(trade)).status == "aborted" and await db.action_count(trade) == 336


async def test_a_game_left_without_its_thread_is_closed_at_start_up_and_its_host_told(tmp_path):
    """The process stopped between storing a new lobby (or an import) and opening its thread: the game would stay in
    `/game list` with no thread for ever. The next start closes it, as when Discord refuses the thread, and tells its
    host in the channel where they asked for it; games with a thread, and the console's, go on."""
    fake = await FakeDiscord().start()
    path = str(tmp_path / "rh.db")
    ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
    async with Database(path) as db:  # as the process left it
        svc = Service(db, Engine(), pictures=False)
        here = Caller(ann, "Ann", fake.guild_id, fake.channel_id)
        lobby = (await svc.new_game(here, title="1830", channel_id=fake.channel_id)).id
        log = fixture_log()
        players = [(ann, "Ann"), (bob, "Bob"), *[None] * (len(log["players"]) - 2)]
        imported = (await svc.import_game(here, dict(log, actions=log["actions"][:20]), players,
                                          channel_id=fake.channel_id))[0].id
        running, _ = await started_game(svc, guild=fake.guild_id, thread=9001)
        console, _ = await started_game(svc, guild=None, thread=None)
    runner = BotRunner(fake, path, pictures=False)
    bot = await runner.start()
    try:
        statuses = {r.id: r.status for r in await bot.service.db.list_games(statuses=("lobby", "active", "aborted"),
                                                                             any_guild=True)}
        assert statuses == {lobby: "aborted", imported: "aborted", running: "active", console: "active"}, statuses
        notes = [m.content for m in fake.channel_messages(fake.channel_id)]
        for game in (lobby, imported):
            assert f"<@{ann}> Game #{game} was not opened: the bot stopped before its thread was made." in \
                "\n".join(notes), notes
        rec = await fake.command(ann, fake.channel_id, "game", {}, sub="list")
        assert f"#{running}" in rec.final.content, rec.final.content
        assert f"#{lobby}" not in rec.final.content and f"#{imported}" not in rec.final.content, rec.final.content
    finally:
        await runner.stop()
        await fake.stop()
