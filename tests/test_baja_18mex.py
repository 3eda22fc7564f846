"""18MEX's Baja variant (docs/18mex.md): the Compagnie du Boleo and its station on Santa Rosalia. The games are
random ones 18xx.games replays to the same state on every action (tests/fixtures/18MEX/random/baja_*)."""

import json
from pathlib import Path

import pytest

from engine.core.errors import GameError
from engine.titles import create_game, load_18xx

RANDOM = Path(__file__).parent / "fixtures" / "18MEX" / "random"
BOUGHT_AND_PLACED = RANDOM / "baja_boleo_bought_in_phase_2_and_its_station_placed.json"
BELOW_PRICE = RANDOM / "baja_boleo_opens_the_station_step_below_the_station_price.json"
BY_TRACK = RANDOM / "baja_station_on_santa_rosalia_by_track_is_the_boleos.json"
PLAYERS = [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)]
BOLEO_STATION = {"type": "place_token", "entity": "CdB", "entity_type": "company", "city": "H3-0-0", "slot": 0}


def upto(path: Path, count: int):
    """The game of a log after its first `count` actions."""
    log = json.loads(path.read_text())
    return load_18xx({**log, "actions": log["actions"][:count]})


def logged(path: Path, index: int) -> dict:
    action = dict(json.loads(path.read_text())["actions"][index])
    action.pop("id")
    return action


def test_the_variant_adds_the_boleo_and_santa_rosalia_and_makes_los_mochis_a_red_city():
    game = create_game("18MEX", PLAYERS, optional_rules=["baja_variant"])
    boleo = game.company("CdB")
    assert (boleo.value, boleo.revenue, boleo.min_price, boleo.max_price) == (30, 5, 15, 30)
    santa_rosalia = game.hexmap.hex("H3")
    assert santa_rosalia.location_name == "Santa Rosalia" and santa_rosalia.tile.color == "gray"
    assert [(c.revenue, c.slots) for c in santa_rosalia.tile.cities] == [(30, 1)]
    assert [t.revenue for t in santa_rosalia.tile.towns] == [20]
    los_mochis = game.hexmap.hex("I4").tile
    assert los_mochis.color == "red" and los_mochis.cities[0].slots == 1
    assert los_mochis.cities[0].revenue_for(["yellow"], None) == 30
    assert los_mochis.cities[0].revenue_for(["yellow", "green", "brown"], None) == 40
    view = game.map_view()  # pictures draw the variant's map
    assert view["map"] == "18MEX+baja_variant" and "H3" in view["hexes"]


def test_without_the_variant_the_map_and_the_privates_are_the_printed_ones():
    game = create_game("18MEX", PLAYERS)
    assert "CdB" not in game.company_by_sym and "H3" not in game.hexmap.hexes
    assert game.hexmap.hex("I4").tile.color == "white" and "map" not in game.map_view()


def test_a_corporation_buys_the_boleo_in_phase_2_for_15_to_30():
    game = upto(BOUGHT_AND_PLACED, 118)  # MC's turn in the first operating round, phase 2; Player 3 owns CdB
    assert game.phase.name == "2"
    offers = [(a["company"], a["price"]) for a in game.legal_actions() if a["type"] == "buy_company"]
    assert offers == [("CdB", 15), ("CdB", 30)]  # the KCM&O is not for sale before phase 3 without its rule
    with pytest.raises(GameError, match=r"CdB sells to a corporation for \$15 to \$30"):
        game.apply({"type": "buy_company", "entity": "MC", "entity_type": "corporation", "company": "CdB",
                    "price": 45})
    seller = game.player(3)
    cash = seller.cash
    game.apply(logged(BOUGHT_AND_PLACED, 118))  # for $15
    assert game.company("CdB").owner is game.corporation("MC") and seller.cash == cash + 15


def test_the_boleos_station_is_placed_free_without_a_connection_and_only_once():
    game = upto(BOUGHT_AND_PLACED, 121)  # MC (home in Torreón, far from Baja) has laid its track
    assert BOLEO_STATION in game.legal_actions()
    with pytest.raises(GameError, match="CdB's free station goes on H3"):
        game.apply({**BOLEO_STATION, "city": "I4-0-0"})
    mc = game.corporation("MC")
    cash, left = mc.cash, mc.tokens_left
    game.apply(BOLEO_STATION)
    assert mc.cash == cash and mc.tokens_left == left - 1 and "H3" in game.hexmap.tokened_hexes("MC")
    assert not game.round.tokened  # besides the turn's station
    assert not game.company("CdB").closed  # the private stays open, paying its revenue
    assert not [a for a in game.legal_actions() if a.get("entity") == "CdB"]
    with pytest.raises(GameError, match="CdB has no station to place"):
        game.apply(BOLEO_STATION)


def test_the_boleos_station_is_refused_to_a_player_and_outside_its_corporations_turn():
    game = upto(BOUGHT_AND_PLACED, 118)  # owned by Player 3, who presides MC, in MC's turn
    with pytest.raises(GameError, match="CdB's station is placed by a corporation that owns it"):
        game.apply(BOLEO_STATION)
    game = upto(BELOW_PRICE, 415)  # UdY owns CdB; minor A of the same player operates
    with pytest.raises(GameError, match="CdB's station is placed in UdY's turn"):
        game.apply(BOLEO_STATION)


def test_the_boleos_station_tried_in_a_stock_round_says_when_it_is_placed():
    game = upto(BELOW_PRICE, 226)  # Stock Round 5: UdY owns CdB, its station still to place
    assert game.round.stock
    with pytest.raises(GameError, match="CdB's station is placed in UdY's turn of an operating round"):
        game.apply(BOLEO_STATION)
    game = upto(BOUGHT_AND_PLACED, 123)  # Stock Round 3: MC placed it in the operating round before
    with pytest.raises(GameError, match="CdB has no station to place"):
        game.apply(BOLEO_STATION)


def test_the_boleo_opens_the_station_step_to_a_corporation_short_of_its_station_price():
    # 18xx.games opens the station step on the cheapest station the corporation may place, the Boleo's free one
    # included, wherever its track reaches a city: UdY ($16, next station $40) must place or pass
    game = upto(BELOW_PRICE, 422)
    udy = game.corporation("UdY")
    assert (udy.cash, udy.next_token_price) == (16, 40)
    assert game.legal_actions() == [BOLEO_STATION, {"type": "pass", "entity": "UdY", "entity_type": "corporation"}]
    with pytest.raises(GameError, match=r"UdY has \$16 and can't pay \$40 for a station"):
        game.apply({"type": "place_token", "entity": "UdY", "entity_type": "corporation", "city": "478-0-0",
                    "slot": 1})
    game.apply(logged(BELOW_PRICE, 422))  # the pass
    assert [a["type"] for a in game.legal_actions() if a.get("entity") == "UdY"] == ["run_routes"]


def test_a_station_the_corporation_places_on_santa_rosalia_by_track_is_free_and_uses_up_the_boleo():
    game = upto(BY_TRACK, 347)  # CHI owns CdB and reaches Santa Rosalia through Los Mochis
    chi = game.corporation("CHI")
    assert {"type": "place_token", "entity": "CHI", "entity_type": "corporation", "city": "H3-0-0", "slot": 0} \
        in game.legal_actions()
    cash = chi.cash
    game.apply(logged(BY_TRACK, 347))
    assert chi.cash == cash and game.round.tokened
    assert not [a for a in game.legal_actions() if a.get("entity") == "CdB"]


def test_the_boleos_grant_is_looked_up_once_for_the_station_it_makes_free(monkeypatch):
    """Placing a station works out once whether a private grants it (and so its price): the turn's station on
    Santa Rosalia by track, free through the CdB, and one elsewhere at its price."""
    from engine.core.steps.operating import Token

    looked_up, original = [], Token.station_ability
    monkeypatch.setattr(Token, "station_ability",
                        lambda self, corp, coord: looked_up.append(coord) or original(self, corp, coord))
    game = upto(BY_TRACK, 347)
    looked_up.clear()
    game.apply(logged(BY_TRACK, 347))
    assert looked_up == ["H3"]


def test_a_route_through_los_mochis_counts_both_stops_of_santa_rosalia():
    game = upto(BOUGHT_AND_PLACED, 155)
    mc = game.corporation("MC")
    run = logged(BOUGHT_AND_PLACED, 155)  # a 2-train: Santa Rosalia's town ($20) and city ($30), Los Mochis ($30)
    assert [r["nodes"] for r in run["routes"]] == [["H3-1", "H3-0", "I4-0"]]
    best = game.best_routes(mc)
    assert sum(r["revenue"] for r in best) == 80 and "H3" in best[0]["hexes"]
    game.apply(run)
    assert game.round.revenue == 80


def test_players_buy_and_use_the_boleo_by_chat_in_any_case():
    from bot.families.g18xx import G18xx

    log = json.loads(BOUGHT_AND_PLACED.read_text())
    s = G18xx("18MEX", load_18xx({**log, "actions": log["actions"][:118]}))
    names = {1: "Ann", 2: "Bob", 3: "Cy"}
    buy = s.command("private")
    change = s.apply(buy.build(s, buy.given({"company": "cdb", "price": 15}), 3, s.legal()))
    assert s.describe(change, names) == "MC buys CdB from Cy for $15"
    for action in log["actions"][119:121]:  # MC's track
        s.apply({k: v for k, v in action.items() if k != "id"})
    token = s.command("token")
    assert token.choices(s, "using", {}, s.legal()) == [("CdB", "CdB")]
    assert [v for _, v in token.choices(s, "city", {"using": "CdB"}, s.legal())] == ["H3-0-0#0"]
    change = s.apply(token.build(s, token.given({"city": "H3", "using": "cdb"}), 3, s.legal()))
    assert s.describe(change, names) == "CdB places MC's station in H3 Santa Rosalia"
