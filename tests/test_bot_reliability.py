"""The bot stays responsive and loses nothing: a game's reads do not hold it for long (its value chart is kept
as the game goes, not replayed; status, export and an undo's replays are done without it), heavy work stays off
the event loop, idle games leave memory and come back from the database (as many and as long as the settings
say), a game is copied for reads only when one needs it, and autocomplete offers the moves after an action in
flight, never the ones it took away. Real engine, no Discord."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest
from fakediscord.play import stored_events, waiting_on

from bot.access import Caller
from bot.commands import fit
from bot.config import Config
from bot.db import Database
from bot.errors import UserError
from bot.service import IDLE_GAME_SECONDS, Service
from bot.session import Engine, Session
from engine.core.actions import resolve_undo
from render.chart import value_history

FIXTURES = Path(__file__).parent / "fixtures"
GUILD = 7001


def recorded(name: str) -> tuple[dict, list[dict]]:
    log = json.loads((FIXTURES / f"{name}.json").read_text())
    return log, resolve_undo(log["actions"])


@pytest.fixture
async def db(tmp_path):
    async with Database(tmp_path / "rh.db") as database:
        yield database


def controller(game, action: dict) -> int:
    """The player who sends a recorded action (a corporation's president, a private's owner)."""
    kind, entity = action["entity_type"], action["entity"]
    if kind == "player":
        return int(entity)
    if kind in ("corporation", "minor"):
        owner = game.corporation(entity).owner
        return int(owner.id)
    owner = game.company(entity).owner
    return int(owner.id if hasattr(owner, "id") else owner.owner.id)


async def imported(svc: Service, log: dict, actions: list[dict], thread: int = 9101
                   ) -> tuple[int, dict[int, Caller]]:
    callers = {int(p["id"]): Caller(100 + i, p["name"], GUILD, thread) for i, p in enumerate(log["players"])}
    members = [(callers[int(p["id"])].member_id, p["name"]) for p in log["players"]]
    row, _ = await svc.import_game(callers[int(log["players"][0]["id"])], dict(log, actions=actions), members,
                                   channel_id=8100, thread_id=thread)
    return row.id, callers


async def play(svc: Service, game_id: int, callers: dict[int, Caller], actions: list[dict]) -> None:
    """Send recorded actions as their players, through the service's own path for an accepted action."""
    for action in actions:
        async with svc.lock(game_id):
            lv = await svc.live(game_id)
            await svc._apply(lv, callers[controller(lv.game, action)], dict(action), None)


class ReplaysNoted(Engine):
    """An engine noting for each replay whether `lock` (a game's, once set) is held."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[bool] = []
        self.lock: asyncio.Lock | None = None

    def replay(self, *args, **kw):
        if self.lock is not None:
            self.held.append(self.lock.locked())
        return super().replay(*args, **kw)


def stopped_in_the_engine(lv) -> tuple[threading.Event, threading.Event]:
    """Makes the game's next action wait in the engine, in its worker thread, until `go` is set (`entered`: set
    once it waits there)."""
    entered, go = threading.Event(), threading.Event()
    real = lv.session.apply

    def slow(action):
        entered.set()
        go.wait(10)
        return real(action)

    lv.session.apply = slow
    return entered, go


async def undo_last(svc: Service, game_id: int, callers: dict[int, Caller], times: int) -> None:
    """The members who took the last actions take them back, one at a time (no vote)."""
    for _ in range(times):
        (_, _, member, _), = await svc.db.action_rows(game_id, limit=1)
        caller = next(c for c in callers.values() if c.member_id == member)
        await svc.undo(game_id, caller, 1)


# ---------------------------------------------------------------------------- the value chart
@pytest.mark.parametrize("name, start, upto, undone", [("1830/26855", 50, 66, 4), ("1817/15528", 290, 306, 9)])
async def test_the_chart_kept_as_the_game_goes_is_the_one_a_replay_gives(db, monkeypatch, name, start, upto,
                                                                        undone):
    """Played past a stock round's start, partly undone (taking that start back) and played on: the chart's
    history kept by the game in memory is exactly the replayed log's, and drawing it replays nothing."""
    log, actions = recorded(name)
    svc = Service(db, Engine(), pictures=True)
    game_id, callers = await imported(svc, log, actions[:start])
    await play(svc, game_id, callers, actions[start:upto])
    await undo_last(svc, game_id, callers, undone)
    await play(svc, game_id, callers, actions[upto - undone:upto + 3])
    session = (await svc.live(game_id)).session
    names = {int(p["id"]): p["name"] for p in log["players"]}
    kept = session.value_history(names)
    replayed = value_history({**session.export(), "players": log["players"]})
    assert kept == replayed
    assert session.thawed(session.frozen()).value_history(names) == kept  # the copy status draws from
    assert len(kept["labels"]) >= 3 and kept["labels"][-1] == "now"

    import engine.titles

    replays = []
    real = engine.titles.load_18xx
    monkeypatch.setattr(engine.titles, "load_18xx", lambda *a, **kw: replays.append(1) or real(*a, **kw))
    reply = await svc.status(game_id, callers[int(log["players"][0]["id"])], ("chart",))
    assert [p.name for p in reply.pictures] == [f"game{game_id}-status-chart.png"]
    assert replays == []


async def test_status_tells_and_draws_once_the_game_is_free_and_as_it_stood(db, monkeypatch):
    """`/game status` copies the game with it held, then tells it and draws its pictures from the copy (the next
    command need not wait for either): the same words and pictures as of the game in memory."""
    held: list[bool] = []

    class Watched(Engine):
        def picture(self, session, kind, change=None, names=None):
            held.append(svc.lock(game_id).locked())
            return super().picture(session, kind, change, names)

    log, actions = recorded("1830/26855")
    svc = Service(db, Watched(), pictures=True)
    game_id, callers = await imported(svc, log, actions[:120])
    await play(svc, game_id, callers, actions[120:122])
    family = type(svc._live[game_id].session)
    real = family.status_lines
    monkeypatch.setattr(family, "status_lines", lambda self, names: held.append(svc.lock(game_id).locked())
                        or real(self, names))
    held.clear()
    reply = await svc.status(game_id, callers[int(log["players"][0]["id"])], ("market", "chart"))
    assert held == [False, False, False]
    lv = svc._live[game_id]
    assert [p.data for p in reply.pictures] == [Engine.picture(svc.engine, lv.session, kind, None, lv.names)
                                                for kind in ("market", "chart")]
    assert reply.text.splitlines()[1:-1] == real(lv.session, lv.names)[1:]
    assert reply.text.splitlines()[-1] == svc.turn_text(lv, mention=False)


async def test_an_actions_pictures_are_drawn_and_posted_once_the_game_is_free_in_the_order_played(db):
    """An action's pictures are drawn from a copy of the game once it is stored and the game is free: the next
    action need not wait for them. Its post still comes first, and each post shows the game as its action left
    it."""
    drawing, go = threading.Event(), threading.Event()
    held: list[bool] = []
    lock: list[asyncio.Lock] = []  # the game's, once imported

    class Slow(Engine):
        def picture(self, session, kind, change=None, names=None):
            if not lock:
                return super().picture(session, kind, change, names)
            held.append(lock[0].locked())
            if not drawing.is_set():  # the first action's first picture: drawn until the second action is in
                drawing.set()
                go.wait(10)
            return super().picture(session, kind, change, names)

    log, actions = recorded("1830/26855")
    svc = Service(db, Slow(), pictures=True)
    game_id, callers = await imported(svc, log, actions[:120])
    posts: list[tuple[str, list[str]]] = []

    async def publish(reply):
        posts.append((reply.text.splitlines()[0], [p.name for p in reply.pictures]))
        return object()

    async def send(action):
        lv = svc._live[game_id]
        kind, options = type(lv.session).command_for(action)
        return await svc.act(game_id, callers[controller(lv.game, action)], kind, options, publish, confirmed=True)

    lock.append(svc.lock(game_id))
    first = asyncio.ensure_future(send(actions[120]))
    assert await asyncio.to_thread(drawing.wait, 10)
    stored = stored_events(svc)
    second = asyncio.ensure_future(send(actions[121]))
    # the second action is stored while the first one's pictures are still being drawn
    await asyncio.wait_for(stored.wait(), 10)
    stored_meanwhile = await db.action_count(game_id)
    go.set()
    one, two = await first, await second
    assert stored_meanwhile == 122 and posts == [(one.text.splitlines()[0], [p.name for p in one.pictures]),
                                                 (two.text.splitlines()[0], [p.name for p in two.pictures])]
    assert one.pictures and not any(held)
    as_played = Engine().load({**log, "actions": actions[:121]})  # the game as the first action left it
    names = svc._live[game_id].names
    assert [(p.name, p.data) for p in one.pictures] == [
        (p.name, Engine().picture(as_played, p.name.split("-")[-1][:-4], None, names)) for p in one.pictures]
    assert one.pictures[0].name.startswith(f"game{game_id}-121-")


async def test_an_action_post_given_up_does_not_hold_up_the_games_later_posts(db):
    """The drawing of an action's pictures cancelled (the bot closing) gives up its place in the game's line of
    posts: the next action's post goes out (the thread catches up with the first after a restart)."""
    drawing, go = threading.Event(), threading.Event()

    class Stuck(Engine):
        def picture(self, session, kind, change=None, names=None):
            if stuck and not drawing.is_set():
                drawing.set()
                go.wait(10)
            return super().picture(session, kind, change, names)

    stuck = False
    log, actions = recorded("1830/26855")
    svc = Service(db, Stuck(), pictures=True)
    game_id, callers = await imported(svc, log, actions[:120])
    posts: list[str] = []

    async def publish(reply):
        posts.append(reply.text.splitlines()[0])
        return object()

    async def send(action):
        lv = svc._live[game_id]
        kind, options = type(lv.session).command_for(action)
        return await svc.act(game_id, callers[controller(lv.game, action)], kind, options, publish, confirmed=True)

    stuck = True
    first = asyncio.ensure_future(send(actions[120]))
    assert await asyncio.to_thread(drawing.wait, 10)
    for task in list(svc._tasks):
        task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    second = await asyncio.wait_for(send(actions[121]), 10)
    go.set()
    assert posts == [second.text.splitlines()[0]] and await db.action_count(game_id) == 122


async def test_export_encodes_the_log_once_the_game_is_free(db, monkeypatch):
    """`/game export` takes the log as stored with the game held and writes its JSON without it."""
    import bot.service

    log, actions = recorded("1830/26855")
    svc = Service(db, Engine(), pictures=False)
    game_id, callers = await imported(svc, log, actions[:80])
    real, held = bot.service.json, []

    class Watched:
        def dumps(self, value, **kw):
            held.append(svc.lock(game_id).locked())
            return real.dumps(value, **kw)

        def __getattr__(self, name):
            return getattr(real, name)

    monkeypatch.setattr(bot.service, "json", Watched())
    name, data = await svc.export(game_id, callers[int(log["players"][0]["id"])])
    assert held == [False]
    assert json.loads(data)["actions"] == actions[:80] and json.loads(data)["id"] == game_id


async def test_history_replays_the_log_once_the_game_is_free(db):
    """`/game history` reads the log with the game held, then replays it to tell the actions without it."""
    log, actions = recorded("1830/26855")
    engine = ReplaysNoted()
    svc = Service(db, engine, pictures=False)
    game_id, callers = await imported(svc, log, actions[:60])
    engine.lock = svc.lock(game_id)
    reply = await svc.history(game_id, callers[int(log["players"][0]["id"])], 5)
    assert engine.held == [False] and reply.text.count("\n") >= 5


async def test_an_undo_replays_the_log_without_the_game_held(db):
    """An undo rebuilds the shorter game and tells what it takes back before the game is held (a second of
    replays for a long 1817 game): at once for a member's own last actions, and when the last vote agrees."""
    log, actions = recorded("1830/26855")
    engine = ReplaysNoted()
    svc = Service(db, engine, pictures=False)
    game_id, callers = await imported(svc, log, actions[:69])
    await play(svc, game_id, callers, actions[69:70])
    engine.lock, held = svc.lock(game_id), engine.held
    (_, _, member, _), = await db.action_rows(game_id, limit=1)
    owner = next(c for c in callers.values() if c.member_id == member)
    reply = await svc.undo(game_id, owner, 1)
    assert held == [False] and "undid 1 action" in reply.text
    assert svc._live[game_id].game.actions == await db.actions(game_id) == actions[:69]

    rows = await db.action_rows(game_id, limit=3)
    asker = next(c for c in callers.values() if c.member_id != rows[0][2])
    request = await svc.undo(game_id, asker, 3)
    held.clear()
    others = [c for c in callers.values() if c is not asker]
    for voter in others:
        await svc.vote_undo(game_id, voter, True, request.token)
    assert held == [False]
    assert svc._live[game_id].game.actions == await db.actions(game_id) == actions[:66]


async def test_an_undo_worked_out_before_an_action_landed_takes_back_that_action(db, monkeypatch):
    """An undo worked out without the game held is used only if the game has not changed since: an action
    landing in between is the one taken back (the undo is worked out again, with the game held)."""
    log, actions = recorded("1830/26855")
    session, k, last = Engine().load({**log, "actions": actions[:60]}), 60, None
    while (who := controller(session.game, actions[k])) != last:  # until one member takes two actions in a row
        last = who
        session.apply(dict(actions[k]))
        k += 1
    svc = Service(db, Engine(), pictures=False)
    game_id, callers = await imported(svc, log, actions[:k - 1])
    await play(svc, game_id, callers, actions[k - 1:k])
    lv = await svc.live(game_id)
    member = callers[controller(lv.game, actions[k])]
    real = svc._prepare_undo

    async def then_an_action(*args, **kw):
        prepared = await real(*args, **kw)
        assert prepared is not None and prepared.session is not None
        await play(svc, game_id, callers, actions[k:k + 1])
        return prepared

    monkeypatch.setattr(svc, "_prepare_undo", then_an_action)
    await svc.undo(game_id, member, 1)
    assert svc._live[game_id].game.actions == await db.actions(game_id) == actions[:k]


# ---------------------------------------------------------------------------- off the event loop
async def test_a_games_log_is_decoded_and_an_import_encoded_off_the_event_loop(db, monkeypatch):
    import bot.db

    real, calls = bot.db.json, []

    class Watched:
        """bot.db's json, noting for each action decoded or encoded whether the event loop's thread did it."""

        def loads(self, text, **kw):
            calls.append(("loads", threading.current_thread() is threading.main_thread()))
            return real.loads(text, **kw)

        def dumps(self, value, **kw):
            if kw.get("separators") == (",", ":"):  # an action as the log stores it
                calls.append(("dumps", threading.current_thread() is threading.main_thread()))
            return real.dumps(value, **kw)

    log, actions = recorded("1830/26855")
    svc = Service(db, Engine(), pictures=False)
    monkeypatch.setattr(bot.db, "json", Watched())
    game_id, _ = await imported(svc, log, actions[:200])
    assert calls.count(("dumps", False)) == 200 and ("dumps", True) not in calls
    calls.clear()
    assert await db.actions(game_id) == actions[:200]
    assert calls == [("loads", False)] * 200


# ---------------------------------------------------------------------------- games in memory
async def test_games_leave_memory_and_come_back_as_stored(db):
    """Beyond `max_live` games (or idle too long) a game leaves memory; its next command rebuilds it from the
    stored log with every action it had taken."""
    log, actions = recorded("1830/26855")
    svc = Service(db, Engine(), pictures=False, max_live=1)
    first, callers = await imported(svc, log, actions[:40])
    await play(svc, first, callers, actions[40:43])
    second, _ = await imported(svc, log, actions[:10], thread=9102)
    assert list(svc._live) == [second]
    await play(svc, first, callers, actions[43:45])  # rebuilt from the log: the three actions are there
    assert list(svc._live) == [first]
    game = svc._live[first].game
    assert game.actions == await db.actions(first) and len(game.actions) == 45
    assert svc.evict(now=time.monotonic() + IDLE_GAME_SECONDS - 60) == []
    assert svc.evict(now=time.monotonic() + IDLE_GAME_SECONDS + 1) == [first] and not svc._live


async def test_a_game_in_use_is_never_dropped_and_never_built_twice(db, monkeypatch):
    """An action in flight keeps its game in memory whatever eviction says (the command after it finds the
    action there), and callers wanting a game that left memory at the same moment all get one build."""
    log, actions = recorded("1830/26855")
    svc = Service(db, Engine(), pictures=False, max_live=0)  # every game not in use leaves memory at once
    game_id, callers = await imported(svc, log, actions[:40])
    lv = await svc.live(game_id)
    entered, go = stopped_in_the_engine(lv)
    acting = asyncio.ensure_future(play(svc, game_id, callers, actions[40:41]))
    assert await asyncio.to_thread(entered.wait, 10)
    assert svc.evict(now=time.monotonic() + 10 * IDLE_GAME_SECONDS) == [] and svc._live[game_id] is lv
    queued = waiting_on(svc.lock(game_id))
    reading = asyncio.ensure_future(svc.status(game_id, callers[int(log["players"][0]["id"])]))
    await asyncio.wait_for(queued.wait(), 10)  # the read waits for the action
    go.set()
    await acting
    await reading
    assert len(lv.session.actions) == 41 and await db.action_count(game_id) == 41

    assert svc.evict() == [game_id]
    builds = []
    real_replay = svc.engine.replay
    monkeypatch.setattr(svc.engine, "replay", lambda *a, **kw: builds.append(1) or real_replay(*a, **kw))
    one, two, three = await asyncio.gather(svc.live(game_id), svc.live(game_id), svc.live(game_id))
    assert one is two is three and len(builds) == 1
    assert one.game.actions == actions[:40] + [lv.session.actions[40]]


# ---------------------------------------------------------------------------- copies for reads, autocomplete
async def test_a_game_is_copied_when_a_read_first_needs_it_and_only_so_many_keep_a_copy(db, monkeypatch):
    """Actions make no copy of the game; the first read after a change does (one, whatever reads follow), and
    it is the game as stored. Beyond `read_copies` games, the least recently read drop theirs."""
    log, actions = recorded("1830/26855")
    svc = Service(db, Engine(), pictures=False, read_copies=1)
    first, callers = await imported(svc, log, actions[:30])
    second, _ = await imported(svc, log, actions[:30], thread=9102)
    family = type(svc._live[first].session)
    copies: list[int] = []
    real = family.frozen
    monkeypatch.setattr(family, "frozen", lambda self: copies.append(1) or real(self))
    await play(svc, first, callers, actions[30:34])
    assert copies == []

    async def offered(game_id: int) -> tuple[list, list]:
        lv = svc._live[game_id]
        caller = callers[int(lv.session.active_players()[0])]
        direct = fit(type(lv.session).commands["buy"].choices(lv.session, "share", {}, lv.session.legal()), "")
        return await svc.autocomplete(game_id, caller, "buy", "share", "", {}), direct

    got, legal = await offered(first)
    assert got == legal and got and len(copies) == 1
    assert await offered(first) == (got, legal) and len(copies) == 1
    await play(svc, first, callers, actions[34:35])
    got, legal = await offered(first)
    assert got == legal and len(copies) == 2
    await svc.status(first, callers[int(log["players"][0]["id"])], ())
    assert len(copies) == 2
    await offered(second)
    assert len(copies) == 3 and svc._live[first].copy is None and svc._live[second].copy is not None


async def test_a_preview_and_a_best_run_take_what_the_read_copy_of_that_version_holds(db, monkeypatch):
    """A preview plays on a copy thawed from the read copy's bytes when they are the game now (rather than
    pickling the game again), and `/run best` takes the legal actions the read copy found (the best run is not
    searched for again): the same words and the same run, the game untouched by the preview, nothing shared."""
    import engine.core.preview as previews

    log, actions = recorded("1817/15528")
    at = next(i for i, a in enumerate(actions) if a["type"] == "take_loan")
    svc = Service(db, Engine(), pictures=False)
    game_id, callers = await imported(svc, log, actions[:at])
    lv = svc._live[game_id]
    caller = callers[controller(lv.game, actions[at])]
    kind, options = type(lv.session).command_for(actions[at])
    pickled: list[int] = []
    real_copy_of = previews.copy_of
    monkeypatch.setattr(previews, "copy_of", lambda game: pickled.append(1) or real_copy_of(game))
    before = lv.session.summary()
    without_copy = await svc.act(game_id, caller, kind, dict(options))
    assert without_copy.private and "confirm:" in without_copy.buttons[0] and pickled == [1]
    await svc.status(game_id, caller, ())  # a read: the copy of this version is made
    assert lv.copy is not None and lv.copy.version == lv.version
    with_copy = await svc.act(game_id, caller, kind, dict(options))
    assert with_copy.text == without_copy.text and pickled == [1]
    assert lv.session.summary() == before and len(lv.session.actions) == at

    log, actions = recorded("1830/26855")
    at = next(i for i, a in enumerate(actions) if a["type"] == "run_routes" and i > 100)
    game_id, callers = await imported(svc, log, actions[:at], thread=9102)
    lv = svc._live[game_id]
    caller = callers[controller(lv.game, actions[at])]
    offered = await svc.autocomplete(game_id, caller, "run", "routes", "", {})  # the copy finds the best run
    assert offered == [(offered[0][0], "best")]
    found = lv.copy.session._legal[1]
    searches: list[int] = []
    real_legal = lv.game.legal_actions
    monkeypatch.setattr(lv.game, "legal_actions", lambda *a: searches.append(1) or real_legal(*a))
    taken_on: list[threading.Thread] = []
    real_take = Session.take_legal
    monkeypatch.setattr(Session, "take_legal", lambda *a: taken_on.append(threading.current_thread()) or real_take(*a))
    await svc.act(game_id, caller, "run", {"routes": "best"})
    assert taken_on and threading.main_thread() not in taken_on  # their copy is taken off the event loop
    assert searches == [] and lv.session.actions[at]["routes"] == next(
        a["routes"] for a in found if a["type"] == "run_routes")
    taken = lv.session._legal  # the live game's own copy of them, kept until its log changed
    assert taken is None or all(a is not b for a in taken[1] for b in found)


async def test_autocomplete_offers_the_moves_after_an_action_in_flight(db):
    """A member typing while an action is being applied (the next seat, told it is their turn, or the same one
    going on) is offered the moves after it, not those of the game before it (which the engine would refuse)."""
    log, actions = recorded("1830/26855")
    svc = Service(db, Engine(), pictures=False)
    game_id, callers = await imported(svc, log, actions[:30])
    lv = await svc.live(game_id)
    after = Engine().load({**log, "actions": actions[:31]})
    nxt = callers[int(after.active_players()[0])]
    cmd = type(lv.session).commands["buy"]
    offered_after = fit(cmd.choices(after, "share", {}, after.legal_for(int(after.active_players()[0]))), "")
    offered_before = await svc.autocomplete(game_id, nxt, "buy", "share", "", {})
    assert offered_before != offered_after  # what the member would be offered, read from the game before it

    entered, go = stopped_in_the_engine(lv)
    acting = asyncio.ensure_future(play(svc, game_id, callers, actions[30:31]))
    assert await asyncio.to_thread(entered.wait, 10)
    queued = waiting_on(svc.lock(game_id))
    typing = asyncio.ensure_future(svc.autocomplete(game_id, nxt, "buy", "share", "", {}))
    await asyncio.wait_for(queued.wait(), 10)  # the member typing waits for the action
    go.set()
    await acting
    assert await typing == offered_after


async def test_autocomplete_held_up_too_long_reads_only_the_game_as_stored(db):
    """Held up beyond `read_wait` (a command holding the game for long), autocomplete answers from the copy
    while it is still the game as stored, and with no choices once an action has changed the game."""
    log, actions = recorded("1830/26855")
    svc = Service(db, Engine(), pictures=False, read_wait=0.01)
    game_id, callers = await imported(svc, log, actions[:30])
    lv = svc._live[game_id]
    caller = callers[int(lv.session.active_players()[0])]
    got = await svc.autocomplete(game_id, caller, "buy", "share", "", {})
    assert got
    async with svc.lock(game_id):  # a command holding the game, that has changed nothing
        assert await svc.autocomplete(game_id, caller, "buy", "share", "", {}) == got
        svc._changed(lv)  # ... and now an action being applied
        assert await svc.autocomplete(game_id, caller, "buy", "share", "", {}) == []


# ---------------------------------------------------------------------------- settings
def test_the_memory_limits_are_settings_with_defaults():
    from bot.__main__ import main

    default = Service(None, Engine())  # type: ignore[arg-type]
    assert Config.from_env({}).memory() == {"max_live": default.max_live, "idle_after": default.idle_after,
                                            "read_copies": default.read_copies} == \
        {"max_live": 32, "idle_after": 7200.0, "read_copies": 8}
    config = Config.from_env({"ROUNDHOUSE_LIVE_GAMES": "5", "ROUNDHOUSE_IDLE_GAME_HOURS": "0.5",
                              "ROUNDHOUSE_READ_COPIES": "0"})
    assert config.memory() == {"max_live": 5, "idle_after": 1800.0, "read_copies": 0}
    svc = Service(None, Engine(), **config.memory())  # type: ignore[arg-type]
    assert (svc.max_live, svc.idle_after, svc.read_copies) == (5, 1800.0, 0)
    for name, value in (("ROUNDHOUSE_LIVE_GAMES", "many"), ("ROUNDHOUSE_LIVE_GAMES", "0"),
                        ("ROUNDHOUSE_IDLE_GAME_HOURS", "-1"), ("ROUNDHOUSE_READ_COPIES", "2.5")):
        with pytest.raises(ValueError, match=name):
            Config.from_env({name: value})
    mp = pytest.MonkeyPatch()
    mp.setenv("ROUNDHOUSE_LIVE_GAMES", "none")
    try:
        assert main(["check"]) == 2
    finally:
        mp.undo()


async def test_the_bot_keeps_games_in_memory_as_its_settings_say(tmp_path):
    from bot.discord_bot import RoundhouseBot

    config = Config.from_env({"ROUNDHOUSE_DB": str(tmp_path / "rh.db"), "ROUNDHOUSE_LIVE_GAMES": "3",
                              "ROUNDHOUSE_IDLE_GAME_HOURS": "1", "ROUNDHOUSE_READ_COPIES": "2"})
    bot = RoundhouseBot(config, engine=Engine())
    assert (bot.service.max_live, bot.service.idle_after, bot.service.read_copies) == (3, 3600.0, 2)


# ---------------------------------------------------------------------------- trades and words
async def test_an_offer_to_a_seat_nobody_took_is_refused_and_made_once_it_is_taken(db):
    """A trade the seller's seat must agree to, in an imported game whose seller seat nobody claimed: refused
    at once (nobody could answer), nothing kept; once a member claims the seat, the offer is made and they
    answer it."""
    log, actions = recorded("1830/26855")
    game = Engine().load({**log, "actions": actions[:336]})
    buyer_pid = int(game.active_players()[0])
    wanted = next(a for a in game.legal() if a["type"] == "buy_train" and a["price"] == 1
                  and game.needs_consent(buyer_pid, dict(a, price=300)) is not None)
    seller_pid = game.needs_consent(buyer_pid, dict(wanted, price=300))
    svc = Service(db, Engine(), pictures=False)
    players = [int(p["id"]) for p in log["players"]]
    members = [None if pid == seller_pid else (100 + i, log["players"][i]["name"]) for i, pid in enumerate(players)]
    buyer = Caller(100 + players.index(buyer_pid), "buyer", GUILD, 9101)
    row, _ = await svc.import_game(buyer, dict(log, actions=actions[:336]), members, channel_id=8100,
                                   thread_id=9101)
    with pytest.raises(UserError) as refusal:
        await svc.act(row.id, buyer, "train", {"train": wanted["train"], "price": 300})
    assert "not taken by anyone yet" in str(refusal.value) and "/game claim" in str(refusal.value)
    assert await db.trade_offer(row.id) is None and await db.action_count(row.id) == 336

    claimant = Caller(999, "Zoe", GUILD, 9101)
    await svc.claim(row.id, claimant, players.index(seller_pid) + 1)
    await svc.act(row.id, buyer, "train", {"train": wanted["train"], "price": 300})
    offer = await db.trade_offer(row.id)
    assert offer is not None and offer.seller == seller_pid
    await svc.answer_offer(row.id, claimant, True, offer.token)
    assert await db.action_count(row.id) == 337


def test_an_imported_auction_order_with_empty_amounts_is_told_as_the_engine_plays_it():
    """18xx.games' form may send an order's amounts empty: the engine reads them as 0, and so do its words."""
    from fakediscord.play import session_1830

    session = session_1830()
    names = {1: "Ann", 2: "Bob", 3: "Cid"}
    order = {"type": "program_auction_bid", "entity": 1, "entity_type": "player", "bid_target": "MH",
             "enable_maximum_bid": False, "maximum_bid": "", "enable_buy_price": True, "buy_price": "",
             "auto_pass_after": True}
    text = session.describe(session.apply(order), names)
    assert "at $0 or less" in text and "$ " not in text, text
    order = {**order, "enable_maximum_bid": True, "enable_buy_price": False, "maximum_bid": "150 dollars"}
    text = session.describe(session.apply(dict(order, entity=2)), names)
    assert "up to $150" in text, text


def test_a_failure_keeping_the_charts_points_never_stops_a_move():
    """Should keeping the chart's points fail, the action stands and the chart replays the log instead."""
    from fakediscord.play import session_1830

    session = session_1830()
    legal = session.legal()[0]

    def broken(game):
        raise RuntimeError("a bug in the chart")

    session.values.seen = broken
    session.apply(legal)
    assert len(session.actions) == 1 and session.values is None
    assert session.value_history() == value_history(session.export())


async def test_an_imports_first_pictures_are_drawn_with_the_new_game_held(tmp_path):
    """The import's first post draws the game's pictures from the game in memory, which any command may have from
    then on: they are drawn with its lock held, as every picture of a game in memory is."""
    from fakediscord.play import fixture_log, imported_game
    from fakediscord.recorded import QuickPictures

    held: list[list[int]] = []

    class Watched(QuickPictures):
        def picture(self, session, kind, change=None, names=None):
            held.append([gid for gid, lock in list(svc._locks.items()) if lock.locked()])
            return super().picture(session, kind, change, names)

    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Watched())
        gid, _callers = await imported_game(svc, fixture_log(), 40)
        assert held and all(locked == [gid] for locked in held), held
