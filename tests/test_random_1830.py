"""Random 1830 games that once parted from 18xx.games replay through our rules to the reference engine's
state on every trace line, and refuse what it refuses.

Each tests/fixtures/1830/random/NAME.json is a log our self-play wrote (`python -m engine.selfplay 1830
--export`), cut where the two engines disagreed before the rule was fixed (NAME.md says what it shows).
NAME.digests holds one fingerprint (tracelines.digest) per line of the 18xx.games engine's trace of that
log (shared/tools/ref18xx/trace.rb), whose auto actions (what programs did) are the ones 18xx.games
generates there. A log may end with `refused`: a move 18xx.games refuses there.
"""

import json
from pathlib import Path

import pytest
from tracelines import assert_matches_reference

from engine.titles import create_game

CASES = sorted((Path(__file__).parent / "fixtures" / "1830" / "random").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_random_game_matches_the_reference(path):
    assert_matches_reference(path)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_programs_act_as_on_18xx_games(path):
    log = json.loads(path.read_text())
    game = create_game(log["title"], log["players"], log["settings"]["seed"], log["settings"]["optional_rules"])
    for action in log["actions"]:
        stored = game.apply({k: v for k, v in action.items() if k != "auto_actions"})
        assert stored.get("auto_actions", []) == action.get("auto_actions", []), action["id"]


def test_the_cases_are_there():
    assert len(CASES) >= 5
