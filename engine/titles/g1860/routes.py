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
edition: half the normal revenue, subsidies in full). In the British Rail end game trains count only N. After the Southern Railway's stock round halts are never stops.
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


class Visit:
    """What a route goes through, as the run rules count it: its cities (and offboards) with their value,
    the values of its towns (best first), and its halts."""

    __slots__ = ("cities", "city_value", "towns", "halts")

    def __init__(self, cities: int, city_value: int, towns: list[int], halts: int):
        self.cities = cities
        self.city_value = city_value
        self.towns = sorted(towns, reverse=True)
        self.halts = halts

    @classmethod
    def of(cls, nodes: list[Node], phase_colors, train_name: str) -> Visit:
        cities = [n for n in nodes if is_city(n)]
        return cls(len(cities), sum(c.revenue_for(phase_colors, train_name) for c in cities),
                   [n.revenue_for(phase_colors) for n in nodes if is_town(n)], sum(1 for n in nodes if is_halt(n)))


class RunContext:
    """What the run rules of one company's train depend on."""

    def __init__(self, game, corp, train):
        self.game = game
        self.corp = corp
        self.train = train
        self.leased = train.owner is None
        self.new_lease = self.leased and ctx_new_lease(game)
        self.ignore_halts = game.sr_after_southern
        self.no_skip_towns = game.option("no_skip_towns")
        # leased trains (second edition) and every train in the British Rail end game count N only
        self.n_only = self.new_lease or game.nationalization
        self.halt_subsidy = game.halt_subsidy

    def allowance(self, cities: int) -> int:
        """Towns and halts the train may still stop at, its cities counted."""
        n = city_allowance(self.train)
        extra = 0 if self.n_only else town_allowance(self.train)
        return n + extra - cities

    def max_halts(self, visit: Visit) -> int:
        if self.ignore_halts:
            return 0
        allowance = self.allowance(visit.cities)
        if self.game.nationalization or self.no_skip_towns:  # towns come first
            allowance = max(allowance - len(visit.towns), 0)
        return min(visit.halts, allowance)

    def halts_settings(self, visit: Visit) -> list[int | None]:
        """The halts settings a run may choose for this route (None: the rules' default)."""
        if not visit.halts or self.ignore_halts or self.new_lease:
            return [None]
        return list(range(self.max_halts(visit) + 1))

    def result(self, visit: Visit, halts: int | None) -> tuple[int, int, int | None]:
        """(revenue, subsidy, halts setting as the route keeps it) of a route that counts `halts` of its
        halts first (None: as many as the allowance leaves after its towns)."""
        allowance = self.allowance(visit.cities)
        most = self.max_halts(visit)
        if not visit.halts or self.ignore_halts or self.new_lease or most == 0 or (halts is not None and halts > most):
            halts = None
        wanted = min(visit.halts, halts or 0)
        allowance -= wanted
        counted = len(visit.towns) if self.no_skip_towns else max(min(allowance, len(visit.towns)), 0)
        allowance -= counted
        filled = min(visit.halts, allowance) if halts is None and visit.halts and allowance > 0 and \
            not self.ignore_halts else 0
        setting = wanted if visit.halts and not self.new_lease and not self.ignore_halts else None
        if self.new_lease:
            return 40 + 20 * (visit.cities + wanted + counted + filled), 0, setting
        revenue = visit.city_value + sum(visit.towns[:counted])
        if self.leased:
            revenue //= 2
        return revenue, self.halt_subsidy * (wanted + filled), setting

    def best(self, visit: Visit) -> tuple[int, int, int | None]:
        """The halts setting that earns most, revenue and subsidy together (more revenue when equal)."""
        return max((self.result(visit, h) for h in self.halts_settings(visit)), key=lambda r: (r[0] + r[1], r[0]))

    def legal(self, visit: Visit) -> GameError | None:
        """Why the train can't run a route that goes through this, if it can't."""
        if visit.cities > city_allowance(self.train):
            return GameError("{n} cities are too many for a {train}", n=visit.cities, train=self.train.name)
        if self.no_skip_towns and len(visit.towns) > max(self.allowance(visit.cities), 0):
            return GameError("the route has too many towns")
        return None


def ctx_new_lease(game) -> bool:
    """Leased trains earn by the number of stops (second edition), not by their values."""
    return not game.option("original_insolvency")


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
            raise GameError("train {train}: a route can't begin or end at a halt", train=train.id)
        visit = Visit.of(visits, game.phase.tiles, train.name)
        refusal = ctx.legal(visit)
        if refusal:
            raise GameError("train {train}: {reason}", train=train.id, reason=refusal)
        paths = ordered_paths(visits, segs)
        if not game.option("re_enter_hexes") and not check_hex_reentry(paths):
            raise GameError("train {train}: a route can't enter a hex twice", train=train.id)
        full = [v for v in visits[1:-1] if full_city(game, corp, v)]
        if len(full) > 1:
            raise GameError("train {train}: a route may pass only one city full of other companies' stations",
                            train=train.id)
        passing.append(bool(full))
        for key in (k for p in paths for k in path_track_keys(p)):
            if key in used_track:
                raise GameError("train {train}: the track on {hex} is already used by train {used}",
                                train=train.id, hex=key[0], used=used_track[key])
        for key in (k for p in paths for k in path_track_keys(p)):
            used_track[key] = train.id
        revenue, subsidy, _ = ctx.result(visit, route.get("halts"))
        out.append((revenue, subsidy))
    if sum(passing) > 1:
        raise GameError("only one train may pass a city full of other companies' stations")
    visited = [set(map(id, v)) for _, _, v, _ in built]
    home = home_city(game, corp)
    if built and (home is None or not any(id(home) in v for v in visited)):
        raise GameError("one of {corporation}'s routes must visit its home station", corporation=corp.sym)
    if built and not routes_meet(visited):
        raise GameError("each route must meet another at a city, town or halt")
    return out


def home_city(game, corp) -> City | None:
    home = game.hexmap.hex(game.home_hexes(corp)[0])
    return next((c for c in home.tile.cities if corp.sym in c.tokens), None)


def routes_meet(visited: list) -> bool:
    """Every route meets another, through a chain of routes from the first (each route given as the set, or
    bits, of the nodes it visits)."""
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
    company, revenue and subsidies together (more revenue first when equal). Cities are the stops a train
    counts; towns (by value) and halts are counted along each route, and what a route earns is worked out
    from those counts."""

    def __init__(self, game, corp):
        super().__init__(game, corp)
        self.reenter_hexes = game.option("re_enter_hexes")
        self.home = home_city(game, corp)
        self.town_values: list[int] = []  # stop classes 1, 2, ...: towns of these values; class 0: halts
        self.results: dict = {}

    def trains(self) -> list:
        return [t for t in self.game.runnable_trains(self.corp) if not t.operated and not t.rusted]

    def passable(self, node: Node) -> bool:
        return not node.terminal

    def limited_pass(self, node: Node) -> bool:
        return full_city(self.game, self.corp, node)

    def endpoint_ok(self, node: Node) -> bool:
        return not is_halt(node)

    def stop_value(self, node: Node, train) -> int:
        return node.revenue_for(self.phase_colors, train.name) if is_city(node) else 0

    def stop_class(self, node: Node) -> int | None:
        if is_halt(node):
            return 0
        if is_town(node):
            value = node.revenue_for(self.phase_colors)
            if value not in self.town_values:
                self.town_values.append(value)
            return 1 + self.town_values.index(value)
        return None

    def counted_result(self, cost: int, value: int, counts: list[int], train) -> tuple[int, dict]:
        counts = list(counts) + [0] * (1 + len(self.town_values) - len(counts))
        leased = train.owner is None
        # what the cities pay only adds to the revenue (but for a first-edition leased train's half)
        halved = leased and self.game.option("original_insolvency")
        key = (train.name, leased, cost, value if halved else 0, tuple(counts))
        found = self.results.get(key)
        if found is None:
            towns = [v for i, v in enumerate(self.town_values) for _ in range(counts[i + 1])]
            visit = Visit(cost, value if halved else 0, towns, counts[0])
            ctx = RunContext(self.game, self.corp, train)
            found = None if ctx.legal(visit) else ctx.best(visit)
            self.results[key] = found
        if found is None:
            return 0, {}
        revenue, subsidy, setting = found
        if not halved and not (leased and ctx_new_lease(self.game)):
            revenue += value
        fields = {"revenue": revenue, "subsidy": subsidy}
        if setting is not None:
            fields["halts"] = setting
        return (revenue + subsidy) * 1000 + revenue, fields

    def run_ok(self, stopmasks: list[int], net) -> bool:
        if not stopmasks:
            return True
        home = net.index.get(self.home) if self.home is not None else None
        if home is None or not any(m >> home & 1 for m in stopmasks):
            return False
        return routes_meet(stopmasks)
