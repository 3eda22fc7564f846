"""Flat-top axial hex helpers for Steam maps (q = column, r + 1 = the hex to the south).

Edges/directions are numbered clockwise from north: 0 N, 1 NE, 2 SE, 3 S, 4 SW, 5 NW.
"""

from __future__ import annotations

Hex = tuple[int, int]

DIRECTIONS: tuple[Hex, ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
DIRECTION_NAMES = ("N", "NE", "SE", "S", "SW", "NW")


def neighbor(h: Hex, d: int) -> Hex:
    dq, dr = DIRECTIONS[d]
    return (h[0] + dq, h[1] + dr)


def opposite(d: int) -> int:
    return (d + 3) % 6


def rotate(d: int, rotation: int) -> int:
    return (d + rotation) % 6


def hex_key(h: Hex) -> str:
    return f"{h[0]},{h[1]}"


def parse_hex(value) -> Hex:
    """Accept (q, r), [q, r] or "q,r"."""
    if isinstance(value, str):
        q, r = value.split(",")
        return (int(q), int(r))
    q, r = value
    return (int(q), int(r))
