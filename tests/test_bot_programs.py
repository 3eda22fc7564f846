"""Standing orders (/auto): members program passes and buys; the engine plays them at their turns.

The recorded game with programs is played through the bot's service: members send their /auto orders
and their own moves, never the automatic ones, and the game still ends exactly as on 18xx.games.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakediscord.play import session_1830, started_game

from bot.access import Caller
from bot.db import Database
from bot.errors import UserError
from bot.families.g18xx import G18xx
from bot.families.g18xx.commands import AUTO_MODES
from bot.service import Service
from bot.session import Engine
from engine.core.actions import resolve_undo
from i18n import speaking

LOG = json.loads((Path(__file__).parent / "fixtures" / "1830" / "1830_game_end_bank.json").read_text())


def controller(game, action: dict) -> int:
    if action["entity_type"] == "player":
        return int(action["entity"])
    if action["entity_type"] == "corporation":
        return game.corporation(action["entity"]).owner.id
    owner = game.company(action["entity"]).owner
    return owner.id if hasattr(owner, "id") else owner.owner.id


async def test_standing_orders_play_a_recorded_game(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        service = Service(db, Engine(), pictures=False)
        members = {int(p["id"]): 1000 + i for i, p in enumerate(LOG["players"])}
        row, _ = await service.import_game(Caller(1000), dict(LOG, actions=[]),
                                           [(members[int(p["id"])], f"P{p['id']}") for p in LOG["players"]])
        automatic = 0
        for action in resolve_undo(LOG["actions"]):
            game = (await service.live(row.id)).game
            member = members[controller(game, action)]
            kind, options = G18xx.command_for({k: v for k, v in action.items() if k != "auto_actions"})
            reply = await service.act(row.id, Caller(member), kind, options)
            if reply.private:  # a pass that ends the stock round is shown first
                reply = await service.confirm(row.id, Caller(member), int(reply.buttons[0].split(":")[1]), True)
            automatic += "automatically" in reply.text
        game = (await service.live(row.id)).game
        assert game.finished and game.result() == LOG["result"] and game.end_reason == LOG["game_end_reason"]
        assert automatic >= 10


def test_auto_command_builds_each_program():
    session, auto = session_1830(), G18xx.commands["auto"]

    def build(options):
        return auto.build(session, options, 1, None)

    assert build({"mode": "pass"})["type"] == "program_share_pass"
    assert build({"mode": "pass-always"})["indefinite"] is True
    order = build({"mode": "buy", "corporation": "nyc", "until": "3", "then_pass": "yes"})
    assert (order["type"], order["corporation"], order["until_condition"], order["auto_pass_after"]) == \
        ("program_buy_shares", "NYC", 3, True)
    assert build({"mode": "off"})["type"] == "program_disable"


def test_auto_command_autocomplete():
    session, auto = session_1830(), G18xx.commands["auto"]
    legal = [{"type": "buy_shares", "entity": 1, "entity_type": "player", "shares": ["NYC_3"], "percent": 10},
             {"type": "par", "entity": 1, "entity_type": "player", "corporation": "PRR", "share_price": "67,5,6"}]
    # 1830 has no merger rounds: no merger pass offered; its opening auction takes auction orders
    assert [v for _, v in auto.choices(session, "mode", {}, legal)] == [m for m in AUTO_MODES if m != "merger-pass"]
    assert [v for _, v in auto.choices(session, "corporation", {"mode": "buy"}, legal)] == ["NYC", "PRR"]


def test_auction_orders_are_offered_for_the_privates_on_sale_and_built_as_the_engine_takes_them():
    session, auto = session_1830(), G18xx.commands["auto"]
    assert [v for _, v in auto.choices(session, "private", {"mode": "auction"}, [])] == \
        ["SV", "CS", "DH", "MH", "CA", "BO"]
    assert [label for label, _ in auto.choices(session, "private", {"mode": "auction"}, [])][:2] == \
        ["SV: lowest bid $20 now", "CS: lowest bid $45 now"]
    assert [v for _, v in auto.choices(session, "max", {"mode": "auction", "private": "mh"}, [])] == \
        [115, 125, 135, 165, 215]
    order = auto.build(session, {"mode": "auction", "private": "mh", "max": 150}, 1, None)
    assert order == {"entity_type": "player", "entity": None, "type": "program_auction_bid", "bid_target": "MH",
                     "enable_maximum_bid": True, "maximum_bid": 150, "enable_buy_price": False, "buy_price": 0,
                     "auto_pass_after": False}
    order = auto.build(session, {"mode": "auction", "private": "SV", "buy_at": 10, "then_pass": "yes"}, 1, None)
    assert (order["enable_buy_price"], order["buy_price"], order["enable_maximum_bid"], order["auto_pass_after"]) == \
        (True, 10, False, True)
    assert auto.options_for(order) == {"mode": "auction", "private": "SV", "buy_at": 10, "then_pass": "yes"}


@pytest.mark.parametrize("options, message", [
    ({"private": "XX", "max": 150}, "Name the private to buy or bid on"),
    ({"private": "MH"}, "one of the two"),
    ({"private": "MH", "max": 150, "buy_at": 110}, "one of the two"),
    ({"private": "MH", "max": 100}, r"The lowest bid on MH is \$115 now"),
])
def test_auction_orders_refuse_what_would_not_work(options, message):
    session, auto = session_1830(), G18xx.commands["auto"]
    with pytest.raises(UserError, match=message):
        auto.build(session, {"mode": "auction", **options}, 1, None)


def test_no_auction_orders_once_the_auction_is_over():
    session, auto = session_1830(), G18xx.commands["auto"]
    for pid, sym, price in [(1, "SV", 20), (2, "CS", 40), (3, "DH", 70), (1, "MH", 110), (2, "CA", 160),
                            (3, "BO", 220)]:
        session.game.apply({"type": "bid", "entity": pid, "entity_type": "player", "company": sym, "price": price})
    assert "auction" not in [v for _, v in auto.choices(session, "mode", {}, [])]
    with pytest.raises(UserError, match="No private is on sale in an auction now"):
        auto.build(session, {"mode": "auction", "private": "MH", "max": 150}, 1, None)


async def test_an_auction_order_is_told_and_played(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        service = Service(db, Engine(), pictures=False)
        gid, callers = await started_game(service)
        by_member = {c.member_id: c for c in callers.values()}
        member_of = {s.player_id: s.member_id for s in await db.seats(gid)}
        game = (await service.live(gid)).game
        first, second = (by_member[member_of[p.id]] for p in game.players[:2])
        reply = await service.act(gid, second, "auto", {"mode": "auction", "private": "MH", "max": "120"})
        assert "will bid on MH at each turn, the least allowed, up to $120" in reply.text
        assert "the order stops once the price passes $120" in reply.text
        reply = await service.act(gid, first, "pass", {})
        assert f"automatically: {second.name} bids $115 on MH" in reply.text


def _act(entity, kind, **fields):
    return {"type": kind, "entity": entity, "entity_type": "player", **fields}


def _auctioned(session):
    """1830's opening auction played out (Ann, Bob, Cid: 1, 2, 3), Cid's B&O parred at $67: Ann is to act."""
    for pid, sym, price in [(1, "SV", 20), (2, "CS", 40), (3, "DH", 70), (1, "MH", 110), (2, "CA", 160),
                            (3, "BO", 220)]:
        session.apply(_act(pid, "bid", company=sym, price=price))
    session.apply(_act(3, "par", corporation="B&O", share_price="67,5,6"))


def _stock_round_1(session):
    """1830's first stock round after the auction: Ann (1) has parred NYC at $67; Bob (2) is to act."""
    _auctioned(session)
    session.apply(_act(1, "par", corporation="NYC", share_price="67,5,6"))
    assert session.game.active_players() == [2]


def _buy_order(player, until, then_pass):
    return _act(player, "program_buy_shares", corporation="NYC", until_condition=until, from_market=False,
                auto_pass_after=then_pass)


def test_a_buy_order_acting_at_once_is_shown_before_it_is_sent_with_the_round_its_pass_ends():
    """Bob's order to buy NYC until he holds a share, then pass, acts at once: it buys now, Cid's and Ann's
    orders pass, and its own pass then ends the stock round; the preview tells all of it before the Confirm,
    and the order's message that it passes once done."""
    session, names = session_1830(), {1: "Ann", 2: "Bob", 3: "Cid"}
    _stock_round_1(session)
    order = _buy_order(2, 2, True)
    assert session.confirmation(order, names) == "If this order acts now: Bob buys 10% of NYC; Bob pays $67"
    for pid in (3, 1):
        session.apply(_act(pid, "program_share_pass", unconditional=True, indefinite=False))
    order = _buy_order(2, 1, True)
    text = session.confirmation(order, names)
    assert text.startswith("If this order acts now: Bob buys 10% of NYC, Cid passes, Ann passes, Bob's standing "
                           "order stops (1 share(s) bought in NYC, end condition met), Bob will pass "
                           "automatically, Bob passes; Stock Round 1 ends; Cid gets the priority deal; "
                           "Operating Round 1.1 (of 1) begins; "), text
    # Bob's privates' income at the round's end (CS $10, CA $25) is told apart from what he pays for the share
    assert "CS $10 to Bob" in text and "CA $25 to Bob" in text and text.endswith("; Bob pays $67"), text
    with speaking("ru"):
        assert session.confirmation(order, names).endswith("; Bob платит $67")
    told = session.describe(session.apply(order), names)
    assert told.startswith("Bob will buy a NYC share each turn until holding 1 shares, then pass for the rest of "
                           "that stock round; automatically: Bob buys 10% of NYC, "), told
    assert session.game.round.description == "Stock Round 2"  # as previewed: no corporation operated


def test_a_standing_orders_stop_reason_is_told_in_the_tables_language():
    """The engine logs why an order stops in 18xx.games' English (`end condition met`): a Russian table reads it
    in Russian, in the preview and in the move's message, and so it does a reason from an imported log."""
    from bot.families.g18xx.commands import describe_auto
    from bot.families.g18xx.words import Words

    session, names = session_1830(), {1: "Ann", 2: "Bob", 3: "Cid"}
    _stock_round_1(session)
    for pid in (3, 1):
        session.apply(_act(pid, "program_share_pass", unconditional=True, indefinite=False))
    order = _buy_order(2, 1, True)
    with speaking("ru"):
        text = session.confirmation(order, names)
        told = session.describe(session.apply(order), names)
        logged = describe_auto(Words(session.game.facts(), names), _act(1, "program_disable", reason="Shares were sold"))
    for said in (text, told):
        assert "постоянный приказ Bob прекращается (куплено акций NYC: 1, условие выполнено)" in said, said
        assert "end condition" not in said
    assert logged == "постоянный приказ Ann прекращается (были проданы акции)"


def test_a_buy_order_that_floats_its_corporation_at_once_says_so_and_one_not_acting_now_is_sent_at_once():
    session, names = session_1830(), {1: "Ann", 2: "Bob", 3: "Cid"}
    _stock_round_1(session)
    for pid, share in [(2, "NYC_1"), (3, "NYC_2"), (1, "NYC_3"), (2, "B&O_1"), (3, "B&O_2")]:
        session.apply(_act(pid, "buy_shares", shares=[share], percent=10))
    # 50% of NYC sold: Ann's order to buy until NYC floats buys its 60th percent now
    assert session.confirmation(_buy_order(1, "float", False), names) == \
        "If this order acts now: Ann buys 10% of NYC; NYC floats with $670; Ann pays $67"
    assert session.confirmation(_buy_order(2, "float", True), names) is None  # not Bob's turn: nothing at once


def test_an_order_for_stock_rounds_set_outside_one_says_when_it_acts():
    """Set in an operating round, as on 18xx.games, an order to pass always acts from the next stock round on;
    one for a stock round only (a pass or a buy) lasts only into a stock round that comes next."""
    session, names = session_1830(), {1: "Ann", 2: "Bob", 3: "Cid"}
    _auctioned(session)
    for pid, n in [(1, 1), (2, 2), (3, 3), (1, 4)]:
        session.apply(_act(pid, "buy_shares", shares=[f"B&O_{n}"], percent=10))
    for pid in (2, 3, 1):
        session.apply(_act(pid, "pass"))
    assert session.game.round.description == "Operating Round 1.1 (of 1)"
    told = session.describe(session.apply(_act(1, "program_share_pass", unconditional=False, indefinite=True)),
                            names)
    assert told == "Ann will pass automatically in every stock round, from the next one on"
    told = session.describe(session.apply(_act(2, "program_share_pass", unconditional=False, indefinite=False)),
                            names)
    assert told == ("Bob will pass automatically in the next stock round if it is the round after Operating Round "
                    "1.1 (of 1); otherwise the order ends when the next round begins (`/auto pass-always` passes "
                    "in every stock round)")
    told = session.describe(session.apply(_buy_order(3, 7, True)), names)
    assert told == ("Cid will buy a NYC share each turn until holding 7 shares, then pass for the rest of that "
                    "stock round; it acts from the next stock round if it is the round after Operating Round 1.1 "
                    "(of 1); otherwise the order ends when the next round begins")
    with speaking("ru"):
        told = session.describe(session.apply(_buy_order(3, 7, True)), names)
    assert "Операционный раунд 1.1 (из 1)" in told and "{" not in told, told
    # the next round is the stock round: Bob's and Ann's orders pass there (Cid's stops: NYC is not parred)
    session.apply({"type": "pass", "entity": "B&O", "entity_type": "corporation"})
    while session.game.round.operating:
        action = next(a for a in session.legal() if a["type"] in ("pass", "run_routes", "dividend"))
        stored = session.apply(action).action
    assert session.game.round.stock and [p.id for p in session.game.players] == [2, 3, 1]
    assert [(a["type"], a["entity"]) for a in stored["auto_actions"]] == [("pass", 2), ("program_disable", 3)]
    stored = session.apply(_act(3, "pass")).action
    assert [(a["type"], a["entity"]) for a in stored["auto_actions"]] == [("pass", 1)]
