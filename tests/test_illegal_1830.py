"""1830: illegal moves are refused with a message naming the rule, and leave the game exactly as it was.

Every case starts from a real position: an 18xx.games fixture replayed up to an action id (upto=0 is
the fresh game). The illegal action must raise GameError whose message contains the key words of the
broken rule; afterwards summary(), the map and the action log are unchanged and the fixture's own next
action still applies.

Cases marked xfail(raises=UnclearMessage) are refused correctly (state untouched) but with a message
that doesn't name the rule (e.g. "can't sell shares now: first buy, sell or pass" for a sale in the
first stock round); the words asserted are what the message should say.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
from refusals import assert_russian

from engine import GameError
from engine.core.actions import resolve_undo
from engine.titles import load_18xx

FIXTURES = Path(__file__).parent / "fixtures" / "1830"
G = "26855"  # 4 players: 1627 "Player 1", 82 "Player 2", 117 "Player 3", 330 "Player 4"
BANK = "1830_game_end_bank"  # 3 players: 15698 "Player 1", 13430 "Player 2", 15688 "Player 3"


class UnclearMessage(AssertionError):
    """Refused, state intact, but the message doesn't name the broken rule."""


class WronglyAccepted(AssertionError):
    """The engine applied an illegal action."""


# --- positions ------------------------------------------------------------------------------------
@cache
def _log(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text())


@cache
def _position(name: str, upto: int | None) -> bytes:
    return pickle.dumps(load_18xx(_log(name), upto=upto))


def position(name: str, upto: int | None):
    """The game after fixture action `upto`: a private copy (each position is replayed once, then unpickled)."""
    return pickle.loads(_position(name, upto))


def next_fixture_action(name: str, upto: int | None) -> dict | None:
    if upto is None:
        return None
    for action in resolve_undo(_log(name)["actions"]):
        if action.get("id", 0) > upto and action["type"] != "message":
            return action
    return None


def map_state(game) -> dict:
    return {coord: (h.tile.id, h.tile.rotation) for coord, h in game.hexmap.hexes.items()}


# --- action builders ------------------------------------------------------------------------------
def P(pid: int, kind: str, /, **fields) -> dict:
    return {"type": kind, "entity": pid, "entity_type": "player", **fields}


def C(sym: str, kind: str, /, **fields) -> dict:
    return {"type": kind, "entity": sym, "entity_type": "corporation", **fields}


def K(sym: str, kind: str, /, **fields) -> dict:
    return {"type": kind, "entity": sym, "entity_type": "company", **fields}


def route(train: str, connections: list[list[str]], revenue: int | None = None) -> dict:
    out: dict = {"train": train, "connections": connections}
    if revenue is not None:
        out["revenue"] = revenue
    return out


@dataclass
class Case:
    id: str
    fixture: str
    upto: int | None
    action: dict
    words: list[str]
    unclear: str | None = None  # why the current message is unclear (marks the case xfail)
    accepted: str | None = None  # why the engine wrongly accepts it (marks the case xfail)
    follow: dict | None = field(default=None)  # legal action to apply afterwards (default: the fixture's next)


CASES = [
    # --- private auction --------------------------------------------------------------------------
    Case("auction-bid-below-minimum", G, 0, P(1627, "bid", company="CA", price=160), ["at least", "$165"]),
    Case("auction-raise-too-small", G, 1, P(82, "bid", company="CA", price=166), ["at least", "$170"]),
    Case("auction-bid-over-cash-set-aside", G, 8, P(1627, "bid", company="MH", price=440),
         ["$435", "set aside", "$440"]),
    Case("auction-cheapest-at-wrong-price", G, 0, P(1627, "bid", company="SV", price=25),
         ["cheapest", "$20", "not $25"]),
    Case("auction-bid-on-sold-private", G, 6, P(117, "bid", company="SV", price=25), ["SV", "not for sale"]),
    Case("auction-out-of-turn", G, 0, P(82, "bid", company="CA", price=165), ["not Player 2's turn", "Player 1"]),
    Case("auction-out-of-turn-among-bidders", G, 12, P(330, "bid", company="MH", price=150),
         ["not Player 4's turn", "Player 1"]),
    Case("auction-other-private-during-auction", G, 12, P(1627, "bid", company="CA", price=220),
         ["auction for MH", "finish first"]),
    Case("bo-par-non-par-price", G, 26, P(82, "par", corporation="B&O", share_price="71,0,2"),
         ["not a par price", "$100", "$67"]),
    Case("bo-par-wrong-corporation", G, 26, P(82, "par", corporation="PRR", share_price="100,0,6"),
         ["par price of B&O", "not PRR"]),
    Case("bo-par-by-another-player", G, 26, P(117, "par", corporation="B&O", share_price="100,0,6"),
         ["not Player 3's turn", "Player 2"]),
    # --- stock round ------------------------------------------------------------------------------
    Case("sr-sell-in-first-stock-round", G, 38, P(82, "sell_shares", shares=["NYNH_1"], percent=10),
         ["first stock round"]),
    Case("sr-buy-twice-in-one-turn", G, 73, P(330, "buy_shares", shares=["NYC_8"], percent=10),
         ["already bought"]),
    Case("sr-buy-back-share-sold-this-round", G, 118, P(330, "buy_shares", shares=["PRR_2"], percent=10),
         ["sold PRR this round"]),
    Case("sr-exceed-cert-limit", BANK, 397, P(13430, "buy_shares", shares=["NYC_8"], percent=10),
         ["certificate limit", "20"]),
    Case("sr-par-at-cert-limit", BANK, 397, P(13430, "par", corporation="CPR", share_price="67,5,6"),
         ["certificate limit"]),
    Case("sr-exceed-60-percent", G, 85, P(117, "buy_shares", shares=["NYC_8"], percent=10),
         ["60%", "NYC"]),
    Case("sr-pool-over-50-percent", G, 116, P(330, "sell_shares", shares=["NYC_6"], percent=10),
         ["market", "50%", "NYC"]),
    Case("sr-dump-presidency-nobody-at-20", G, 72,
         P(330, "sell_shares", shares=["PRR_0", "PRR_2", "PRR_4", "PRR_5"], percent=50),
         ["presidency", "PRR", "20%"]),
    Case("sr-sell-wrong-percent", G, 72, P(330, "sell_shares", shares=["PRR_2"], percent=20),
         ["can't sell 20%", "PRR"]),
    Case("sr-buy-presidents-certificate", G, 27, P(117, "buy_shares", shares=["PRR_0"], percent=20),
         ["president's certificate", "par price"]),
    Case("sr-buy-certificate-another-player-holds", G, 72, P(330, "buy_shares", shares=["NYC_1"], percent=10),
         ["not for sale", "Player 3"]),
    Case("sr-par-already-parred", G, 28, P(330, "par", corporation="NYC", share_price="67,5,6"),
         ["NYC", "already has a par price"]),
    Case("sr-par-non-par-price", G, 28, P(330, "par", corporation="PRR", share_price="71,0,2"),
         ["not a par price"]),
    Case("sr-par-when-broke", G, 42, P(82, "par", corporation="ERIE", share_price="67,5,6"),
         ["can't pay", "$134"]),
    Case("sr-buy-when-broke", G, 82, P(1627, "buy_shares", shares=["NYC_8"], percent=10),
         ["can't pay", "$67"]),
    Case("sr-sell-shares-not-owned", G, 72, P(330, "sell_shares", shares=["NYC_1"], percent=10),
         ["doesn't hold", "NYC_1"]),
    Case("sr-out-of-turn", G, 72, P(1627, "buy_shares", shares=["NYNH_5"], percent=10),
         ["not Player 1's turn", "Player 4"]),
    Case("sr-unknown-certificate", G, 28, P(330, "buy_shares", shares=["NYC_9"], percent=10),
         ["no certificate", "NYC_9"]),
    Case("sr-par-unknown-corporation", G, 28, P(330, "par", corporation="XYZ", share_price="67,5,6"),
         ["no corporation", "XYZ"]),
    # --- MH exchange ------------------------------------------------------------------------------
    Case("mh-exchange-for-other-corporation", G, 72, K("MH", "buy_shares", shares=["PRR_7"], percent=10),
         ["MH", "exchanged", "PRR_7"]),
    Case("mh-exchange-for-nyc-president", G, 72, K("MH", "buy_shares", shares=["NYC_0"], percent=20),
         ["MH", "exchanged", "NYC_0"]),
    Case("mh-exchange-after-sold-to-corporation", G, 111, K("MH", "buy_shares", shares=["NYC_8"], percent=10),
         ["MH", "PRR", "player"]),
    # --- operating round: track -------------------------------------------------------------------
    Case("or-lay-on-hex-blocked-by-private", G, 59, C("NYC", "lay_tile", hex="D18", tile="9-0", rotation=0),
         ["D18", "blocked"]),
    Case("or-lay-unconnected", G, 59, C("NYC", "lay_tile", hex="G3", tile="9-0", rotation=0),
         ["G3", "no route"]),
    Case("or-lay-green-in-phase-2", G, 59, C("NYC", "lay_tile", hex="E19", tile="15-0", rotation=0),
         ["green", "phase"]),
    Case("or-upgrade-loses-track", G, 103, C("PRR", "lay_tile", hex="H14", tile="29-0", rotation=0),
         ["H14", "keep the existing track"]),
    Case("or-upgrade-rotation-loses-track", G, 103, C("PRR", "lay_tile", hex="H14", tile="24-0", rotation=0),
         ["rotation 0", "keep the existing track"]),
    Case("or-rotation-out-of-range", G, 59, C("NYC", "lay_tile", hex="E19", tile="57-0", rotation=7),
         ["rotation", "0 to 5"]),
    Case("or-rotation-off-the-map", G, 89, C("NYNH", "lay_tile", hex="F22", tile="57-1", rotation=0),
         ["rotation 0", "off the map", "F22"]),
    Case("or-tile-not-in-supply", G, 89, C("NYNH", "lay_tile", hex="F22", tile="1-0", rotation=0),
         ["no copy", "tile 1"]),
    Case("or-unknown-tile", G, 59, C("NYC", "lay_tile", hex="E19", tile="999-0", rotation=0), ["no tile 999-0"]),
    Case("or-unknown-hex", G, 59, C("NYC", "lay_tile", hex="Z99", tile="57-0", rotation=0), ["no hex Z99"]),
    Case("or-lay-twice", G, 60, C("NYC", "lay_tile", hex="E21", tile="7-0", rotation=0),
         ["already", "track"]),
    Case("or-terrain-cost-unaffordable", G, 191, C("NYC", "lay_tile", hex="E17", tile="7-1", rotation=3),
         ["$30", "$120", "E17"]),
    # --- operating round: stations ----------------------------------------------------------------
    Case("or-token-full-city", G, 90, C("NYNH", "place_token", city="57-0-0", slot=0), ["taken by NYC"]),
    Case("or-token-unreachable", G, 90, C("NYNH", "place_token", city="D14-0-0", slot=0), ["can't reach", "D14"]),
    Case("or-second-token-in-hex", G, 316, C("ERIE", "place_token", city="59-0-1", slot=0),
         ["already has a token", "E11"]),
    Case("or-token-none-left", G, 182, C("NYNH", "place_token", city="D14-0-0", slot=0),
         ["no station tokens left"]),
    Case("or-token-no-money", G, 194, C("NYC", "place_token", city="57-1-0", slot=0),
         ["$30", "can't pay"]),
    # --- operating round: routes and dividends ----------------------------------------------------
    Case("or-run-train-twice", G, 91,
         C("NYNH", "run_routes", routes=[route("2-2", [["G19", "F20"]]), route("2-2", [["F22", "F24"]])]),
         ["2-2", "already run"]),
    Case("or-run-train-not-owned", G, 91, C("NYNH", "run_routes", routes=[route("2-0", [["G19", "F20"]])]),
         ["doesn't own", "2-0"]),
    Case("or-route-without-station", G, 205, C("B&M", "run_routes", routes=[route("4-1", [["F22", "F20"]])]),
         ["station of B&M"]),
    Case("or-route-too-long", G, 91,
         C("NYNH", "run_routes", routes=[route("2-2", [["G19", "F20"], ["F20", "F22"]])]),
         ["3 stops", "too many", "2-train"]),
    Case("or-route-wrong-revenue", G, 91, C("NYNH", "run_routes", routes=[route("2-2", [["G19", "F20"]], 60)]),
         ["2-2", "$50", "not $60"]),
    Case("or-route-hexes-not-neighbours", G, 91, C("NYNH", "run_routes", routes=[route("2-2", [["G19", "F24"]])]),
         ["G19", "F24", "connected"]),
    Case("or-dividend-before-running", G, 91, C("NYNH", "dividend", kind="payout"), ["run its trains"]),
    Case("or-dividend-unknown-kind", G, 92, C("NYNH", "dividend", kind="half"),
         ["pay out or withhold", "not half"]),
    # --- operating round: trains ------------------------------------------------------------------
    Case("or-buy-train-not-yet-available", G, 60, C("NYC", "buy_train", train="3-0", price=180),
         ["3-0", "isn't for sale yet"]),
    Case("or-buy-train-wrong-price", G, 60, C("NYC", "buy_train", train="2-0", price=70), ["costs $80", "not $70"]),
    Case("or-buy-train-over-limit", G, 102, C("NYC", "buy_train", train="2-1", price=10),
         ["limit"]),
    Case("or-pass-when-must-buy-train", G, 68, C("NYNH", "pass"), ["must buy"]),
    Case("or-discard-train-not-owned", G, 267, C("B&O", "discard_train", train="4-1"),
         ["doesn't own", "4-1"]),
    Case("or-discard-by-corp-under-limit", G, 267, C("B&M", "discard_train", train="4-1"),
         ["not B&M's turn", "B&O"]),
    Case("or-corporation-sells-shares-in-emergency", G, 571,
         C("C&O", "sell_shares", shares=["ERIE_3"], percent=10), ["president sells"]),
    # --- operating round: privates ----------------------------------------------------------------
    Case("or-buy-private-in-phase-2", G, 60, C("NYC", "buy_company", company="CS", price=40),
         ["phase"]),
    Case("or-buy-bo-no-buy", G, 110, C("PRR", "buy_company", company="BO", price=220), ["BO", "corporation"]),
    Case("or-buy-private-above-double", G, 110, C("PRR", "buy_company", company="MH", price=230),
         ["$55 to $220"]),
    Case("or-buy-private-below-half", G, 110, C("PRR", "buy_company", company="MH", price=50),
         ["$55 to $220"]),
    Case("or-private-ability-by-player-owned", G, 59, K("CS", "lay_tile", hex="B20", tile="9-0", rotation=0),
         ["not CS's turn", "NYC"]),
    Case("or-private-ability-out-of-owners-turn", G, 215, K("DH", "lay_tile", hex="F16", tile="9-1", rotation=0),
         ["not DH's turn", "PRR"]),
    Case("or-bankrupt-when-solvent", G, 60, C("NYC", "bankrupt"), ["can't declare bankruptcy", "president"]),
    # --- whole game / malformed -------------------------------------------------------------------
    Case("game-over", G, None, P(1627, "pass"), ["game is over"]),
    Case("unknown-action-type", G, 0, {"type": "fly", "entity": 1627, "entity_type": "player"},
         ["unknown action type", "fly"]),
    Case("malformed-field", G, 0, P(1627, "bid", company="SV", price="lots"), ["malformed bid", "price"]),
    Case("missing-entity", G, 0, {"type": "bid", "company": "SV", "price": 20}, ["malformed bid", "entity"]),
    Case("unknown-player", G, 0, P(999, "bid", company="SV", price=20), ["no player 999"]),
    Case("unknown-entity-type", G, 28, {"type": "pass", "entity": "NYC", "entity_type": "train"},
         ["unknown entity type", "train"]),
    Case("action-id-not-increasing", G, 28, {**P(117, "pass"), "id": 5}, ["5", "not after 28"]),
]


def _param(case: Case):
    marks = []
    if case.accepted:
        marks.append(pytest.mark.xfail(strict=True, raises=WronglyAccepted, reason=case.accepted))
    elif case.unclear:
        marks.append(pytest.mark.xfail(strict=True, raises=UnclearMessage, reason="unclear message: " + case.unclear))
    return pytest.param(case, id=case.id, marks=marks)


def test_enough_cases():
    assert len({c.id for c in CASES}) == len(CASES) >= 45


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_illegal_move_is_refused(case: Case):
    game = position(case.fixture, case.upto)
    before = game.summary()
    before_map = map_state(game)
    n_actions = len(game.actions)
    legal = game.legal_actions()
    assert case.action not in legal, "the 'illegal' action is listed as legal"

    try:
        game.apply(case.action)
    except GameError as e:
        message = str(e)
        assert_russian(e)
    else:
        raise WronglyAccepted(f"accepted: {case.action}")

    # nothing changed
    assert game.summary() == before
    assert map_state(game) == before_map
    assert len(game.actions) == n_actions
    assert game.legal_actions() == legal

    # and the game goes on: the fixture's own next action still applies
    follow = case.follow or next_fixture_action(case.fixture, case.upto)
    if follow is not None:
        game.apply(follow)
        assert len(game.actions) == n_actions + 1

    missing = [w for w in case.words if w.lower() not in message.lower()]
    if missing:
        raise UnclearMessage(f"message {message!r} lacks {missing}")
