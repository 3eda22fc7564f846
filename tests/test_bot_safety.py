"""Nothing lost, nobody where they don't belong: the bot's service under engine failures, a second writer,
damaged logs, callers from other servers, seat changes and bad input (issue 10). Real engine, no Discord."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from fakediscord.play import (
    GUILD,
    OTHER_GUILD,
    FaultyEngine,
    fixture_log,
    imported_game,
    resolved_actions,
    session_1830,
    started_game,
    state,
    waiting_on,
)

from bot.access import Caller
from bot.config import Config
from bot.db import Database, DatabaseInUse, LogConflict, UndoRequest
from bot.discord_bot import thread_link
from bot.errors import UserError
from bot.integrity import check
from bot.service import MAX_IMPORT_ACTIONS, MAX_IMPORT_BYTES, Reply, Service
from bot.session import Change, Engine


@pytest.fixture
async def db(tmp_path):
    async with Database(tmp_path / "rh.db") as database:
        yield database


def service(db: Database, engine: Engine | None = None) -> Service:
    return Service(db, engine or Engine(), pictures=False)


async def refused(coro, *words: str) -> str:
    with pytest.raises(UserError) as info:
        await coro
    text = str(info.value)
    for w in words:
        assert w in text, text
    return text


async def rebuilt_state(svc: Service, game_id: int) -> str:
    return state((await svc.live(game_id, reload=True)).game)


# ---------------------------------------------------------------------------- half-applied actions
async def test_engine_failure_drops_the_half_applied_game_and_stores_nothing(db):
    svc = service(db, FaultyEngine())
    gid, who = await started_game(svc)
    await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20})
    before = state(svc._live[gid].game)
    svc.engine.fail_on = "bid"
    text = await refused(svc.act(gid, who["Bob"], "bid", {"company": "CA", "price": 170}), "nothing was stored")
    assert "as it was" in text
    assert await db.action_count(gid) == 1
    svc.engine.fail_on = None
    # the game in memory is the stored one again: the same bid is now accepted, once
    assert state((await svc.live(gid)).game) == before
    await svc.act(gid, who["Bob"], "bid", {"company": "CA", "price": 170})
    assert await db.action_count(gid) == 2
    assert state(svc._live[gid].game) == await rebuilt_state(svc, gid)
    assert await check(db) == []


async def test_train_from_another_corporation_with_a_garbage_exchange_changes_nothing(db):
    """The review's case: /train from another corporation, exchanging a train B&O does not own."""
    svc = service(db)
    log = fixture_log("26855")
    recorded = resolved_actions(log)
    k = next(i for i, a in enumerate(recorded) if a["type"] == "buy_train" and a["train"] == "2-1"
             and a["entity"] == "B&O")
    gid, callers = await imported_game(svc, log, upto=k)
    game = svc._live[gid].game
    president = callers[game.corporation("B&O").owner.id]
    before = state(game)
    await refused(svc.act(gid, president, "train", {"train": "2-1", "price": 90, "exchange": "2-0"}))
    assert await db.action_count(gid) == k
    assert state((await svc.live(gid)).game) == before == await rebuilt_state(svc, gid)
    # the recorded purchase still goes through, and the stored game replays to the game in memory
    await svc.act(gid, president, "train", {"train": "2-1", "price": 90})
    assert state(svc._live[gid].game) == await rebuilt_state(svc, gid)


async def test_a_follow_up_that_cannot_be_stored_is_not_told_or_acted_on(db, monkeypatch):
    """`/done` for PRR passes its run (withholding) and then its train buying (two actions); the second cannot be
    stored: the first stands, and the reply tells the game as stored (PRR still to buy a train, not the turn the
    engine had moved on to), with its buttons for the moment the game is at."""
    svc = service(db)
    gid, callers = await imported_game(svc, fixture_log("26855"), 52)
    real, calls = Database.append_action, []

    async def failing(self, *args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise sqlite3.OperationalError("disk I/O error")
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(Database, "append_action", failing)
    who = callers[int(svc._live[gid].session.active_players()[0])]
    reply = await svc.act(gid, who, "done", {})
    monkeypatch.undo()
    assert len(calls) == 2 and await db.action_count(gid) == 53
    assert reply.text == "PRR passes — PRR has no train to run, so it withholds: PRR price $67 → $65.\n" \
                         "Next: **Player 4** for PRR — buy a train or pass.", reply.text
    assert reply.told == (53, 53)
    assert state(svc._live[gid].game) == await rebuilt_state(svc, gid)
    moment = await svc.moment(gid, who)
    assert moment == 53 and reply.buttons and all(b.endswith(f":{moment}") for b in reply.buttons), reply.buttons


async def test_a_background_task_that_fails_is_logged(db, monkeypatch, caplog):
    """Drawing a new lobby's first pictures ahead runs in the background, awaited by nobody: its failure is
    logged when it happens."""
    def broken(self, title):
        raise RuntimeError("drawing bug")

    monkeypatch.setattr(Engine, "warm_pictures", broken)
    svc = Service(db, Engine(), pictures=True)
    await svc.new_game(Caller(11, "Ann", GUILD, 8000), title="1830", seed=5, channel_id=8000, thread_id=9001)
    assert svc._tasks
    await asyncio.gather(*svc._tasks, return_exceptions=True)
    await asyncio.sleep(0)  # the task's end is handled
    failed = [r for r in caplog.records if r.name == "bot.service" and r.exc_info]
    assert [str(r.exc_info[1]) for r in failed] == ["drawing bug"] and not svc._tasks


# ---------------------------------------------------------------------------- one owner per database
async def test_a_second_owner_of_the_database_is_refused(tmp_path):
    path = tmp_path / "rh.db"
    async with Database(path):
        with pytest.raises(DatabaseInUse, match="in use by another Roundhouse process"):
            await Database(path).open()
        async with Database(path, owner=False) as reader:  # tools may read alongside
            assert await reader.schema_version() >= 4
    async with Database(path):  # the lock goes with its owner
        pass


async def test_a_log_never_holds_two_actions_with_one_id_or_number(db):
    svc = service(db)
    gid, who = await started_game(svc)
    await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20})
    stored = (await db.actions(gid))[0]
    raw = sqlite3.connect(db.path)
    try:
        for seq, action_id in ((2, stored["id"]), (1, stored["id"] + 1), (3, stored["id"] + 1), (2, None)):
            with pytest.raises(sqlite3.IntegrityError):
                raw.execute("INSERT INTO actions(game_id, seq, action, action_id, created_at) VALUES (?,?,?,?,0)",
                            (gid, seq, json.dumps(stored), action_id))
    finally:
        raw.close()
    with pytest.raises(LogConflict):
        await db.append_action(gid, dict(stored, id=stored["id"] + 1), 11, 1)
    assert await db.action_count(gid) == 1


async def test_a_game_whose_log_moved_on_is_rebuilt_not_written_over(db):
    """Two writers on one log (what two processes did): the second one's game in memory is stale; its
    action is refused and nothing is stored on top."""
    first, second = service(db), service(db)
    gid, who = await started_game(first)
    await second.live(gid)
    await first.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20})
    await refused(second.act(gid, who["Ann"], "pass", {}), "changed while your command ran")
    assert await db.action_count(gid) == 1
    await second.act(gid, who["Bob"], "pass", {})  # rebuilt from the log: Bob is next
    assert [a["type"] for a in await db.actions(gid)] == ["bid", "pass"]
    assert await check(db) == []


async def test_start_up_resumes_the_healthy_games_and_reports_the_broken_one(db):
    svc = service(db)
    good, who = await started_game(svc, thread=9001)
    bad, _ = await started_game(svc, thread=9002)
    for gid in (good, bad):
        await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20})
    await db.conn.execute("UPDATE actions SET action = ? WHERE game_id = ?",
                          (json.dumps({"type": "lay_tile", "entity": "X", "entity_type": "corporation", "id": 1}),
                           bad))
    await db.conn.commit()
    fresh = service(db)
    resumed, broken = await fresh.resume_all()
    assert resumed == [good] and list(broken) == [bad]
    await refused(fresh.status(bad, who["Ann"]), f"Game #{bad} cannot be loaded", "log is kept")
    await fresh.act(good, who["Bob"], "pass", {})
    assert any("does not replay" in p for p in await check(db))


async def test_migration_keeps_a_log_damaged_by_two_writers_and_start_up_reports_it(tmp_path):
    path = tmp_path / "old.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL)")
    from bot.db import MIGRATIONS_DIR
    for version, name in ((1, "init"), (2, "undo_votes")):
        raw.executescript((MIGRATIONS_DIR / f"00{version}_{name}.sql").read_text())
        raw.execute("INSERT INTO schema_migrations VALUES (?, ?, 0)", (version, name))
    raw.execute("INSERT INTO games(id, title, status, seed, created_by, created_at, updated_at) "
                "VALUES (1, '1830', 'active', 5, 11, 0, 0)")
    for pid, member in ((1, 11), (2, 12), (3, 13)):
        raw.execute("INSERT INTO seats VALUES (1, ?, ?, ?, ?, 0)", (pid, member, f"P{pid}", pid - 1))
    bid = {"type": "bid", "entity": 1, "entity_type": "player", "company": "SV", "price": 20, "id": 1}
    for seq in (1, 2):  # two processes each stored their own action 1
        raw.execute("INSERT INTO actions VALUES (1, ?, ?, 11, 0)", (seq, json.dumps(bid)))
    raw.commit()
    raw.close()
    async with Database(path) as db:
        from bot.db import migration_files
        assert [v for v, _ in await db.applied_migrations()][2:] == [v for v, _, _ in migration_files()][2:]
        assert await db.action_count(1) == 2  # nothing deleted
        _, broken = await service(db).resume_all()
        assert list(broken) == [1]


# ---------------------------------------------------------------------------- one server per game
async def test_every_game_command_is_scoped_to_the_callers_server(db):
    svc = service(db)
    gid, who = await started_game(svc)
    lobby = (await svc.new_game(who["Ann"], title="1830", channel_id=8000, thread_id=9050)).id
    imported, _ = await imported_game(svc, dict(fixture_log(), actions=[]), thread=9060)
    await svc.db.replace_member(imported, 100, -1, "free")  # an unclaimed seat
    stranger = Caller(77, "Eve", OTHER_GUILD, 7000, manages_threads=True)
    twin = Caller(who["Ann"].member_id, "Ann", OTHER_GUILD, 7000, manages_threads=True)  # the host, elsewhere
    before = {g: (await db.get_game(g), await db.seats(g), await db.actions(g)) for g in (gid, lobby, imported)}
    for caller in (stranger, twin):
        where = f"There is no game #{gid} in this server"
        for call in (svc.abort(gid, caller), svc.start(lobby, caller), svc.kick(lobby, caller, who["Ann"].member_id),
                     svc.replace(gid, caller, who["Bob"].member_id, 77, "Eve"), svc.join(lobby, caller),
                     svc.leave(lobby, caller), svc.claim(imported, caller, 1), svc.status(gid, caller),
                     svc.history(gid, caller), svc.export(gid, caller), svc.set_remind(gid, caller, 1),
                     svc.undo(gid, caller), svc.vote_undo(gid, caller, True, 0),
                     svc.act(gid, caller, "pass", {}), svc.autocomplete(gid, caller, "bid", "company", "", {})):
            await refused(call, "in this server")
        await refused(svc.resolve(caller, game_id=gid), where)
        await refused(svc.resolve(caller, thread_id=9001), "game's thread")
        assert "No open games" in (await svc.list_games(caller)).text
    after = {g: (await db.get_game(g), await db.seats(g), await db.actions(g)) for g in (gid, lobby, imported)}
    assert after == before


async def test_a_player_at_their_turn_cannot_use_another_players_private(db):
    """Player 2, at their turn in the stock round, sends Player 4's M&H exchange for an NYC share (the engine takes
    a company's ability from whoever sends it): refused, nothing changes; Player 4 may still use it, out of turn."""
    svc = service(db)
    gid, callers = await imported_game(svc, fixture_log("26855"), 30)
    lv = svc._live[gid]
    assert lv.session.active_players() == [82] and lv.session.summary()["companies"]["MH"] == 330
    before = state(lv.game)
    await refused(svc.act(gid, callers[82], "buy", {"using": "MH", "share": "NYC_1"}), "`MH` is not yours to use")
    await refused(svc.act(gid, callers[82], "buy", {"share": "MH>NYC_1"}), "`MH` is not yours to use")
    assert state(svc._live[gid].game) == before and await db.action_count(gid) == 30
    reply = await svc.act(gid, callers[330], "buy", {"using": "MH", "share": "NYC_1"})
    assert reply.text.startswith("Player 4 exchanges MH for 10% of NYC"), reply.text
    assert await db.action_count(gid) == 31


async def test_host_powers_come_from_the_seat_or_managing_the_games_own_thread(db):
    svc = service(db)
    gid, who = await started_game(svc, thread=9001)
    lobby = (await svc.new_game(who["Ann"], title="1830", channel_id=8000, thread_id=9002)).id
    await svc.join(lobby, who["Bob"])
    elsewhere = Caller(50, "Mod", GUILD, 8888, manages_threads=True)     # a moderator of another channel
    await refused(svc.kick(lobby, elsewhere, who["Bob"].member_id), "Only the host")
    await refused(svc.abort(gid, elsewhere), "Only the host")
    moderator = Caller(50, "Mod", GUILD, 9002, manages_threads=True)     # ... in the lobby's thread
    assert "Bob was removed" in (await svc.kick(lobby, moderator, who["Bob"].member_id)).text
    # the host hands their seat over: the host role goes with it
    heir = Caller(60, "Dan", GUILD, 9001)
    await svc.replace(gid, who["Ann"], who["Ann"].member_id, heir.member_id, heir.name)
    await refused(svc.abort(gid, who["Ann"]), "Only the host")
    await refused(svc.set_remind(gid, who["Ann"], 6), "Only the players")
    assert "aborted" in (await svc.abort(gid, heir)).text
    # a member who imported a game for others, without a seat, is no host until they take one
    log = fixture_log()
    imported, _ = await svc.import_game(who["Ann"], dict(log, actions=[]), [], thread_id=9003)
    await refused(svc.abort(imported.id, who["Ann"]), "Only the host")
    await svc.claim(imported.id, who["Ann"], 2)
    assert "aborted" in (await svc.abort(imported.id, who["Ann"])).text


async def test_the_host_leaving_a_lobby_passes_the_role_on(db):
    svc = service(db)
    ann, bob = Caller(11, "Ann", GUILD, 9001), Caller(12, "Bob", GUILD, 9001)
    gid = (await svc.new_game(ann, title="1830", thread_id=9001)).id
    await svc.join(gid, bob)
    assert "Bob is now the host" in (await svc.leave(gid, ann)).text
    await refused(svc.start(gid, ann), "Only the host")
    await svc.join(gid, ann)
    assert "starts" in (await svc.start(gid, bob)).text


# ---------------------------------------------------------------------------- standing orders
async def test_standing_orders_are_played_in_games_rebuilt_after_restart_undo_and_import(db):
    for rebuild in ("restart", "undo", "import"):
        svc = service(db)
        gid, who = await started_game(svc, thread=None)
        for name, company, price in (("Ann", "SV", 20), ("Bob", "CS", 40), ("Cid", "DH", 70), ("Ann", "MH", 110),
                                     ("Bob", "CA", 160), ("Cid", "BO", 220)):  # the privates are sold
            await svc.act(gid, who[name], "bid", {"company": company, "price": price})
        await svc.act(gid, who["Cid"], "par", {"corporation": "B&O", "price": "100"})  # stock round 1: Ann first
        await svc.act(gid, who["Cid"], "auto", {"mode": "pass-always"})
        if rebuild == "import":
            exported = json.loads((await svc.export(gid, who["Ann"]))[1])
            gid, callers = await imported_game(svc, exported, thread=None)
            who = {c.name: c for c in callers.values()}
        elif rebuild == "undo":
            await svc.act(gid, who["Ann"], "par", {"corporation": "PRR", "price": "67"})
            await svc.undo(gid, who["Ann"])
        else:
            svc = service(db)
            await svc.resume_all()
        await svc.act(gid, who["Ann"], "par", {"corporation": "PRR", "price": "67"})
        text = (await svc.act(gid, who["Bob"], "pass", {})).text
        assert "automatically: Cid passes" in text, (rebuild, text)


async def test_a_standing_order_for_a_corporation_that_does_not_exist_is_refused(db):
    svc = service(db)
    gid, who = await started_game(svc)
    await refused(svc.act(gid, who["Bob"], "auto", {"mode": "buy", "corporation": "XYZ"}),
                  "There is no corporation `XYZ`", "PRR")
    assert await db.action_count(gid) == 0


# ---------------------------------------------------------------------------- reminders, import, reads
async def test_reminders_are_set_by_the_games_players_and_host_only(db):
    svc = service(db)
    gid, who = await started_game(svc)
    outsider = Caller(70, "Eve", GUILD, 9001)
    await refused(svc.set_remind(gid, outsider, 1, 1), "Only the players of this game")
    await refused(svc.set_remind(gid, who["Bob"], 0.01), "from 1 to 720 hours")
    assert "every 2 h" in (await svc.set_remind(gid, who["Bob"], 3, 2)).text
    assert (await db.reminder(gid)).first_after == 3 * 3600


async def test_import_limits_and_bad_logs_get_clear_answers(db):
    svc = service(db)
    ann = Caller(11, "Ann", GUILD, 8000)
    log = fixture_log()
    cases = [
        (b"[1, 2, 3]", "should be one JSON object"),
        (b"{not json", "not JSON"),
        (json.dumps({"title": "1830", "players": "x"}).encode(), "`players`"),
        (json.dumps({**log, "players": [{"id": "a"}]}).encode(), "`players.0.id`"),
        (json.dumps({**log, "title": "18XX" * 600}).encode(), "Cannot import a `18XX18XX"),
        (json.dumps({**log, "actions": [{"type": "pass"}] * (MAX_IMPORT_ACTIONS + 1)}).encode(), "the limit is"),
        (b" " * (MAX_IMPORT_BYTES + 1), "the limit is 12 MB"),
    ]
    for data, words in cases:
        text = await refused(svc.import_game(ann, data, []), words)
        assert len(text) < 300
    assert await db.list_games(guild_id=GUILD) == []


async def test_reads_wait_for_the_action_in_progress(db):
    """Reads that tell the game wait for the action in progress; autocomplete does not (it reads the game as
    last stored: tests/test_bot_reliability.py)."""
    svc = service(db)
    gid, who = await started_game(svc)
    # (three members: one member has at most MAX_READS_AT_ONCE on their way)
    reads = [svc.status(gid, who["Ann"]), svc.export(gid, who["Bob"]), svc.history(gid, who["Cid"])]
    async with svc.lock(gid):  # an action is being applied
        queued = waiting_on(svc.lock(gid), len(reads))
        tasks = [asyncio.create_task(r) for r in reads]
        await asyncio.wait_for(queued.wait(), 10)
        assert not any(t.done() for t in tasks)
    await asyncio.gather(*tasks)


# ---------------------------------------------------------------------------- undo and seats
async def test_every_commit_of_an_undo_or_action_leaves_a_consistent_database(tmp_path):
    """Kill the bot right after each commit of a command: the database passes the integrity check."""

    class Killed(BaseException):
        pass

    async def run(op: str, kill_after: int) -> bool:
        path = tmp_path / f"{op}-{kill_after}.db"
        db = await Database(path).open()
        svc = service(db)
        gid, who = await started_game(svc)
        await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20})
        commits, real_commit = 0, db.conn.commit

        async def commit():
            nonlocal commits
            await real_commit()
            commits += 1
            if commits == kill_after:
                raise Killed
        db.conn.commit = commit
        try:
            if op == "undo":
                await svc.undo(gid, who["Ann"])
            else:
                await svc.act(gid, who["Bob"], "bid", {"company": "CS", "price": 40})
            finished = True
        except Killed:
            finished = False
        db.conn.commit = real_commit
        await db.close()
        async with Database(path) as again:
            assert await check(again) == [], (op, kill_after)
        return finished

    for op in ("undo", "act"):
        k = 1
        while not await run(op, k):
            k += 1
        assert k - 1 == 1, f"{op} took {k - 1} commits"  # one transaction


async def test_a_replaced_seat_votes_with_its_new_holder(db):
    svc = service(db)
    gid, who = await started_game(svc)
    await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20})
    await svc.act(gid, who["Bob"], "bid", {"company": "CS", "price": 40})
    req = await svc.undo(gid, who["Ann"], 2)
    assert isinstance(req, UndoRequest)
    dan = Caller(60, "Dan", GUILD, 9001)
    await svc.replace(gid, who["Ann"], who["Bob"].member_id, dan.member_id, dan.name)
    await refused(svc.vote_undo(gid, who["Bob"], True, req.token), "Only the players")
    assert "waiting for Cid" in (await svc.vote_undo(gid, dan, True, req.token)).text
    assert "undid 2 action" in (await svc.vote_undo(gid, who["Cid"], True, req.token)).text
    assert await db.action_count(gid) == 0


# ---------------------------------------------------------------------------- small input bugs
async def test_small_input_bugs(db):
    svc = service(db)
    gid, who = await started_game(svc)
    await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20})
    await svc.act(gid, who["Bob"], "bid", {"company": "CS", "price": 40})
    # undo steps: -3 is no undo at all (no vote, nobody pinged)
    for steps in (-3, 0, "x", 10**6):
        await refused(svc.undo(gid, who["Cid"], steps), "steps")
    assert await db.undo_request(gid) is None
    # /buy share:+ names no certificate
    for kind, opts in (("buy", {"share": "+"}), ("sell", {"shares": " + "})):
        await refused(svc.act(gid, who["Cid"], kind, opts), "name the certificate")
    # a refusal never echoes a wall of input
    for kind, opts in (("bid", {"company": "X" * 2000, "price": "9" * 2000}),
                       ("par", {"corporation": "Y" * 2000, "price": "1"}),
                       ("run", {"routes": "Z" * 2000}), ("auto", {"mode": "W" * 2000}),
                       ("lay", {"hex": "H" * 2000, "tile": "57", "rotation": 0})):
        text = await refused(svc.act(gid, who["Cid"], kind, opts))
        assert len(text) < 400, (kind, len(text))
    # a member out of turn hears it is not their turn, not why the move would be illegal for them
    await refused(svc.act(gid, who["Ann"], "buy", {"share": "PRR"}), "not your turn")
    # Config's repr keeps the token secret
    assert "s3cret" not in repr(Config(token="s3cret"))
    # the exported game carries its own number, also after the game is rebuilt
    for _ in range(2):
        assert json.loads((await svc.export(gid, who["Ann"]))[1])["id"] == gid
        await svc.live(gid, reload=True)


async def test_numbers_too_large_to_store_get_a_clear_answer(db):
    """A game number, a seed or a log's player id beyond SQLite's integers reached the database and failed there
    (the console stopped; a slash command heard only "Something went wrong"): now each is refused by name."""
    svc = service(db)
    ann = Caller(11, "Ann", GUILD, 8000)
    huge = 10**30
    await refused(svc.resolve(ann, game_id=huge), "There is no game #`1000000000000000000000000000000`")
    await refused(svc.status(huge, ann), "There is no game")
    await refused(svc.press(huge, ann, "pass", 1), "There is no game")
    await refused(svc.new_game(ann, title="1830", seed=huge), "The seed", "is out of range")
    log = fixture_log()
    actions = resolved_actions(log)[:5]
    await refused(svc.import_game(ann, json.dumps(dict(log, actions=actions, settings={**log["settings"], "seed": huge})),
                                  [None] * 4), "The seed", "is out of range")
    players = [dict(p, id=huge) if i == 0 else p for i, p in enumerate(log["players"])]
    await refused(svc.import_game(ann, json.dumps(dict(log, actions=[], players=players)), [None] * 4),
                  "`players.0.id`")
    assert await db.list_games(any_guild=True, statuses=("lobby", "active", "finished", "aborted")) == []


async def test_a_garbage_train_variant_is_refused(db):
    svc = service(db)
    log = fixture_log("26855")
    recorded = resolved_actions(log)
    k = next(i for i, a in enumerate(recorded) if a["type"] == "buy_train")
    gid, callers = await imported_game(svc, log, upto=k)
    game = svc._live[gid].game
    buyer = callers[game.corporation(recorded[k]["entity"]).owner.id]
    train = recorded[k]["train"]
    await refused(svc.act(gid, buyer, "train", {"train": train, "variant": "garbage"}), "no variant `garbage`")
    assert await db.action_count(gid) == k
    await svc.act(gid, buyer, "train", {"train": train, "variant": train.split("-")[0]})  # its own kind
    assert await db.action_count(gid) == k + 1


def test_a_buy_is_described_with_its_price_not_the_cash_change():
    """A buy that ends the stock round: the private income that follows is not part of the price."""
    before = {"players": [{"id": 1, "cash": 500}],
              "corporations": {"PRR": {"cash": 0, "par": 67, "price": [67, 5, 6], "ipo": 50, "pool": 0}},
              "round_desc": "Stock Round 1"}
    after = {"players": [{"id": 1, "cash": 500 - 67 + 30, "shares": {"PRR": 60}}],
             "corporations": {"PRR": {"cash": 670, "par": 67, "price": [67, 5, 6], "ipo": 40, "pool": 0,
                                      "floated": True}},
             "round_desc": "Operating Round 1.1"}
    buy = {"type": "buy_shares", "entity": 1, "entity_type": "player", "shares": ["PRR_5"], "percent": 10}
    text = session_1830().describe(Change(buy, before, after), {1: "Ann"})
    assert text.startswith("Ann buys 10% of PRR from the IPO for $67;"), text


def test_the_reminder_dm_links_to_the_servers_thread():
    reply = Reply("Reminder", game_id=3, thread_id=456, guild_id=123)
    assert thread_link(reply) == "https://discord.com/channels/123/456"
