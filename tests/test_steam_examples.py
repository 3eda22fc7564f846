"""Every worked example of the Steam rulebook (digest section 12, T1-T26), with the book's numbers."""

from __future__ import annotations

import pytest

from engine.core.errors import GameError
from engine.steam.actions import (
    Bid,
    Capital,
    EndBuild,
    Lay,
    Move,
    Pass,
    Score,
    TakeTile,
    Upgrade,
    UpgradeLoco,
    Urbanize,
)
from engine.steam.game import Game, Settings
from engine.steam.testing import (
    delivery_game,
    line_board,
    line_links,
    ne_board,
    new_game,
    put,
    start_build,
    start_move,
)


def test_t1_forced_loan_for_8_dollars():
    # Vladimir needs $8 with no cash: income -2, $2 change.  Locomotive 3->4 costs 4 + 4 = $8.
    g = new_game(ne_board(), 3)
    p = g.active_seat()
    pl = g.s.players[p]
    pl.cash, pl.income, pl.loco = 0, 0, 3
    g.apply(TakeTile(player=p, tile=6))
    assert (pl.income, pl.cash, pl.loco) == (-2, 2, 4)


def test_t2_setup_auction_slot_1_for_7():
    g = Game(Settings(map="rust_belt", mode="basic", players=["Kirill", "A", "B", "C", "D"], seed=3))
    kirill = g.active_seat()
    g.apply(Bid(player=kirill, amount=7))
    for _ in range(4):
        g.apply(Pass(player=g.active_seat()))
    k = g.s.players[kirill]
    assert (k.income, k.cash) == (-2, 3)
    assert g.s.auction["placed"] == [kirill]
    assert g.active_seat() == (kirill + 1) % 5  # the player to his left opens slot 2


def test_setup_auction_last_slot_is_free_and_order_is_set():
    g = Game(Settings(map="rust_belt", mode="basic", players=3, seed=5))
    for _ in range(5):
        if g.s.phase != "setup_auction":
            break
        g.apply(Pass(player=g.active_seat()))
    assert g.s.phase == "select" and sorted(g.s.order) == [0, 1, 2]
    assert all(p.income == 0 and p.cash == 0 for p in g.s.players)


def test_first_game_draw_gives_starting_money():
    g = Game(Settings(map="rust_belt", mode="basic", players=4, seed=9, turn_order="draw"))
    assert [g.s.players[p].cash for p in g.s.order] == [0, 1, 2, 3]
    first = g.s.order[0]
    assert g.s.order == [(first + i) % 4 for i in range(4)]  # clockwise from the lowest tile


def test_t3_locomotive_4_to_5_costs_9():
    g = new_game(ne_board(), 3)
    p = g.active_seat()
    pl = g.s.players[p]
    pl.cash, pl.loco = 20, 4
    g.apply(TakeTile(player=p, tile=6))
    assert (pl.cash, pl.loco) == (11, 5)


def _ne_round():
    """Roman (First Build), Maria (Engineer), Kirill (Urbanization) as in illustrations 1-3."""
    g = new_game(ne_board(), ["Roman", "Maria", "Kirill"])
    s = g.s
    s.order = [0, 1, 2]
    for pl in s.players:
        pl.cash, pl.income = 30, 0
    g.apply(TakeTile(player=0, tile=4))
    g.apply(TakeTile(player=1, tile=3))
    g.apply(TakeTile(player=2, tile=7, use=True))
    assert s.players[2].cash == 24  # Urbanization: $6 when chosen
    return g


def test_t4_t5_t7_roman_first_build_three_tiles_10_dollars_two_links():
    g = _ne_round()
    s = g.s
    assert g.active_seat() == 0 and s.phase == "build"
    g.apply(Lay(player=0, hex=(0, 1), tile="21", rotation=0))  # A: straight on river: $3 (T4)
    assert s.players[0].cash == 27
    g.apply(Lay(player=0, hex=(0, 2), tile="T21", rotation=0))  # B: town straight, town + river: $4 (T5)
    assert s.players[0].cash == 23
    g.apply(Lay(player=0, hex=(0, 3), tile="21", rotation=0))  # C: straight on river: $3
    assert s.players[0].cash == 20  # $10 in all
    with pytest.raises(GameError, match="all 3 tile placements"):
        g.apply(Lay(player=0, hex=(1, 0), tile="21", rotation=2))
    g.apply(EndBuild(player=0))
    owned = [lk for lk in g.network().links if lk.owner == 0 and lk.complete]
    assert len(owned) == 2
    names = sorted(sorted(g.place_name(n) for n in lk.nodes) for lk in owned)
    assert names == [["Albany", "Poughkeepsie"], ["New York", "Poughkeepsie"]]


def test_t6_t8_maria_engineer_four_tiles_10_dollars_one_link():
    g = _ne_round()
    g.apply(EndBuild(player=0))
    s = g.s
    g.apply(Lay(player=1, hex=(-1, 1), tile="22", rotation=1))  # gentle curve on hills: $4 (T6)
    assert s.players[1].cash == 26
    g.apply(Lay(player=1, hex=(-1, 2), tile="21", rotation=0))
    g.apply(Lay(player=1, hex=(-1, 3), tile="21", rotation=0))
    g.apply(Lay(player=1, hex=(-1, 4), tile="22", rotation=0))  # the 4th tile thanks to Engineer
    assert s.players[1].cash == 20
    g.apply(EndBuild(player=1))
    owned = [lk for lk in g.network().links if lk.owner == 1]
    assert len(owned) == 1 and owned[0].complete
    assert sorted(g.place_name(n) for n in owned[0].nodes) == ["Albany", "New York"]


def test_t9_kirill_three_tiles_and_new_city_14_dollars_two_links():
    g = _ne_round()
    g.apply(EndBuild(player=0))
    g.apply(EndBuild(player=1))
    s = g.s
    g.apply(Lay(player=2, hex=(1, 0), tile="21", rotation=2))  # $2
    g.apply(Lay(player=2, hex=(2, 0), tile="22", rotation=5))  # $2 + $2 hills
    g.apply(Lay(player=2, hex=(3, 0), tile="22", rotation=0))  # $2
    with pytest.raises(GameError, match="must carry it out"):
        g.apply(EndBuild(player=2))
    reserve = g.s.reserve[3]
    g.apply(Urbanize(player=2, hex=(4, 0), color="gray", reserve=3))  # does not count as a placement
    s = g.s  # a refused action restores the previous state object
    assert s.players[2].cash == 30 - 14
    assert s.new_cities == {(4, 0): "gray"} and (4, 0) in s.grown
    assert s.city_cubes[(4, 0)] == reserve and s.reserve[3] == ()  # D1: the cubes of a reserve hex
    g.apply(EndBuild(player=2))
    owned = [lk for lk in g.network().links if lk.owner == 2]
    assert len(owned) == 2 and all(lk.complete for lk in owned)
    assert sorted(sorted(g.place_name(n) for n in lk.nodes) for lk in owned) == [
        ["Albany", "Hartford"], ["Hartford", "New Haven (city)"]]


def test_t10_upgrade_crossing_on_river_costs_4():
    g = new_game(ne_board(), 3)
    g.s.new_cities[(4, 0)] = "gray"
    g.s.grown.add((4, 0))
    put(g, (5, -2), "21", 1, owner=2)  # black's track south-west of Boston (river hex)
    put(g, (5, -1), "22", 4, owner=1)  # green's line from New Haven, open end pointing north
    start_build(g, 1)
    g.s.players[1].cash = 10
    g.apply(Upgrade(player=1, hex=(5, -2), tile="41", rotation=0))
    assert g.s.players[1].cash == 6  # $1 x 4 edges, the river is not charged
    tile = g.s.track[(5, -2)]
    assert {sg.edges: sg.owner for sg in tile.segs} == {(1, 4): 2, (0, 3): 1}


def test_t11_two_path_tile_on_empty_river_hex_costs_5():
    g = new_game(ne_board(), 3)
    g.s.new_cities[(4, 0)] = "gray"
    put(g, (5, -2), "21", 1, owner=0)  # own incomplete line from Boston pointing at (4, -1)
    start_build(g, 0)
    g.s.players[0].cash = 10
    g.apply(Lay(player=0, hex=(4, -1), tile="42", rotation=3))
    assert g.s.players[0].cash == 5  # $4 base + $1 river
    links = [lk for lk in g.network().links if lk.owner == 0]
    assert any(lk.complete and sorted(g.place_name(n) for n in lk.nodes) == ["Boston", "Hartford"] for lk in links)
    assert any(not lk.complete and g.place_name(lk.nodes[0]) == "New Haven (city)" for lk in links)


def test_t12_larisa_locomotive_tile_then_upgrade_to_6():
    g = new_game(ne_board(), ["Larisa", "B", "C"])
    s = g.s
    s.order = [0, 1, 2]
    s.players[0].loco, s.players[0].cash = 4, 20
    g.apply(TakeTile(player=0, tile=6))
    assert s.players[0].loco == 5 and s.players[0].cash == 11  # T3 again: $9
    g.apply(TakeTile(player=1, tile=1))
    g.apply(TakeTile(player=2, tile=3))
    for p in (0, 1, 2):
        g.apply(EndBuild(player=p))
    for p in (0, 1, 2):
        g.apply(Pass(player=p))  # cycle 1
    vp = s.players[0].vp
    g.apply(UpgradeLoco(player=0))  # cycle 2
    assert s.players[0].loco == 6 and s.players[0].vp == vp == 0
    g.apply(Pass(player=1))
    g.apply(Pass(player=2))
    assert s.round == 2
    p = g.active_seat()
    if p == 0:
        with pytest.raises(GameError, match="level 6"):
            g.apply(TakeTile(player=0, tile=6))


def test_t13_red_cube_stops_at_first_red_city():
    g, ids = delivery_game(["blue", "red", "red"], [0, 0], 3, ["red"])
    with pytest.raises(GameError, match="stops at C1"):
        g.apply(Move(player=0, city=(0, 0), color="red", links=tuple(ids)))
    g.apply(Move(player=0, city=(0, 0), color="red", links=(ids[0],)))
    assert g.s.players[0].income == 1


def test_blue_cube_over_three_own_links_scores_3():
    g, ids = delivery_game(["red", "purple", "yellow", "blue"], [0, 0, 0], 3, ["blue"])
    g.apply(Move(player=0, city=(0, 0), color="blue", links=tuple(ids), to="vp"))
    assert g.s.players[0].vp == 3
    assert g.s.city_cubes[(0, 0)] == () and g.s.delivered == 1


def test_t14_red_to_boston_one_own_one_irina():
    g, ids = delivery_game(["blue", "purple", "red"], [0, 1], 3, ["red"])
    g.apply(Move(player=0, city=(0, 0), color="red", links=tuple(ids), to="income"))
    assert g.s.players[0].income == 1
    assert g.active_seat() == 1  # Irina chooses where her point goes
    g.apply(Score(player=1, to="vp"))
    assert g.s.players[1].vp == 1


def test_t15_level_4_purple_three_own_one_irina():
    g, ids = delivery_game(["blue", "red", "yellow", "blue", "purple"], [0, 0, 0, 1], 4, ["purple"])
    g.apply(Move(player=0, city=(0, 0), color="purple", links=tuple(ids), to="vp"))
    g.apply(Score(player=1, to="vp"))
    assert (g.s.players[0].vp, g.s.players[1].vp) == (3, 1)


def test_t16_level_5_yellow_three_own_two_irina_split_choice():
    g, ids = delivery_game(["blue", "red", "purple", "blue", "red", "yellow"], [0, 0, 0, 1, 1], 5, ["yellow"])
    g.apply(Move(player=0, city=(0, 0), color="yellow", links=tuple(ids), to="income"))
    g.apply(Score(player=1, to="vp"))
    assert g.s.players[0].income == 3 and g.s.players[0].vp == 0
    assert g.s.players[1].vp == 2 and g.s.players[1].income == 0


def test_t17_two_own_two_a_one_b_is_legal():
    g, ids = delivery_game(["blue", "red", "purple", "blue", "red", "yellow"], [0, 1, 0, 1, 2], 5, ["yellow"])
    g.apply(Move(player=0, city=(0, 0), color="yellow", links=tuple(ids)))
    assert g.s.score_queue == [(1, 2), (2, 1)]


def test_t18_two_own_three_a_is_illegal():
    g, ids = delivery_game(["blue", "red", "purple", "blue", "red", "yellow"], [0, 1, 0, 1, 1], 5, ["yellow"])
    with pytest.raises(GameError, match="outnumber"):
        g.apply(Move(player=0, city=(0, 0), color="yellow", links=tuple(ids)))


def _to_income_phase(g, incomes, cash):
    s = g.s
    s.order = list(range(len(s.players)))
    for p, (inc, c) in enumerate(zip(incomes, cash, strict=True)):
        s.players[p].income, s.players[p].cash = inc, c
        s.players[p].tile = p + 1
    start_move(g, s.order, cycle=2)
    for p in s.order:
        g.apply(Pass(player=p))


def test_t19_t20_income_phase():
    g = new_game(ne_board(), ["Andrei", "Elena", "X"])
    _to_income_phase(g, [2, -1, 0], [0, 0, 0])
    a, e, _ = g.s.players
    assert a.cash == 2 and a.income == 2
    assert (e.income, e.cash) == (-2, 4)


def test_t21_new_turn_order_by_tile_number():
    g = new_game(ne_board(), ["Valentina", "Natalia", "Alexei", "Grigory"])
    s = g.s
    s.order = [0, 1, 2, 3]
    g.apply(TakeTile(player=0, tile=6))
    g.apply(TakeTile(player=1, tile=4))
    g.apply(TakeTile(player=2, tile=7, use=False))
    g.apply(TakeTile(player=3, tile=2))
    for p in (1, 0, 2, 3):  # First Build first
        g.apply(EndBuild(player=p))
    for _cycle in range(2):
        for p in (3, 0, 1, 2):  # First Move first in both cycles
            assert g.active_seat() == p
            g.apply(Pass(player=p))
    assert s.round == 2
    assert [s.players[p].name for p in s.order] == ["Grigory", "Natalia", "Valentina", "Alexei"]


def _final_game(incomes, vps, link_owner_counts):
    n = len(incomes)
    colors = ["red", "blue"] * 6
    g = new_game(line_board(colors[: sum(link_owner_counts) + 1]), n)
    owners = [p for p, k in enumerate(link_owner_counts) for _ in range(k)]
    line_links(g, owners)
    g.s.round = g.rounds
    for p in range(n):
        g.s.players[p].vp = vps[p]
    _to_income_phase(g, incomes, [50] * n)
    assert g.finished
    return {g.seat_of(r["id"]): r for r in g.scoring()["ranking"]}


def test_t22_t23_t24_final_scoring():
    res = _final_game([-1, 5, -2], [37, 0, 0], [10, 0, 0])
    assert res[0]["vp"] == 45  # Nikolai: 37 - 2 + 10
    assert res[1]["income_vp"] == 2 and res[1]["vp"] == 2
    assert res[2]["income_vp"] == -4 and res[2]["vp"] == -4
    assert res[0]["rank"] == 1


def test_final_tie_break_lowest_tile_number():
    res = _final_game([0, 0, 0], [5, 5, 1], [0, 0, 0])
    assert res[0]["rank"] == 1 and res[1]["rank"] == 2  # tiles 1 and 2: lower number wins


def test_incomplete_links_score_nothing_at_the_end():
    g = new_game(line_board(["red", "blue"]), 3)
    put(g, (1, 0), "21", 0, owner=0)  # incomplete: no city at its far end
    line_links(g, [0])
    g.s.round = g.rounds
    _to_income_phase(g, [0, 0, 0], [0, 0, 0])
    res = {g.seat_of(r["id"]): r for r in g.scoring()["ranking"]}
    assert res[0]["links"] == 1


def test_t25_standard_auction_example():
    g = Game(Settings(map="rust_belt", mode="standard", players=["Danila", "Tatiana", "Egor", "Ivan"], seed=2))
    s = g.s
    s.order = [0, 1, 2, 3]
    s.free_pass = 3  # Ivan took First Player last round
    for p in range(4):
        g.apply(Capital(player=p, loans=1))
    assert s.phase == "auction"
    g.apply(Bid(player=0, amount=0))
    g.apply(Bid(player=1, amount=2))
    g.apply(Pass(player=2))  # Egor: slot 4
    g.apply(Pass(player=3))  # Ivan: free pass, stays in
    assert s.auction["slots"] == [None, None, None, 2]
    g.apply(Bid(player=0, amount=3))
    g.apply(Pass(player=1))  # Tatiana: slot 3
    g.apply(Pass(player=3))  # Ivan's second pass: slot 2
    assert s.order == [0, 3, 1, 2]
    assert [s.players[p].cash for p in range(4)] == [5 - 3, 5 - 1, 5 - 0, 5 - 0]
    assert s.phase == "select"


def test_t26_standard_locomotive_maintenance():
    g = Game(Settings(map="rust_belt", mode="standard", players=3, seed=4))
    s = g.s
    s.order = [0, 1, 2]
    s.players[0].loco, s.players[1].loco = 3, 6
    _to_income_phase(g, [0, 0, 0], [10, 10, 10])
    assert [p.cash for p in s.players] == [7, 4, 9]


def test_standard_shortfall_costs_vp_then_income_with_change():
    g = Game(Settings(map="rust_belt", mode="standard", players=3, seed=4))
    s = g.s
    s.players[0].vp = 1
    # income -2 and level 1: owes $3 with $0 -> 2 steps of $2: VP 1 -> 0, income -2 -> -3, $1 change.
    _to_income_phase(g, [-2, 0, 0], [0, 5, 5])
    p = s.players[0]
    assert (p.vp, p.income, p.cash) == (0, -3, 1)
