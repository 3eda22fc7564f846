"""Auction programs (program_auction_bid) in the opening waterfall auction act as on 18xx.games: they buy,
bid, pass or stop themselves with the same auto actions, at the same moments.

Each scenario below is a short log from the start of a 4-player 1830 game; the reference engine accepts each
one with these auto actions regenerated (checked when the scenarios were written), except where said."""

import json
from pathlib import Path

import pytest

from engine.core.errors import GameError
from engine.titles import create_game, load_18xx

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = {1: "P1", 2: "P2", 3: "P3", 4: "P4"}


def act(entity, kind, **fields):
    return {"type": kind, "entity": entity, "entity_type": "player", **fields}


def program(entity, target, maximum=None, buy=None, auto_pass_after=False):
    return act(entity, "program_auction_bid", bid_target=target, enable_maximum_bid=maximum is not None,
               maximum_bid=maximum or 0, enable_buy_price=buy is not None, buy_price=buy or 0,
               auto_pass_after=auto_pass_after)


def new_game(title="1830"):
    return create_game(title, [{"id": i, "name": NAMES[i]} for i in (1, 2, 3, 4)], seed=5)


def autos(stored):
    return [(a["type"], a["entity"], a.get("company"), a.get("price"), a.get("reason"))
            for a in stored.get("auto_actions", [])]


def test_a_program_buys_its_private_once_it_is_the_cheapest_at_its_price_and_stops_once_owned():
    game = new_game()
    assert autos(game.apply(program(2, "CS", buy=40))) == []  # not P2's turn
    assert autos(game.apply(act(1, "bid", company="SV", price=20))) == [("bid", 2, "CS", 40, None)]
    assert game.company("CS").owner is game.player(2)
    for pid in (3, 4):
        game.apply(act(pid, "pass"))
    assert autos(game.apply(act(1, "pass"))) == \
        [("program_disable", 2, None, None, "Champlain & St.Lawrence is owned by P2")]
    assert game.active_players() == [2]


def test_a_program_bids_up_to_its_maximum_then_stops_or_passes_on():
    for auto_pass_after, expected in [
            (False, ("program_disable", 2, None, None, "Price for Mohawk & Hudson exceeded maximum bid")),
            (True, ("pass", 2, None, None, None))]:
        game = new_game()
        game.apply(program(2, "MH", maximum=120, auto_pass_after=auto_pass_after))
        assert autos(game.apply(act(1, "pass"))) == [("bid", 2, "MH", 115, None)]
        game.apply(act(3, "bid", company="MH", price=120))
        game.apply(act(4, "pass"))
        assert autos(game.apply(act(1, "pass"))) == [expected]


def test_a_program_stops_when_its_owner_holds_the_high_bid():
    game = new_game()
    game.apply(act(1, "pass"))
    assert autos(game.apply(program(2, "MH", maximum=200))) == [("bid", 2, "MH", 115, None)]
    game.apply(act(3, "pass"))
    game.apply(act(4, "pass"))
    assert autos(game.apply(act(1, "pass"))) == \
        [("program_disable", 2, None, None, "P2 is already the high bid on Mohawk & Hudson")]


def test_a_buying_program_stops_once_others_bid_on_its_private_or_passes_on():
    game = new_game()
    game.apply(program(2, "DH", buy=70))
    assert autos(game.apply(act(1, "bid", company="DH", price=75))) == \
        [("program_disable", 2, None, None, "Bids submitted for Delaware & Hudson")]
    game = new_game()
    game.apply(program(2, "DH", buy=70, auto_pass_after=True))
    assert autos(game.apply(act(1, "bid", company="DH", price=75))) == [("pass", 2, None, None, None)]


def test_with_both_a_buy_price_and_a_maximum_a_program_only_buys():
    game = new_game()
    game.apply(program(2, "CS", maximum=100, buy=30, auto_pass_after=True))
    # CS is dearer than the buy price and not the cheapest: no bid, though the maximum would allow one
    assert autos(game.apply(act(1, "pass"))) == [("pass", 2, None, None, None)]


def test_during_an_auction_a_program_for_another_private_bids_on_it_and_the_auction_waits():
    game = new_game()
    game.apply(act(1, "bid", company="CS", price=45))
    game.apply(act(2, "bid", company="CS", price=50))
    game.apply(act(3, "bid", company="SV", price=20))  # CS goes up for auction between P1 and P2
    assert game.active_players() == [1]
    with pytest.raises(GameError, match="the auction for CS must finish first"):
        game.apply(act(1, "bid", company="DH", price=75))  # by hand, only the auctioned private
    assert autos(game.apply(program(1, "DH", maximum=100))) == \
        [("bid", 1, "DH", 75, None), ("program_disable", 1, None, None, "P1 is already the high bid on Delaware & Hudson")]
    assert game.active_players() == [1]
    game.apply(act(1, "pass"))  # leaves the auction of CS
    assert game.company("CS").owner is game.player(2)


def test_amounts_written_as_text_count_as_numbers():
    game = new_game()
    game.apply({**program(2, "MH", maximum=0), "maximum_bid": "120"})
    assert autos(game.apply(act(1, "pass"))) == [("bid", 2, "MH", 115, None)]


def test_a_program_that_could_not_pay_stops():
    # ours: 18xx.games' program would place a bid its engine refuses, again and again, for ever
    game = new_game()
    game.apply(act(1, "pass"))
    game.apply(act(2, "bid", company="BO", price=500))
    game.apply(act(3, "pass"))
    game.apply(act(4, "pass"))
    game.apply(act(1, "pass"))
    assert autos(game.apply(program(2, "MH", maximum=300))) == \
        [("program_disable", 2, None, None, "P2 cannot afford $115 for Mohawk & Hudson")]


def test_auction_programs_end_with_the_auction_round():
    game = new_game()
    game.apply(program(3, "BO", maximum=300, auto_pass_after=True))
    for pid, sym, price in [(1, "SV", 20), (2, "CS", 40)]:
        game.apply(act(pid, "bid", company=sym, price=price))
    assert 3 in game.programs.by_player
    game.apply(act(4, "bid", company="DH", price=70))
    game.apply(act(1, "bid", company="MH", price=110))
    game.apply(act(2, "bid", company="CA", price=160))
    assert game.company("BO").owner is game.player(3)  # P3's program bid 225 on it, the only bid
    assert 3 in game.programs.by_player
    game.apply(act(3, "par", corporation="B&O", share_price="67,5,6"))
    assert game.round.stock and 3 not in game.programs.by_player


def test_a_replayed_log_keeps_its_auction_programs():
    game = new_game()
    game.apply(program(2, "CS", buy=40))
    game.apply(act(1, "bid", company="SV", price=20))
    log = game.to_18xx()
    replayed = load_18xx(log)
    assert replayed.company("CS").owner is replayed.player(2)
    assert replayed.actions == game.actions


@pytest.mark.parametrize("title", ["1860", "1817"])
def test_titles_whose_auction_is_no_waterfall_refuse_auction_programs(title):
    players = [{"id": i, "name": NAMES[i]} for i in (1, 2, 3)]
    game = create_game(title, players, seed=5)
    before = len(game.actions)
    with pytest.raises(GameError, match=f"{title} has no program auction bid"):
        game.apply(act(1, "program_auction_bid", bid_target=game.companies[0].sym, maximum_bid=50, buy_price=0,
                       enable_maximum_bid=True))
    assert len(game.actions) == before


@pytest.mark.parametrize("title", ["1830", "18MEX"])
def test_programs_regenerate_the_auto_actions_of_a_random_auction(title):
    """The opening auction of a random game, whose auto actions the reference engine regenerated alike."""
    log = json.loads((FIXTURES / title / "programs" / "auction.json").read_text())
    game = create_game(title, log["players"], seed=log["settings"]["seed"],
                       optional_rules=log["settings"]["optional_rules"])
    programs = 0
    for action in log["actions"]:
        programs += action["type"] == "program_auction_bid"
        recorded = [{k: v for k, v in a.items() if k != "created_at"} for a in action.get("auto_actions", [])]
        stored = game.apply({k: v for k, v in action.items() if k != "auto_actions"})
        assert stored.get("auto_actions", []) == recorded, action["id"]
    assert programs >= 3


def test_programs_that_would_pass_round_and_round_for_ever_stop():
    # ours: on 18xx.games every player's program would pass on, round after round, without end
    game = create_game("1830", [{"id": i, "name": NAMES[i]} for i in (1, 2, 3)], seed=5)
    game.apply(act(1, "bid", company="SV", price=20))
    game.apply(program(3, "BO", maximum=100, auto_pass_after=True))
    game.apply(program(1, "BO", maximum=100, auto_pass_after=True))
    cash = game.player(1).cash
    stored = game.apply(program(2, "BO", maximum=100, auto_pass_after=True))
    assert autos(stored) == [("pass", 2, None, None, None), ("pass", 3, None, None, None),
                             ("pass", 1, None, None, None), ("pass", 2, None, None, None),
                             ("pass", 3, None, None, None),
                             ("program_disable", 1, None, None, "All players pass by program, the auction would "
                                                                "not end")]
    assert game.player(1).cash == cash + 5  # SV paid its revenue once
    assert game.active_players() == [1]
