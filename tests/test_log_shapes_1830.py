"""What an 18xx.games log may hold besides the game's moves, and where 18xx.games refuses it: chat only from
the players (kept after the end too), `end_game` from anyone but a private company, no other move once the
game is over, no undo to an id no action has (a float equal to an id names it) and no redo without an undo
open, no loan or station removed without naming it (1817), a player's `log` line counted as a move by undo.
The import (load_18xx) and engine.replay accept and refuse the same logs."""

import json
from pathlib import Path

import pytest

from engine.core.actions import resolve_undo
from engine.core.errors import GameError
from engine.core.game import with_numbered_players
from engine.replay import replay
from engine.titles import load_18xx

FINISHED = Path(__file__).parent / "fixtures" / "1830" / "26855.json"  # ends by a bankruptcy


def finished_log() -> dict:
    """The game's log with its undos resolved (so that its ids may be renumbered)."""
    log = json.loads(FINISHED.read_text())
    return {**log, "actions": resolve_undo(log["actions"])}


def with_actions(log: dict, *extra: dict, at: int | None = None) -> dict:
    """The log with `extra` inserted after its first `at` actions (default: at the end), ids renumbered."""
    actions = list(log["actions"])
    at = len(actions) if at is None else at
    actions[at:at] = [dict(a) for a in extra]
    return {**log, "actions": [{**a, "id": i} for i, a in enumerate(actions, 1)]}


def loads_both_ways(log: dict):
    game = load_18xx(log)
    replayed, _ = replay(log)
    assert replayed.result() == game.result()
    return game


def refused_both_ways(log: dict, reason: str) -> None:
    with pytest.raises(GameError, match=reason):
        load_18xx(log)
    with pytest.raises(GameError, match=reason):
        replay(log)


def chat(entity, entity_type="player"):
    return {"type": "message", "entity": entity, "entity_type": entity_type, "message": "gg"}


def test_chat_after_the_end_is_kept():
    """18xx.games keeps the players' chat after the end of the game in its log; so does the engine, loaded or
    live, and the export has it."""
    log = finished_log()
    first, second = log["players"][0]["id"], log["players"][1]["id"]
    game = loads_both_ways(with_actions(log, chat(first)))
    assert game.finished and game.result() == log["result"]
    assert game.actions[-1] == {**chat(first), "id": len(log["actions"]) + 1}
    game.apply(chat(second))
    assert game.to_18xx()["actions"][-2:] == [{**chat(first), "id": len(log["actions"]) + 1},
                                              {**chat(second), "id": len(log["actions"]) + 2}]
    assert game.result() == log["result"]
    for refused, reason in ((chat("PRR", "corporation"), "only players write"),
                            ({"type": "pass", "entity": first, "entity_type": "player"}, "the game is over")):
        with pytest.raises(GameError, match=reason):
            game.apply(refused)
    assert len(game.actions) == len(log["actions"]) + 2


def test_no_move_after_the_end():
    log = finished_log()
    player = log["players"][0]["id"]
    for move in ({"type": "pass", "entity": player, "entity_type": "player"},
                 {"type": "end_game", "entity": player, "entity_type": "player"}):
        refused_both_ways(with_actions(log, chat(player), move), "the game is over")


def test_chat_comes_from_the_players_only():
    log = finished_log()
    refused_both_ways(with_actions(log, chat("CS", "company"), at=40), "only players write")
    refused_both_ways(with_actions(log, chat("PRR", "corporation"), at=40), "only players write")
    refused_both_ways(with_actions(log, chat(999), at=40), "no player 999")
    assert loads_both_ways(with_actions(log, chat(log["players"][1]["id"]), at=40)).result() == log["result"]


def test_a_player_or_a_corporation_may_end_the_game_but_no_private():
    log = finished_log()
    cut = {**log, "actions": log["actions"][:60]}
    refused_both_ways(with_actions(cut, {"type": "end_game", "entity": "CS", "entity_type": "company"}),
                      "private company")
    for entity, kind in ((log["players"][2]["id"], "player"), ("PRR", "corporation")):
        game = loads_both_ways(with_actions(cut, {"type": "end_game", "entity": entity, "entity_type": kind}))
        assert game.finished and game.end_reason == "manually_ended"


def test_a_buy_must_name_the_certificate_s_own_percent():
    log = finished_log()
    at = next(i for i, a in enumerate(log["actions"]) if a["type"] == "buy_shares" and a["entity_type"] == "player"
              and not a["shares"][0].endswith("_0") and a["percent"] == 10)
    buy = {k: v for k, v in log["actions"][at].items() if k not in ("id", "auto_actions")}
    game = load_18xx({**log, "actions": log["actions"][:at], "result": None, "game_end_reason": None})
    before = game.summary()
    with pytest.raises(GameError, match="a 10% certificate, not 20%"):
        game.apply({**buy, "percent": 20})  # 18xx.games refuses such a bundle
    assert game.summary() == before
    game.apply(buy)


def named_only(log: dict) -> dict:
    """The log as early 18xx.games hotseat games wrote it: players with a name and no id, actions naming them."""
    names = {p["id"]: p["name"] for p in log["players"]}

    def renamed(a: dict) -> dict:
        out = {**a, **({"entity": names[a["entity"]]} if a["entity_type"] == "player" else {}),
               **({"user": names.get(a["user"], a["user"])} if "user" in a else {})}
        if a.get("auto_actions"):
            out["auto_actions"] = [renamed(x) for x in a["auto_actions"]]
        return out

    return {**log, "players": [{"name": p["name"]} for p in log["players"]],
            "actions": [renamed(a) for a in log["actions"]],
            "result": {names[int(k)]: v for k, v in log["result"].items()}}


def test_players_named_only_are_their_names():
    """18xx.games takes a player without an id by its name; so does the engine, and a store that numbers its
    players gets them numbered by seat, every action naming them renamed (auto actions and results too)."""
    log = json.loads(FINISHED.read_text())
    named = named_only(log)
    game = loads_both_ways(named)
    assert game.result() == named["result"] and game.end_reason == log["game_end_reason"]
    numbered = with_numbered_players(named)
    assert [p["id"] for p in numbered["players"]] == [1, 2, 3, 4]
    seat = {p["id"]: n for n, p in enumerate(log["players"], 1)}
    assert numbered["result"] == {str(seat[int(k)]): v for k, v in log["result"].items()}
    assert all(a["entity"] in (1, 2, 3, 4) for a in numbered["actions"] if a["entity_type"] == "player")
    assert loads_both_ways(numbered).result() == numbered["result"]
    # ids left as the log has them; a player with neither id nor name is not made up
    assert with_numbered_players(log) == log
    assert with_numbered_players({**log, "players": [{}]})["players"] == [{}]
    with pytest.raises(GameError, match="has no id"):
        load_18xx({**log, "players": [{}, *log["players"][1:]]})


def test_player_ids_written_as_digits_are_numbered_with_every_action_naming_them():
    """A store that numbers its players (the bot's) gets "330" as 330 in the players, the actions, their users and
    auto actions and the result alike: the log it writes back names each player one way, as 18xx.games needs."""
    log = json.loads(FINISHED.read_text())

    def written(a: dict) -> dict:
        out = {**a, **({"entity": str(a["entity"])} if a["entity_type"] == "player" else {}),
               **({"user": str(a["user"])} if "user" in a else {})}
        return {**out, "auto_actions": [written(x) for x in a["auto_actions"]]} if a.get("auto_actions") else out

    as_strings = {**log, "players": [{**p, "id": str(p["id"])} for p in log["players"]],
                  "actions": [written(a) for a in log["actions"]]}
    assert loads_both_ways(as_strings).result() == log["result"]
    numbered = with_numbered_players(as_strings)
    assert numbered["players"] == log["players"] and numbered["actions"] == log["actions"]
    assert numbered["result"] == log["result"]
    assert with_numbered_players({**log, "players": [{"id": "x1", "name": "A"}]})["players"] == [{"id": "x1",
                                                                                                   "name": "A"}]
    # the players numbered and their actions by strings (18xx.games refuses the mix): the actions numbered too
    assert with_numbered_players({**as_strings, "players": log["players"]})["actions"] == log["actions"]


def test_a_player_named_only_takes_a_number_no_other_player_has():
    log = finished_log()
    mixed = {**log, "players": [{"id": 2, "name": "A"}, {"name": "B"}, {"id": 1, "name": "C"}, {"name": "D"}],
             "actions": [{"type": "message", "entity": "B", "entity_type": "player", "message": "hi",
                          "auto_actions": [{"type": "pass", "entity": "D", "entity_type": "player"}]},
                         {"type": "pass", "entity": "D", "user": "B", "entity_type": "corporation"}]}
    numbered = with_numbered_players(mixed)
    assert [p["id"] for p in numbered["players"]] == [2, 3, 1, 4]
    assert numbered["actions"][0]["entity"] == 3 and numbered["actions"][0]["auto_actions"][0]["entity"] == 4
    assert numbered["actions"][1] == {"type": "pass", "entity": "D", "user": 3, "entity_type": "corporation"}


def test_an_optional_rule_the_title_has_not_is_played_as_if_unset():
    """18xx.games keeps a rule name its title does not know and plays without it (a rule since dropped); so does
    a replay. A rule of the title is still played."""
    log = finished_log()
    game = loads_both_ways({**log, "settings": {**log["settings"],
                                                 "optional_rules": ["no_such_rule", *log["settings"]["optional_rules"]]}})
    assert game.optional_rules == ("multiple_brown_from_ipo",) and game.result() == log["result"]


def test_a_message_or_standing_order_without_its_required_field_is_refused():
    """18xx.games refuses chat without its text, an order to buy without its end, and an order stopped without a
    reason (its engine requires these fields)."""
    log = finished_log()
    player = log["players"][0]["id"]
    for action, field in (({"type": "message"}, "message"),
                          ({"type": "program_buy_shares", "corporation": "PRR"}, "until_condition"),
                          ({"type": "program_disable"}, "reason")):
        refused_both_ways(with_actions(log, {**action, "entity": player, "entity_type": "player"}, at=40),
                          f"{field} is missing")


def test_an_undo_to_an_id_no_action_has_and_a_redo_with_nothing_to_redo_are_refused():
    """18xx.games refuses both when it loads the log ("Could not find target action_id"; a redo with no undo open
    fails); so does the engine, where it had undone to the next lower id and ignored the redo."""
    log = finished_log()
    player = log["players"][0]["id"]
    cut = {**log, "actions": log["actions"][:60], "result": None, "game_end_reason": None}
    gapped = {**cut, "actions": [*cut["actions"][:30], *({**a, "id": a["id"] + 5} for a in cut["actions"][30:])]}
    undo = {"type": "undo", "entity": player, "entity_type": "player", "id": 100}
    refused_both_ways({**gapped, "actions": [*gapped["actions"], {**undo, "action_id": 33}]},
                      "undo 100: no action of the log has the id 33")
    assert len(loads_both_ways({**gapped, "actions": [*gapped["actions"], {**undo, "action_id": 36}]}).actions) == 31
    redo = {"type": "redo", "entity": player, "entity_type": "player", "id": 101}
    refused_both_ways({**cut, "actions": [*cut["actions"], redo]}, "redo 101: there is no undo to redo")
    refused_both_ways({**cut, "actions": [*cut["actions"], undo, {**cut["actions"][-1], "id": 101},
                                          {**redo, "id": 102}]}, "redo 102")  # a move closed the undo
    assert len(loads_both_ways({**cut, "actions": [*cut["actions"], undo, redo]}).actions) == 60


def test_an_undo_may_name_its_action_by_a_float_equal_to_its_id():
    """18xx.games finds action 36 for `action_id: 36.0` (and undoes everything for 0.0), as it compares numbers;
    a float no id equals is no action's."""
    log = finished_log()
    player = log["players"][0]["id"]
    cut = {**log, "actions": log["actions"][:60], "result": None, "game_end_reason": None}
    undo = {"type": "undo", "entity": player, "entity_type": "player", "id": 100}
    for target, kept in ((36, 36), (36.0, 36), (0.0, 0)):
        game = loads_both_ways({**cut, "actions": [*cut["actions"], {**undo, "action_id": target}]})
        assert [a["id"] for a in game.actions] == [a["id"] for a in cut["actions"][:kept]]
    refused_both_ways({**cut, "actions": [*cut["actions"], {**undo, "action_id": 36.5}]}, "36.5 is not an action id")


def log_line(entity, entity_type="player", **more):
    return {"type": "log", "entity": entity, "entity_type": entity_type, "message": "Ann agrees", **more}


def test_a_log_line_is_a_move_that_changes_nothing():
    """18xx.games' `log` action (a line a player adds to the game's log; its chat step takes it as it takes
    `message`): only from a player, with its text; it changes nothing in the game, but undo counts it as a move
    (an undo takes it back, it ends what a redo could bring back), it is refused once the game is over, and it
    stays in the log as written."""
    log = finished_log()
    first, second = log["players"][0]["id"], log["players"][1]["id"]
    cut = {**log, "actions": log["actions"][:60], "result": None, "game_end_reason": None}
    line = log_line(second, created_at=1612930079, user=first)
    plain = load_18xx(with_actions(cut))  # its ids numbered as with_actions numbers them
    game = loads_both_ways(with_actions(cut, line))
    assert game.summary() == plain.summary()
    assert game.actions[-1] == {**line, "id": 61} and game.to_18xx()["actions"][-1] == {**line, "id": 61}
    undo = {"type": "undo", "entity": first, "entity_type": "player"}
    redo = {"type": "redo", "entity": first, "entity_type": "player"}
    taken_back = loads_both_ways(with_actions(cut, line, undo))
    assert taken_back.actions == plain.actions and taken_back.summary() == plain.summary()
    refused_both_ways(with_actions(cut, undo, line, redo), "there is no undo to redo")
    assert loads_both_ways(with_actions(cut, undo, chat(first), redo)).summary() == plain.summary()  # chat does not
    game.undo()
    assert game.actions == plain.actions
    refused_both_ways(with_actions(cut, log_line("PRR", "corporation")), "only players write")
    refused_both_ways(with_actions(cut, {k: v for k, v in line.items() if k != "message"}), "message is missing")
    refused_both_ways(with_actions(log, log_line(first)), "the game is over")


@pytest.mark.parametrize("name, at, field", [("16281", 118, "loan"), ("16281", 290, "loan"),
                                             ("random/stations_over_limit", 412, "slot")])
def test_a_loan_or_a_station_removed_must_be_named(name, at, field):
    """1817: 18xx.games refuses take_loan and payoff_loan without their `loan`, remove_token without its `slot`
    (its engine requires them), and a loan the game does not have; the engine took the next loan or slot 0."""
    log = json.loads((FINISHED.parent.parent / "1817" / f"{name}.json").read_text())
    cut = {**log, "actions": log["actions"][:at + 1], "result": None, "game_end_reason": None}
    action = cut["actions"][at]
    assert field in action
    loads_both_ways(cut)
    without = {k: v for k, v in action.items() if k != field}
    refused_both_ways({**cut, "actions": [*cut["actions"][:at], without]}, f"{field} is missing")
    if field == "loan":
        refused_both_ways({**cut, "actions": [*cut["actions"][:at], {**action, "loan": 70}]},
                          "there is no loan 70: the game's loans are numbered 0 to 69")
        # any loan of the game names the next one lent, as on 18xx.games
        assert load_18xx({**cut, "actions": [*cut["actions"][:at], {**action, "loan": 69}]}).summary() == \
            load_18xx(cut).summary()
