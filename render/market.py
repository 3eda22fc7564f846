"""Stock market picture: 2D grid (1830, 18MEX), 1D row (1817) or zig-zag (1860) from market.json."""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw

from engine.core import data
from i18n import NP_, _, language, pgettext

from . import colors as C
from .fonts import font
from .png import to_png

ZONE = {  # light tints of 18xx.games' market colours, by type name
    "yellow": (255, 241, 140), "orange": (255, 196, 120), "brown": (214, 160, 110), "red": (240, 120, 120),
    "blue": (150, 190, 255), "black": (90, 90, 90), "purple": (190, 150, 230), "gray": (200, 200, 200),
    "green": (160, 220, 140), "olive": (200, 200, 120), "white": (255, 255, 255),
}
PLAIN = (246, 240, 226)
PAR_RING = (200, 0, 0)
GRID_W, GRID_H = 86, 84  # a grid market's space
# a grid space's markers are labels as wide as the space (inside a par space's ring), one under another, their
# names up to 22 px (round tokens three abreast were ~13 px across on a phone; one or two, 15 px letters at
# most, read 5-7 px); a row grows to hold two or more
GRID_TAG, GRID_TAG_GAP, GRID_TAG_TOP = 36, 4, 28
COLUMNS_BEYOND = 2  # a grid market shows this many columns past its rightmost marker or par space
# the legend (zone colours, par) and a cut grid market's note: lines as wide as the picture, letters LEGEND_PX
# (they were 13 px: ~5 px on a phone showing the market 400 px wide)
LEGEND_PX, LEGEND_LINE, LEGEND_SWATCH = 18, 34, 24
# the zig-zag (1860) wraps into bands of ZZ_BAND spaces, so that a phone shows it some 400 px wide with the
# prices legible; its markers are labels as wide as a space, stacked above the upper spaces and below the
# lower ones
ZZ_W, ZZ_H, ZZ_BAND, ZZ_TAG = 106, 50, 14, 38
# a long one-row market (1817's 32 spaces) wraps into lines of WRAP spaces, its markers labels as wide as a
# space one under another under it (round tokens two abreast had names of 19 px at most, NYSW 14: 6.7 px on a
# phone)
WRAP, WRAP_W, WRAP_H, WRAP_TAG = 8, 100, 66, 36
# zones named on their spaces
ZONE_WORDS = {"liquidation": NP_("market", "liquidation"), "acquisition": NP_("market", "acquisition")}
# ... shortened where the word is wider than a space, and after a price in the companies' table
ZONE_ABBREVIATIONS = {"liquidation": NP_("zone", "liq."), "acquisition": NP_("zone", "acq.")}


def _zz_stack(depth: int) -> int:
    """Room for `depth` markers stacked beside a band."""
    return depth * (ZZ_TAG + 4) + 8


def _band_height(depths: tuple[int, int]) -> int:
    return _zz_stack(depths[0]) + 2 * ZZ_H + _zz_stack(depths[1]) + 12


def _band_depths(n_cols: int, stacks: dict) -> tuple[tuple[int, int], ...]:
    """Per band of the zig-zag, the most markers on one of its upper and on one of its lower spaces."""
    return tuple(
        tuple(max((len(stacks.get((0, c), ())) for c in range(b, min(b + ZZ_BAND, n_cols)) if c % 2 == side),
                  default=0) for side in (0, 1))
        for b in range(0, n_cols, ZZ_BAND))


def _tag(d: ImageDraw.ImageDraw, title: str, x: float, y: float, sym: str, w: float = ZZ_W - 10,
         h: float = ZZ_TAG, order: int | None = None) -> None:
    """A corporation's marker as a label (every market's): its colours, its name in big letters; `order`: its
    place in the operating order of its space, in a white disc at its left end."""
    fill, text = C.entity(title, sym)
    d.rounded_rectangle((x - w / 2, y - h / 2, x + w / 2, y + h / 2), radius=h // 2, fill=fill, outline=C.BLACK,
                        width=2)
    left, right = x - w / 2 + 8, x + w / 2 - 8
    if order is not None:
        r = round(h / 4)
        _order_mark(d, x - w / 2 + 4 + r, y, order, r)
        left, right = x - w / 2 + 2 * r + 6, x + w / 2 - 6
    for style in ("bold", "condensed"):  # condensed where bold letters would be under half the label's height
        size = int(h * 0.63)
        f = font(size, style)
        while size > 10 and d.textlength(sym, font=f) > right - left:
            size -= 1
            f = font(size, style)
        if size >= h / 2:
            break
    d.text(((left + right) / 2, y), sym, font=f, fill=text, anchor="mm")


def _zigzag(row: list, depths: tuple, top: int, cell, cells: dict) -> float:
    """Draw the zig-zag's spaces band by band, each with room for its markers; returns where the legend goes."""
    band_top = [top]
    for band in depths:
        band_top.append(band_top[-1] + _band_height(band))
    for c, info in enumerate(row):
        if info is None:
            continue
        band, k = divmod(c, ZZ_BAND)
        up = c % 2 == 0
        x0 = 20 + k * ZZ_W // 2
        y0 = band_top[band] + _zz_stack(depths[band][0]) + (0 if up else ZZ_H)
        cell(x0, y0, ZZ_W, ZZ_H, info)
        cells[(0, c)] = (x0, y0, up)
    return band_top[-1] + 4


def _line_rows(n_cols: int, stacks: dict) -> tuple[int, ...]:
    """Per line of a wrapped row, the markers under its fullest space (room for one at least)."""
    return tuple(max([len(syms) for (_, c), syms in stacks.items() if c // WRAP == k] or [1])
                 for k in range(-(-n_cols // WRAP)))


def _line_height(rows: int) -> int:
    """A wrapped row's line: its spaces and `rows` markers under them."""
    return WRAP_H + rows * (WRAP_TAG + 4) + 14


def _wrapped(row: list, line_rows: tuple, top: int, cell, cells: dict) -> float:
    """Draw a long row's spaces line by line, each line with room for its markers; returns where the legend
    goes."""
    line_top = [top]
    for rows in line_rows:
        line_top.append(line_top[-1] + _line_height(rows))
    for c, info in enumerate(row):
        if info is None:
            continue
        line, k = divmod(c, WRAP)
        x0, y0 = 20 + k * WRAP_W, line_top[line]
        cell(x0, y0, WRAP_W, WRAP_H, info)
        cells[(0, c)] = (x0, y0, False)
    return line_top[-1] + 4


def _grid_depths(n_rows: int, stacks: dict) -> tuple[int, ...]:
    """Per row of a grid market, the most labels on one of its spaces."""
    return tuple(max([len(syms) for (r, _), syms in stacks.items() if r == row] or [0]) for row in range(n_rows))


def _grid_row_height(labels: int) -> int:
    return max(GRID_H, GRID_TAG_TOP + labels * (GRID_TAG + GRID_TAG_GAP) + 4)


def grid_markers(n: int, x0: float, y0: float) -> list[tuple[float, float, float, float]]:
    """Where `n` markers go on the grid space whose top left corner is (x0, y0): (centre x, centre y, width,
    height), in stack order: labels as wide as the space, one under another under the price (the row is
    `_grid_row_height` high)."""
    return [(x0 + GRID_W / 2, y0 + GRID_TAG_TOP + GRID_TAG / 2 + k * (GRID_TAG + GRID_TAG_GAP), GRID_W - 14, GRID_TAG)
            for k in range(n)]


def _cell_fill(title: str, types: list[str]) -> tuple[int, int, int]:
    colours = data.load(title)["constants"].get("STOCKMARKET_COLORS", {})
    for t in types:
        if t == "par":
            continue
        if t in colours:
            return ZONE.get(colours[t], C.rgb(colours[t]))
    return PLAIN


def _stacks(summary: dict, facts: dict | None = None) -> dict[tuple[int, int], list[str]]:
    """The corporations on each market space, in stack order (the engine's facts: the first placed there
    operates first) where known."""
    out: dict[tuple[int, int], list[str]] = {}
    for sym, corp in summary.get("corporations", {}).items():
        price = corp.get("price")
        if price and not corp.get("closed"):
            out.setdefault((price[1], price[2]), []).append(sym)
    ops = (facts or {}).get("operators") or {}
    for syms in out.values():
        syms.sort(key=lambda sym: (ops.get(sym) or {}).get("stack_position") or 0)
    return out


def _columns_in_play(market: dict, stacks: dict) -> int:
    """How many columns of a grid market a picture shows: up to COLUMNS_BEYOND past the rightmost marker and
    the rightmost par space, where the next moves and the pars are."""
    pars = [c for row in market["grid"] for c, info in enumerate(row) if info and "par" in info.get("types", [])]
    rightmost = max([c for _, c in stacks] + pars + [0])
    return min(max(len(row) for row in market["grid"]), rightmost + 1 + COLUMNS_BEYOND)


def _zones_left_out(title: str, market: dict, shown: int) -> list[str]:
    """The coloured zones of a grid market found only past its first `shown` columns (18MEX's endgame)."""
    colours = data.load(title)["constants"].get("STOCKMARKET_COLORS", {})

    def zones(keep) -> set[str]:
        return {t for row in market["grid"] for c, info in enumerate(row) if info and keep(c)
                for t in info.get("types", []) if t in colours and t != "par"}

    return sorted(zones(lambda c: c >= shown) - zones(lambda c: c < shown))


def _order_mark(d: ImageDraw.ImageDraw, x: float, y: float, n: int, r: int = 7) -> None:
    """A small white disc with the marker's place in the operating order of its space."""
    d.ellipse((x - r, y - r, x + r, y + r), fill=C.WHITE, outline=C.BLACK, width=1)
    d.text((x, y), str(n), font=font(r * 11 // 7, "bold"), fill=C.BLACK, anchor="mm")


ZONES = {"par": NP_("market", "par"), "endgame": NP_("market", "endgame"), "close": NP_("market", "close"),
         "multiple_buy": NP_("market", "multiple buy"), "unlimited": NP_("market", "unlimited"),
         "no_cert_limit": NP_("market", "no cert limit"), "liquidation": NP_("market", "liquidation"),
         "acquisition": NP_("market", "acquisition"), "repar": NP_("market", "repar"),
         "ignore_one_sale": NP_("market", "ignore one sale"), "safe_par": NP_("market", "safe par"),
         "max_price": NP_("market", "max price")}  # the legend's words, shown with pgettext("market", ...)


def _zone_word(zone: str) -> str:
    """A zone's name in the legend's words."""
    return pgettext("market", ZONES[zone]) if zone in ZONES else zone.replace("_", " ")


def _background(title: str, deepest: int | tuple):
    return _background_in(title, deepest, language())


@cache
def _background_in(title: str, deepest: int | tuple, lang: str):
    """The market without tokens and legend (cells, zones) with its words in `lang`, where each cell's tokens
    go, and the least width that keeps its title. `deepest`: per row of a grid the labels
    on its fullest space (`_grid_depths`), per band of a zig-zag the most markers above and below it, or per
    line of a wrapped row the rows of markers under it."""
    market = data.load(title)["market"]
    grid = market["grid"]
    one_d = len(grid) == 1
    zigzag = bool(market.get("zigzag"))
    n_cols = max(len(r) for r in grid)
    if not one_d:
        cw, ch = GRID_W, GRID_H
        row_top = [top := 52]
        for labels in deepest:
            row_top.append(row_top[-1] + _grid_row_height(labels))
        width, height = n_cols * cw + 40, row_top[-1] - top + 110
    elif not zigzag:
        cw, ch = WRAP_W, WRAP_H
        width = WRAP * WRAP_W + 40
        height = 52 + sum(_line_height(rows) for rows in deepest) + 60
    else:
        cw, ch = ZZ_W, ZZ_H
        width = ZZ_W // 2 * (ZZ_BAND - 1) + ZZ_W + 40
        height = 52 + sum(_band_height(band) for band in deepest) + 60
    img = Image.new("RGB", (width, height), C.WHITE)
    d = ImageDraw.Draw(img)
    d.text((20, 14), _("{title} stock market", title=title), font=font(24, "bold"), fill=C.BLACK)
    top = 52
    wrapped = one_d and not zigzag
    # a grid's prices 22 px (18 read 5.9 px high on a phone showing 1830's 881 px market 400 px wide; 22: 7.3)
    price_font = font(24 if zigzag else 26 if wrapped else 22, "bold")
    zone_font = font(LEGEND_PX)  # a wrapped row's zone said on its space, as large as the legend
    cells: dict[tuple[int, int], tuple[float, float, bool]] = {}  # (row, col) -> (x0, y0, up)

    def cell(x0, y0, w, h, cellinfo):
        types = cellinfo.get("types", []) if isinstance(cellinfo, dict) else []
        price = cellinfo.get("price") if isinstance(cellinfo, dict) else cellinfo
        d.rectangle((x0, y0, x0 + w, y0 + h), fill=_cell_fill(title, types), outline=(80, 80, 80), width=1)
        if "par" in types:
            d.rectangle((x0 + 3, y0 + 3, x0 + w - 3, y0 + h - 3), outline=PAR_RING, width=3)
        d.text((x0 + w / 2, y0 + (h / 2 if zigzag else 18 if wrapped else 15)), str(price), font=price_font,
               fill=C.BLACK, anchor="mm")
        zone = next((t for t in types if t in ZONE_WORDS), None)
        if zone and wrapped:  # the zone said on the space itself
            word = pgettext("market", ZONE_WORDS[zone])
            if zone_font.getlength(word) > w - 6:
                word = pgettext("zone", ZONE_ABBREVIATIONS[zone])
            d.text((x0 + w / 2, y0 + h - 16), word, font=zone_font, fill=C.BLACK, anchor="mm")

    if not one_d:
        for r, row in enumerate(grid):
            for c, info in enumerate(row):
                if info is None:
                    continue
                x0, y0 = 20 + c * cw, row_top[r]
                cell(x0, y0, cw, row_top[r + 1] - y0, info)
                cells[(r, c)] = (x0, y0, False)
        legend_y = row_top[-1] + 14
    elif not zigzag:
        legend_y = _wrapped(grid[0], deepest, top, cell, cells)
    else:
        legend_y = _zigzag(grid[0], deepest, top, cell, cells)
    img = img.crop((0, 0, width, min(height, int(legend_y))))
    return img, cells, (cw, ch), int(d.textlength(_("{title} stock market", title=title), font=font(24, "bold")) + 40)


def _legend_entries(title: str) -> list[tuple[tuple[int, int, int], tuple[int, int, int], int, str]]:
    """The legend's swatches: (fill, outline, outline width, word), the par marker first."""
    market = data.load(title)["market"]
    colours = data.load(title)["constants"].get("STOCKMARKET_COLORS", {})
    used = {t for row in market["grid"] for info in row if info for t in info.get("types", [])}
    return [(PLAIN, PAR_RING, 3, pgettext("market", "par"))] + [
        (_cell_fill(title, [t]), (80, 80, 80), 1, _zone_word(t)) for t in sorted(used - {"par"}) if t in colours]


def legend_lines(title: str, width: int, note: str | None = None) -> list[list[tuple[float, int | str]]]:
    """The legend laid out in lines as wide as the picture: each line's items as (x, index of the swatch in
    `_legend_entries`, or the note), the note at the right end of the last line where it has room, else on a
    line of its own, from the left."""
    f = font(LEGEND_PX)
    lines: list[list[tuple[float, int | str]]] = [[]]
    x = 20.0
    for k, (*_swatch, word) in enumerate(_legend_entries(title)):
        w = LEGEND_SWATCH + 6 + f.getlength(word)
        if lines[-1] and x + w > width - 12:
            lines.append([])
            x = 20.0
        lines[-1].append((x, k))
        x += w + 18
    if note:
        w = f.getlength(note)
        if x + w > width - 12:
            lines.append([(20.0, note)])
        else:
            lines[-1].append((width - 12 - w, note))
    return lines


def _with_legend(img: Image.Image, title: str, note: str | None = None) -> Image.Image:
    """The picture with its legend (and note) under it."""
    lines = legend_lines(title, img.width, note)
    out = _taller(img, len(lines) * LEGEND_LINE + 6)
    d = ImageDraw.Draw(out)
    f = font(LEGEND_PX)
    entries = _legend_entries(title)
    for k, line in enumerate(lines):
        y = img.height + k * LEGEND_LINE
        for x, item in line:
            if isinstance(item, str):
                d.text((x, y + LEGEND_SWATCH / 2), item, font=f, fill=C.BLACK, anchor="lm")
                continue
            fill, outline, outline_w, word = entries[item]
            d.rectangle((x, y, x + LEGEND_SWATCH, y + LEGEND_SWATCH), fill=fill, outline=outline, width=outline_w)
            d.text((x + LEGEND_SWATCH + 6, y + LEGEND_SWATCH / 2), word, font=f, fill=C.BLACK, anchor="lm")
    return out


def _taller(img: Image.Image, extra: int) -> Image.Image:
    out = Image.new("RGB", (img.width, img.height + extra), C.WHITE)
    out.paste(img, (0, 0))
    return out


def draw_market(title: str, summary: dict, facts: dict | None = None) -> bytes:
    """The market with each corporation's marker; where several share a space and `facts` give their stack
    order, they are drawn in it, numbered: 1 operates first."""
    market = data.load(title)["market"]
    one_d = len(market["grid"]) == 1
    zigzag = bool(market.get("zigzag"))
    ordered = any((op or {}).get("stack_position") is not None for op in ((facts or {}).get("operators") or {}).values())
    stacks = _stacks(summary, facts)
    if not one_d:
        deepest = _grid_depths(len(market["grid"]), stacks)
    elif zigzag:
        deepest = _band_depths(len(market["grid"][0]), stacks)
    else:
        deepest = _line_rows(len(market["grid"][0]), stacks)
    background, cells, (cw, ch), title_width = _background(title, deepest)
    img = background.copy()
    if not one_d:  # a grid drawn only up to the spaces in play: on a phone the rest makes everything small
        img = img.crop((0, 0, min(img.width, max(title_width, _columns_in_play(market, stacks) * cw + 21)),
                        img.height))
    note = None
    if img.width < background.width:  # said where the legend ends, with the highest price left out
        top = max(info["price"] for row in market["grid"] for info in row if info)
        hidden = [_zone_word(t) for t in _zones_left_out(title, market, (img.width - 20) // cw)]
        note = _("prices go on to the right, up to {price}, with {zones}", price=top, zones=", ".join(hidden)) \
            if hidden else _("prices go on to the right, up to {price}", price=top)
    img = _with_legend(img, title, note)
    d = ImageDraw.Draw(img)
    for pos, syms in stacks.items():
        if pos not in cells:
            continue
        x0, y0, up = cells[pos]
        if not one_d:
            for k, (sym, (x, y, w, h)) in enumerate(zip(syms, grid_markers(len(syms), x0, y0), strict=True)):
                _tag(d, title, x, y, sym, w, h, k + 1 if ordered and len(syms) > 1 else None)
        elif zigzag:
            for k, sym in enumerate(syms):
                x = x0 + cw / 2
                off = ZZ_TAG / 2 + 5 + k * (ZZ_TAG + 4)
                y = y0 - off if up else y0 + ch + off
                _tag(d, title, x, y, sym)
                if ordered and len(syms) > 1:
                    _order_mark(d, x + cw / 2 - 12, y - ZZ_TAG / 2 + 6, k + 1, 10)
        else:  # a wrapped row: one under another under the space
            for k, sym in enumerate(syms):
                y = y0 + ch + 4 + WRAP_TAG / 2 + k * (WRAP_TAG + 4)
                _tag(d, title, x0 + cw / 2, y, sym, cw - 8, WRAP_TAG, k + 1 if ordered and len(syms) > 1 else None)
    return to_png(img)
