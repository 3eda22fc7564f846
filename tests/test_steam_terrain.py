"""Terrain and what it costs, by the rulebook: "+1 $, если на гексе река. +2 $, если на гексе холмы." A hex may
have both (a hill hex with a river, "river": true in the map format) and then pays both; the shipped maps
have no such hex and cost what they always did; the board picture shows a hill hex's river."""

from __future__ import annotations

import json

import pytest
from PIL import Image, ImageDraw

from engine.steam.actions import Lay, Redirect
from engine.steam.board import MAPS_DIR, HexInfo, MapError, load_board, map_names
from engine.steam.testing import city, make_board, new_game, put, start_build
from render.steam import style as S
from render.steam.board import _paint_terrain

# what a hex's terrain added before a hex could say "river" besides its one terrain
ONE_TERRAIN = {"plain": 0, "river": 1, "mountain": 2, "hill": 2}


def _hill_river_board():
    return make_board({
        (0, 0): city("Albany", "blue"),
        (0, 1): {"terrain": "hill", "river": True},
        (0, 2): {"terrain": "mountain", "river": True, "town": "Kingston"},
        (0, 4): city("New York", "yellow"),
    }, q_range=(-2, 2), r_range=(-1, 5), name="hill_river")


def test_a_hill_hex_with_a_river_pays_for_both():
    # "Стоимость прокладки рельсов ... Базовая цена: 1 $ за каждую грань ... +1 $, если на гексе посёлок.
    # +1 $, если на гексе река. +2 $, если на гексе холмы."
    g = new_game(_hill_river_board(), 3)
    start_build(g, 0)
    g.s.players[0].cash = 20
    g.apply(Lay(player=0, hex=(0, 1), tile="21", rotation=0))
    assert g.s.players[0].cash == 20 - (2 + 1 + 2)
    g.apply(Lay(player=0, hex=(0, 2), tile="T21", rotation=0))  # town, river and hills
    assert g.s.players[0].cash == 15 - (2 + 1 + 1 + 2)


def test_a_redirection_on_a_hill_hex_with_a_river_pays_no_terrain():
    # "вы обязаны оплатить все расходы, не связанные с типом местности (т. е. базовую цену, но не цену за
    # холмы и реку)"
    g = new_game(_hill_river_board(), 3)
    put(g, (0, 1), "21", 0, owner=0)  # from Albany south, open towards the town hex
    start_build(g, 0)
    g.s.players[0].cash = 10
    g.apply(Redirect(player=0, hex=(0, 1), tile="22", rotation=0))
    assert g.s.players[0].cash == 10 - 2


def test_the_map_format_says_a_river_besides_the_terrain():
    board = _hill_river_board()
    assert [(board.hexes[h].terrain, board.hexes[h].river, board.hexes[h].surcharge)
            for h in ((0, 1), (0, 2), (0, 3))] == [("hill", True, 3), ("mountain", True, 3), ("plain", False, 0)]
    river = make_board({(0, 0): city("A", "red"), (0, 1): {"terrain": "river"}})
    assert river.hexes[(0, 1)].river and river.hexes[(0, 1)].surcharge == 1
    for record, reason in (({"terrain": "hill", "river": "yes"}, "river must be true or false, not 'yes'"),
                           ({"terrain": "water", "river": True}, "a water hex cannot also have a river"),
                           ({"terrain": "river", "river": False}, 'terrain "river" has a river')):
        with pytest.raises(MapError, match=reason):
            make_board({(0, 0): city("A", "red"), (0, 1): record})


@pytest.mark.parametrize("name", map_names())
def test_the_shipped_maps_cost_what_they_did(name):
    data = json.loads((MAPS_DIR / f"{name}.json").read_text(encoding="utf-8"))
    assert not any("river" in rec for rec in data["hexes"])  # the files are as they were
    board = load_board(name)
    land = {h: i for h, i in board.hexes.items() if i.terrain != "water"}
    assert land and all(i.surcharge == ONE_TERRAIN[i.terrain] for i in land.values())
    assert {i.terrain for i in land.values() if i.river} <= {"river"}


def _colours(info) -> set:
    img = Image.new("RGB", (200, 200), (255, 255, 255))
    _paint_terrain(ImageDraw.Draw(img), (0, 0), info, 100, 100, 90)
    return {c for _, c in img.getcolors(200 * 200)}


def test_the_board_shows_a_river_on_a_hill_hex():
    both = HexInfo("hill", None, None, frozenset(), river=True)
    hill = HexInfo("hill", None, None, frozenset())
    river = HexInfo("river", None, None, frozenset(), river=True)
    assert {S.RIVER, S.HILL_MARK} <= _colours(both)
    assert S.HILL_MARK in _colours(hill) and S.RIVER not in _colours(hill)
    assert S.RIVER in _colours(river) and S.HILL_MARK not in _colours(river)
