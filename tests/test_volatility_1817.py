"""1817's optional rules beyond the fixtures: the Volatility expansion (its privates drawn from the seed, the
tiered auction, the new privates' powers) and the modern trains. The third fixture
(`1817_game_end_bankrupt`, tests/test_replay_1817.py) plays the expansion through; these check what it
doesn't reach, and the pyramid as 18xx.games deals it for a seed."""

import json
from pathlib import Path

import pytest
from tracelines import digest

from engine.core.actions import resolve_undo
from engine.core.errors import GameError
from engine.replay import replay
from engine.titles import REGISTRY, rules_class
from engine.titles.g1817.operating import Track1817, route_bonus

FIXTURES = Path(__file__).parent / "fixtures" / "1817"
PLAYERS = [{"id": i, "name": f"P{i}"} for i in (1, 2, 3, 4)]


def volatility_game(seed: int = 7):
    return rules_class("1817")(PLAYERS, seed=seed, optional_rules=["volatility"])


def bid(game, pid: int, company: str, price: int = 0):
    game.apply({"type": "bid", "entity": pid, "entity_type": "player", "company": company, "price": price})


def pass_(game, pid: int):
    game.apply({"type": "pass", "entity": pid, "entity_type": "player"})


def owned_by(corp, company):
    """`company` belongs to `corp` (as once it is put into it), with nothing else that a sale sets off."""
    company.owner = corp
    corp.companies.append(company)
    return company


def fixture_upto(action_id: int):
    log = json.loads((FIXTURES / "1817_game_end_bankrupt.json").read_text())
    log["actions"] = [a for a in resolve_undo(log["actions"]) if a["id"] <= action_id]
    return rules_class("1817").from_18xx(log)


def test_both_expansions_are_offered_as_18xx_games_names_them():
    from bot.families.g18xx import G18xx

    rules = dict(REGISTRY["1817"].playable_rules)
    assert rules["volatility"] == "Volatility Expansion" and rules["modern_trains"] == "Modern Trains"
    title = next(t for t in G18xx.titles() if t.name == "1817")  # `/game new title:1817 rules:…`
    offered = dict((value, shown) for shown, value in title.settings[0].choices)
    assert offered["volatility"] == "Volatility Expansion" and offered["modern_trains"] == "Modern Trains"
    game = G18xx.new_game("1817", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)], 7,
                          G18xx.check_setup(title, {"rules": "volatility,modern_trains"}))
    assert game.optional_rules == ("volatility", "modern_trains") and "tiers" in game.turn_info()


def test_one_city_tile_private_is_drawn_and_the_pyramid_dealt_as_on_18xx_games():
    game = volatility_game(7)
    # as 18xx.games deals seed 7 (its engine asked once): of the four city-tile privates P16 is drawn
    assert [c.sym for c in game.companies if c.sym in game.city_tile_privates] == ["P16"]
    assert len(game.companies) == 21
    assert game.turn_info()["tiers"] == [
        ["P16"], ["P19", "P13"], ["P12", "OBC", "P21"], ["P18", "MINC", "CM", "MAJC"],
        ["P14", "P23", "P20", "P15", "MINM"], ["MAJM", "MAIL", "P22", "TS", "UBC", "ME"]]
    assert volatility_game(8).turn_info()["tiers"] != game.turn_info()["tiers"]


def test_only_the_bottom_row_is_for_sale_from_nothing_and_a_nomination_is_compulsory():
    game = volatility_game(7)
    assert {a["company"] for a in game.legal_actions()} == {"MAJM", "MAIL", "P22", "TS", "UBC", "ME"}
    assert {a["price"] for a in game.legal_actions()} == {0}
    with pytest.raises(GameError, match="bottom row"):
        bid(game, 1, "P16", 50)
    with pytest.raises(GameError):
        pass_(game, 1)


def test_a_private_left_without_neighbours_leaves_the_game_and_the_winner_s_neighbour_nominates():
    game = volatility_game(7)
    bid(game, 1, "TS")
    for pid in (2, 3, 4):
        pass_(game, pid)
    assert game.company("TS").owner.id == 1 and game.players[0].cash == 315
    assert game.turn_info()["tiers"][-1] == ["MAJM", "MAIL", "P22", None, "UBC", "ME"]
    assert game.summary()["next"] == 2  # the player after the winner
    bid(game, 2, "MAIL", 10)
    bid(game, 3, "MAIL", 20)
    for pid in (4, 1, 2):
        pass_(game, pid)
    assert game.company("MAIL").owner.id == 3 and game.players[2].cash == 295
    # MAJM and P22 lost both neighbours: removed
    assert game.company("MAJM").closed and game.company("P22").closed
    assert game.turn_info()["tiers"][-1] == [None, None, None, None, "UBC", "ME"]
    assert game.summary()["next"] == 4
    bid(game, 4, "UBC")
    for pid in (1, 2, 3):
        pass_(game, pid)
    assert game.company("ME").closed  # alone in its row
    # the bottom row gone: the row above is for sale
    assert {a["company"] for a in game.legal_actions()} == {"P14", "P23", "P20", "P15", "MINM"}


def test_the_loan_shark_brings_sixty_dollars_and_costs_ten_a_round():
    before = fixture_upto(130)
    after = fixture_upto(131)  # Player 2 puts P12 into Belt: Belt pays its face value, the bank lends $60
    assert after.corporation("Belt").cash == before.corporation("Belt").cash
    assert after.player(10573).cash == before.player(10573).cash + 60
    assert after.interest_owed(after.corporation("Belt")) == 10
    assert before.interest_owed(before.corporation("Belt")) == 0


def test_the_ponzi_scheme_closes_once_its_corporation_is_formed():
    game = volatility_game()
    corp = game.corporation("A&S")
    ponzi = owned_by(corp, game.company("P13"))
    game.formed(corp)
    assert ponzi.closed and ponzi not in corp.companies


def test_express_and_efficient_track_change_what_the_lays_cost():
    game = volatility_game()
    corp = game.corporation("A&S")
    assert [lay.get("cost", 0) for lay in game.tile_lays(corp)] == [0, 20]
    corp.companies.append(game.company("P18"))
    assert [lay.get("cost", 0) for lay in game.tile_lays(corp)] == [10, 0]
    corp.companies.append(game.company("P19"))
    assert [lay.get("cost", 0) for lay in game.tile_lays(corp)] == [0, 0]
    corp.companies.remove(game.company("P18"))
    assert [lay.get("cost", 0) for lay in game.tile_lays(corp)] == [0, 10]


def test_the_station_subsidy_pays_one_station_of_a_conversion():
    game = volatility_game()
    corp = game.corporation("A&S")
    assert game.conversion_stations_cost(corp, 2) == 100
    corp.companies.append(game.company("P21"))
    assert game.conversion_stations_cost(corp, 1) == 0 and game.conversion_stations_cost(corp, 2) == 50


def test_the_golden_parachute_pays_the_president_unless_they_buy_it_themselves():
    game = volatility_game()
    corp, other = game.corporation("A&S"), game.corporation("A&A")
    p1, p2 = game.players[0], game.players[1]
    corp.owner, other.owner = p1, p2
    corp.companies.append(game.company("P20"))
    game.golden_parachute(corp, None)
    assert p1.cash == 415
    other.owner = p1
    game.golden_parachute(corp, other)
    assert p1.cash == 415
    other.owner = p2
    game.golden_parachute(corp, other)
    assert p1.cash == 515


def test_the_inventor_is_paid_once_for_each_kind_of_train_while_a_corporation_owns_it():
    game = volatility_game()
    corp = game.corporation("A&S")
    inventor = game.company("P14")
    game.train_moved("2")  # owned by nobody yet: nothing, and the 2 is still to be paid
    owned_by(corp, inventor)
    game.train_moved("2")
    game.train_moved("2")
    game.train_moved("2+")
    assert corp.cash == 20


def test_the_inventor_is_paid_for_a_kind_when_its_trains_rust():
    game = volatility_game()
    corp = game.corporation("A&S")
    inventor = game.company("P14")
    owned_by(corp, inventor)
    game.rust("4")  # the 2-trains rust: the 2 counts as moved (18xx.games rusts the exported ones too)
    assert corp.cash == 20


def test_the_scrapper_is_paid_for_its_corporation_s_trains_that_rust():
    game = volatility_game()
    corp = game.corporation("A&S")
    corp.companies.append(game.company("P15"))
    three = next(t for t in game.depot.upcoming if t.name == "3")
    game.scrapped(three, game.corporation("A&A"))  # not its own
    game.scrapped(three, corp)
    game.scrapped(next(t for t in game.depot.upcoming if t.name == "5"), corp)
    assert corp.cash == 75


def test_a_ranch_adds_ten_dollars_to_routes_through_it_and_is_never_upgraded():
    game = fixture_upto(270)  # P22's ranch on E6
    assert "ranch" in game.hexmap.assignments["E6"]
    track = next(s for s in game.round.steps if isinstance(s, Track1817))
    assert str(track.lay_refusal(None, game.hexmap.hex("E6"))) == "a ranch is never upgraded"
    route = {"stops": [], "paths": [p for p in game.hexmap.hex("E6").tile.paths], "hexes": []}
    assert route_bonus(game.hexmap, "PLE", route, 50) == 60


def test_modern_trains_replay_as_18xx_games_plays_them():
    """The first fixture played with the modern trains: its 7- and 8-trains' runs earn more for their
    stations, and every state line equals 18xx.games' with the rule (its last action, a pass out of turn
    18xx.games lets through, left out)."""
    log = json.loads((FIXTURES / "15528.json").read_text())
    log["settings"] = {**log["settings"], "optional_rules": ["modern_trains"]}
    log["actions"] = [a for a in resolve_undo(log["actions"]) if a["id"] <= 1678]
    reference = (FIXTURES / "variants" / "15528_modern_trains.digests").read_text().split()
    ours: list = []
    replay(log, ours)
    assert len(ours) == len(reference)
    for line, expected in zip(ours, reference, strict=True):
        assert digest(line) == expected, f"first difference after action {line.get('id')}"
    plain: list = []
    replay({**log, "settings": {**log["settings"], "optional_rules": []}}, plain)
    assert ours[-1]["corporations"] != plain[-1]["corporations"]


# ---------------------------------------------------------------------------- at the table (the bot's session)
BANKRUPT_LOG = json.loads((FIXTURES / "1817_game_end_bankrupt.json").read_text())
BANKRUPT_ACTIONS = [a for a in resolve_undo(BANKRUPT_LOG["actions"]) if a["type"] != "message"]
NAMES = {p["id"]: p["name"].replace(" ", "") for p in BANKRUPT_LOG["players"]}


def session_before(action_id: int):
    """The fixture's session just before the action with this id, and that action."""
    from bot.families.g18xx import G18xx

    k = next(i for i, a in enumerate(BANKRUPT_ACTIONS) if a["id"] == action_id)
    session = G18xx("1817", rules_class("1817").from_18xx(dict(BANKRUPT_LOG, actions=BANKRUPT_ACTIONS[:k])))
    return session, {x: v for x, v in BANKRUPT_ACTIONS[k].items() if x not in ("id", "created_at", "original_id",
                                                                                "user")}


def test_the_auction_offers_the_bottom_row_with_what_each_private_does():
    from bot.families.g18xx import G18xx

    s = G18xx("1817", volatility_game(7))
    choices = dict((v, n) for n, v in s.command("bid").choices(s, "company", {}, s.legal()))
    assert set(choices) == {"MAJM", "MAIL", "P22", "TS", "UBC", "ME"}
    assert choices["P22"] == "P22 (one ranch: $10 more to routes through it): $0 or more"
    assert choices["TS"] == "TS: $0 or more"
    assert s.hint({1: "Ann", 2: "Bob", 3: "Cid", 4: "Dan"}) == \
        "nominate a private of the bottom row with a bid from $0 (/bid): MAJM, MAIL, P22, TS, UBC, ME"
    assert s.facts()["auction_rows"][-1] == ["MAJM", "MAIL", "P22", "TS", "UBC", "ME"]


def test_a_ranch_is_laid_with_the_lay_command_using_its_private():
    s, action = session_before(270)
    assert s.command_for(action) == ("lay", {"hex": "E6", "tile": "9-1", "rotation": 0, "using": "P22"})
    assert s.describe(s.apply(action), NAMES).startswith("P22 lays tile 9 on E6")


def test_a_private_s_payment_is_told_with_the_action():
    s, action = session_before(131)  # Player 2 puts the Loan Shark into Belt
    change = s.apply(action)
    assert s.describe(change, NAMES).endswith("; P12 pays $60 to Belt")


async def test_the_console_plays_the_volatility_auction_and_the_new_privates(tmp_path):
    """The Volatility fixture's opening through the console, each move typed as `as SEAT COMMAND …`: the
    tiered auction, the Loan Shark put into a corporation, the city-tile private's lay."""
    from fakediscord.recorded import console_moves, console_text

    upto = next(i for i, a in enumerate(BANKRUPT_ACTIONS) if a["id"] == 222) + 1
    trace = [json.loads(x) for x in (FIXTURES / "1817_game_end_bankrupt.trace.jsonl").read_text().splitlines()]
    empty = tmp_path / "game.json"
    empty.write_text(json.dumps(dict(BANKRUPT_LOG, actions=[])))
    lines = [f"import {empty} Ann Bob Cid Dan Eve", "legal"]
    # --yes: a loan (or another move shown before it is sent) goes at once
    lines += [f"{line} --yes" for line, _ in console_moves("1817", BANKRUPT_LOG, trace, BANKRUPT_ACTIONS[:upto])]
    text = await console_text(tmp_path, lines)
    assert "P14 (the bank pays its corporation for the first train of each kind): $0 or more" in text
    for words in ("Ann bids $50 on P14", "puts P12 into Belt for $60; P12 pays $60 to Belt",
                  "P24 lays tile X00 on F3 Indianapolis"):
        assert words in text, words
