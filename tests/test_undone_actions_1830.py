"""Actions players took back in real games were legal when they were made: we must accept them too.

Each undone action of the 1830 fixtures is applied to the position it was first made in (the log up to
it, with the undo/redo markers before it resolved). 18xx.games accepted every one of them.
"""

import json
from pathlib import Path

import pytest

from engine.core.actions import resolve_undo
from engine.titles import load_18xx

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "1830").glob("*.json"))


def undone_with_positions(log: dict) -> list[tuple[list[dict], dict]]:
    """(actions in force when it was made, action) for every action that is later undone."""
    final = {a["id"] for a in resolve_undo(log["actions"])}
    out = []
    for i, action in enumerate(log["actions"]):
        if action["type"] in ("undo", "redo", "message") or action["id"] in final:
            continue
        out.append((resolve_undo(log["actions"][:i]), action))
    return out


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_undone_action_was_legal_where_it_was_made(path):
    log = json.loads(path.read_text())
    cases = undone_with_positions(log)
    assert len(cases) > 30
    for prefix, action in cases:
        game = load_18xx({**log, "actions": prefix})
        before = len(game.actions)
        game.apply(action)  # raises GameError (failing the test) if we refuse it
        assert len(game.actions) == before + 1
