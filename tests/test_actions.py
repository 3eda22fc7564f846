"""The action log: undo/redo resolution as 18xx.games does it (FORMAT.md section 3), and parsing."""

import pytest

from engine import GameError
from engine.core.actions import BuyShares, parse_action, resolve_undo


def ids(actions):
    return [a["id"] for a in resolve_undo(actions)]


def test_undo_redo_example_from_the_format():
    log = [{"id": 1, "type": "bid"}, {"id": 2, "type": "bid"}, {"id": 3, "type": "undo"},
           {"id": 4, "type": "undo"}, {"id": 5, "type": "redo"}, {"id": 6, "type": "pass"}]
    assert ids(log) == [1, 6]


def test_undo_to_an_action_and_to_the_start():
    log = [{"id": 1, "type": "bid"}, {"id": 2, "type": "bid"}, {"id": 3, "type": "pass"}]
    assert ids(log + [{"id": 4, "type": "undo", "action_id": 1}]) == [1]
    assert ids(log + [{"id": 4, "type": "undo", "action_id": 0}]) == []
    # an id that isn't in the log: back to the last action before it
    assert ids([{"id": 1, "type": "bid"}, {"id": 3, "type": "bid"}, {"id": 4, "type": "undo", "action_id": 2}]) == [1]


def test_chat_is_never_undone_and_a_new_action_ends_redo():
    log = [{"id": 1, "type": "bid"}, {"id": 2, "type": "message"}, {"id": 3, "type": "undo"},
           {"id": 4, "type": "pass"}, {"id": 5, "type": "redo"}]
    assert ids(log) == [2, 4]


def test_parsing_keeps_unknown_fields_and_refuses_bad_ones():
    action = parse_action({"type": "buy_shares", "entity": 1, "entity_type": "player", "shares": ["PRR_1"],
                           "percent": 10, "created_at": 5})
    assert isinstance(action, BuyShares) and action.to_dict()["created_at"] == 5
    with pytest.raises(GameError, match="unknown action type"):
        parse_action({"type": "fly", "entity": 1})
    with pytest.raises(GameError, match="malformed lay_tile"):
        parse_action({"type": "lay_tile", "entity": "PRR", "entity_type": "corporation", "hex": "H12"})
