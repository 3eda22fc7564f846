"""Random 1860 games that once parted from 18xx.games replay to the reference engine's state on every trace
line and refuse what it refuses (same form as tests/test_random_1830.py; each NAME.md says what the case
shows)."""

from pathlib import Path

import pytest
from tracelines import assert_matches_reference

CASES = sorted((Path(__file__).parent / "fixtures" / "1860" / "random").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_random_game_matches_the_reference(path):
    assert_matches_reference(path)
