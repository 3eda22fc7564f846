"""Random 18MEX games that once parted from 18xx.games replay to the reference engine's state on every
trace line and refuse what it refuses (same form as tests/test_random_1830.py; each NAME.md says what the
case shows)."""

import json
from pathlib import Path

import pytest
from tracelines import assert_matches_reference

from engine.replay import replay

CASES = sorted((Path(__file__).parent / "fixtures" / "18MEX" / "random").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_random_game_matches_the_reference(path):
    assert_matches_reference(path)


def test_the_cases_are_there():
    assert len(CASES) >= 4


@pytest.mark.parametrize("path", [p for p in CASES if "refused" in json.loads(p.read_text())], ids=lambda p: p.stem)
def test_the_refused_action_is_not_offered(path):
    """What 18xx.games refuses is not among the legal moves either (a player picking from them would be refused)."""
    log = json.loads(path.read_text())
    game, _ = replay(log)
    refused = log["refused"]
    offered = [a for a in game.legal_actions() if all(refused.get(k) == v for k, v in a.items() if k != "id")]
    assert not offered
