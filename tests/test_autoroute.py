"""Optimal routes (engine.core.autoroute): fixture runs and an exhaustive search on random 1830 maps."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.core import autoroute
from engine.core import data as title_data
from engine.core.autoroute import RouteRules, best_routes, check_routes
from engine.core.entities import Train
from engine.core.errors import GameError
from engine.core.hexmap import HexMap
from engine.core.operations import OperatingMixin
from engine.routes import analyse, summary

FIXTURES = Path(__file__).parent / "fixtures" / "1830"
GAMES = ["26855", "1830_game_end_bank"]
MEX_GAMES = sorted((Path(__file__).parent / "fixtures" / "18MEX").glob("*.json"))
CORPS = ["PRR", "NYC", "CPR", "B&O", "C&O", "ERIE", "NYNH", "B&M"]


# -- the fixtures --------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_fixture_runs_best_at_least_recorded(game):
    log = json.loads((FIXTURES / f"{game}.json").read_text())
    results = analyse(log, check=True)
    s = summary(results)
    assert s["runs"] > 40
    assert [r for r in results if "error" in r] == []
    assert [r for r in results if r["best"] < r["recorded"]] == []
    assert s["better"] >= 1  # the players missed a better run at least once in each game


@pytest.mark.parametrize("path", MEX_GAMES, ids=lambda p: p.stem)
def test_18mex_fixture_runs_best_at_least_recorded(path):
    """N+M trains whose towns are free, 4D doubling, minors, Merida's terminal track: never below the players."""
    results = analyse(json.loads(path.read_text()), check=True)
    assert summary(results)["runs"] > 30
    assert [r for r in results if "error" in r] == []
    assert [r for r in results if r["best"] < r["recorded"]] == []


def test_4d_doubles_cities_and_offboards_not_towns():
    """The first 4D run of an 18MEX fixture: the recorded revenue is its cities and offboards twice, its
    towns once."""
    from engine.core.routes import check_routes as check_map_routes
    from engine.titles import load_18xx

    path = Path(__file__).parent / "fixtures" / "18MEX" / "13315.json"
    log = json.loads(path.read_text())
    action = next(a for a in log["actions"] if a["type"] == "run_routes"
                  and any(r["train"].startswith("4D") for r in a["routes"]))
    route = next(r for r in action["routes"] if r["train"].startswith("4D"))
    traced = next(json.loads(line) for line in path.with_suffix(".trace.jsonl").read_text().splitlines()
                  if json.loads(line).get("id") == action["id"])
    recorded = dict(traced["routes"])[route["train"]]
    game = load_18xx(log, upto=action["id"] - 1)
    train = game.train(route["train"])
    spec = {"train_name": train.name, "distance": train.distance, "multiplier": train.multiplier,
            "connections": route["connections"]}
    info = check_map_routes(game.hexmap, action["entity"], [spec], game.phase.tiles)[0]
    values = [(s.kind, s.revenue_for(game.phase.tiles, "4D")) for s in info["stops"]]
    assert any(k == "town" for k, _ in values) and any(k != "town" for k, _ in values)
    assert info["revenue"] == recorded == sum(v * (1 if k == "town" else 2) for k, v in values)


# -- exhaustive reference search -------------------------------------------------------------------


def _keys(p):
    return [(p.tile.hex.coord, e, p.edge_lanes[e][1]) for e in p.exits]


def _lanes_ok(a, b):
    return (a == b == (1, 0)) or (a[0] == b[0] and b[1] == a[0] - 1 - a[1])


def oracle_routes(hm: HexMap, sym: str, max_stops: int):
    """Every legal route by a plain walk over paths from every reachable stop (each route found in both
    directions, deduplicated): (stops, track keys, segments as hex lists)."""
    stations = set(hm.token_cities(sym))
    found = {}

    def walk_path(p, entry, stops, keys, segs, hexes):
        """Follow path p entered at `entry` to the next stop."""
        ks = _keys(p)
        if any(k in keys for k in ks):
            return
        keys = keys | set(ks)
        h = p.tile.hex
        if not hexes or hexes[-1] != h.coord:
            hexes = hexes + [h.coord]
        a, b = p.ends
        end = b if (a is entry or (isinstance(a, int) and a == entry)) else a
        if isinstance(end, int):
            nb = h.neighbors.get(end)
            if nb is None:
                return
            ie = (end + 3) % 6
            for q in nb.tile.paths_at_edge.get(ie, ()):
                if _lanes_ok(p.edge_lanes[end], q.edge_lanes[ie]):
                    walk_path(q, ie, stops, keys, segs, hexes)
        elif end.kind == "junction":
            for q in end.paths:
                if q is not p:
                    walk_path(q, end, stops, keys, segs, hexes)
        else:
            if end in stops:
                return
            at_stop(end, p, stops + [end], keys, segs + [hexes])

    def at_stop(node, came_by, stops, keys, segs):
        if len(stops) > max_stops:
            return
        if len(stops) >= 2 and any(s in stations for s in stops):
            groups = [g for s in stops for g in s.groups]
            if len(groups) == len(set(groups)):
                sig = (frozenset(keys), frozenset(map(id, stops)))
                found.setdefault(sig, (stops, keys, segs))
        if came_by is not None and (node.terminal or node.blocks(sym) or came_by.terminal):
            return
        for q in node.paths:
            if q is came_by or (came_by is not None and q.terminal):
                continue
            walk_path(q, node, stops, keys, segs, [])

    for node in hm.reachable_nodes(sym):
        if node.kind != "junction":
            at_stop(node, None, [node], frozenset(), [])
    return list(found.values())


def oracle_best(hm, sym, trains, colors, bonuses=None) -> int:
    """The best run by trying every combination; `bonuses`: what a route earns for each of these hexes
    its track runs through."""
    cands = oracle_routes(hm, sym, max(t.distance for t in trains))
    bonuses = bonuses or {}
    per_train = []
    for t in trains:
        opts = [(sum(s.revenue_for(colors, t.name) for s in stops)
                 + sum(bonuses.get(coord, 0) for coord in {c for seg in segs for c in seg}), keys)
                for stops, keys, segs in cands if len(stops) <= t.distance]
        per_train.append(opts)
    best = 0

    def rec(i, used, total):
        nonlocal best
        best = max(best, total)
        if i == len(trains):
            return
        rec(i + 1, used, total)
        for v, keys in per_train[i]:
            if not (keys & used):
                rec(i + 1, used | keys, total + v)

    rec(0, frozenset(), 0)
    return best


# -- random 1830 maps ------------------------------------------------------------------------------


def random_map(seed: int, lays: int):
    rng = random.Random(seed)
    data = title_data.load("1830")
    hm = HexMap(data)
    corps = rng.sample(CORPS, 4)
    for sym in corps:
        try:
            hm.place_home_token(sym)
        except GameError:
            pass
    colors = ["yellow", "green", "brown"]
    for n in range(lays):
        sym = corps[n % len(corps)]
        options = hm.legal_lays(sym, colors=colors[: 1 + min(2, n * 3 // lays)])
        if options:
            coord, tile_id, rot = rng.choice(options)
            hm.lay(coord, tile_id, rot)
        if rng.random() < 0.3:
            toks = hm.legal_tokens(sym)
            if toks:
                city, slot = rng.choice(toks)
                hm.place_token(sym, city, slot)
    return hm, corps, colors


class FakeGame(OperatingMixin):
    """A map and a phase: what the route finder and the route check ask of a game."""

    def __init__(self, hm, colors):
        self.hexmap = hm
        self.phase = SimpleNamespace(tiles=colors)


def fake_game(hm, sym, trains, colors):
    return FakeGame(hm, colors), SimpleNamespace(sym=sym, trains=trains)


def make_trains(names):
    return [Train(id=f"{n}-{i}", name=n, distance=999 if n == "D" else int(n), price=0)
            for i, n in enumerate(names)]


CASES = [  # seed, lays, trains
    (1, 40, ["2", "3"]),
    (2, 80, ["4"]),
    (3, 60, ["3", "3"]),
    (4, 120, ["5", "2"]),
    (5, 100, ["4", "4"]),
    (6, 140, ["6"]),
    (7, 120, ["3", "4"]),
    (8, 60, ["2", "2", "2"]),
    (9, 150, ["D"]),
    (10, 160, ["5", "3"]),
    (12, 180, ["D", "6"]),
    (13, 90, ["2", "3", "4"]),
]


@pytest.mark.parametrize("seed,lays,names", CASES)
def test_random_map_equals_exhaustive(seed, lays, names):
    hm, corps, colors = random_map(seed, lays)
    checked = 0
    for sym in corps:
        trains = make_trains(names)
        game, corp = fake_game(hm, sym, trains, colors)
        if len(hm.reachable_nodes(sym)) < 2:
            continue
        n_cands = len(oracle_routes(hm, sym, max(t.distance for t in trains)))
        if n_cands ** len(trains) > 3_000_000:
            continue  # too big for the brute force
        got = best_routes(game, corp)
        want = oracle_best(hm, sym, trains, colors)
        total = sum(r["revenue"] for r in got)
        assert total == want, (seed, sym, got)
        if got:
            assert check_routes(game, corp, got) == [r["revenue"] for r in got]
        checked += 1
    assert checked >= 2


class BonusRules(RouteRules):
    """A route earns a bonus for each of the game's bonus hexes its track runs through (as 1817's mines)."""

    def track_bonuses(self) -> dict[str, int]:
        return self.game.bonuses


class BonusGame(FakeGame):
    ROUTE_RULES = BonusRules

    def __init__(self, hm, colors, bonuses):
        super().__init__(hm, colors)
        self.bonuses = bonuses


def bonus_map(seed: int, lays: int):
    """A random map (random_map) with bonus hexes on six of its tracked hexes: (map, corporations, colours,
    bonuses)."""
    hm, corps, colors = random_map(seed, lays)
    rng = random.Random(seed)
    tracked = sorted(coord for coord, h in hm.hexes.items() if h.tile is not None and h.tile.paths)
    return hm, corps, colors, {coord: rng.choice([10, 20, 30]) for coord in rng.sample(tracked, min(len(tracked), 6))}


def mine_and_bonus_cases(seeds: int, costs: tuple) -> list[tuple]:
    """(game, corporation, stop cost) to search: each corporation with trains on 1817's map at 15528 action 1619
    (5 stops), and each on `seeds` random maps with bonus hexes (each of `costs`)."""
    from engine.titles import load_18xx
    log = json.loads((Path(__file__).parent / "fixtures" / "1817" / "15528.json").read_text())
    game = load_18xx(log, upto=1619)
    cases = [(game, corp, 5) for corp in game.corporations if game.hexmap.token_cities(corp.sym) and corp.trains]
    for seed, lays, _ in CASES[:seeds]:
        hm, corps, colors, bonuses = bonus_map(seed, lays)
        cases += [(BonusGame(hm, colors, bonuses), SimpleNamespace(sym=sym, trains=make_trains(["6"])), cost)
                  for sym in corps if len(hm.reachable_nodes(sym)) >= 2 for cost in costs]
    return cases


@pytest.mark.parametrize("by_stops", [False, True])
@pytest.mark.parametrize("seed,lays,names", CASES)
def test_random_map_with_track_bonuses_equals_exhaustive(seed, lays, names, by_stops, monkeypatch):
    """The search by stops (autoroute._StopSearch: bounds on stops and bonuses left, several trains by
    goals coming down) finds the best run of the exhaustive search, with bonus hexes on random track;
    `by_stops`: several trains searched by stops however few their candidate routes."""
    if by_stops:
        monkeypatch.setattr(autoroute, "MANY_ROUTES", 0)
        monkeypatch.setattr(autoroute, "PAIR_ROUTES", 0)
    hm, corps, colors, bonuses = bonus_map(seed, lays)
    checked = 0
    for sym in corps:
        trains = make_trains(names)
        game, corp = BonusGame(hm, colors, bonuses), SimpleNamespace(sym=sym, trains=trains)
        if len(hm.reachable_nodes(sym)) < 2:
            continue
        if len(oracle_routes(hm, sym, max(t.distance for t in trains))) ** len(trains) > 3_000_000:
            continue
        got = best_routes(game, corp)
        assert sum(r["revenue"] for r in got) == oracle_best(hm, sym, trains, colors, bonuses), (seed, sym, got)
        checked += 1
    assert checked >= 2


def test_d_train_uses_diesel_value_and_no_route_without_trains():
    hm, corps, colors = random_map(11, 40)
    sym = corps[0]
    game, corp = fake_game(hm, sym, [], colors)
    assert best_routes(game, corp) == []
    trains = make_trains(["D"])
    game, corp = fake_game(hm, sym, trains, colors)
    got = best_routes(game, corp)
    assert sum(r["revenue"] for r in got) == oracle_best(hm, sym, trains, colors)


def test_check_routes_messages():
    hm, corps, colors = random_map(3, 35)
    sym = corps[0]
    trains = make_trains(["3", "3"])
    game, corp = fake_game(hm, sym, trains, colors)
    best = best_routes(game, corp)
    assert best
    with pytest.raises(GameError, match="doesn't own train 9-9"):
        check_routes(game, corp, [dict(best[0], train="9-9")])
    with pytest.raises(GameError, match="already run"):
        check_routes(game, corp, [best[0], best[0]])
    with pytest.raises(GameError, match="pays"):
        check_routes(game, corp, [dict(best[0], revenue=best[0]["revenue"] + 10)])
    trains[0].operated = True
    with pytest.raises(GameError, match="already run"):
        check_routes(game, corp, [dict(best[0], train=trains[0].id)])


def test_engine_applies_best_run():
    """In a real game the best run goes through the engine as a run_routes action (and legal_actions
    offers it)."""
    from engine.routes import run_states

    log = json.loads((FIXTURES / "26855.json").read_text())
    for game, action in run_states(log):
        if action["id"] < 400:
            continue
        corp = game.corporation(action["entity"])
        best = best_routes(game, corp)
        assert any(a.get("type") == "run_routes" for a in game.legal_actions())
        before = corp.cash
        game.apply({"type": "run_routes", "entity": corp.sym, "entity_type": "corporation", "routes": best})
        game.apply({"type": "dividend", "entity": corp.sym, "entity_type": "corporation", "kind": "withhold"})
        assert corp.cash == before + sum(r["revenue"] for r in best) > before
        break
    else:
        pytest.fail("no run_routes state after action 400")


def test_track_between_two_stops_of_a_tile_runs_once():
    """18MEX random game: SPM's two 3-trains ran O8-K6 city-K6 town (60) and K6 town-K6 city-J5 (40), both
    over the track joining the city and the town of tile 471 on K6. 18xx.games replayed that run as logged,
    with its revenues stated, and refuses it when it works the revenue out (a player drawing it): the best
    run a player may enter is the finder's 90, and the engine refuses the 100 entered without revenues."""
    from engine.routes import run_states

    path = Path(__file__).parent / "fixtures" / "18MEX" / "random" / "ndm_trains_at_face_value_within_cash.json"
    log = json.loads(path.read_text())
    game, action = next((g, a) for g, a in run_states(log) if a["id"] == 362)
    corp = game.corporation("SPM")
    best = best_routes(game, corp)
    assert sum(r["revenue"] for r in best) == 90
    assert check_routes(game, corp, best) == [r["revenue"] for r in best]
    logged = action["routes"]
    typed = [{k: v for k, v in r.items() if k != "revenue"} for r in logged]
    assert [revenue for revenue, _ in game.run_results(corp, logged)] == [60, 40]
    assert game.run_results(corp, typed[:1]) == [(60, 0)] and game.run_results(corp, typed[1:]) == [(40, 0)]
    with pytest.raises(GameError, match="track on K6 is already used by train 3-2"):
        game.run_results(corp, typed)
    cash = corp.cash
    with pytest.raises(GameError, match="track on K6 is already used"):
        game.apply({**action, "routes": typed})
    assert corp.cash == cash and not any(t.operated for t in corp.trains)
    # the tool judges the logged runs as a player would enter them: no run is worse than the players' own
    results = analyse(log, check=True)
    assert summary(results)["worse"] == 0
    assert {r["id"] for r in results if "refused" in r} == {362, 372, 375, 431, 442}


# -- the network of chains -------------------------------------------------------------------------


def _chains_walking_everywhere(net):
    """The chains between the network's stops as a walk from every stop along each of its paths finds them
    (no walk skipped): {(the two stops, track keys)}."""
    out = set()
    for node in net.nodes:
        for p in node.paths:
            for other, paths, _hexes, _alone in autoroute._walk_chains(node, p, {}, {}, []):
                keys = frozenset(k for q in paths for k in autoroute.path_track_keys(q))
                out.add((frozenset((id(node), id(other))), keys))
    return out


def _net_chains(net):
    return {(frozenset((id(net.nodes[ch.a]), id(net.nodes[ch.b]))),
             frozenset(k for q in ch.paths for k in autoroute.path_track_keys(q))) for ch in net.chains}


@pytest.mark.parametrize("seed,lays", [(seed, lays) for seed, lays, _ in CASES[:6]])
def test_network_has_every_chain_of_a_random_map(seed, lays):
    hm, corps, colors = random_map(seed, lays)
    for sym in corps:
        game, corp = fake_game(hm, sym, [], colors)
        net = autoroute._net(autoroute._rules(game, corp))
        assert _net_chains(net) == _chains_walking_everywhere(net)


def test_network_has_every_chain_through_junctions():
    """1817's junction tiles join many chains side by side: the walks skipped, known to find only chains
    found already, lose none."""
    from engine.titles import load_18xx
    log = json.loads((Path(__file__).parent / "fixtures" / "1817" / "15528.json").read_text())
    game = load_18xx(log, upto=1619)
    checked = 0
    for corp in game.corporations:
        if not game.hexmap.token_cities(corp.sym):
            continue
        net = autoroute._net(autoroute._rules(game, corp))
        assert _net_chains(net) == _chains_walking_everywhere(net)
        checked += len(net.chains)
    assert checked > 100


def _net_signature(net, hm):
    """The network's stops, chains (their track masks as the pieces of track they stand for) and passability."""
    key_bits = autoroute._WALKS[hm].key_bits  # the numbering of the map's track in the chains' masks
    return ([id(n) for n in net.nodes],
            [(ch.a, ch.b, frozenset(k for k, bit in key_bits.items() if ch.mask & bit), [id(p) for p in ch.paths],
              ch.hexes) for ch in net.chains],
            net.passable)


def test_walks_kept_from_run_to_run_are_the_walks_of_the_map_as_it_is():
    """The chains a walk found are used again while the hexes it looked at hold the same tiles the same way
    round: the network, tile after tile laid (and tokens placed), is the one found from scratch."""
    rng = random.Random(7)
    data = title_data.load("1830")
    hm = HexMap(data)
    corps = rng.sample(CORPS, 4)
    for sym in corps:
        hm.place_home_token(sym)
    colors = ["yellow", "green", "brown"]
    compared = 0
    for n in range(150):
        sym = corps[n % len(corps)]
        options = hm.legal_lays(sym, colors=colors[: 1 + min(2, n * 3 // 150)])
        if options:
            hm.lay(*rng.choice(options))
        if rng.random() < 0.3 and (toks := hm.legal_tokens(sym)):
            hm.place_token(sym, *rng.choice(toks))
        for corp_sym in corps:
            game, corp = fake_game(hm, corp_sym, [], colors)
            rules = autoroute._rules(game, corp)
            kept = _net_signature(autoroute._net(rules), hm)
            walks = autoroute._WALKS.pop(hm)
            assert kept == _net_signature(autoroute._net(rules), hm), (n, corp_sym)
            autoroute._WALKS[hm] = walks
            compared += len(kept[1])
    assert compared > 1000
    # the same tile turned round where it lies
    for h in [h for h in hm.hexes.values() if h.tile is not None and len(h.tile.paths) >= 2][:20]:
        h.tile.rotate(h.tile.rotation + 1)
        for corp_sym in corps:
            game, corp = fake_game(hm, corp_sym, [], colors)
            rules = autoroute._rules(game, corp)
            kept = _net_signature(autoroute._net(rules), hm)
            walks = autoroute._WALKS.pop(hm)
            assert kept == _net_signature(autoroute._net(rules), hm), (h.coord, corp_sym)
            autoroute._WALKS[hm] = walks


def _routes_clear_of(search, rules, cands, forbid: int):
    """(its stops' indexes, what each of its steps' chains earns in bonuses) of every route of `cands` clear of
    `forbid`."""
    bonus_bits = autoroute._track_bonus_masks(rules, search.net)
    for k in range(len(cands)):
        if not cands.masks[k] & forbid:
            stops, steps = cands.route(k)
            yield ([search.net.index[s] for s in stops],
                   [search.bonus_of(sum(1 << b for b, (bits, _) in enumerate(bonus_bits) if ch.mask & bits))
                    for ch, _, _ in steps])


def _parts_beyond_walks(search, rules, cands, max_cost: int, forbid: int) -> int:
    """Check every route of `cands` clear of `forbid` against search.walks(max_cost, forbid): from each inner
    stop (come to from its neighbour on the route), what the rest of the route earns stop by stop (each stop's
    value and its step's chain's bonus) is at most the walks' bound for that stop cost. Returns the parts
    checked."""
    walks = search.walks(max_cost, forbid)
    checked = 0
    for idx, earns in _routes_clear_of(search, rules, cands, forbid):
        for order, step_earns in ((idx, earns), (idx[::-1], earns[::-1])):
            for j in range(1, len(order) - 1):
                rest = order[j + 1:]
                earn = sum(search.vals[i] for i in rest) + sum(step_earns[j:])
                most, first, other = walks[order[j]][sum(search.cost[i] for i in rest)]
                assert (most if first != order[j - 1] else other) >= earn, (order, j)
                checked += 1
    return checked


def _ends_beyond_walks(search, rules, cands, max_cost: int, forbid: int) -> int:
    """Check every route of `cands` clear of `forbid` against autoroute._ends_walk: cut to a part of two or more
    stops (a half-built route), what its stops left and right earn (stop values and their steps' chains' bonuses)
    is at most what the part's open ends may earn by their walks, with their stop cost and with all the cost the
    part leaves. Returns the parts checked."""
    walks = search.walks(max_cost, forbid)
    cost = search.cost
    checked = 0
    for idx, earns in _routes_clear_of(search, rules, cands, forbid):
        n = len(idx)
        for i in range(n - 1):
            for j in range(i + 1, n):
                if i == 0 and j == n - 1:
                    continue
                vis = sum(1 << x for x in idx[i:j + 1])
                outside = idx[:i] + idx[j + 1:]
                earn = sum(search.vals[x] for x in outside) + sum(earns[:i]) + sum(earns[j:])
                rest = sum(cost[x] for x in outside)
                ends = [walks[x] for x, is_open in ((idx[j], j < n - 1), (idx[i], i > 0)) if is_open]
                for more in {rest, max_cost - sum(cost[x] for x in idx[i:j + 1])}:
                    assert autoroute._ends_walk(ends[0], ends[1] if len(ends) > 1 else None, more, vis) >= earn, \
                        (idx, i, j, more)
                    checked += 1
    return checked


def _left_ends_beyond_anchor_walks(search, rules, cands, max_cost: int, forbid: int) -> int:
    """Check every route of `cands` clear of `forbid` against _StopSearch.anchor_walks: grown from any inner stop
    (its anchor) to the right, as far as any later stop, with the stop before the anchor numbered above the one
    after it (the search's rule against mirror images), what the stops left and right of that part earn is at most
    what its open ends may earn by their walks (the left end's from the anchor's walks to a stop numbered above the
    first one to the right), with their stop cost and with all the cost the part leaves. Returns the parts
    checked."""
    walks = search.walks(max_cost, forbid)
    cost = search.cost
    checked = 0
    for idx, earns in _routes_clear_of(search, rules, cands, forbid):
        n = len(idx)
        for order, step_earns in ((idx, earns), (idx[::-1], earns[::-1])):
            for i in range(1, n - 1):
                if order[i - 1] <= order[i + 1]:
                    continue
                back = search.anchor_walks(max_cost, forbid, order[i])[order[i + 1]]
                for j in range(i + 1, n):
                    vis = sum(1 << x for x in order[i:j + 1])
                    outside = order[:i] + order[j + 1:]
                    earn = sum(search.vals[x] for x in outside) + sum(step_earns[:i]) + sum(step_earns[j:])
                    rest = sum(cost[x] for x in outside)
                    ends = (walks[order[j]], back) if j < n - 1 else (back, None)
                    for more in {rest, max_cost - sum(cost[x] for x in order[i:j + 1])}:
                        assert autoroute._ends_walk(*ends, more, vis) >= earn, (order, i, j, more)
                        checked += 1
    return checked


def _bonuses_beyond_near(search, rules, cands, max_cost: int, forbid: int) -> int:
    """Check every route of `cands` clear of `forbid` against the bonus bits a walk may take
    (_StopSearch.walks_and_bonuses' `near`): cut at an inner stop, the bonus bits of the chains beyond it are among
    those near that stop, for the stop cost beyond it and for all the cost left. Returns the parts checked."""
    near = search.walks_and_bonuses(max_cost, forbid)[2]
    bonus_bits = autoroute._track_bonus_masks(rules, search.net)
    cost = search.cost
    checked = 0
    for k in range(len(cands)):
        if cands.masks[k] & forbid:
            continue
        stops, steps = cands.route(k)
        idx = [search.net.index[s] for s in stops]
        bits = [sum(1 << b for b, (m, _) in enumerate(bonus_bits) if ch.mask & m) for ch, _, _ in steps]
        for order, step_bits in ((idx, bits), (idx[::-1], bits[::-1])):
            for j in range(1, len(order) - 1):
                beyond = 0
                for b in step_bits[j:]:
                    beyond |= b
                rest = sum(cost[i] for i in order[j + 1:])
                for more in {rest, max_cost - sum(cost[i] for i in order[:j + 1])}:
                    assert not beyond & ~near[order[j]][more], (order, j, more)
                    checked += 1
    return checked


def _search_of(game, corp):
    """(the search by stops of corp's routes, valued for its first train; the rules)."""
    rules = autoroute._rules(game, corp)
    net = autoroute._net(rules)
    vals = autoroute._added_values(rules, net, corp.trains[:1])
    return autoroute._StopSearch(net, rules, vals, autoroute._track_bonus_masks(rules, net)), rules


def test_walks_bound_what_every_route_earns_beyond_each_stop():
    """The search's walk bounds (_StopSearch.walks, the most an open end earns with k more stop cost) hold for
    every part of every route, on 1817's map with its mines and on random maps with bonus hexes, with and
    without track the route must keep clear of; so do both open ends of every part of a route together
    (_ends_walk: first steps off the route and to different stops), also when the left end's walk is from the
    anchor to a stop numbered above the right end's first stop (anchor_walks); and the bonuses any of them may
    take (near)."""
    checked = ends = bonuses = lefts = 0
    for game, corp, max_cost in mine_and_bonus_cases(6, (6,)):
        search, rules = _search_of(game, corp)
        cands = autoroute._Candidates(search.net, rules, max_cost, search.vals)
        for forbid in (0, cands.masks[len(cands) // 2] if len(cands) else None):
            if forbid is not None:
                checked += _parts_beyond_walks(search, rules, cands, max_cost, forbid)
                ends += _ends_beyond_walks(search, rules, cands, max_cost, forbid)
                bonuses += _bonuses_beyond_near(search, rules, cands, max_cost, forbid)
                lefts += _left_ends_beyond_anchor_walks(search, rules, cands, max_cost, forbid)
    assert checked > 10_000 and ends > 10_000 and bonuses > 10_000 and lefts > 10_000


def test_search_by_stops_finds_the_best_route_and_every_route_over_a_floor():
    """_StopSearch (its walk, stop and bonus bounds) finds the best route of a train and every route worth at least
    a floor (also when a best-only search is taken down to a floor), as trying every route finds them: on 1817's
    map with its mines and on random maps with bonus hexes (as they are and worth five times as much), with and
    without track the routes must keep clear of."""
    checked = 0
    for game, corp, max_cost in mine_and_bonus_cases(12, (3, 4, 6, 8)):
        for scale in (1, 5):
            if scale != 1:
                if not isinstance(game, BonusGame):
                    continue
                game = BonusGame(game.hexmap, game.phase.tiles, {c: b * scale for c, b in game.bonuses.items()})
            search, rules = _search_of(game, corp)
            cands = autoroute._Candidates(search.net, rules, max_cost, search.vals)
            if not len(cands):
                continue
            worths = _route_worths(search, rules, cands)
            for forbid in (0, cands.masks[len(cands) // 2]):
                clear = [k for k in range(len(cands)) if not cands.masks[k] & forbid]
                best = max((worths[k] for k in clear), default=0)
                found, worth = search.best(max_cost, forbid)
                assert worth == best, (max_cost, forbid, worth, best)
                if best:
                    assert _route_worths(search, rules, found)[-1] == best
                for floor in {best, best - 20, best - 60}:
                    if floor <= 0:
                        continue
                    want = {(cands.stopmasks[k], cands.masks[k]) for k in clear if worths[k] >= floor}
                    listed, _ = search.search(max_cost, floor, forbid)
                    got = {(sm, m) for sm, m, w in zip(listed.stopmasks, listed.masks,
                                                       _route_worths(search, rules, listed), strict=True)
                           if w >= floor}
                    assert got == want, (max_cost, forbid, floor)
                    taken, _, lower = search.lister(max_cost, None, forbid, aside_too=True)
                    lower(floor)
                    got = {(sm, m) for sm, m, w in zip(taken.stopmasks, taken.masks,
                                                       _route_worths(search, rules, taken), strict=True)
                           if w >= floor}
                    assert got == want, (max_cost, forbid, floor)
                checked += 1
    assert checked > 150


def test_search_by_stops_from_stations_in_any_order(monkeypatch):
    """A route is grown only from the first of its stations in the search's order (`_StopSearch.anchors`: the
    best stop first, or as the stations come), and a half-built one is bounded by the stops it may still visit
    (none ranked before its anchor): in any order of the stations (either of those, reversed, shuffled), bounded
    by walks or not, the search finds the best route and every route worth at least a floor, and the pair search
    the best route beside a partner clear of its track, as trying every route finds them: on 1817's map (WT's
    eight stations at 15528 action 1620) and on random maps with bonus hexes where a corporation has several
    stations."""
    from engine.titles import load_18xx

    log = json.loads((Path(__file__).parent / "fixtures" / "1817" / "15528.json").read_text())
    game = load_18xx(log, upto=1620)
    cases = [(game, game.corporation("WT"), cost) for cost in (4, 5)]
    cases += [case for case in mine_and_bonus_cases(12, (4, 6)) if isinstance(case[0], BonusGame)]
    rng = random.Random(1620)
    walks_as_made = autoroute._StopSearch.bounds_by_walks
    checked = 0
    for game, corp, max_cost in cases:
        search, rules = _search_of(game, corp)
        tokens, by_value = (order for order, _rank in search.orders)
        if len(tokens) < 2:
            continue
        cands = autoroute._Candidates(search.net, rules, max_cost, search.vals)
        if not len(cands):
            continue
        worths = _route_worths(search, rules, cands)
        best = max(worths)
        floor = best - 20
        want = {(cands.stopmasks[k], cands.masks[k]) for k in range(len(cands)) if worths[k] >= floor}
        partners = rng.sample(range(len(cands)), min(len(cands), 6))
        pvals = sorted((worths[k] for k in partners), reverse=True)
        pmasks = [cands.masks[k] for k in sorted(partners, key=lambda k: -worths[k])]
        pair = max((w + pv for k, w in enumerate(worths) for pv, pm in zip(pvals, pmasks, strict=True)
                    if not cands.masks[k] & pm), default=None)
        shuffled = list(tokens)
        rng.shuffle(shuffled)
        for order in (tokens, by_value, by_value[::-1], shuffled):
            for walks in (True, False):
                with monkeypatch.context() as m:
                    if not walks:
                        m.setattr(autoroute._StopSearch, "bounds_by_walks", lambda self, cost, listing, forbid: False)
                    search, _ = _search_of(game, corp)
                    ranked = autoroute._ranked(order, len(search.vals))
                    search.anchors = lambda max_cost, ranked=ranked: ranked
                    assert search.best(max_cost)[1] == best, (corp.sym, max_cost, order, walks)
                    listed, _ = search.search(max_cost, floor)
                    got = {(sm, mk) for sm, mk, w in zip(listed.stopmasks, listed.masks,
                                                         _route_worths(search, rules, listed), strict=True)
                           if w >= floor}
                    assert got == want, (corp.sym, max_cost, order, walks)
                    if pair is not None and walks_as_made(search, max_cost, True, 0):
                        found = search.best_with_partner(max_cost, (pvals, pmasks), 1)
                        assert found is not None and found[0] == pair, (corp.sym, max_cost, order)
                checked += 1
    assert checked > 100


def test_best_route_bounded_by_walks_beyond_walkable_trains(monkeypatch):
    """A train that can run (nearly) every stop is not `walkable`, yet its best route alone is bounded by walks
    too (`_StopSearch.bounds_by_walks`): on 1817's map at 15528 action 1604 (A&S's 8-train, 8 passable stops)
    and on random maps with bonus hexes, the search finds the best of every route, and the same routes in the
    same order (each better than the one before) as bounded without the walks."""
    from engine.titles import load_18xx

    log = json.loads((Path(__file__).parent / "fixtures" / "1817" / "15528.json").read_text())
    game = load_18xx(log, upto=1604)
    cases = [(game, game.corporation("A&S"), 8)]
    for game, corp, _ in mine_and_bonus_cases(12, (6,)):  # trains of the passable stops and up to two more
        if isinstance(game, BonusGame):
            passable = _search_of(game, corp)[0].net.passable.count(1)
            cases += [(game, corp, max_cost) for max_cost in range(max(3, passable), passable + 3)]
    walkable_only = autoroute._StopSearch.bounds_by_walks
    checked = 0
    for game, corp, max_cost in cases:
        search, rules = _search_of(game, corp)
        if search.walkable(max_cost) or not search.bounds_by_walks(max_cost, False, 0):
            continue
        cands = autoroute._Candidates(search.net, rules, max_cost, search.vals)
        if not len(cands):
            continue
        found, worth = search.best(max_cost)
        assert worth == max(_route_worths(search, rules, cands)), (corp.sym, max_cost)
        with monkeypatch.context() as m:
            m.setattr(autoroute._StopSearch, "bounds_by_walks",
                      lambda self, cost, listing, forbid: walkable_only(self, cost, True, forbid))
            unbounded, unbounded_worth = _search_of(game, corp)[0].best(max_cost)
        assert unbounded_worth == worth
        assert (found.values, found.masks, found.stopmasks) == \
            (unbounded.values, unbounded.masks, unbounded.stopmasks)
        assert [_route_steps(found, k) for k in range(len(found))] == \
            [_route_steps(unbounded, k) for k in range(len(found))]
        checked += 1
    assert checked > 100


def _route_steps(cands, k: int) -> list[tuple]:
    """Candidate k's steps as (chain id, from stop, to stop)."""
    return [(chain.id, a, b) for chain, a, b in cands.route(k)[1]]


def test_candidates_stop_just_past_their_cap():
    """_Candidates raises _TooMany exactly when a network has more candidate routes than the cap (the search by
    stops takes over then), however the last ones are found."""
    checked = 0
    for seed, lays, names in CASES:
        hm, corps, colors = random_map(seed, lays)
        for sym in corps:
            game, corp = fake_game(hm, sym, make_trains(names), colors)
            rules = autoroute._rules(game, corp)
            net = autoroute._net(rules)
            limit = max(rules.train_limit(t) for t in corp.trains)
            vals = [1] * len(net.nodes)
            count = len(autoroute._Candidates(net, rules, limit, vals))
            if count < 2:
                continue
            assert len(autoroute._Candidates(net, rules, limit, vals, cap=count)) == count
            for cap in range(max(0, count - 40), count):
                with pytest.raises(autoroute._TooMany):
                    autoroute._Candidates(net, rules, limit, vals, cap=cap)
            checked += 1
    assert checked >= 20


def _route_worths(search, rules, cands) -> list[int]:
    """What each candidate route earns: its stops' values and its track bonuses."""
    bonuses = autoroute._track_bonus_masks(rules, search.net)
    return [sum(search.vals[i] for i in range(len(search.vals)) if sm >> i & 1)
            + sum(amount for bits, amount in bonuses if m & bits)
            for sm, m in zip(cands.stopmasks, cands.masks, strict=True)]


def test_best_with_partner_is_the_best_pair_of_every_route():
    """_StopSearch.best_with_partner (a route of one train with the best partner route clear of its track, bounded
    by walks and by the partners still clear) finds what trying every route with every partner finds, on random
    maps with bonus hexes and on 1817's map with its mines: partners picked at random, one partner worth nothing
    (the best route clear of its track), or none but an empty one (the best route); thresholds at the best pair,
    just above it and below it."""
    rng = random.Random(7)
    checked = 0
    for game, corp, max_cost in mine_and_bonus_cases(8, (3, 4, 6)):
        search, rules = _search_of(game, corp)
        if not search.walkable(max_cost):
            continue
        cands = autoroute._Candidates(search.net, rules, max_cost, search.vals)
        if not len(cands):
            continue
        worths = _route_worths(search, rules, cands)
        picked = rng.sample(range(len(cands)), min(len(cands), rng.choice([1, 3, 30])))
        lists = [sorted(((worths[k], cands.masks[k]) for k in picked), key=lambda p: -p[0]),
                 [(0, cands.masks[rng.randrange(len(cands))])], [(0, 0)]]
        for partners in lists:
            pvals, pmasks = [p[0] for p in partners], [p[1] for p in partners]
            pairs = [w + pv for k, w in enumerate(worths) for pv, pm in partners if not cands.masks[k] & pm]
            top = max(pairs, default=0)
            for threshold in (top, top + 1, top - 25, 1):
                got = search.best_with_partner(max_cost, (pvals, pmasks), threshold)
                if top < threshold or not pairs:
                    assert got is None, (max_cost, threshold, got)
                    continue
                assert got is not None and got[0] == top, (max_cost, threshold, top, got)
                total, worth, mask, j, rs, ls = got
                assert not mask & pmasks[j] and total == worth + pvals[j]
                route = autoroute._Candidates(search.net, None, 0, search.vals)
                route.refs.append((rs, ls))
                stops, steps = route.route(0)
                assert sum(search.cost[search.net.index[s]] for s in stops) <= max_cost
                k = next(k for k in range(len(cands)) if cands.masks[k] == mask
                         and {search.net.nodes[i] for i in range(len(search.vals)) if cands.stopmasks[k] >> i & 1}
                         == set(stops))
                assert worths[k] == worth
                checked += 1
    assert checked > 150


def test_tables_made_for_a_longer_train_serve_a_shorter_one():
    """A search keeps its walks, anchor walks and pair tables for the next search, and a table made for a longer
    train serves a shorter one (_longest_kept): asked for a train, then for one of two stops more, then for the
    first again, with track to keep clear or not, the walks and anchor walks given are row by row those made for
    that train alone, and the shorter train's best route and best route with partners (its tables made for the
    longer train) are what trying every route finds; on random maps with bonus hexes and on 1817's map with its
    mines."""
    rng = random.Random(11)
    checked = 0
    for game, corp, max_cost in mine_and_bonus_cases(8, (3, 4)):
        search, rules = _search_of(game, corp)
        cands = autoroute._Candidates(search.net, rules, max_cost, search.vals)
        if not len(cands):
            continue
        alone, _ = _search_of(game, corp)  # its tables made afresh
        by_step = [[id(st) for st in steps] for steps in search.steps]
        own_step = [[id(st) for st in steps] for steps in alone.steps]
        worths = _route_worths(search, rules, cands)
        anchors = sorted(set(search.net.stations))
        for forbid in (0, cands.masks[rng.randrange(len(cands))]):
            for cost in (max_cost, max_cost + 2, max_cost):
                walks, step_bonus, near, moves = search.walks_and_bonuses(cost, forbid)
                own = alone._walks_and_bonuses(cost, forbid)
                assert [row[:cost + 1] for row in walks] == own[0] and moves == own[3]
                assert [row[:cost + 1] for row in near] == own[2]
                assert [[step_bonus.get(k) for k in ks] for ks in by_step] == \
                    [[own[1].get(k) for k in ks] for ks in own_step]
                for a in anchors:
                    rows, own_rows = search.anchor_walks(cost, forbid, a), alone._anchor_walks(cost, forbid, a)
                    assert {f: row[:cost + 1] for f, row in rows.items()} == own_rows
            clear = [w for w, m in zip(worths, cands.masks, strict=True) if not m & forbid]
            assert search.best(max_cost, forbid)[1] == max(clear, default=0)
            checked += 1
        if not search.walkable(max_cost):
            continue
        picked = rng.sample(range(len(cands)), min(len(cands), 20))
        partners = sorted(((worths[k], cands.masks[k]) for k in picked), key=lambda p: -p[0])
        pvals, pmasks = [p[0] for p in partners], [p[1] for p in partners]
        top = max(w + pv for k, w in enumerate(worths) for pv, pm in partners if not cands.masks[k] & pm)
        search.best_with_partner(max_cost + 2, (pvals, pmasks), 1)
        got = search.best_with_partner(max_cost, (pvals, pmasks), 1, max_cost + 2)
        assert got is not None and got[0] == top, (max_cost, top, got)
        checked += 1
    assert checked > 60


@pytest.mark.parametrize("alike", [False, True])
def test_pair_run_finds_the_best_of_every_pair(alike):
    """_pair_run (two trains: lists going down from each train's best, and the other train's best partner of
    them) finds the best run of all pairs of routes with track apart, or one train alone, on random sets of
    routes whose worths are multiples of a unit."""
    rng = random.Random(5)
    for _ in range(3000):
        unit = rng.choice([1, 10])
        routes = []
        for _t in range(1 if alike else 2):
            masks = rng.sample(range(1, 1 << 9), rng.randint(1, 25))
            routes.append(sorted(((unit * rng.randint(1, 12), m) for m in masks), key=lambda r: -r[0]))
        if alike:
            routes.append(routes[0])
        alone = [r[0][0] for r in routes]
        want = max(alone + [a + b for a, ma in routes[0] for b, mb in routes[1] if not ma & mb])

        def listed(i, floor, routes=routes):
            got = [r for r in routes[i] if r[0] >= floor]
            return [r[0] for r in got], [r[1] for r in got], [("route", i, r[1]) for r in got]

        def best_with(i, vals, masks, threshold, routes=routes):
            pairs = [(v + pv, v, m, j) for v, m in routes[i]
                     for j, (pv, pm) in enumerate(zip(vals, masks, strict=True)) if not m & pm]
            if not pairs or max(pairs)[0] < threshold:
                return None
            total, v, m, j = max(pairs)
            return total, v, m, j, ("route", i, m)

        total, run = autoroute._pair_run(alone, unit, alike, listed, best_with)
        assert total == want, (alone, routes)
        assert sum(worth for worth, _m, _ref in run.values()) == total
        picked = [mask for _w, mask, _ref in run.values()]
        assert len(picked) == 1 or not picked[0] & picked[1]
        assert all(ref == ("route", i, mask) or alike for i, (_w, mask, ref) in run.items())
