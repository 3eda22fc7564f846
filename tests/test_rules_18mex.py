"""18MEX rules beyond what the fixtures show, each checked against 18xx.games' engine when written."""

import json
from pathlib import Path

import pytest

from engine.core.actions import resolve_undo
from engine.core.errors import GameError
from engine.titles import create_game, load_18xx

FIXTURE = Path(__file__).parent / "fixtures" / "18MEX" / "13315.json"


def fixture_upto(action_id: int, extra: list[dict] = ()):
    log = json.loads(FIXTURE.read_text())
    log["actions"] = [a for a in resolve_undo(log["actions"]) if a["id"] <= action_id] + list(extra)
    return load_18xx(log)


def test_selling_a_10_percent_ndm_certificate_taking_a_5_percent_in_change():
    # 18xx.games: player 109 ends with NdM_7, NdM_5, NdM_8 and $1005; the market with NdM_2; price unmoved
    game = fixture_upto(437, [{"type": "sell_shares", "entity": 109, "entity_type": "player", "shares": ["NdM_2"],
                               "percent": 10, "swap": "NdM_8", "id": 438}])
    player = game.player(109)
    assert player.cash == 1005
    assert [s.id for s in player.shares_of(game.ndm)] == ["NdM_7", "NdM_5", "NdM_8"]
    assert [s.id for s in game.pool.shares_of(game.ndm)] == ["NdM_2"]
    assert game.ndm.share_price.price == 100


def test_buying_a_10_percent_ndm_certificate_handing_in_a_5_percent_one():
    game = fixture_upto(437)
    player = game.player(109)
    ten = next(s for s in player.shares_of(game.ndm) if s.percent == 10)
    game.give_share(ten, game.pool)  # set-up: a 10% certificate in the market
    half = next(s for s in player.shares_of(game.ndm) if s.percent == 5)
    buy = {"type": "buy_shares", "entity": 109, "entity_type": "player", "shares": [ten.id], "percent": 10,
           "swap": half.id}
    assert buy in game.legal_actions()
    cash, price = player.cash, game.ndm.share_price.price
    game.apply(buy)
    assert player.cash == cash - (price - (price + 1) // 2)
    assert ten.owner is player and half.owner is game.pool


def test_a_swap_must_be_one_the_rules_allow():
    game = fixture_upto(437)
    with pytest.raises(GameError, match="taking NdM_7 in change"):
        game.apply({"type": "sell_shares", "entity": 109, "entity_type": "player", "shares": ["NdM_2"],
                    "percent": 10, "swap": "NdM_7"})


def test_minors_start_with_their_train_and_station_and_pay_half_to_their_owner():
    game = create_game("18MEX", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)])
    a = game.minor("A")
    assert [t.id for t in a.trains] == ["2-0"] and game.hexmap.tokened_hexes("A") == ["M12"]
    assert not a.trains[0].buyable
    a.owner = game.player(1)
    cash = game.player(1).cash
    game.pay_minor(a, 35)
    assert (a.cash, game.player(1).cash - cash) == (17, 18)


def test_ndm_five_percent_certificates_are_reserved_and_free_of_the_certificate_limit():
    game = create_game("18MEX", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)])
    half = game.share("NdM_7")
    assert (half.percent, half.buyable, game.cert_count(half)) == (5, False, 0)
    assert game.share("NdM_9").buyable is False and game.share("UdY_8").buyable is False
    assert game.train_limit(game.ndm) == game.phase.train_limit + 1


def test_a_train_bought_before_running_ends_the_train_buying_when_nothing_more_can_be_bought():
    case = Path(__file__).parent / "fixtures" / "18MEX" / "cases" / "train_bought_before_running.json"
    log = json.loads(case.read_text())
    buy_after_dividend, pass_ = log["actions"][-2:]
    log["actions"] = log["actions"][:-2]
    game = load_18xx(log)
    chi = game.corporation("CHI")
    assert chi.cash == 50 and [t.id for t in chi.trains] == ["2-8"]
    assert not any(a["type"] == "buy_train" for a in game.legal_actions())
    with pytest.raises(GameError, match="CHI has finished buying trains this turn"):
        game.apply(buy_after_dividend)
    assert chi.cash == 50 and [t.id for t in chi.trains] == ["2-8"]
    game.apply(pass_)
    assert game.round.current_entity is game.corporation("TM")


def test_a_10_percent_ndm_certificate_is_bought_with_a_5_percent_one_only_by_who_could_buy_a_5_percent():
    case = Path(__file__).parent / "fixtures" / "18MEX" / "cases" / "swap_needs_a_5_percent_price.json"
    log = json.loads(case.read_text())
    swap = log["actions"][-1]
    log["actions"] = log["actions"][:-1]
    game = load_18xx(log)  # 586's recorded automatic actions (none) must be the ones the program makes
    player = game.player(2)
    assert player.cash == 22 and game.corporation("NdM").share_price.price == 45
    assert {a["type"] for a in game.legal_actions()} <= {"sell_shares", "pass"}
    with pytest.raises(GameError, match=r"Player 2 has \$22: handing in a 5% certificate for a 10% one takes the price of a 5% "
                       r"certificate \(\$23\) in hand"):
        game.apply(swap)
    assert player.cash == 22 and game.share("NdM_7").owner is player


def test_a_station_placed_after_a_merger_comes_before_the_ndm_exchange_stations():
    """The exchange stations a merger gives the NdM are added at the end of its charter, and a later station
    takes the first unused one: the NdM's stations are listed in charter order, as 18xx.games lists them."""
    from engine.core.trace import summary

    case = Path(__file__).parent / "fixtures" / "18MEX" / "cases" / "ndm_station_after_a_merger.json"
    log = json.loads(case.read_text())
    station = log["actions"][-1]
    log["actions"] = log["actions"][:-1]
    game = load_18xx(log)
    assert summary(game)["corporations"]["NdM"]["tokens"] == ["O10", "O8"]
    game.apply(station)
    assert summary(game)["corporations"]["NdM"]["tokens"] == ["O10", "K6", "O8"]
