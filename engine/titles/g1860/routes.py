"""1860's run rules: checking a declared run, and the rules the best-route search follows.

A route lists every city, town and halt it goes through (18xx.games writes one segment per pair of
neighbouring ones). Its N+M train stops at every city (N at most) and at as many towns and halts as its
allowance leaves (M, plus the unused part of N); towns are passed when it is full, the best ones counted.
Halts earn no revenue but a subsidy each; how many of a route's halts count is the run's choice (`halts`),
else as many as the allowance leaves after the towns. A route may not start or end at a halt, nor enter a
hex twice (unless the optional rule allows); it may pass one city full of other companies' stations
(bankrupt companies' stations don't fill a city), and only one route of a run may. One of the routes
visits the home station, and every route meets another at a city, town or halt.

Leased trains (an insolvent company's) count only N, earn 40 credits and 20 a stop, and no subsidy (first
edition: half the normal revenue, subsidies in full; simplified: 40 + 20 x N). In the British Rail end game
trains count only N. After the Southern Railway's stock round halts are never stops.
"""

from __future__ import annotations

from engine.core.autoroute import RouteRules
from engine.core.errors import GameError
from engine.core.routes import build_route_segments, path_track_keys
from engine.core.tiles import City, Node, Path


def is_halt(node: Node) -> bool:
    return node.kind == "town" and node.halt


def is_town(node: Node) -> bool:
    return node.kind == "town" and not node.halt


def is_city(node: Node) -> bool:
    return node.kind in ("city", "offboard")


def city_allowance(train) -> int:
    return int(train.distance[0]["pay"])


def town_allowance(train) -> int:
    return int(train.distance[-1]["pay"])


class RunContext:
    """What the run rules of one company's run depend on."""

    def __init__(self, game, corp, train):
        self.game = game
        self.corp = corp
        self.train = train
        self.leased = train.owner is None
        self.new_lease = self.leased and not game.option("original_insolvency")
        self.ignore_halts = game.sr_after_southern
        # leased trains (second edition) and every train in the British Rail end game count N only
        self.n_only = self.new_lease or game.nationalization

    def allowance(self, cities: int) -> int:
        """Towns and halts the train may still stop at, its cities counted."""
        n = city_allowance(self.train)
        extra = 0 if self.n_only else town_allowance(self.train)
        return n + extra - cities

    def max_halts(self, visits: list[Node]) -> int:
        if not visits or self.ignore_halts:
            return 0
        cities = sum(1 for v in visits if is_city(v))
        towns = sum(1 for v in visits if is_town(v))
        halts = sum(1 for v in visits if is_halt(v))
        allowance = self.allowance(cities)
        if self.game.nationalization or self.game.option("no_skip_towns"):
            allowance = max(allowance - towns, 0)
        return min(halts, allowance)

    def stops(self, visits: list[Node], halts: int | None) -> tuple[list[Node], int | None]:
        """The stops that count among the nodes visited, and the halts setting as the route keeps it."""
        game = self.game
        stops = [v for v in visits if is_city(v)]
        allowance = self.allowance(len(stops))
        all_halts = [v for v in visits if is_halt(v)]
        if not all_halts or self.ignore_halts or self.new_lease or self.max_halts(visits) == 0:
            halts = None
        if halts is not None and halts > self.max_halts(visits):
            halts = None
        wanted = min(len(all_halts), halts or 0)
        if wanted > 0:
            stops += all_halts[:wanted]
            allowance -= wanted
        towns = [v for v in visits if is_town(v)]
        counted = len(towns) if game.option("no_skip_towns") else min(allowance, len(towns))
        if counted > 0:
            best = sorted(towns, key=lambda t: t.revenue_for(game.phase.tiles), reverse=True)
            stops += best[:counted]
            allowance -= counted
        if halts is None and all_halts and allowance > 0 and not self.ignore_halts:
            stops += all_halts[:min(len(all_halts), allowance)]
        if (all_halts or halts is not None) and not self.new_lease and not self.ignore_halts:
            halts = wanted
        return stops, halts

    def revenue(self, stops: list[Node]) -> int:
        game = self.game
        if self.leased and game.option("simplified_insolvency"):
            return 40 + 20 * city_allowance(self.train)
        if self.new_lease:
            return 40 + 20 * len(stops)
        total = sum(s.revenue_for(game.phase.tiles, self.train.name) for s in stops)
        return total // 2 if self.leased else total

    def subsidy(self, stops: list[Node]) -> int:
        if self.new_lease:
            return 0
        return self.game.halt_subsidy * sum(1 for s in stops if is_halt(s))


def full_city(game, corp, node: Node) -> bool:
    """A city all of whose slots hold other companies' stations (bankrupt companies' ones don't count)."""
    if not isinstance(node, City) or corp.sym in node.tokens or None in node.tokens:
        return False
    bankrupt = {c.sym for c in game.bankrupt}
    return not any(t in bankrupt for t in node.tokens)


def ordered_paths(stops: list[Node], segs: list[list[Path]]) -> list[Path]:
    out = []
    for k, seg in enumerate(segs):
        out.extend(seg if stops[k] in seg[0].nodes else reversed(seg))
    return out


def check_hex_reentry(paths: list[Path]) -> bool:
    seen = set()
    last = None
    for p in paths:
        coord = p.tile.hex.coord
        if coord != last and coord in seen:
            return False
        seen.add(coord)
        last = coord
    return True


def check_run(game, corp, routes: list[dict]) -> list[tuple[int, int]]:
    """(revenue, subsidy) of each route of a run, after every check of 1860's run rules (GameError says
    which one a route breaks)."""
    hm = game.hexmap
    trains = {t.id: t for t in game.runnable_trains(corp)}
    built = []
    for route in routes:
        train = trains[route["train"]]
        spec = {"train": train.id, "connections": route.get("connections") or [], "nodes": route.get("nodes")}
        stops, segs = build_route_segments(hm, corp.sym, spec, allow_full=True)
        built.append((route, train, stops, segs))
    passing = []
    used_track: dict[tuple, str] = {}
    out = []
    for route, train, visits, segs in built:
        ctx = RunContext(game, corp, train)
        if is_halt(visits[0]) or is_halt(visits[-1]):
            raise GameError(f"train {train.id}: a route can't begin or end at a halt")
        cities = [v for v in visits if is_city(v)]
        if len(cities) > city_allowance(train):
            raise GameError(f"train {train.id}: {len(cities)} cities are too many for a {train.name}")
        if game.option("no_skip_towns"):
            towns = sum(1 for v in visits if is_town(v))
            if towns > max(ctx.allowance(len(cities)), 0):
                raise GameError(f"train {train.id}: the route has too many towns")
        paths = ordered_paths(visits, segs)
        if not game.option("re_enter_hexes") and not check_hex_reentry(paths):
            raise GameError(f"train {train.id}: a route can't enter a hex twice")
        full = [v for v in visits[1:-1] if full_city(game, corp, v)]
        if len(full) > 1:
            raise GameError(f"train {train.id}: a route may pass only one city full of other companies' stations")
        passing.append(bool(full))
        for key in (k for p in paths for k in path_track_keys(p)):
            if key in used_track:
                raise GameError(f"train {train.id}: the track on {key[0]} is already used by train {used_track[key]}")
        for key in (k for p in paths for k in path_track_keys(p)):
            used_track[key] = train.id
        stops, _ = ctx.stops(visits, route.get("halts"))
        out.append((ctx.revenue(stops), ctx.subsidy(stops)))
    if sum(passing) > 1:
        raise GameError("only one train may pass a city full of other companies' stations")
    visited = [set(map(id, v)) for _, _, v, _ in built]
    home = home_city(game, corp)
    if built and (home is None or not any(id(home) in v for v in visited)):
        raise GameError(f"one of {corp.sym}'s routes must visit its home station")
    if built and not routes_meet(visited):
        raise GameError("each route must meet another at a city, town or halt")
    return out


def home_city(game, corp) -> City | None:
    home = game.hexmap.hex(game.home_hexes(corp)[0])
    return next((c for c in home.tile.cities if corp.sym in c.tokens), None)


def routes_meet(visited: list[set]) -> bool:
    reached = {0}
    todo = [0]
    while todo:
        i = todo.pop()
        for j, other in enumerate(visited):
            if j not in reached and visited[i] & other:
                reached.add(j)
                todo.append(j)
    return len(reached) == len(visited)


class RouteRules1860(RouteRules):
    """The search's view of 1860's run rules (see the module docstring). It maximises what a run earns the
    company, revenue and subsidies together (more revenue first when equal)."""

    def __init__(self, game, corp):
        super().__init__(game, corp)
        self.reenter_hexes = game.option("re_enter_hexes")
        self.home = home_city(game, corp)

    def trains(self) -> list:
        return [t for t in self.game.runnable_trains(self.corp) if not t.operated and not t.rusted]

    def passable(self, node: Node) -> bool:
        return not node.terminal

    def limited_pass(self, node: Node) -> bool:
        return full_city(self.game, self.corp, node)

    def endpoint_ok(self, node: Node) -> bool:
        return not is_halt(node)

    @property
    def simple_values(self) -> bool:
        return False

    def route_ok(self, stops: list[Node], train) -> bool:
        if not self.game.option("no_skip_towns"):
            return True
        ctx = RunContext(self.game, self.corp, train)
        cities = sum(1 for v in stops if is_city(v))
        return sum(1 for v in stops if is_town(v)) <= max(ctx.allowance(cities), 0)

    def route_result(self, stops: list[Node], paths: list[Path], train) -> tuple[int, dict]:
        """The best number of halts to count: the most revenue and subsidy together, then revenue."""
        ctx = RunContext(self.game, self.corp, train)
        has_halts = any(is_halt(v) for v in stops)
        best = None
        for halts in range(ctx.max_halts(stops) + 1) if has_halts else [None]:
            counted, setting = ctx.stops(stops, halts)
            revenue, subsidy = ctx.revenue(counted), ctx.subsidy(counted)
            key = (revenue + subsidy, revenue)
            if best is None or key > best[0]:
                fields = {"revenue": revenue, "subsidy": subsidy}
                if setting is not None:
                    fields["halts"] = setting
                best = (key, fields)
        (total, revenue), fields = best
        return total * 1000 + revenue, fields

    def run_ok(self, routes: list[list[Node]]) -> bool:
        if not routes:
            return True
        if self.home is None or not any(self.home in r for r in routes):
            return False
        return routes_meet([set(map(id, r)) for r in routes])
