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

    def __init__(self, name: str, *, check_legal_lays: bool = False):
        self.fx, self.lines = load_game(name)
        self.actions = {a["id"]: a for a in self.fx["actions"] if "id" in a}
        self.data = title_data.load("1830")
        self.hm = HexMap(self.data)
        self.phases = {p["name"]: p for p in self.data["phases"]}
        self.trains = {t["name"]: t for t in self.data["trains"]}
        self.check_legal_lays = check_legal_lays
        self.map_time = 0.0
        self.counts = {"lay": 0, "token": 0, "home": 0, "route": 0}
        self.route_results: list[tuple] = []

    def run(self, stop_before=None):
        prev = self.lines[0]
        for line in self.lines[1:]:
            if stop_before is not None and line["seq"] >= stop_before:
                return prev
            self.step(prev, line)
            prev = line
        return prev

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
def test_legal_lays_include_recorded(game):
    Replay(game, check_legal_lays=True).run()


def test_replay_is_fast():
    total = 0.0
    counts = {}
    for game in GAMES:
        rp = Replay(game)
        rp.run()
        total += rp.map_time
        for k, v in rp.counts.items():
            counts[k] = counts.get(k, 0) + v
    # both games: ~290 lays, ~50 tokens, ~340 routes
    assert total < 0.25, (total, counts)
