"""Steam's outward interface, shaped like the 18xx core's: actions as dicts by player id, apply returning the
stored action, legal actions with readable labels, whose turn, summary, result, log export and import."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine.core.errors import GameError
from engine.steam.agent import choose
from engine.steam.game import Game, Settings
from engine.steam.testing import delivery_game, fingerprint

PLAYERS = [{"id": 11, "name": "Ann"}, {"id": 22, "name": "Bob"}, {"id": 33, "name": "Cid"}]


def _game(mode="basic", seed=5):
    return Game(Settings(map="rust_belt", mode=mode, players=PLAYERS, seed=seed))


def _played(n: int, mode="basic", seed=5) -> Game:
    g = _game(mode, seed)
    rng = random.Random(seed)
    for _ in range(n):
        g.apply(choose(g, rng))
    return g


def test_turn_and_actions_are_by_player_id():
    g = _game()
    (pid,) = g.active_players()
    assert pid in (11, 22, 33) and g.acting_entity() == {"entity": pid, "entity_type": "player"}
    legal = g.legal_actions()
    assert {a["entity"] for a in legal} == {pid}
    assert all(a["entity_type"] == "player" and "id" not in a for a in legal)
    stored = g.apply(legal[-1])
    assert stored == {**legal[-1], "id": 1}
    assert g.actions == [stored]
    assert g.apply(g.legal_actions()[0])["id"] == 2


def test_every_legal_action_applies_verbatim_and_json_round_trips():
    g = _played(40)
    for a in json.loads(json.dumps(g.legal_actions()))[:25]:
        trial = Game.replay(g.settings, g.actions)
        trial.apply(a)


def test_action_ids_must_increase():
    g = _game()
    g.apply({**g.legal_actions()[0], "id": 7})
    with pytest.raises(GameError, match="action id 7 is not after 7"):
        g.apply({**g.legal_actions()[0], "id": 7})


MALFORMED = [
    ({"type": "teleport", "entity": 11}, "unknown Steam action type 'teleport'"),
    ({"type": "bid", "amount": 1}, "the acting player's id \\(entity\\) is missing"),
    ({"type": "bid", "entity": 99, "amount": 1}, "there is no player 99"),
    ({"type": "bid", "entity": 11, "entity_type": "corporation", "amount": 1}, "taken by players"),
    ({"type": "bid", "entity": 11, "amount": 1, "price": 3}, "unknown field\\(s\\) 'price'"),
    ({"type": "bid", "entity": 11, "amount": "lots"}, "bid: amount must be a whole number, not 'lots'"),
    ({"type": "bid", "entity": 11}, "bid: amount is missing"),
    ({"type": "lay", "entity": 11, "hex": "north", "tile": "21", "rotation": 0}, "hex must be a hex written"),
    ({"type": "lay", "entity": 11, "hex": "3,4", "tile": "21", "rotation": 9}, "rotation must be at most 5, not 9"),
    (["bid", 11], "a Steam action is a JSON object"),
]


@pytest.mark.parametrize("action,match", MALFORMED)
def test_malformed_actions_are_refused_naming_the_problem(action, match):
    g = _game()
    before = fingerprint(g)
    with pytest.raises(GameError, match=match):
        g.apply(action)
    assert fingerprint(g) == before and g.actions == []


def test_apply_is_all_or_nothing_even_for_unexpected_errors(monkeypatch):
    g = _played(30)
    before, log = fingerprint(g), list(g.actions)

    def boom(*_):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(g, "_advance", boom)
    with pytest.raises(RuntimeError):
        g.apply(g.legal_actions()[0])
    assert fingerprint(g) == before and g.actions == log


def test_action_types_match_the_legal_actions():
    g = _game(seed=9)
    rng = random.Random(3)
    seen = set()
    while not g.finished and len(g.actions) < 250:
        kinds = set(g.action_types())
        legal = {a["type"] for a in g.legal_actions()}
        assert kinds == legal, (g.s.phase, kinds, legal)
        seen |= kinds
        g.apply(choose(g, rng))
    assert {"bid", "take_tile", "lay", "end_build", "move", "pass"} <= seen


def test_choices_carry_readable_labels_and_hex_names():
    g = _played(60)
    rng = random.Random(1)
    while "lay" not in g.action_types():
        g.apply(choose(g, rng))
    choices = g.choices()
    assert [c["action"] for c in choices] == g.legal_actions()
    lays = [c for c in choices if c["action"]["type"] == "lay"]
    assert lays and all(c["label"].startswith("lay ") and "$" in c["label"] for c in lays)
    names = {c.name for c in g.board.cities.values()} | set(g.board.towns.values())
    assert all(any(n in c["label"] for n in names) for c in lays)  # a place players know, not only q,r


def test_delivery_choices_show_the_path_and_who_earns():
    g, ids = delivery_game(["blue", "purple", "red"], [0, 1], 3, ["red"])
    (choice,) = [c for c in g.choices() if c["action"]["type"] == "move" and c["action"]["to"] == "income"]
    assert [(p["from"], p["to"], p["owner"]) for p in choice["path"]] == [("C0", "C1", 1), ("C1", "C2", 2)]
    assert choice["earns"] == {"1": 1, "2": 1}
    assert choice["label"] == ("red cube C0 -> C2 via C0-C1 (yours), C1-C2 (P2): you 1, P2 1 -> your points "
                               "on income")


def test_summary_is_by_player_id_and_json_ready():
    g = _played(80)
    s = json.loads(json.dumps(g.summary()))
    assert [p["id"] for p in s["players"]] == [11, 22, 33]
    assert set(s["turn_order"]) <= {11, 22, 33} and s["next"] == g.active_players()[0]
    assert {"cash", "income", "vp", "loco", "shares", "tile", "links"} <= set(s["players"][0])
    assert s["phase_name"] and s["round"] >= 1 and len(s["reserve"]) == g.board.reserve_hexes


def test_log_export_import_round_trip_and_result():
    g = _game(seed=4)
    rng = random.Random(2)
    while not g.finished:
        g.apply(choose(g, rng))
    log = json.loads(json.dumps(g.to_18xx()))
    assert log["title"] == "steam" and log["players"] == PLAYERS and log["status"] == "finished"
    assert log["settings"] == {"map": "rust_belt", "mode": "basic", "seed": 4, "turn_order": "auction"}
    res = g.result()
    assert set(res) == {"11", "22", "33"} and log["result"] == res
    ranking = g.scoring()["ranking"]
    assert list(res) == [str(r["id"]) for r in ranking] and g.scoring()["winner"] == ranking[0]["id"]
    h = Game.from_18xx(log)
    assert fingerprint(h) == fingerprint(g) and h.result() == res
    mid = Game.from_18xx(log, upto=50)
    assert len(mid.actions) == 50 and fingerprint(mid) == fingerprint(Game.replay(g.settings, g.actions[:50]))


def test_import_reports_the_failing_action():
    g = _played(20)
    log = copy.deepcopy(g.to_18xx())
    log["actions"][5]["entity"] = 99
    with pytest.raises(GameError, match="action 6 .*there is no player 99"):
        Game.from_18xx(log)
    with pytest.raises(GameError, match="not a Steam game log"):
        Game.from_18xx({"title": "1830", "actions": []})


def test_undo_drops_the_last_action():
    g = _played(25)
    before = fingerprint(Game.replay(g.settings, g.actions[:-1]))
    g.undo()
    assert fingerprint(g) == before and len(g.actions) == 24
