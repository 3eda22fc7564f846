"""Colours: tile colours as 18xx.games draws them, corporation colours, readable text on a fill."""

from __future__ import annotations

from functools import cache

from PIL import ImageColor

from engine.core import data

TILE = {
    "white": (234, 224, 200),
    "yellow": (253, 233, 0),
    "green": (113, 191, 68),
    "brown": (203, 119, 69),
    "gray": (188, 189, 192),
    "red": (236, 35, 42),
    "blue": (53, 167, 255),
    "orange": (244, 130, 33),
    "purple": (90, 75, 155),
    "sepia": (211, 185, 136),
    "diesel": (160, 160, 160),
}
PHASE = {**TILE, "white": (240, 240, 240)}
BLACK = (0, 0, 0)
WHITE = (255, 255, 255)
TRACK = (20, 20, 20)
OUTLINE = (90, 90, 90)
BACKGROUND = (255, 255, 255)
ROUTES = [(230, 25, 75), (0, 130, 200), (60, 180, 75), (145, 30, 180), (245, 130, 48), (0, 128, 128),
          (240, 50, 230), (128, 0, 0)]


def rgb(value: str | None, default=(128, 128, 128)) -> tuple[int, int, int]:
    if not value:
        return default
    if value in TILE:
        return TILE[value]
    try:
        return ImageColor.getrgb(value)[:3]
    except ValueError:
        return default


def text_on(fill: tuple[int, int, int]) -> tuple[int, int, int]:
    r, g, b = fill
    return BLACK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else WHITE


@cache
def entities(title: str) -> dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]]:
    """Corporation and minor sym -> (fill, text colour)."""
    d = data.load(title)
    out = {}
    for ent in list(d.get("corporations", [])) + list(d.get("minors", []) or []):
        fill = rgb(ent.get("color"))
        text = rgb(ent["text_color"]) if ent.get("text_color") else text_on(fill)
        out[ent["sym"]] = (fill, text)
    return out


def entity(title: str, sym: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return entities(title).get(sym, ((110, 110, 110), WHITE))
