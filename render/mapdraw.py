"""Draw a map view (see render.mapview) as a PNG, in the style of 18xx.games.

Hexes are drawn at SS times the final size and reduced (anti-aliased track and circles), one by one:
each hex picture is cached by its content, and the picture of a title's starting map (margins, coordinate
labels, every printed hex, hex outlines and borders) is cached too, so a drawing only paints the hexes
that changed since the start of the game and pastes them on a copy of that background.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache, partial
from typing import NamedTuple

from PIL import Image, ImageDraw

from engine import hexgeo
from engine.core import data
from i18n import _

from . import colors as C
from .fonts import font
from .mapview import map_data, map_of, tile_def
from .png import to_png
from .tiledef import Node, TileDef

SS = 2  # supersampling factor
LONG_SIDE = 1950  # target long side of the picture, pixels
MAX_R = 90
SQ3 = math.sqrt(3)
# letter sizes: a station's name as a share of its disc's radius (as large as the disc holds), a location's
# name as shares of the hex's radius, the largest that finds a free place first (a phone shows the map some
# 1,000 device pixels wide, where 0.15 R read ~7 px high)
TOKEN_TEXT = 0.85
NAME_SIZES = (0.22, 0.2, 0.175, 0.15, 0.13, 0.115)
READABLE = 3  # the first sizes of NAME_SIZES: a name that fits only smaller is abbreviated where that fits
ABBREVIATED = 4  # ... at one of the first sizes of NAME_SIZES (its letters still larger than the name's would be)
# a name written smaller than this (picture pixels; ~7 px on a phone) goes in a callout beside its hex where an
# empty stretch of a neighbour or of the margin holds one, at CALLOUT_SIZES of the hex's radius (1817's
# Blacksburg, 14.5 px in its hex, 16 px in a callout)
CALLOUT_BELOW = 15
SHORT_CALLOUT_BELOW = 16  # ... and an abbreviation smaller than this, the callout writing the name in full or
SHORT_CALLOUT_GAIN = 1.1  # ... its abbreviation at least this much larger than in the hex (1817's 14.5 px `Ind.`: 16)
CALLOUT_SIZES = (0.22, 0.2)
CALLOUT_PX = 16  # ... at least
# where a callout may go beyond an edge of its hex: (gap from the edge, offset along it), in hex radii; the
# last ones towards a corner, where a track leaving by the middle of the edge leaves room (late in a game
# 1817's Scranton, 1860's Merstone)
CALLOUT_SPOTS = ((0.14, 0), (0.14, -0.22), (0.14, 0.22), (0.4, 0), (0.4, -0.3), (0.4, 0.3), (0.06, -0.4),
                 (0.06, 0.4), (0.25, -0.45), (0.25, 0.45),
                 *((0.14, t) for t in (-0.25, 0.25, -0.3, 0.3)))


class HexPicture(NamedTuple):
    pos: tuple[int, int]  # top-left position on the map, final size
    pic: Image.Image  # RGB
    mask: Image.Image  # L: the hex
    short: str | None  # the abbreviation the location name is written as
    name_px: float | None  # the location name's letter size, picture pixels (None: no name written)


def _letters(i: int) -> str:
    return chr(65 + i) if i < 26 else chr(64 + i // 26) + chr(65 + i % 26)


def _axis_label(kind: str, v: int) -> str:
    return _letters(v) if kind == "letter" else str(v + 1)


@cache
def _layout(title: str):
    """Hex size, picture size and hex centres for a title's map (at SS scale; `title` as map_data takes it)."""
    d = map_data(title)
    m = d["map"]
    layout, axes = m["layout"], m["axes"]
    xy = {h["coord"]: (h["x"], h["y"]) for h in m["hexes"]}
    xs = [x for x, _ in xy.values()]
    ys = [y for _, y in xy.values()]
    x0, y0 = min(xs), min(ys)
    if layout == "flat":
        w_units, h_units = 1.5 * (max(xs) - x0) + 2, SQ3 / 2 * (max(ys) - y0) + SQ3
    else:
        w_units, h_units = SQ3 / 2 * (max(xs) - x0) + SQ3, 1.5 * (max(ys) - y0) + 2
    margin_units = 0.5
    r = min(MAX_R, LONG_SIDE / (max(w_units, h_units) + 2 * margin_units))
    R = r * SS
    margin = margin_units * R
    # hexgeo.center puts the first hex centre at (R, R); shift so the bounding box starts at the margin
    off_x = margin + (R * SQ3 / 2 - R if layout == "pointy" else 0)
    off_y = margin + (R * SQ3 / 2 - R if layout == "flat" else 0)
    centres = {}
    for coord, (x, y) in xy.items():
        cx, cy = hexgeo.center(x, y, x0, y0, layout, R)
        centres[coord] = (cx + off_x, cy + off_y)
    width = int(round(w_units * R + 2 * margin))
    height = int(round(h_units * R + 2 * margin))
    width -= width % SS
    height -= height % SS
    labels = []  # (text, x, y) coordinate labels on the margins
    fsize = int(0.3 * R)
    if layout == "pointy":
        col_px = {x: hexgeo.center(x, 0, x0, y0, layout, R)[0] + off_x for x in set(xs)}
        row_py = {y: hexgeo.center(x0, y, x0, y0, layout, R)[1] + off_y for y in set(ys)}
    else:
        col_px = {x: hexgeo.center(x, 0, x0, y0, layout, R)[0] + off_x for x in set(xs)}
        row_py = {y: hexgeo.center(x0, y, x0, y0, layout, R)[1] + off_y for y in set(ys)}
    for x, px in col_px.items():
        text = _axis_label(axes["x"], x)
        labels += [(text, px, margin / 2), (text, px, height - margin / 2)]
    for y, py in row_py.items():
        text = _axis_label(axes["y"], y)
        labels += [(text, margin / 2, py), (text, width - margin / 2, py)]
    hexes = {h["coord"]: h for h in m["hexes"]}
    return layout, R, width, height, centres, labels, fsize, hexes


class _Hex:
    """Geometry of one hex: directions, edge points, rings of spots."""

    def __init__(self, cx: float, cy: float, R: float, layout: str):
        self.cx, self.cy, self.R, self.layout = cx, cy, R, layout

    def dir(self, pos: float) -> tuple[float, float]:
        a = math.radians(60 * pos + (30 if self.layout == "pointy" else 0))
        return -math.sin(a), math.cos(a)

    def at(self, pos: float, dist: float) -> tuple[float, float]:
        dx, dy = self.dir(pos)
        return self.cx + dx * dist * self.R, self.cy + dy * dist * self.R

    def edge_point(self, edge: int, lane: tuple[int, int] | None = None, track_w: float = 0):
        x, y = self.at(edge, SQ3 / 2)
        if lane:
            width, index = lane
            dx, dy = self.dir(edge)
            off = (index - (width - 1) / 2) * track_w * 1.7
            x, y = x - dy * off, y + dx * off
        return x, y

    def ring(self, dist: float, steps: int = 12):
        return [self.at(i * 6 / steps, dist) for i in range(steps)]


def _bezier(points, n: int = 14):
    if len(points) == 2:
        return list(points)
    out = []
    for i in range(n + 1):
        t = i / n
        if len(points) == 3:
            (x0, y0), (x1, y1), (x2, y2) = points
            u = 1 - t
            out.append((u * u * x0 + 2 * u * t * x1 + t * t * x2, u * u * y0 + 2 * u * t * y1 + t * t * y2))
        else:
            (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points
            u = 1 - t
            out.append((u ** 3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t ** 3 * x3,
                        u ** 3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t ** 3 * y3))
    return out


def _edge_curve(h: _Hex, a: int, b: int, lane_a=None, lane_b=None, track_w: float = 0):
    """Track between two edges: straight, gentle (radius 1.5R) or sharp (radius R/2) arc, as a Bézier."""
    pa, pb = h.edge_point(a, lane_a, track_w), h.edge_point(b, lane_b, track_w)
    diff = (b - a) % 6
    if diff == 3:
        return [pa, pb]
    if diff in (1, 5):
        k = 4 / 3 * math.tan(math.radians(30)) * 0.5 * h.R
    else:
        k = 4 / 3 * math.tan(math.radians(15)) * 1.5 * h.R
    da, db = h.dir(a), h.dir(b)
    return _bezier([pa, (pa[0] - da[0] * k, pa[1] - da[1] * k), (pb[0] - db[0] * k, pb[1] - db[1] * k), pb])


def _revenue_values(rev) -> list[tuple[str, int]]:
    if isinstance(rev, dict):
        return list(rev.items())
    return [("", int(rev or 0))]


class MapPainter:
    def __init__(self, view: dict):
        self.view = view
        self.title = view["title"]
        self.map = map_of(view)  # the title's map, or one changed by optional rules
        (self.layout, self.R, self.width, self.height, self.centres, self.labels, self.fsize,
         self.hexes) = _layout(self.map)
        R = self.R
        self.track_w = max(3, int(0.085 * R))
        self.city_r = 0.25 * R
        self.line_w = max(1, int(0.022 * R))
        self.origin = (0.0, 0.0)  # SS-scale position of self.img's top-left corner on the whole map
        self.img = self.draw = None

    def _canvas(self, size, origin, mode="RGB", fill=C.BACKGROUND):
        self.img = Image.new(mode, size, fill)
        self.draw = ImageDraw.Draw(self.img)
        self.origin = origin
        self.written = []  # (text, letter size in the picture's pixels) of what is written on the canvas
        self.covered = 0.0  # how much of the track, stops and revenues what is written on the last hex covers
        self.name_covers = 0.0  # ... of which its location name covers (where nothing else would do)
        self.short = None  # the abbreviation the last hex's location name is written as
        self.name_px = None  # ... and its letter size, picture pixels

    def centre(self, coord: str) -> tuple[float, float]:
        x, y = self.centres[coord]
        return x - self.origin[0], y - self.origin[1]

    # -- text helpers ---------------------------------------------------------------------------
    def text(self, xy, s: str, size: float, fill=C.BLACK, style="bold", stroke=0, stroke_fill=C.WHITE, max_w=None):
        size = int(size)
        f = font(size, style)
        if max_w:
            while size > 8 and self.draw.textlength(s, font=f) > max_w:
                size -= 1
                f = font(size, style)
        self.draw.text(xy, s, font=f, fill=fill, anchor="mm", stroke_width=stroke, stroke_fill=stroke_fill)
        self.written.append((s, size / SS))

    def circle(self, x, y, r, fill, outline=C.BLACK, width=None):
        self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=outline,
                          width=self.line_w if width is None else width)

    # -- whole picture --------------------------------------------------------------------------
    def paint(self, routes=None, caption: str | None = None) -> Image.Image:
        """The map at its final size: the cached starting map with the changed hexes pasted on it, the names
        too small for their hexes in callouts beside them where there is room."""
        static = _static(self.map)
        img = static.base.copy()
        start = static.keys
        names = dict(static.names)  # (abbreviation or None, letter size) of each hex's written name
        keys = {}
        for coord, hv in self.view["hexes"].items():
            if coord not in self.centres:
                continue
            keys[coord] = key = _hex_key(hv)
            if start.get(coord) == key:
                continue
            pic = _hex_picture(self.map, coord, key)
            self.paste_hex(img, static, pic)
            names[coord] = (pic.short, pic.name_px)
        self.callouts = self.place_callouts(img, static, keys, names)
        self.legend = {short: self.hexes[coord]["location_name"] for coord, (short, _) in names.items() if short}
        img = self.name_legend(img, self.legend)
        if routes:
            self.paint_routes(img, routes)
        if routes or caption:
            img = self.route_legend(img, routes or [], caption)
        return img

    @staticmethod
    def paste_hex(img: Image.Image, static: _Static, pic: HexPicture) -> None:
        img.paste(pic.pic, pic.pos, pic.mask)
        box = (pic.pos[0], pic.pos[1], pic.pos[0] + pic.pic.width, pic.pos[1] + pic.pic.height)
        edges = static.edges.crop(box)
        img.paste(edges, box, edges)

    def place_callouts(self, img: Image.Image, static: _Static, keys: dict, names: dict) -> list[dict]:
        """Each name written smaller than CALLOUT_BELOW goes, where it finds room, in a callout (a white label
        pointing at its hex) over an empty stretch of a neighbouring hex or of the margin, and its hex is drawn
        without it. `names` is updated (a name written in full needs no legend). The callouts, as
        {coord, lines, px, box}."""
        out = []
        for coord in sorted(names, key=lambda c: self.centres[c][::-1]):
            short, px = names[coord]
            if px is None or px >= (SHORT_CALLOUT_BELOW if short else CALLOUT_BELOW):
                continue
            name = self.hexes[coord]["location_name"]
            found = self.callout_place(img, coord, name, short, px)
            if not found:
                continue
            lines, size, box, pointer = found
            self.paste_hex(img, static, _hex_picture(self.map, coord, keys[coord], named=False))
            self.draw_callout(img, lines, size, box, pointer)
            names[coord] = (None if lines != [short] else short, None)
            out.append({"coord": coord, "lines": lines, "px": size, "box": box})
        return out

    def callout_place(self, img: Image.Image, coord: str, name: str, short: str | None, written: float = 0):
        """(lines, letter size, box, pointer) of the first callout for the hex's name that lies wholly on an
        empty stretch (one colour: nothing drawn there) beyond one of its edges, its pointer meeting the edge
        where nothing is drawn inside the hex either, else None; one over the margin is taken first. Tried:
        the name on one line, then on two, then its abbreviation, each at CALLOUT_SIZES and at CALLOUT_PX (the
        abbreviation only where that is SHORT_CALLOUT_GAIN times its size `written` in the hex at least)."""
        R = self.R / SS
        cx, cy = (v / SS for v in self.centres[coord])
        corners = hexgeo.corners(cx, cy, self.layout, R)
        edges = []
        for k in range(6):
            (ax, ay), (bx, by) = corners[k], corners[(k + 1) % 6]
            mx, my = (ax + bx) / 2, (ay + by) / 2
            ux, uy = (mx - cx) / (SQ3 / 2 * R), (my - cy) / (SQ3 / 2 * R)
            edges.append((mx, my, ux, uy))
        words = name.split(" ")
        two = [[" ".join(words[:k]), " ".join(words[k:])] for k in range(1, len(words)) if words[k - 1] not in ("&", "/")]
        texts = [[name]] + sorted(two, key=lambda lines: max(map(len, lines)))  # the evenest two lines first
        if short:
            texts.append([short])
        pad, tip = 0.3, 0.05 * R
        background = tuple(C.BACKGROUND)
        sizes = sorted({max(CALLOUT_PX, int(share * R)) for share in CALLOUT_SIZES} | {CALLOUT_PX}, reverse=True)
        for lines in texts:
            for size in sizes:
                if lines == [short] and size < SHORT_CALLOUT_GAIN * written:
                    continue
                f = font(size, "bold")
                w = max(f.getlength(line) for line in lines) + 2 * pad * size
                h = (len(lines) * 1.12 + 2 * pad - 0.12) * size
                found = []
                for gap, t in CALLOUT_SPOTS:
                    for mx, my, ux, uy in edges:
                        ex, ey = mx - uy * t * R, my + ux * t * R  # a point of the edge (its direction: (-uy, ux))
                        reach = abs(ux) * w / 2 + abs(uy) * h / 2
                        px, py = ex + ux * (gap * R + reach), ey + uy * (gap * R + reach)
                        box = (px - w / 2, py - h / 2, px + w / 2, py + h / 2)
                        tx, ty = ex + ux * tip, ey + uy * tip
                        qx = min(max(tx, box[0] + 0.3 * size), box[2] - 0.3 * size)
                        qy = min(max(ty, box[1] + 0.3 * size), box[3] - 0.3 * size)
                        colour = _empty(img, _grow(box, 3), _grow((min(tx, qx), min(ty, qy), max(tx, qx), max(ty, qy)), 1))
                        ix, iy = ex - ux * 0.12 * R, ey - uy * 0.12 * R  # no track meeting the tip inside the hex
                        if colour and not _empty(img, _grow((ix, iy, ix, iy), 0.06 * R)):
                            continue
                        if colour == background:  # the margin: naming no other hex, taken first
                            return lines, size, box, ((tx, ty), (qx, qy))
                        if colour:
                            found.append((lines, size, box, ((tx, ty), (qx, qy))))
                if found:
                    return found[0]
        return None

    def draw_callout(self, img: Image.Image, lines: list[str], size: int, box, pointer) -> None:
        d = ImageDraw.Draw(img)
        f = font(size, "bold")
        (tx, ty), (qx, qy) = pointer
        dx, dy = qx - tx, qy - ty
        n = math.hypot(dx, dy) or 1
        half = 0.28 * size
        a = (qx - dy / n * half, qy + dx / n * half)
        b = (qx + dy / n * half, qy - dx / n * half)
        width = max(1, round(size / 10))
        d.rounded_rectangle(box, radius=0.35 * size, fill=C.WHITE, outline=C.BLACK, width=width)
        d.polygon([(tx, ty), a, b], fill=C.WHITE)
        d.line([a, (tx, ty), b], fill=C.BLACK, width=width)
        x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        for k, line in enumerate(lines):
            d.text((x, y + (k - (len(lines) - 1) / 2) * 1.12 * size), line, font=f, fill=C.BLACK, anchor="mm")

    def hex_picture(self, coord: str, hv: dict, named: bool = True) -> HexPicture:
        """One hex at the final size, with its location name unless not `named` (written in a callout)."""
        cx, cy = self.centres[coord]
        R = self.R
        half_w = (SQ3 / 2 * R if self.layout == "pointy" else R) + 2 * SS
        half_h = (R if self.layout == "pointy" else SQ3 / 2 * R) + 2 * SS
        x0, y0 = math.floor((cx - half_w) / SS) * SS, math.floor((cy - half_h) / SS) * SS
        x1, y1 = math.ceil((cx + half_w) / SS) * SS, math.ceil((cy + half_h) / SS) * SS
        self._canvas((x1 - x0, y1 - y0), (x0, y0))
        lx, ly = self.centre(coord)
        corners = hexgeo.corners(lx, ly, self.layout, R)
        fill = C.rgb(hv.get("color") or self.hexes[coord]["color"], C.TILE["white"])
        self.draw.polygon(corners, fill=fill)
        self.paint_hex(coord, hv, named)
        mask = Image.new("L", self.img.size, 0)
        ImageDraw.Draw(mask).polygon(corners, fill=255)
        pic = self.img.reduce(SS) if SS > 1 else self.img
        mask = mask.reduce(SS) if SS > 1 else mask
        return HexPicture((x0 // SS, y0 // SS), pic, mask, self.short, self.name_px)

    def paint_background(self) -> tuple[Image.Image, Image.Image]:
        """(starting map without hexes but with coordinate labels, RGBA outlines/borders layer), final size."""
        self._canvas((self.width, self.height), (0, 0), "RGBA", (0, 0, 0, 0))
        self.paint_outlines()
        edges = self.img.convert("RGBa").reduce(SS).convert("RGBA") if SS > 1 else self.img
        base = Image.new("RGB", (self.width // SS, self.height // SS), C.BACKGROUND)
        d = ImageDraw.Draw(base)
        f = font(int(self.fsize / SS), "bold")
        for text, x, y in self.labels:
            d.text((x / SS, y / SS), text, font=f, fill=(60, 60, 60), anchor="mm")
        return base, edges

    def paint_outlines(self):
        R, d = self.R, self.draw
        for coord in self.view["hexes"]:
            if coord not in self.centres:
                continue
            cx, cy = self.centres[coord]
            pts = hexgeo.corners(cx, cy, self.layout, R)
            hdata = self.hexes[coord]
            hv = self.view["hexes"][coord]
            tdef, printed = tile_def(self.map, coord, hv["tile"])
            borders = {e: (t, cost) for e, t, cost in parse_borders(hdata)}
            for edge in range(6):
                # corner indices around an edge: edge e lies between corners (e+1)%6 and (e+2)%6 in
                # hexgeo.corners order (which starts at angle 0 / 30 degrees, clockwise on screen)
                a, b = pts[(edge + 1) % 6], pts[(edge + 2) % 6]
                kind = borders.get(edge)
                if kind and kind[0] is None:
                    continue  # joins two halves of a big offboard
                d.line([a, b], fill=C.OUTLINE, width=self.line_w)
            for edge, (kind, cost) in borders.items():
                if kind is None:
                    continue
                a, b = pts[(edge + 1) % 6], pts[(edge + 2) % 6]
                colour = {"impassable": (160, 0, 0), "water": (30, 100, 220), "mountain": (120, 70, 20)}.get(
                    kind, (160, 0, 0))
                d.line([a, b], fill=colour, width=int(0.07 * R))
                if cost:
                    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
                    self.text((mx + (cx - mx) * 0.25, my + (cy - my) * 0.25), str(cost), 0.16 * R,
                              fill=colour, stroke=2)

    def _stop_towards(self, coord: str, other: str) -> tuple[float, float]:
        """Where a route leaving `coord` towards the neighbour `other` starts: the stop joined to that edge."""
        cx, cy = self.centres[coord]
        h = _Hex(cx, cy, self.R, self.layout)
        ox, oy = self.centres[other]
        mid = ((cx + ox) / 2, (cy + oy) / 2)
        edge = min(range(6), key=lambda e: math.dist(h.edge_point(e), mid))
        hv = self.view["hexes"].get(coord)
        if not hv:
            return cx, cy
        tdef, printed = tile_def(self.map, coord, hv["tile"])
        rot = 0 if printed else int(hv.get("rotation", 0))
        positions = self.node_positions(h, tdef, rot)
        stops = [i for i, n in enumerate(tdef.nodes) if n.kind in ("city", "town", "halt", "offboard")]
        if not stops:
            return cx, cy
        joined = [i for i in stops for p in tdef.paths
                  if {("node", i), ("edge", (edge - rot) % 6)} == {p.a, p.b}]
        best = joined[0] if joined else min(stops, key=lambda i: math.dist(positions[i], h.edge_point(edge)))
        node = tdef.nodes[best]
        if node.kind != "city":
            return positions[best]
        return self._rim(node, positions[best], h.edge_point(edge))

    def _rim(self, n: Node, centre: tuple[float, float], towards: tuple[float, float]) -> tuple[float, float]:
        """Where a line from a city's centre towards `towards` leaves the city's slots: a route drawn from
        there leaves the station tokens' names readable."""
        slots, r = self.slot_centres(n, centre)
        dx, dy = towards[0] - centre[0], towards[1] - centre[1]
        norm = math.hypot(dx, dy) or 1
        dx, dy = dx / norm, dy / norm

        def inside(t: float) -> bool:
            x, y = centre[0] + dx * t, centre[1] + dy * t
            if len(slots) == 2:  # a pill: the segment between the two slots, widened by r
                (ax, ay), (bx, by) = slots
                k = max(0.0, min(1.0, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)))
                return math.dist((x, y), (ax + k * (bx - ax), ay + k * (by - ay))) <= r
            return any(math.dist((x, y), c) <= r for c in slots)

        t = 0.0
        while t < norm and inside(t):
            t += r / 16
        return centre[0] + dx * t, centre[1] + dy * t

    def route_points(self, chunk: list[str]) -> list[tuple[float, float]]:
        """A connection through hexes: from its first stop, over the shared edges' middles, to its last stop
        (track inside one hex, `F2 0.1` between its stops 0 and 1 in 1860: that hex)."""
        chunk = [c.split()[0] for c in chunk if c.split() and c.split()[0] in self.centres]
        if len(chunk) < 2:
            return [self.centres[c] for c in chunk]
        pts = [self._stop_towards(chunk[0], chunk[1])]
        for a, b in zip(chunk, chunk[1:], strict=False):
            (ax, ay), (bx, by) = self.centres[a], self.centres[b]
            pts.append(((ax + bx) / 2, (ay + by) / 2))
        pts.append(self._stop_towards(chunk[-1], chunk[-2]))
        return pts

    def paint_routes(self, img: Image.Image, routes) -> None:
        """Overlay a run on `img` (final size): one coloured line per train along its connections."""
        R = self.R
        paths = [[self.route_points(chunk) for chunk in route.get("hexes_path", [])] for route in routes]
        pts_all = [p for chunks in paths for pts in chunks for p in pts]
        if not pts_all:
            return
        pad = 0.3 * R
        x0 = max(0, math.floor((min(x for x, _ in pts_all) - pad) / SS) * SS)
        y0 = max(0, math.floor((min(y for _, y in pts_all) - pad) / SS) * SS)
        x1 = min(self.width, math.ceil((max(x for x, _ in pts_all) + pad) / SS) * SS)
        y1 = min(self.height, math.ceil((max(y for _, y in pts_all) + pad) / SS) * SS)
        self._canvas((x1 - x0, y1 - y0), (x0, y0), "RGBA", (0, 0, 0, 0))
        od = self.draw
        for i, chunks in enumerate(paths):
            colour = C.ROUTES[i % len(C.ROUTES)]
            off = (i - (len(routes) - 1) / 2) * 0.09 * R
            for pts in chunks:
                pts = [(x - x0 + off, y - y0 + off) for x, y in pts]
                if not pts:
                    continue
                if len(pts) >= 2:
                    od.line(pts, fill=(*colour, 200), width=int(0.1 * R), joint="curve")
                for x, y in (pts[0], pts[-1]):
                    r = 0.08 * R
                    od.ellipse((x - r, y - r, x + r, y + r), fill=(*colour, 230), outline=(255, 255, 255, 255),
                               width=max(2, self.line_w))
        layer = self.img.convert("RGBa").reduce(SS).convert("RGBA") if SS > 1 else self.img
        img.paste(layer, (x0 // SS, y0 // SS), layer)

    def route_legend(self, img: Image.Image, routes, caption: str | None) -> Image.Image:
        """The picture with a band below it naming each train's colour and revenue."""
        size = max(14, int(0.2 * self.R / SS))
        f, fb = font(size), font(size, "bold")
        band = int(size * 2.2)
        out = Image.new("RGB", (img.width, img.height + band), C.BACKGROUND)
        out.paste(img, (0, 0))
        d = ImageDraw.Draw(out)
        y = img.height + band / 2 - size * 0.3
        x = size
        if caption:
            d.text((x, y), caption, font=fb, fill=C.BLACK, anchor="lm")
            x += d.textlength(caption, font=fb) + size
        for i, route in enumerate(routes):
            colour = C.ROUTES[i % len(C.ROUTES)]
            d.rounded_rectangle((x, y - size * 0.35, x + size * 1.6, y + size * 0.35), radius=size * 0.35,
                                fill=colour)
            x += size * 2
            label = str(route.get("train") or _("train {n}", n=i + 1))
            d.text((x, y), label, font=f, fill=C.BLACK, anchor="lm")
            x += d.textlength(label, font=f) + size * 1.2
        return out

    # -- one hex --------------------------------------------------------------------------------
    def paint_hex(self, coord: str, hv: dict, named: bool = True):
        """Track, stops, then everything written on the hex, placed by a plan of its free regions (_Plan)."""
        R, d = self.R, self.draw
        cx, cy = self.centre(coord)
        h = _Hex(cx, cy, R, self.layout)
        hdata = self.hexes[coord]
        tdef, printed = tile_def(self.map, coord, hv["tile"])
        rot = 0 if printed else int(hv.get("rotation", 0))
        colour_name = hv.get("color") or hdata["color"]
        fill = C.rgb(colour_name, C.TILE["white"])
        plan = _Plan(h, self.layout)

        positions = self.node_positions(h, tdef, rot)
        tracks = self.track_lines(h, tdef, rot, positions, plan)
        for pts in tracks:
            d.line(pts, fill=C.TRACK, width=self.track_w, joint="curve")
            plan.line(pts, self.track_w + 0.03 * R)

        # cities, towns
        cities = hv.get("cities") or []
        tokened = {t for c in cities for t in c.get("tokens") or [] if t}
        # a hex-level reservation (any city of the hex, e.g. ERIE on 1830's E11) is reported in a free slot
        # of every city: draw it once for the hex, not as one reserved slot per city
        held = [{r for r, t in zip(c.get("reserved") or [], c.get("tokens") or [], strict=False) if r and not t}
                for c in cities]
        hex_level = sorted({r for k in held for r in k if sum(r in k2 for k2 in held) > 1} - tokened)
        skip = tokened | set(hex_level)
        ci = 0
        for i, (n, p) in enumerate(zip(tdef.nodes, positions, strict=True)):
            if n.kind == "city":
                info = cities[ci] if ci < len(cities) else {}
                centres, r = self.paint_city(h, n, p, info, skip)
                for x, y in centres:
                    plan.mark([("circle", x, y, r + 0.03 * R)])
                ci += 1
            elif n.kind in ("town", "halt"):
                plan.polygon(self.paint_town(h, n, p, i))
            elif n.kind == "offboard" and not tdef.paths:
                plan.mark([("circle", *p, 0.05 * R)])

        # what is written on the hex: each item picks the free candidate it likes best, in this order; the
        # location name needs the most room: it goes last, or first at one of its few best free places,
        # whichever covers less and is preferred
        items = [self.hex_reservation_item(h, sym) for sym in hex_level]
        items += [self.blocker_item(h, sym) for sym in hv.get("blocked_by") or []]
        items += [self.marker_item(h, kind) for kind in hv.get("markers") or []]
        items += self.revenue_items(h, tdef, positions, cities)
        items += [self.label_item(h, label, fill) for label in tdef.labels]
        # terrain (printed tiles keep theirs; a laid tile has none)
        items += [self.terrain_item(h, cost, terrains, empty=not tdef.nodes and not tdef.paths)
                  for cost, terrains in tdef.upgrades]
        items += [self.icon_item(h, icon) for icon in tdef.icons]
        name = hdata.get("location_name") if named else None
        chosen, self.covered, _prefs = plan.place_all(items)
        if name:
            chosen = self.place_name(plan, h, items, name, fill)
        for draw in chosen:
            draw()

    def place_name(self, plan: _Plan, h: _Hex, items: list, name: str, fill) -> list:
        """The draws of the hex's items and its location name: the name at a readable size where that covers
        nothing more than the items alone do, else its abbreviation (named under the map), else the name or
        else its abbreviation at any size, where that covers nothing more; failing all, whichever covers least.
        The location name needs the most room: it goes last, or first at one of its few best free places,
        whichever covers less and is preferred."""
        alone = self.covered

        def best(cands):
            options = [plan.place_all(items + [cands])]
            options += [plan.place_all([[c]] + items) for c in plan.free_choices(cands, h)]
            return min(options, key=lambda p: p[1:])

        short = _abbreviations(self.map).get(name)
        tries = [(name, NAME_SIZES[:READABLE]), (short, NAME_SIZES[:ABBREVIATED]), (name, NAME_SIZES),
                 (short, NAME_SIZES)]  # each where it covers nothing more; else the one covering least
        options = []
        for text, sizes in tries:
            if not text:
                continue
            chosen, covered, _prefs = best(self.name_item(h, text, fill, sizes))
            options.append((covered, len(options), chosen, text))
            if covered <= alone:
                break
        covered, _, chosen, text = min(options)
        self.covered, self.name_covers = covered, covered - alone
        self.short = text if text != name else None
        return chosen

    def name_legend(self, img: Image.Image, names: dict[str, str]) -> Image.Image:
        """The picture with a band below it naming each abbreviated location (`Alb. Albany`), in lines as wide
        as the map."""
        if not names:
            return img
        size = max(14, int(0.2 * self.R / SS))
        f, fb = font(size), font(size, "bold")
        gap, line_h = size * 1.5, int(size * 1.5)
        lines: list[list[tuple[float, str, str]]] = [[]]
        x = size
        for short, name in sorted(names.items()):
            w = fb.getlength(short) + size * 0.4 + f.getlength(name)
            if lines[-1] and x + w > img.width - size:
                lines.append([])
                x = size
            lines[-1].append((x, short, name))
            x += w + gap
        out = Image.new("RGB", (img.width, img.height + len(lines) * line_h + size // 2), C.BACKGROUND)
        out.paste(img, (0, 0))
        d = ImageDraw.Draw(out)
        for k, line in enumerate(lines):
            y = img.height + size // 2 + k * line_h + line_h / 2
            for x, short, name in line:
                d.text((x, y), short, font=fb, fill=C.BLACK, anchor="lm")
                d.text((x + fb.getlength(short) + size * 0.4, y), name, font=f, fill=C.BLACK, anchor="lm")
        return out

    def hex_reservation_item(self, h: _Hex, sym: str):
        """A home that may go in any city of the hex: a pill in the corporation's colours with "home"."""
        R = self.R
        f = font(int(0.15 * R), "condensed")
        text = f"{sym} home"
        half_w = self.draw.textlength(text, font=f) / 2 + 0.06 * R
        half_h = 0.12 * R
        fill, colour = C.entity(self.title, sym)

        def draw(x, y):
            self.draw.rounded_rectangle((x - half_w, y - half_h, x + half_w, y + half_h), radius=half_h, fill=fill,
                                        outline=C.BLACK, width=max(2, self.line_w))
            self.draw.text((x, y), text, font=f, fill=colour, anchor="mm")

        spots = [(dx, dy) for dy in (0, 0.15, -0.15, 0.3, -0.3, 0.45, -0.45) for dx in (0, -0.15, 0.15, -0.3, 0.3)]
        return [(0.05 * math.hypot(dx, dy), [_rect(h.cx + dx * R, h.cy + dy * R, half_w, half_h, 0.02 * R)],
                 partial(draw, h.cx + dx * R, h.cy + dy * R)) for dx, dy in spots]

    def blocker_item(self, h: _Hex, sym: str):
        R = self.R
        w, hh = 0.22 * R, 0.12 * R

        def draw(x, y):
            self.draw.rounded_rectangle((x - w, y - hh, x + w, y + hh), radius=hh / 2, fill=(40, 40, 40),
                                        outline=(200, 0, 0), width=max(2, self.line_w))
            self.text((x, y), sym, 0.15 * R, fill=C.WHITE, style="condensed", max_w=1.8 * w)

        spots = h.ring(0.55, 12) + [(h.cx, h.cy)] + h.ring(0.35, 12)
        return [(0.001 * k, [_rect(x, y, w, hh, 0.02 * R)], partial(draw, x, y)) for k, (x, y) in enumerate(spots)]

    def marker_item(self, h: _Hex, kind: str):
        """A title's marker on a hex (1817's mine, bridge, ranch): a large disc in its colour with its word,
        readable on a phone."""
        R = self.R
        fill, ink, word = MARKERS.get(kind, ((90, 90, 90), C.WHITE, kind))
        r = 0.26 * R

        def draw(x, y):
            self.circle(x, y, r, fill, outline=(255, 215, 0), width=max(3, 2 * self.line_w))
            self.text((x, y), word, 0.16 * R, fill=ink, style="condensed", max_w=1.85 * r)

        spots = h.ring(0.5, 12) + h.ring(0.3, 12) + [(h.cx, h.cy)]
        return [(0.001 * k, [("circle", x, y, r + 0.02 * R)], partial(draw, x, y)) for k, (x, y) in enumerate(spots)]

    def revenue_items(self, h: _Hex, tdef: TileDef, positions, cities: list[dict]):
        R = self.R
        stops = [(i, n) for i, n in enumerate(tdef.nodes) if n.kind in ("city", "town", "offboard", "halt")]
        revenues = []
        ci = 0
        for i, n in stops:
            rev = n.revenue
            if n.kind == "city":
                if ci < len(cities) and "revenue" in cities[ci]:
                    rev = cities[ci]["revenue"]
                ci += 1
            if n.hide or not rev:
                continue
            revenues.append((rev, positions[i]))
        distinct = []
        for rev, p in revenues:
            if rev not in [r for r, _ in distinct]:
                distinct.append((rev, p))
        items = []
        r = 0.17 * R
        for rev, p in distinct:
            if isinstance(rev, dict):
                items.append(self.phase_revenue_item(h, rev))
                continue

            def draw(x, y, rev=rev):
                self.circle(x, y, r, fill=C.WHITE, outline=C.BLACK)
                self.text((x, y), str(rev), 0.19 * R if rev < 100 else 0.16 * R, fill=C.BLACK)

            cands = []
            for k, (x, y) in enumerate(h.ring(0.62, 12) + h.ring(0.4, 12)):
                pref = 0.001 * k + (0.25 * math.hypot(x - p[0], y - p[1]) / R if len(distinct) > 1 else 0)
                cands.append((pref, [("circle", x, y, r + 0.03 * R)], partial(draw, x, y)))
            items.append(cands)
        return items

    def phase_revenue_item(self, h: _Hex, rev: dict):
        R = self.R
        items = list(rev.items())
        bw, bh = 0.3 * R, 0.24 * R
        total = bw * len(items)

        def draw(x, y):
            x0 = x - total / 2
            for k, (colour, value) in enumerate(items):
                box = (x0 + k * bw, y - bh / 2, x0 + (k + 1) * bw, y + bh / 2)
                fill = C.PHASE.get(colour, C.TILE["white"])
                self.draw.rectangle(box, fill=fill, outline=C.BLACK, width=self.line_w)
                self.text(((box[0] + box[2]) / 2, y), str(value), 0.16 * R, fill=C.text_on(fill))

        spots = [(dx, dy) for dy in (0, -0.3, 0.3, 0.45, -0.45, -0.6, 0.6) for dx in (0, -0.2, 0.2, -0.35, 0.35)]
        return [(0.02 * math.hypot(dx, dy), [_rect(h.cx + dx * R, h.cy + dy * R, total / 2, bh / 2, 0.02 * R)],
                 partial(draw, h.cx + dx * R, h.cy + dy * R)) for dx, dy in spots]

    def label_item(self, h: _Hex, label: str, fill):
        R = self.R
        spots = h.ring(0.6) + h.ring(0.52, 12) + h.ring(0.45, 6) + h.ring(0.64, 12)
        cands = []
        for extra, size in ((0, 0.24 * R), (0.05, 0.2 * R)):  # smaller in a crowded hex rather than over a token
            f = font(int(size), "bold")
            half_w = self.draw.textlength(label, font=f) / 2
            half_h = 0.37 * size

            def draw(x, y, size=size):
                self.text((x, y), label, size, fill=C.BLACK, stroke=max(2, int(0.02 * R)), stroke_fill=fill)

            cands += [(extra + 0.001 * k, [_rect(x, y, half_w, half_h, 0.04 * R)], partial(draw, x, y))
                      for k, (x, y) in enumerate(spots)]
        return cands

    def terrain_item(self, h: _Hex, cost: int, terrains: list[str], empty: bool):
        R = self.R
        kind = terrains[0] if terrains else "mountain"
        text = company_money(self.title, cost)
        tw = self.draw.textlength(text, font=font(int(0.16 * R), "bold")) / 2
        # (icon top, icon bottom, text centre) relative to the spot's y
        top, bottom, ty = {"mountain": (-0.2, 0.1, 0.22), "water": (-0.13, 0.07, 0.16),
                           "lake": (-0.13, 0.07, 0.16)}.get(kind, (-0.17, 0.07, 0.17))

        def draw(x, y):
            d, s = self.draw, 0.17 * R
            if kind == "mountain":
                d.polygon([(x - s, y + 0.1 * R), (x + s, y + 0.1 * R), (x, y - 0.2 * R)], fill=(140, 90, 50),
                          outline=C.BLACK)
                d.polygon([(x - 0.055 * R, y - 0.1 * R), (x + 0.055 * R, y - 0.1 * R), (x, y - 0.2 * R)],
                          fill=C.WHITE)
            elif kind in ("water", "lake"):
                for k in range(2):
                    yy = y - 0.1 * R + k * 0.1 * R
                    pts = [(x - s + i * s / 4, yy + (0.04 * R if i % 2 else -0.02 * R)) for i in range(9)]
                    d.line(pts, fill=(20, 90, 210), width=max(2, int(0.04 * R)), joint="curve")
            else:
                colour = {"swamp": (60, 120, 60), "desert": (220, 190, 110)}.get(kind, (120, 120, 120))
                self.circle(x, y - 0.05 * R, 0.12 * R, fill=colour, outline=C.BLACK)
                self.text((x, y - 0.05 * R), kind[:1].upper(), 0.14 * R, fill=C.text_on(colour))
            self.text((x, y + ty * R), text, 0.16 * R, fill=C.BLACK, style="bold")

        spots = ([(h.cx, h.cy)] if empty else []) + h.ring(0.5, 12) + h.ring(0.42, 12) + h.ring(0.58, 12)
        spots += h.ring(0.3, 6) + [h.at(k / 4 + 1 / 8, 0.5) for k in range(24)]
        pad = 0.03 * R
        cands = []
        for k, (x, y) in enumerate(spots):
            y += 0.01 * R
            shapes = [(("rect", x - 0.18 * R - pad, y + top * R - pad, x + 0.18 * R + pad, y + bottom * R + pad)),
                      _rect(x, y + ty * R, tw, 0.07 * R, pad)]
            cands.append((0.001 * k, shapes, partial(draw, x, y)))
        return cands

    def icon_item(self, h: _Hex, icon: str):
        R = self.R

        def draw(x, y):
            self.circle(x, y, 0.12 * R, fill=(70, 70, 70), outline=C.BLACK)
            self.text((x, y), icon[:1].upper(), 0.15 * R, fill=C.WHITE)

        spots = h.ring(0.5) + [(h.cx, h.cy)] + h.ring(0.35, 12)
        return [(0.001 * k, [("circle", x, y, 0.14 * R)], partial(draw, x, y)) for k, (x, y) in enumerate(spots)]

    def name_item(self, h: _Hex, name: str, fill, sizes: tuple[float, ...] = NAME_SIZES):
        """Candidates for the location name: one line or wrapped, at the `sizes` (shares of the hex's radius,
        each a step less liked), anywhere in the hex."""
        R = self.R
        words = name.split(" ")
        wraps = [[name]]
        for k in range(1, len(words)):
            wraps.append([" ".join(words[:k]), " ".join(words[k:])])
        if len(words) >= 3:
            for a in range(1, len(words) - 1):
                for b in range(a + 1, len(words)):
                    wraps.append([" ".join(words[:a]), " ".join(words[a:b]), " ".join(words[b:])])
        # a line does not end with "&" or "/": it begins the next one
        wraps = [w for w in wraps if not any(line.endswith(("&", "/")) for line in w[:-1])] or wraps
        stroke = max(2, int(0.02 * R))
        text_colour = C.text_on(fill)

        def draw(x, y, lines, size, line_h):
            self.name_px = int(size) / SS
            for k, line in enumerate(lines):
                self.text((x, y + (k - (len(lines) - 1) / 2) * line_h), line, size, fill=text_colour, style="bold",
                          stroke=stroke, stroke_fill=fill)

        def cand(dx, dy, lines, size, line_h, halves, pen):
            x, y = h.cx + dx * R, h.cy + dy * R
            shapes = [_rect(x, y + (k - (len(lines) - 1) / 2) * line_h, hw, 0.38 * size, stroke)
                      for k, hw in enumerate(halves)]
            return (pen + abs(dy) * 0.05 + abs(dx) * 0.2, shapes, partial(draw, x, y, lines, size, line_h),
                    partial(near, dx, dy, lines, size, line_h, halves, pen))

        def near(dx, dy, *rest):  # a finer search around a spot that is not quite free
            return [cand(dx + ex, dy + ey, *rest) for ex in (-0.05, 0, 0.05) for ey in (-0.05, 0, 0.05)
                    if ex or ey]

        spots = [(dx, dy) for dy in (-0.6, -0.5, -0.4, -0.3, -0.2, 0.2, 0.3, 0.4, 0.5, 0.6, -0.1, 0, 0.1)
                 for dx in (0, -0.1, 0.1, -0.2, 0.2, -0.3, 0.3)]
        cands = []
        for step, share in enumerate(sizes):
            size = share * R
            f = font(int(size), "bold")
            line_h = size * 1.12
            for lines in wraps:
                pen = 0.03 * step + (0 if len(lines) == 1 else 0.01 if len(lines) == 2 else 0.04)
                halves = [self.draw.textlength(line, font=f) / 2 for line in lines]
                if max(halves) > 0.9 * R:
                    continue
                cands += [cand(dx, dy, lines, size, line_h, halves, pen) for dx, dy in spots]
        return cands

    def node_positions(self, h: _Hex, tdef: TileDef, rot: int) -> list[tuple[float, float]]:
        nodes = tdef.nodes
        exits: list[list[int]] = [[] for _ in nodes]
        for p in tdef.paths:
            for end, other in ((p.a, p.b), (p.b, p.a)):
                if end[0] == "node" and other[0] == "edge" and end[1] < len(nodes):
                    exits[end[1]].append((other[1] + rot) % 6)
        node_links = {i for p in tdef.paths if p.a[0] == "node" and p.b[0] == "node" for i in (p.a[1], p.b[1])}
        stops = [n for n in nodes if n.kind != "junction"]
        self.town_dirs = {}
        curves: dict[int, list[tuple[float, float]]] = {}  # through towns' tracks, edge to edge
        out: list[tuple[float, float] | None] = []
        for i, n in enumerate(nodes):
            if n.loc == "center" or (len(nodes) == 1 and n.kind != "town"):
                out.append((h.cx, h.cy))
            elif isinstance(n.loc, float):
                dist = 0.5 if n.kind in ("city", "offboard") else 0.58
                out.append(h.at(n.loc + rot, dist))
            elif n.kind in ("town", "halt") and len(exits[i]) == 2 and i not in node_links:
                curve = _edge_curve(h, *exits[i])
                if len(curve) == 2:
                    curve = [curve[0], ((curve[0][0] + curve[1][0]) / 2, (curve[0][1] + curve[1][1]) / 2), curve[1]]
                curves[i] = curve
                out.append(self._town_on(i, curve, len(curve) // 2))
            elif len(stops) == 1 or not exits[i]:
                out.append(None)
            else:
                sx = sum(h.dir(e)[0] for e in exits[i])
                sy = sum(h.dir(e)[1] for e in exits[i])
                norm = math.hypot(sx, sy)
                if norm < 1e-6:
                    out.append((h.cx, h.cy))
                else:
                    out.append((h.cx + sx / norm * 0.45 * h.R, h.cy + sy / norm * 0.45 * h.R))
        # two towns whose tracks cross (tile 56): each bar moves along its track, away from the crossing
        for i in curves:
            for j in curves:
                if i < j and math.dist(out[i], out[j]) < 0.3 * h.R:
                    for k, other in ((i, j), (j, i)):
                        c = curves[k]
                        at = max((len(c) // 4, len(c) - 1 - len(c) // 4), key=lambda m: math.dist(c[m], out[other]))
                        out[k] = self._town_on(k, c, at)
        # nodes without a position: centre if alone, else spread over free corners
        free = [i for i, p in enumerate(out) if p is None]
        if len(free) == 1 and len(stops) == 1:
            out[free[0]] = (h.cx, h.cy)
        else:
            spots = [1.5, 4.5, 3, 0] if self.layout == "flat" else [1, 4, 2.5, 5.5]
            taken = [p for p in out if p is not None]
            for i in free:
                best = max(spots, key=lambda s: min((math.hypot(h.at(s, 0.45)[0] - x, h.at(s, 0.45)[1] - y)
                                                     for x, y in taken), default=1e9))
                spots.remove(best)
                out[i] = h.at(best, 0.45)
                taken.append(out[i])
        # keep city circles apart
        for _k in range(3):
            for i in range(len(nodes)):
                for j in range(i + 1, len(nodes)):
                    if nodes[i].kind != "city" or nodes[j].kind != "city":
                        continue
                    (x1, y1), (x2, y2) = out[i], out[j]
                    dist = math.hypot(x2 - x1, y2 - y1)
                    need = 2.15 * self.city_r * max(1, min(nodes[i].slots, 2) * 0.9)
                    if dist < need:
                        if dist < 1e-6:
                            x2, y2, dist = x2 + 1, y2, 1
                        push = (need - dist) / 2
                        ux, uy = (x2 - x1) / dist, (y2 - y1) / dist
                        out[i] = (x1 - ux * push, y1 - uy * push)
                        out[j] = (x2 + ux * push, y2 + uy * push)
        return out  # type: ignore[return-value]

    def _town_on(self, index: int, curve: list[tuple[float, float]], m: int) -> tuple[float, float]:
        """A through town's place: point `m` of its track, its bar across the track there."""
        m = min(max(m, 1), len(curve) - 2)
        tx, ty = curve[m + 1][0] - curve[m - 1][0], curve[m + 1][1] - curve[m - 1][1]
        norm = math.hypot(tx, ty) or 1
        self.town_dirs[index] = (tx / norm, ty / norm)
        return curve[m]

    def track_lines(self, h: _Hex, tdef: TileDef, rot: int, positions, plan: _Plan | None = None):
        lines = []
        done_towns = set()
        nodes = tdef.nodes
        node_links = {i for p in tdef.paths if p.a[0] == "node" and p.b[0] == "node" for i in (p.a[1], p.b[1])}
        # through towns: one curve edge to edge with the town bar on it
        for i, n in enumerate(nodes):
            if n.kind in ("town", "halt") and n.loc is None and i not in node_links:
                edges = [((p.b if p.a == ("node", i) else p.a)[1] + rot) % 6 for p in tdef.paths
                         if ("node", i) in (p.a, p.b) and "edge" in (p.a[0], p.b[0])]
                if len(edges) == 2:
                    lines.append(_edge_curve(h, edges[0], edges[1]))
                    done_towns.add(i)
        for p in tdef.paths:
            ends = []
            for end, lane in ((p.a, p.a_lane), (p.b, p.b_lane)):
                ends.append((end, lane))
            (ea, la), (eb, lb) = ends
            if ea[0] == "node" and ea[1] in done_towns or eb[0] == "node" and eb[1] in done_towns:
                continue
            if ea[0] == "edge" and eb[0] == "edge":
                lines.append(_edge_curve(h, (ea[1] + rot) % 6, (eb[1] + rot) % 6, la, lb, self.track_w))
                continue
            if ea[0] == "node" and eb[0] == "node":
                lines.append([positions[ea[1]], positions[eb[1]]])
                continue
            (edge, lane), (node, _) = ((ea, la), (eb, lb)) if ea[0] == "edge" else ((eb, lb), (ea, la))
            e = (edge[1] + rot) % 6
            start = h.edge_point(e, lane, self.track_w)
            nx, ny = positions[node[1]]
            if nodes[node[1]].kind == "offboard":
                # track into an offboard: a stub ending in an arrow head
                dx, dy = h.dir(e)
                tip = (h.cx + dx * 0.3 * h.R, h.cy + dy * 0.3 * h.R)
                lines.append([start, (h.cx + dx * 0.5 * h.R, h.cy + dy * 0.5 * h.R)])
                w = 0.13 * h.R
                base = (h.cx + dx * 0.5 * h.R, h.cy + dy * 0.5 * h.R)
                arrow = [(base[0] - dy * w, base[1] + dx * w), (base[0] + dy * w, base[1] - dx * w), tip]
                self.draw.polygon(arrow, fill=C.TRACK)
                if plan is not None:
                    plan.polygon(arrow, hard=False)
                continue
            if lane:
                width, index = lane
                off = (index - (width - 1) / 2) * self.track_w * 1.7
                dx, dy = h.dir(e)
                nx, ny = nx - dy * off, ny + dx * off
            if math.hypot(nx - h.cx, ny - h.cy) < 1e-3 * h.R:
                lines.append([start, (nx, ny)])
            else:
                dx, dy = h.dir(e)
                ctrl = (start[0] - dx * 0.35 * h.R, start[1] - dy * 0.35 * h.R)
                lines.append(_bezier([start, ctrl, (nx, ny)]))
        return lines

    def slot_centres(self, n: Node, p):
        x, y = p
        r = self.city_r
        if n.slots == 1:
            return [(x, y)], r
        if n.slots == 2:
            return [(x - r, y), (x + r, y)], r
        if n.slots == 3:
            r *= 0.9
            return [(x, y - 0.95 * r), (x - r, y + 0.75 * r), (x + r, y + 0.75 * r)], r
        r *= 0.85
        grid = [(x - r, y - r), (x + r, y - r), (x - r, y + r), (x + r, y + r)]
        return grid[: n.slots] if n.slots <= 4 else grid, r

    def paint_city(self, h: _Hex, n: Node, p, info: dict, skip: set[str] = frozenset()):
        d = self.draw
        centres, r = self.slot_centres(n, p)
        x, y = p
        if n.slots == 2:
            d.rounded_rectangle((x - 2 * r, y - r, x + 2 * r, y + r), radius=r, fill=C.WHITE, outline=C.BLACK,
                                width=self.line_w)
        elif n.slots >= 3:
            xs = [c[0] for c in centres]
            ys = [c[1] for c in centres]
            d.rounded_rectangle((min(xs) - r, min(ys) - r, max(xs) + r, max(ys) + r), radius=r, fill=C.WHITE,
                                outline=C.BLACK, width=self.line_w)
        tokens = info.get("tokens") or []
        reserved = info.get("reserved") or []
        face_down = set(info.get("face_down") or ())
        for i, (sx, sy) in enumerate(centres):
            tok = tokens[i] if i < len(tokens) else None
            res = reserved[i] if i < len(reserved) else None
            if res in skip:  # already tokened in this hex, or a hex-level reservation drawn once
                res = None
            if tok:
                self.paint_token(sx, sy, r, tok, tok in face_down)
            else:
                self.circle(sx, sy, r, fill=C.WHITE)
                if res:
                    fill, _text = C.entity(self.title, res)
                    ring = fill if sum(fill) < 600 else (120, 120, 120)
                    self.circle(sx, sy, r * 0.86, fill=C.WHITE, outline=ring, width=max(2, int(0.1 * r)))
                    self.text((sx, sy), res, TOKEN_TEXT * r, fill=(40, 40, 40), style="condensed", max_w=1.5 * r)
        return centres, r

    def paint_token(self, x, y, r, sym: str, face_down: bool = False):
        """A station; `face_down`: a bankrupt company's (1860), grey: it blocks but can be passed."""
        fill, text = ((190, 190, 190), (90, 90, 90)) if face_down else C.entity(self.title, sym)
        self.circle(x, y, r, fill=fill, outline=C.BLACK)
        self.text((x, y), sym, TOKEN_TEXT * r, fill=text, style="condensed", max_w=1.8 * r)

    def paint_town(self, h: _Hex, n: Node, p, index: int) -> list[tuple[float, float]]:
        """Draw a town or halt; returns the outline it covers (with a margin) for the hex's plan."""
        R, d = self.R, self.draw
        x, y = p
        if n.kind == "halt":
            self.circle(x, y, 0.11 * R, fill=C.WHITE, outline=C.BLACK, width=self.line_w * 2)
            self.text((x, y), n.symbol or "", 0.14 * R, fill=C.BLACK)
            return _disc(x, y, 0.14 * R)
        tangent = self.town_dirs.get(index)
        if n.style == "rect" and tangent is None:
            tangent = (1.0, 0.0)
        if tangent is not None and n.style != "dot":
            tx, ty = tangent
            hw, hl = 0.05 * R, 0.17 * R
            nx, ny = -ty, tx
            pts = [(x + nx * hl + tx * hw, y + ny * hl + ty * hw), (x + nx * hl - tx * hw, y + ny * hl - ty * hw),
                   (x - nx * hl - tx * hw, y - ny * hl - ty * hw), (x - nx * hl + tx * hw, y - ny * hl + ty * hw)]
            d.polygon(pts, fill=C.BLACK)
            m = 0.03 * R
            return [(px + (px - x) / math.hypot(px - x, py - y) * m, py + (py - y) / math.hypot(px - x, py - y) * m)
                    for px, py in pts]
        self.circle(x, y, 0.09 * R, fill=C.BLACK, outline=C.WHITE, width=self.line_w)
        return _disc(x, y, 0.12 * R)


def _disc(x: float, y: float, r: float) -> list[tuple[float, float]]:
    return [(x + r * math.cos(a * math.pi / 6), y + r * math.sin(a * math.pi / 6)) for a in range(12)]


def _rect(x: float, y: float, half_w: float, half_h: float, pad: float = 0.0):
    return ("rect", x - half_w - pad, y - half_h - pad, x + half_w + pad, y + half_h + pad)


class _Plan:
    """The free regions of one hex, as two coarse masks: `hard` (outside the hex, cities, towns, and whatever
    was placed already: nothing may go over it) and `soft` (track: text may cross it when nothing else fits).
    Each item written on the hex is a list of candidates (preference, shapes, draw); `place_all` gives each
    item in turn its cheapest candidate: covered mask pixels cost far more than any preference."""

    SIDE = 56  # mask pixels per hex radius
    HARD, SOFT = 5.0, 0.5  # cost of a covered mask pixel

    def __init__(self, h: _Hex, layout: str):
        self.k = self.SIDE / h.R
        n = 2 * self.SIDE + 8
        self.ox, self.oy = h.cx - n / 2 / self.k, h.cy - n / 2 / self.k
        self.hard = Image.new("L", (n, n), 255)
        inside = hexgeo.corners(h.cx, h.cy, layout, h.R * 0.97)
        ImageDraw.Draw(self.hard).polygon([self._m(p) for p in inside], fill=0)
        self.soft = Image.new("L", (n, n), 0)
        self._frozen = None

    def _m(self, p) -> tuple[float, float]:
        return (p[0] - self.ox) * self.k, (p[1] - self.oy) * self.k

    def _box(self, x0, y0, x1, y1) -> tuple[int, int, int, int]:
        k = self.k
        return (int((x0 - self.ox) * k), int((y0 - self.oy) * k), math.ceil((x1 - self.ox) * k),
                math.ceil((y1 - self.oy) * k))

    def line(self, pts, width: float) -> None:
        self._frozen = None
        ImageDraw.Draw(self.soft).line([self._m(p) for p in pts], fill=255, width=max(1, round(width * self.k)))

    def polygon(self, pts, hard: bool = True) -> None:
        if pts:
            self._frozen = None
            ImageDraw.Draw(self.hard if hard else self.soft).polygon([self._m(p) for p in pts], fill=255)

    def mark(self, shapes) -> None:
        self._frozen = None
        d = ImageDraw.Draw(self.hard)
        for s in shapes:
            if s[0] == "rect":
                d.rectangle(self._box(*s[1:]), fill=255)
            else:
                _, x, y, r = s
                d.ellipse(self._box(x - r, y - r, x + r, y + r), fill=255)

    def _rows(self) -> tuple[list[int], list[int]]:
        """The masks as one int a row (bit W-1-x set where pixel x is taken): boxes are tested with int
        arithmetic, much faster than cropping images."""
        if self._frozen is None:
            n = self.hard.width
            stride = (n + 7) // 8
            out = []
            for img in (self.hard, self.soft):
                raw = img.convert("1", dither=Image.Dither.NONE).tobytes()
                out.append([int.from_bytes(raw[y * stride:(y + 1) * stride], "big") for y in range(n)])
            self._frozen = (out[0], out[1], stride * 8)
        return self._frozen

    def _boxes(self, shapes):
        for s in shapes:
            if s[0] == "rect":
                yield self._box(*s[1:])
            else:  # a disc: three boxes inside it
                _, x, y, r = s
                yield self._box(x - r, y - 0.45 * r, x + r, y + 0.45 * r)
                yield self._box(x - 0.45 * r, y - r, x + 0.45 * r, y + r)
                yield self._box(x - 0.72 * r, y - 0.72 * r, x + 0.72 * r, y + 0.72 * r)

    def cost(self, shapes, hard: list[int]) -> float:
        _, soft, width = self._rows()
        n = len(hard)
        total = 0.0
        for x0, y0, x1, y1 in self._boxes(shapes):
            if x1 <= x0 or y1 <= y0:
                continue
            cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, n), min(y1, n)
            outside = (x1 - x0) * (y1 - y0) - max(0, cx1 - cx0) * max(0, cy1 - cy0)
            covered_hard, covered_soft = outside, 0
            if cx1 > cx0:
                m = ((1 << (cx1 - cx0)) - 1) << (width - cx1)
                for y in range(cy0, cy1):
                    covered_hard += (hard[y] & m).bit_count()
                    covered_soft += (soft[y] & m).bit_count()
            total += self.HARD * covered_hard + self.SOFT * covered_soft
        return total

    def _take(self, shapes, hard: list[int]) -> None:
        n, width = len(hard), self._rows()[2]
        for x0, y0, x1, y1 in self._boxes(shapes):
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, n), min(y1, n)
            if x1 > x0:
                m = ((1 << (x1 - x0)) - 1) << (width - x1)
                for y in range(y0, y1):
                    hard[y] |= m

    def free_choices(self, cands, h: _Hex, count: int = 5) -> list:
        """The most preferred free candidates of an item, one per band of the hex's height and wrapping."""
        hard = self._rows()[0]
        out, seen = [], set()
        for c in sorted(cands, key=lambda c: c[0]):
            key = (round((c[1][0][2] - h.cy) / (0.25 * h.R)), len(c[1]))
            if key in seen or self.cost(c[1], hard) > 0:
                continue
            seen.add(key)
            out.append(c)
            if len(out) == count:
                break
        return out

    def place_all(self, items) -> tuple[list, float, float]:
        """Place the items in order on a copy of the plan: (their draw functions, the cost of the pixels they
        cover, the sum of their preferences). A candidate may have a 4th element: a function giving its neighbours, searched around the
        best few candidates when none was free."""
        hard = list(self._rows()[0])
        draws, total, prefs = [], 0.0, 0.0
        for cands in items:
            best, best_total, best_cost = None, math.inf, 0.0
            tried = []
            for c in sorted(cands, key=lambda c: c[0]):
                pref = c[0]
                if pref >= best_total:
                    break
                cost = self.cost(c[1], hard)
                tried.append((pref + cost, cost, c))
                if pref + cost < best_total:
                    best, best_total, best_cost = c, pref + cost, cost
            if best is None:
                continue
            if best_cost > 0 and len(best) > 3:
                tried.sort(key=lambda t: t[0])
                for _, _, c in tried[:6]:
                    for n in c[3]():
                        cost = self.cost(n[1], hard)
                        if n[0] + cost < best_total:
                            best, best_total, best_cost = n, n[0] + cost, cost
            self._take(best[1], hard)
            draws.append(best[2])
            total += best_cost
            prefs += best_total - best_cost
        return draws, total, prefs


def parse_borders(hex_data: dict):
    return [(b["edge"], b.get("type"), b.get("cost", 0)) for b in hex_data.get("borders", [])]


# markers a title puts on hexes (1817): fill, ink, word
MARKERS = {"mine": ((60, 60, 60), (255, 255, 255), "MINE"), "bridge": ((30, 100, 220), (255, 255, 255), "BRIDGE"),
           "ranch": ((150, 100, 40), (255, 255, 255), "RANCH")}


def _hex_key(hv: dict) -> tuple:
    """What a hex picture depends on."""
    cities = tuple((c.get("revenue") if not isinstance(c.get("revenue"), dict) else tuple(c["revenue"].items()),
                    tuple(c.get("tokens") or ()), tuple(c.get("reserved") or ()), tuple(c.get("face_down") or ()))
                   for c in hv.get("cities") or ())
    return (hv["tile"], int(hv.get("rotation") or 0), hv.get("color"), cities, tuple(hv.get("blocked_by") or ()),
            tuple(hv.get("markers") or ()))


def _key_view(key: tuple) -> dict:
    tile, rotation, color, cities, blocked, markers = key
    return {"tile": tile, "rotation": rotation, "color": color, "blocked_by": list(blocked), "markers": list(markers),
            "cities": [{"revenue": dict(rev) if isinstance(rev, tuple) else rev, "slots": len(tokens),
                        "tokens": list(tokens), "reserved": list(reserved), "face_down": list(down)}
                       for rev, tokens, reserved, down in cities]}


@lru_cache(maxsize=512)  # ~140 KB each (RGB stored as 4 bytes a pixel + mask)
def _hex_picture(map_id: str, coord: str, key: tuple, named: bool = True) -> HexPicture:
    return MapPainter({"title": map_id.split("+")[0], "map": map_id, "hexes": {}}).hex_picture(
        coord, _key_view(key), named)


def _grow(box, by: float):
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


def _empty(img: Image.Image, *boxes) -> tuple[int, ...] | None:
    """The one colour the boxes lie on inside the picture (nothing drawn there), else None."""
    colours = set()
    pixel = img.load()  # read directly: getpixel loads the picture again at every call
    for box in boxes:
        x0, y0, x1, y1 = math.floor(box[0]), math.floor(box[1]), math.ceil(box[2]), math.ceil(box[3])
        if x0 < 0 or y0 < 0 or x1 > img.width or y1 > img.height:
            return None
        x1, y1 = max(x1, x0 + 1), max(y1, y0 + 1)
        samples = {pixel[x, y] for x in (x0, (x0 + x1) // 2, x1 - 1) for y in (y0, (y0 + y1) // 2, y1 - 1)}
        if len(samples) > 1 and max(max(c) - min(c) for c in zip(*samples, strict=True)) > 6:
            return None  # a quick look at nine points first: most places fail there
        lo_hi = img.crop((x0, y0, x1, y1)).getextrema()
        if any(hi - lo > 6 for lo, hi in lo_hi):
            return None
        colours.add(tuple(lo for lo, _ in lo_hi))
    return colours.pop() if len(colours) == 1 else None


@cache
def _abbreviations(map_id: str) -> dict[str, str]:
    """A short form of each location name of a map, written where the name fits only small (named under the
    map): a name of several words its initials (`SLP` San Luis Potosí, `NY&N` New York & Newark), one word its
    first three letters (`Alb.`); longer where that is taken by another name, a corporation or a hex's label
    (18MEX's Mexico City: `Mex.`, as MC is a corporation and the hex's label)."""
    d = map_data(map_id)
    taken = {c["sym"] for c in d["corporations"] + d.get("minors", [])} | \
        {label for h in d["map"]["hexes"] for label in h.get("labels") or ()}
    out = {}
    for name in sorted({h["location_name"] for h in d["map"]["hexes"] if h.get("location_name")}):
        words = name.split()
        first = words[0]
        forms = [first[:k] + "." for k in range(3, len(first))] + [name]
        if len(words) > 1:
            forms.insert(0, "".join(w if w in ("&", "/") else w[0] for w in words))
        out[name] = next(f for f in forms if f not in taken)
        taken.add(out[name])
    return out


class _Static:
    def __init__(self, title: str):
        from .mapview import starting_view
        view = starting_view(title)
        painter = MapPainter(view)
        self.base, self.edges = painter.paint_background()
        self.keys = {}
        self.names = {}  # (abbreviation or None, letter size) of each hex's written name
        for coord, hv in view["hexes"].items():
            if coord not in painter.centres:
                continue
            key = _hex_key(hv)
            pic = _hex_picture(title, coord, key)
            self.base.paste(pic.pic, pic.pos, pic.mask)
            self.keys[coord] = key
            self.names[coord] = (pic.short, pic.name_px)
        self.base.paste(self.edges, (0, 0), self.edges)


@cache
def _static(title: str) -> _Static:
    return _Static(title)


def company_money(title: str, amount) -> str:
    """A company's money as the title writes it (terrain costs, revenues: 1860's credits)."""
    meta = data.load(title).get("meta") or {}
    form = meta.get("company_currency_format_str") or meta.get("currency_format") or "$%s"
    return form.replace("%s", str(amount))


def overlay_routes(routes, title: str | None = None) -> list[dict]:
    """Routes for the overlay from either form: {"train", "hexes_path": [[hex, ...], ...]} dicts, or the
    engine's game.last_routes[corp] entries (train id, revenue, connections as hex lists)."""
    out = []
    for r in routes or []:
        if isinstance(r, dict):
            out.append(r)
            continue
        train, revenue, connections = r
        name = str(train).rsplit("-", 1)[0]
        money = company_money(title, revenue) if title else f"${revenue}"
        out.append({"train": f"{name}-train {money}" if revenue is not None else f"{name}-train",
                    "hexes_path": [list(c) for c in connections]})
    return out


def draw_map(view: dict, *, routes=None, caption: str | None = None) -> bytes:
    """PNG bytes of a map view. `routes` overlays a run (see overlay_routes for the accepted forms), with a
    legend band below the map starting with `caption` (e.g. "NYNH ran $340:"); a caption alone is the band
    (e.g. "MEX merged into the NdM: its stations are the NdM's")."""
    img = MapPainter(view).paint(overlay_routes(routes, view.get("title")), caption)
    return to_png(img)
