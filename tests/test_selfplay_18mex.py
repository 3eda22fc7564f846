"""Random legal 18MEX games: every offered action is accepted, the invariants hold after each one, and an
exported game loads back to the same state. (Against 18xx.games' engine the same games are checked with
`python -m engine.selfplay 18MEX --export DIR` and the reference crosscheck; see docs/titles.md.)"""

import json

from engine.selfplay import play_one, run
from engine.titles import load_18xx


def test_random_games_keep_invariants_with_random_optional_rules():
    out = run("18MEX", games=3, seed=2024, optional_rules=["random"])
    assert out["failures"] == [], out["failures"][0]["problem"] if out["failures"] else ""
    assert out["finished"] == 3


def test_exported_game_loads_to_the_same_state():
    _, problem, _, game = play_one("18MEX", 4, 77, 4000)
    assert problem is None and game.finished
    again = load_18xx(json.loads(json.dumps(game.to_18xx())))
    assert again.summary() == game.summary()
    assert again.result() == game.result()
