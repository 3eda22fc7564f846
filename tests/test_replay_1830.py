"""The 1830 fixtures (real 18xx.games games) replay through our rules to their exact state and result."""

from pathlib import Path

import pytest
from tracelines import assert_result, assert_trace

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "1830").glob("*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_replays_to_result(path):
    assert_result(path)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_trace_matches_every_line(path):
    assert_trace(path)
