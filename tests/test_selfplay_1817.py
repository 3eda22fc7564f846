"""Random legal 1817 games (the random player takes loans, sells short, converts, merges and bids in the
acquisition round when it may): every offered action is accepted, money and certificates add up after each
one, every game ends, and an exported game loads back to the same state."""

import json

import pytest

from engine.selfplay import main, play_one, run
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


def modern_game():
    """A 3-player game of the "modern" style with the modern trains (about 3 s)."""
    _, problem, _, game = play_one("1817", 3, 798420159, 4000, ("modern_trains",), "modern")
    assert problem is None and game.finished
    return game


def test_modern_players_run_the_seven_and_eight_trains_and_still_play_everything():
    game = modern_game()
    actions = [x for a in game.actions for x in [a, *a.get("auto_actions", [])]]
    kinds = {a["type"] for a in actions}
    assert {"take_loan", "payoff_loan", "short", "convert", "merge", "sell_shares"} <= kinds
    modern_runs = [r for a in actions if a["type"] == "run_routes" for r in a["routes"]
                   if game.train(r["train"]).name in ("7", "8")]
    assert modern_runs
    assert game.phase.name == "8" and game.to_18xx()["game_end_reason"] == "final_phase"


def test_modern_corporations_buy_only_bigger_trains():
    """Replayed move by move: a corporation that owns trains buys only one bigger than its best."""
    played = modern_game()
    game = rules_class("1817")(played.settings_players, played.seed, ("modern_trains",))
    bought = 0
    for action in played.actions:
        if action["type"] == "buy_train":
            corp = game.corporation(action["entity"])
            best = max((t.price for t in corp.trains), default=0)
            assert game.train(action["train"]).price > best, action
            bought += 1
        game.apply({k: v for k, v in action.items() if k != "auto_actions"})
    assert bought and game.summary() == played.summary()


def test_an_unknown_style_is_refused():

    with pytest.raises(SystemExit):
        main(["1817", "--style", "reckless", "--games", "1"])
