"""Optimal routes: the best run of a corporation's trains (issue "Optimal routes").

``best_routes(game, corp)`` returns, for the trains that haven't run this operating round, the set of
routes with the highest total revenue, in 18xx.games ``run_routes`` format (shared/fixtures/FORMAT.md),
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

Title rules come in through :class:`RouteRules` (a game may set ``ROUTE_RULES`` to a subclass): stop
counting and train length (N+M trains: 18MEX towns free, 1860 towns and halts), which stops may be passed
through, stop values (18MEX 4D: cities and offboards doubled) and the route's revenue (route hooks),
extra legality. Trains that count stops differently get candidate sets of their own over one network.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core.errors import GameError

if TYPE_CHECKING:
    from engine.core.hexmap import HexMap
    from engine.core.tiles import Node, Path

__all__ = ["RouteRules", "best_routes", "check_routes", "candidate_routes"]


def _inv(e: int) -> int:
    return (e + 3) % 6


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
        """True when a route's revenue is the plain sum of its stop values (lets the search add up
        values while it walks). Titles with route bonuses or N+M trains return False and get
        :meth:`route_value` called on every candidate."""
        return self.hexmap.route_hook is None

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


def _lanes_ok(lane, q_lane) -> bool:
    if lane == (1, 0) == q_lane:
        return True
    return lane[0] == q_lane[0] and q_lane[1] == lane[0] - 1 - lane[1]


class _Net:
    """Stops reachable from the corporation's stations and the chains between them."""

    def __init__(self, hexmap: HexMap, sym: str, passable):
        self.nodes: list = []
        self.index: dict = {}
        self.chains: list[_Chain] = []
        self.adj: list[list[tuple]] = []  # node -> [(other, mask, chain, start_terminal, end_terminal)]
        key_bits: dict = {}
        starts = hexmap.token_cities(sym)
        todo = []
        for c in starts:
            if c not in self.index:
                self._add(c)
                todo.append(c)
        seen_chain: set = set()
        while todo:
            node = todo.pop()
            ni = self.index[node]
            for p in node.paths:
                for other, paths, hexes in _walk_chains(node, p):
                    mask = 0
                    for q in paths:
                        coord = q.tile.hex.coord
                        for e in q.exits:
                            k = (coord, e, q.edge_lanes[e][1])
                            bit = key_bits.get(k)
                            if bit is None:
                                bit = key_bits[k] = 1 << len(key_bits)
                            mask |= bit
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
                    self.adj[ni].append((oi, mask, ch, ch.term_a, ch.term_b))
                    if oi != ni:
                        self.adj[oi].append((ni, mask, ch, ch.term_b, ch.term_a))
        self.passable = [passable(n) for n in self.nodes]
        self.stations = [self.index[c] for c in starts if c in self.index]

    def _add(self, node) -> int:
        i = len(self.nodes)
        self.nodes.append(node)
        self.index[node] = i
        self.adj.append([])
        return i


def _walk_chains(start, p0):
    """Every track chain leaving stop `start` along path `p0` up to the next stop: (stop, paths, hexes).
    Track (hex edge keys) is never used twice within a chain."""
    out = []
    # stack entries: (path, entered_from, paths so far, hexes so far, used keys)
    stack = [(p0, start, [p0], [p0.tile.hex.coord], set())]
    while stack:
        p, entry, paths, hexes, used = stack.pop()
        h = p.tile.hex
        coord = h.coord
        keys = {(coord, e, p.edge_lanes[e][1]) for e in p.exits}
        if keys & used:
            continue
        used = used | keys
        a, b = p.ends
        end = b if (a is entry or (a.__class__ is int and a == entry)) else a
        if end.__class__ is int:
            nb = h.neighbors.get(end)
            if nb is None:
                continue
            ie = _inv(end)
            lane = p.edge_lanes[end]
            for q in nb.tile.paths_at_edge.get(ie, ()):
                if _lanes_ok(lane, q.edge_lanes[ie]):
                    stack.append((q, ie, paths + [q], hexes + [nb.coord], used))
        elif end.kind == "junction":
            for q in end.paths:
                if q is not p:
                    stack.append((q, end, paths + [q], hexes, used))
        else:
            if end is start:
                continue  # a loop back to the start stop
            out.append((end, paths, hexes))
    return out


# -- candidate routes ---------------------------------------------------------------------------


class _Candidates:
    """Every legal route of the corporation up to `max_cost` stops, as flat lists:
    value (summed with `vals`), track mask, stop cost, visited-stop mask, route reference."""

    def __init__(self, net: _Net, rules: RouteRules, max_cost: int, vals: list[int], train=None):
        self.net = net
        self.values: list[int] = []
        self.masks: list[int] = []
        self.costs: list[int] = []
        self.stopmasks: list[int] = []
        self.refs: list[tuple] = []
        n = len(net.nodes)
        if n < 2 or max_cost < 2:
            return
        nodes = net.nodes
        cost = [rules.stop_cost(x, train) for x in nodes]
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
        big = len(nodes) + 1
        rank = [big] * n
        for r, i in enumerate(net.stations):
            rank[i] = min(rank[i], r)
        # directed adjacency: node -> [(other, mask, step, starts terminal, ends terminal, chain id)]
        adj = [[(o, m, (ch, i, o), ts, te, ch.id) for (o, m, ch, ts, te) in net.adj[i]] for i in range(n)]
        values, masks, costs, stopmasks, refs = self.values, self.masks, self.costs, self.stopmasks, self.refs
        seq: list = []
        lseq: list = []

        def left(node, vis, mask, c, v, gm, term, arank):
            if passable[node] and not term:
                for o, m, step, ts, te, _cid in adj[node]:
                    if ts or (vis >> o) & 1 or m & mask or gm & grp[o] or rank[o] < arank:
                        continue
                    c2 = c + cost[o]
                    if c2 > max_cost:
                        continue
                    v2 = v + vals[o]
                    vis2 = vis | (1 << o)
                    mask2 = mask | m
                    lseq.append(step)
                    values.append(v2)
                    masks.append(mask2)
                    costs.append(c2)
                    stopmasks.append(vis2)
                    refs.append((tuple(seq), tuple(lseq)))
                    left(o, vis2, mask2, c2, v2, gm | grp[o], te, arank)
                    lseq.pop()

        def right(node, vis, mask, c, v, gm, term, anchor, arank, first_id, anchor_term):
            if node != anchor and not (passable[node] and not term):
                return
            for o, m, step, ts, te, cid in adj[node]:
                # a route may leave its first stop along a terminal path (18MEX Merida); an inner stop may not
                if (ts and node != anchor) or (vis >> o) & 1 or m & mask or gm & grp[o] or rank[o] < arank:
                    continue
                c2 = c + cost[o]
                if c2 > max_cost:
                    continue
                v2 = v + vals[o]
                vis2 = vis | (1 << o)
                mask2 = mask | m
                gm2 = gm | grp[o]
                seq.append(step)
                values.append(v2)
                masks.append(mask2)
                costs.append(c2)
                stopmasks.append(vis2)
                refs.append((tuple(seq), ()))
                if node == anchor:
                    first_id, anchor_term = cid, ts
                # grow the other end from the anchor: mirror images skipped by chain id order
                if passable[anchor] and not anchor_term:
                    for o2, m2, step2, ts2, te2, cid2 in adj[anchor]:
                        if cid2 <= first_id or ts2 or (vis2 >> o2) & 1 or m2 & mask2 or gm2 & grp[o2] \
                                or rank[o2] < arank:
                            continue
                        c3 = c2 + cost[o2]
                        if c3 > max_cost:
                            continue
                        v3 = v2 + vals[o2]
                        vis3 = vis2 | (1 << o2)
                        mask3 = mask2 | m2
                        lseq.append(step2)
                        values.append(v3)
                        masks.append(mask3)
                        costs.append(c3)
                        stopmasks.append(vis3)
                        refs.append((tuple(seq), tuple(lseq)))
                        left(o2, vis3, mask3, c3, v3, gm2 | grp[o2], te2, arank)
                        lseq.pop()
                right(o, vis2, mask2, c2, v2, gm2, te, anchor, arank, first_id, anchor_term)
                seq.pop()

        for r, a in enumerate(net.stations):
            if rank[a] != r or cost[a] > max_cost:
                continue
            right(a, 1 << a, 0, cost[a], vals[a], grp[a], False, a, r, -1, False)

    def __len__(self):
        return len(self.values)

    def route(self, k: int) -> tuple[list, list]:
        """(stops, steps in route order) of candidate k; a step is (chain, from node, to node)."""
        seq, lseq = self.refs[k]
        steps = [(ch, b, a) for ch, a, b in reversed(lseq)] + list(seq)
        nodes = self.net.nodes
        if not steps:
            return [], []
        stops = [nodes[steps[0][1]]] + [nodes[s[2]] for s in steps]
        return stops, steps


def candidate_routes(game, corp, max_cost: int | None = None, rules: RouteRules | None = None):
    """All legal routes of `corp` up to `max_cost` stops (default: its longest unrun train), valued for
    its first unrun train: (rules, candidates)."""
    rules = rules or _rules(game, corp)
    net = _Net(rules.hexmap, rules.sym, rules.passable)
    trains = [t for t in corp.trains if not t.operated]
    if max_cost is None:
        max_cost = max((rules.train_limit(t) for t in trains), default=0)
    if trains:
        vals = [rules.stop_value(x, trains[0]) for x in net.nodes]
    else:
        vals = [0] * len(net.nodes)
    return rules, _Candidates(net, rules, max_cost, vals, trains[0] if trains else None)


def _rules(game, corp) -> RouteRules:
    cls = getattr(game, "ROUTE_RULES", None) or RouteRules
    return cls(game, corp)


# -- the best run -------------------------------------------------------------------------------


def _train_options(rules: RouteRules, cands: _Candidates, train, base_vals: list[int], same_values: bool):
    """Candidates a train can run, best first: (values, masks, candidate indexes)."""
    limit = rules.train_limit(train)
    costs = cands.costs
    nodes = cands.net.nodes
    if rules.simple_values and rules.additive(train):
        if same_values:
            vals = cands.values
        else:
            nv = [rules.stop_value(x, train) for x in nodes]
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
            v = rules.route_value(stops, [p for st in steps for p in st[0].paths], train)
            if v > 0:
                vals[k] = v
                order.append(k)
    order.sort(key=vals.__getitem__, reverse=True)
    masks = cands.masks
    seen: set[int] = set()  # of candidates over the same track, the best is enough
    order = [k for k in order if not (masks[k] in seen or seen.add(masks[k]))]
    return [vals[k] for k in order], [masks[k] for k in order], order


def _combine(options: list[tuple], keys: list) -> tuple[int, list[int | None]]:
    """Branch and bound: pick for each train one candidate (or none), track masks pairwise disjoint,
    maximising the total. Trains with equal keys take candidates in increasing position (symmetry).

    Each train's candidates still clear of the track picked so far are kept as a bit set over its
    (value-sorted) list, so its best remaining candidate is the lowest bit: the bound for the trains
    still to pick is exact train by train, and the last train is picked without a scan."""
    n = len(options)
    if n == 1:
        vals = options[0][0]
        return (vals[0], [0]) if vals else (0, [None])
    nxt_kind = [n] * n  # first train after i with another key
    for i in range(n - 1, -1, -1):
        nxt_kind[i] = i + 1 if i + 1 == n or keys[i + 1] != keys[i] else nxt_kind[i + 1]
    index: dict[int, list[int]] = {}  # id(options) -> for each track bit, the candidates using it
    for o in options:
        if id(o) not in index:
            index[id(o)] = _bit_index(o[1])
    rows = [index[id(o)] for o in options]
    conflicts: list[dict] = [{} for _ in range(n)]  # per train i: j -> candidates of each later train clashing

    def clash(i, j):
        got = conflicts[i].get(j)
        if got is None:
            m = options[i][1][j]
            bits = []
            while m:
                low = m & -m
                bits.append(low.bit_length() - 1)
                m ^= low
            got = []
            for k in range(i + 1, n):
                row = rows[k]
                c = 0
                for b in bits:
                    if b < len(row):
                        c |= row[b]
                got.append(c)
            conflicts[i][j] = got
        return got

    # suffix[k]: the best total of trains k.. alone (no track used) bounds what they add anywhere; worked
    # out from the last train up, each search bounded by the ones after it
    suffix = [0] * (n + 1)
    best_total = 0
    best_pick: list[int | None] = [None] * n
    pick: list[int | None] = [None] * n

    def rec(i, comps, total):
        # comps[k - i]: candidates of train k clear of the track picked so far
        nonlocal best_total, best_pick
        if total > best_total:
            best_total = total
            best_pick = pick[:i] + [None] * (n - i)
        if i == n:
            return
        bounds = [options[k][0][(c & -c).bit_length() - 1] if c else 0 for k, c in zip(range(i, n), comps, strict=True)]
        if total + sum(bounds) <= best_total:
            return
        vals = options[i][0]
        if i == n - 1:
            j = (comps[0] & -comps[0]).bit_length() - 1
            pick[i] = j
            best_total = total + vals[j]
            best_pick = pick[:]
            pick[i] = None
            return
        rest = min(sum(bounds) - bounds[0], suffix[i + 1])
        same_next = keys[i + 1] == keys[i]
        c = comps[0]
        if i == n - 2:  # the pair level: the last train's best candidate clear of each pick, directly
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
                found = None
                for _ in range(8):
                    if not free:
                        break
                    lo = free & -free
                    t = lo.bit_length() - 1
                    if not lmasks[t] & m:
                        found = t
                        break
                    free ^= lo
                else:
                    free &= ~clash(i, j)[0]
                    if free:
                        found = (free & -free).bit_length() - 1
                got = total + v + (lvals[found] if found is not None else 0)
                if got > best_total:
                    best_total = got
                    pick[i], pick[n - 1] = j, found
                    best_pick = pick[:]
                    pick[n - 1] = None
            pick[i] = None
            if not same_next and total + bounds[1] > best_total:
                rec(n - 1, comps[1:], total)
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
            pick[i] = j
            rec(i + 1, nxt, total + v)
        pick[i] = None
        k = nxt_kind[i]  # no route for this train (nor for its identical successors)
        if k < n and total + min(sum(bounds[k - i:]), suffix[k]) > best_total:
            rec(k, comps[k - i:], total)

    full = [(1 << len(o[0])) - 1 for o in options]
    for start in range(n - 1, -1, -1):
        best_total, best_pick, pick = 0, [None] * n, [None] * n
        rec(start, full[start:], 0)
        suffix[start] = best_total
    return best_total, best_pick


def _bit_index(masks: list[int]) -> list[int]:
    """For each track bit, the set (as an int over positions) of the candidates whose mask has it (the
    masks written as binary strings and transposed)."""
    width = max((m.bit_length() for m in masks), default=0)
    if not width:
        return []
    fmt = f"0{width}b"
    columns = zip(*[format(m, fmt) for m in masks], strict=True)
    out = [int("".join(col)[::-1], 2) for col in columns]
    out.reverse()  # the strings start with the highest bit
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


def _route_dict(cands: _Candidates, k: int, train, revenue: int) -> dict:
    stops, steps = cands.route(k)
    return {"train": train.id, "connections": [_segment(st) for st in steps],
            "hexes": [s.tile.hex.coord for s in stops], "nodes": [s.signature for s in stops],
            "revenue": revenue}


def best_routes(game, corp) -> list[dict]:
    """The highest-revenue run of `corp`'s trains that haven't run yet, in run_routes format
    ([] when no train can run a route)."""
    rules = _rules(game, corp)
    trains = [t for t in corp.trains if not t.operated and not getattr(t, "rusted", False)]
    if not trains:
        return []
    trains.sort(key=lambda t: (-rules.train_limit(t), rules.train_key(t)))
    net = _Net(rules.hexmap, rules.sym, rules.passable)
    # one candidate set per way of counting stops, made for the longest train that counts that way
    candidate_sets: dict[tuple, tuple[_Candidates, list[int]]] = {}
    for t in trains:
        cost_key = rules.cost_key(t)
        if cost_key not in candidate_sets:
            vals = [rules.stop_value(x, t) for x in net.nodes]
            candidate_sets[cost_key] = (_Candidates(net, rules, rules.train_limit(t), vals, t), vals)
    if not any(len(c) for c, _ in candidate_sets.values()):
        return []
    keys = [rules.train_key(t) for t in trains]
    options = []
    cache: dict = {}
    for t, key in zip(trains, keys, strict=True):
        if key not in cache:
            cands, base_vals = candidate_sets[rules.cost_key(t)]
            same = [rules.stop_value(x, t) for x in net.nodes] == base_vals
            cache[key] = _train_options(rules, cands, t, base_vals, same)
        options.append(cache[key])
    _total, pick = _combine(options, keys)
    out = []
    for t, opt, j in zip(trains, options, pick, strict=True):
        if j is not None:
            out.append(_route_dict(candidate_sets[rules.cost_key(t)][0], opt[2][j], t, opt[0][j]))
    order = {t.id: i for i, t in enumerate(corp.trains)}
    out.sort(key=lambda r: order.get(r["train"], 0))
    return out


def check_routes(game, corp, routes: list[dict]) -> list[int]:
    """Check routes entered by hand (run_routes format: "train" is a train id) and return their revenues;
    raises GameError saying exactly why a route is illegal."""
    specs = []
    seen: set = set()
    by_id = {t.id: t for t in corp.trains}
    for route in routes:
        tid = route.get("train")
        train = by_id.get(tid)
        if train is None:
            raise GameError(f"{corp.sym} doesn't own train {tid}")
        if train.operated or tid in seen:
            raise GameError(f"train {tid} has already run this operating round")
        seen.add(tid)
        specs.append({"train_name": train.name, "distance": train.distance, "multiplier": train.multiplier,
                      "connections": route.get("connections") or [], "nodes": route.get("nodes")})
    revenues = game.route_revenues(corp, specs) if specs else []
    for route, rev in zip(routes, revenues, strict=True):
        want = route.get("revenue")
        if want is not None and want != rev:
            raise GameError(f"train {route.get('train')}'s route pays {rev}, not {want}")
    return revenues
