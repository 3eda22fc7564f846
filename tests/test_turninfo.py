"""The engine tells a UI who acts and what they must do (turn_info), and the entities' facts (facts)."""

import json
from pathlib import Path

import pytest

from engine.core.errors import GameError
from engine.titles import load_18xx

FIXTURES = Path(__file__).parent / "fixtures"


def load(title: str, name: str, upto: int):
    return load_18xx(json.loads((FIXTURES / title / f"{name}.json").read_text()), upto=upto)


def test_auction_turn_names_the_cheapest_private_and_the_actor():
    info = load("18MEX", "13315", 3).turn_info()
    assert info["types"] == ["bid", "pass"]
    assert info["cheapest"] == ("MCAR", 20)
    assert info["actor"] == {"entity": 1048, "entity_type": "player"} and info["players"] == [1048]


def test_merger_offer_says_who_decides_and_who_else_may_merge():
    game = load("18MEX", "13315", 265)
    info = game.turn_info()
    assert info["types"] == ["merge", "pass"]
    assert info["merge"]["offered"] == "MEX" == info["actor"]["entity"]
    assert info["merge"]["candidates"][0] == "MEX" and "FCP" not in info["merge"]["candidates"]


def test_track_turn_says_which_lays_are_left():
    game = load("18MEX", "13315", 266)
    assert game.turn_info()["tile_lay"] == {"new_track": True, "upgrade": True}


def test_facts_describe_minors_certificates_and_obsolete_trains():
    start = load("18MEX", "13315", 0).facts()
    assert start["operators"]["A"]["kind"] == "minor"
    assert start["operators"]["A"]["closes_into"] == {"corporation": "NdM", "certificate": "NdM_7", "percent": 5}
    ndm = start["operators"]["NdM"]
    assert [c["percent"] for c in ndm["certificates"]] == [20, 10, 10, 10, 10, 10, 10, 5, 5, 10]
    assert [c["reserved"] for c in ndm["certificates"]][-3:] == [True, True, True]
    assert start["presidency_with"] == {"MNR": "NdM"}
    late = load("18MEX", "13315", 300).facts()
    assert any(t["obsolete"] for t in late["operators"]["NdM"]["trains"])
    assert late["merger"]["merged"] == "MEX" and late["operators"]["MEX"]["closed"]


def test_1830_par_after_the_president_private():
    log = json.loads((FIXTURES / "1830" / "26855.json").read_text())
    game = load_18xx(log, upto=26)
    assert game.turn_info()["par"] == "B&O"


def test_a_stock_round_says_whom_it_passed_over_and_why():
    """1830 game 26855, stock round 1: Player 2's pass skips Player 1, whose $50 buys no certificate (and
    nothing may be sold in the first stock round): the engine says so in turn_info, for that action only; a
    refused action leaves it as it was."""
    log = json.loads((FIXTURES / "1830" / "26855.json").read_text())
    actions = load_18xx(log).actions
    game = load_18xx({**log, "actions": []})
    for action in actions[:44]:
        game.apply(action)
    assert "passed_over" not in game.turn_info()
    game.apply(actions[44])
    skipped = [{"entity": 1627, "entity_type": "player", "why": "cash", "cash": 50}]
    assert game.turn_info()["passed_over"] == skipped
    assert {p["id"]: p["name"] for p in log["players"]}[1627] == "Player 1"
    acting = game.turn_info()["actor"]
    with pytest.raises(GameError):
        game.apply({"type": "pass", "entity": 1627, "entity_type": "player"})
    assert acting["entity"] != 1627 and game.turn_info()["passed_over"] == skipped
    game.apply(actions[45])
    assert "passed_over" not in game.turn_info()
