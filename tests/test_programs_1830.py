"""Programmed stock-round actions act as on 18xx.games: the same auto actions, at the same moments."""

import json
from pathlib import Path

from engine.core.actions import resolve_undo
from engine.titles import create_game, game_class

BANK_GAME = Path(__file__).parent / "fixtures" / "1830" / "1830_game_end_bank.json"


def key(action: dict) -> tuple:
    return (action["type"], action["entity"], tuple(action.get("shares", ())), action.get("reason"),
            action.get("unconditional"), action.get("indefinite"))


def test_programs_regenerate_every_recorded_auto_action():
    log = json.loads(BANK_GAME.read_text())
    game = game_class("1830")([{"id": p["id"], "name": p["name"]} for p in log["players"]],
                              log["settings"]["seed"], log["settings"]["optional_rules"])
    recorded_total = 0
    for action in resolve_undo(log["actions"]):
        recorded = action.get("auto_actions") or []
        recorded_total += len(recorded)
        stored = game.apply({k: v for k, v in action.items() if k != "auto_actions"})
        assert [key(a) for a in stored.get("auto_actions", [])] == [key(a) for a in recorded], action["id"]
    assert recorded_total > 100
    assert game.result() == log["result"]


def act(entity, kind, **fields):
    return {"type": kind, "entity": entity, "entity_type": "player", **fields}


def stock_round_game():
    game = create_game("1830", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)], seed=3)
    for pid, sym, price in [(1, "SV", 20), (2, "CS", 40), (3, "DH", 70), (1, "MH", 110), (2, "CA", 160),
                            (3, "BO", 220)]:
        game.apply(act(pid, "bid", company=sym, price=price))
    game.apply(act(3, "par", corporation="B&O", share_price="67,5,6"))
    return game


def test_a_programmed_pass_plays_the_players_turns():
    game = stock_round_game()
    assert game.active_players() == [1]
    game.apply(act(2, "program_share_pass", unconditional=False, indefinite=False))
    stored = game.apply(act(1, "buy_shares", shares=["B&O_1"], percent=10))
    assert [(a["type"], a["entity"]) for a in stored["auto_actions"]] == [("pass", 2)]
    assert game.active_players() == [3]


def test_a_corporation_started_by_another_player_stops_a_programmed_pass():
    game = stock_round_game()
    game.apply(act(2, "program_share_pass", unconditional=False, indefinite=False))
    stored = game.apply(act(1, "par", corporation="PRR", share_price="67,5,6"))
    assert [(a["type"], a["entity"], a.get("reason")) for a in stored["auto_actions"]] == \
        [("program_disable", 2, "Corporation PRR parred")]
    assert game.active_players() == [2]


def test_a_programmed_buy_stops_when_the_corporation_floats():
    game = stock_round_game()
    game.apply(act(1, "par", corporation="PRR", share_price="67,5,6"))
    # set on P2's own turn, the program buys at once
    stored = game.apply(act(2, "program_buy_shares", corporation="B&O", until_condition="float",
                            from_market=False, auto_pass_after=False))
    assert [(a["type"], a.get("shares")) for a in stored["auto_actions"]] == [("buy_shares", ["B&O_1"])]
    game.apply(act(3, "buy_shares", shares=["B&O_2"], percent=10))
    stored = game.apply(act(1, "buy_shares", shares=["PRR_2"], percent=10))
    assert [(a["type"], a.get("shares")) for a in stored["auto_actions"]] == [("buy_shares", ["B&O_3"])]
    game.apply(act(3, "buy_shares", shares=["B&O_4"], percent=10))
    assert game.corporation("B&O").floated
    stored = game.apply(act(1, "buy_shares", shares=["PRR_3"], percent=10))
    assert [(a["type"], a.get("reason")) for a in stored["auto_actions"]] == [("program_disable", "B&O is floated")]
    assert game.active_players() == [2]  # P2 plays this turn by hand


def recorded_game(upto: int):
    from engine.titles import load_18xx

    log = json.loads((Path(__file__).parent / "fixtures" / "1830" / "26855.json").read_text())
    game = load_18xx(log, upto=upto)
    game.generate_auto_actions = True
    following = [a for a in resolve_undo(log["actions"]) if a["id"] > upto]
    return game, following


def test_a_sale_switches_off_a_conditional_pass_but_not_an_unconditional_one():
    for unconditional, expected in [(False, [("program_disable", 330, "Shares were sold")]),
                                    (True, [("pass", 330, None)])]:
        game, following = recorded_game(112)  # stock round 3: player 117 sells, pars, then passes
        game.apply(act(330, "program_share_pass", unconditional=unconditional, indefinite=False))
        for action in following[:4]:
            assert action["entity"] == 117
            stored = game.apply({k: v for k, v in action.items() if k != "id"})
        assert [(a["type"], a["entity"], a.get("reason")) for a in stored["auto_actions"]] == expected


def test_every_stop_reason_reads_back_as_the_phrase_it_was_made_from():
    """The log keeps a program's stop reason in 18xx.games' English; the bot reads it back as the engine's
    Phrase with its values, to word it in the table's language: every reason the engine writes, and every one
    in the recorded games (theirs and ours), "user" (its owner stopped it) excepted."""
    import re

    import engine.titles as titles
    from engine.core.errors import Phrase
    from engine.core.programs import MIXED_SIZES, NO_SHARES, STOP_REASONS, stop_reason

    for reason in STOP_REASONS:
        values = {name: f"<{name} 1>" for name in re.findall(r"\{(\w+)\}", reason)}
        read = stop_reason(reason.format(**values))
        assert isinstance(read, Phrase) and read.msgid == reason and read.params == values, reason
    for title in titles.TITLES:
        ipo = titles.rules_class(title).IPO_NAME
        assert ipo in NO_SHARES and ipo in MIXED_SIZES, title
    fixtures = Path(__file__).parent / "fixtures"
    logged = {a["reason"] for path in fixtures.rglob("*.json") if "steam" not in path.parts
              for a in _actions(json.loads(path.read_text())) if a.get("type") == "program_disable"}
    assert len(logged) > 20
    assert all(isinstance(stop_reason(r), Phrase) for r in logged - {"user"}), \
        [r for r in logged - {"user"} if not isinstance(stop_reason(r), Phrase)]
    assert stop_reason("user") == "user"


def _actions(log) -> list[dict]:
    """A log's actions and the automatic ones they led to."""
    actions = log.get("actions", []) if isinstance(log, dict) else []
    return [x for a in actions if isinstance(a, dict) for x in [a, *(a.get("auto_actions") or [])]]
