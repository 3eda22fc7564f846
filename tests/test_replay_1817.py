"""The 1817 fixtures (real 18xx.games games, copied from the project's shared fixtures; see
tests/fixtures/README.md) replay through our rules to their exact state on every trace line, as far as the
1817 rules are built (docs/1817.md says how far and what is missing). Each test replays its fixture's
actions up to the last one of the replayed part and compares every trace line on the way; the figure
below only grows as rules are added."""

import json
from pathlib import Path

import pytest
from tracelines import norm_line as _norm_line

from engine.replay import replay

FIXTURES = Path(__file__).parent / "fixtures" / "1817"

# trace lines (after set-up: one per applied action) that replay state-exact, per fixture
REPLAYED_LINES = {
    "15528": 486,  # to the first merger (merger round 3.1): mergers are not built
    "16281": 247,  # to the first merger (merger round 2.1): mergers are not built
}


def norm_line(d: dict) -> dict:
    """The 1830 fields plus 1817's loans: the interest rate, loans left, each corporation's loans and size."""
    out = _norm_line(d)
    out["interest_rate"] = d.get("interest_rate")
    out["loans_left"] = d.get("loans_left")
    out["loans"] = {sym: (c.get("loans", 0), c.get("shares", 10)) for sym, c in (d.get("corporations") or {}).items()}
    return out


@pytest.mark.parametrize("name", sorted(REPLAYED_LINES))
def test_fixture_replays_state_exact_as_far_as_built(name):
    path = FIXTURES / f"{name}.json"
    log = json.loads(path.read_text())
    reference = [json.loads(line) for line in path.with_suffix(".trace.jsonl").read_text().splitlines() if line]
    reference = reference[: REPLAYED_LINES[name] + 1]  # the set-up line and one per action
    last = reference[-1]["index"]
    ours: list = []
    replay({**log, "actions": log["actions"][: last + 1]}, ours)
    assert len(ours) == len(reference)
    for ref, mine in zip(reference, ours, strict=True):
        assert norm_line(mine) == norm_line(ref), f"first difference after action {ref.get('id')}"
