"""Tiles: parsed track pieces (manifest copies and printed map hexes), title-independent.

Built from the already-parsed records of ``map.json`` / ``tiles.json`` (see docs/formats/tiles.md):
nodes (cities, towns incl. 1860 halts, offboards, a Lawson junction), paths between edges and
nodes, labels, terrain ``upgrade`` parts, borders. Rotation r turns the tile r x 60 degrees
clockwise: an edge e written in the definition is map edge (e + r) % 6.
"""

from __future__ import annotations

COLOR_ORDER = ("white", "yellow", "green", "brown", "gray")


def revenue_value(revenue, phase_colors, train_name: str | None = None) -> int:
    """Stop value: an int, or colour -> value paying the latest colour of the phase it defines."""
    if isinstance(revenue, int):
        return revenue
    if not revenue:
        return 0
    if train_name == "D" and "diesel" in revenue:
        return revenue["diesel"]
    for color in reversed(phase_colors):
        if color in revenue:
            return revenue[color]
    return 0


def _code_part_types(code: str) -> list[str]:
    """Part index -> part type of a definition string (paths with lanes:N expand to N parts)."""
    types: list[str] = []
    for part in code.split(";") if code else []:
        kind, _, params = part.partition("=")
        n = 1
        if kind == "path":
            for kv in params.split(","):
                k, _, v = kv.partition(":")
                if k == "lanes":
                    n = int(v)
        types.extend([kind] * n)
    return types


class Node:
    """A stop (city, town, halt, offboard) or a Lawson junction on one tile."""

    __slots__ = ("kind", "index", "part_index", "revenue", "groups", "hide", "tile", "paths", "halt",
                 "visit_cost")
    is_city = False

    def __init__(self, kind: str, index: int, rec: dict, tile: Tile):
        self.kind = kind  # "city" | "town" | "offboard" | "junction"
        self.index = index  # index among nodes of that kind on the tile
        self.part_index = rec.get("part_index", 0)
        self.revenue = rec.get("revenue", 0)
        self.groups = tuple(rec.get("groups", ()))
        self.hide = bool(rec.get("hide"))
        self.tile = tile
        self.paths: list[Path] = []
        self.halt = False
        self.visit_cost = 1

    @property
    def id(self) -> str:
        return f"{self.tile.id}-{self.part_index}"

    @property
    def hex(self):
        return self.tile.hex

    @property
    def signature(self) -> str:
        """'<hex>-<part index>' as used by run_routes `nodes`."""
        return f"{self.tile.hex.coord if self.tile.hex else '?'}-{self.part_index}"

    @property
    def is_stop(self) -> bool:
        return self.kind != "junction"

    @property
    def terminal(self) -> bool:
        return self.kind == "offboard"

    def blocks(self, corp: str | None) -> bool:
        """True if a route/walk of `corp` may not pass through this node."""
        return self.kind == "offboard"

    def revenue_for(self, phase_colors, train_name: str | None = None) -> int:
        return revenue_value(self.revenue, phase_colors, train_name)

    def exits(self) -> set[int]:
        out: set[int] = set()
        for p in self.paths:
            out.update(p.exits)
        return out

    def __repr__(self):
        return f"<{self.kind} {self.id}>"


class City(Node):
    __slots__ = ("slots", "tokens", "reservations")
    is_city = True

    def __init__(self, index: int, rec: dict, tile: Tile):
        super().__init__("city", index, rec, tile)
        self.slots = rec.get("slots", 1)
        self.tokens: list[str | None] = [None] * self.slots
        res = list(rec.get("reservations", ()))
        self.reservations: list[str | None] = (res + [None] * self.slots)[: max(self.slots, len(res))]

    def tokened_by(self, corp: str) -> bool:
        return corp in self.tokens

    def blocks(self, corp: str | None) -> bool:
        if corp is None:
            return False
        if corp in self.tokens:
            return False
        return None not in self.tokens

    def reset(self) -> None:
        self.tokens = [None] * self.slots


class Path:
    """Track between two ends; an end is a raw edge number (rotation 0) or a Node."""

    __slots__ = ("tile", "a", "b", "lanes", "terminal", "track", "exits", "nodes", "junction", "edge_lanes",
                 "index", "ends")

    def __init__(self, tile: Tile, a, b, rec: dict, index: int):
        self.tile = tile
        self.a = a
        self.b = b
        lanes = rec.get("lanes")
        self.lanes = (tuple(lanes[0]), tuple(lanes[1])) if lanes else ((1, 0), (1, 0))
        self.terminal = bool(rec.get("terminal"))
        self.track = rec.get("track", "broad")
        self.index = index
        self.nodes: tuple[Node, ...] = tuple(e for e in (a, b) if isinstance(e, Node) and e.kind != "junction")
        j = [e for e in (a, b) if isinstance(e, Node) and e.kind == "junction"]
        self.junction: Node | None = j[0] if j else None
        self.exits: tuple[int, ...] = ()
        self.ends: tuple = ()  # (a, b) with edges rotated to map edges
        self.edge_lanes: dict[int, tuple[int, int]] = {}
        self.rotate(0)

    def rotate(self, r: int) -> None:
        exits = []
        edge_lanes = {}
        for end, lane in ((self.a, self.lanes[0]), (self.b, self.lanes[1])):
            if isinstance(end, int):
                e = (end + r) % 6
                exits.append(e)
                edge_lanes[e] = lane
        self.exits = tuple(exits)
        self.edge_lanes = edge_lanes
        self.ends = tuple((e + r) % 6 if isinstance(e, int) else e for e in (self.a, self.b))

    @property
    def hex(self):
        return self.tile.hex

    def __repr__(self):
        def s(e):
            return str(e) if isinstance(e, int) else f"{e.kind}{e.index}"
        return f"<path {self.tile.id} {s(self.a)}-{s(self.b)}>"


def _end_key(end, r: int, lane) -> tuple:
    if isinstance(end, int):
        return ("e", (end + r) % 6, lane)
    return (end.kind,)


class Shape:
    """Rotation-dependent facts about a tile definition (shared by all copies of a name)."""

    __slots__ = ("exits", "path_keys", "ct_edges", "city_edges")

    def __init__(self, tile: Tile, r: int):
        self.path_keys = []
        exits: set[int] = set()
        node_edges: dict[int, set[int]] = {}
        for p in tile.paths:
            if p.junction is not None:
                # a path to a Lawson junction ends wherever the junction's other paths go (Engine Path#ends)
                ends = [(e, lane) for e, lane in zip((p.a, p.b), p.lanes, strict=True) if e is not p.junction]
                ends += [(e, lane) for q in tile.paths if q is not p and q.junction is p.junction
                         for e, lane in zip((q.a, q.b), q.lanes, strict=True) if e is not q.junction]
                self.path_keys.append(tuple(_end_key(e, r, lane) for e, lane in ends))
            else:
                self.path_keys.append((_end_key(p.a, r, p.lanes[0]), _end_key(p.b, r, p.lanes[1])))
            pe = [(e + r) % 6 for e in (p.a, p.b) if isinstance(e, int)]
            exits.update(pe)
            for n in (p.a, p.b):
                if isinstance(n, Node) and n.kind in ("city", "town"):
                    node_edges.setdefault(id(n), set()).update(pe)
        self.exits = frozenset(exits)
        # city/town edge sets in node order (only nodes that have track to an edge)
        self.ct_edges = [frozenset(node_edges[id(n)]) for n in tile.cities + tile.towns
                         if node_edges.get(id(n))]
        self.city_edges = [frozenset(node_edges.get(id(n), ())) for n in tile.cities]


def _end_le(old, new) -> bool:
    if old[0] == "e":
        if new[0] != "e" or old[1] != new[1]:
            return False
        return old[2] == new[2] or old[2] == (1, 0) or new[2] == (1, 0)
    return old[0] == new[0]


def path_contained(old, new) -> bool:
    """Engine Path#<=: both ends of the old path are ends of the new one (node kinds matching); a path
    through a Lawson junction has the ends of all the junction's paths."""
    if len(old) != 2 or len(new) != 2:
        return all(any(_end_le(o, n) for n in new) for o in old)
    return (_end_le(old[0], new[0]) and _end_le(old[1], new[1])) or \
        (_end_le(old[0], new[1]) and _end_le(old[1], new[0]))


class Tile:
    """A tile copy (or a printed map tile) with its current rotation and hex."""

    def __init__(self, rec: dict, *, name: str, index: int, color: str, preprinted: bool = False):
        self.name = name
        self.index = index
        self.id = f"{name}-{index}"
        self.color = color
        self.code = rec.get("code", "")
        self.preprinted = preprinted
        self.record = rec
        self.upgrades_to: list[str] = list(rec.get("upgrades_to", ()))
        self.labels: list[str] = list(rec.get("labels", ()))
        self.upgrades: list[dict] = list(rec.get("terrain", ()))  # terrain `upgrade` parts
        self.icons = list(rec.get("icons", ()))
        self.rotation = 0
        self.hex = None
        part_types = _code_part_types(self.code)
        self.cities: list[City] = [City(i, c, self) for i, c in enumerate(rec.get("cities", ()))]
        self.towns: list[Node] = []
        for i, t in enumerate(rec.get("towns", ())):
            node = Node("town", i, t, self)
            pi = node.part_index
            if pi < len(part_types) and part_types[pi] == "halt":
                node.halt = True
            self.towns.append(node)
        self.offboards: list[Node] = [Node("offboard", i, o, self) for i, o in enumerate(rec.get("offboards", ()))]
        self.junction: Node | None = None
        if rec.get("junction"):
            jpi = part_types.index("junction") if "junction" in part_types else 0
            self.junction = Node("junction", 0, {"part_index": jpi}, self)
        self.nodes: list[Node] = sorted(self.cities + self.towns + self.offboards, key=lambda n: n.part_index)
        self.paths: list[Path] = []
        for i, p in enumerate(rec.get("paths", ())):
            path = Path(self, self._end(p["a"]), self._end(p["b"]), p, i)
            self.paths.append(path)
            for n in (path.a, path.b):
                if isinstance(n, Node):
                    n.paths.append(path)
        self.paths_at_edge: dict[int, list[Path]] = {}
        self._shapes: dict[int, Shape] = {}
        self.rotate(0)

    def _end(self, v):
        if isinstance(v, int):
            return v
        if v == "junction":
            return self.junction
        kind, _, idx = v.partition(":")
        return {"city": self.cities, "town": self.towns, "offboard": self.offboards}[kind][int(idx)]

    # -- rotation -------------------------------------------------------------------------------

    def rotate(self, r: int) -> None:
        self.rotation = r % 6
        pae: dict[int, list[Path]] = {}
        for p in self.paths:
            p.rotate(self.rotation)
            for e in p.exits:
                pae.setdefault(e, []).append(p)
        self.paths_at_edge = pae

    def shape(self, r: int | None = None) -> Shape:
        r = self.rotation if r is None else r % 6
        s = self._shapes.get(r)
        if s is None:
            s = self._shapes[r] = Shape(self, r)
        return s

    @property
    def exits(self) -> frozenset[int]:
        return self.shape().exits

    @property
    def label(self) -> str | None:
        return self.labels[0] if self.labels else None

    def node_by_part(self, part_index: int) -> Node | None:
        for n in self.nodes:
            if n.part_index == part_index:
                return n
        return None

    def reset(self) -> None:
        """Back to the supply: no hex, rotation 0, no tokens."""
        self.hex = None
        for c in self.cities:
            c.reset()
            c.reservations = [None] * c.slots
        self.rotate(0)

    def __repr__(self):
        return f"<Tile {self.id} r{self.rotation}>"
