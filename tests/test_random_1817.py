"""Random 1817 games (tests/fixtures/1817/random/README.md) replay through our rules to the 18xx.games
engine's state on every trace line, and refuse what it refuses.

Some are whole games; the others (with NAME.md saying what they show) are cut where the two engines once
disagreed, before the rule was fixed; a log may end with `refused`: a move 18xx.games refuses there."""

from pathlib import Path

import pytest
from tracelines import assert_matches_reference

CASES = sorted((Path(__file__).parent / "fixtures" / "1817" / "random").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_random_game_matches_the_reference(path):
    assert_matches_reference(path)


def test_the_cases_are_there():
    assert len(CASES) >= 5
