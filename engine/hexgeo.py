"""Hex geometry shared by every title: coordinates, neighbours across edges, rotation, pixel centres.

Conventions are those of 18xx.games (see docs/formats/tiles.md): "doubled" coordinates, edges 0-5
numbered clockwise from straight down, rotation r turns a tile r x 60 degrees clockwise.
"""

from __future__ import annotations

import math
import re

_COORD = re.compile(r"^([A-Z]+)(-?\d+)$")

# Neighbour offsets (dx, dy) across each edge, per layout.
NEIGHBOR_OFFSETS = {
    "flat": ((0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1), (1, 1)),
    "pointy": ((-1, 1), (-2, 0), (-1, -1), (1, -1), (2, 0), (1, 1)),
}


def letters_index(letters: str) -> int:
    """A=0 .. Z=25, AA=26 .. AZ=51."""
    if len(letters) == 1:
        return ord(letters) - 65
    return 26 * (ord(letters[0]) - 64) + ord(letters[1]) - 65


def parse_coord(coord: str, axes: dict[str, str]) -> tuple[int, int]:
    """'G19' -> (x, y) for the title's axes ({"x": "number", "y": "letter"} etc.)."""
    m = _COORD.match(coord)
    if not m:
        raise ValueError(f"not a hex coordinate: {coord!r}")
    letter, number = letters_index(m.group(1)), int(m.group(2)) - 1
    x = letter if axes["x"] == "letter" else number
    y = letter if axes["y"] == "letter" else number
    return x, y


def opposite(edge: int) -> int:
    return (edge + 3) % 6


def rotate_edge(edge: int, rotation: int) -> int:
    return (edge + rotation) % 6


def neighbor_xy(x: int, y: int, edge: int, layout: str) -> tuple[int, int]:
    dx, dy = NEIGHBOR_OFFSETS[layout][edge]
    return x + dx, y + dy


def center(x: int, y: int, x_min: int, y_min: int, layout: str, size: float) -> tuple[float, float]:
    """Pixel centre of hex (x, y) with hex radius `size` (y grows downwards)."""
    if layout == "flat":
        return 1.5 * size * (x - x_min) + size, math.sqrt(3) / 2 * size * (y - y_min) + size
    return math.sqrt(3) / 2 * size * (x - x_min) + size, 1.5 * size * (y - y_min) + size


def corners(cx: float, cy: float, layout: str, size: float) -> list[tuple[float, float]]:
    start = 0 if layout == "flat" else 30
    return [(cx + size * math.cos(math.radians(start + 60 * i)), cy + size * math.sin(math.radians(start + 60 * i)))
            for i in range(6)]


def edge_midpoint(cx: float, cy: float, edge: int, layout: str, size: float) -> tuple[float, float]:
    """Midpoint of an edge; edge 0 is the first edge clockwise from straight down."""
    angle = math.radians(60 * edge + (30 if layout == "pointy" else 0))
    r = math.sqrt(3) / 2 * size
    return cx - r * math.sin(angle), cy + r * math.cos(angle)
