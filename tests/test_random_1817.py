"""Random 1817 games (tests/fixtures/1817/random/README.md) replay through our rules to the 18xx.games
engine's state on every trace line, and refuse what it refuses.

Some are whole games; the others (with NAME.md saying what they show) are cut where the two engines once
disagreed, before the rule was fixed; a log may end with `refused`: a move 18xx.games refuses there."""

import json
from pathlib import Path

import pytest
from tracelines import assert_matches_reference

from engine.titles import rules_class

CASES = sorted((Path(__file__).parent / "fixtures" / "1817" / "random").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_random_game_matches_the_reference(path):
    assert_matches_reference(path)


@pytest.mark.parametrize("path", [p for p in CASES if "program" in p.stem], ids=lambda p: p.stem)
def test_programs_act_as_on_18xx_games(path):
    """Standing orders, merger-round passes included, do what 18xx.games' own programs did in that game."""
    log = json.loads(path.read_text())
    game = rules_class(log["title"])(log["players"], log["settings"]["seed"], log["settings"]["optional_rules"])
    generated = 0
    for action in log["actions"]:
        stored = game.apply({k: v for k, v in action.items() if k != "auto_actions"})
        assert stored.get("auto_actions", []) == action.get("auto_actions", []), action["id"]
        generated += len(stored.get("auto_actions", []))
    assert generated


def test_the_cases_are_there():
    assert len(CASES) >= 5
