"""Parse 18xx.games tile definition strings into what the map drawing needs (see docs/formats/tiles.md).

Only drawing facts are kept: nodes (cities, towns, halts, offboards, junctions) with their `loc`,
`style`, `slots` and revenue; paths with lanes; labels; terrain costs; borders; icons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

NODE_TYPES = ("city", "town", "halt", "offboard", "junction", "pass")


@dataclass
class Node:
    kind: str
    revenue: int | dict[str, int] = 0
    slots: int = 1
    loc: float | str | None = None  # None, "center", or an edge position (2.5 = corner between 2 and 3)
    style: str | None = None
    symbol: str | None = None
    hide: bool = False
    part_index: int = 0


@dataclass
class Path:
    a: tuple[str, int]  # ("edge", 0-5) or ("node", index)
    b: tuple[str, int]
    terminal: bool = False
    a_lane: tuple[int, int] | None = None  # (width, index)
    b_lane: tuple[int, int] | None = None


@dataclass
class TileDef:
    nodes: list[Node] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    upgrades: list[tuple[int, list[str]]] = field(default_factory=list)  # (cost, terrains)
    borders: list[tuple[int, str | None, int]] = field(default_factory=list)  # (edge, type, cost)
    icons: list[str] = field(default_factory=list)

    def cities(self) -> list[Node]:
        return [n for n in self.nodes if n.kind == "city"]


def parse_revenue(value: str) -> int | dict[str, int]:
    if "_" not in value:
        return int(value)
    out = {}
    for item in value.split("|"):
        colour, _, amount = item.rpartition("_")
        out[colour] = int(amount)
    return out


def _endpoint(value: str) -> tuple[str, int]:
    if value.startswith("_"):
        return ("node", int(value[1:]))
    return ("edge", int(value))


def _lane(value: str | None) -> tuple[int, int] | None:
    if not value:
        return None
    width, _, index = value.partition(".")
    return int(width), int(index or 0)


def _loc(value: str | None) -> float | str | None:
    if value is None:
        return None
    if value == "center":
        return "center"
    return float(value)


@cache
def parse(code: str) -> TileDef:
    tile = TileDef()
    part_index = 0  # parts are numbered after expanding lanes (docs/formats/tiles.md section 1)
    for part in code.split(";") if code else ():
        kind, _, params = part.partition("=")
        if params and ":" not in params:
            args = {"": params}
        else:
            args = dict(p.split(":", 1) for p in params.split(",")) if params else {}
        if kind == "path":
            lanes = int(args.get("lanes", 1))
            for lane in range(lanes):
                a_lane = _lane(args.get("a_lane")) or ((lanes, lane) if lanes > 1 else None)
                b_lane = _lane(args.get("b_lane")) or ((lanes, lane) if lanes > 1 else None)
                tile.paths.append(Path(_endpoint(args["a"]), _endpoint(args["b"]),
                                       terminal=bool(args.get("terminal")), a_lane=a_lane, b_lane=b_lane))
                part_index += 1
            continue
        if kind in NODE_TYPES:
            tile.nodes.append(Node(
                kind=kind,
                revenue=parse_revenue(args["revenue"]) if "revenue" in args else 0,
                slots=int(args.get("slots", 1)),
                loc=_loc(args.get("loc")),
                style=args.get("style"),
                symbol=args.get("symbol"),
                hide=args.get("hide") not in (None, "0", "false"),
                part_index=part_index,
            ))
        elif kind == "label":
            tile.labels.append(args.get("", ""))
        elif kind == "upgrade":
            terrains = [t for t in args.get("terrain", "").split("|") if t]
            tile.upgrades.append((int(args.get("cost", 0)), terrains))
        elif kind == "border":
            tile.borders.append((int(args["edge"]), args.get("type"), int(args.get("cost", 0))))
        elif kind == "icon":
            tile.icons.append(args.get("name") or args.get("image", "").rsplit("/", 1)[-1])
        part_index += 1
    return tile
