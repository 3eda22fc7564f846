"""Colours and sizes of the Steam pictures."""

from __future__ import annotations

# Board: plains pale so that every player's track stands out; hills brown, water blue.
PLAIN = (214, 226, 178)
HILL = (190, 160, 120)
HILL_MARK = (120, 85, 50)
WATER = (150, 190, 225)
RIVER = (60, 120, 200)
OUTLINE = (120, 130, 110)
BACKGROUND = (250, 250, 246)
INK = (25, 25, 25)
GREY_TEXT = (95, 95, 95)
COORD = (120, 125, 110)

# Goods cubes and city colours (a city demands cubes of its own colour).
GOODS = {
    "red": (214, 40, 40),
    "blue": (40, 100, 215),
    "yellow": (245, 205, 30),
    "purple": (130, 60, 170),
    "gray": (150, 150, 150),
}
CITY_FILL = {**GOODS, "gray": (165, 165, 165)}

# Players' track, in seat order: the game's own colours (orange, green, natural, white, brown, black), made
# distinct on the pale board; every track line has a dark casing so that the light ones read too.
PLAYERS = [(240, 125, 20), (25, 135, 60), (225, 200, 150), (255, 255, 255), (125, 70, 30), (30, 30, 30)]
NEUTRAL = (135, 135, 135)
DASH_ON_LIGHT = (90, 90, 90)  # the gaps of a light-coloured unfinished link
CASING = (20, 20, 20)


def player_color(seat: int | None) -> tuple[int, int, int]:
    return NEUTRAL if seat is None else PLAYERS[seat % len(PLAYERS)]
