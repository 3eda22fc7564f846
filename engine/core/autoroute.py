"""Optimal routes: the best run of a corporation's trains (issue "Optimal routes").

``best_routes(game, corp)`` returns, for the trains that haven't run this operating round, the set of
routes with the highest total revenue, in 18xx.games ``run_routes`` format (docs/formats/log.md),
so that the engine's own route check (engine/core/routes.py) accepts them and reproduces the revenue.

How it works:

1. *Chains.* Starting from the corporation's station cities, the track is cut into chains: the paths
   between two consecutive stops (cities, towns, offboards), crossing hex edges and Lawson junctions.
   Each chain carries its track keys (hex, edge, lane) -- the unit routes.py uses for "no track used
   twice" -- as a bitmask, and its hex list for ``connections``.
2. *Candidates.* A DFS over stops and chains enumerates every legal route that contains a station of the
   corporation: it is anchored at one station city (the lowest-numbered station on the route, so a
   route is produced once), grows one end, then the other end (mirror images are skipped), never
   reuses a stop, a track key or a ``groups`` group, passes only through passable stops (not offboards,
   not cities full of other corporations' tokens, not along terminal paths) and stops growing at the
   longest train's length.
3. *Combination.* Per train type the candidates that fit its length are sorted by revenue; a
   branch-and-bound assigns trains (some may get no route) with pairwise disjoint track masks, bounded
   by the best remaining candidate of every train still to place.

When a route's value is the sum of its stops' values and track bonuses (1830, 1817), a search by stops
(`_StopSearch`) takes the place of 2. for one train, and for several trains with many candidate routes:
the chains between two stops are one step, and a route is not grown when no longer one can reach the
goal (the best so far, or a floor that every route of a best run reaches). Two such trains (`_pair_run`):
each lists its best routes, and the other's best route beside one of them clear of its track is searched
chain by chain, bounded by the best of them still clear (`_StopSearch.best_with_partner`); the lists go
deeper only as far as the best run found so far leaves room for a better one.

Title rules come in through :class:`RouteRules` (a game may set ``ROUTE_RULES`` to a subclass): stop
counting and train length (N+M trains: 18MEX towns free, 1860 towns and halts), which stops may be passed
through, stop values (18MEX 4D: cities and offboards doubled) and the route's revenue (route hooks),
extra legality. Trains that count stops differently get candidate sets of their own over one network.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from math import gcd
from operator import neg
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from engine.core.errors import GameError
from engine.core.routes import path_track_keys

if TYPE_CHECKING:
    from engine.core.hexmap import HexMap
    from engine.core.tiles import Node, Path

__all__ = ["RouteRules", "best_routes", "check_routes", "candidate_routes"]


def _inv(e: int) -> int:
    return (e + 3) % 6


COUNT_BITS = 6  # a route's count of stops of one class is kept in this many bits
MANY_ROUTES = 4000  # more candidate routes than this for a run of several trains: search by stops instead
# the same for two trains searched as a pair (_pair_run): the full list costs about 1.4 us a route, the pair
# search about a millisecond, so a list of more than a few hundred routes is dropped early
PAIR_ROUTES = 300
_NOTHING = -(1 << 62)  # less than anything a route earns
FREE_VISITS = 99  # an N+M rule visiting this many stops of its kinds: any number (18xx.games' convention)


def _visits(rule: dict) -> int:
    return int(rule.get("visit", rule["pay"]))


class RouteRules:
    """Route rules of a title, as used by the search. Override in a subclass for other titles.

    The defaults are 1830's (and the 18xx.games base game's): every stop counts one (``visit_cost``),
    a train runs at most ``distance`` stops (999 = unlimited), stops pay their phase value, a route
    can't pass through offboards or cities full of other corporations' tokens.
    """

    def __init__(self, game, corp):
        self.game = game
        self.corp = corp
        self.sym: str = corp.sym
        self.hexmap: HexMap = game.hexmap
        self.phase_colors = list(game.phase.tiles)

    # -- trains -------------------------------------------------------------------------------

    @staticmethod
    def bounded_rules(train) -> list[dict]:
        """The N+M rules that limit how many stops of their kinds a route visits."""
        d = train.distance
        return [] if isinstance(d, (int, float)) else [r for r in d if _visits(r) < FREE_VISITS]

    def train_limit(self, train) -> int:
        """Most stop cost a route of this train may have (search depth)."""
        d = train.distance
        if isinstance(d, (int, float)):
            return int(d)
        bounded = self.bounded_rules(train)
        if len(bounded) == 1:  # one kind of stop counts (18MEX: towns are free)
            return _visits(bounded[0])
        return sum(_visits(r) for r in d)  # else every kind together, route_ok says the rest

    def cost_key(self, train) -> tuple:
        """Trains with equal cost keys count stops alike (they share candidate routes)."""
        bounded = self.bounded_rules(train)
        if isinstance(train.distance, (int, float)) or len(bounded) != 1:
            return ()
        return tuple(sorted(bounded[0]["nodes"]))

    def train_key(self, train) -> tuple:
        """Trains with equal keys are interchangeable (same candidates, same values)."""
        d = train.distance
        return (train.name, d if isinstance(d, (int, float)) else repr(d))

    def additive(self, train) -> bool:
        """Whether every stop a legal route visits pays (so values add up as the search walks)."""
        d = train.distance
        if isinstance(d, (int, float)):
            return True
        return len(self.bounded_rules(train)) <= 1 and all(int(r["pay"]) >= _visits(r) for r in d)

    # -- stops --------------------------------------------------------------------------------

    def stop_cost(self, node: Node, train=None) -> int:
        kinds = self.cost_key(train) if train is not None else ()
        if kinds and node.kind not in kinds:
            return 0
        return node.visit_cost

    def stop_value(self, node: Node, train) -> int:
        value = node.revenue_for(self.phase_colors, train.name)
        return value * train.stop_multiplier(node.kind) if hasattr(train, "stop_multiplier") else value

    def passable(self, node: Node) -> bool:
        """May a route pass through this stop (i.e. may it be an inner stop)?"""
        return not node.terminal and not node.blocks(self.sym)

    def limited_pass(self, node: Node) -> bool:
        """May a route pass through this stop only by using the run's limited passes (1860: a city full of
        other companies' stations, once per route and by one route of the run)?"""
        return False

    def limited_passes(self) -> int:
        """How many routes of a run may use a limited pass."""
        return self.hexmap.pass_full_cities

    # whether a route may enter a hex it has left (1860: not, unless an optional rule allows it)
    reenter_hexes = True

    def endpoint_ok(self, node: Node) -> bool:
        """May a route begin or end at this stop (1860: not at a halt)?"""
        return True

    def trains(self) -> list:
        """The trains that run now (1860: an insolvent company's leased train)."""
        return [t for t in self.corp.trains if not t.operated and not getattr(t, "rusted", False)]

    # -- whole routes ---------------------------------------------------------------------------

    def route_ok(self, stops: list[Node], train) -> bool:
        """Extra title legality of a full route (stop-kind limits of N+M trains, ...)."""
        d = train.distance
        if isinstance(d, (int, float)) or self.additive(train):
            return True
        from engine.core.routes import _check_distance
        try:
            _check_distance(stops, d, train.name)
        except GameError:
            return False
        return True

    @property
    def simple_values(self) -> bool:
        """True when a route's revenue is the plain sum of its stop values and its track bonuses (lets the
        search add up values while it walks). Titles with other route bonuses or N+M trains return False and
        get :meth:`route_value` called on every candidate."""
        return self.hexmap.route_hook is None

    def track_bonuses(self) -> dict[str, int]:
        """Revenue a route earns once for each of these hexes its track runs through, on top of its stops'
        values (1817: a mine)."""
        return {}

    def run_ok(self, stopmasks: list[int], net) -> bool:
        """Whether the routes of a run may run together, each given as the bits (net.index) of the stops it
        visits (1860: one visits the home station, and they meet)."""
        return True

    def stop_class(self, node: Node) -> int | None:
        """A class of stop the search counts along each route (0 to 7), when a route's value is not the sum
        of its stops' (1860: towns by value, and halts)."""
        return None

    @property
    def counts_stops(self) -> bool:
        return type(self).stop_class is not RouteRules.stop_class

    def counted_result(self, cost: int, value: int, counts: list[int], train) -> tuple[int, dict]:
        """(score, run_routes fields) of a route from its stop cost, the sum of its stop values and the
        number of its stops of each class (score 0: the train can't run it)."""
        raise NotImplementedError

    def route_result(self, stops: list[Node], paths: list[Path], train) -> tuple[int, dict]:
        """(what the search maximises, the route's run_routes fields besides train, connections, hexes and
        nodes: revenue, and a title's own, e.g. 1860's halts and subsidy)."""
        value = self.route_value(stops, paths, train)
        return value, {"revenue": value}

    def route_value(self, stops: list[Node], paths: list[Path], train) -> int:
        d = train.distance
        if isinstance(d, (int, float)) or self.additive(train):
            revenue = sum(self.stop_value(s, train) for s in stops)
        else:
            from engine.core.routes import _pay
            revenue = _pay(stops, d, self.phase_colors, train.name, getattr(train, "multiplier", None))
        hook = self.hexmap.route_hook
        if hook is not None:
            info = {"train_name": train.name, "stops": stops, "paths": paths,
                    "hexes": [s.tile.hex.coord for s in stops], "nodes": [s.signature for s in stops]}
            revenue = hook(self.hexmap, self.sym, info, revenue)
        return revenue


# -- chains ------------------------------------------------------------------------------------


class _Chain:
    """Track between two stops with no stop in between."""

    __slots__ = ("a", "b", "mask", "paths", "hexes", "term_a", "term_b", "id")

    def __init__(self, a, b, mask, paths, hexes, cid):
        self.a = a  # node index
        self.b = b
        self.mask = mask
        self.paths = paths
        self.hexes = hexes  # coords from a to b
        self.term_a = paths[0].terminal
        self.term_b = paths[-1].terminal
        self.id = cid


def _hex_mask(coords, hex_bit) -> int:
    mask = 0
    for coord in coords:
        bit = hex_bit.get(coord)
        if bit is None:
            bit = hex_bit[coord] = 1 << len(hex_bit)
        mask |= bit
    return mask


def _lanes_ok(lane, q_lane) -> bool:
    if lane == (1, 0) == q_lane:
        return True
    return lane[0] == q_lane[0] and q_lane[1] == lane[0] - 1 - lane[1]


class _Net:
    """Stops reachable from the corporation's stations and the chains between them."""

    def __init__(self, hexmap: HexMap, sym: str, passable, limited=None):
        self.nodes: list = []
        self.index: dict = {}
        self.chains: list[_Chain] = []
        self.adj: list[list[tuple]] = []  # node -> [(other, mask, chain, start_terminal, end_terminal)]
        self.hex_bit: dict[str, int] = {}
        self.bonus_masks: tuple | None = None  # (rules, _track_bonus_masks of them)
        self.stop_values: tuple | None = None  # (rules, {train key: each stop's value})
        walks = _WALKS.get(hexmap)
        if walks is None:
            walks = _WALKS[hexmap] = _MapWalks()
        self.coord_bits = walks.coord_bits  # a hex -> the bits of its track in the chains' masks
        self.track = 0  # the bits of every chain's track
        path_bits: dict = {}  # a path -> its track bits
        path_edges: dict = {}  # a path -> its hex edges, as bits of edge_bits (the walks' own numbering)
        edge_bits: dict = {}
        starts = hexmap.token_cities(sym)
        todo = []
        for c in starts:
            if c not in self.index:
                self._add(c)
                todo.append(c)
        seen_chain: set = set()
        walked: set = set()  # stops whose chains are all found
        # (stop, path) whose walk would find nothing but a chain found already, back the way it came
        known: set = set()
        while todo:
            node = todo.pop()
            ni = self.index[node]
            for p in node.paths:
                if (node, p) in known:
                    continue
                for other, paths, hexes, alone, mask in _chains_from(walks, node, p, path_edges, edge_bits, path_bits):
                    if other in walked:
                        continue  # found from there, as the same track back
                    if alone:
                        known.add((other, paths[-1]))
                    oi = self.index.get(other)
                    if oi is None:
                        oi = self._add(other)
                        todo.append(other)
                    sig = (min(ni, oi), max(ni, oi), mask or frozenset(map(id, paths)))
                    if sig in seen_chain:
                        continue
                    seen_chain.add(sig)
                    ch = _Chain(ni, oi, mask, paths, hexes, len(self.chains))
                    self.chains.append(ch)
                    self.track |= mask
                    self.adj[ni].append((oi, mask, ch, ch.term_a, ch.term_b))
                    if oi != ni:
                        self.adj[oi].append((ni, mask, ch, ch.term_b, ch.term_a))
            walked.add(node)
        # 0: a route can't pass the stop; 1: it can; 2: only with one of the run's limited passes
        self.passable = [2 if limited is not None and limited(n) else int(bool(passable(n))) for n in self.nodes]
        self.stations = [self.index[c] for c in starts if c in self.index]
        self._hex_masks: tuple | None = None

    def hex_masks(self) -> tuple[list[tuple[int, int, bool]], list[int]]:
        """For routes that may not re-enter a hex: (for each chain, the hexes it enters leaving its first stop's
        hex and leaving its other's, as bits, and whether it re-enters one itself; each stop's hex as a bit)."""
        if self._hex_masks is None:
            hex_bit = self.hex_bit
            chains = [(_hex_mask(ch.hexes[1:], hex_bit), _hex_mask(ch.hexes[::-1][1:], hex_bit),
                       len(set(ch.hexes)) != len(ch.hexes)) for ch in self.chains]
            self._hex_masks = (chains, [_hex_mask([n.tile.hex.coord], hex_bit) for n in self.nodes])
        return self._hex_masks

    def _add(self, node) -> int:
        i = len(self.nodes)
        self.nodes.append(node)
        self.index[node] = i
        self.adj.append([])
        return i


class _MapWalks:
    """The chains found by walks on a map: by (stop, path), the hexes the walk looked at (each with its tile
    and the tile's rotation then) and the chains, each with its track as a mask. A walk looks at nothing else,
    so while those hexes hold the same tiles the same way round it finds the same chains: most of a map stays
    as it was from one run to the next. The track's bits are numbered once for the map, so a chain's mask is
    made once too."""

    __slots__ = ("walks", "key_bits", "coord_bits")

    def __init__(self):
        self.walks: dict = {}
        self.key_bits: dict = {}  # a piece of track (routes.path_track_keys) -> its bit in the chains' masks
        self.coord_bits: dict[str, int] = {}  # a hex -> the bits of key_bits on it

    def mask(self, paths, path_bits: dict) -> int:
        """The track bits of a chain over `paths`; path_bits: each path's bits, as met by one network's walks
        (a tile turned round or moved has the same paths on other track)."""
        key_bits, coord_bits = self.key_bits, self.coord_bits
        mask = 0
        for q in paths:
            bits = path_bits.get(q)
            if bits is None:  # a path's track bits, found once (chains share paths)
                bits = 0
                for k in path_track_keys(q):
                    bit = key_bits.get(k)
                    if bit is None:
                        bit = key_bits[k] = 1 << len(key_bits)
                        coord_bits[k[0]] = coord_bits.get(k[0], 0) | bit
                    bits |= bit
                path_bits[q] = bits
            mask |= bits
        return mask


_WALKS: WeakKeyDictionary = WeakKeyDictionary()  # a map -> its _MapWalks


def _chains_from(mw: _MapWalks, start, p0, path_edges: dict, edge_bits: dict, path_bits: dict) -> list[tuple]:
    """_walk_chains(start, p0, ...) with each chain's track mask (other, paths, hexes, alone, mask), as found
    before on this map if its hexes are as they were."""
    got = mw.walks.get((start, p0))
    if got is not None:
        for h, tile, rotation in got[0]:
            if h.tile is not tile or tile.rotation != rotation:
                break
        else:
            return got[1]
    looked: list = []
    out = [(other, paths, hexes, alone, mw.mask(paths, path_bits))
           for other, paths, hexes, alone in _walk_chains(start, p0, path_edges, edge_bits, looked)]
    mw.walks[start, p0] = ([(h, h.tile, h.tile.rotation) for h in looked], out)
    return out


def _walk_chains(start, p0, path_edges: dict, edge_bits: dict, looked: list):
    """Every track chain leaving stop `start` along path `p0` up to the next stop: (stop, paths, hexes, whether
    the walk back from that stop along the chain's last path finds this chain alone). Track (hex edge keys)
    is never used twice within a chain. `path_edges`: each path's hex edges as bits of `edge_bits` (both
    filled as paths are met, shared by the walks of one network); `looked`: gets every hex whose tile the
    walk looks at."""
    looked.append(p0.tile.hex)
    out = []
    # stack entries: (path, entered_from, paths so far, hexes so far, used edges, one way back so far)
    stack = [(p0, start, [p0], [p0.tile.hex.coord], 0, True)]
    while stack:
        p, entry, paths, hexes, used, alone = stack.pop()
        h = p.tile.hex
        keys = path_edges.get(p)
        if keys is None:
            keys = 0
            for e in p.exits:
                key = (h.coord, e, p.edge_lanes[e][1])
                bit = edge_bits.get(key)
                if bit is None:
                    bit = edge_bits[key] = 1 << len(edge_bits)
                keys |= bit
            path_edges[p] = keys
        if keys & used:
            continue
        used |= keys
        a, b = p.ends
        end = b if (a is entry or (a.__class__ is int and a == entry)) else a
        if end.__class__ is int:
            nb = h.neighbors.get(end)
            if nb is None:
                continue
            looked.append(nb)
            ie = _inv(end)
            lane = p.edge_lanes[end]
            # walking back, track goes on from across this edge to p alone if no other path here meets it
            back = alone and len(h.tile.paths_at_edge[end]) == 1
            for q in nb.tile.paths_at_edge.get(ie, ()):
                if _lanes_ok(lane, q.edge_lanes[ie]):
                    stack.append((q, ie, paths + [q], hexes + [nb.coord], used, back))
        elif end.kind == "junction":
            back = alone and len(end.paths) <= 2
            for q in end.paths:
                if q is not p:
                    stack.append((q, end, paths + [q], hexes, used, back))
        else:
            if end is start:
                continue  # a loop back to the start stop
            out.append((end, paths, hexes, alone))
    return out


# -- candidate routes ---------------------------------------------------------------------------


class _TooMany(Exception):
    """More candidate routes than asked for."""


class _Candidates:
    """Every legal route of the corporation up to `max_cost` stops, as flat lists:
    value (summed with `vals`), track mask, stop cost, visited-stop mask, route reference, and whether the
    route used a limited pass."""

    def __init__(self, net: _Net, rules: RouteRules, max_cost: int, vals: list[int], train=None,
                 cap: int | None = None):
        """`cap`: raise _TooMany once more candidates than this are found."""
        self.net = net
        self.values: list[int] = []
        self.masks: list[int] = []
        self.costs: list[int] = []
        self.stopmasks: list[int] = []
        self.refs: list[tuple] = []
        self.limited: list[bool] = []
        self.packs: list[int] = []  # stops of each class (rules.stop_class), 6 bits a class
        n = len(net.nodes)
        if n < 2 or max_cost < 2:
            return
        nodes = net.nodes
        cost = [rules.stop_cost(x, train) for x in nodes]
        endok = [rules.endpoint_ok(x) for x in nodes]
        classes = [rules.stop_class(x) for x in nodes]
        pk = [0 if k is None else 1 << (COUNT_BITS * k) for k in classes]
        grp_bits: dict = {}
        grp = []
        for x in nodes:
            g = 0
            for name in x.groups:
                b = grp_bits.get(name)
                if b is None:
                    b = grp_bits[name] = 1 << len(grp_bits)
                g |= b
            grp.append(g)
        passable = net.passable
        passes = rules.limited_passes() > 0
        check_hexes = not rules.reenter_hexes
        chain_hexes, node_hex = net.hex_masks() if check_hexes else (None, [0] * n)
        big = len(nodes) + 1
        rank = [big] * n
        for r, i in enumerate(net.stations):
            rank[i] = min(rank[i], r)
        # directed adjacency: node -> [(other, mask, step, starts terminal, ends terminal, chain id, hexes
        # entered, re-enters a hex)]
        adj = [[(o, m, (ch, i, o), ts, te, ch.id, *((chain_hexes[ch.id][0 if ch.a == i else 1], chain_hexes[ch.id][2])
                                                   if check_hexes else (0, False)))
                for (o, m, ch, ts, te) in net.adj[i]] for i in range(n)]
        values, masks, costs, stopmasks, refs, limited, packs = (self.values, self.masks, self.costs,
                                                                 self.stopmasks, self.refs, self.limited, self.packs)
        def through(node, lp):
            """The limited-pass state once the route runs through `node`, or None if it can't."""
            kind = passable[node]
            if kind == 1:
                return lp
            if kind == 2 and passes and not lp:
                return True
            return None

        # the steps of a route are kept as linked lists (step, earlier steps), one growing from the anchor to
        # the right end, one to the left end: a candidate refers to both as they were when it was made
        cap_left = cap if cap is not None else float("inf")
        least_cost = min(cost)  # a route that can't afford one more stop isn't grown (nor left to find that out)

        def left(node, vis, mask, c, v, gm, term, arank, hm, lp, right_end, cn, rs, ls):
            if term:
                return
            if len(values) > cap_left:
                raise _TooMany
            kind = passable[node]
            if kind != 1:
                if kind == 0 or not passes or lp:
                    return
                lp = True
            for o, m, step, ts, te, _cid, hx, reenters in adj[node]:
                if ts or (vis >> o) & 1 or m & mask or gm & grp[o] or rank[o] < arank:
                    continue
                if check_hexes and (reenters or hx & hm):
                    continue
                c2 = c + cost[o]
                if c2 > max_cost:
                    continue
                v2 = v + vals[o]
                vis2 = vis | (1 << o)
                mask2 = mask | m
                cn2 = cn + pk[o]
                ls2 = (step, ls)
                if endok[o] and endok[right_end]:
                    values.append(v2)
                    masks.append(mask2)
                    costs.append(c2)
                    stopmasks.append(vis2)
                    refs.append((rs, ls2))
                    limited.append(lp)
                    packs.append(cn2)
                    if len(values) > cap_left:
                        raise _TooMany
                if not te and c2 + least_cost <= max_cost:
                    left(o, vis2, mask2, c2, v2, gm | grp[o], te, arank, hm | hx, lp, right_end, cn2, rs, ls2)

        def right(node, vis, mask, c, v, gm, term, anchor, arank, first_id, anchor_term, hm, lp, cn, rs):
            if len(values) > cap_left:
                raise _TooMany
            if node != anchor:
                if term:
                    return
                lp = through(node, lp)
                if lp is None:
                    return
            for o, m, step, ts, te, cid, hx, reenters in adj[node]:
                # a route may leave its first stop along a terminal path (18MEX Merida); an inner stop may not
                if (ts and node != anchor) or (vis >> o) & 1 or m & mask or gm & grp[o] or rank[o] < arank:
                    continue
                if check_hexes and (reenters or hx & hm):
                    continue
                c2 = c + cost[o]
                if c2 > max_cost:
                    continue
                v2 = v + vals[o]
                vis2 = vis | (1 << o)
                mask2 = mask | m
                gm2 = gm | grp[o]
                hm2 = hm | hx
                cn2 = cn + pk[o]
                rs2 = (step, rs)
                if endok[o] and endok[anchor]:
                    values.append(v2)
                    masks.append(mask2)
                    costs.append(c2)
                    stopmasks.append(vis2)
                    refs.append((rs2, None))
                    limited.append(lp)
                    packs.append(cn2)
                    if len(values) > cap_left:
                        raise _TooMany
                if node == anchor:
                    first_id, anchor_term = cid, ts
                # grow the other end from the anchor: mirror images skipped by chain id order
                alp = through(anchor, lp) if not anchor_term else None
                if alp is not None:
                    for o2, m2, step2, ts2, te2, cid2, hx2, reenters2 in adj[anchor]:
                        if cid2 <= first_id or ts2 or (vis2 >> o2) & 1 or m2 & mask2 or gm2 & grp[o2] \
                                or rank[o2] < arank:
                            continue
                        if check_hexes and (reenters2 or hx2 & hm2):
                            continue
                        c3 = c2 + cost[o2]
                        if c3 > max_cost:
                            continue
                        v3 = v2 + vals[o2]
                        vis3 = vis2 | (1 << o2)
                        mask3 = mask2 | m2
                        cn3 = cn2 + pk[o2]
                        ls2 = (step2, None)
                        if endok[o2] and endok[o]:
                            values.append(v3)
                            masks.append(mask3)
                            costs.append(c3)
                            stopmasks.append(vis3)
                            refs.append((rs2, ls2))
                            limited.append(alp)
                            packs.append(cn3)
                            if len(values) > cap_left:
                                raise _TooMany
                        if not te2 and c3 + least_cost <= max_cost:
                            left(o2, vis3, mask3, c3, v3, gm2 | grp[o2], te2, arank, hm2 | hx2, alp, o, cn3, rs2,
                                 ls2)
                if not te and c2 + least_cost <= max_cost:
                    right(o, vis2, mask2, c2, v2, gm2, te, anchor, arank, first_id, anchor_term, hm2, lp, cn2, rs2)

        for r, a in enumerate(net.stations):
            if rank[a] != r or cost[a] > max_cost:
                continue
            right(a, 1 << a, 0, cost[a], vals[a], grp[a], False, a, r, -1, False, node_hex[a], False, pk[a], None)

    def __len__(self):
        return len(self.values)

    def groups(self, values: list[int] | None = None) -> dict[tuple, list[int]]:
        """Candidate indexes by (stop cost, value, stop counts), each group in candidate order (values: each
        candidate's value, if not the one the set was made with)."""
        if values is None and self._groups is not None:
            return self._groups
        out: dict[tuple, list[int]] = {}
        for k, key in enumerate(zip(self.costs, values or self.values, self.packs, strict=True)):
            group = out.get(key)
            if group is None:
                out[key] = [k]
            else:
                group.append(k)
        if values is None:
            self._groups = out
        return out

    _groups = None

    def route(self, k: int) -> tuple[list, list]:
        """(stops, steps in route order) of candidate k; a step is (chain, from node, to node)."""
        rs, ls = self.refs[k]
        seq, lseq = _unlinked(rs), _unlinked(ls)
        steps = [(ch, b, a) for ch, a, b in reversed(lseq)] + list(seq)
        nodes = self.net.nodes
        if not steps:
            return [], []
        stops = [nodes[steps[0][1]]] + [nodes[s[2]] for s in steps]
        return stops, steps


def _unlinked(linked) -> list:
    """The steps of a linked list (step, earlier steps), first step first."""
    out = []
    while linked is not None:
        step, linked = linked
        out.append(step)
    out.reverse()
    return out


def _longest_kept(tables: dict, key, max_cost: int, make):
    """tables[key]'s table if it was made for a train of at least max_cost stops, else one made now (`make()`) and
    kept in its place. A table's row k (what k more stop cost may earn, reach, ...) is the same for any longer
    train, so a longer train's table serves a shorter one."""
    got = tables.get(key)
    if got is None or got[0] < max_cost:
        got = tables[key] = (max_cost, make())
    return got[1]


def _walkable(net: _Net, max_cost: int) -> bool:
    """Whether walks (_StopSearch.walks) bound a train of max_cost stops: one longer than two stops that can't run
    (nearly) every stop."""
    return 2 < max_cost < net.passable.count(1)


def _ranked(order: list[int], n: int) -> tuple[list[int], list[int]]:
    """(order, each of n stops' place in it; n + 1 for a stop not in it)."""
    rank = [n + 1] * n
    for r, i in enumerate(order):
        rank[i] = r
    return order, rank


def _kept(b1: int, o1: int, b2: int, earn: int, o: int) -> tuple[int, int, int]:
    """(most, o1, most not via o1) of walks (_StopSearch.walks) once one more earns `earn` with its first step to
    stop o: the best walk, the stop of its first step, the best walk whose first step is elsewhere."""
    if earn > b1:
        return earn, o, b1 if o != o1 else b2
    if earn > b2 and o != o1:
        return b1, o1, earn
    return b1, o1, b2


def _ends_walk(walks_a: list, walks_b: list | None, k: int, vis: int) -> int:
    """The most one or two open ends of a route of stops `vis` earn with k more stop cost, from their walks (a
    row of _StopSearch.walks each, walks_b None: one end): a walk's first step is to a stop off the route, and
    the two ends' first steps are to different stops."""
    if walks_b is None:
        b1, o1, b2 = walks_a[k]
        return b2 if o1 >= 0 and vis >> o1 & 1 else b1
    most = 0
    for k1 in range(k + 1):
        b1, o1, b2 = walks_a[k1]
        if o1 >= 0 and vis >> o1 & 1:
            b1, o1 = b2, -1
        a1, p1, a2 = walks_b[k - k1]
        if p1 >= 0 and vis >> p1 & 1:
            a1, p1 = a2, -1
        x = max(b1 + a2, b2 + a1) if o1 == p1 >= 0 else b1 + a1
        if x > most:
            most = x
    return most


class _StopSearch:
    """Routes whose value adds up (stop values plus track bonuses, every stop costing at least one), searched
    stop by stop: for the best route of a train, or for every route worth at least a floor.

    The chains between two stops (1817's map has up to seven side by side) make one step of this search: a
    route is grown as a sequence of stops, with one way to run it (a chain per step, track used once) kept
    to show that it runs; another is looked for only when a step finds no chain clear of that one. A route
    is not grown when no longer one can beat the target: what its stops earn, plus the best stops it hasn't
    visited (its inner stops must be passable, so only one more stop per open end may be one that no route
    runs through), plus every bonus its steps' chains could earn and the k best chains' bonuses for k steps
    more (of the bonuses a walk from its open ends may reach); or less, what walks from its open ends may earn
    (`walks`: an end reaches only the stops near it)."""

    def __init__(self, net: _Net, rules: RouteRules, vals: list[int], bonus_masks: list[tuple[int, int]]):
        self.net = net
        self.vals = vals
        n = len(net.nodes)
        nodes = net.nodes
        self.cost = [rules.stop_cost(x) for x in nodes]
        self.endok = [rules.endpoint_ok(x) for x in nodes]
        grp_bits: dict = {}
        self.grp = []
        for x in nodes:
            g = 0
            for name in x.groups:
                g |= grp_bits.setdefault(name, 1 << len(grp_bits))
            self.grp.append(g)
        # the stations routes are grown from (`anchors`): as the corporation's stations come, and the best stop first
        tokens = list(dict.fromkeys(net.stations))
        self.orders = [_ranked(order, n) for order in (tokens, sorted(tokens, key=lambda i: -vals[i]))]
        self.bonus = [amount for _, amount in bonus_masks]
        self.bonus_total = sum(self.bonus)
        # the bonuses of each set of bonus bits, when there are few bonus hexes
        self.bonus_sums = [0]
        if len(self.bonus) <= 12:
            for bb in range(1, 1 << len(self.bonus)):
                low = bb & -bb
                self.bonus_sums.append(self.bonus_sums[bb ^ low] + self.bonus[low.bit_length() - 1])
        # steps[i]: the steps from stop i, best stop first: (stop reached, leaves along a terminal path,
        # ends on one, its chains as (track mask, bonus bits, (chain, i, stop)), bonus bits of any of them)
        self.steps: list[list[tuple]] = []
        chain_bits = [0] * len(net.chains)  # by chain id: its bonus bits
        for b, (bits, _) in enumerate(bonus_masks):
            for ch in net.chains:
                if ch.mask & bits:
                    chain_bits[ch.id] |= 1 << b
        for i in range(n):
            by_end: dict[tuple, list] = {}
            for o, m, ch, ts, te in net.adj[i]:
                chains = by_end.get((o, ts, te))
                if chains is None:
                    chains = by_end[o, ts, te] = []
                chains.append((m, chain_bits[ch.id], (ch, i, o)))
            steps = []
            for (o, ts, te), chains in by_end.items():
                anyb = 0
                for chain in chains:
                    anyb |= chain[1]
                steps.append((o, ts, te, tuple(chains), anyb))
            steps.sort(key=lambda st: -vals[st[0]])
            self.steps.append(steps)
        # the most k steps' chains may earn: chain_bonus[k] (each chain is run once)
        self.chain_bonus = [0, *accumulate(sorted((b for b in map(self.bonus_of, chain_bits) if b), reverse=True))]
        self.clear_pairs: dict[tuple[int, int], bool] = {}  # (id of a step, id of another) -> chains clear
        # tables kept for the next search (`_longest_kept`): a table made for a train serves a shorter one too
        self.pair_tables: dict[int, tuple] = {}  # best_with_partner's (one)
        self.walk_tables: dict[int, tuple] = {}  # walks_and_bonuses by forbid
        self.anchor_tables: dict[tuple, tuple] = {}  # anchor_walks by (forbid, anchor)
        self.inner_order = sorted((i for i in range(n) if net.passable[i] == 1), key=lambda i: -vals[i])
        self.end_order = sorted((i for i in range(n) if net.passable[i] != 1), key=lambda i: -vals[i])

    def anchors(self, max_cost: int) -> tuple[list[int], list[int]]:
        """(the stations routes of a train of `max_cost` stops are grown from, in order, and each stop's rank in that
        order): a route is grown only from the first of its stations in this order. A `walkable` train starts from
        the best stop: a good route found early cuts more of the search (on `15528`'s late map a fifth to two fifths
        of the time of GT's and WT's 6-trains). A train that runs (nearly) every stop starts from the stations as
        they come (from the best stop, A&S's 8-train at actions 1486 and 1604 takes a fifth longer). Which of several
        routes of the same worth is found first changes with the order."""
        return self.orders[self.walkable(max_cost)]

    def bonus_of(self, bb: int) -> int:
        """The bonuses of bonus bits bb."""
        if bb < len(self.bonus_sums):
            return self.bonus_sums[bb]
        total = 0
        b = 0
        while bb:
            if bb & 1:
                total += self.bonus[b]
            bb >>= 1
            b += 1
        return total

    def walkable(self, max_cost: int) -> bool:
        return _walkable(self.net, max_cost)

    def bounds_by_walks(self, max_cost: int, listing: bool, forbid: int) -> bool:
        """Whether the search (`lister`) bounds a half-built route by walks from its open ends: for a train that
        can't run (nearly) every stop (`walkable`); and when only the best route on all the track is wanted, for
        a train of more than two stops but no more than the passable stops and two ends (a longer one's walks,
        a diesel's, would be made long for nothing). A search for the best cuts only what can't beat the best
        found so far, so any bound that holds finds the same routes, and the walks' table is made once per
        train length (at 15528 action 1604 A&S's 8-train, not `walkable` with 8 passable stops, takes half the
        time). A search listing routes keeps what it cuts aside with its bound and takes it up in that order
        later: there the walks stay for `walkable` trains."""
        return self.walkable(max_cost) or (not listing and not forbid
                                           and 2 < max_cost <= self.net.passable.count(1) + 2)

    def walks(self, max_cost: int, forbid: int = 0) -> list[list[tuple[int, int, int]]]:
        """walks[i][k]: (most, o, most not via o) that k more stop cost may earn on a walk from stop i through
        passable stops, each step earning its stop's value and the most bonus one of its chains clear of
        `forbid` may earn; most: the best walk, o: the stop of its first step, the last: the best walk whose
        first step is not to o. A walk never steps straight back to the stop it came from, but may come back
        later: an upper bound of what a route's open end earns (its stops visited once)."""
        return self.walks_and_bonuses(max_cost, forbid)[0]

    def walks_and_bonuses(self, max_cost: int, forbid: int = 0) -> tuple[list, dict[int, int], list[list[int]], list]:
        """(walks(max_cost, forbid), the most bonus a chain of each step clear of `forbid` earns, by id of the
        step (steps with no such chain left out), near, moves) -- near[i][k]: the bonus bits of every chain clear
        of `forbid` that such a walk from stop i with k more stop cost may take; moves[i]: the first steps of
        such walks from stop i, as (stop reached, its value and best bonus, its stop cost, whether the walk may
        go on from there, its chains' bonus bits)."""
        return _longest_kept(self.walk_tables, forbid, max_cost, lambda: self._walks_and_bonuses(max_cost, forbid))

    def _walks_and_bonuses(self, max_cost: int, forbid: int) -> tuple[list, dict[int, int], list[list[int]], list]:
        n = len(self.net.nodes)
        vals, cost, passable = self.vals, self.cost, self.net.passable
        bonus_of = self.bonus_of
        step_bonus: dict[int, int] = {}
        moves = []
        for i in range(n):
            got = []
            for st in self.steps[i]:
                best = -1
                for m, bb, _ in st[3]:
                    if not m & forbid:
                        b = bonus_of(bb) if bb else 0
                        if b > best:
                            best = b
                if best >= 0:
                    step_bonus[id(st)] = best
                    o, ts, te = st[0], st[1], st[2]
                    if passable[i] == 1 and not ts:
                        bits = 0
                        for m, bb, _ in st[3]:
                            if not m & forbid:
                                bits |= bb
                        got.append((o, vals[o] + best, cost[o], passable[o] == 1 and not te, bits))
            moves.append(got)
        walks = [[(0, -1, 0)] for _ in range(n)]
        near = [[0] for _ in range(n)]
        for k in range(1, max_cost + 1):
            for i in range(n):
                b1 = b2 = 0
                o1 = -1
                bits_near = 0
                for o, earn, c, on, bits in moves[i]:
                    if c > k:
                        continue
                    bits_near |= bits
                    if on:
                        bits_near |= near[o][k - c]
                        b, via, b_other = walks[o][k - c]
                        earn += b if via != i else b_other
                    b1, o1, b2 = _kept(b1, o1, b2, earn, o)
                walks[i].append((b1, o1, b2))
                near[i].append(bits_near)
        return walks, step_bonus, near, moves

    def anchor_walks(self, max_cost: int, forbid: int, a: int) -> dict[int, list[tuple[int, int, int]]]:
        """rows[f][k], for each stop f a step from stop a reaches: as walks[a][k] (walks(max_cost, forbid)), of
        the walks from stop a whose first step is to a stop numbered above f. A route grown from its anchor a
        whose right end's first stop is f grows its left end to such a stop first (the search's rule against
        mirror images)."""
        return _longest_kept(self.anchor_tables, (forbid, a), max_cost, lambda: self._anchor_walks(max_cost, forbid, a))

    def _anchor_walks(self, max_cost: int, forbid: int, a: int) -> dict[int, list[tuple[int, int, int]]]:
        walks, _, _, moves = self.walks_and_bonuses(max_cost, forbid)
        firsts = sorted(moves[a], key=lambda move: -move[0])
        reached = sorted({st[0] for st in self.steps[a]}, reverse=True)
        rows = {f: [(0, -1, 0)] for f in reached}
        for k in range(1, max_cost + 1):
            b1 = b2 = 0
            o1 = -1
            j = 0
            for f in reached:  # the moves to stops above f taken, f going down
                while j < len(firsts) and firsts[j][0] > f:
                    o, earn, c, on, _bits = firsts[j]
                    j += 1
                    if c > k:
                        continue
                    if on:
                        b, via, b_other = walks[o][k - c]
                        earn += b if via != a else b_other
                    b1, o1, b2 = _kept(b1, o1, b2, earn, o)
                rows[f].append((b1, o1, b2))
        return rows

    def best(self, max_cost: int, forbid: int = 0) -> tuple[_Candidates, int]:
        """The best route of a train of `max_cost` stops on track clear of `forbid`, and its worth: candidates
        each better than the ones before, the best last."""
        return self.search(max_cost, None, forbid)

    def search(self, max_cost: int, floor: int | None, forbid: int = 0) -> tuple[_Candidates, int]:
        """(candidates, best worth): every route up to `max_cost` stops worth at least `floor` (stop values
        and bonuses), or without a floor, routes each better than all found before."""
        out, best, _lower = self.lister(max_cost, floor, forbid)
        return out, best

    def lister(self, max_cost: int, floor: int | None, forbid: int = 0, aside_too: bool = False):
        """(candidates, best worth, lower) as `search` gives them. With a floor (or `aside_too`), lower(new
        floor) adds every route worth at least new_floor to the candidates, taking the search up where the
        target cut it (what lay below it is kept aside with its bound)."""
        net = self.net
        out = _Candidates(net, None, 0, self.vals)  # empty
        n = len(net.nodes)
        if n < 2 or max_cost < 2:
            return out, 0, lambda floor: None
        vals, cost, endok, grp = self.vals, self.cost, self.endok, self.grp
        stations, rank = self.anchors(max_cost)
        passable = net.passable
        all_steps = self.steps
        bonus_of = self.bonus_sums.__getitem__ if len(self.bonus_sums) == 1 << len(self.bonus) else self.bonus_of
        bonus_total, chain_bonus = self.bonus_total, self.chain_bonus
        inner_order, end_order = self.inner_order, self.end_order
        # the most k more stops earn, `ends` of them at most stops no route runs through: potential[ends][k]
        inner_vals = [vals[i] for i in inner_order]
        potential = [[0, *accumulate(sorted(inner_vals + [vals[i] for i in end_order[:e]], reverse=True))]
                     for e in range(3)]
        best_only = floor is None
        deferring = not best_only or aside_too
        walks, step_bonus, near, _moves = self.walks_and_bonuses(max_cost, forbid) \
            if self.bounds_by_walks(max_cost, deferring, forbid) else (None, None, None, None)
        anchor_rows: dict[int, list] = {}  # an anchor's anchor_walks
        # the left end's steps from a stop with k stop cost left: (step, what it may add at most: its stop, its
        # best chain's bonus, the walks from there; None: it can't be taken), when listing many routes
        left_gains: dict[tuple[int, int], list] | None = {} if walks is not None and deferring else None

        def gain(node, st, k):
            """The most step st from stop `node` (the left end) adds with k stop cost left, None if it can't be
            taken."""
            o, ts, te = st[0], st[1], st[2]
            b = step_bonus.get(id(st))
            if ts or b is None or cost[o] > k:
                return None
            g = vals[o] + b
            if passable[o] == 1 and not te:
                b1, o1, b2 = walks[o][k - cost[o]]
                g += b1 if o1 != node else b2
            return g

        def gains_at(node, k):
            got = left_gains[node, k] = [(st, gain(node, st, k)) for st in all_steps[node]]
            return got

        # a route must be worth more than this: the best so far, or the floor less one
        target = 0 if best_only else floor - 1
        best = 0
        # below the floor: (bound, what to take up) -- a step, a route's runs, a run, a route to grow
        aside: list[tuple] = []
        values, masks, costs, stopmasks, refs, limited, packs = (out.values, out.masks, out.costs, out.stopmasks,
                                                                 out.refs, out.limited, out.packs)

        below = [0]  # below[r]: the stations ranked under r (a route anchored at a station of rank r skips them)
        for i in stations:
            below.append(below[-1] | 1 << i)

        def bound(v, c, vis, anyb, ends, arank, more=None) -> int:
            """The most a route grown from one earning v on its stops (stop cost c, stops vis, its steps'
            chains earning at most bonuses anyb, with `ends` ends open) may earn (-1: it can't grow); a
            cheaper bound when that is at most the target. `more`: the most bonuses its steps to come may add,
            if known."""
            k = max_cost - c
            if not ends or k <= 0:
                return -1
            b = anyb and bonus_of(anyb)
            if more is None:
                more = bonus_total - b
            base = v + b + min(more, chain_bonus[k if k < len(chain_bonus) else -1])
            most = potential[ends]
            got = base + most[k if k < len(most) else -1]
            if got <= target or k >= len(inner_order):
                return got  # a train running (almost) every stop: the stops visited change little
            # the k best of the stops left: passable ones, and one per open end of the others
            off = vis | below[arank]
            inner = []
            for i in inner_order:
                if not off >> i & 1:
                    inner.append(vals[i])
                    if len(inner) == k:
                        break
            got = sum(inner)
            room = k - len(inner)
            e = 0
            for i in end_order:
                if e == ends:
                    break
                if not off >> i & 1:
                    e += 1
                    if room:
                        got += vals[i]
                        room -= 1
                    elif inner and vals[i] > inner[-1]:
                        got += vals[i] - inner.pop()
                    else:
                        break
            return base + got

        def route_bound(v, c, vis, anyb, ends, arank, o, open_here, anchor, open_left, first) -> int:
            """`bound`, or less: the stops the route's open ends may still reach (walks) -- its right end o if
            open_here, its anchor if open_left (its left end to grow to a stop numbered above `first`)."""
            k = max_cost - c
            if open_left:
                rows = anchor_rows.get(anchor)
                if rows is None:
                    rows = anchor_rows[anchor] = self.anchor_walks(max_cost, forbid, anchor)
                back = rows[first]
            if open_here:
                most = _ends_walk(walks[o], back if open_left else None, k, vis)
                bits = near[o][k] | near[anchor][k] if open_left else near[o][k]
            elif open_left:
                most = _ends_walk(back, None, k, vis)
                bits = near[anchor][k]
            else:
                return -1
            most += v + (anyb and bonus_of(anyb))
            if most <= target:
                return most
            bits &= ~anyb  # the bonuses the steps to come may add
            return min(most, bound(v, c, vis, anyb, ends, arank, bits and bonus_of(bits)))

        def runs(seq, first=False) -> list[tuple]:
            """Every way to run the steps seq with track used once (and clear of `forbid`), as a chain per
            step (with `first`: the first way only): the step with the fewest chains left picked first, the
            others' chains cut to the ones clear of it (a dead end shows at once)."""
            out: list[tuple] = []
            pick = [None] * len(seq)
            start = []
            for i, st in enumerate(seq):
                chains = [chain for chain in st[3] if not chain[0] & forbid]
                if not chains:
                    return out
                start.append((i, chains))

            def rec(open_steps):
                j = 0
                fewest = len(open_steps[0][1])
                for k in range(1, len(open_steps)):
                    if len(open_steps[k][1]) < fewest:
                        j, fewest = k, len(open_steps[k][1])
                i, chains = open_steps[j]
                if len(open_steps) == 1:
                    for chain in chains:
                        pick[i] = chain
                        out.append(tuple(pick))
                        if first:
                            return
                    return
                rest = open_steps[:j] + open_steps[j + 1:]
                for chain in chains:
                    m = chain[0]
                    cut = []
                    for k, others in rest:
                        clear = [o for o in others if not o[0] & m]
                        if not clear:
                            break
                        cut.append((k, clear))
                    else:
                        pick[i] = chain
                        rec(cut)
                        if first and out:
                            return
            if start:
                rec(start)
            else:
                out.append(())
            return out

        def first_run(seq):
            """A way to run seq, or None."""
            got = runs(seq, True)
            return got[0] if got else None

        clear_pairs = self.clear_pairs

        def clear_of(st, new) -> bool:
            """Whether a chain of step `new` is clear of a chain of step st."""
            key = (id(st), id(new))
            got = clear_pairs.get(key)
            if got is None:
                got = clear_pairs[key] = any(not a[0] & b[0] for a in st[3] for b in new[3])
            return got

        def keep(v, c, vis, run, right):
            """Keep a route: its stop values, the chains of its steps (the first `right` ones grown from the
            anchor to the route's right end, the others to its left end)."""
            mask = 0
            rs = ls = None
            for k, chain in enumerate(run):
                mask |= chain[0]
                if k < right:
                    rs = (chain[2], rs)
                else:
                    ls = (chain[2], ls)
            values.append(v)
            masks.append(mask)
            costs.append(c)
            stopmasks.append(vis)
            refs.append((rs, ls))
            limited.append(False)
            packs.append(0)

        def found(v, c, vis, seq, run, bb, anyb, right):
            """A route of stops seq run by `run` (bonus bits bb), whose steps' chains earn at most anyb. Without a
            floor, each route better than the best so far is kept (and becomes the target)."""
            nonlocal best, target
            kept = None
            if best_only and v + bonus_of(bb) > target:
                keep(v, c, vis, run, right)
                best = target = v + bonus_of(bb)
                kept = run
            other_runs(v, c, vis, seq, kept, anyb, right)

        def other_runs(v, c, vis, seq, kept, anyb, right):
            """The ways to run the route of stops seq but `kept` (another may earn more bonuses)."""
            nonlocal best, target
            if v + bonus_of(anyb) <= target:
                if deferring:
                    aside.append((v + bonus_of(anyb), other_runs, (v, c, vis, seq, kept, anyb, right)))
                return
            for other in runs(seq):
                if other == kept:
                    continue
                obb = 0
                for chain in other:
                    obb |= chain[1]
                worth = v + bonus_of(obb)
                if worth > target:
                    keep(v, c, vis, other, right)
                    best = max(best, worth)
                    if best_only:
                        target = worth
                elif deferring:
                    aside.append((worth, keep, (v, c, vis, other, right)))

        def step_run(seq, run, used, chains):
            """(run, track used, bonus bits) of seq, its last step new, from the run before it: a chain of the
            new step clear of the track used, else another way to run them all (run None if none)."""
            for chain in chains:
                if not chain[0] & used:
                    run = run + (chain,)
                    break
            else:
                new = seq[-1]
                for st in seq[:-1]:
                    if not clear_of(st, new):
                        return None, 0, 0
                run = first_run(seq)
                if run is None:
                    return None, 0, 0
            used, bb = forbid, 0
            for chain in run:
                used |= chain[0]
                bb |= chain[1]
            return run, used, bb

        def grow(node, vis, c, v, gm, arank, other, seq, run, used, anyb, nright, anchor, first, anchor_term, least):
            """Grow a route by a stop at its end `node` (its other end: `other`). First its right end, from the
            anchor (nright None: every step so far grows it; the first may leave along a terminal path), then
            its left end from the anchor, to a stop numbered above `least` first (no mirror images)."""
            if nright is not None and left_gains is not None:  # the left end: a step at most worth base + its gain
                k = max_cost - c
                gains = left_gains.get((node, k)) or gains_at(node, k)
                base = v + (anyb and bonus_of(anyb))
                for st, g in gains:
                    if g is None:
                        continue
                    o = st[0]
                    if o < least or vis >> o & 1 or gm & grp[o] or rank[o] < arank:
                        continue
                    if base + g <= target:
                        if deferring:
                            aside.append((base + g, step, (node, vis, c, v, gm, arank, other, seq, run, used, anyb,
                                                           nright, anchor, first, anchor_term, least, st)))
                        continue
                    step(node, vis, c, v, gm, arank, other, seq, run, used, anyb, nright, anchor, first, anchor_term,
                         least, st)
                return
            for st in all_steps[node]:
                o = st[0]
                if not (o < least or vis >> o & 1 or gm & grp[o] or rank[o] < arank):
                    step(node, vis, c, v, gm, arank, other, seq, run, used, anyb, nright, anchor, first, anchor_term,
                         least, st)

        def step(node, vis, c, v, gm, arank, other, seq, run, used, anyb, nright, anchor, first, anchor_term, least,
                 st):
            """Grow the route at `node` by step st (as in grow)."""
            rightward = nright is None
            o, ts, te, chains, ab = st
            if ts and (node != anchor or not rightward):  # (grow has checked the stop may come next)
                return
            c2 = c + cost[o]
            if c2 > max_cost:
                return
            if not rightward and left_gains is not None:  # as grow bounds it
                g = gain(node, st, max_cost - c)
                if g is None:
                    return
                g += v + (anyb and bonus_of(anyb))
                if g <= target:
                    if deferring:
                        aside.append((g, step, (node, vis, c, v, gm, arank, other, seq, run, used, anyb, nright, anchor,
                                                first, anchor_term, least, st)))
                    return
            v2 = v + vals[o]
            vis2 = vis | 1 << o
            anyb2 = anyb | ab
            open_here = passable[o] == 1 and not te
            ends = open_here
            if rightward:
                if node == anchor:
                    first, anchor_term = o, ts
                open_left = not anchor_term and passable[anchor] == 1
                ends += open_left
            worth = v2 + (anyb2 and bonus_of(anyb2)) if endok[o] and endok[other] else -1
            left_open = rightward and open_left
            if worth <= target:
                most = route_bound(v2, c2, vis2, anyb2, ends, arank, o, open_here, anchor, left_open, first) \
                    if walks is not None else bound(v2, c2, vis2, anyb2, ends, arank)
                if most <= target:
                    if deferring and max(worth, most) >= 0:
                        aside.append((max(worth, most), step, (node, vis, c, v, gm, arank, other, seq, run, used,
                                                                 anyb, nright, anchor, first, anchor_term, least, st)))
                    return
            seq2 = seq + (st,)
            run2, used2, bb2 = step_run(seq2, run, used, chains)
            if run2 is None:
                return
            n2 = len(seq2) if rightward else nright
            if worth > target:
                found(v2, c2, vis2, seq2, run2, bb2, anyb2, n2)
            elif worth >= 0 and deferring:
                aside.append((worth, found, (v2, c2, vis2, seq2, run2, bb2, anyb2, n2)))
            if worth > target:
                most = route_bound(v2, c2, vis2, anyb2, ends, arank, o, open_here, anchor, left_open, first) \
                    if walks is not None else bound(v2, c2, vis2, anyb2, ends, arank)
                if most <= target:
                    if deferring and most >= 0:
                        aside.append((most, grow_on, (o, vis2, c2, v2, gm, arank, other, seq2, run2, used2, anyb2,
                                                      nright, n2, anchor, first, anchor_term, open_here,
                                                      rightward and open_left)))
                    return
            grow_on(o, vis2, c2, v2, gm, arank, other, seq2, run2, used2, anyb2, nright, n2, anchor, first,
                    anchor_term, open_here, rightward and open_left)

        def grow_on(o, vis2, c2, v2, gm, arank, other, seq2, run2, used2, anyb2, nright, n2, anchor, first,
                    anchor_term, open_here, open_left):
            """Grow a route that has just reached stop o: its left end from the anchor (while its right end
            grows), and the end at o."""
            gm2 = gm | grp[o]
            if open_left:
                grow(anchor, vis2, c2, v2, gm2, arank, o, seq2, run2, used2, anyb2, n2, anchor, first, True, first)
            if open_here:
                grow(o, vis2, c2, v2, gm2, arank, other, seq2, run2, used2, anyb2, nright, anchor, first,
                     anchor_term, -1)

        def lower(new_floor: int) -> None:
            """Add the routes worth at least new_floor (below the floor so far)."""
            nonlocal target, aside, best_only
            target = new_floor - 1
            best_only = False
            todo = [item for item in aside if item[0] > target]
            aside = [item for item in aside if item[0] <= target]
            for _bound, take_up, args in todo:
                take_up(*args)

        for r, a in enumerate(stations):
            if cost[a] > max_cost:
                continue
            grow(a, 1 << a, cost[a], vals[a], grp[a], r, a, (), (), forbid, 0, None, a, -1, False, -1)
        return out, best, lower

    def best_with_partner(self, max_cost: int, partner: tuple[list[int], list[int]], threshold: int,
                          tables_for: int = 0):
        """The best route of a train of `max_cost` stops together with one of the partner routes (their values,
        best first, and track masks) clear of its track, if the two earn at least `threshold`: (the pair's
        worth, the route's worth, its track mask, the partner's position, its steps grown from the anchor to
        its right end and to its left end, as in _Candidates.refs), or None.

        The search goes chain by chain (the track of a half-built route is known), so the best partner clear of
        it bounds what the pair earns: it only falls as the route grows. The walks bound what the route adds:
        an end's steps are tried by what they may add at most, best first, up to the first that can't make it."""
        vals, cost, endok, grp = self.vals, self.cost, self.endok, self.grp
        stations, rank = self.anchors(max_cost)
        passable = self.net.passable
        all_steps = self.steps
        bonus_of = self.bonus_sums.__getitem__ if len(self.bonus_sums) == 1 << len(self.bonus) else self.bonus_of
        # what doesn't depend on the partners is kept for the next search (made for a train of tables_for stops,
        # if longer: the other train of a pair)
        tables_cost = max(max_cost, tables_for)
        walks, step_bonus, ahead, gains, backs = _longest_kept(
            self.pair_tables, 0, tables_cost, lambda: (*self.walks_and_bonuses(tables_cost)[:2], {}, {}, {}))
        least = min(cost)
        pvals, pmasks = partner
        full = (1 << len(pvals)) - 1
        rows = _bit_index(pmasks)
        used = 0  # the track of any partner
        for m in pmasks:
            used |= m
        clashes: dict[int, int] = {}  # a chain's track mask -> the partners using any of it
        best = None
        target = threshold - 1  # a pair must earn more than this

        byte_rows: dict[int, int] = {}  # a byte of a track mask (place << 8 | value) -> the partners using any of it

        def clash(m):
            got = clashes.get(m)
            if got is None:
                got = 0
                rest = m & used
                while rest:  # byte by byte: chains over the same hexes share bytes
                    place = ((rest & -rest).bit_length() - 1) & ~7
                    byte = rest >> place & 255
                    rest ^= byte << place
                    key = place << 8 | byte
                    r = byte_rows.get(key)
                    if r is None:
                        r = 0
                        while byte:
                            low = byte & -byte
                            r |= rows[place + low.bit_length() - 1]
                            byte ^= low
                        byte_rows[key] = r
                    got |= r
                clashes[m] = got
            return got

        def with_partner(v, bb, excl, m):
            """(what a route earns with its best partner clear of its track, what it earns, its bonus bits bb,
            that partner's position, the partners not clear) once the route (stops worth v) takes a chain over
            track m (nothing earned with no partner left)."""
            worth = v + (bb and bonus_of(bb))
            excl |= clash(m)
            free = full & ~excl
            if not free:
                return _NOTHING, worth, bb, -1, excl
            j = (free & -free).bit_length() - 1
            return worth + pvals[j], worth, bb, j, excl

        def found(*route):
            """A route better than the best so far (as returned)."""
            nonlocal best, target
            best = route
            target = route[0]

        def walk_on(o, via):
            """The most a walk on from stop o (come to from `via`) earns with 0, 1, ... more stop cost."""
            got = ahead.get((o, via))
            if got is None:
                got = ahead[o, via] = [b1 if o1 != via else b2 for b1, o1, b2 in walks[o]]
            return got

        def back_from(anchor, first):
            """The most a walk from the anchor to a stop numbered above the route's first stop first earns (the
            left end's first step; no mirror images) with 0, 1, ... more stop cost."""
            got = backs.get((anchor, first))
            if got is None:
                got = backs[anchor, first] = [b1 for b1, _, _ in self.anchor_walks(tables_cost, 0, anchor)[first]]
            return got

        def left_steps(node, k):
            """The left end's steps from `node` with k stop cost left: (the most it adds -- its stop, its best
            chain's bonus, a walk on --, step, whether the end may go on from there, what a walk on earns)."""
            got = []
            for st in all_steps[node]:
                o, ts, te = st[0], st[1], st[2]
                if ts or cost[o] > k:
                    continue
                on = passable[o] == 1 and not te and cost[o] + least <= k
                w = walk_on(o, node)[k - cost[o]] if on else 0
                got.append((vals[o] + step_bonus[id(st)] + w, st, on, w))
            got.sort(key=lambda g: -g[0])
            gains[node, k, -1, None] = got
            return got

        def right_steps(node, k, anchor, back):
            """The right end's steps from `node` (the anchor: starting a route) with k stop cost left, `back`:
            what a walk from the anchor to a stop numbered above the route's first stop earns (None: the left end is
            closed): (the most both ends add with the step, step, the end goes on, the left end is open, the bound of what
            both ends add after it, `back` after it)."""
            got = []
            at_anchor = node == anchor
            for st in all_steps[node]:
                o, ts, te = st[0], st[1], st[2]
                if (ts and not at_anchor) or cost[o] > k:
                    continue
                if at_anchor:
                    back = back_from(anchor, o) if not ts and passable[anchor] == 1 else None
                k2 = k - cost[o]
                room = least <= k2
                here = room and passable[o] == 1 and not te
                there = room and back is not None
                if here:
                    ahead_o = walk_on(o, node)
                    if there:
                        w = 0
                        for k1 in range(k2 + 1):
                            x = ahead_o[k1] + back[k2 - k1]
                            if x > w:
                                w = x
                    else:
                        w = ahead_o[k2]
                else:
                    w = back[k2] if there else 0
                got.append((vals[o] + step_bonus[id(st)] + w, st, here, there, w, back))
            got.sort(key=lambda g: -g[0])
            gains[node, k, anchor, id(back)] = got
            return got

        def left(node, vis, mask, c, v, bb, gm, excl, arank, right_end, rs, ls, least):
            """Grow the left end at `node` (from the anchor: to a stop numbered above `least`, the route's first
            stop to the right; no mirror images)."""
            free = full & ~excl
            base = v + (bb and bonus_of(bb)) + pvals[(free & -free).bit_length() - 1]  # with the best partner
            k = max_cost - c
            for g, (o, _ts, _te, chains, _anyb), on, w in gains.get((node, k, -1, None)) or left_steps(node, k):
                if base + g <= target:
                    break
                if o < least or vis >> o & 1 or gm & grp[o] or rank[o] < arank:
                    continue
                c2 = c + cost[o]
                v2 = v + vals[o]
                ends_ok = endok[o] and endok[right_end]
                for m, cbb, step in chains:
                    if m & mask:
                        continue
                    got, worth, bb2, j, excl2 = with_partner(v2, bb | cbb, excl, m)
                    if got + w <= target:
                        continue
                    ls2 = (step, ls)
                    if ends_ok and got > target:
                        found(got, worth, mask | m, j, rs, ls2)
                    if on and got + w > target:
                        left(o, vis | 1 << o, mask | m, c2, v2, bb2, gm | grp[o], excl2, arank, right_end, rs, ls2, -1)

        def right(node, vis, mask, c, v, bb, gm, excl, anchor, arank, first, back, rs):
            """Grow the right end at `node` (and the left end from the anchor, for each stop it reaches); `back`:
            what a walk from the anchor to a stop numbered above the route's first stop earns (None: the left end is
            closed)."""
            free = full & ~excl
            base = v + (bb and bonus_of(bb)) + pvals[(free & -free).bit_length() - 1]
            k = max_cost - c
            at_anchor = node == anchor
            for g, (o, _ts, _te, chains, _anyb), here, there, w, back_on in \
                    gains.get((node, k, anchor, id(back))) or right_steps(node, k, anchor, back):
                if base + g <= target:
                    break
                if vis >> o & 1 or gm & grp[o] or rank[o] < arank:
                    continue
                c2 = c + cost[o]
                v2 = v + vals[o]
                ends_ok = endok[o] and endok[anchor]
                vis2 = vis | 1 << o
                for m, cbb, step in chains:
                    if m & mask:
                        continue
                    got, worth, bb2, j, excl2 = with_partner(v2, bb | cbb, excl, m)
                    if got + w <= target:
                        continue
                    rs2 = (step, rs)
                    if ends_ok and got > target:
                        found(got, worth, mask | m, j, rs2, None)
                        if got + w <= target:
                            continue
                    m2 = mask | m
                    gm2 = gm | grp[o]
                    f = o if at_anchor else first
                    if there:
                        left(anchor, vis2, m2, c2, v2, bb2, gm2, excl2, arank, o, rs2, None, f)
                    if here:
                        right(o, vis2, m2, c2, v2, bb2, gm2, excl2, anchor, arank, f, back_on, rs2)

        if full and len(self.net.nodes) >= 2 and max_cost >= 2:
            for r, a in enumerate(stations):
                if cost[a] <= max_cost:
                    right(a, 1 << a, 0, cost[a], vals[a], 0, grp[a], 0, a, r, -1, None, None)
        return best


def candidate_routes(game, corp, max_cost: int | None = None, rules: RouteRules | None = None):
    """All legal routes of `corp` up to `max_cost` stops (default: its longest unrun train), valued for
    its first unrun train: (rules, candidates)."""
    rules = rules or _rules(game, corp)
    net = _net(rules)
    trains = rules.trains()
    if max_cost is None:
        max_cost = max((rules.train_limit(t) for t in trains), default=0)
    if trains:
        vals = _stop_values(rules, net, trains[0])
    else:
        vals = [0] * len(net.nodes)
    return rules, _Candidates(net, rules, max_cost, vals, trains[0] if trains else None)


def _rules(game, corp) -> RouteRules:
    cls = getattr(game, "ROUTE_RULES", None) or RouteRules
    return cls(game, corp)


def _net(rules: RouteRules) -> _Net:
    return _Net(rules.hexmap, rules.sym, rules.passable, rules.limited_pass)


# -- the best run -------------------------------------------------------------------------------


def _train_options(rules: RouteRules, cands: _Candidates, train, base_vals: list[int], same_values: bool):
    """Candidates a train can run, best first: (values, masks, candidate indexes, route fields by
    candidate index when the title gives them)."""
    limit = rules.train_limit(train)
    costs = cands.costs
    nodes = cands.net.nodes
    fields: dict[int, dict] = {}
    if rules.counts_stops:
        # candidates alike in stop cost, value and counts score alike: each such group is scored once
        if same_values or _stop_values(rules, cands.net, train) == base_vals:
            groups = cands.groups()
        else:
            nv = _stop_values(rules, cands.net, train)
            groups = cands.groups([sum(nv[i] for i in range(len(nodes)) if sm >> i & 1) for sm in cands.stopmasks])
        nclasses = 1 + max((c for c in (rules.stop_class(x) for x in nodes) if c is not None), default=-1)
        unit = (1 << COUNT_BITS) - 1
        scored = []
        for (cost, value, pack), ks in groups.items():
            if cost > limit:
                continue
            counts = [(pack >> (COUNT_BITS * i)) & unit for i in range(nclasses)]
            score, route_fields = rules.counted_result(cost, value, counts, train)
            if score > 0:
                scored.append((score, route_fields, ks))
        scored.sort(key=lambda g: g[0], reverse=True)
        order = [k for _, _, ks in scored for k in ks]
        vals = [score for score, _, ks in scored for _ in ks]
        masks = cands.masks
        fields = _GroupFields(scored)
        return vals, [masks[k] for k in order], order, fields
    elif rules.simple_values and rules.additive(train):
        if same_values:
            vals = cands.values
        else:
            nv = _stop_values(rules, cands.net, train)
            vals = []
            for sm in cands.stopmasks:
                v = 0
                i = 0
                while sm:
                    if sm & 1:
                        v += nv[i]
                    sm >>= 1
                    i += 1
                vals.append(v)
        bonuses = _track_bonus_masks(rules, cands.net)
        if bonuses:
            vals = list(vals)
            for bits, amount in bonuses:
                for k, mask in enumerate(cands.masks):
                    if mask & bits:
                        vals[k] += amount
        order = [k for k in range(len(costs)) if costs[k] <= limit and vals[k] > 0]
    else:
        vals = [0] * len(costs)
        order = []
        for k in range(len(costs)):
            if costs[k] > limit:
                continue
            stops, steps = cands.route(k)
            if not rules.route_ok(stops, train):
                continue
            v, route_fields = rules.route_result(stops, [p for st in steps for p in st[0].paths], train)
            if v > 0:
                vals[k] = v
                fields[k] = route_fields
                order.append(k)
    order.sort(key=vals.__getitem__, reverse=True)
    masks = cands.masks
    order = _one_per_track(order, masks)
    return [vals[k] for k in order], [masks[k] for k in order], order, fields


def _stop_values(rules: RouteRules, net: _Net, train) -> list[int]:
    """Each stop's value for a train, found once for trains alike (rules.train_key, multiplier) on a network and
    its rules."""
    if net.stop_values is None or net.stop_values[0] is not rules:
        net.stop_values = (rules, {})
    known = net.stop_values[1]
    key = (rules.train_key(train), getattr(train, "multiplier", None))
    got = known.get(key)
    if got is None:
        got = known[key] = [rules.stop_value(x, train) for x in net.nodes]
    return got


def _track_bonus_masks(rules: RouteRules, net: _Net) -> list[tuple[int, int]]:
    """(track bits of the hex, bonus) for each bonus hex the corporation's track reaches (found once for a
    network and its rules)."""
    if net.bonus_masks is not None and net.bonus_masks[0] is rules:
        return net.bonus_masks[1]
    bonuses = rules.track_bonuses()
    got = []
    for coord, amount in bonuses.items():
        mask = net.coord_bits.get(coord, 0) & net.track
        if mask:
            got.append((mask, amount))
    net.bonus_masks = (rules, got)
    return got


class _GroupFields:
    """The run_routes fields of candidates scored by group (rules.counted_result), by candidate index."""

    def __init__(self, scored: list[tuple]):
        self.by_candidate = {}
        self.scored = scored

    def get(self, k: int) -> dict | None:
        if not self.by_candidate:
            self.by_candidate = {c: route_fields for _, route_fields, ks in self.scored for c in ks}
        return self.by_candidate.get(k)


def _combine(options: list[tuple], keys: list, accept=None, limited=None, passes: int = 0) -> tuple[int, list]:
    """Branch and bound: pick for each train one candidate (or none), track masks pairwise disjoint,
    maximising the total. Trains with equal keys take candidates in increasing position (symmetry).
    `accept(pick)`: whether a run (candidate position per train, None for no route) may run together;
    `limited[i][j]`: candidate j of train i uses a limited pass, of which the run has `passes`.

    Each train's candidates still clear of the track picked so far are kept as a bit set over its
    (value-sorted) list, so its best remaining candidate is the lowest bit: the bound for the trains
    still to pick is exact train by train, and the last train is picked without a scan (a run that must
    pass `accept`: with a scan)."""
    n = len(options)
    # limited[i] as a bit set over train i's positions: once the run's passes are used up, these go
    lim_bits = [int("".join("1" if f else "0" for f in reversed(lim)) or "0", 2) for lim in limited] if limited \
        else [0] * n
    full = [(1 << len(o[0])) - 1 if passes else ((1 << len(o[0])) - 1) & ~b for o, b in zip(options, lim_bits, strict=True)]
    if n == 1 and accept is None:
        j = (full[0] & -full[0]).bit_length() - 1
        return (options[0][0][j], [j]) if full[0] else (0, [None])
    nxt_kind = [n] * n  # first train after i with another key
    for i in range(n - 1, -1, -1):
        nxt_kind[i] = i + 1 if i + 1 == n or keys[i + 1] != keys[i] else nxt_kind[i + 1]
    index: dict[int, list[int]] = {}  # id(options) -> for each track bit, the candidates using it

    def row(k):  # made when first needed (two trains seldom need it)
        got = index.get(id(options[k]))
        if got is None:
            got = index[id(options[k])] = _bit_index(options[k][1])
        return got

    conflicts: list[dict] = [{} for _ in range(n)]  # per train i: j -> candidates of each later train clashing
    # id(options) -> {a byte of a track mask (its place and value, place << 8 | value): the candidates using any
    # of its bits}: candidates over the same chains share bytes
    byte_rows: dict[int, dict[int, int]] = {}

    def clash(i, j):
        got = conflicts[i].get(j)
        if got is None:
            m = options[i][1][j]
            got = []
            for k in range(i + 1, n):
                rows = byte_rows.get(id(options[k]))
                if rows is None:
                    rows = byte_rows[id(options[k])] = {}
                c = 0
                rest = m
                place = 0
                while rest:
                    byte = rest & 255
                    if byte:
                        key = place << 8 | byte
                        r = rows.get(key)
                        if r is None:
                            bit_row = row(k)
                            r = 0
                            while byte:
                                low = byte & -byte
                                b = place + low.bit_length() - 1
                                if b < len(bit_row):
                                    r |= bit_row[b]
                                byte ^= low
                            rows[key] = r
                        c |= r
                    rest >>= 8
                    place += 8
                got.append(c)
            conflicts[i][j] = got
        return got

    # suffix[k]: the best total of trains k.. alone (no track used) bounds what they add anywhere; worked
    # out from the last train up, each search bounded by the ones after it
    suffix = [0] * (n + 1)
    best_total = 0
    best_pick: list[int | None] = [None] * n
    pick: list[int | None] = [None] * n

    check = None  # accept, for the search of the whole run (the suffix bounds are searched without it)

    def rec(i, comps, total, passes_left):
        # comps[k - i]: candidates of train k clear of the track picked so far
        nonlocal best_total, best_pick
        if total > best_total:
            run = pick[:i] + [None] * (n - i)
            if check is None or check(run):
                best_total = total
                best_pick = run
        if i == n:
            return
        bounds = [options[k][0][(c & -c).bit_length() - 1] if c else 0 for k, c in zip(range(i, n), comps, strict=True)]
        if total + sum(bounds) <= best_total:
            return
        vals = options[i][0]
        if i == n - 1 and check is None:
            j = (comps[0] & -comps[0]).bit_length() - 1
            pick[i] = j
            best_total = total + vals[j]
            best_pick = pick[:]
            pick[i] = None
            return
        rest = min(sum(bounds) - bounds[0], suffix[i + 1])
        same_next = i + 1 < n and keys[i + 1] == keys[i]
        lim = lim_bits[i]
        c = comps[0]
        if i == n - 2:  # the pair level: the last train's best candidate clear of each pick (and accepted)
            masks = options[i][1]
            lvals, lmasks = options[n - 1][0], options[n - 1][1]
            last = comps[1]
            while c:
                low = c & -c
                c ^= low
                j = low.bit_length() - 1
                v = vals[j]
                if total + v + rest <= best_total:
                    break
                m = masks[j]
                free = last & ~((low << 1) - 1) if same_next else last
                if low & lim and passes_left == 1:
                    free &= ~lim_bits[n - 1]
                pick[i] = j
                found = None
                tries = 0
                while free:
                    lo = free & -free
                    t = lo.bit_length() - 1
                    if total + v + lvals[t] <= best_total:
                        break  # best first: nothing after it does better
                    if not lmasks[t] & m:
                        pick[n - 1] = t
                        if check is None or check(pick):
                            found = t
                            break
                    free ^= lo
                    tries += 1
                    if tries == 8:  # many clash: drop them all at once
                        free &= ~clash(i, j)[0]
                pick[n - 1] = found
                got = total + v + (lvals[found] if found is not None else 0)
                if got > best_total and (found is not None or check is None or check(pick)):
                    best_total = got
                    best_pick = pick[:]
                pick[n - 1] = None
            pick[i] = None
            if not same_next and total + bounds[1] > best_total:
                rec(n - 1, comps[1:], total, passes_left)
            return
        while c:
            low = c & -c
            c ^= low
            j = low.bit_length() - 1
            v = vals[j]
            if total + v + rest <= best_total:
                break
            clashes = clash(i, j)
            nxt = [cc & ~x for cc, x in zip(comps[1:], clashes, strict=True)]
            if same_next:
                nxt[0] &= ~((low << 1) - 1)
            left = passes_left
            if low & lim:
                left -= 1
                if not left:
                    nxt = [cc & ~lim_bits[k] for k, cc in zip(range(i + 1, n), nxt, strict=True)]
            pick[i] = j
            rec(i + 1, nxt, total + v, left)
        pick[i] = None
        k = nxt_kind[i]  # no route for this train (nor for its identical successors)
        if k < n and total + min(sum(bounds[k - i:]), suffix[k]) > best_total:
            rec(k, comps[k - i:], total, passes_left)

    for start in range(n - 1, -1, -1):
        if start == 0:
            check = accept
        best_total, best_pick, pick = 0, [None] * n, [None] * n
        rec(start, full[start:], 0, passes)
        suffix[start] = best_total
    return best_total, best_pick


def _one_per_track(order: list[int], masks: list[int]) -> list[int]:
    """Of candidates (best first) over the same track, the best is enough: the same track is the same
    route."""
    seen: set[int] = set()
    return [k for k in order if not (masks[k] in seen or seen.add(masks[k]))]


def _bit_index(masks: list[int]) -> list[int]:
    """For each track bit, the set (as an int over positions) of the candidates whose mask has it (the
    masks written as binary strings and transposed)."""
    width = max((m.bit_length() for m in masks), default=0)
    if not width:
        return []
    fmt = f"0{width}b"
    rows = "".join([format(m, fmt) for m in masks])
    out = [int(rows[col::width][::-1], 2) for col in range(width)]  # a column: the candidates, first lowest
    out.reverse()  # the rows start with the highest bit
    return out


def _segment(step) -> list[str]:
    ch, a, _b = step
    hexes = ch.hexes if a == ch.a else ch.hexes[::-1]
    if len(hexes) == 1:
        tile = ch.paths[0].tile
        if sum(1 for p in tile.paths if len(p.nodes) == 2) > 1:
            parts = sorted(n.part_index for n in ch.paths[0].nodes)
            return [f"{hexes[0]} {parts[0]}.{parts[1]}"]
    return list(hexes)


def _route_dict(cands: _Candidates, k: int, train, fields: dict) -> dict:
    stops, steps = cands.route(k)
    return {"train": train.id, "connections": [_segment(st) for st in steps],
            "hexes": [s.tile.hex.coord for s in stops], "nodes": [s.signature for s in stops], **fields}


def best_routes(game, corp) -> list[dict]:
    """The highest-revenue run of `corp`'s trains that haven't run yet, in run_routes format
    ([] when no train can run a route)."""
    rules = _rules(game, corp)
    trains = rules.trains()
    if not trains:
        return []
    trains.sort(key=lambda t: (-rules.train_limit(t), rules.train_key(t)))
    net = _net(rules)
    keys = [rules.train_key(t) for t in trains]
    vals = _added_values(rules, net, trains)
    found = None
    if vals is None or len(trains) > 1:
        # every route a candidate, unless the routes' values add up and there are many
        paired = vals is not None and len(trains) == 2 and all(_walkable(net, rules.train_limit(t)) for t in trains)
        try:
            found = _best_run(rules, net, trains, keys, None if vals is None else PAIR_ROUTES if paired else MANY_ROUTES)
        except _TooMany:
            pass
    if found is None:  # one train, or many routes: the search by stops
        found = _best_added_run(_StopSearch(net, rules, vals, _track_bonus_masks(rules, net)), rules, trains, keys)
    cands_of, options, pick = found
    if not any(len(c) for c in cands_of):
        return []
    out = []
    for t, opt, j, cands in zip(trains, options, pick, cands_of, strict=True):
        if j is not None:
            k = opt[2][j]
            out.append(_route_dict(cands, k, t, opt[3].get(k) or {"revenue": opt[0][j]}))
    order = {t.id: i for i, t in enumerate(corp.trains)}
    out.sort(key=lambda r: order.get(r["train"], 0))
    return out


def _best_run(rules: RouteRules, net: _Net, trains: list, keys: list, cap: int | None = None
              ) -> tuple[list, list, list]:
    """(candidates, options, pick) of each train in the best run: every route a train may run is a
    candidate (raises _TooMany beyond `cap` candidates of a kind)."""
    # one candidate set per way of counting stops, made for the longest train that counts that way
    candidate_sets: dict[tuple, tuple[_Candidates, list[int]]] = {}
    for t in trains:
        cost_key = rules.cost_key(t)
        if cost_key not in candidate_sets:
            vals = _stop_values(rules, net, t)
            candidate_sets[cost_key] = (_Candidates(net, rules, rules.train_limit(t), vals, t, cap), vals)
    made = [candidate_sets[rules.cost_key(t)] for t in trains]
    if not any(len(c) for c, _ in made):
        return [], [], []
    options = []
    cache: dict = {}
    for t, key, (cands, base_vals) in zip(trains, keys, made, strict=True):
        if key not in cache:
            same = _stop_values(rules, net, t) == base_vals
            cache[key] = _train_options(rules, cands, t, base_vals, same)
        options.append(cache[key])
    cands_of = [cands for cands, _ in made]
    limited = [[cands.limited[k] for k in opt[2]] for cands, opt in zip(cands_of, options, strict=True)]

    def accept(run: list) -> bool:
        picked = [cands.stopmasks[opt[2][j]] for cands, opt, j in zip(cands_of, options, run, strict=True)
                  if j is not None]
        return rules.run_ok(picked, net)

    checks_runs = type(rules).run_ok is not RouteRules.run_ok
    if len(trains) > 1 and not checks_runs and not rules.limited_passes():
        options = _worth_running(options)
        limited = [lim[:len(opt[0])] for lim, opt in zip(limited, options, strict=True)]
    _total, pick = _combine(options, keys, accept if checks_runs else None, limited, rules.limited_passes())
    return cands_of, options, pick


def _worth_running(options: list[tuple]) -> list[tuple]:
    """Each train's candidates cut to those that may be in a best run (a run needing nothing but track kept
    apart). A run found greedily (`_greedy_run`) is worth `low`; the other trains earn at most their best
    candidates, so a route of train i in a run worth at least `low` is worth at least
    low - (sum of the others' best): the ones below can't be in a best run. Every route of a best run is
    over its train's cut, so the best run survives whole."""
    best = [opt[0][0] if opt[0] else 0 for opt in options]
    # greedily, each train in turn taking its best candidate first
    low = max(_greedy_run(options[i:] + options[:i]) for i in range(len(options)))
    others = sum(best)
    cut: dict[int, tuple] = {}
    out = []
    for opt, b in zip(options, best, strict=True):
        got = cut.get(id(opt))
        if got is None:
            vals = opt[0]  # best first
            n = bisect_right(vals, others - b - low, key=neg)  # how many are worth at least low - (others - b)
            got = cut[id(opt)] = opt if n == len(vals) else (vals[:n], opt[1][:n], opt[2][:n], opt[3])
        out.append(got)
    return out


def _greedy_run(options: list[tuple]) -> int:
    """The worth of a run: each train in this order takes its best candidate clear of the track taken."""
    total, used = 0, 0
    for vals, masks, _order, _fields in options:
        for v, m in zip(vals, masks, strict=True):
            if not m & used:
                total += v
                used |= m
                break
    return total


def _added_values(rules: RouteRules, net: _Net, trains: list) -> list[int] | None:
    """The stops' values when every train earns the same for a stop and a route earns its stops' values
    plus its track bonuses, every stop costing at least one, and nothing but track keeps routes of a run
    apart (the search of _StopSearch applies); None otherwise."""
    if not rules.simple_values or rules.counts_stops or rules.limited_passes() or not rules.reenter_hexes:
        return None
    if type(rules).run_ok is not RouteRules.run_ok:
        return None
    vals = None
    for t in trains:
        if not rules.additive(t) or rules.cost_key(t):
            return None
        train_vals = _stop_values(rules, net, t)
        if vals is None:
            vals = train_vals
        elif train_vals != vals:
            return None
    if any(v < 0 for v in vals) or any(rules.stop_cost(x) < 1 for x in net.nodes):
        return None
    return vals


def _best_added_run(search: _StopSearch, rules: RouteRules, trains: list, keys: list) -> tuple[list, list, list]:
    """(candidates, options, pick) of each train in the best run of routes whose values add up.

    One train: its best route is all the search needs. Several: a run found greedily (each train in
    turn taking its best route clear of the track taken) is worth `low`; every train alone earns at most
    `alone`. For a goal G, each train's candidates are the routes worth at least G less the others'
    `alone` (a route of any run worth G or more is), and the best run of these is the best of all once it
    is worth G or more: G starts at the sum of `alone` and comes down halfway to `low` at a time (at
    `low`, no route of a best run is missing). Two trains whose walks bound them: `_best_pair`."""
    limits = [rules.train_limit(t) for t in trains]

    def options_of(cands_by_key):
        cands_of = [cands_by_key[key] for key in keys]
        opts = {key: _train_options(rules, cands_by_key[key], t, search.vals, True)
                for key, t in zip(keys, trains, strict=True)}
        return cands_of, [opts[key] for key in keys]

    if len(trains) == 1:
        cands_of, options = options_of({keys[0]: search.best(limits[0])[0]})
        return cands_of, options, _combine(options, keys)[1]
    found: dict[tuple, tuple[int, int]] = {}  # (stops, track taken) -> (worth, track) of the best route
    listers: dict[tuple, tuple] = {}  # train key -> (candidates, lower): its best route, the others aside
    for key, limit in zip(keys, limits, strict=True):
        if key not in listers:
            cands, worth, lower = search.lister(limit, None, aside_too=True)
            listers[key] = (cands, lower)
            found[limit, 0] = (worth, cands.masks[-1] if worth else 0)
    alone = [found[limit, 0][0] for limit in limits]
    if len(trains) == 2 and all(alone) and all(search.walkable(limit) for limit in limits):
        return _best_pair(search, rules, trains, keys, limits, listers, alone)

    def best(limit, used):
        got = found.get((limit, used))
        if got is None:
            cands, worth = search.best(limit, used)
            got = found[limit, used] = (worth, cands.masks[-1] if worth else 0)
        return got

    low = 0
    orders = set()
    n = len(trains)
    for i in range(n):
        order = list(range(i, n)) + list(range(i))
        if tuple(keys[j] for j in order) in orders:
            continue
        orders.add(tuple(keys[j] for j in order))
        total = used = 0
        for j in order:
            worth, mask = best(limits[j], used)
            total += worth
            used |= mask
        low = max(low, total)
    goal = sum(alone)
    unit = gcd(*search.vals, *search.bonus) or 1
    while True:
        cands_by_key = {}
        for key, worth in zip(keys, alone, strict=True):
            if key not in cands_by_key:
                listers[key][1](goal - (sum(alone) - worth))
                cands_by_key[key] = listers[key][0]
        cands_of, options = options_of(cands_by_key)
        total, pick = _combine(_worth_running(options), keys)
        if total >= goal or goal <= low:
            return cands_of, options, pick
        # halfway down; runs are worth a multiple of `unit`, so a goal between two multiples is the upper one
        goal = max(total, low, min(goal - unit, -(-(low + (goal - low) // 2) // unit) * unit))


def _best_pair(search: _StopSearch, rules: RouteRules, trains: list, keys: list, limits: list[int],
               listers: dict, alone: list[int]) -> tuple[list, list, list]:
    """(candidates, options, pick) of two trains in the best run of routes whose values add up (`_pair_run`),
    each train earning at most `alone` (both more than 0) and listing its routes with listers[key]."""

    def listed(i: int, floor: int) -> tuple[list, list, list]:
        cands, lower = listers[keys[i]]
        lower(floor)
        vals, masks, order, _fields = _train_options(rules, cands, trains[i], search.vals, True)
        return vals, masks, [(cands, k) for k in order]

    def best_with(i: int, vals: list[int], masks: list[int], threshold: int):
        got = search.best_with_partner(limits[i], (vals, masks), threshold, max(limits))
        if got is None:
            return None
        total, worth, mask, j, rs, ls = got
        route = _Candidates(search.net, None, 0, search.vals)
        route.refs.append((rs, ls))
        return total, worth, mask, j, (route, 0)

    unit = gcd(*search.vals, *search.bonus) or 1
    _total, run = _pair_run(alone, unit, keys[0] == keys[1], listed, best_with)
    cands_of: list = [_Candidates(search.net, None, 0, search.vals) for _ in trains]
    options: list = [([], [], [], {}) for _ in trains]
    pick: list = [None, None]
    for i, (worth, mask, (cands, k)) in run.items():
        cands_of[i] = cands
        options[i] = ([worth], [mask], [k], {})
        pick[i] = 0
    return cands_of, options, pick


def _pair_run(alone: list[int], unit: int, alike: bool, listed, best_with) -> tuple[int, dict]:
    """The best run of two trains (alike: interchangeable), each earning at most its `alone` (both more than 0),
    every worth a multiple of `unit`: (its worth, {train: (worth, track, reference) of its route}).
    listed(i, floor): train i's routes worth at least floor, as (worths best first, track masks, references);
    best_with(i, worths, masks, threshold): train i's best route together with one of these routes clear of its
    track, the two earning at least threshold: (their worth, its worth, its track, the other's position, its
    reference), or None.

    A run better than the best so far (worth `total`) falls short of `alone` by d0 on the first train's route
    and d1 on the second's, d0 + d1 <= alone[0] + alone[1] - total - unit. Each train lists its routes worth at
    least its `alone` less a depth, and the other train's best route together with one of them is searched: a
    better run missing from these searches has both d0 and d1 beyond the depths, so once the depths add up to
    the shortfall left, none is missing. The depths start at 0 (each train's best routes) and go down once, to
    cover the shortfall after the first searches; a route is searched with once."""
    sides = [0] if alike else [0, 1]
    searched: list[set] = [set(), set()]  # each train's listed routes (track masks) searched with
    i = 0 if alone[0] >= alone[1] else 1
    vals, masks, refs = listed(i, alone[i])
    best = (alone[i], {i: (vals[0], masks[0], refs[0])})  # one train alone
    depth = [0, 0]
    while True:
        for i in sides:
            vals, masks, refs = listed(i, alone[i] - depth[i])
            new = [j for j, m in enumerate(masks) if m not in searched[i]]
            searched[i].update(masks[j] for j in new)
            other = 1 - i
            got = best_with(other, [vals[j] for j in new], [masks[j] for j in new], best[0] + 1) if new else None
            if got is not None:
                total, worth, mask, j, ref = got
                j = new[j]
                best = (total, {other: (worth, mask, ref), i: (vals[j], masks[j], refs[j])})
        shortfall = alone[0] + alone[1] - best[0] - unit  # of a better run: d0 + d1 <= shortfall
        # a run missing has d0 >= depth[0] + unit and d1 >= depth[1] + unit
        if depth[0] + depth[1] + 2 * unit > shortfall:
            return best
        if alike:
            depth[0] = depth[1] = -(-(shortfall - unit) // (2 * unit)) * unit
        else:  # the second (shorter) train's list goes deeper: it costs less to make
            d0 = max(depth[0], (shortfall - unit) // (3 * unit) * unit)
            depth = [d0, max(depth[1], shortfall - unit - d0)]


def check_routes(game, corp, routes: list[dict]) -> list[int]:
    """Check routes entered by hand (run_routes format: "train" is a train id) and return their revenues;
    raises GameError saying exactly why a route is illegal (and if a route's stated revenue or subsidy is
    not what it earns)."""
    results = game.run_results(corp, routes)
    for route, (revenue, subsidy) in zip(routes, results, strict=True):
        want = route.get("revenue")
        if want is not None and want != revenue:
            raise GameError("train {train}'s route pays {revenue}, not {want}", train=route.get('train'),
                            revenue=revenue, want=want)
        want = route.get("subsidy")
        if want is not None and want != subsidy:
            raise GameError("train {train}'s route earns a subsidy of {subsidy}, not {want}",
                            train=route.get('train'), subsidy=subsidy, want=want)
    return [revenue for revenue, _ in results]
