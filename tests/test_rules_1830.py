"""1830 rules the fixture games don't exercise, played out on fresh games."""

import re

import pytest

from engine import GameError
from engine.titles import create_game

PLAYERS = [{"id": i, "name": f"P{i}"} for i in (1, 2, 3, 4)]


def act(entity, kind, entity_type="player", **fields):
    return {"type": kind, "entity": entity, "entity_type": entity_type, **fields}


def new_game():
    return create_game("1830", PLAYERS, seed=5)


def test_everyone_passing_lowers_sv_until_the_next_player_must_take_it():
    game = new_game()
    sv = game.company("SV")
    for round_no in range(1, 4):
        for pid in (1, 2, 3, 4):
            game.apply(act(pid, "pass"))
        assert sv.min_bid == 20 - 5 * round_no and sv.owner is None
    for pid in (1, 2, 3, 4):
        game.apply(act(pid, "pass"))
    # at $0 the next player gets SV for nothing
    assert sv.owner is game.player(1)
    assert game.player(1).cash == 600


def test_a_full_pass_after_sv_is_sold_pays_the_privates():
    game = new_game()
    game.apply(act(1, "bid", company="SV", price=20))
    before = game.player(1).cash
    for pid in (2, 3, 4, 1):
        game.apply(act(pid, "pass"))
    assert game.player(1).cash == before + 5


def test_bids_resolve_when_the_cheaper_privates_sell():
    game = new_game()
    game.apply(act(1, "bid", company="CS", price=45))
    game.apply(act(2, "bid", company="DH", price=75))
    game.apply(act(3, "bid", company="DH", price=80))
    game.apply(act(4, "bid", company="SV", price=20))  # buys SV: CS goes to the single bidder
    assert game.company("CS").owner is game.player(1) and game.player(1).cash == 555
    # DH has two bids: the lower bidder acts first in its auction
    assert game.active_players() == [2]
    with pytest.raises(GameError, match="at least \\$85"):
        game.apply(act(2, "bid", company="DH", price=82))
    game.apply(act(2, "bid", company="DH", price=85))
    game.apply(act(3, "pass"))
    assert game.company("DH").owner is game.player(2) and game.player(2).cash == 515
    # after the auction the player after the last buyer acts
    assert game.active_players() == [1]


def test_ca_brings_a_prr_share_and_bo_the_bo_presidency():
    game = new_game()
    for pid, sym, price in [(1, "SV", 20), (2, "CS", 40), (3, "DH", 70), (4, "MH", 110), (1, "CA", 160)]:
        game.apply(act(pid, "bid", company=sym, price=price))
    assert game.share("PRR_1").owner is game.player(1)
    game.apply(act(2, "bid", company="BO", price=220))
    assert game.active_players() == [2]
    with pytest.raises(GameError, match="par price of B&O"):
        game.apply(act(2, "par", corporation="PRR", share_price="100,0,6"))
    game.apply(act(2, "par", corporation="B&O", share_price="90,1,6"))
    bo = game.corporation("B&O")
    assert bo.owner is game.player(2) and bo.par_price.price == 90 and game.player(2).cash == 600 - 40 - 220
    assert game.round.name == "Stock Round"
    # priority goes to the player after the one who bought the last private
    assert game.active_players() == [3]


def test_sold_out_corporation_rises_at_the_end_of_the_stock_round():
    game = create_game("1830", PLAYERS[:2], seed=1)  # 2 players, $1200 each
    for pid, sym, price in [(1, "SV", 20), (2, "CS", 40), (1, "DH", 70), (2, "MH", 110), (1, "CA", 160),
                            (2, "BO", 220)]:
        game.apply(act(pid, "bid", company=sym, price=price))
    game.apply(act(2, "par", corporation="B&O", share_price="67,5,6"))
    # buy out B&O between the two players, passing the other's turns with NYC buys
    game.apply(act(1, "buy_shares", shares=["B&O_1"]))
    for n in range(2, 9):
        game.apply(act(2 if n % 2 == 0 else 1, "buy_shares", shares=[f"B&O_{n}"]))
    assert game.corporation("B&O").ipo_percent == 0
    game.apply(act(1, "pass"))
    game.apply(act(2, "pass"))
    bo = game.corporation("B&O")
    assert game.round.name == "Operating Round"
    assert bo.share_price.price == 71  # one row up from 67 in the par column


def test_mh_can_be_exchanged_out_of_turn_in_a_stock_round():
    game = new_game()
    for pid, sym, price in [(1, "SV", 20), (2, "CS", 40), (3, "DH", 70), (4, "MH", 110), (1, "CA", 160),
                            (2, "BO", 220)]:
        game.apply(act(pid, "bid", company=sym, price=price))
    game.apply(act(2, "par", corporation="B&O", share_price="100,0,6"))
    assert game.active_players() == [3]
    game.apply(act("MH", "buy_shares", "company", shares=["NYC_1"], percent=10))
    assert game.share("NYC_1").owner is game.player(4)
    assert game.company("MH").closed and game.active_players() == [3]


def test_legal_actions_are_accepted_in_a_fresh_game():
    game = new_game()
    for _ in range(40):
        legal = game.legal_actions()
        assert legal
        game.apply(legal[0])


def test_any_certificates_of_a_holding_may_be_sold():
    import json
    from pathlib import Path

    from engine.titles import load_18xx

    log = json.loads((Path(__file__).parent / "fixtures" / "1830" / "26855.json").read_text())
    game = load_18xx(log, upto=112)  # stock round 3, player 117 to act
    player = game.player(117)
    corp, certs = next((game.corporation(sym), [s for s in shares if not s.president])
                       for sym, shares in player.shares_by_corp.items()
                       if len([s for s in shares if not s.president]) >= 2 and game.corporation(sym).ipoed)
    last = certs[-1]  # not the first certificate the player got
    pool_before = game.pool.percent_of(corp)
    game.apply(act(117, "sell_shares", shares=[last.id], percent=10))
    assert last.owner is game.pool and game.pool.percent_of(corp) == pool_before + 10


def test_open_bids_are_part_of_the_state():
    game = new_game()
    game.apply(act(1, "bid", company="CA", price=165))
    game.apply(act(2, "bid", company="CA", price=170))
    assert game.summary()["auction"] == {"bids": {"CA": [[1, 165], [2, 170]]}, "auctioning": None}
    game.apply(act(3, "bid", company="SV", price=20))
    assert "auction" in game.summary()


def test_home_station_goes_where_its_reservation_moved():
    # NYNH's home is city 0 of G19 (its exit 3); tile 54 at rotation 0 joins exit 3 to its second city,
    # and the reservation moves there: 18xx.games places NYNH's home station in that city
    game = create_game("1830", [{"id": i, "name": f"P{i}"} for i in (1, 2, 3)])
    game.hexmap.lay("G19", "54-0", 0)
    cities = game.hexmap.hex("G19").tile.cities
    assert "NYNH" in cities[1].reservations
    game.place_home_token(game.corporation("NYNH"))
    assert cities[1].tokened_by("NYNH") and not cities[0].tokened_by("NYNH")


def _fixture_position(name: str, upto: int):
    import json
    from pathlib import Path

    from engine.titles import load_18xx

    log = json.loads((Path(__file__).parent / "fixtures" / "1830" / f"{name}.json").read_text())
    return load_18xx(log, upto=upto)


def test_mh_is_exchanged_by_its_player_while_a_corporation_operates():
    # 26855 after action 60: NYC (presided by 117) is buying trains; MH belongs to 330, who may exchange it
    # then, as on 18xx.games ("when": "any")
    game = _fixture_position("26855", 60)
    assert game.round.current_operator().sym == "NYC"
    game.apply(act("MH", "buy_shares", "company", shares=["NYC_6"], percent=10))
    assert game.share("NYC_6").owner is game.player(330) and game.company("MH").closed
    assert game.round.current_operator().sym == "NYC" and game.active_players() == [117]


@pytest.mark.parametrize("upto, operator", [(100, "PRR"), (240, "NYC")])
def test_a_corporations_cs_lays_only_in_its_own_turn(upto, operator):
    # 1830_game_end_bank: NYNH owns CS from action 84 and lays its tile at 261. Its ability is
    # "owning_corp_or_turn": 18xx.games refuses it while another corporation operates, as here
    lay = act("CS", "lay_tile", "company", hex="B20", tile="58-0", rotation=2)
    game = _fixture_position("1830_game_end_bank", upto)
    assert game.round.current_operator().sym == operator
    with pytest.raises(GameError, match="not CS's turn"):
        game.apply(lay)


@pytest.mark.parametrize("upto", [150, 255])
def test_a_corporations_cs_lays_at_any_step_of_its_turn(upto):
    # NYNH placing a station (150) or laying its own track (255): the CS lay is accepted both times
    game = _fixture_position("1830_game_end_bank", upto)
    assert game.round.current_operator().sym == "NYNH"
    game.apply(act("CS", "lay_tile", "company", hex="B20", tile="58-0", rotation=2))
    assert game.hexmap.hex("B20").tile.name == "58"


def test_every_corporation_over_the_train_limit_is_to_act_and_any_may_discard_first():
    """A 5-train left NYC, B&O and B&M (whose turn it is) over the limit of 2 (a random game's state): all three
    are to act, each president's moves are their own corporation's discards, and the last named discards
    first. The first is still the one asked first (18xx.games' current entity)."""
    import json
    from pathlib import Path

    from engine.titles import load_18xx
    log = json.loads((Path(__file__).parent / "fixtures/1830/random/discard_pile_first_of_each.json").read_text())
    game = load_18xx(log, upto=614)
    assert [c.sym for c in game.acting_entities()] == ["NYC", "B&O", "B&M"]
    assert game.active_players() == [4, 6, 1]
    assert game.acting_entity() == {"entity": "NYC", "entity_type": "corporation"}
    for pid, sym in ((4, "NYC"), (6, "B&O"), (1, "B&M")):
        assert game.acting_entity(pid) == {"entity": sym, "entity_type": "corporation"}
        discards = [a for a in game.legal_actions(pid) if a["type"] == "discard_train"]
        assert sorted(a["train"] for a in discards) == sorted(t.id for t in game.corporation(sym).trains)
        assert {a["entity"] for a in discards} == {sym}
    assert game.legal_actions(2) == [] and game.acting_entity(2) == game.acting_entity()
    with pytest.raises(GameError, match="it's not C&O's turn: NYC or B&O or B&M must discard"):
        game.apply(act("C&O", "discard_train", "corporation", train="2-0"))
    game.apply(act("B&M", "discard_train", "corporation", train="4-2"))
    assert [c.sym for c in game.acting_entities()] == ["NYC", "B&O"] and game.active_players() == [4, 6]


def _erie_lays_dhs_tile():
    """1830_game_end_bank after action 226: ERIE (at its track step, two stations left) buys DH and lays DH's
    tile on F16; DH's station is then to be placed or declined before anything else (18xx.games agrees on
    every verdict below)."""
    game = _fixture_position("1830_game_end_bank", 226)
    game.apply(act("ERIE", "buy_company", "corporation", company="DH", price=140))
    game.apply(act("DH", "lay_tile", "company", hex="F16", tile="57-1", rotation=1))
    return game


def test_dhs_station_is_settled_right_after_its_tile():
    game = _erie_lays_dhs_tile()
    president = game.player_of(game.corporation("ERIE")).id
    assert game.acting_entity() == {"entity": "DH", "entity_type": "company"}
    assert sorted((a["type"], a.get("city")) for a in game.legal_actions(president)) == \
        [("pass", None), ("place_token", "57-1-0")]
    for refused, reason in [
        (act("ERIE", "pass", "corporation"), "not ERIE's turn: DH must place the teleport station"),
        (act("ERIE", "lay_tile", "corporation", hex="E11", tile="59-1", rotation=2), "already laid its track"),
        (act("DH", "lay_tile", "company", hex="F16", tile="57-1", rotation=2), "first place the teleport station"),
        (act("DH", "place_token", "company", city="E11-0-0", slot=0), "free station goes on F16"),
    ]:
        with pytest.raises(GameError, match=reason):
            game.apply(refused)
    erie = game.corporation("ERIE")  # a refused move puts the state back: look the corporation up again
    cash, left = erie.cash, erie.tokens_left
    game.apply(act("DH", "place_token", "company", city="57-1-0", slot=0))
    # free, from the charter, and the turn's station
    assert (erie.cash, erie.tokens_left) == (cash, left - 1)
    assert game.hexmap.city("57-1-0").tokened_by("ERIE")
    assert game.acting_entity() == {"entity": "ERIE", "entity_type": "corporation"}
    with pytest.raises(GameError, match="DH has no station to place"):
        game.apply(act("DH", "place_token", "company", city="57-1-0", slot=0))


def test_dhs_station_may_be_declined_once():
    game = _erie_lays_dhs_tile()
    erie = game.corporation("ERIE")
    left = erie.tokens_left
    game.apply(act("DH", "pass", "company"))
    assert erie.tokens_left == left and not game.hexmap.city("57-1-0").tokened_by("ERIE")
    assert game.acting_entity() == {"entity": "ERIE", "entity_type": "corporation"}
    with pytest.raises(GameError, match="DH has no station to place"):
        game.apply(act("DH", "place_token", "company", city="57-1-0", slot=0))
    with pytest.raises(GameError, match="DH can't pass now"):
        game.apply(act("DH", "pass", "company"))


@pytest.mark.parametrize("upto, corp, city, reason", [
    # at its track step, with a free slot it reaches: the track comes first
    (100, "PRR", "57-2-0", "PRR can't place token now: first lay or upgrade a tile, or pass"),
    (118, "PRR", "57-2-0", "PRR has already placed a station token this turn"),
    (145, "B&O", "59-0-0", "B&O has passed on placing a station token this turn"),
    # PRR had 95 for a station of 100 at its station step, so the step went by; its dividend since left it 145
    (220, "PRR", "57-3-0", "PRR had no station token it could place when its station step came, so that step is over"),
])
def test_a_refused_station_says_what_became_of_the_turns_station_step(upto, corp, city, reason):
    game = _fixture_position("1830_game_end_bank", upto)
    assert game.round.current_operator().sym == corp
    assert (city, 0) in game.hexmap.legal_tokens(corp)
    with pytest.raises(GameError, match=f"^{re.escape(reason)}$"):
        game.apply(act(corp, "place_token", "corporation", city=city, slot=0))


@pytest.mark.parametrize("shares", [["B&O_0"], ["B&O_5", "B&O_0"]])
def test_the_presidents_certificate_is_sold_only_after_its_sellers_other_certificates(shares):
    """A sale handing B&O's presidency on that names the president's certificate without the seller's other
    B&O certificates is refused (18xx.games' pages never send it; its engine pays and leaves the certificates)
    and changes nothing; the same 20% sold as the seller's ordinary certificates hands the presidency on."""
    game = _fixture_position("26855", 144)  # stock round: 330 holds B&O_2, B&O_5 and B&O_0 (40%), 82 holds 30%
    seller = game.player(330).name

    def holdings():
        bo = game.corporation("B&O")
        return game.player(330).cash, game.pool.percent_of(bo), {p.id: v for p, v in game.player_percents(bo).items()}

    before = holdings()
    with pytest.raises(GameError, match=f"{seller} can't sell the president's certificate of B&O without the "
                                        f"other B&O certificates {seller} holds"):
        game.apply(act(330, "sell_shares", shares=shares, percent=20))
    assert holdings() == before
    game.apply(act(330, "sell_shares", shares=["B&O_2", "B&O_5"], percent=20))
    assert game.corporation("B&O").owner is game.player(82)
    assert holdings()[1:] == (before[1] + 20, {330: 20, 82: 30})


def test_a_player_over_the_limit_who_cant_sell_may_still_buy_in_a_zone_off_the_limit():
    """As on 18xx.games, a certificate of a corporation whose price is in the yellow, orange or brown zone can be
    bought whatever the buyer's count, even by a player over the limit who can't sell down; any other is
    refused. 26855 before action 125: Player 2 has sold PRR this round and can sell nothing (NYC and NYNH have
    50% in the pool; nobody else holds 20% of his B&O); the limit is set one below his 4 certificates, as when
    a price leaves a zone."""
    game = _fixture_position("26855", 124)
    player = game.player(82)
    game.cert_limit = game.num_certs(player) - 1
    assert not game.round.active_step().must_sell(player)
    buys = {tuple(a["shares"]) for a in game.legal_actions() if a["type"] == "buy_shares"}
    assert buys == {("NYC_2",), ("NYC_8",), ("NYNH_8",)}  # NYC orange, NYNH yellow; not B&O (par zone)
    cash = player.cash
    with pytest.raises(GameError, match="^Player 2 is at the certificate limit of 3$"):
        game.apply(act(82, "buy_shares", shares=["B&O_3"], percent=10))
    player = game.player(82)  # the refusal restored the game's objects
    assert player.cash == cash and game.corporation("B&O").holdings[player] == 20 and game.cert_limit == 3
    game.apply(act(82, "buy_shares", shares=["NYNH_8"], percent=10))
    player = game.player(82)
    assert game.corporation("NYNH").holdings[player] == 30 and player.cash == cash - 50
    assert game.num_certs(player) == 4


def test_a_player_over_the_limit_passed_over_for_want_of_cash_is_told_it_is_the_cash():
    """A player over the certificate limit who can't sell is still offered the certificates in a zone off the
    limit; when what stops him is their price, the reason he is passed over is his cash, not the limit.
    26855 after action 124: Player 2 has sold PRR this round and can sell nothing; his turn ends, the others
    pass, and before his turn comes again the limit is set one below his 4 certificates and his cash to $0,
    short of NYC's $40 (orange) and NYNH's $50 (yellow) and of any private another player might sell him."""
    game = _fixture_position("26855", 124)
    game.apply(act(82, "pass"))
    for pid in (117, 330):
        game.apply(act(pid, "pass"))
    player = game.player(82)
    game.cert_limit = game.num_certs(player) - 1
    player.cash = 0
    game.apply(act(1627, "pass"))
    assert game.turn_info()["passed_over"][0] == {"entity": 82, "entity_type": "player", "why": "cash",
                                                  "cash": 0}
