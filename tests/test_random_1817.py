"""Random 1817 games (tests/fixtures/1817/random/README.md) replay through our rules to the 18xx.games
engine's state on every trace line, and refuse what it refuses.

Some are whole games; the others (with NAME.md saying what they show) are cut where the two engines once
disagreed, before the rule was fixed; a log may end with `refused`: a move 18xx.games refuses there."""

import json
from pathlib import Path

import pytest
from tracelines import assert_matches_reference, assert_programs_act_as_recorded

from engine.titles import rules_class

CASES = sorted((Path(__file__).parent / "fixtures" / "1817" / "random").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_random_game_matches_the_reference(path):
    assert_matches_reference(path)


@pytest.mark.parametrize("path", [p for p in CASES if "program" in p.stem], ids=lambda p: p.stem)
def test_programs_act_as_on_18xx_games(path):
    """Standing orders, merger-round passes included, do what 18xx.games' own programs did in that game."""
    assert_programs_act_as_recorded(path)


@pytest.mark.parametrize("path", sorted((Path(__file__).parent / "fixtures" / "1817" / "programs").glob("*.json")),
                         ids=lambda p: p.stem)
def test_programs_act_where_18xx_games_cannot_load_them(path):
    """A standing order buys a share its corporation's choice of size creates, at once, as 18xx.games' programs do
    (tests/fixtures/1817/programs/README.md): the recorded automatic actions come from our standing orders."""
    assert_programs_act_as_recorded(path)


def test_the_cases_are_there():
    assert len(CASES) >= 5


def test_a_walk_kept_through_a_liquidation_survives_going_back():
    """Played live with a checkpoint after every action, and a loan taken after the liquidation taken back:
    the walk NYOW kept through the liquidation still stands (no checkpoint is taken while it is kept)."""
    from engine.core.checkpoints import Checkpoints
    from engine.core.errors import GameError

    log = json.loads((Path(__file__).parent / "fixtures" / "1817" / "random" / "walk_kept_through_liquidation.json")
                     .read_text())
    game = rules_class(log["title"])(log["players"], log["settings"]["seed"], log["settings"]["optional_rules"])
    game.checkpoints = Checkpoints(every=1)
    for action in log["actions"]:
        game.apply(action)
    loan = next(a for a in game.legal_actions() if a["type"] == "take_loan")  # after the liquidation
    game.apply(loan)
    game.undo()
    refused = {k: v for k, v in log["refused"].items() if k != "id"}
    with pytest.raises(GameError):
        game.apply(refused)


def test_the_modern_trains_earn_their_bonus_in_the_random_case():
    """The random case of the modern style runs a 7-train through three of its stations: with the modern trains
    it earns $30 more, so without the rule its logged run (as 18xx.games accepted it) is refused."""
    from engine.core.errors import GameError

    log = json.loads((Path(__file__).parent / "fixtures" / "1817" / "random" / "modern_trains_run.json").read_text())
    without = [r for r in log["settings"]["optional_rules"] if r != "modern_trains"]
    assert without != log["settings"]["optional_rules"]
    game = rules_class("1817")(log["players"], log["settings"]["seed"], without)
    for action in log["actions"]:
        action = {k: v for k, v in action.items() if k != "auto_actions"}
        if action["type"] == "run_routes" and any(game.train(r["train"]).name == "7" for r in action["routes"]):
            break
        game.apply(action)
    with pytest.raises(GameError, match=r"pays \$280, not \$310"):
        game.apply(action)
