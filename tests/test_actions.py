"""The action log: undo/redo resolution as 18xx.games does it (docs/formats/log.md section 3), and parsing."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    # an id no action has: refused, as 18xx.games refuses it ("Could not find target action_id")
    with pytest.raises(GameError, match="undo 4: no action of the log has the id 2"):
        resolve_undo([{"id": 1, "type": "bid"}, {"id": 3, "type": "bid"}, {"id": 4, "type": "undo", "action_id": 2}])
    # an id after the undo: nothing is undone (the redo then puts back nothing)
    assert ids(log + [{"id": 4, "type": "undo", "action_id": 9}, {"id": 9, "type": "redo"}]) == [1, 2, 3]


def test_chat_is_never_undone_and_a_new_action_ends_redo():
    log = [{"id": 1, "type": "bid"}, {"id": 2, "type": "message"}, {"id": 3, "type": "undo"},
           {"id": 4, "type": "pass"}]
    assert ids(log) == [2, 4]
    with pytest.raises(GameError, match="redo 5: there is no undo to redo"):  # the pass closed the undo
        resolve_undo(log + [{"id": 5, "type": "redo"}])


def test_parsing_keeps_unknown_fields_and_refuses_bad_ones():
    action = parse_action({"type": "buy_shares", "entity": 1, "entity_type": "player", "shares": ["PRR_1"],
                           "percent": 10, "created_at": 5})
    assert isinstance(action, BuyShares) and action.to_dict()["created_at"] == 5
    with pytest.raises(GameError, match="unknown action type"):
        parse_action({"type": "fly", "entity": 1})
    with pytest.raises(GameError, match="malformed lay_tile"):
        parse_action({"type": "lay_tile", "entity": "PRR", "entity_type": "corporation", "hex": "H12"})


def test_undo_of_undo_redo_twice_and_redo_without_undo():
    log = [{"id": 1, "type": "bid"}, {"id": 2, "type": "bid"}, {"id": 3, "type": "bid"},
           {"id": 4, "type": "undo"}, {"id": 5, "type": "undo"}, {"id": 6, "type": "redo"}, {"id": 7, "type": "redo"}]
    assert ids(log) == [1, 2, 3]
    with pytest.raises(GameError, match="redo 8: there is no undo to redo"):  # as 18xx.games: nothing to redo
        resolve_undo(log + [{"id": 8, "type": "redo"}])
    with pytest.raises(GameError, match="redo 2: there is no undo to redo"):
        resolve_undo([{"id": 1, "type": "bid"}, {"id": 2, "type": "redo"}])
    with pytest.raises(GameError, match="redo 4"):  # a new move closed the undo
        resolve_undo([{"id": 1, "type": "bid"}, {"id": 2, "type": "undo"}, {"id": 3, "type": "bid"},
                      {"id": 4, "type": "redo"}])
    # an undo back to an id, then an undo of one more, then both redone
    log = [{"id": 1, "type": "bid"}, {"id": 2, "type": "bid"}, {"id": 3, "type": "bid"},
           {"id": 4, "type": "undo", "action_id": 2}, {"id": 5, "type": "undo"}, {"id": 6, "type": "redo"}]
    assert ids(log) == [1, 2]
    assert ids(log + [{"id": 7, "type": "redo"}]) == [1, 2, 3]


def test_chat_between_undo_and_redo_keeps_the_redo_open():
    log = [{"id": 1, "type": "bid"}, {"id": 2, "type": "undo"}, {"id": 3, "type": "message"},
           {"id": 4, "type": "redo"}]
    assert ids(log) == [1, 3]


def test_undo_to_an_undo_marker_and_to_ids_written_as_strings():
    log = [{"id": 1, "type": "bid"}, {"id": 2, "type": "undo"}, {"id": 3, "type": "bid"}, {"id": 4, "type": "bid"},
           {"id": 5, "type": "undo", "action_id": 2}]
    assert ids(log) == []  # back to just after the undo marker 2: action 1 stays undone, 3 and 4 go
    log = [{"id": "1", "type": "bid"}, {"id": "2", "type": "bid"}, {"id": "3", "type": "undo", "action_id": "1"}]
    assert ids(log) == ["1"]


def test_malformed_undo_logs_are_refused():
    with pytest.raises(GameError, match="not a JSON object"):
        resolve_undo([{"id": 1, "type": "bid"}, ["undo"]])
    with pytest.raises(GameError, match="not an action id"):
        resolve_undo([{"id": 1, "type": "bid"}, {"id": 2, "type": "undo", "action_id": "first"}])


def resolve_by_the_rule(actions: list[dict]) -> list[dict]:
    """docs/formats/log.md section 3 word for word, in the obvious quadratic way: the oracle for resolve_undo."""
    kept = [None] * len(actions)
    groups: list[list[int]] = []
    for i, action in enumerate(actions):
        if action["type"] == "undo":
            target = action.get("action_id")
            if target is None:
                last = [j for j in range(i) if kept[j] and kept[j]["type"] != "message"][-1:]
                removed = last
            else:
                where = [j for j, a in enumerate(actions) if a["id"] == target]
                if target != 0 and not where:
                    raise GameError("no action of the log has the id")
                after = where[0] if where else -1
                removed = [j for j in range(after + 1, i) if kept[j] and kept[j]["type"] != "message"]
            for j in removed:
                kept[j] = None
            groups.append(removed)
        elif action["type"] == "redo":
            if not groups:
                raise GameError("there is no undo to redo")
            for j in groups.pop():
                kept[j] = actions[j]
        else:
            kept[i] = action
            if action["type"] != "message":
                groups.clear()
    return [a for a in kept if a]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.one_of(st.just(("bid", None)), st.just(("message", None)), st.just(("undo", None)),
                          st.just(("redo", None)), st.tuples(st.just("undo"), st.integers(0, 40))), max_size=40),
       st.sets(st.integers(1, 40), max_size=8))
def test_resolution_follows_the_rule(shapes, missing):
    ids_in_log = [i for i in range(1, 60) if i not in missing]
    log = []
    for (kind, target), action_id in zip(shapes, ids_in_log, strict=False):
        log.append({"id": action_id, "type": kind} | ({"action_id": target} if target is not None else {}))
    try:
        expected = resolve_by_the_rule(log)
    except GameError as refusal:
        with pytest.raises(GameError, match=str(refusal)):
            resolve_undo(log)
    else:
        assert resolve_undo(log) == expected
    # the same log with each entry the rule refuses made chat: most random logs hold one, and what follows it
    # is then compared too
    playable: list[dict] = []
    for action in log:
        try:
            resolve_by_the_rule([*playable, action])
            playable.append(action)
        except GameError:
            playable.append({"id": action["id"], "type": "message"})
    assert resolve_undo(playable) == resolve_by_the_rule(playable)


def test_a_long_log_of_undos_and_redos_resolves_in_one_pass():
    """60,000 entries of undo, undo back to an id, redo and chat (the shapes that were quadratic): each
    block of five actions keeps its first two."""
    log, next_id, expected = [], 1, []
    for _ in range(6000):
        first = next_id
        for _ in range(5):
            log.append({"id": next_id, "type": "bid"})
            next_id += 1
        log += [{"id": next_id, "type": "undo"}, {"id": next_id + 1, "type": "message"},
                {"id": next_id + 2, "type": "undo", "action_id": first + 1}, {"id": next_id + 3, "type": "redo"},
                {"id": next_id + 4, "type": "undo", "action_id": first + 1}]
        expected += [first, first + 1, next_id + 1]
        next_id += 5
    assert ids(log) == expected
