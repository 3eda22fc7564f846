"""Route rebuilding/checking: refusals with specific messages (state from the 1830 fixture 26855)."""

from __future__ import annotations

import copy

import pytest
from test_hexmap import Replay

from engine.core import data as title_data
from engine.core.errors import GameError
from engine.core.hexmap import HexMap

GREEN = ["yellow", "green"]
BROWN = ["yellow", "green", "brown"]


@pytest.fixture(scope="module")
def state_262():
    """26855 just before B&O's run at seq 262 (phase 5): H16 full (PRR + B&O), NYNH on G19/F22."""
    rp = Replay("26855")
    rp.run(stop_before=262)
    return rp.hm


def r(name, connections, distance=None, **kw):
    d = {"train_name": name, "distance": distance if distance is not None else (999 if name == "D" else int(name)),
         "connections": connections}
    d.update(kw)
    return d


BO_4 = r("4", [["I15", "I17", "I19"], ["H16", "H14", "I15"]])
BO_5 = r("5", [["F20", "F22"], ["G19", "F20"], ["G17", "F18", "G19"], ["H16", "G17"]])


def refused(hm, corp, routes, colors, match):
    before = copy.deepcopy(hm.view())
    with pytest.raises(GameError, match=match):
        hm.route_revenue(corp, routes, colors)
    assert hm.view() == before


def test_recorded_run(state_262):
    assert state_262.route_revenue("B&O", [BO_4, BO_5], BROWN) == [90, 160]


def test_segment_direction_and_order_free(state_262):
    rev = [list(reversed(s)) for s in reversed(BO_5["connections"])]
    assert state_262.route_revenue("B&O", [r("5", rev)], BROWN) == [160]


def test_phase_colour_revenue(state_262):
    # I19 Atlantic City (10) + I15 (B, 50) + H16 (30): no phase-dependent stop
    assert state_262.route_revenue("B&O", [BO_4], GREEN) == [90]


def test_shared_track_refused(state_262):
    refused(state_262, "B&O", [BO_4, r("3", [["I15", "I17", "I19"]])], BROWN, r"train 3: the track on I1[57] is already used by train 4")


def test_too_many_stops(state_262):
    refused(state_262, "B&O", [r("3", BO_5["connections"], 3)], BROWN, r"train 3: 5 stops are too many for a 3-train")


def test_needs_own_station(state_262):
    refused(state_262, "NYC", [r("3", [["F20", "G19"], ["F22", "F20"]])], BROWN, r"train 3: the route must include a station of NYC")


def test_stop_twice(state_262):
    refused(state_262, "NYNH", [r("4", [["F20", "F22"], ["F22", "F20"]])], BROWN, r"train 4: the route visits F20 \(town\) twice")


def test_full_city_of_others(state_262):
    refused(state_262, "NYNH", [r("5", [["G19", "F18", "G17"], ["G17", "H16"], ["H16", "H14", "H12"]])], BROWN,
            r"train 5: the route can't pass through H16: the city is full")


def test_single_stop(state_262):
    refused(state_262, "B&O", [r("2", [])], BROWN, r"train 2: the route is empty")


def test_not_neighbours(state_262):
    refused(state_262, "B&O", [r("4", [["I15", "I19"]])], BROWN, r"train 4: I15 and I19 aren't connected neighbours")


def test_no_track(state_262):
    refused(state_262, "B&O", [r("4", [["I15", "J14"]])], BROWN, r"train 4: no track .* I15")


def test_segments_dont_join(state_262):
    refused(state_262, "B&O", [r("4", [["I15", "I17", "I19"], ["H16", "G17"]])], BROWN, r"train 4: .*join")


@pytest.fixture()
def chicago():
    """Fresh 1830 map with hand-laid track (no checks): C&O-like corp X at Toledo F4, track F4-F2(Chicago)-E3-D4,
    and Barrie B10 joined to both Canada offboards."""
    hm = HexMap(title_data.load("1830"))
    hm.lay("F4", "14", 1)  # city exits 1 (F2), 2 (E3), 4, 5
    hm.place_token("X", hm.hexes["F4"].tile.cities[0].id, 0)
    hm.lay("E3", "9", 0)  # 0 (F2) - 3 (D4)
    hm.lay("D4", "4", 0)  # town 0 (E3) - 3
    hm.lay("B10", "15", 0)  # city exits 0,1,2 (A9),3 (A11)
    hm.place_token("X", hm.hexes["B10"].tile.cities[0].id, 0)
    return hm


def test_offboard_route(chicago):
    assert chicago.route_revenue("X", [r("2", [["F4", "F2"]])], GREEN) == [30 + 40]
    assert chicago.route_revenue("X", [r("2", [["F4", "F2"]])], BROWN) == [30 + 70]


def test_offboard_only_at_ends(chicago):
    refused(chicago, "X", [r("4", [["F4", "F2"], ["F2", "E3", "D4"]])], GREEN, r"train 4: the route can't run through F2: it's a terminus")


def test_one_stop_per_group(chicago):
    refused(chicago, "X", [r("4", [["A9", "B10"], ["B10", "A11"]])], GREEN, r"train 4: the route may visit only one Canada stop")


def test_diesel_value_and_unlimited_distance(chicago):
    assert chicago.route_revenue("X", [r("D", [["B10", "A11"]])], BROWN) == [30 + 50]


def test_two_stop_minimum(chicago):
    refused(chicago, "X", [r("2", [["F4"]])], GREEN, r"train 2: no track joins two stops on F4")


def test_title_may_allow_one_pass_through_full_city(state_262):
    through = r("5", [["G19", "F18", "G17"], ["G17", "H16"], ["H16", "H14", "H12"]])
    state_262.pass_full_cities = 1
    try:
        assert state_262.route_revenue("NYNH", [through], BROWN) == [80 + 10 + 30 + 10]
        refused(state_262, "NYNH", [through, r("3", [["H12", "H14", "H16"], ["H16", "G17"]], 9)], BROWN,
                r"train 3: the route can.t pass through H16")
    finally:
        state_262.pass_full_cities = 0
