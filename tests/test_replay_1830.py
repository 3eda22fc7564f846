"""The 1830 fixtures (real 18xx.games games) replay through our rules to their exact state and result."""

import json
from pathlib import Path

import pytest

from engine.replay import replay

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "1830").glob("*.json"))


def _norm_line(d: dict) -> dict:
    """The trace fields the 18xx.games reference and ours must agree on."""
    out = {k: d.get(k) for k in ("type", "round", "round_desc", "turn", "round_num", "phase", "bank", "next",
                                 "finished", "end_reason", "depot", "closed_companies")}
    out["players"] = {
        str(p["id"]): (p.get("cash"), {k: v for k, v in (p.get("shares") or {}).items() if v},
                       sorted(p.get("privates") or []), p.get("value"))
        for p in d.get("players") or []
    }
    out["corporations"] = {
        sym: (c.get("cash"), c.get("price"), c.get("par"), c.get("pres"), c.get("trains") or [],
              sorted(c.get("tokens") or []), c.get("tokens_left"), c.get("ipo"), c.get("pool"), bool(c.get("ipoed")),
              bool(c.get("floated")), bool(c.get("operated")), c.get("companies") or [])
        for sym, c in (d.get("corporations") or {}).items()
    }
    out["companies"] = {k: None if v is None else str(v) for k, v in (d.get("companies") or {}).items()}
    return out


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
        assert _norm_line(mine) == _norm_line(ref), f"first difference after action {ref.get('id')}"
