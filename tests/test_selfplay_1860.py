"""The random player's cheap listing of 1860 moves: the same kinds of action as the game's full list, and
tile lays on one hex only, every one of them legal, each hex with a legal lay drawn in turn."""

import json
import random
from pathlib import Path

from engine.core.actions import resolve_undo
from engine.core.game import actions_of
from engine.selfplay import legal_actions
from engine.titles import load_18xx

FIXTURE = Path(__file__).parent / "fixtures" / "1860" / "1860_game_end_bank.json"


def track_states(count: int):
    """Games at the first `count` moments of the fixture where a company may lay track (upgrades among them)."""
    log = json.loads(FIXTURE.read_text())
    game = load_18xx({**log, "actions": []})
    found = 0
    with game.loading():
        for action in resolve_undo(actions_of(log)):
            if action.get("type") == "lay_tile":
                yield game
                found += 1
                if found == count:
                    return
            game.apply(action)


def test_lays_come_from_one_hex_and_are_all_legal():
    upgrades = 0
    for n, game in enumerate(track_states(40)):
        if n % 5:
            continue
        full = game.legal_actions()
        lays = {(a["hex"], a["tile"], a["rotation"]) for a in full if a["type"] == "lay_tile"}
        by_hex = {lay[0] for lay in lays}
        seen = set()
        for seed in range(12):
            cheap = legal_actions(game, random.Random(seed))
            assert [a["type"] for a in full if a["type"] != "lay_tile"] == \
                [a["type"] for a in cheap if a["type"] != "lay_tile"]
            mine = {(a["hex"], a["tile"], a["rotation"]) for a in cheap if a["type"] == "lay_tile"}
            assert bool(mine) == bool(lays)
            assert len({lay[0] for lay in mine}) <= 1
            # every lay on the hex drawn, and nothing the full list refuses
            assert mine == {lay for lay in lays if lay[0] in {m[0] for m in mine}}
            seen |= {lay[0] for lay in mine}
            upgrades += any(game.hexmap.hex(lay[0]).tile.color != "white" for lay in mine)
        assert len(seen) > 1 or len(by_hex) <= 1
    assert upgrades > 0
