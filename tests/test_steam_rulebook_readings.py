"""D1-D5 (docs/steam-rules.md, "Readings decided against the rulebook"): each as the rulebook says it,
with the rulebook's own example where there is one."""

from __future__ import annotations

import pytest

from engine.core.errors import GameError
from engine.steam.actions import EndBuild, Lay, Move, Redirect, Urbanize
from engine.steam.game import CITY_STUB
from engine.steam.testing import (
    city,
    fingerprint,
    make_board,
    new_game,
    put,
    set_cubes,
    start_build,
    start_move,
)


def _urbanizing(g, player: int = 0):
    start_build(g, player, {7: player})
    g.s.pending[player] = "urbanize"
    g.s.players[player].cash = 20
    return g


# --- D1: a New City takes a reserve hex's cubes; nothing comes out of the bag during play ---------
def _town_board():
    return make_board({(0, 0): city("Albany", "blue"), (0, 2): {"town": "Troy"}, (0, 4): city("York", "red")})


def test_d1_new_city_takes_the_cubes_of_the_chosen_reserve_hex():
    g = _urbanizing(new_game(_town_board(), 3))
    bag, reserve = dict(g.s.bag), g.s.reserve[2]
    g.apply(Urbanize(player=0, hex=(0, 2), color="gray", reserve=2))
    assert g.s.city_cubes[(0, 2)] == reserve and g.s.reserve[2] == ()
    assert g.s.bag == bag  # "Во время игры новые кубики товаров из мешочка не достаются"


def test_d1_reserve_hex_must_be_named_while_one_has_cubes():
    g = _urbanizing(new_game(_town_board(), 3))
    before = fingerprint(g)
    with pytest.raises(GameError, match="choose a reserve hex"):
        g.apply(Urbanize(player=0, hex=(0, 2), color="gray"))
    kept, g.s.reserve[1] = g.s.reserve[1], ()
    with pytest.raises(GameError, match=r"reserve hex 1 \(B\) is empty"):
        g.apply(Urbanize(player=0, hex=(0, 2), color="gray", reserve=1))
    g.s.reserve[1] = kept
    assert fingerprint(g) == before


def test_d1_with_every_reserve_hex_empty_the_new_city_has_no_cubes():
    g = _urbanizing(new_game(_town_board(), 3))
    g.s.bag["red"] += sum(len(r) for r in g.s.reserve)  # keep the cube count whole for the check below
    g.s.reserve = [() for _ in g.s.reserve]
    bag = dict(g.s.bag)
    g.apply(Urbanize(player=0, hex=(0, 2), color="blue"))
    assert g.s.city_cubes[(0, 2)] == () and g.s.bag == bag


# --- D2 / D3: taking over a neutral incomplete link needs eligibility, for town tiles and New Cities -----
def _neutral_spur():
    """Albany - X (town) owned by seat 1 ("black"); X's other spur runs south, neutral, and stops with its
    open end facing the town T.  The rulebook's example: "the neutral incomplete link (A) connects directly
    only with black's links, so only black may continue it and own it"."""
    board = make_board({(0, 0): city("Albany", "blue"), (0, 2): {"town": "X"}, (0, 4): {"town": "T"},
                        (0, 7): city("York", "red"), (3, 3): city("Far", "purple")})
    g = new_game(board, 3)
    g.s.order = [0, 1, 2]
    put(g, (0, 1), "21", 0, owner=1)
    put(g, (0, 2), "T21", 0, owner=1)
    put(g, (0, 3), "21", 0, owner=None)
    g._set_owner(g.network().link_of((0, 3), (0, 3)), None)
    g._touch()
    link = g.network().link_of((0, 3), (0, 3))
    assert link.owner is None and not link.complete and link.open_end[1:] == ((0, 3), 3)
    return g


def test_d2_town_tile_may_not_take_over_a_neutral_link_it_is_not_eligible_for():
    g = _neutral_spur()
    start_build(g, 0)
    g.s.players[0].cash = 20
    before = fingerprint(g)
    with pytest.raises(GameError, match="neutral incomplete link"):
        g.apply(Lay(player=0, hex=(0, 4), tile="T21", rotation=0))  # spur north meets the neutral link
    assert fingerprint(g) == before


def test_d2_the_eligible_player_completes_it_with_a_town_tile_and_owns_it():
    g = _neutral_spur()
    start_build(g, 1)
    g.s.players[1].cash = 20
    g.apply(Lay(player=1, hex=(0, 4), tile="T21", rotation=0))
    link = g.network().link_of((0, 3), (0, 3))
    assert link.complete and link.owner == 1
    assert sorted(g.place_name(n) for n in link.nodes) == ["T", "X"]


def test_d3_new_city_completes_a_neutral_link_but_owns_it_only_if_eligible():
    g = _urbanizing(_neutral_spur(), 0)
    g.apply(Urbanize(player=0, hex=(0, 4), color="gray", reserve=0))
    link = g.network().link_of((0, 3), (0, 3))
    assert link.complete and link.owner is None  # complete for good, usable, scoring nobody


def test_d3_the_eligible_urbanizer_owns_the_link_it_completes():
    g = _urbanizing(_neutral_spur(), 1)
    g.apply(Urbanize(player=1, hex=(0, 4), color="gray", reserve=0))
    link = g.network().link_of((0, 3), (0, 3))
    assert link.complete and link.owner == 1


def test_d3_neutral_link_from_a_city_goes_to_any_urbanizer():
    board = make_board({(0, 0): city("Albany", "blue"), (0, 3): {"town": "T"}})
    g = _urbanizing(new_game(board, 3), 2)
    put(g, (0, 1), "21", 0, owner=None)
    put(g, (0, 2), "21", 0, owner=None)
    g.apply(Urbanize(player=2, hex=(0, 3), color="red", reserve=0))
    link = g.network().link_of((0, 1), (0, 3))
    assert link.complete and link.owner == 2


# --- D4: any town tile may be replaced by a New City; its direct links to neighbouring cities stay -----
def _spur_into_city():
    board = make_board({(0, 0): city("Albany", "blue"), (0, 1): {"town": "Troy"}, (0, 3): city("York", "red")})
    g = new_game(board, 3)
    g.s.order = [0, 1, 2]
    put(g, (0, 1), "T21", 0, owner=0)  # spur N straight into Albany: a complete link of no track tile
    put(g, (0, 2), "21", 0, owner=1)  # spur S + one tile into York: seat 1's link
    g._set_owner(g.network().link_of((0, 1), (3,)), 1)
    g._touch()
    return g


def test_d4_town_with_a_spur_straight_into_a_city_can_be_urbanized_and_keeps_that_link():
    g = _urbanizing(_spur_into_city(), 2)
    direct = g.network().link_of((0, 1), (0,))
    assert direct.complete and direct.owner == 0 and len(direct.segs) == 1
    used = dict(g.s.used_faces)
    g.apply(Urbanize(player=2, hex=(0, 1), color="gray", reserve=0))
    assert g.s.track[(0, 1)].face == CITY_STUB
    assert g.s.used_faces["T21"] == used["T21"] - 1  # the town tile went back to the supply
    net = g.network()
    kept = net.link_of((0, 1), (0,))
    assert kept.complete and kept.owner == 0  # "вы не можете лишиться прав собственности на законченные перегоны"
    assert sorted(g.place_name(n) for n in kept.nodes) == ["Albany", "Troy (city)"]
    south = net.link_of((0, 2), (0, 3))
    assert south.complete and south.owner == 1 and sorted(g.place_name(n) for n in south.nodes) == [
        "Troy (city)", "York"]
    g.apply(EndBuild(player=2))


def test_d4_the_kept_direct_link_carries_goods_and_scores():
    g = _urbanizing(_spur_into_city(), 2)
    g.apply(Urbanize(player=2, hex=(0, 1), color="gray", reserve=0))
    set_cubes(g, (0, 1), ["blue"])
    start_move(g, [0, 1, 2])
    lid = g.network().link_of((0, 1), (0,)).id
    g.apply(Move(player=0, city=(0, 1), color="blue", links=(lid,)))
    assert g.s.players[0].income == 1


# --- D5: redirecting turns the open-end path of any tile; other track on the tile stays --------------
def _crossing():
    board = make_board({(0, 0): city("Albany", "blue"), (4, 0): city("Hartford", "purple")})
    g = new_game(board, 3)
    g.s.order = [0, 1, 2]
    put(g, (1, 0), "41", 2, owner=0)  # paths N-S and NW-SE: seat 0's line from Albany ends SE
    g._set_owner(g.network().link_of((1, 0), (0, 3)), 1)  # the N-S path is seat 1's
    g._touch()
    start_build(g, 0)
    g.s.players[0].cash = 10
    return g


def test_d5_a_two_path_tile_at_an_open_end_can_be_redirected_keeping_the_other_path():
    g = _crossing()
    g.apply(Redirect(player=0, hex=(1, 0), tile="42", rotation=3))  # NW-SE becomes NW-NE
    tile = g.s.track[(1, 0)]
    assert {sg.edges: sg.owner for sg in tile.segs} == {(0, 3): 1, (1, 5): 0}
    assert g.s.players[0].cash == 6  # the base price of a four-edge tile, no terrain


def test_d5_redirecting_may_not_move_the_other_path():
    g = _crossing()
    before = fingerprint(g)
    with pytest.raises(GameError, match="changes more than the end of one link"):
        g.apply(Redirect(player=0, hex=(1, 0), tile="43", rotation=0))  # would turn both paths
    assert fingerprint(g) == before


def test_d5_enumerated_redirects_of_a_two_path_tile_are_legal():
    g = _crossing()
    redirects = [a for a in g.legal_models() if isinstance(a, Redirect)]
    assert {(a.tile, a.rotation) for a in redirects} >= {("42", 3)}
    for a in redirects:
        g._plan_track(a)  # each one validates
