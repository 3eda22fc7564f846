"""1817 rules beyond what the fixtures show: loans and interest, the private auction with seed money, and
starting a corporation by auction."""

import json
from pathlib import Path

import pytest

from engine.core.actions import resolve_undo
from engine.core.errors import GameError
from engine.core.loans import LoanBank
from engine.titles import REGISTRY, TITLES, create_game, rules_class

FIXTURE = Path(__file__).parent / "fixtures" / "1817" / "15528.json"
PLAYERS = [{"id": i, "name": f"P{i}"} for i in (1, 2, 3, 4)]


def new_game():
    return rules_class("1817")(PLAYERS)


def fixture_upto(action_id: int):
    log = json.loads(FIXTURE.read_text())
    log["actions"] = [a for a in resolve_undo(log["actions"]) if a["id"] <= action_id]
    return rules_class("1817").from_18xx(log)


def test_1817_is_offered_to_players_with_the_volatility_expansion():
    assert REGISTRY["1817"].playable and "1817" in TITLES
    assert create_game("1817", PLAYERS).turn_info()["round"] == "Auction Round"
    assert "volatility" in {sym for sym, _ in REGISTRY["1817"].playable_rules}


def test_interest_rises_five_dollars_for_every_five_loans_out():
    bank = LoanBank.from_constants({"MIN_LOAN": 5, "MAX_LOAN": 70, "LOAN_INTEREST_INCREMENTS": 5,
                                    "LOANS_PER_INCREMENT": 5})
    assert bank.total == 70
    assert [bank.rate_for(n) for n in (0, 1, 5, 6, 10, 11, 65, 66, 70)] == [5, 5, 5, 10, 10, 15, 65, 70, 70]
    bank.taken = 12
    bank.fixed_rate = 10  # fixed at the start of an operating round
    assert bank.rate == 10 and bank.interest(3) == 30
    bank.fixed_rate = None
    assert bank.rate == 15 and bank.left == 58


def test_the_opening_bid_on_a_private_may_be_as_low_as_the_seed_money_allows():
    game = new_game()
    assert game.turn_info()["seed_money"] == 200
    with pytest.raises(GameError, match="steps of \\$5"):
        game.apply({"type": "bid", "entity": 1, "entity_type": "player", "company": "MAJM", "price": 3})
    game.apply({"type": "bid", "entity": 1, "entity_type": "player", "company": "MAJM", "price": 0})
    for pid in (2, 3, 4):
        game.apply({"type": "pass", "entity": pid, "entity_type": "player"})
    # the bank's seed money pays the $120 the bid fell short of face value
    assert game.company("MAJM").owner is game.player(1) and game.player(1).cash == 315
    assert game.round.steps[0].seed_money == 80
    assert {"type": "bid", "entity": 2, "entity_type": "player", "company": "MAIL", "price": 10} \
        in game.legal_actions()  # $90 less the $80 left
    with pytest.raises(GameError, match="at least \\$10"):
        game.apply({"type": "bid", "entity": 2, "entity_type": "player", "company": "MAIL", "price": 5})


def test_bids_go_round_the_players_still_in_and_the_nominator_s_neighbour_nominates_next():
    game = new_game()
    game.apply({"type": "pass", "entity": 1, "entity_type": "player"})
    game.apply({"type": "bid", "entity": 2, "entity_type": "player", "company": "TS", "price": 30})
    assert game.active_players() == [3]
    game.apply({"type": "pass", "entity": 3, "entity_type": "player"})
    game.apply({"type": "bid", "entity": 4, "entity_type": "player", "company": "TS", "price": 40})
    game.apply({"type": "pass", "entity": 1, "entity_type": "player"})
    assert game.active_players() == [2]  # player 3 dropped out and is not asked again; 1 passed on the private
    game.apply({"type": "pass", "entity": 2, "entity_type": "player"})
    assert game.company("TS").owner is game.player(4) and game.player(4).cash == 275
    assert game.active_players() == [3]


def test_everyone_passing_in_a_row_ends_the_sale_and_removes_the_rest():
    game = new_game()
    for pid in (1, 2, 3, 4):
        game.apply({"type": "pass", "entity": pid, "entity_type": "player"})
    assert game.round.name == "Stock Round"
    assert all(c.closed for c in game.companies)
    assert game.active_players() == [1]


def test_starting_a_corporation_by_auction():
    game = fixture_upto(84)  # the first stock round, player 1594 to act
    assert game.round.name == "Stock Round" and game.active_players() == [1594]
    with pytest.raises(GameError, match="may not exceed \\$400"):
        game.apply({"type": "bid", "entity": 1594, "entity_type": "player", "corporation": "H", "price": 405})
    game.apply({"type": "bid", "entity": 1594, "entity_type": "player", "corporation": "H", "price": 160})
    h = game.corporation("H")
    assert game.acting_entity() == {"entity": "H", "entity_type": "corporation"}  # its home city first
    game.apply({"type": "place_token", "entity": "H", "entity_type": "corporation", "city": "H9-2-0", "slot": 0})
    for pid in (3370, 5159, 655):
        game.apply({"type": "pass", "entity": pid, "entity_type": "player"})
    player = game.player(1594)
    # the whole bid is in the treasury; the share price is the market's at or below half of it
    assert h.cash == 160 and h.share_price.price == 80 and h.owner is player
    # privates worth at most the treasury may pay part of the bid
    assert {a["target"] for a in game.legal_actions() if a["type"] == "assign"} == {"OBC", "CM", "TS", "MINM"}
    cash = player.cash
    game.apply({"type": "assign", "entity": 1594, "entity_type": "player", "target": "TS", "target_type": "company"})
    game.apply({"type": "assign", "entity": 1594, "entity_type": "player", "target": "CM", "target_type": "company"})
    assert game.company("CM").owner is h and h.cash == 20 and player.cash == cash + 140
    assert len(h.token_prices) == 2  # the Train Station's extra station
    # nothing more fits in the treasury: the corporation is formed, and the player after the one who started
    # the auction acts next
    assert game.active_players() == [3370]


def test_a_half_pay_keeps_half_and_the_price_moves_by_what_the_shareholders_receive():
    game = fixture_upto(213)  # A&S ran for $60 at a share price of $100
    corp, president = game.corporation("A&S"), game.player(5159)
    assert {a["kind"] for a in game.legal_actions() if a["type"] == "dividend"} == {"payout", "half", "withhold"}
    game.apply({"type": "dividend", "entity": "A&S", "entity_type": "corporation", "kind": "half"})
    assert corp.cash == 20 + 30 and president.cash == 30
    assert corp.share_price.price == 100  # $30 paid is less than the price: no move


def test_withholding_moves_the_price_left():
    game = fixture_upto(213)
    game.apply({"type": "dividend", "entity": "A&S", "entity_type": "corporation", "kind": "withhold"})
    assert game.corporation("A&S").cash == 80 and game.corporation("A&S").share_price.price == 90


def test_after_its_trains_a_corporation_pays_interest_then_may_repay_or_take_loans():
    game = fixture_upto(156)  # Belt, with one loan, has bought a train
    belt = game.corporation("Belt")
    assert belt.loans == 1 and belt.cash == 50
    game.apply({"type": "pass", "entity": "Belt", "entity_type": "corporation"})  # done buying trains
    assert belt.cash == 45  # $5 interest on its loan, the rate fixed for the round
    # $45 can't repay a loan; it may still take one, or pass
    assert {a["type"] for a in game.legal_actions()} == {"take_loan", "pass"}
    game.apply({"type": "take_loan", "entity": "Belt", "entity_type": "corporation", "loan": game.loan_bank.taken})
    assert belt.loans == 2 and belt.cash == 145
    # a loan taken after the interest can't be repaid in the same turn; Belt owes all it may, so its turn ends
    assert game.round.current_entity is game.corporation("H")


def test_a_corporation_may_not_owe_more_loans_than_it_has_shares():
    game = fixture_upto(150)  # Bess owes two loans, the most a 2-share corporation may owe
    with pytest.raises(GameError, match="owes 2 loans"):
        game.apply({"type": "take_loan", "entity": "Bess", "entity_type": "corporation", "loan": game.loan_bank.taken})


def test_a_mine_adds_ten_dollars_to_routes_through_it():
    from engine.titles.g1817.operating import route_bonus

    game = fixture_upto(149)  # the Major Coal Mine has put a mine on C20
    assert "mine" in game.hexmap.assignments["C20"]

    class Path:
        def __init__(self, coord):
            self.tile = game.hexmap.hex(coord).tile

    route = {"paths": [Path("C22"), Path("C20"), Path("C20"), Path("D19")], "hexes": ["C22", "D19"]}
    assert route_bonus(game.hexmap, "Bess", route, 50) == 60


def test_the_route_finder_counts_mines_and_bridges_as_the_route_check_does():
    from engine.core.autoroute import best_routes, check_routes

    game = fixture_upto(344)  # H runs through the mines of G14 and H11 (and I8) and stops at bridged H9
    corp = game.corporation("H")
    best = best_routes(game, corp)
    assert check_routes(game, corp, best) == [r["revenue"] for r in best]
    through = {h for r in best for segment in r["connections"] for h in segment}
    assert {"G14", "H11", "I8"} <= through and all("H9" in r["hexes"] for r in best)
    assert sum(r["revenue"] for r in best) == 190  # $50 of it from the three mines and the two stops at H9


def test_a_conversion_issues_three_shares_the_players_may_buy_then_the_corporation_buys_a_station():
    game = fixture_upto(264)  # merger round 2.1, A&S (2 shares, president 5159) to act
    corp, president = game.corporation("A&S"), game.player(5159)
    game.apply({"type": "convert", "entity": "A&S", "entity_type": "corporation"})
    assert corp.total_shares == 5 and president.percent_of(corp) == 40 and corp.percent_of(corp) == 60
    assert game.active_players() == [5159]  # from the president round the table
    game.apply({"type": "buy_shares", "entity": 5159, "entity_type": "player", "shares": ["A&S_1"], "percent": 20})
    assert corp.cash == 5 + 90 and president.percent_of(corp) == 60
    assert game.active_players() == [655]  # 60% is as much as the president may hold
    for pid in (655, 1594):
        game.apply({"type": "pass", "entity": pid, "entity_type": "player"})
    assert game.acting_entity() == {"entity": "A&S", "entity_type": "corporation"}  # it may take loans
    game.apply({"type": "pass", "entity": "A&S", "entity_type": "corporation"})
    assert corp.cash == 45 and len(corp.token_prices) == 2  # its second station, for $50
    assert game.acting_entity() == {"entity": "NYSW", "entity_type": "corporation"}


def test_a_short_sale_puts_an_extra_share_in_the_market_and_leaves_the_seller_a_short():
    game = fixture_upto(523)  # stock round 4, player 1594 to act, holding no NYSW
    nysw, player = game.corporation("NYSW"), game.player(1594)
    certs = game.num_certs(player)
    game.apply({"type": "short", "entity": 1594, "entity_type": "player", "corporation": "NYSW"})
    assert player.cash == 17 + 70 and player.percent_of(nysw) == -20 and game.pool.percent_of(nysw) == 20
    assert [s.id for s in game.pool.shares_of(nysw)] == ["NYSW_10"]
    assert game.num_certs(player) == certs  # a short is no certificate
    # one short a turn, and a short counts as a sale: no buying NYSW back this round
    with pytest.raises(GameError, match="already sold short this turn"):
        game.apply({"type": "short", "entity": 1594, "entity_type": "player", "corporation": "A&S"})
    with pytest.raises(GameError, match="sold NYSW this round"):
        game.apply({"type": "buy_shares", "entity": 1594, "entity_type": "player", "shares": ["NYSW_10"],
                    "percent": 20})


def test_a_small_corporation_can_not_be_shorted():
    game = fixture_upto(523)
    with pytest.raises(GameError, match="isn't a 5- or 10-share corporation"):
        game.apply({"type": "short", "entity": 1594, "entity_type": "player", "corporation": "PSNR"})


def test_two_2_share_corporations_merge_into_a_5_share_one_at_their_summed_price():
    game = fixture_upto(489)  # merger round 3.1, WT ($60) to act; J ($90) has the same president
    wt, j = game.corporation("WT"), game.corporation("J")
    assert {a["corporation"] for a in game.legal_actions() if a["type"] == "merge"} >= {"J"}
    game.apply({"type": "merge", "entity": "WT", "entity_type": "corporation", "corporation": "J"})
    assert wt.total_shares == 5 and wt.share_price.price == 150 and wt.cash == 25 + 70 and wt.loans == 1
    assert [t.id for t in wt.trains] == ["2-8", "2-9", "3-1"] and game.hexmap.tokened_hexes("WT") == ["I12", "D19"]
    assert game.player(655).percent_of(wt) == 40 and wt.percent_of(wt) == 60
    # J may be started again
    assert not j.ipoed and j.total_shares == 2 and j.cash == 0 and not game.hexmap.tokened_hexes("J")


def test_a_corporation_in_the_liquidation_zone_is_auctioned_from_ten_dollars():
    game = fixture_upto(612)  # acquisition round 4.1 begins with GT (no train) in the liquidation zone
    assert game.corporation("GT").cash == 0  # its $50 goes to the bank until the proceeds are settled
    assert game.active_players() == [655]  # the player after its president bids first
    with pytest.raises(GameError, match="tens of dollars"):
        game.apply({"type": "bid", "entity": 655, "entity_type": "player", "corporation": "GT", "price": 15})
    for pid, price in ((655, 10), (1594, 20), (3370, 30), (5159, 40)):
        game.apply({"type": "bid", "entity": pid, "entity_type": "player", "corporation": "GT", "price": price})
    for pid in (655, 1594, 3370):
        game.apply({"type": "pass", "entity": pid, "entity_type": "player"})
    # 5159 won at $40: A&S, the only corporation of theirs that can pay, buys GT, and may borrow more
    assert game.acting_entity() == {"entity": "A&S", "entity_type": "corporation"}
    assert game.hexmap.tokened_hexes("A&S")[-1] == "D7" and game.corporation("A&S").cash == 50 - 40
    cash = game.player(5159).cash
    game.apply({"type": "pass", "entity": "A&S", "entity_type": "corporation"})
    # GT's $50 and the $40 are paid out per share ($90 / 5 = $18): 5159 holds three of its five shares
    assert game.player(5159).cash == cash + 3 * 18 and not game.corporation("GT").ipoed


def test_a_player_in_a_cash_crisis_sells_no_more_than_needed_or_goes_bankrupt():
    game = fixture_upto(734)  # operating round 6.1, GT's turn
    player = game.player(655)
    game.charge(player, 185 + 50)  # set-up: the player owes $50 more than they have (say, a short's dividend)
    game.round.cash_crisis_player = player
    game.round.blocking_cache.clear()
    assert game.active_players() == [655] and player.cash == -50
    sales = [a for a in game.legal_actions() if a["type"] == "sell_shares"]
    # one 10% or 20% share of a corporation that has operated covers it: no bigger sale, no presidency
    assert sales and all(a["percent"] in (10, 20) for a in sales)
    assert {"type": "bankrupt", "entity": 655, "entity_type": "player"} in game.legal_actions()
    game.apply(sales[0])
    assert player.cash >= 0 and game.acting_entity() == {"entity": "GT", "entity_type": "corporation"}


def test_a_sale_in_a_cash_crisis_may_not_raise_more_than_needed():
    game = fixture_upto(734)
    player = game.player(655)
    game.charge(player, 185 + 50)
    game.round.cash_crisis_player = player
    game.round.blocking_cache.clear()
    with pytest.raises(GameError, match="no more than needed"):
        game.apply({"type": "sell_shares", "entity": 655, "entity_type": "player", "shares": ["A&A_0"],
                    "percent": 40})


def test_a_bankrupt_player_leaves_their_corporations_to_the_liquidation_zone():
    game = fixture_upto(734)
    player = game.player(655)
    game.charge(player, 5000)
    game.round.cash_crisis_player = player
    game.round.blocking_cache.clear()
    game.apply({"type": "bankrupt", "entity": 655, "entity_type": "player"})
    player, psnr = game.player(655), game.corporation("PSNR")
    assert player.bankrupt and player.cash == 0 and not list(player.all_shares())
    assert psnr.owner is None and game.zone(psnr) == "liquidation" and psnr.presidents_share.owner is game.pool
    assert game.cert_limit == game.data["meta"]["cert_limit"]["3"]  # the limit of three players
    assert not game.finished  # three players are left
