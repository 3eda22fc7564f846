"""Track on the board: tiles with segments, and tracing segments into links.

A *segment* is one path of a plain tile (two edges) or one spur of a town tile (one edge, from the
town in the centre).  Segments chain across hex edges into *links*; a link ends at a node (a city,
or a town whose tile carries the spur) or at an open end.  A link with two node ends is complete.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.steam.hexes import Hex, opposite


class Seg(NamedTuple):
    edges: tuple[int, ...]  # plain path: (a, b) with a < b; town spur: (e,)
    owner: int | None
    rnd: int  # round in which this segment was laid (redirecting keeps it)


class Tile(NamedTuple):
    face: str
    rot: int
    segs: tuple[Seg, ...]


class Link:
    __slots__ = ("id", "segs", "ends", "owner", "rnd", "complete")

    def __init__(self, segs: list[tuple[Hex, tuple[int, ...]]], ends: list[tuple], owner, rnd: int):
        self.segs = segs
        self.ends = ends  # each ("node", hex) or ("open", hex, edge)
        self.owner = owner
        self.rnd = rnd
        self.complete = ends[0][0] == "node" and ends[1][0] == "node"
        h, e = min(segs)
        self.id = f"{h[0]},{h[1]}:{'-'.join(map(str, e))}"

    @property
    def nodes(self) -> list[Hex]:
        return [e[1] for e in self.ends if e[0] == "node"]

    @property
    def open_end(self) -> tuple | None:
        for e in self.ends:
            if e[0] == "open":
                return e
        return None

    @property
    def hexes(self) -> list[Hex]:
        out: list[Hex] = []
        for h, _ in self.segs:
            if not out or out[-1] != h:
                out.append(h)
        return out

    def other_end(self, end: tuple) -> tuple:
        return self.ends[1] if self.ends[0] == end else self.ends[0]


class Network:
    """All links traced from a track layout (immutable snapshot)."""

    def __init__(self, board, track: dict[Hex, Tile], city_hexes: set[Hex]):
        self.links: list[Link] = []
        self.seg_link: dict[tuple[Hex, tuple[int, ...]], int] = {}
        self.open_ends: dict[tuple[Hex, int], int] = {}
        self.node_links: dict[Hex, list[int]] = {}
        self.by_id: dict[str, Link] = {}
        self._board = board
        self._track = track
        self._cities = city_hexes
        seg_data = {(h, s.edges): s for h, t in track.items() for s in t.segs}
        for key in sorted(seg_data):
            if key in self.seg_link:
                continue
            h, edges = key
            if len(edges) == 1:
                chain, end = self._walk(h, edges[0])
                segs = [key] + chain
                ends = [("node", h), end]
            else:
                left, end_a = self._walk(h, edges[0])
                right, end_b = self._walk(h, edges[1])
                segs = list(reversed(left)) + [key] + right
                ends = [end_a, end_b]
            owner = seg_data[key].owner
            rnd = max(seg_data[k].rnd for k in segs)
            link = Link(segs, ends, owner, rnd)
            idx = len(self.links)
            self.links.append(link)
            self.by_id[link.id] = link
            for k in segs:
                self.seg_link[k] = idx
            for end in ends:
                if end[0] == "open":
                    self.open_ends[(end[1], end[2])] = idx
                else:
                    self.node_links.setdefault(end[1], []).append(idx)

    def resolve(self, h: Hex, e: int):
        """What lies across edge e of hex h: ("node", city), ("seg", hex, edges) or ("open",)."""
        n = self._board.nbr(h, e)
        if n is None:
            return ("open",)
        if n in self._cities:
            return ("node", n)
        t = self._track.get(n)
        if t is not None:
            oe = opposite(e)
            for s in t.segs:
                if oe in s.edges:
                    return ("seg", n, s.edges)
        return ("open",)

    def _walk(self, h: Hex, e_out: int):
        chain: list[tuple[Hex, tuple[int, ...]]] = []
        for _ in range(10000):
            r = self.resolve(h, e_out)
            if r[0] == "node":
                return chain, ("node", r[1])
            if r[0] == "open":
                return chain, ("open", h, e_out)
            _, n, nedges = r
            chain.append((n, nedges))
            if len(nedges) == 1:
                return chain, ("node", n)
            e_in = opposite(e_out)
            e_out = nedges[1] if nedges[0] == e_in else nedges[0]
            h = n
        raise RuntimeError("track forms a loop without nodes")

    def link_of(self, h: Hex, edges: tuple[int, ...]) -> Link:
        return self.links[self.seg_link[(h, edges)]]
