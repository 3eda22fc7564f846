"""The 1860 fixtures (real 18xx.games games, copied from the project's shared fixtures; see
tests/fixtures/README.md) replay through our rules to their exact state on every trace line and their result."""

from pathlib import Path

import pytest
from tracelines import assert_result, assert_trace

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "1860").glob("*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_replays_to_result(path):
    assert_result(path)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_trace_matches_every_line(path):
    assert_trace(path)
