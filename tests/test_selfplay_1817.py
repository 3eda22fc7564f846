"""Random legal 1817 games (the random player takes loans, sells short, converts, merges and bids in the
acquisition round when it may): every offered action is accepted, money and certificates add up after each
one, every game ends, and an exported game loads back to the same state."""

import json

from engine.selfplay import play_one, run
from engine.titles import rules_class


def test_random_games_keep_invariants_and_end():
    out = run("1817", games=4, seed=1817)
    assert out["failures"] == [], out["failures"][0]["problem"] if out["failures"] else ""
    assert out["finished"] == 4


def test_exported_game_loads_to_the_same_state():
    _, problem, _, game = play_one("1817", 4, 3, 4000)
    assert problem is None and game.finished
    again = rules_class("1817").from_18xx(json.loads(json.dumps(game.to_18xx())))
    assert again.summary() == game.summary()
    assert again.result() == game.result()
