"""The 18MEX fixtures (real 18xx.games games, copied from the project's shared fixtures; see
tests/fixtures/README.md) replay through our rules to their exact state on every trace line and their result."""

from pathlib import Path

import pytest
from tracelines import assert_result, assert_trace
from tracelines import norm_line as _norm_line

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "18MEX").glob("*.json"))


def norm_line(d: dict) -> dict:
    """The 1830 fields plus the minors. A closed minor's stations are left out: 18xx.games keeps pointing
    them at the city they stood in, wherever that tile goes later, which is no state of the game."""
    out = _norm_line(d)
    out["minors"] = {sym: (m.get("cash"), m.get("owner"), m.get("trains") or [],
                           None if m.get("closed") else sorted(m.get("tokens") or []),
                           bool(m.get("floated")), bool(m.get("operated")), bool(m.get("closed")))
                     for sym, m in (d.get("minors") or {}).items()}
    return out


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_replays_to_result(path):
    assert_result(path)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_trace_matches_every_line(path):
    assert_trace(path, norm_line)
