"""The 1817 fixtures (real 18xx.games games, copied from the project's shared fixtures; see
tests/fixtures/README.md) replay through our rules to their exact state on every trace line and their result.
The third fixture plays the Volatility expansion: its tiered auction and its privates."""

from pathlib import Path

import pytest
from tracelines import assert_result, assert_trace
from tracelines import norm_line as _norm_line

FIXTURES_DIR = Path(__file__).parent / "fixtures" / "1817"
FIXTURES = [FIXTURES_DIR / "15528.json", FIXTURES_DIR / "16281.json", FIXTURES_DIR / "1817_game_end_bankrupt.json"]


def norm_line(d: dict) -> dict:
    """The 1830 fields plus 1817's loans: the interest rate, loans left, each corporation's loans and size."""
    out = _norm_line(d)
    out["interest_rate"] = d.get("interest_rate")
    out["loans_left"] = d.get("loans_left")
    out["loans"] = {sym: (c.get("loans", 0), c.get("shares", 10)) for sym, c in (d.get("corporations") or {}).items()}
    return out


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_replays_to_result(path):
    assert_result(path)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_trace_matches_every_line(path):
    assert_trace(path, norm_line)
