"""Rule knobs the core acts on, shown on 1830 with one knob changed (titles set them in their data: 1860
places its home station at float and sells in blocks, 1817 never forces a train)."""

import pytest

from engine import GameError
from engine.titles import create_game

PLAYERS = [{"id": 1, "name": "P1"}, {"id": 2, "name": "P2"}]


def act(entity, kind, entity_type="player", **fields):
    return {"type": kind, "entity": entity, "entity_type": entity_type, **fields}


def game_with(**knobs):
    """A 2-player 1830 game with some rule knobs set as another title's data would set them."""
    base = type(create_game("1830", PLAYERS, seed=1))
    return type("Variant1830", (base,), {"RULES": {**base.RULES, **knobs}})(PLAYERS, seed=1)


def open_game(game, upto="operating round"):
    """Privates sold; B&O started by P2, then PRR by P1; both float; the first operating round starts."""
    for pid, sym, price in [(1, "SV", 20), (2, "CS", 40), (1, "DH", 70), (2, "MH", 110), (1, "CA", 160),
                            (2, "BO", 220)]:
        game.apply(act(pid, "bid", company=sym, price=price))
    game.apply(act(2, "par", corporation="B&O", share_price="67,5,6"))
    if upto == "par":
        return game
    game.apply(act(1, "par", corporation="PRR", share_price="67,5,6"))
    for n in range(1, 5):  # P1 holds PRR_1 from CA
        game.apply(act(2, "buy_shares", shares=[f"B&O_{n}"]))
        game.apply(act(1, "buy_shares", shares=[f"PRR_{n + 1}" if n < 4 else "B&O_5"]))
    game.apply(act(2, "pass"))
    game.apply(act(1, "pass"))
    assert game.round.name == "Operating Round" and game.round.current_entity.sym == "B&O"
    return game


@pytest.mark.parametrize("timing, at_par, at_round_start", [
    ("operate", (0, 0), (1, 0)),  # each when it first operates: B&O now, PRR later
    ("par", (1, 0), (1, 1)),
    ("float", (0, 0), (1, 1)),
    ("operating_round", (0, 0), (1, 1)),
])
def test_home_stations_go_down_when_the_title_says(timing, at_par, at_round_start):
    def stations(game):
        return game.corporation("B&O").tokens_used, game.corporation("PRR").tokens_used

    assert stations(open_game(game_with(home_token_timing=timing), upto="par")) == at_par
    assert stations(open_game(game_with(home_token_timing=timing))) == at_round_start


def test_a_float_timing_places_the_station_as_the_corporation_floats():
    game = open_game(game_with(home_token_timing="float"), upto="par")
    game.apply(act(1, "par", corporation="PRR", share_price="67,5,6"))
    for n in (1, 2):
        game.apply(act(2, "buy_shares", shares=[f"B&O_{n}"]))
        game.apply(act(1, "buy_shares", shares=[f"PRR_{n + 1}"]))
    assert not game.corporation("B&O").floated and game.corporation("B&O").tokens_used == 0
    game.apply(act(2, "buy_shares", shares=["B&O_3"]))
    assert not game.corporation("B&O").floated
    game.apply(act(1, "buy_shares", shares=["PRR_4"]))
    assert game.corporation("PRR").floated and game.corporation("PRR").tokens_used == 1
    game.apply(act(2, "buy_shares", shares=["B&O_4"]))
    assert game.corporation("B&O").floated and game.corporation("B&O").tokens_used == 1


def to_buy_train(game):
    while game.round.active_step().__class__.__name__ != "BuyTrain":
        game.apply(act("B&O", "pass", "corporation"))
    return {a["type"] for a in game.legal_actions() if a["entity"] == "B&O"}


def test_a_corporation_without_a_route_may_pass_its_train_purchase_unless_it_must_always_buy():
    # B&O's only station is Baltimore: no route for a train yet
    assert to_buy_train(open_game(game_with())) == {"buy_train", "pass"}
    game = open_game(game_with(must_buy_train="always"))
    assert to_buy_train(game) == {"buy_train"}
    with pytest.raises(GameError, match="must buy"):
        game.apply(act("B&O", "pass", "corporation"))


@pytest.mark.parametrize("blocks", [False, True])
def test_selling_in_blocks_allows_one_sale_of_a_corporation_per_turn(blocks):
    game = open_game(game_with(must_sell_in_blocks=blocks))
    for sym, train in (("B&O", "2-0"), ("PRR", "2-1")):
        game.apply(act(sym, "pass", "corporation"))
        game.apply(act(sym, "buy_train", "corporation", train=train, price=80))
        game.apply(act(sym, "pass", "corporation"))
    assert game.round.name == "Stock Round" and game.round.current_entity.id == 2
    game.apply(act(2, "sell_shares", shares=["B&O_1"], percent=10))
    sales = [a["shares"] for a in game.legal_actions() if a["type"] == "sell_shares"]
    again = act(2, "sell_shares", shares=["B&O_2"], percent=10)
    if blocks:
        assert sales == []
        with pytest.raises(GameError, match="all of a sale goes at once"):
            game.apply(again)
    else:
        assert ["B&O_2"] in sales
        game.apply(again)
        assert game.share("B&O_2").owner is game.pool
