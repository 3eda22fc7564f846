"""Malformed and mutated actions at many points of the 1830 fixtures: every refusal is a GameError that names
the problem and leaves the game as it was; a mutated action that is accepted leaves a log that replays to the
same game.

The suite runs a bounded, derandomized sample. For a long run:
    ROUNDHOUSE_FUZZ_EXAMPLES=20000 pytest -q -s tests/test_fuzz_actions.py
(-s prints how many mutated actions were tried, refused and accepted.)
"""

from __future__ import annotations

import copy
import json
import os
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from refusals import assert_russian

from engine import GameError
from engine.core.actions import ACTION_TYPES, resolve_undo
from engine.titles import load_18xx

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "1830").glob("*.json"))
POINTS_PER_GAME = 14
EXAMPLES = int(os.environ.get("ROUNDHOUSE_FUZZ_EXAMPLES", "250"))
COUNTS = {"tried": 0, "refused": 0, "accepted": 0}

FIELDS = sorted({name for cls in ACTION_TYPES.values() for name in cls.model_fields} |
                {"created_at", "user", "skip", "original_id"})


@cache
def _log(path: Path) -> dict:
    return json.loads(path.read_text())


@cache
def _points() -> list[tuple[Path, int]]:
    out = []
    for path in FIXTURES:
        n = len(resolve_undo(_log(path)["actions"]))
        out += [(path, n * k // POINTS_PER_GAME) for k in range(POINTS_PER_GAME)]
    return out


@cache
def _game(path: Path, upto: int):
    """The fixture's game after its first `upto` kept actions, played on as the bot plays: live."""
    log = _log(path)
    return load_18xx({**log, "actions": resolve_undo(log["actions"])[:upto]})


@cache
def _legal(path: Path, upto: int) -> list[dict]:
    return _game(path, upto).legal_actions()


@cache
def _names() -> list:
    """Ids of real things in a late game (shares, trains, tiles, cities, hexes, corporations, players...)."""
    game = _game(FIXTURES[0], len(resolve_undo(_log(FIXTURES[0])["actions"])) * 4 // 5)
    names: set = {p.id for p in game.players} | {str(p.id) for p in game.players}
    names |= {c.sym for c in game.corporations} | {c.sym for c in game.companies}
    names |= set(game.share_by_id) | {t.id for t in game.depot.trains} | {t.name for t in game.depot.trains}
    names |= set(game.hexmap.hexes) | set(game.hexmap._tiles_by_id) | set(game.hexmap._manifest)
    names |= {c.id for h in game.hexmap.hexes.values() for c in h.tile.cities}
    names |= set(game.market.cells) | set(ACTION_TYPES) | {"player", "corporation", "company", "minor"}
    return sorted(names, key=repr)


def garbage():
    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from([-10**9, 10**12, 2**63, 80, 100, 1000]),
        st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12), st.text(min_size=300, max_size=400),
        st.sampled_from(_names()),
    )
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) |
                        st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=5), inner, max_size=3),
                        max_leaves=6)


def mutation():
    return st.one_of(
        st.tuples(st.just("set"), st.sampled_from(FIELDS), garbage()),
        st.tuples(st.just("drop"), st.sampled_from(FIELDS), st.none()),
        st.tuples(st.just("nudge"), st.sampled_from(FIELDS), st.sampled_from([-1, 1, -100, 10**6, 0])),
        st.tuples(st.just("retype"), st.just("type"), st.sampled_from(sorted(ACTION_TYPES) + ["undo", "redo"])),
        st.tuples(st.just("list"), st.sampled_from(["shares", "routes", "auto_actions", "connections"]), garbage()),
    )


def mutate(action: dict, change: tuple) -> dict:
    kind, field, value = change
    if kind == "set" or kind == "retype":
        action[field] = value
    elif kind == "drop":
        action.pop(field, None)
    elif kind == "nudge":
        old = action.get(field)
        if isinstance(old, int) and not isinstance(old, bool):
            action[field] = old + value if value else -old
        elif isinstance(old, str) and "-" in old:  # "2-0" -> "2-1": another copy of the same thing
            head, _, tail = old.rpartition("-")
            action[field] = f"{head}-{int(tail) + value}" if tail.isdigit() and int(tail) + value >= 0 else old
    elif kind == "list":
        old = action.get(field)
        if isinstance(old, list) and old:
            action[field] = old + old[:1] if value is None else old[:-1] + [value]
        else:
            action[field] = [value]
        routes = action.get("routes")
        if field == "connections" and isinstance(routes, list) and routes and isinstance(routes[0], dict):
            routes[0]["connections"] = action.pop(field)
    return action


def state(game) -> tuple:
    return (game.summary(), game.map_view(), game.legal_actions(), game.action_types(), list(game.actions),
            copy.deepcopy(game.programs.by_player), game.finished)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(point=st.sampled_from(range(len(FIXTURES) * POINTS_PER_GAME)), source=st.sampled_from(["legal", "next", "any"]),
       pick=st.integers(0, 10**6), changes=st.lists(mutation(), min_size=1, max_size=3))
def test_a_mutated_action_is_refused_cleanly_or_replays(point, source, pick, changes):
    path, upto = _points()[point]
    game = _game(path, upto)
    if game.finished:
        return
    kept = resolve_undo(_log(path)["actions"])
    if source == "legal" and _legal(path, upto):
        legal = _legal(path, upto)
        base = legal[pick % len(legal)]
    elif source == "next":
        base = {k: v for k, v in kept[upto].items() if k not in ("id", "auto_actions")}
    else:
        base = {k: v for k, v in kept[pick % len(kept)].items() if k != "id"}
    action = copy.deepcopy(base)
    for change in changes:
        action = mutate(action, change)
    before = state(game)
    COUNTS["tried"] += 1
    try:
        stored = game.apply(action)
    except GameError as e:
        COUNTS["refused"] += 1
        assert e.__cause__ is None, f"not refused by a rule: {e}"
        assert str(e) and len(str(e)) < 400
        assert_russian(e)
        assert state(game) == before, f"refused but changed: {action}"
        return
    COUNTS["accepted"] += 1
    assert game.actions[-1] is stored
    again = load_18xx(json.loads(json.dumps(game.to_18xx())))
    assert (again.summary(), again.map_view()) == (game.summary(), game.map_view())
    if stored["type"] == "message":  # chat changes nothing and is never undone
        game.actions.pop()
    else:
        game.undo()
    assert state(game) == before


def test_report_fuzz_counts():
    """Runs after the fuzz test (file order): prints what it tried (shown with -s)."""
    print(f"\nmutated actions: {COUNTS['tried']} tried, {COUNTS['refused']} refused with GameError and no "
          f"change, {COUNTS['accepted']} accepted and replayed")
    assert COUNTS["tried"] == 0 or COUNTS["refused"] > 0
