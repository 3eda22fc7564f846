"""Rebuild and check train routes from run_routes `connections` (docs/formats/log.md), compute revenue.

A route is a list of segments; each segment lists the hexes of the track between two consecutive stops
(either direction; a single hex joins two stops on one tile, optionally as "<hex> i.j" with part
indexes). Checks follow the 18xx.games Route: a station of the corporation, >= 2 stops, the train's
distance, no stop twice, no track (hex edge) used twice by the corporation's routes, offboards only
at the ends, no passing through cities full of other corporations' tokens, one stop per group.
"""

from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING

from engine.core.errors import GameError, Phrase
from engine.core.tiles import City, Node, Path

if TYPE_CHECKING:
    from engine.core.hexmap import HexMap

MAX_ASSEMBLIES = 2000


def _inv(e: int) -> int:
    return (e + 3) % 6


def _edge_to(h0, h1) -> int | None:
    for e, nb in h0.neighbors.items():
        if nb is h1:
            return e
    return None


def _other_end(p: Path, end):
    return p.b if p.a is end else p.a


def _paths_between(tile, from_edge: int, to) -> list[list[Path]]:
    """Paths on a tile from map edge `from_edge` to `to` (a map edge, or 'node' for any stop)."""
    out: list[list[Path]] = []
    for p in tile.paths_at_edge.get(from_edge, ()):
        ea, eb = p.ends
        other = eb if ea == from_edge and ea.__class__ is int else ea
        if other.__class__ is int:
            if other == to:
                out.append([p])
        elif to == "node":
            if other.kind != "junction":
                out.append([p])
        elif other.kind == "junction":
            for q in other.paths:
                if q is not p and to in q.exits:
                    out.append([p, q])
    return out


def _lanes_ok(prev: Path, edge: int, nxt: Path, nedge: int) -> bool:
    a = prev.edge_lanes.get(edge, (1, 0))
    b = nxt.edge_lanes.get(nedge, (1, 0))
    if a == b == (1, 0):
        return True
    return a[0] == b[0] and b[1] == a[0] - 1 - a[1]


def _why_not_through(hexes: list, edges: list[int], k: int, seg: list[str]) -> GameError:
    """Why a segment can't pass through its k-th hex: a stop there (a segment ends at each stop it
    reaches: name where to split it, and whose tokens fill a full city), or no such track."""
    h = hexes[k]
    into = {p.ends[1] if p.ends[0] == _inv(edges[k - 1]) else p.ends[0]
            for p in h.tile.paths_at_edge.get(_inv(edges[k - 1]), ())}
    outof = {p.ends[1] if p.ends[0] == edges[k] else p.ends[0] for p in h.tile.paths_at_edge.get(edges[k], ())}
    stop = next((n for n in into & outof if n.__class__ is not int and n.kind != "junction"), None)
    if stop is None:
        return GameError("no track through {hex} from {start} to {end}", hex=h.coord, start=hexes[k - 1].coord,
                         end=hexes[k + 1].coord)
    where = f"{h.coord}{f' ({h.location_name})' if h.location_name else ''}"
    full = getattr(stop, "tokens", None)
    split = f"`{','.join(seg[:k + 1])} | {','.join(seg[k:])}`"
    if full and None not in full:
        return GameError("the route reaches the {stop} on {where}: end the segment there and start the next one "
                         "from it ({split}); that city is full ({tokens}): only their trains run through it",
                         stop=Phrase(stop.kind, "stop"), where=where, split=split,
                         tokens=", ".join(t for t in full if t))
    return GameError("the route reaches the {stop} on {where}: end the segment there and start the next one from "
                     "it ({split})", stop=Phrase(stop.kind, "stop"), where=where, split=split)


class _Chain:
    __slots__ = ("a", "b", "paths")

    def __init__(self, a: Node, b: Node, paths: list[Path]):
        self.a, self.b, self.paths = a, b, paths


def _segment_chains(hm: HexMap, seg: list[str], train: str) -> list[_Chain]:
    if not seg:
        raise GameError("train {train}: empty route segment", train=train)
    if len(seg) == 1:
        coord, _, parts = seg[0].partition(" ")
        h = hm.hexes.get(coord)
        if h is None:
            raise GameError("train {train}: there is no hex {coord}", train=train, coord=coord)
        want = None
        if parts:
            try:
                want = {int(x) for x in parts.split(".")}
            except ValueError:
                raise GameError("train {train}: bad segment {segment}", train=train, segment=repr(seg[0])) from None
        out = []
        for p in h.tile.paths:
            if len(p.nodes) == 2 and (want is None or {n.part_index for n in p.nodes} == want):
                out.append(_Chain(p.nodes[0], p.nodes[1], [p]))
        if not out:
            raise GameError("train {train}: no track joins two stops on {coord}", train=train, coord=coord)
        return out
    hexes = []
    for coord in seg:
        h = hm.hexes.get(coord.split(" ")[0])
        if h is None:
            raise GameError("train {train}: there is no hex {coord}", train=train, coord=coord)
        hexes.append(h)
    edges = []
    for h0, h1 in zip(hexes, hexes[1:], strict=False):
        e = _edge_to(h0, h1)
        if e is None:
            raise GameError("train {train}: {coord} and {coord2} aren't connected neighbours", train=train,
                            coord=h0.coord, coord2=h1.coord)
        edges.append(e)
    options: list[list[list[Path]]] = []
    first = [o for o in _paths_between(hexes[0].tile, edges[0], "node")]
    if not first:
        raise GameError("train {train}: no track from a stop on {coord} towards {coord2}", train=train,
                        coord=hexes[0].coord, coord2=hexes[1].coord)
    options.append(first)
    for k in range(1, len(hexes) - 1):
        mid = _paths_between(hexes[k].tile, _inv(edges[k - 1]), edges[k])
        if not mid:
            raise GameError("train {train}: {reason}", train=train, reason=_why_not_through(hexes, edges, k, seg))
        options.append(mid)
    last = _paths_between(hexes[-1].tile, _inv(edges[-1]), "node")
    if not last:
        raise GameError("train {train}: no track from {coord} to a stop on {coord2}", train=train,
                        coord=hexes[-2].coord, coord2=hexes[-1].coord)
    options.append(last)
    out = []
    if all(len(o) == 1 for o in options):
        combo = [o[0] for o in options]
        return [_Chain(combo[0][0].nodes[0], combo[-1][-1].nodes[0], [p for grp in combo for p in grp])]
    for combo in product(*options):
        ok = True
        for k in range(len(combo) - 1):
            if not _lanes_ok(combo[k][-1], edges[k], combo[k + 1][0], _inv(edges[k])):
                ok = False
                break
        if not ok:
            continue
        p0, pn = combo[0][0], combo[-1][-1]
        out.append(_Chain(p0.nodes[0], pn.nodes[0], [p for grp in combo for p in grp]))
    if not out:
        raise GameError("train {train}: the track along {segment} doesn't line up", train=train,
                        segment='-'.join(seg))
    return out


def _cached_chains(hm: HexMap, seg: list[str], train: str) -> list[_Chain]:
    """_segment_chains, memoised per segment while the tiles (and rotations) of its hexes are unchanged."""
    cache = hm._segment_cache
    key = tuple(seg)
    hexes = hm.hexes
    try:
        snap = tuple([hexes[c.partition(" ")[0]].tile for c in seg])
    except KeyError:
        return _segment_chains(hm, seg, train)
    rots = tuple([t.rotation for t in snap])
    hit = cache.get(key)
    if hit is not None and hit[0] == snap and hit[1] == rots:
        return hit[2]
    chains = _segment_chains(hm, seg, train)
    cache[key] = (snap, rots, chains)
    return chains


def _assemblies(chains: list[list[_Chain]]):
    """Yield (stops, paths per segment) for every consistent way of chaining the segments."""
    n = len(chains)
    count = 0
    stops: list[Node] = []
    segs: list[list[Path]] = []

    def rec(i: int):
        nonlocal count
        if count >= MAX_ASSEMBLIES:
            return
        if i == n:
            count += 1
            yield list(stops), list(segs)
            return
        for ch in chains[i]:
            for x, y in ((ch.a, ch.b), (ch.b, ch.a)):
                if i == 0:
                    stops.append(x)
                elif x is not stops[-1]:
                    continue
                stops.append(y)
                segs.append(ch.paths)
                yield from rec(i + 1)
                segs.pop()
                stops.pop()
                if i == 0:
                    stops.pop()
                if ch.a is ch.b:
                    break

    yield from rec(0)


def path_track_keys(p: Path, inner: bool = True) -> list[tuple]:
    """The pieces of track a path uses, which no two routes of a run may share: its hex edges (with their
    lanes), and with `inner` the path itself when it joins two stops on one tile (18xx.games never gives a
    path to two routes, and its route finder takes care of such paths)."""
    coord = p.tile.hex.coord
    if not p.exits:
        return [(coord, "path", p.index)] if inner else []
    return [(coord, e, p.edge_lanes[e][1]) for e in p.exits]


def _track_keys(paths: list[Path], inner: bool = False) -> list[tuple]:
    return [k for p in paths for k in path_track_keys(p, inner=inner)]


def _check_distance(stops: list[Node], distance, train: str) -> None:
    if isinstance(distance, (int, float)):
        n = sum(s.visit_cost for s in stops)
        if n > distance:
            raise GameError("train {train}: {n} stops are too many for a {distance}-train", train=train, n=n,
                            distance=distance)
        return
    type_info: dict[str, list[dict]] = {}
    for rule in distance:
        info = {"pay": rule["pay"], "visit": rule.get("visit", rule["pay"])}
        for t in rule["nodes"]:
            type_info.setdefault(t, []).append(info)
    grouped: dict[str, int] = {}
    for s in stops:
        grouped[s.kind] = grouped.get(s.kind, 0) + s.visit_cost
    for kind, num in sorted(grouped.items(), key=lambda kv: len(type_info.get(kv[0], ()))):
        for info in type_info.get(kind, ()):
            if info["visit"] <= 0:
                continue
            info["visit"] -= num
            num = -info["visit"]
            if num <= 0:
                break
        if num > 0:
            raise GameError("train {train}: too many stops", train=train)


def _pay(stops: list[Node], distance, phase_colors, train: str, multiplier: int | None = None) -> int:
    """What the stops pay: all of them for a plain train; for an N+M train the best stops each kind of rule
    pays for, times the rule's multiplier (18MEX 4D: cities and offboards twice)."""
    base = multiplier or 1
    if isinstance(distance, (int, float)):
        return base * sum(s.revenue_for(phase_colors, train) for s in stops)
    rules = [{"nodes": set(r["nodes"]), "pay": r["pay"]} for r in distance]
    times = {}
    for r in distance:
        for kind in r["nodes"]:
            times.setdefault(kind, r.get("multiplier", base))
    total = 0
    for s in sorted(stops, key=lambda s: -s.revenue_for(phase_colors, train) * times.get(s.kind, base)):
        for r in rules:
            if s.kind in r["nodes"] and r["pay"] > 0:
                r["pay"] -= 1
                total += s.revenue_for(phase_colors, train) * times.get(s.kind, base)
                break
    return total


class FullCityError(GameError):
    """The route passes through a city full of other corporations' tokens."""


def _check_route(corp: str, train: str, stops: list[Node], segs: list[list[Path]], distance,
                 allow_full: bool = False) -> None:
    if len(stops) < 2:
        raise GameError("train {train}: a route needs at least two stops", train=train)
    seen: set[int] = set()
    for s in stops:
        if id(s) in seen:
            raise GameError("train {train}: the route visits {coord} ({kind}) twice", train=train,
                            coord=s.tile.hex.coord, kind=s.kind)
        seen.add(id(s))
    keys = _track_keys([p for seg in segs for p in seg])
    if len(keys) != len(set(keys)):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise GameError("train {train}: the route uses the track on {hex} twice", train=train, hex=dup[0])
    for k in range(1, len(stops) - 1):
        s = stops[k]
        if s.terminal:
            raise GameError("train {train}: the route can't run through {coord}: it's a terminus",
                            train=train, coord=s.tile.hex.coord)
        if s.blocks(corp) and not allow_full:
            raise FullCityError("train {train}: the route can't pass through {coord}: the city is full of "
                                "other companies' tokens", train=train, coord=s.tile.hex.coord)
    # terminal track only at the route's two ends
    for k, seg in enumerate(segs):
        for p in seg:
            if p.terminal and not ((k == 0 and stops[0] in p.nodes) or (k == len(segs) - 1 and stops[-1] in p.nodes)):
                raise GameError("train {train}: the route can't run through {coord}: it's a terminus",
                                train=train, coord=p.tile.hex.coord)
    if not any(isinstance(s, City) and corp in s.tokens for s in stops):
        raise GameError("train {train}: the route must include a station of {corp}", train=train, corp=corp)
    groups: dict[str, str] = {}
    for s in stops:
        for g in s.groups:
            if g in groups:
                raise GameError("train {train}: the route may visit only one {group_kind} stop ({group} and "
                                "{coord})", train=train, group_kind=g, group=groups[g],
                                coord=s.tile.hex.coord)
            groups[g] = s.tile.hex.coord
    _check_distance(stops, distance, train)


def build_route(hm: HexMap, corp: str, route: dict, allow_full: bool = False) -> tuple[list[Node], list[Path]]:
    """Rebuild one route: (stops in order, paths). Raises GameError if no valid reading exists.
    `allow_full`: the route may pass through cities full of other corporations' tokens."""
    stops, segs = build_route_segments(hm, corp, route, allow_full)
    return stops, [p for seg in segs for p in seg]


def build_route_segments(hm: HexMap, corp: str, route: dict,
                         allow_full: bool = False) -> tuple[list[Node], list[list[Path]]]:
    """build_route, with the paths of each segment (from stop k to stop k + 1) apart."""
    train = route.get("train_id") or route.get("train_name") or route.get("train") or "?"
    distance = route.get("distance", 999)
    conns = route.get("connections") or []
    if not conns:
        raise GameError("train {train}: the route is empty", train=train)
    chains = [_cached_chains(hm, seg, train) for seg in conns]
    want = route.get("nodes")
    first_err: GameError | None = None
    fallback = None
    for stops, segs in _assemblies(chains):
        try:
            _check_route(corp, train, stops, segs, distance, allow_full)
        except GameError as e:
            if first_err is None:
                first_err = e
            continue
        if want:
            sig = [s.signature for s in stops]
            if sig != list(want) and sig[::-1] != list(want):
                if fallback is None:
                    fallback = (stops, segs)
                continue
        return stops, segs
    if fallback is not None:
        return fallback
    if first_err is not None:
        raise first_err
    raise GameError("train {train}: the segments of the route don't join up at shared stops", train=train)


def check_routes(hm: HexMap, corp: str, routes: list[dict], phase_colors: list[str]) -> list[dict]:
    """Rebuild and check all routes of one run; returns per route {train_name, revenue, stops, paths, hexes}.

    A tile's track between two of its stops is kept to one route of the run, as 18xx.games keeps it when it
    works out a run's revenue. A run whose every route states its revenue ("revenue") is read as 18xx.games
    replays a logged run, taking the stated revenues: two of its routes may share that track (logs written
    by earlier route finders have such runs; a stated revenue is still checked against the route's)."""
    used: dict[tuple, str] = {}
    inner = not routes or any(route.get("revenue") is None for route in routes)
    out = []
    full_passes = hm.pass_full_cities
    for route in routes:
        train = route.get("train_id") or route.get("train_name") or route.get("train") or "?"
        name = route.get("train_name") or train
        try:
            stops, paths = build_route(hm, corp, route)
        except FullCityError:
            if full_passes <= 0:
                raise
            full_passes -= 1
            stops, paths = build_route(hm, corp, route, allow_full=True)
        keys = _track_keys(paths, inner)
        for key in keys:
            if key in used:
                raise GameError("train {train}: the track on {hex} is already used by train {used}",
                                train=train, hex=key[0], used=used[key])
        for key in keys:
            used[key] = train
        distance = route.get("distance", 999)
        revenue = _pay(stops, distance, phase_colors, name, route.get("multiplier"))
        info = {"train_name": name, "stops": stops, "paths": paths,
                "hexes": [s.tile.hex.coord for s in stops], "nodes": [s.signature for s in stops]}
        if hm.route_hook is not None:
            revenue = hm.route_hook(hm, corp, info, revenue)
        info["revenue"] = revenue
        out.append(info)
    return out


def route_revenue(hm: HexMap, corp: str, routes: list[dict], phase_colors: list[str]) -> list[int]:
    return [r["revenue"] for r in check_routes(hm, corp, routes, phase_colors)]
