"""How far a corporation's stations are from every node and piece of track, counted in the stops passed
(18xx.games' DistanceGraph): the fewest cities and the fewest towns (halts not counted) on a walk from one
of its stations, for titles that limit track building by what a train could reach (1860's upgrades).

A walk goes along track as a route would: from a station over paths and hex edges, never over an edge it
is already on, through towns and cities but not through a city full of other corporations' stations, and
not past a terminal path. A node's distance counts the stops before it; a path's, the stops before it
and the one it leaves from.
"""

from __future__ import annotations

from collections import defaultdict

from engine.core.hexmap import _lane_match, _tracks_match
from engine.core.tiles import Node, Path


def _counts(node: Node) -> tuple[int, int]:
    if node.kind == "city":
        return 1, 0
    if node.kind == "town" and not node.halt:
        return 0, 1
    return 0, 0


def _merge(table: dict, key, distance: tuple[int, int]) -> None:
    have = table.get(key)
    table[key] = distance if have is None else (min(have[0], distance[0]), min(have[1], distance[1]))


def _dominated(have, distance) -> bool:
    return have is not None and have[0] <= distance[0] and have[1] <= distance[1]


def path_key(path: Path) -> tuple[str, int]:
    return path.tile.id, path.index


class Distances:
    """Node, path and hex distances of one corporation: (cities, towns) each, the smallest found. Nodes are
    keyed by id, paths by (tile id, index): plain data that a game's state may keep."""

    def __init__(self, hexmap, corp: str) -> None:
        self.corp = corp
        self.nodes: dict[str, tuple[int, int]] = {}
        self.paths: dict[tuple[str, int], tuple[int, int]] = {}
        self.hexes: dict[str, tuple[int, int]] = {}
        a_seen: dict[Path, tuple[int, int]] = {}
        b_seen: dict[Path, tuple[int, int]] = {}
        for hex_ in hexmap.hexes.values():  # stations in map order, as 18xx.games walks them
            for city in hex_.tile.cities:
                if corp in city.tokens:
                    self._node_walk(city, (0, 0), a_seen, b_seen, defaultdict(int))

    def node(self, node: Node) -> tuple[int, int] | None:
        return self.nodes.get(node.id)

    def path(self, path: Path) -> tuple[int, int] | None:
        return self.paths.get(path_key(path))

    def _node_walk(self, node: Node, distance, a_seen, b_seen, counter) -> None:
        _merge(self.nodes, node.id, distance)
        if node.blocks(self.corp):
            return
        dc, dt = _counts(node)
        distance = (distance[0] + dc, distance[1] + dt)
        for path in node.paths:
            for walked in self._walk(path, None, {}, counter):
                _merge(self.paths, path_key(walked), distance)
                _merge(self.hexes, walked.tile.hex.coord, distance)
                if walked.terminal:
                    continue
                for nxt in walked.nodes:
                    if nxt is node:
                        continue
                    seen = a_seen if walked.a is nxt else b_seen
                    if _dominated(seen.get(walked), distance):
                        continue
                    _merge(seen, walked, distance)
                    self._node_walk(nxt, distance, a_seen, b_seen, counter)

    def _walk(self, path: Path, skip, visited: dict, counter):
        """Path#walk: every path reached from `path` over hex edges (and through junctions), depth first;
        yields each while the walk stands on it (the edge counter then says which edges it is on)."""
        if path in visited:
            return
        junction = path.junction
        if junction is not None and counter[junction] > 1:
            return
        coord = path.tile.hex.coord
        if any(counter[(coord, e, path.edge_lanes[e][1])] for e in path.exits):
            return
        if junction is not None and path.terminal:
            return
        visited[path] = True
        if junction is not None:
            counter[junction] += 1
        yield path
        if junction is not None:
            for other in junction.paths:
                if other is not path:
                    yield from self._walk(other, None, visited, counter)
        hex_ = path.tile.hex
        for e in path.exits:
            if e == skip:
                continue
            neighbor = hex_.neighbors.get(e)
            if neighbor is None:
                continue
            edge_id = (coord, e, path.edge_lanes[e][1])
            counter[edge_id] += 1
            inverse = (e + 3) % 6
            lane = path.edge_lanes[e]
            for nxt in neighbor.tile.paths_at_edge.get(inverse, ()):
                if _lane_match(lane, nxt.edge_lanes[inverse]) and _tracks_match(path, nxt):
                    yield from self._walk(nxt, inverse, visited, counter)
            counter[edge_id] -= 1
        del visited[path]
        if junction is not None:
            counter[junction] -= 1
