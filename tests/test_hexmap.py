"""Map core: replay every lay and token of the 1830 fixtures through HexMap, plus refusals."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from engine.core import data as title_data
from engine.core.errors import GameError
from engine.core.hexmap import HexMap

FIXTURES = Path(__file__).parent / "fixtures" / "1830"
GAMES = ["26855", "1830_game_end_bank"]


def load_game(name: str):
    fx = json.loads((FIXTURES / f"{name}.json").read_text())
    lines = [json.loads(x) for x in (FIXTURES / f"{name}.trace.jsonl").read_text().splitlines() if x.strip()]
    return fx, lines


class Replay:
    """Drives a HexMap through a trace; records timings of the map calls."""

    def __init__(self, name: str, *, check_legal_lays: bool = False, verify_graphs: bool = False):
        self.fx, self.lines = load_game(name)
        self.actions = {a["id"]: a for a in self.fx["actions"] if "id" in a}
        self.data = title_data.load("1830")
        self.hm = HexMap(self.data)
        self.phases = {p["name"]: p for p in self.data["phases"]}
        self.trains = {t["name"]: t for t in self.data["trains"]}
        self.check_legal_lays = check_legal_lays
        self.verify_graphs = verify_graphs
        self.map_time = 0.0
        self.counts = {"lay": 0, "token": 0, "home": 0, "route": 0}
        self.route_results: list[tuple] = []

    def run(self, stop_before=None):
        prev = self.lines[0]
        for line in self.lines[1:]:
            if stop_before is not None and line["seq"] >= stop_before:
                return prev
            self.step(prev, line)
            if self.verify_graphs:
                self._verify_graphs(line["seq"])
            prev = line
        return prev

    def _verify_graphs(self, seq):
        """Cached (incrementally extended) connectivity equals a fresh walk."""
        hm = self.hm
        for corp in ["PRR", "NYC", "CPR", "B&O", "C&O", "ERIE", "NYNH", "B&M"]:
            hm._graph(corp)
        for corp, g in hm._graphs.items():
            fresh = hm._compute(corp)
            assert {k: v for k, v in g.hexes.items() if v} == {k: v for k, v in fresh.hexes.items() if v}, (seq, corp)
            assert g.nodes == fresh.nodes and g.paths == fresh.paths, (seq, corp)

    def _owner_corp(self, prev, entity, entity_type):
        if entity_type == "company":
            return prev["companies"].get(entity)
        return entity

    def step(self, prev, line):
        hm = self.hm
        colors = self.phases[prev["phase"]]["tiles"]
        blocked = {c for c, owner in prev["companies"].items() if isinstance(owner, int)}
        if line["type"] == "lay_tile":
            t = line["tile"]
            corp = self._owner_corp(prev, line["entity"], line["entity_type"])
            kwargs = {"colors": colors, "blocked": blocked}
            if line["entity_type"] == "company":
                ability = next(a for a in next(c for c in self.data["companies"] if c["sym"] == line["entity"])
                               ["abilities"] if a["type"] == "tile_lay")
                kwargs.update(need_connection=False, tiles_allowed=set(ability["tiles"]), blocked=set())
            if self.check_legal_lays:
                legal = {(c, tid.rsplit("-", 1)[0], r) for c, tid, r in hm.legal_lays(corp, **kwargs)}
                assert (t["hex"], t["name"], t["rotation"]) in legal, (line["seq"], t)
            t0 = time.perf_counter()
            hm.check_lay(corp, t["hex"], t["tile"], t["rotation"], **kwargs)
            hm.lay(t["hex"], t["tile"], t["rotation"])
            self.map_time += time.perf_counter() - t0
            self.counts["lay"] += 1
        elif line["type"] == "place_token":
            tok = line["token"]
            corp = line["entity"]
            t0 = time.perf_counter()
            if (corp, tok["hex"]) in hm.pending_tokens:
                city = hm.city(tok["city"])
                idx = city.tile.cities.index(city)
                assert hm.place_home_token(corp, tok["hex"], idx) == tok["city"]
                self.counts["home"] += 1
            else:
                hm.check_token(corp, tok["city"], tok["slot"], need_connection=True)
                hm.place_token(corp, tok["city"], tok["slot"])
                self.counts["token"] += 1
            self.map_time += time.perf_counter() - t0
            assert hm.city(tok["city"]).tile.hex.coord == tok["hex"]
        elif line["type"] == "run_routes":
            act = self.actions[line["id"]]
            colors_now = self.phases[line["phase"]]["tiles"]
            routes = []
            for r in act["routes"]:
                name = r["train"].rsplit("-", 1)[0]
                routes.append({"train_name": name, "distance": self.trains[name]["distance"],
                               "connections": r["connections"], "nodes": r.get("nodes")})
            t0 = time.perf_counter()
            got = hm.route_revenue(line["entity"], routes, colors_now)
            self.map_time += time.perf_counter() - t0
            self.counts["route"] += len(routes)
            want = [rev for _, rev in line["routes"]]
            self.route_results.append((line["seq"], got, want))
        # home tokens appear in the corporation's token list without a place_token action
        for sym, c in line["corporations"].items():
            want = c.get("tokens", [])
            have = hm.tokened_hexes(sym)
            for coord in want:
                if coord not in have and line["type"] != "place_token":
                    t0 = time.perf_counter()
                    hm.place_home_token(sym, coord, None)
                    self.map_time += time.perf_counter() - t0
                    self.counts["home"] += 1
            assert sorted(hm.tokened_hexes(sym)) == sorted(want), (line["seq"], sym, hm.tokened_hexes(sym), want)


@pytest.mark.parametrize("game", GAMES)
def test_replay_lays_tokens_routes(game):
    rp = Replay(game)
    rp.run()
    assert rp.counts["lay"] >= 50 and rp.counts["route"] >= 50
    bad = [r for r in rp.route_results if r[1] != r[2]]
    assert not bad, bad[:5]


@pytest.mark.parametrize("game", GAMES)
def test_cached_connectivity_matches_fresh_walk(game):
    Replay(game, verify_graphs=True).run()


@pytest.mark.parametrize("game", GAMES)
def test_legal_lays_include_recorded(game):
    Replay(game, check_legal_lays=True).run()


# -- refusals: lays and tokens ----------------------------------------------------------------

YELLOW = ["yellow"]
GREEN = ["yellow", "green"]
CORPS = ["PRR", "NYC", "NYNH", "ERIE", "B&O", "B&M", "C&O", "CPR"]


def snapshot(hm: HexMap):
    return (hm.view(), {c: hm.connected_hexes(c) for c in CORPS}, {n: hm.available(n) for n in hm._manifest},
            list(hm.pending_tokens), {c: hm.tokened_hexes(c) for c in CORPS})


def refuses(hm: HexMap, fn, match: str):
    before = snapshot(hm)
    with pytest.raises(GameError, match=match):
        fn()
    assert snapshot(hm) == before


@pytest.fixture()
def fresh():
    hm = HexMap(title_data.load("1830"))
    for corp in ("PRR", "NYC", "NYNH"):
        hm.place_home_token(corp)
    return hm


@pytest.fixture(scope="module")
def late():
    rp = Replay("26855")
    rp.run(stop_before=262)
    return rp.hm


def test_home_tokens_use_reservations(fresh):
    assert fresh.tokened_hexes("NYNH") == ["G19"]
    assert fresh.city("G19-0-0").tokens == ["NYNH"]
    assert fresh.city("H12-0-0").tokens == ["PRR"]
    v = fresh.view()["hexes"]
    assert v["E11"]["cities"][0]["reserved"] == ["ERIE"]
    assert v["A19"]["cities"][0] == {"revenue": 40, "slots": 1, "tokens": [None], "reserved": ["CPR"]}
    assert v["G15"]["blocked_by"] == ["SV"] and fresh.view({"CS"})["hexes"]["G15"]["blocked_by"] == []
    assert len(v) == len(fresh.hexes) == 93


def test_lay_cost_terrain_and_home_hex(fresh):
    # PRR's first lay in 26855: 9 on H14 (no terrain); a mountain lay costs 120
    assert fresh.check_lay("PRR", "H14", "9-0", 1, colors=YELLOW) == 0
    assert fresh.check_lay("PRR", "H10", "57", 1, colors=YELLOW) == 0
    fresh.lay("H14", "9-0", 1)
    assert fresh.check_lay("PRR", "H16", "57", 1, colors=YELLOW, blocked={"SV"}) == 0
    assert fresh.check_lay("PRR", "G13", "9", 1, colors=YELLOW, need_connection=False) == 120
    assert fresh.check_lay("PRR", "J14", "57", 0, colors=YELLOW, need_connection=False) == 80
    assert fresh.available("9") == 6 and fresh.tile("9-0").hex.coord == "H14"


def test_refuse_no_station(fresh):
    refuses(fresh, lambda: fresh.check_lay("ERIE", "E11", "59", 3, colors=GREEN),
            r"^ERIE can't lay on E11: no route from its stations$")


def test_refuse_phase_colour(fresh):
    refuses(fresh, lambda: fresh.check_lay("PRR", "H10", "63", 0, colors=YELLOW),
            r"^brown tiles aren't available in this phase$")


def test_refuse_blocked_by_private(fresh):
    refuses(fresh, lambda: fresh.check_lay("PRR", "G15", "9", 0, colors=YELLOW, blocked={"SV", "CS"}),
            r"^G15 is blocked by the private SV$")


def test_refuse_off_map(fresh):
    refuses(fresh, lambda: fresh.check_lay("PRR", "B12", "9", 0, colors=YELLOW),
            r"^rotation 0 of tile 9 runs off the map at B12$")


def test_refuse_impassable_border(fresh):
    refuses(fresh, lambda: fresh.check_lay("PRR", "C11", "9", 2, colors=YELLOW),
            r"^rotation 2 of tile 9 runs into an impassable border on C11$")


def test_refuse_into_gray_without_track(fresh):
    refuses(fresh, lambda: fresh.check_lay("PRR", "D16", "9", 2, colors=YELLOW),
            r"^rotation 2 of tile 9 on D16 runs into C15, which has no track there$")


def test_refuse_upgrades(fresh):
    fresh.lay("H14", "9-0", 1)
    refuses(fresh, lambda: fresh.check_lay("PRR", "H14", "16", 0, colors=GREEN),
            r"^tile 16 can't replace 9 on H14: it doesn't keep the existing track$")
    refuses(fresh, lambda: fresh.check_lay("PRR", "H14", "57", 0, colors=GREEN),
            r"^tile 57 is yellow but H14 holds 9 \(yellow\): it needs a green tile$")
    refuses(fresh, lambda: fresh.check_lay("PRR", "H14", "14", 0, colors=GREEN),
            r"^tile 14 can't replace 9 on H14: it has 1 cities, the hex has 0$")
    refuses(fresh, lambda: fresh.check_lay("PRR", "H14", "23", 0, colors=GREEN),
            r"^tile 23 can't replace 9 on H14 with rotation 0: it doesn't keep the existing track$")
    assert fresh.check_lay("PRR", "H14", "23", 1, colors=GREEN) == 0


def test_refuse_label(fresh):
    refuses(fresh, lambda: fresh.check_lay("PRR", "E5", "14", 0, colors=GREEN),
            r"^tile 14 can't replace the printed tile on E5: its label \(none\) doesn't match the hex \(OO\)$")


def test_refuse_gray(fresh):
    refuses(fresh, lambda: fresh.check_lay("PRR", "D14", "14", 0, colors=GREEN), r"^D14 can't be upgraded$")


def test_refuse_no_copy_left(fresh):
    fresh.lay("F20", "1", 0)
    refuses(fresh, lambda: fresh.check_lay("NYNH", "G7", "1", 0, colors=YELLOW), r"^no copy of tile 1 left$")
    refuses(fresh, lambda: fresh.check_lay("NYNH", "G7", "1-0", 0, colors=YELLOW), r"^no copy of tile 1 left$")
    refuses(fresh, lambda: fresh.check_lay("NYNH", "G7", "99-0", 0, colors=YELLOW), r"^there is no tile 99-0")


def test_refuse_unconnected_rotation(fresh):
    refuses(fresh, lambda: fresh.check_lay("PRR", "H14", "7", 2, colors=YELLOW),
            r"^PRR can't lay tile 7 on H14 with rotation 2: none of its track connects")
    assert fresh.check_lay("PRR", "H14", "7", 0, colors=YELLOW) == 0


def test_refuse_ability_tiles_and_bad_input(fresh):
    refuses(fresh, lambda: fresh.check_lay("PRR", "B20", "9", 0, colors=YELLOW, need_connection=False,
                                           tiles_allowed={"3", "4", "58"}),
            r"^tile 9 can't be laid here \(allowed: 3, 4, 58\)$")
    refuses(fresh, lambda: fresh.check_lay("PRR", "Z99", "9", 0, colors=YELLOW), r"^there is no hex Z99 on this map$")
    refuses(fresh, lambda: fresh.check_lay("PRR", "H14", "9", 6, colors=YELLOW), r"^rotation must be 0 to 5, not 6$")


def test_special_lay_without_connection(fresh):
    assert fresh.check_lay("B&O", "B20", "58", 2, colors=YELLOW, need_connection=False,
                           tiles_allowed={"3", "4", "58"}) == 0


def test_refuse_tokens(late):
    hm = late
    refuses(hm, lambda: hm.check_token("NYNH", "14-0-0", 0), r"^the city on H16 \(Lancaster\) is full: its slots are taken by PRR, B&O$")
    refuses(hm, lambda: hm.check_token("NYC", "15-1-0", 1), r"^NYC already has a token on E19$")
    refuses(hm, lambda: hm.check_token("ERIE", "15-0-0", 1), r"^ERIE can't reach the city on F22 \(Providence\) from its stations$")
    refuses(hm, lambda: hm.check_token("NYC", "99-0-0", 0), r"^there is no city 99-0-0$")
    refuses(hm, lambda: hm.check_token("NYC", "15-0-0", 5), r"^the city on F22 \(Providence\) has no slot 5$")
    refuses(hm, lambda: hm.check_token("NYC", "9-0-0", 0), r"^there is no city 9-0-0$")


def test_refuse_reserved(fresh):
    fresh.lay("E19", "57-0", 1)
    fresh.lay("D12", "9", 1)
    refuses(fresh, lambda: fresh.check_token("PRR", "57-0-0", 0, need_connection=False),
            r"^NYC already has a token on E19$|^the city on E19 \(Albany\) is full: its slots are taken by NYC$")
    hm = HexMap(title_data.load("1830"))
    hm.lay("E19", "57-0", 1)
    refuses(hm, lambda: hm.check_token("PRR", "57-0-0", 0, need_connection=False),
            r"^slot 0 of the city on E19 \(Albany\) is reserved for NYC$")
    hm.lay("E11", "59-0", 3)
    # 1830: Erie's home reservation keeps every other station off E11 until Erie has placed its own
    refuses(hm, lambda: hm.check_token("B&O", "59-0-1", 0, need_connection=False),
            r"^E11 is reserved for ERIE's home station$")
    hm.reservation_blocks = "never"  # other titles: only the last free slot is kept for it
    hm.place_token("PRR", "59-0-0", 0)
    refuses(hm, lambda: hm.check_token("B&O", "59-0-1", 0, need_connection=False),
            r"^E11 is reserved for ERIE's home station$")
    refuses(hm, lambda: hm.check_token("PRR", "59-0-1", 0), r"^PRR already has a token on E11$")


def test_home_token_needs_choice_on_tracked_multi_city():
    hm = HexMap(title_data.load("1830"))
    hm.lay("E11", "59-0", 3)
    refuses(hm, lambda: hm.place_home_token("ERIE"), r"^ERIE must choose which city of E11 gets its home token$")
    assert hm.place_home_token("ERIE", "E11", 1) == "59-0-1"
    assert hm.view()["hexes"]["E11"]["cities"][0]["reserved"] == [None]


def test_home_token_displaced_by_upgrade():
    hm = HexMap(title_data.load("1830"))
    assert hm.place_home_token("ERIE") == "E11-0-0"
    assert hm.lay("E11", "59-0", 3) == [("ERIE", "E11")]
    assert hm.tokened_hexes("ERIE") == [] and hm.pending_tokens == [("ERIE", "E11")]
    assert hm.place_home_token("ERIE", "E11", 0) == "59-0-0"
    assert hm.pending_tokens == []


def test_displaced_token_keeps_its_place_in_the_token_order():
    # 18xx.games keeps a corporation's tokens in a fixed order: the home token taken off by the lay on E11
    # and put back is still the first, after stations placed meanwhile
    hm = HexMap(title_data.load("1830"))
    hm.place_home_token("ERIE")
    hm.place_free_token("ERIE", hm.hex("F16").tile.cities[0])
    hm.lay("E11", "59-0", 3)
    assert hm.tokened_hexes("ERIE") == ["F16"]
    hm.place_token("ERIE", "59-0-1", 0)
    assert hm.tokened_hexes("ERIE") == ["E11", "F16"]


def test_legal_tokens_and_reach(late):
    assert ("15-0-0", 1) in late.legal_tokens("PRR") or "15-0-0" not in late.reachable_cities("PRR")
    for city_id, slot in late.legal_tokens("NYC"):
        late.check_token("NYC", city_id, slot)
    assert "14-0-0" in late.reachable_cities("NYNH")
