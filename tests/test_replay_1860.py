"""The 1860 fixtures (real 18xx.games games, copied from the project's shared fixtures; see
tests/fixtures/README.md) replay through our rules to their exact state on every trace line and their result."""

import json
from pathlib import Path

import pytest
from tracelines import norm_line

from engine.replay import replay

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "1860").glob("*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_replays_to_result(path):
    log = json.loads(path.read_text())
    game, _ = replay(log)
    assert game.finished
    assert game.result() == log["result"]
    assert game.end_reason == log["game_end_reason"]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_trace_matches_every_line(path):
    log = json.loads(path.read_text())
    reference = [json.loads(line) for line in path.with_suffix(".trace.jsonl").read_text().splitlines() if line]
    ours: list = []
    replay(log, ours)
    assert len(ours) == len(reference)
    for ref, mine in zip(reference, ours, strict=True):
        assert norm_line(mine) == norm_line(ref), f"first difference after action {ref.get('id')}"
