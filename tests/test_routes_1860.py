"""The best-run search under 1860's no-re-entry rule, on random games' states where every route from the
company's home re-enters a hex or ends at a halt (tests/fixtures/1860/cases/dead_end_reentry.md and
home_dead_end.md)."""

import json
from pathlib import Path

import pytest

from engine.core.autoroute import best_routes
from engine.core.errors import GameError
from engine.routes import new_game

CASES = Path(__file__).parent / "fixtures" / "1860" / "cases"
CASE = CASES / "dead_end_reentry.json"

# FYN's way out: B4, C5, over D4 to E5, back through E3 and D4 to D6, then on to the full city G5
OUT_THROUGH_D4_TWICE = {
    "connections": [["B4", "C5"], ["C5", "D4", "E5"], ["E5", "E3", "D4", "D6"], ["D6", "E7", "F6"],
                    ["F6", "F4"], ["F4", "G5"]],
    "nodes": ["B4-0", "C5-0", "E5-0", "D6-0", "F6-0", "F4-0", "G5-0"],
}


def fyn_to_run(*extra_rules: str, case=CASE):
    log = json.loads(case.read_text())
    log["settings"] = {**log["settings"],
                       "optional_rules": log["settings"]["optional_rules"] + list(extra_rules)}
    game = new_game(log)
    with game.loading():
        for action in log["actions"]:
            game.apply(action)
    fyn = game.corporation("FYN")
    assert game.round.active_entities()[:1] == [fyn]
    assert "run_routes" in {a["type"] for a in game.legal_actions()}
    return game, fyn


def test_no_route_when_every_way_from_home_reenters_a_hex():
    game, fyn = fyn_to_run()
    train = fyn.trains[0].id
    with pytest.raises(GameError, match="enter a hex twice"):
        game.run_results(fyn, [{"train": train, **OUT_THROUGH_D4_TWICE}])
    assert best_routes(game, fyn) == []
    before = len(game.actions)  # with no legal route it may run nothing (18xx.games is stuck here)
    game.apply({"type": "run_routes", "entity": "FYN", "entity_type": "corporation", "routes": []})
    assert len(game.actions) == before + 1


def test_the_same_track_runs_when_hexes_may_be_reentered():
    game, fyn = fyn_to_run("re_enter_hexes")
    train = fyn.trains[0].id
    [(revenue, subsidy)] = game.run_results(fyn, [{"train": train, **OUT_THROUGH_D4_TWICE}])
    best = best_routes(game, fyn)
    assert best and all(r["connections"][:3] == OUT_THROUGH_D4_TWICE["connections"][:3] for r in best)
    assert sum(r["revenue"] + r.get("subsidy", 0) for r in best) >= revenue + subsidy
    assert sum(v + s for v, s in game.run_results(fyn, best)) == sum(r["revenue"] + r.get("subsidy", 0) for r in best)


# home_dead_end: FYN's home B4 leads only through the halts C5, D6 and F6, and on to E5 by entering E7 twice;
# its second station G5 reaches the Cowes town F2 through halts, a legal route that misses the home station
HOME_OUT_THROUGH_E7_TWICE = {
    "connections": [["B4", "C5"], ["C5", "D6"], ["D6", "E7", "F6"], ["F6", "F8", "E7", "E5"], ["E5", "F4"],
                    ["F4", "G5"]],
}
G5_TO_COWES = {  # the last segment is the Cowes tile's own track from its halt to its town
    "connections": [["G5", "F4"], ["F4", "E5"], ["E5", "D4", "E3", "F2"], ["F2 1.2"]], "halts": 3,
}


def test_no_route_when_a_legal_route_misses_the_home_station():
    game, fyn = fyn_to_run(case=CASES / "home_dead_end.json")
    train = fyn.trains[0].id
    assert game.route_available(fyn)  # the track joins stops: 18xx.games asks for a run (and refuses all)
    with pytest.raises(GameError, match="must visit its home station"):
        game.run_results(fyn, [{"train": train, **G5_TO_COWES}])
    with pytest.raises(GameError, match="enter a hex twice"):
        game.run_results(fyn, [{"train": train, **HOME_OUT_THROUGH_E7_TWICE}])
    with pytest.raises(GameError, match="begin or end at a halt"):
        game.run_results(fyn, [{"train": train, "connections": HOME_OUT_THROUGH_E7_TWICE["connections"][:3]}])
    assert best_routes(game, fyn) == []
    before = len(game.actions)
    game.apply({"type": "run_routes", "entity": "FYN", "entity_type": "corporation", "routes": []})
    assert len(game.actions) == before + 1


def test_the_home_station_runs_when_hexes_may_be_reentered():
    game, fyn = fyn_to_run("re_enter_hexes", case=CASES / "home_dead_end.json")
    [best] = best_routes(game, fyn)
    assert best["connections"][:6] == HOME_OUT_THROUGH_E7_TWICE["connections"]
    assert (best["revenue"], best["subsidy"]) == (230, 10)  # 18xx.games' revenue for the same route
    assert game.run_results(fyn, [best]) == [(230, 10)]
