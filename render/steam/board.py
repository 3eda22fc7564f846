"""The Steam board as a PNG: terrain, rivers, cities in their colours with their goods cubes, towns, New
Cities, every player's track in their colour (unfinished links dashed, their open end ringed), a header
with the round, the phase and who acts, and the goods display (reserve hexes, bag, New City tiles).

Drawn at SS times the final size and reduced (anti-aliased lines); the terrain of each map is drawn once
and cached.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache

from PIL import Image, ImageDraw

from engine import hexgeo
from engine.steam.board import HILLS, load_board
from i18n import _, ngettext

from ..fonts import font
from ..mapdraw import _edge_curve, _Hex
from ..png import to_png
from . import style as S
from .players import status_line

SS = 2
LONG_SIDE = 1950  # final pixels for the picture's long side (board, header and goods display), about
MAX_R = 80
# the header's and the goods display's letters: 1/42 of the picture's width, so that a phone showing it 400 px
# wide writes them ~9.5 px high (sized by the hex, 0.3-0.42 R, they were 2.9-4.2 px on Eastern's board)
TEXT_PER_WIDTH = 1 / 42
HEADER_TEXTS, GOODS_TEXTS = 4.7, 3.9  # the bands' heights in letter sizes, the board's margin aside
SQ3 = math.sqrt(3)


CITY_NAME, TOWN_NAME = 0.27, 0.26  # the names' letters (in hex radii)
CUBES_Y, CUBE = 0.08, 0.24  # a city's cubes: their centre below the hex's, their size (in hex radii)
GROWTH = (0.55, 0.5, 0.15)  # a City Growth marker: its centre from the hex's and its radius (in hex radii)


def _track_width(R: float) -> int:
    """A track line's width in a hex of radius R (both at the scale drawn at)."""
    return max(3, int(0.13 * R))


def _cased(w: int) -> int:
    """The width of a track line's dark casing."""
    return w + 2 * max(2, w // 4)


def _key(h) -> str:
    return f"{h[0]},{h[1]}"


def _parse(key: str) -> tuple[int, int]:
    q, r = key.split(",")
    return int(q), int(r)


def _to_18xx_edge(e: int) -> int:
    """Steam numbers edges clockwise from north, the shared hex primitives clockwise from south."""
    return (e + 3) % 6


@cache
def _layout(map_id: str):
    """Hex radius, hex centres (SS scale), board size, the band heights around it and the bands' letter size."""
    board = load_board(map_id)
    xs = {h: 1.5 * h[0] for h in board.hexes}
    ys = {h: SQ3 * (h[1] + h[0] / 2) for h in board.hexes}
    x0, y0 = min(xs.values()), min(ys.values())
    w_units = max(xs.values()) - x0 + 2
    h_units = max(ys.values()) - y0 + SQ3
    margin_units = 0.4
    # the board as large as with the bands it had (5.2 hex radii, its letters sized by the hex): the bands'
    # larger letters make a tall board's picture taller, not its hexes and names smaller
    r = min(MAX_R, LONG_SIDE / max(w_units + 2 * margin_units, h_units + 2 * margin_units + 5.2))
    text_units = (w_units + 2 * margin_units) * TEXT_PER_WIDTH
    header_units, goods_units = HEADER_TEXTS * text_units, margin_units + GOODS_TEXTS * text_units
    R = r * SS
    margin = margin_units * R
    header = header_units * R
    centres = {h: (margin + (xs[h] - x0 + 1) * R, header + margin + (ys[h] - y0 + SQ3 / 2) * R) for h in board.hexes}
    width = int(w_units * R + 2 * margin)
    goods_top = int(header + h_units * R + 2 * margin)
    height = int(goods_top + goods_units * R)
    width -= width % SS
    height -= height % SS
    return board, R, centres, width, height, header, goods_top, text_units * R


def _paint_terrain(d: ImageDraw.ImageDraw, h, info, cx: float, cy: float, R: float) -> None:
    """One hex's terrain at SS scale: fill, outline, river or hill marks."""
    corners = hexgeo.corners(cx, cy, "flat", R)
    d.polygon(corners, fill={"water": S.WATER, "mountain": S.HILL, "hill": S.HILL}.get(info.terrain, S.PLAIN))
    if info.terrain == "water":
        return
    d.polygon(corners, outline=S.OUTLINE, width=max(1, int(0.03 * R)))
    hills = info.terrain in HILLS
    if info.river and not info.city:  # above the peaks on a hill hex with a river (it pays for both)
        wave_y = (-0.08 if hills else 0.25) * R
        pts = [(cx + t * 0.8 * R, cy + 0.18 * R * math.sin(t * 2.2 * math.pi) + wave_y)
               for t in (i / 20 - 0.5 for i in range(21))]
        d.line(pts, fill=S.RIVER, width=int(0.09 * R), joint="curve")
    if hills and not info.city:
        for dx in (-0.22, 0.12):
            x, y = cx + dx * R, cy + 0.38 * R
            d.polygon([(x - 0.16 * R, y), (x, y - 0.24 * R), (x + 0.16 * R, y)], fill=S.HILL_MARK)


def _paint_coord(d: ImageDraw.ImageDraw, h, info, cx: float, cy: float, r: float) -> None:
    """The hex's coordinates at final scale (players type them, and the autocomplete shows them)."""
    if info.terrain != "water" and not info.city:
        d.text((cx, cy - 0.66 * r), _key(h), font=font(int(0.2 * r), "regular"), fill=S.COORD, anchor="mm")


@cache
def _terrain(map_id: str) -> Image.Image:
    """The map without pieces at final size: terrain, river and hill marks, coordinates, black lines."""
    board, R, centres, width, height, *_ = _layout(map_id)
    img = Image.new("RGB", (width, height), S.BACKGROUND)
    d = ImageDraw.Draw(img)
    for h, info in board.hexes.items():
        _paint_terrain(d, h, info, *centres[h], R)
    for h, info in board.hexes.items():  # black lines: edges no track may cross
        for e in info.blocked:
            hx = _Hex(*centres[h], R, "flat")
            d.line([hx.at(_to_18xx_edge(e) - 0.5, 1.0), hx.at(_to_18xx_edge(e) + 0.5, 1.0)], fill=S.INK,
                   width=int(0.08 * R))
    img = img.reduce(SS)
    d = ImageDraw.Draw(img)
    for h, info in board.hexes.items():
        cx, cy = centres[h]
        _paint_coord(d, h, info, cx / SS, cy / SS, R / SS)
    return img


@lru_cache(maxsize=2048)
def _hex_picture(map_id: str, h, key: tuple):
    """One hex with its pieces at final size, its coordinates left to the board (`Labels`): (top-left, RGB
    picture, L mask).  `key` is what it shows:
    ("track", paths) with paths ((edges, colour, complete), ...) and a stub flag, or ("city", colour, cubes,
    grown, new city, direct links)."""
    board, R, centres, *_ = _layout(map_id)
    cx, cy = centres[h]
    x0, y0 = math.floor((cx - R) / SS - 2) * SS, math.floor((cy - R) / SS - 2) * SS
    x1, y1 = math.ceil((cx + R) / SS + 2) * SS, math.ceil((cy + R) / SS + 2) * SS
    img = Image.new("RGB", (x1 - x0, y1 - y0), S.BACKGROUND)
    d = ImageDraw.Draw(img)
    lx, ly = cx - x0, cy - y0
    info = board.hexes[h]
    _paint_terrain(d, h, info, lx, ly, R)
    hx = _Hex(lx, ly, R, "flat")
    track_w = _track_width(R)
    if key[0] == "track":
        _paint_paths(d, hx, key[1], track_w, R, stubs=False)
    else:
        _, colour, cubes, grown, new_city, stubs = key
        _paint_city(d, lx, ly, R, colour, cubes, grown, new_city)
        _paint_paths(d, hx, stubs, track_w, R, stubs=True)
    if h in board.towns and key[0] == "track":
        r = (0.16 if key[1] else 0.2) * R
        d.ellipse((lx - r, ly - r, lx + r, ly + r), fill=S.INK, outline=(255, 255, 255), width=max(2, int(r / 4)))
    mask = Image.new("L", img.size, 0)
    ImageDraw.Draw(mask).polygon(hexgeo.corners(lx, ly, "flat", R), fill=255)
    img, mask = img.reduce(SS), mask.reduce(SS)
    return (x0 // SS, y0 // SS), img, mask


def _path_points(hx: _Hex, edges, stub: bool):
    if len(edges) == 2:
        return _edge_curve(hx, _to_18xx_edge(edges[0]), _to_18xx_edge(edges[1]))
    start = hx.edge_point(_to_18xx_edge(edges[0]))
    if stub:  # a New City's direct link: from the edge part way in
        return [start, (start[0] + (hx.cx - start[0]) * 0.45, start[1] + (hx.cy - start[1]) * 0.45)]
    return [start, (hx.cx, hx.cy)]


def _paint_paths(d: ImageDraw.ImageDraw, hx: _Hex, paths, w: int, R: float, stubs: bool) -> None:
    """Track: a dark casing, then each path in its owner's colour; an unfinished link's path dashed."""
    lines = [(_path_points(hx, edges, stubs), colour, complete) for edges, colour, complete in paths]
    for pts, _colour, _complete in lines:
        d.line(pts, fill=S.CASING, width=_cased(w), joint="curve")
    for pts, colour, complete in lines:
        if complete:
            d.line(pts, fill=colour, width=w, joint="curve")
        else:
            _dashed(d, pts, colour, w, 0.22 * R)


def _dashed(d: ImageDraw.ImageDraw, pts, colour, w: int, dash: float) -> None:
    """An unfinished link: the owner's colour broken by gaps that stand out from it."""
    light = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2] > 140
    d.line(pts, fill=S.DASH_ON_LIGHT if light else S.BACKGROUND, width=w, joint="curve")
    acc, on = 0.0, True
    seg = [pts[0]]
    for a, b in zip(pts, pts[1:], strict=False):
        length = math.dist(a, b)
        pos = 0.0
        while length - pos > 1e-6:
            step = min(dash - acc, length - pos)
            pos += step
            acc += step
            t = pos / length if length else 1
            p = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            seg.append(p)
            if acc >= dash - 1e-6:
                if on and len(seg) > 1:
                    d.line(seg, fill=colour, width=w, joint="curve")
                on, acc, seg = not on, 0.0, [p]
    if on and len(seg) > 1:
        d.line(seg, fill=colour, width=w, joint="curve")


def _paint_city(d: ImageDraw.ImageDraw, cx, cy, R, colour: str, cubes, grown: bool, new_city: bool) -> None:
    """A city hex in its colour with its goods cubes; a New City has an inner ring, a grown city a "+"."""
    d.polygon(hexgeo.corners(cx, cy, "flat", R * 0.98), fill=S.CITY_FILL.get(colour, S.CITY_FILL["gray"]),
              outline=S.INK, width=max(2, int(0.05 * R)))
    if new_city:
        d.polygon(hexgeo.corners(cx, cy, "flat", R * 0.84), outline=(255, 255, 255), width=max(2, int(0.05 * R)))
    _paint_cubes(d, cx, cy + CUBES_Y * R, cubes, CUBE * R)
    if grown:  # the City Growth marker (printed on every New City)
        x, y, rr = cx + GROWTH[0] * R, cy + GROWTH[1] * R, GROWTH[2] * R
        d.ellipse((x - rr, y - rr, x + rr, y + rr), fill=(255, 255, 255), outline=S.INK, width=max(2, int(rr / 4)))
        t = max(2, int(rr / 4))
        d.line([(x - rr * 0.55, y), (x + rr * 0.55, y)], fill=S.INK, width=t)
        d.line([(x, y - rr * 0.55), (x, y + rr * 0.55)], fill=S.INK, width=t)


def _cube_rows(cubes: list) -> list[list]:
    per_row = 4 if len(cubes) > 6 else 3
    return [cubes[i:i + per_row] for i in range(0, len(cubes), per_row)]


def _cubes_extent(cubes: list, size: float) -> tuple[float, float]:
    """Half the width and half the height of the cubes drawn by _paint_cubes."""
    rows, gap = _cube_rows(cubes), size * 0.25
    across = max(len(row) for row in rows)
    return (across * size + (across - 1) * gap) / 2, (len(rows) * size + (len(rows) - 1) * gap) / 2


def _paint_cubes(d: ImageDraw.ImageDraw, cx, cy, cubes, size: float) -> None:
    if not cubes:
        return
    rows = _cube_rows(cubes)
    gap = size * 0.25
    top = cy - (len(rows) * size + (len(rows) - 1) * gap) / 2
    for j, row in enumerate(rows):
        left = cx - (len(row) * size + (len(row) - 1) * gap) / 2
        y = top + j * (size + gap)
        for i, c in enumerate(row):
            x = left + i * (size + gap)
            d.rectangle((x, y, x + size, y + size), fill=S.GOODS.get(c, S.GOODS["gray"]), outline=S.INK,
                        width=max(2, int(size / 8)))


# where a label may go: (offset of its centre from its hex's centre in hex radii, share of its letter size),
# the first preferred; it goes at the first that covers no track, stop, cube or other label, else at the one
# covering least. A city's name stays in its hex (smaller if need be) unless there is no room there.
_IN_CITY = [(0, -0.58), (0, -0.5), (-0.15, -0.58), (0.15, -0.58), (0, -0.66), (0, -0.25), (0, 0.62)]
_OUT_CITY = [(dx, dy) for dy in (-0.95, 1.0) for dx in (0, -0.35, 0.35, -0.7, 0.7)]
# beside: (gap between the hex's centre and the text's near end, dy), the text on the left or the right
_BESIDE_CITY = [(0.95, dy) for dy in (0, -0.3, 0.3)]
_BESIDE_TOWN = [(0.3, dy) for dy in (0, -0.12, 0.12)]
# (offset, share of the letter size, on two lines, beside: 0, or -1/+1 for the left/right of an offset of
# _BESIDE_*): a name of several words also tries two lines, in its hex and then out of it, and smaller out of it,
# before covering anything
CITY_SPOTS = [(spot, 1.0, False, 0) for spot in _IN_CITY] + [(spot, 0.8, False, 0) for spot in _IN_CITY] + \
    [(spot, 1.0, False, 0) for spot in _OUT_CITY] + \
    [(spot, 1.0, wrapped, side) for wrapped in (False, True) for spot in _BESIDE_CITY for side in (-1, 1)] + \
    [(spot, share, True, 0) for share in (1.0, 0.8) for spot in _IN_CITY] + \
    [(spot, 0.8, False, 0) for spot in _OUT_CITY] + [(spot, 1.0, True, 0) for spot in _OUT_CITY]
_AROUND_TOWN = [(0, 0.5), (0, -0.5)] + [(dx, dy) for dy in (0.5, -0.5, 0.28, -0.28, 0.75, -0.75)
                                        for dx in (-0.4, 0.4, -0.75, 0.75)]
# ... a town's also beside its dot, then smaller
TOWN_SPOTS = [(spot, 1.0, False, 0) for spot in _AROUND_TOWN] + \
    [(spot, 1.0, False, side) for spot in _BESIDE_TOWN for side in (-1, 1)] + \
    [(spot, 0.8, False, 0) for spot in _AROUND_TOWN] + [(spot, 1.0, True, 0) for spot in _AROUND_TOWN]
COORD_SPOTS = [((dx, dy), 1.0, False, 0) for dx, dy in ((0, -0.66), (0, 0.66), (-0.42, -0.5), (0.42, -0.5),
                                                        (-0.42, 0.5), (0.42, 0.5), (-0.6, 0), (0.6, 0))]


def _two_lines(text: str) -> str:
    """The text broken at the space nearest its middle (unchanged without a space)."""
    spaces = [k for k, c in enumerate(text) if c == " "]
    if not spaces:
        return text
    k = min(spaces, key=lambda k: abs(2 * k - len(text)))
    return text[:k] + "\n" + text[k + 1:]


class Labels:
    """The board's names and the coordinates of hexes with pieces, each at its first spot that covers nothing
    drawn (track with its casing, towns, cubes, open ends, labels placed before), else at the spot covering
    least: a mask at the picture's size of what they must not cover."""

    def __init__(self, size: tuple[int, int]):
        self.mask = Image.new("L", size, 0)
        self.d = ImageDraw.Draw(self.mask)
        self.placed: list[tuple[str, tuple[float, float, float, float]]] = []  # (text, box)

    def covered(self, box) -> int:
        x0, y0, x1, y1 = (round(v) for v in box)
        return self.mask.crop((x0, y0, x1, y1)).histogram()[255]

    def place(self, text: str, size: float, style: str, centre: tuple[float, float], R: float, spots,
              halo: float) -> tuple[tuple[float, float], int, str]:
        """Where `text` goes: its centre, letter size and text (on two lines or one; its box kept clear from
        then on)."""

        @cache
        def extent(share, wrapped):
            f = font(int(size * share), style)
            if not wrapped:
                top, bottom = f.getbbox(text, anchor="mm")[1::2]
                return f.getlength(text) + 2 * halo, bottom - top + 2 * halo
            x0, y0, x1, y1 = self.d.multiline_textbbox((0, 0), _two_lines(text), font=f, anchor="mm", align="center")
            return x1 - x0 + 2 * halo, y1 - y0 + 2 * halo

        def box(spot, share, wrapped, side):
            (w, h), y = extent(share, wrapped), centre[1] + spot[1] * R
            x = centre[0] + (side * (spot[0] * R + w / 2) if side else spot[0] * R)
            return x - w / 2, y - h / 2, x + w / 2, y + h / 2

        best = None
        for k, (spot, share, wrapped, side) in enumerate(spots):
            if wrapped and " " not in text:
                continue
            b = box(spot, share, wrapped, side)
            cost = (self.covered(b), k)
            if best is None or cost < best[0]:
                best = (cost, b, share, wrapped)
            if cost[0] == 0:
                break
        _, b, share, wrapped = best
        self.d.rectangle(b, fill=255)
        self.placed.append((text, b))
        return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), int(size * share), _two_lines(text) if wrapped else text


class BoardPainter:
    """The whole picture at final size: the cached terrain, each hex with pieces pasted from the cache of
    hex pictures, then names, open ends, the header and the goods display on top."""

    def __init__(self, view: dict):
        self.view = view
        (self.board, R, self.centres, width, height, header, goods_top, text) = _layout(view["map"])
        self.R = R / SS  # everything below is drawn at final size
        self.header, self.goods_top, self.T = header / SS, goods_top / SS, text / SS
        self.seat_of = {p["id"]: i for i, p in enumerate(view["players"])}
        self.links = {lk["id"]: lk for lk in view.get("links", [])}
        self.img = _terrain(view["map"]).copy()
        self.d = ImageDraw.Draw(self.img)

    def centre(self, h) -> tuple[float, float]:
        x, y = self.centres[h]
        return x / SS, y / SS

    def color(self, owner) -> tuple[int, int, int]:
        return S.player_color(self.seat_of.get(owner))

    def text(self, xy, s: str, size: float, fill=S.INK, style="bold", anchor="mm", halo=True):
        self.d.text(xy, s, font=font(int(size), style), fill=fill, anchor=anchor, align="center",
                    stroke_width=max(2, int(size * 0.14)) if halo else 0, stroke_fill=S.BACKGROUND)

    def _paths(self, hv: dict) -> tuple:
        return tuple(sorted((tuple(p["edges"]), self.color(p["owner"]),
                             bool(self.links.get(p.get("link"), {}).get("complete", True))) for p in hv["paths"]))

    def hex_keys(self) -> dict[str, tuple]:
        """What each hex with pieces shows (`_hex_picture`'s key), by its coordinates."""
        track = self.view.get("track", {})
        cities = self.view.get("cities", {})
        keys = {}
        for key, hv in track.items():
            if key not in cities:
                keys[key] = ("track", self._paths(hv))
        for key, c in cities.items():
            stubs = self._paths(track[key]) if key in track else ()
            keys[key] = ("city", c["color"], tuple(c.get("cubes") or ()), bool(c.get("grown")),
                         bool(c.get("new_city")), stubs)
        return keys

    def paint(self) -> Image.Image:
        track = self.view.get("track", {})
        cities = self.view.get("cities", {})
        keys = self.hex_keys()
        for key, k in keys.items():
            h = _parse(key)
            if h in self.centres:
                pos, pic, mask = _hex_picture(self.view["map"], h, k)
                self.img.paste(pic, pos, mask)
        for h in self.board.towns:
            if _key(h) not in cities and _key(h) not in track:
                x, y = self.centre(h)
                r = 0.2 * self.R
                self.d.ellipse((x - r, y - r, x + r, y + r), fill=S.INK, outline=(255, 255, 255), width=2)
        self.paint_open_ends()
        self.labels = self.paint_labels(keys)
        self.paint_header()
        self.paint_goods()
        return self.img

    def taken(self, keys: dict) -> Labels:
        """What labels must not cover: every hex's track (casing and all), town dots, cities' cubes and
        City Growth markers, open ends."""
        labels = Labels(self.img.size)
        d, R = labels.d, self.R
        casing = _cased(_track_width(R * SS)) / SS + 2
        for key, k in keys.items():
            h = _parse(key)
            if h not in self.centres:
                continue
            x, y = self.centre(h)
            hx = _Hex(x, y, R, "flat")
            paths = k[1] if k[0] == "track" else k[5]
            for edges, _colour, _complete in paths:
                d.line(_path_points(hx, edges, k[0] != "track"), fill=255, width=round(casing), joint="curve")
            if k[0] == "city" and k[2]:
                half_w, half_h = _cubes_extent(list(k[2]), CUBE * R)
                d.rectangle((x - half_w - 2, y + CUBES_Y * R - half_h - 2, x + half_w + 2, y + CUBES_Y * R + half_h + 2),
                            fill=255)
            if k[0] == "city" and k[3]:
                gx, gy, gr = x + GROWTH[0] * R, y + GROWTH[1] * R, GROWTH[2] * R + 2
                d.ellipse((gx - gr, gy - gr, gx + gr, gy + gr), fill=255)
        for h in self.board.towns:
            if h in self.centres:
                x, y = self.centre(h)
                d.ellipse((x - 0.22 * R, y - 0.22 * R, x + 0.22 * R, y + 0.22 * R), fill=255)
        for lk in self.view.get("links", []):
            if not lk.get("complete") and lk.get("open_end") and _parse(lk["open_end"][0]) in self.centres:
                key, e = lk["open_end"]
                x, y = _Hex(*self.centre(_parse(key)), R, "flat").edge_point(_to_18xx_edge(e))
                d.ellipse((x - 0.2 * R, y - 0.2 * R, x + 0.2 * R, y + 0.2 * R), fill=255)
        return labels

    def paint_labels(self, keys: dict) -> Labels:
        """Cities' and towns' names, then the coordinates of the hexes with pieces (the empty ones have theirs
        on the terrain), each where it covers no track (`Labels`)."""
        R, cities = self.R, self.view.get("cities", {})
        labels = self.taken(keys)
        names = [(_parse(key), c["name"].removesuffix(" " + _("(city)")), CITY_NAME * R, CITY_SPOTS)
                 for key, c in cities.items()]
        names += [(h, name, TOWN_NAME * R, TOWN_SPOTS) for h, name in self.board.towns.items() if _key(h) not in cities]
        for h, name, size, spots in names:
            if h in self.centres:
                at, size, lines = labels.place(name, size, "bold", self.centre(h), R, spots, max(2, int(size * 0.14)))
                self.text(at, lines, size)
        for key in keys:
            h = _parse(key)
            if h in self.centres and key not in cities:  # a city (a New City too) shows its name instead
                at, size, _lines = labels.place(key, 0.2 * R, "regular", self.centre(h), R, COORD_SPOTS, 1)
                self.d.text(at, key, font=font(size, "regular"), fill=S.COORD, anchor="mm")
        return labels

    def paint_open_ends(self):
        """A ring where an unfinished link stops, in its owner's colour."""
        r = 0.17 * self.R
        for lk in self.view.get("links", []):
            if lk.get("complete") or not lk.get("open_end"):
                continue
            key, e = lk["open_end"]
            h = _parse(key)
            if h not in self.centres:
                continue
            x, y = _Hex(*self.centre(h), self.R, "flat").edge_point(_to_18xx_edge(e))
            self.d.ellipse((x - r, y - r, x + r, y + r), fill=S.BACKGROUND, outline=S.CASING, width=2)
            self.d.ellipse((x - r / 2, y - r / 2, x + r / 2, y + r / 2), fill=self.color(lk.get("owner")))

    # ------------------------------------------------------------------ header and goods display
    def paint_header(self):
        """The map and game, the status, and each player's colour, in letters a phone reads (`T`)."""
        v, T = self.view, self.T
        width = self.img.width - 0.8 * self.R
        mode = _("basic game") if v.get("mode") == "basic" else _("standard game")
        self.line((0.4 * self.R, 0.4 * self.R + 0.6 * T), f"{v.get('map_name', v['map'])} ({mode})", T, width, "bold")
        self.line((0.4 * self.R, 0.4 * self.R + 1.85 * T), status_line(v), T, width, "regular")
        labels = [_("{name} (bankrupt)", name=p["name"]) if p.get("bankrupt") else p["name"] for p in v["players"]]
        # players' colours in seat order, a little smaller where many long names would not fit in a line
        size = 0.9 * T
        while size > 0.6 * T and sum(1.9 * T + self.d.textlength(x, font=font(int(size), "regular")) for x in labels) > width:
            size -= 0.05 * T
        x, y = 0.4 * self.R, 0.4 * self.R + 3.15 * T
        for i, label in enumerate(labels):
            self.d.rounded_rectangle((x, y - 0.32 * T, x + 1.2 * T, y + 0.32 * T), radius=0.2 * T,
                                     fill=S.player_color(i), outline=S.CASING, width=max(2, int(0.06 * T)))
            self.text((x + 1.35 * T, y), label, size, style="regular", anchor="lm", halo=False)
            x += 1.9 * T + self.d.textlength(label, font=font(int(size), "regular"))
        self.line((0.4 * self.R, 0.4 * self.R + 4.2 * T), _("dashed: unfinished link"), 0.8 * T, width, "regular",
                  S.GREY_TEXT)

    def line(self, at, text: str, size: float, width: float, style: str, fill=S.INK) -> None:
        """`text` from `at` (left, middle) at `size`, or smaller where it would be wider than `width`."""
        f = font(int(size), style)
        if self.d.textlength(text, font=f) > width:
            size = size * width / self.d.textlength(text, font=f)
        self.text(at, text, size, fill=fill, style=style, anchor="lm", halo=False)

    def paint_goods(self):
        """Reserve hexes (lettered as in the actions), the bag and the New City tiles left, in letters a phone
        reads (`T`)."""
        v, T = self.view, self.T
        top = self.goods_top
        self.text((0.4 * self.R, top + 0.55 * T), _("Reserve hexes"), 0.8 * T, anchor="lm", halo=False)
        r = 0.9 * T
        x = 0.4 * self.R + r
        y = top + 2.7 * T
        for i, cubes in enumerate(v.get("reserve", [])):
            fill = (235, 232, 220) if cubes else (215, 215, 215)
            self.d.polygon(hexgeo.corners(x, y, "flat", r), fill=fill, outline=S.INK, width=max(2, int(0.05 * T)))
            self.text((x, y - r - 0.35 * T), chr(65 + i), 0.7 * T, halo=False)
            if cubes:
                _paint_cubes(self.d, x, y, list(cubes), 0.34 * T)
            else:
                self.text((x, y), _("empty"), 0.32 * T, fill=S.GREY_TEXT, style="regular", halo=False)
            x += 2 * r + 0.25 * T
        x += 0.5 * T
        bag = sum((v.get("bag") or {}).values())
        self.text((x, top + 1.75 * T), ngettext("Bag: {n} cube", "Bag: {n} cubes", bag), 0.8 * T, style="regular",
                  anchor="lm", halo=False)
        tiles = _("New City tiles:")
        ty = top + 2.95 * T
        self.text((x, ty), tiles, 0.8 * T, style="regular", anchor="lm", halo=False)
        x2 = x + self.d.textlength(tiles, font=font(int(0.8 * T), "regular")) + 0.4 * T
        for colour, n in (v.get("new_city_tiles") or {}).items():
            s = 0.6 * T
            self.d.rectangle((x2, ty - s / 2, x2 + s, ty + s / 2), fill=S.CITY_FILL.get(colour, S.CITY_FILL["gray"]),
                             outline=S.INK, width=2)
            self.text((x2 + s + 0.15 * T, ty), str(n), 0.8 * T, style="regular", anchor="lm", halo=False)
            x2 += s + 0.15 * T + self.d.textlength(str(n), font=font(int(0.8 * T), "regular")) + 0.45 * T


def draw_board(view: dict) -> bytes:
    """PNG of a Steam game's board from Game.view() (plain data)."""
    return to_png(BoardPainter(view).paint())


def board_image(view: dict) -> Image.Image:
    return BoardPainter(view).paint()


# a phone shows a picture about 400 px wide: a crop AREA_NAMES city names wide writes them ~9.5 px high there
PHONE_WIDTH, PHONE_LETTERS = 400, 9.5
AREA_ASPECT = 0.8  # the crop's height to its width


def area_box(map_id: str, h) -> tuple[int, int, int, int]:
    """The part of the board around hex `h` (left, top, right, bottom, final pixels) that a phone showing it
    PHONE_WIDTH wide writes a city's name PHONE_LETTERS high in: about seven hexes across, kept on the board."""
    _board, R, centres, width, _height, header, goods_top, _text = _layout(map_id)
    right, top_limit, bottom_limit = width // SS, math.ceil(header / SS), int(goods_top / SS)
    w = min(int(CITY_NAME * R / SS * PHONE_WIDTH / PHONE_LETTERS), right)
    ht = min(int(w * AREA_ASPECT), bottom_limit - top_limit)
    cx, cy = centres[h][0] / SS, centres[h][1] / SS
    left = int(min(max(cx - w / 2, 0), right - w))
    top = int(min(max(cy - ht / 2, top_limit), bottom_limit - ht))
    return left, top, left + w, top + ht


def draw_area(view: dict, h) -> bytes:
    """PNG of the board around hex `h` (`area_box`), with the whole board's names and pieces, for reading the
    names of one part of the board on a phone."""
    return to_png(board_image(view).crop(area_box(view["map"], h)))
