"""Per-action state lines (the trace format of docs/formats/traces.md) reduced to what our engine and
18xx.games must agree on, and a short digest of one, so that a long reference trace can be kept as a
few bytes per line; and the checks the per-title fixture replay tests share."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from engine.replay import replay


def norm_line(d: dict) -> dict:
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


def digest(d: dict) -> str:
    """A short fingerprint of a line's agreed fields."""
    text = json.dumps(norm_line(d), sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def assert_result(path: Path) -> None:
    """The fixture's game ends as it ended on 18xx.games: same scores, same reason."""
    log = json.loads(path.read_text())
    game, _ = replay(log)
    assert game.finished
    assert game.result() == log["result"]
    assert game.end_reason == log["game_end_reason"]


def assert_trace(path: Path, norm=norm_line) -> None:
    """Every line of the fixture's trace equal to ours, as `norm` reads a line."""
    log = json.loads(path.read_text())
    reference = [json.loads(line) for line in path.with_suffix(".trace.jsonl").read_text().splitlines() if line]
    ours: list = []
    replay(log, ours)
    assert len(ours) == len(reference)
    for ref, mine in zip(reference, ours, strict=True):
        assert norm(mine) == norm(ref), f"first difference after action {ref.get('id')}"


def assert_matches_reference(path: Path) -> None:
    """A self-play log that once parted from 18xx.games (see tests/test_random_1830.py) replays to the
    reference's trace digests, and refuses its `refused` action as the reference does."""
    from engine.core.errors import GameError

    log = json.loads(path.read_text())
    reference = path.with_suffix(".digests").read_text().split()
    ours: list = []
    game, _ = replay(log, ours)
    for i, (line, expected) in enumerate(zip(ours, reference, strict=False)):
        assert digest(line) == expected, f"first difference on trace line {i} (after action {line.get('id')}, " \
                                          f"{line.get('type')} by {line.get('entity')})"
    assert len(ours) == len(reference)
    if "refused" in log:
        before = game.summary()
        try:
            game.apply(log["refused"])
        except GameError:
            pass
        else:
            raise AssertionError("the action 18xx.games refuses was accepted")
        assert game.summary() == before


def assert_programs_act_as_recorded(path: Path) -> None:
    """Standing orders do what 18xx.games' own programs did in that game: each action, applied without its
    recorded `auto_actions`, brings the same ones."""
    from engine.titles import rules_class

    log = json.loads(path.read_text())
    game = rules_class(log["title"])(log["players"], log["settings"]["seed"], log["settings"]["optional_rules"])
    generated = 0
    for action in log["actions"]:
        stored = game.apply({k: v for k, v in action.items() if k != "auto_actions"})
        assert stored.get("auto_actions", []) == action.get("auto_actions", []), action["id"]
        generated += len(stored.get("auto_actions", []))
    assert generated
