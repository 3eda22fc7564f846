"""The bot stays responsive and loses nothing: a game's reads do not hold it for long (its value chart is kept
as the game goes, not replayed), heavy work stays off the event loop, idle games leave memory and come back
from the database, and autocomplete does not wait for the game's lock. Real engine, no Discord."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest

from bot.access import Caller
from bot.commands import fit
from bot.db import Database
from bot.errors import UserError
from bot.service import IDLE_GAME_SECONDS, Service
from bot.session import Engine
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


async def test_status_draws_its_pictures_once_the_game_is_free_and_as_it_stood(db):
    """`/game status` tells the game with it held, then draws its pictures from a copy of it (the next command
    need not wait for the drawing): the same pictures as of the game in memory."""
    held: list[bool] = []

    class Watched(Engine):
        def picture(self, session, kind, change=None, names=None):
            held.append(svc.lock(game_id).locked())
            return super().picture(session, kind, change, names)

    log, actions = recorded("1830/26855")
    svc = Service(db, Watched(), pictures=True)
    game_id, callers = await imported(svc, log, actions[:120])
    await play(svc, game_id, callers, actions[120:122])
    held.clear()
    reply = await svc.status(game_id, callers[int(log["players"][0]["id"])], ("market", "chart"))
    assert held == [False, False]
    lv = svc._live[game_id]
    assert [p.data for p in reply.pictures] == [Engine.picture(svc.engine, lv.session, kind, None, lv.names)
                                                for kind in ("market", "chart")]


async def test_history_replays_the_log_once_the_game_is_free(db):
    """`/game history` reads the log with the game held, then replays it to tell the actions without it."""
    held: list[bool] = []

    class Watched(Engine):
        def replay(self, *args, **kw):
            held.append(svc.lock(game_id).locked())
            return super().replay(*args, **kw)

    log, actions = recorded("1830/26855")
    svc = Service(db, Watched(), pictures=False)
    game_id, callers = await imported(svc, log, actions[:60])
    held.clear()
    reply = await svc.history(game_id, callers[int(log["players"][0]["id"])], 5)
    assert held == [False] and reply.text.count("\n") >= 5


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
    entered, go = threading.Event(), threading.Event()
    real = lv.session.apply

    def slow(action):  # the engine at work on the action, in its worker thread
        entered.set()
        go.wait(10)
        return real(action)

    lv.session.apply = slow
    acting = asyncio.ensure_future(play(svc, game_id, callers, actions[40:41]))
    assert await asyncio.to_thread(entered.wait, 10)
    assert svc.evict(now=time.monotonic() + 10 * IDLE_GAME_SECONDS) == [] and svc._live[game_id] is lv
    reading = asyncio.ensure_future(svc.status(game_id, callers[int(log["players"][0]["id"])]))
    await asyncio.sleep(0.05)
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


# ---------------------------------------------------------------------------- autocomplete
async def test_autocomplete_does_not_wait_for_an_action_in_progress(db):
    """Autocomplete reads the game as last stored: it answers while the game is held, with the legal choices,
    and after an action with the next state's."""
    log, actions = recorded("1830/26855")
    svc = Service(db, Engine(), pictures=False)
    game_id, callers = await imported(svc, log, actions[:30])

    async def choices_now() -> tuple[list, list]:
        lv = svc._live[game_id]
        caller = callers[int(lv.session.active_players()[0])]
        session, cmd = lv.session, type(lv.session).commands["buy"]
        direct = fit(cmd.choices(session, "share", {}, session.legal()), "")
        return await svc.autocomplete(game_id, caller, "buy", "share", "", {}), direct

    got, legal = await choices_now()
    assert got == legal and got
    async with svc.lock(game_id):  # an action in progress holds the game
        lv = svc._live[game_id]
        caller = callers[int(lv.session.active_players()[0])]
        assert await asyncio.wait_for(svc.autocomplete(game_id, caller, "buy", "share", "", {}), 2) == got
    await play(svc, game_id, callers, actions[30:33])
    got, legal = await choices_now()
    assert got == legal


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
    await svc.answer_offer(row.id, claimant, True, offer.at_count)
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
