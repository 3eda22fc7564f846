"""Random 1860 games that once parted from 18xx.games replay to the reference engine's state on every trace
line and refuse what it refuses (same form as tests/test_random_1830.py; each NAME.md says what the case
shows)."""

from pathlib import Path

import pytest
from tracelines import assert_matches_reference, assert_programs_act_as_recorded

CASES = sorted((Path(__file__).parent / "fixtures" / "1860" / "random").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_random_game_matches_the_reference(path):
    assert_matches_reference(path)


@pytest.mark.parametrize("path", [p for p in CASES if p.stem.startswith("standing_order")], ids=lambda p: p.stem)
def test_standing_orders_act_as_on_18xx_games(path):
    """A standing order stops where 18xx.games' stops: at a private another player bought from the bank or sold
    to it, at certificates of different sizes in the market (a president's certificate among them)."""
    assert_programs_act_as_recorded(path)
