"""Illegal Steam moves: each is refused with a GameError naming the rule, and the state is unchanged."""

from __future__ import annotations

import pytest
from refusals import assert_russian

from engine.core.errors import GameError
from engine.steam.actions import (
    Bid,
    Capital,
    EndBuild,
    Grow,
    Lay,
    Move,
    Pass,
    Redirect,
    TakeTile,
    Upgrade,
    UpgradeLoco,
    Urbanize,
)
from engine.steam.game import Game, Settings
from engine.steam.testing import (
    build_game,
    delivery_game,
    fingerprint,
    line_board,
    ne_board,
    ne_game,
    new_game,
    put,
    set_cubes,
    start_build,
    start_move,
)


def refused(g, action, match: str) -> None:
    before = fingerprint(g)
    with pytest.raises(GameError, match=match) as refusal:
        g.apply(action)
    assert_russian(refusal.value)
    assert fingerprint(g) == before, "a refused action changed the state"


# --- turn, shape, selection -------------------------------------------------------------------
def test_not_your_turn():
    refused(ne_game(), TakeTile(player=1, tile=1), "it is P1's turn")


def test_malformed_action():
    refused(ne_game(), {"type": "teleport", "entity": 1}, "unknown Steam action type 'teleport'")


def test_tile_already_taken():
    g = ne_game()
    g.apply(TakeTile(player=0, tile=3))
    refused(g, TakeTile(player=1, tile=3), "already taken")


def test_no_such_tile():
    refused(ne_game(), TakeTile(player=0, tile=8), "numbered 1-7")


def test_locomotive_at_level_6():
    g = ne_game()
    g.s.players[0].loco = 6
    refused(g, TakeTile(player=0, tile=6), "level 6")


def test_pass_only_on_growth_or_urbanization():
    refused(ne_game(), TakeTile(player=0, tile=2, use=False), "only City Growth and Urbanization")


def test_basic_cost_not_coverable_even_with_loans():
    g = ne_game()
    p = g.s.players[0]
    p.income, p.vp, p.cash = -10, 1, 0
    refused(g, TakeTile(player=0, tile=6), "cannot cover it even with loans")


def test_wrong_action_for_phase():
    refused(ne_game(), Lay(player=0, hex=(0, 1), tile="21", rotation=0), "action-tile selection")


# --- building -------------------------------------------------------------------------------
def test_lay_on_water():
    refused(build_game(), Lay(player=0, hex=(7, 5), tile="21", rotation=0), "water")


def test_lay_on_city():
    refused(build_game(), Lay(player=0, hex=(0, 0), tile="21", rotation=0), "is a city")


def test_plain_tile_on_town():
    refused(build_game(), Lay(player=0, hex=(0, 2), tile="21", rotation=0), "only town track tiles")


def test_town_tile_on_plain_hex():
    refused(build_game(), Lay(player=0, hex=(0, 1), tile="T21", rotation=0), "only be laid on a town")


# (track already on the board: hex, tile, rotation, owner), the refused build, the rule it breaks
ON_TRACK = {
    # open end at (7, 4) pointing south into the lake (7, 5)
    "off_board": ([((7, 4), "21", 0, 0)], Lay(player=0, hex=(-3, -5), tile="21", rotation=0), "off the board"),
    # P2's lines south and south-east from Albany, open towards Poughkeepsie and at (2, 0)
    "another_players_incomplete_link": ([((0, 1), "21", 0, 1), ((1, 0), "21", 2, 1)],
                                        Lay(player=0, hex=(2, 0), tile="22", rotation=5), "belongs to P2"),
    # from Albany (edge 5) turning to edge 4 -> (0, 1)
    "link_returns_to_its_city": ([((1, 0), "23", 4, 0)], Lay(player=0, hex=(0, 1), tile="23", rotation=0),
                                 "same city"),
    "upgrade_must_keep_track": ([((1, 0), "21", 2, 0)], Upgrade(player=0, hex=(1, 0), tile="41", rotation=0),
                                "does not keep all the track"),
    "town_tile_redirect": ([((0, 2), "T11", 0, 0)], Redirect(player=0, hex=(0, 2), tile="T11", rotation=1),
                           "town tile cannot be redirected"),
    "redirect_another_players_link": ([((1, 0), "21", 2, 1)], Redirect(player=0, hex=(1, 0), tile="22", rotation=5),
                                      "another player's link"),
    "redirect_complete_link": ([((0, 1), "21", 0, 0), ((0, 2), "T21", 0, 0)],
                               Redirect(player=0, hex=(0, 1), tile="22", rotation=0),
                               "complete link cannot be redirected"),
    # a neutral spur from Lakeside pointing south to (6, 7), touching none of P1's links
    "neutral_link_not_eligible": ([((6, 6), "T11", 3, None)], Lay(player=0, hex=(6, 7), tile="21", rotation=0),
                                  "neutral incomplete link"),
}


@pytest.mark.parametrize("case", ON_TRACK)
def test_build_refused_by_track_on_the_board(case):
    placed, action, match = ON_TRACK[case]
    g = build_game()
    for h, face, rot, owner in placed:
        put(g, h, face, rot, owner=owner)
    refused(g, action, match)


def test_tile_must_start_from_city_or_track():
    refused(build_game(), Lay(player=0, hex=(2, 4), tile="21", rotation=0), "must start from a city")


def test_fourth_placement_needs_engineer():
    g = build_game()
    g.apply(Lay(player=0, hex=(0, 1), tile="21", rotation=0))
    g.apply(Lay(player=0, hex=(0, 2), tile="T21", rotation=0))
    g.apply(Lay(player=0, hex=(0, 3), tile="21", rotation=0))
    refused(g, Lay(player=0, hex=(1, 0), tile="21", rotation=2), "Engineer allows 4")


def test_tile_not_in_supply():
    g = build_game()
    g.s.used_faces["T23"] = 8  # 23 and T23 share the same 8 physical tiles
    refused(g, Lay(player=0, hex=(1, 0), tile="23", rotation=4), "no tile 23 is left")


def test_urbanize_without_the_tile():
    refused(build_game(), Urbanize(player=0, hex=(4, 0), color="gray"), "only after taking Urbanization")


def test_urbanize_on_non_town():
    g = build_game(tiles={7: 0})
    g.s.pending[0] = "urbanize"
    refused(g, Urbanize(player=0, hex=(1, 1), color="red"), "not a town")


def test_end_build_with_committed_urbanization():
    g = build_game(tiles={7: 0})
    g.s.pending[0] = "urbanize"
    refused(g, EndBuild(player=0), "must carry it out")


def test_grow_already_grown_city_and_empty_reserve():
    g = build_game(tiles={5: 0})
    g.s.pending[0] = "grow"
    g.s.grown.add((0, 0))
    refused(g, Grow(player=0, reserve=0, city=(0, 0)), "already has a City Growth marker")
    g.s.reserve[1] = ()
    refused(g, Grow(player=0, reserve=1, city=(0, 4)), "reserve hex 1 \\(B\\) is empty")


def test_standard_cannot_spend_more_than_cash():
    g = new_game(ne_board(), 3, mode="standard")
    g.s.order = [0, 1, 2]
    start_build(g, 0)
    g.s.players[0].cash = 2
    refused(g, Lay(player=0, hex=(0, 1), tile="21", rotation=0), "cannot spend more than your cash")


# --- moving goods ------------------------------------------------------------------------------
def test_move_longer_than_locomotive():
    g, ids = delivery_game(["blue", "purple", "red"], [0, 0], loco=1)
    refused(g, Move(player=0, city=(0, 0), color="red", links=tuple(ids)), "at most 1 link")


def test_move_past_first_city_of_its_colour():
    g, ids = delivery_game(["blue", "red", "red"], [0, 0])
    refused(g, Move(player=0, city=(0, 0), color="red", links=tuple(ids)), "stops at C1")


def test_move_only_on_other_players_links():
    g, ids = delivery_game(["blue", "red"], [1])
    refused(g, Move(player=0, city=(0, 0), color="red", links=tuple(ids)), "at least one link")


def test_move_to_wrong_colour():
    g, ids = delivery_game(["blue", "yellow"], [0])
    refused(g, Move(player=0, city=(0, 0), color="red", links=tuple(ids)), "only to a red city")


def test_move_over_incomplete_link():
    g = new_game(line_board(["blue", "red"]), 3)
    g.s.order = [0, 1, 2]
    put(g, (1, 0), "21", 0, owner=0)
    set_cubes(g, (0, 0), ["red"])
    start_move(g, [0, 1, 2])
    lid = g.network().link_of((1, 0), (0, 3)).id
    refused(g, Move(player=0, city=(0, 0), color="red", links=(lid,)), "incomplete")


def test_move_missing_cube():
    g, ids = delivery_game(["blue", "red"], [0], cubes=())
    refused(g, Move(player=0, city=(0, 0), color="red", links=tuple(ids)), "no red cube")


def test_locomotive_upgrade_once_per_phase():
    g, _ = delivery_game(["blue", "red"], [0])
    g.s.move_queue = [0]
    g.apply(UpgradeLoco(player=0))
    assert g.s.cycle == 2
    refused(g, UpgradeLoco(player=0), "only once per move-goods phase")


# --- auctions and capital ----------------------------------------------------------------------
def test_setup_bid_must_raise():
    g = Game(Settings(map="rust_belt", mode="basic", players=3, seed=1))
    p = g.active_seat()
    g.apply(Bid(player=p, amount=4))
    refused(g, Bid(player=g.active_seat(), amount=4), "at least \\$5")


def test_setup_bid_beyond_borrowing():
    g = Game(Settings(map="rust_belt", mode="basic", players=3, seed=1))
    refused(g, Bid(player=g.active_seat(), amount=51), "at most \\$50 can be borrowed")


def test_standard_capital_beyond_minus_10():
    g = Game(Settings(map="rust_belt", mode="standard", players=3, seed=1))
    refused(g, Capital(player=g.active_seat(), loans=11), "at most 10 x \\$5")


def test_standard_bid_above_cash():
    g = Game(Settings(map="rust_belt", mode="standard", players=3, seed=1))
    for _ in range(3):
        g.apply(Capital(player=g.active_seat(), loans=1))
    refused(g, Bid(player=g.active_seat(), amount=6), "more than your cash")


def test_action_after_game_over():
    g = new_game(line_board(["red", "blue"]), 3)
    g.s.round = g.rounds
    g.s.order = [0, 1, 2]
    start_move(g, [0, 1, 2], cycle=2)
    for p in (0, 1, 2):
        g.apply(Pass(player=p))
    assert g.finished
    refused(g, Pass(player=0), "game is over")
