"""A seeded Steam player for self-play: it plans deliveries and keeps its books.

It plays only legal actions and is deterministic for a seed.

* Building: the agent looks for the delivery it can open most cheaply for the points it brings (a cube on a
  city, a city of the cube's colour, the cheapest chain of new track between them, towns on the way
  making more links) and lays that chain tile by tile from the city or from its own open end.
* Deliveries before borrowing: it moves a cube whenever it can, and puts the points on income while its
  income does not cover its costs; in the standard game it borrows in the capital phase only for a
  planned build or to cover the coming expenses, never below a floor that a few deliveries can lift.
* The locomotive goes up only for a delivery it opens, and (standard game) when the upkeep is covered.
* A small random share of choices, among the cheap and safe ones, keeps the odd rules in play.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from math import ceil

from engine.core.errors import GameError
from engine.steam.actions import Bid, Capital, EndBuild, Lay, Move, Pass, Score, TakeTile, UpgradeLoco
from engine.steam.game import Game
from engine.steam.hexes import opposite
from engine.steam.legal import (
    PAIR_FACE,
    ROTATIONS,
    build_actions,
    deliverable,
    is_legal_track,
    legal_actions,
    move_actions,
    to_action,
    track_candidates,
)

MAX_PATH = 8  # hexes of new track in a planned chain
MAX_COST = 18  # dollars of new track in a planned chain
EXPLORE = 0.1  # share of tile placements that try a random cheap upgrade or redirection instead


@dataclass
class Plan:
    origin: tuple
    dest: tuple
    steps: list  # [(hex, entry edge, exit edge)] still to lay, from the origin side
    cost: int
    links: int
    value: float  # own points the route can bring (cubes both ways x links)

    @property
    def score(self) -> float:
        return (self.value + 0.5) / (self.cost + 2)


# ---------------------------------------------------------------------------- economy
def upkeep(g: Game, q: int) -> int:
    return g.s.players[q].loco if g.mode == "standard" else 0


def rounds_left(g: Game) -> int:
    return g.rounds - g.s.round


def wants_income(g: Game, q: int) -> bool:
    """Points to income while income does not cover the costs or while it still pays for many rounds;
    in the last round income counts for VP only when negative (2 VP per step)."""
    pl = g.s.players[q]
    left = rounds_left(g)
    if left == 0:
        return pl.income < 0
    if pl.income - upkeep(g, q) < 1:
        return True
    return left >= 3 and pl.income < 12


def budget(g: Game, q: int) -> int:
    """What q may spend on track this turn without sliding into debt it cannot climb out of."""
    pl = g.s.players[q]
    if g.mode == "standard":
        reserve = max(0, upkeep(g, q) - pl.income) if rounds_left(g) > 0 else 0
        return max(0, pl.cash - min(reserve, pl.cash // 2))
    floor = -4 if rounds_left(g) >= 3 else -1
    return pl.cash + 5 * max(0, pl.income - floor)


# ---------------------------------------------------------------------------- route planning
def _enter_cost(g: Game, h) -> int | None:
    """Cost of laying a two-edge tile on an empty hex (None if no tile can go there now)."""
    info = g.board.hexes[h]
    if info.terrain == "water" or h in g.s.track or h in g.all_cities():
        return None
    return (3 if info.town else 2) + info.surcharge


def _tile_for(g: Game, h, a: int, b: int) -> tuple[str, int] | None:
    """The face and rotation joining edges a and b on hex h (a town tile on a town)."""
    if g.board.hexes[h].town is None:
        return PAIR_FACE[(min(a, b), max(a, b))]
    want = ((min(a, b),), (max(a, b),))
    for face in ("T21", "T22", "T23"):
        for rot, geo in ROTATIONS[face]:
            if geo == want:
                return face, rot
    return None


def plans(g: Game, q: int) -> list[Plan]:
    """Deliveries q could open by building (cached for the state they were computed on)."""
    key = (id(g.s), g.s.version, len(g.actions), q, g.s.players[q].loco)
    cache = g.__dict__.setdefault("_agent_plans", {})
    if key not in cache:
        if len(cache) > 8:
            cache.clear()
        cache[key] = _plans(g, q)
    return cache[key]


def _open_edges(g: Game) -> dict:
    """hex -> [(edge, neighbour)] for every edge track may cross (static per board)."""
    board = g.board
    cached = board.__dict__.get("_agent_open")
    if cached is None:
        cached = {h: [(d, board.nbr(h, d)) for d in range(6) if board.edge_open(h, d)] for h in board.hexes}
        board.__dict__["_agent_open"] = cached
    return cached


def _enter_costs(g: Game) -> dict:
    """hex -> the price of a two-edge tile on it, for the hexes a tile can go on now (per track layout)."""
    key = (id(g.s), g.s.version)
    cache = g.__dict__.get("_agent_costs")
    if cache is None or cache[0] != key:
        cache = (key, {h: c for h in g.board.hexes if (c := _enter_cost(g, h)) is not None})
        g.__dict__["_agent_costs"] = cache
    return cache[1]


def _chains(g: Game, origin, starts: list) -> dict:
    """Cheapest chains of new track from `starts` [(hex, entry edge, towns already on the way)] to every
    city: city -> (cost, towns, steps [(hex, entry edge, exit edge)]).  A chain never enters a hex twice,
    so any two edges of a hex can be joined by a tile."""
    towns_on = g.board.towns
    cities = g.all_cities()
    costs = _enter_costs(g)
    open_edges = _open_edges(g)
    best: dict = {}
    heap = [(costs[n], i, towns, n, ein, ()) for i, (n, ein, towns) in enumerate(starts) if n in costs]
    heapq.heapify(heap)
    counter = len(heap)
    done: set = set()
    while heap:
        cost, _, towns, h, ein, path = heapq.heappop(heap)
        if h in done:
            continue
        done.add(h)
        if len(path) >= MAX_PATH:
            continue
        towns_after = towns + (h in towns_on)
        for eout, n in open_edges[h]:
            if eout == ein:
                continue
            if n in cities:
                if n != origin and (n not in best or best[n][0] > cost):
                    best[n] = (cost, towns_after, path + ((h, ein, eout),))
                continue
            c = costs.get(n)
            if c is not None and n not in done and cost + c <= MAX_COST:
                heapq.heappush(heap, (cost + c, counter, towns_after, n, (eout + 3) % 6, path + ((h, ein, eout),)))
                counter += 1
    return best


def _city_chains(g: Game, origin) -> dict:
    """_chains from a city's free edges, cached per track layout (shared by all players)."""
    key = (id(g.s), g.s.version)
    cache = g.__dict__.setdefault("_agent_chains", {})
    if cache.get("key") != key:
        cache.clear()
        cache["key"] = key
    if origin not in cache:
        starts = [(n, opposite(d), 0) for d in range(6)
                  if (n := g.board.nbr(origin, d)) is not None and g.board.edge_open(origin, d)]
        cache[origin] = _chains(g, origin, starts)
    return cache[origin]


def _plans(g: Game, q: int) -> list[Plan]:
    s = g.s
    board = g.board
    cities = g.all_cities()
    net = g.network()
    loco = s.players[q].loco
    own_starts: dict = {}  # origin -> starts at the open ends of q's incomplete links from it
    for link in net.links:
        if link.owner == q and not link.complete and len(link.nodes) == 1 and link.open_end:
            _, h, e = link.open_end
            n = board.nbr(h, e)
            if n is not None and board.edge_open(h, e):
                towns = sum(1 for x in link.hexes if x in board.towns)
                own_starts.setdefault(link.nodes[0], []).append((n, opposite(e), towns))
    contested = set()  # cubes another player can deliver now: one of them may be gone by our turn
    for o, other in enumerate(s.players):
        if o != q and not other.bankrupt:
            contested |= deliverable(g, o)

    def cubes_of(city, color) -> float:
        n = min(3, s.city_cubes.get(city, ()).count(color))
        return max(0.4, n - 1) if n and (city, color) in contested else n

    hops: dict = {}  # city -> cities one complete link away
    for lk in net.links:
        if lk.complete:
            x, y = lk.nodes
            hops.setdefault(x, set()).add(y)
            hops.setdefault(y, set()).add(x)
    out: list[Plan] = []
    for origin in sorted(cities):
        here = s.city_cubes.get(origin, ())
        if not here:  # routes from a city without cubes are found from their other end
            continue
        best = dict(_city_chains(g, origin))
        if origin in own_starts:
            for dest, found in _chains(g, origin, own_starts[origin]).items():
                if dest not in best or found[0] <= best[dest][0]:
                    best[dest] = found
        for dest, (cost, towns, steps) in best.items():
            links = towns + 1
            if links > loco + 1:
                continue
            value = links * (cubes_of(origin, cities[dest]) + cubes_of(dest, cities[origin]))
            if links + 1 <= loco + 1:  # one more hop on a complete link beyond either end (7.3.3: never
                for a, b in ((origin, dest), (dest, origin)):  # more of another's links than one's own)
                    for c in hops.get(b, ()):
                        if c not in (a, b) and cities.get(c) not in (None, cities[b]):
                            value += links * (cubes_of(a, cities[c]) + (cubes_of(c, cities[a])
                                                                        if cities[a] != cities[b] else 0))
            if value:
                out.append(Plan(origin, dest, list(steps), cost, links, value))
    return out


def best_plan(g: Game, q: int, money: int, cash: int | None = None) -> Plan | None:
    """The plan with the most points for its price whose tiles this turn q can pay for.  A chain finished
    this turn counts in full; one that needs another turn counts half (others may take its cubes).  Money
    beyond `cash` is borrowed: each $5 costs an income step, so the plan must bring more than that."""
    left = g.placement_limit(q) - (g.s.placements if g.s.phase == "build" and g.active_seat() == q else 0)
    cash = money if cash is None else cash
    best, best_key = None, None
    for pl in plans(g, q):
        if len(pl.steps) > left + g.placement_limit(q):
            continue
        now = sum(_enter_cost(g, h) or 0 for h, _, _ in pl.steps[:left])
        if now > money or pl.value < ceil(max(0, now - cash) / 5) + 1:
            continue
        key = (pl.score * (1 if len(pl.steps) <= left else 0.5), -pl.cost)
        if best_key is None or key > best_key:
            best, best_key = pl, key
    return best


def _lay_next(g: Game, q: int, plan: Plan):
    h, a, b = plan.steps[0]
    fr = _tile_for(g, h, a, b)
    if fr is None:
        return None
    action = Lay(player=q, hex=h, tile=fr[0], rotation=fr[1])
    return action if is_legal_track(g, action) else None


# ---------------------------------------------------------------------------- decisions
def choose(g: Game, rng: random.Random):
    """A legal action for the player to act."""
    s = g.s
    q = g.active_seat()
    if s.score_queue:
        return Score(player=q, to="income" if wants_income(g, q) else "vp")
    if s.phase == "build":
        return _choose_build(g, q, rng)
    if s.phase == "move":
        return _choose_move(g, q, rng)
    if s.phase == "capital":
        return _choose_capital(g, q, rng)
    opts = legal_actions(g)
    if s.phase in ("setup_auction", "auction"):
        pl = s.players[q]
        spare = pl.cash - 6 if s.phase == "auction" else 4
        bids = [a for a in opts if isinstance(a, Bid) and a.amount <= min(3, spare)]
        if bids and rng.random() < 0.3:
            return rng.choice(bids[:2])
        return next(a for a in opts if isinstance(a, Pass))
    if s.phase == "select":
        return _choose_tile(g, q, [a for a in opts if isinstance(a, TakeTile)], rng)
    return rng.choice(opts)


def _choose_capital(g: Game, q: int, rng: random.Random):
    """Standard phase 1: borrow for the planned build and the coming expenses, above a floor that a few
    deliveries can lift (8.3)."""
    pl = g.s.players[q]
    plan = best_plan(g, q, 50, cash=pl.cash)
    spend = 0
    if plan is not None:
        spend = sum(_enter_cost(g, h) or 0 for h, _, _ in plan.steps[:g.placement_limit(q)])
    want = next((k for k in range(11) if pl.cash + 5 * k - spend >= max(0, upkeep(g, q) - (pl.income - k))), 10)
    floor = upkeep(g, q) - (5 if rounds_left(g) >= 3 else 2)
    top = max(0, min(want, pl.income - floor, pl.income + 10))
    if top and rng.random() < 0.1:
        top -= 1
    return Capital(player=q, loans=top)


def _choose_tile(g: Game, q: int, tiles: list, rng: random.Random):
    s = g.s
    pl = s.players[q]
    basic = g.mode == "basic"
    mine = deliverable(g, q)
    plan = best_plan(g, q, budget(g, q), cash=pl.cash)

    def affordable(cost: int) -> bool:
        return not basic or cost <= budget(g, q)

    def worth(a) -> float:
        if a.tile == 6:
            if not affordable(4 + pl.loco + 1):
                return -5
            if g.mode == "standard" and pl.income - (pl.loco + 1) < -2:
                return -2
            return 4 if (_reach_grows(g, q) or (plan and plan.links > pl.loco)) else -1
        if a.tile in (5, 7) and a.use:
            if not affordable(2 if a.tile == 5 else 6):
                return -5
            gain = _growth_gain(g, q) if a.tile == 5 else _urbanization_gain(g, q)
            return 3.5 if gain and len(mine) < 2 else 2 if gain else -1
        if a.tile in (5, 7):
            return 0.8
        if a.tile == 2:
            return 2.5 if mine else 1
        if a.tile == 3:
            return 3 if plan and len(plan.steps) > 3 else 1.5
        if a.tile == 4:
            return 2 if plan else 1
        return 1.2

    if rng.random() < 0.1:
        safe = [a for a in tiles if worth(a) > -2]
        if safe:
            return rng.choice(safe)
    best = max(worth(a) for a in tiles)
    return rng.choice([a for a in tiles if worth(a) == best])


def _growth_gain(g: Game, q: int) -> int:
    """How many more cubes q could deliver after the best City Growth on a city its links reach."""
    s = g.s
    net = g.network()
    mine = {n for lk in net.links if lk.owner == q and lk.complete for n in lk.nodes}
    targets = [h for h in g.board.cities if h in mine and h not in s.grown]
    reserves = [r for r in dict.fromkeys(s.reserve) if r]
    if not targets or not reserves:
        return 0
    base = len(deliverable(g, q))
    best = 0
    for h in targets:
        before = s.city_cubes.get(h, ())
        for cubes in reserves:
            s.city_cubes[h] = tuple(sorted(before + cubes))
            try:
                best = max(best, len(deliverable(g, q)) - base)
            finally:
                s.city_cubes[h] = before
    return best


def _urbanization_gain(g: Game, q: int) -> int:
    """Towns a New City would turn into a stop on q's track (a node of q's links, or ahead of its open end)."""
    net = g.network()
    towns = g.board.towns
    count = 0
    for lk in net.links:
        if lk.owner != q:
            continue
        count += sum(1 for n in lk.nodes if n in towns and n not in g.s.new_cities)
        if lk.open_end:
            ahead = g.board.nbr(lk.open_end[1], lk.open_end[2])
            count += ahead in towns and ahead not in g.s.new_cities
    return count


def _choose_move(g: Game, q: int, rng: random.Random):
    s = g.s
    pl = s.players[q]
    opts = move_actions(g, q)
    moves = [a for a in opts if isinstance(a, Move)]
    if moves:
        want = "income" if wants_income(g, q) else "vp"
        moves = [m for m in moves if m.to == want]
        net = g.network()
        own = {m: sum(1 for lid in m.links if net.by_id[lid].owner == q) for m in moves}
        top = max(own.values())
        return rng.choice([m for m in moves if own[m] == top])
    ups = [a for a in opts if isinstance(a, UpgradeLoco)]
    if ups and _reach_grows(g, q) and (g.mode == "basic" or pl.income - (pl.loco + 1) >= -2):
        return ups[0]
    return next(a for a in opts if isinstance(a, Pass))


def _reach_grows(g: Game, q: int) -> bool:
    """Would one more locomotive level let q deliver a cube it cannot deliver now?"""
    pl = g.s.players[q]
    if pl.loco >= 6:
        return False
    now = deliverable(g, q)
    pl.loco += 1
    try:
        return bool(deliverable(g, q) - now)
    finally:
        pl.loco -= 1


def _choose_build(g: Game, q: int, rng: random.Random):
    s = g.s
    opts = build_actions(g, q, track=False)
    ends = [a for a in opts if isinstance(a, EndBuild)]
    special = [a for a in opts if not isinstance(a, EndBuild)]
    if special:  # a committed City Growth / Urbanization: where it opens the most deliveries
        choice = _choose_special(g, q, special, rng)
        if not ends or choice is not None:
            return choice or special[0]
    if s.placements < g.placement_limit(q):
        money = budget(g, q)
        if rng.random() < EXPLORE and money >= 4:
            odd = _odd_build(g, q, rng, min(4, money))
            if odd is not None:
                return odd
        plan = best_plan(g, q, money, cash=s.players[q].cash)
        if plan is not None:
            action = _lay_next(g, q, plan)
            if action is not None:
                return action
    return ends[0] if ends else special[0]


def _odd_build(g: Game, q: int, rng: random.Random, money: int):
    """A cheap upgrade or redirection, now and then, so that self-play exercises them (plans only lay)."""
    cands = [c for c in track_candidates(g, q) if c[0] != "lay"]
    rng.shuffle(cands)
    for cand in cands[:30]:
        a = to_action(q, cand)
        try:
            if g._plan_track(a)["cost"] <= money:
                return a
        except GameError:
            continue
    return None


def _choose_special(g: Game, q: int, special: list, rng: random.Random):
    """The City Growth or New City that adds most to q's deliveries (None: none adds any).  New City
    tiles are weighed on the towns first (any reserve), then the best town's reserve hexes."""
    base = len(deliverable(g, q))

    def gain(a) -> int:
        saved, saved_net = g.s, g._net_cache
        g.s = saved.clone()
        try:
            g._dispatch(a)
            return len(deliverable(g, q)) - base
        finally:
            g.s, g._net_cache = saved, saved_net

    kinds = {type(a).__name__ for a in special}
    if kinds == {"Urbanize"}:
        first = {}
        for a in special:
            first.setdefault((a.hex, a.color), a)
        towns = sorted(first.values(), key=gain, reverse=True)
        top = towns[0]
        options = [a for a in special if (a.hex, a.color) == (top.hex, top.color)]
    else:
        options = special
    scored = [(gain(a), i) for i, a in enumerate(options)]
    best_gain = max(scored)[0]
    if best_gain <= 0 and rng.random() < 0.7:
        return None
    return options[rng.choice([i for v, i in scored if v == best_gain])]


