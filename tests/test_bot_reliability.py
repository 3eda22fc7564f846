"""The bot stays responsive and loses nothing: a game's reads do not hold it for long (its value chart is kept
as the game goes, not replayed), heavy work stays off the event loop, idle games leave memory and come back
from the database, and autocomplete does not wait for the game's lock. Real engine, no Discord."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.access import Caller
from bot.db import Database
from bot.service import Service
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


async def imported(svc: Service, log: dict, actions: list[dict]) -> tuple[int, dict[int, Caller]]:
    callers = {int(p["id"]): Caller(100 + i, p["name"], GUILD, 9101) for i, p in enumerate(log["players"])}
    members = [(callers[int(p["id"])].member_id, p["name"]) for p in log["players"]]
    row, _ = await svc.import_game(callers[int(log["players"][0]["id"])], dict(log, actions=actions), members,
                                   channel_id=8100, thread_id=9101)
    return row.id, callers


async def play(svc: Service, game_id: int, callers: dict[int, Caller], actions: list[dict]) -> None:
    """Send recorded actions as their players, through the service's own path for an accepted action."""
    for action in actions:
        lv = await svc.live(game_id)
        caller = callers[controller(lv.game, action)]
        async with svc.lock(game_id):
            await svc._apply(lv, caller, dict(action), None)


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
    assert len(kept["labels"]) >= 3 and kept["labels"][-1] == "now"

    import engine.titles

    replays = []
    real = engine.titles.load_18xx
    monkeypatch.setattr(engine.titles, "load_18xx", lambda *a, **kw: replays.append(1) or real(*a, **kw))
    reply = await svc.status(game_id, callers[int(log["players"][0]["id"])], ("chart",))
    assert [p.name for p in reply.pictures] == [f"game{game_id}-status-chart.png"]
    assert replays == []
