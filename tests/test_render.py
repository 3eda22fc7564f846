"""Pictures (render/): golden PNGs and pixel checks.

Golden files live in tests/golden/. After an intended change of the drawing, regenerate them with
    RENDER_GOLDEN_UPDATE=1 .venv/bin/python -m pytest tests/test_render.py
and look at every regenerated picture before committing it.

A golden is checked pixel for pixel: the same code draws it the same whatever ran before, and a tolerance (it
was 0.2 % of pixels) let a stale golden through (a name 0.04 % of the Eastern board's pixels away). Exactness
holds for the versions that draw: Pillow (with its FreeType) and matplotlib (the chart), pinned in
pyproject.toml and named in tests/golden/drawn_with.json. Pillow 11.3.0 (FreeType 2.13.3) drew all 28
goldens as 13.0.0 (2.14.3) does, pixel for pixel; 10.2.0 (2.13.2) drew the maps and Steam boards otherwise
(up to 0.07 % of their pixels off by more than 40), the tables and markets the same. Where other versions run,
a golden is compared as before (under 0.2 % of pixels off by more than 40), which a moved label can pass. To move a pin, change it in both
files and regenerate every golden (the regeneration refuses other versions than the file's).
"""

from __future__ import annotations

import io
import json
import math
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

import render
from render import mapdraw
from render.mapview import starting_view, view_from_trace

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
FIXTURE = HERE / "fixtures" / "1830" / "26855.trace.jsonl"
LATE_ID = 400  # a late 1830 state: brown tiles, many tokens
TITLES = ["1830", "1860", "1817", "18MEX"]
UPDATE = bool(os.environ.get("RENDER_GOLDEN_UPDATE"))


def _late_lines():
    lines = [json.loads(s) for s in FIXTURE.read_text().splitlines() if s.strip()]
    return [ln for ln in lines if (ln["id"] if ln.get("id") is not None else ln.get("auto_of", 0)) <= LATE_ID]


def _img(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def drawing_versions() -> dict[str, str]:
    """The versions of what draws the pictures: Pillow, the FreeType it was built with, matplotlib."""
    import matplotlib
    import PIL
    from PIL import features

    return {"Pillow": PIL.__version__, "FreeType": str(features.version("freetype2")), "matplotlib": matplotlib.__version__}


DRAWN_WITH = json.loads((GOLDEN / "drawn_with.json").read_text())


def _compare(name: str, png: bytes) -> None:
    path = GOLDEN / f"{name}.png"
    exact = drawing_versions() == DRAWN_WITH
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.skip(f"no golden {path.name}; run with RENDER_GOLDEN_UPDATE=1")
        if not exact:
            pytest.fail(f"goldens are drawn with {DRAWN_WITH} (tests/golden/drawn_with.json), this is {drawing_versions()}")
        path.write_bytes(png)
        return
    got, want = _img(png), _img(path.read_bytes())
    assert got.size == want.size, f"{name}: drawn {got.size}, the golden picture is {want.size}"
    diff = ImageChops.difference(got, want)
    strong = diff.convert("L").point(lambda v: 255 if v > 40 else 0)  # more than the palette's rounding
    changed = sum(strong.histogram()[255:]) / (got.width * got.height)
    if exact:
        assert diff.getbbox() is None, (f"{name}: pixels within {diff.getbbox()} differ from the golden picture, "
                                        f"{changed:.3%} by more than 40 (within {strong.getbbox()})")
        return
    assert changed < 0.002, f"{name}: {changed:.3%} of pixels differ from the golden picture"


def test_the_golden_check_catches_a_label_moved_a_few_pixels():
    """A golden is checked pixel for pixel where the pinned versions draw: a name written 3 px lower (a few
    hundred pixels of a 3-million-pixel map, less than the 0.2 % the check once let through) fails it."""
    if UPDATE or drawing_versions() != DRAWN_WITH:
        pytest.skip("the exact check runs with the pinned versions, goldens not being regenerated")
    img = _img((GOLDEN / "map_start_1830.png").read_bytes())
    box = (765, 738, 812, 760)  # the town's name `Erie`, on the plain colour of its hex
    name = img.crop(box)
    img.paste(img.getpixel((box[0], box[1])), box)
    img.paste(name, (box[0], box[1] + 3))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    with pytest.raises(AssertionError, match="differ from the golden picture"):
        _compare("map_start_1830", buf.getvalue())
    _compare("map_start_1830", (GOLDEN / "map_start_1830.png").read_bytes())  # the golden itself passes


def _check_size(png: bytes) -> Image.Image:
    """A picture Discord takes at once: under 1 MB, no side over 2,000 px but the companies' tall narrow one
    (a phone shows its 640 px width whole and scrolls), no more pixels than 2,000 × 2,000."""
    assert len(png) < 1_000_000
    img = _img(png)
    assert img.width <= 2000 and img.height <= 3200 and img.width * img.height <= 4_000_000
    return img


@pytest.mark.parametrize("title", TITLES)
def test_starting_map_golden(title):
    png = render.draw_map(starting_view(title))
    _check_size(png)
    _compare(f"map_start_{title}", png)


@pytest.fixture(scope="module")
def late():
    lines = _late_lines()
    return view_from_trace("1830", lines), lines[-1]


def test_late_1830_map_golden(late):
    view, _ = late
    png = render.draw_map(view)
    _check_size(png)
    _compare("map_1830_late", png)


def test_late_1830_market_and_companies_golden(late):
    _, summary = late
    for what, png in (("market", render.draw_market("1830", summary)),
                      ("companies", render.draw_companies("1830", summary))):
        _check_size(png)
        _compare(f"{what}_1830_late", png)


def _centre(view, coord):
    painter = mapdraw.MapPainter(view)
    x, y = painter.centres[coord]
    return int(x / mapdraw.SS), int(y / mapdraw.SS)


def _near(pixel, colour, tol=30):
    return all(abs(a - b) <= tol for a, b in zip(pixel, colour, strict=True))


def test_laid_tile_colour_at_hex_centre():
    view = starting_view("1830")
    from render.mapview import lay_tile
    lay_tile(view, "F12", "16", 0)  # green crossing curves: the centre itself is free of track
    img = _img(render.draw_map(view))
    x, y = _centre(view, "F12")
    assert _near(img.getpixel((x, y)), render.colors.TILE["green"])


def test_token_colour_inside_its_city(late):
    view, _ = late
    img = _img(render.draw_map(view))
    # F6 (Cleveland) has one city at the centre holding C&O's home token
    assert view["hexes"]["F6"]["cities"][0]["tokens"] == ["C&O"]
    x, y = _centre(view, "F6")
    fill, _ = render.colors.entity("1830", "C&O")
    r = int(0.25 * mapdraw.MapPainter(view).R / mapdraw.SS)
    hits = sum(_near(img.getpixel((x + dx, y + dy)), fill) for dx in range(-r + 3, r - 3, 3) for dy in (-r // 2, r // 2))
    assert hits >= 4


def test_view_from_trace_tracks_tokens(late):
    view, summary = late
    for sym, corp in summary["corporations"].items():
        for coord in corp.get("tokens", []):
            assert any(sym in c["tokens"] for c in view["hexes"][coord]["cities"]), (sym, coord)


def test_starting_view_reservations_and_blockers():
    v = starting_view("1830")
    assert v["hexes"]["G19"]["cities"][0]["reserved"] == ["NYNH"]
    assert "BO" in v["hexes"]["I15"]["blocked_by"]
    mex = starting_view("18MEX")
    assert mex["hexes"]["M12"]["cities"][0]["tokens"] == ["A"]


def test_routes_overlay_draws():
    view = starting_view("1830")
    plain = _img(render.draw_map(view))
    routes = [{"train": "4-0", "hexes_path": [["H12", "H14", "H16"]]}]
    withr = _img(render.draw_map(view, routes=routes))
    assert ImageChops.difference(plain, withr).getbbox() is not None


@pytest.mark.parametrize("title", TITLES)
def test_market_and_companies_every_title(title):
    trace = Path("/nonexistent")
    for p in sorted((HERE / "fixtures" / title).glob("*.trace.jsonl")) if (HERE / "fixtures" / title).exists() else []:
        trace = p
        break
    if trace.exists():
        summary = json.loads(trace.read_text().splitlines()[-1])
    else:
        summary = {"phase": "2", "bank": 0, "players": [], "corporations": {}, "companies": {}, "depot": {}}
    _check_size(render.draw_market(title, summary))
    _check_size(render.draw_companies(title, summary))


def test_cli_trace_fallback(tmp_path):
    from render.__main__ import main
    out = tmp_path / "m.png"
    assert main([str(HERE / "fixtures" / "1830" / "26855.json"), "--at", "100", "--what", "map",
                 "--out", str(out)]) == 0
    _check_size(out.read_bytes())


def _where(img: Image.Image, rgb: tuple[int, int, int]):
    """The box around the pixels of exactly this colour."""
    solid = Image.new("RGB", img.size, rgb)
    return ImageChops.difference(img, solid).convert("L").point(lambda v: 255 if v < 4 else 0).getbbox()


def test_1860_zig_zag_fits_a_phone_with_each_marker_at_its_price():
    """The 55 spaces of 1860's zig-zag wrap into bands (a phone shows the picture ~400 px wide); a marker
    stands above an upper space and below a lower one, within its width, and markers sharing a space are
    stacked apart."""
    from render import colors, market

    corps = {"IOW": 26, "C&N": 41, "FYN": 41, "NGStL": 0}  # 100 (upper), 210 (lower, two), 0 (upper)
    summary = {"corporations": {sym: {"price": [0, 0, col]} for sym, col in corps.items()}}
    img = _img(render.draw_market("1860", summary))
    assert img.width <= 900 and img.height < 1.5 * img.width
    stacks = market._stacks(summary)
    _, cells, (cw, ch), _ = market._background("1860", market._band_depths(55, stacks))
    boxes = {}
    for sym, col in corps.items():
        x0, y0, up = cells[(0, col)]
        box = boxes[sym] = _where(img, colors.entity("1860", sym)[0])
        assert box and x0 <= box[0] and box[2] <= x0 + cw + 1, sym
        assert (box[3] <= y0) if up else (box[1] >= y0 + ch), sym
    assert boxes["C&N"][3] <= boxes["FYN"][1] or boxes["FYN"][3] <= boxes["C&N"][1]
    assert len({cells[(0, c)][1] for c in (0, 26, 41)}) == 3  # three bands


def test_1860_company_states_drawn_whole_and_in_red():
    """A company's states (1860: receivership, insolvent, bankrupt...) are never cut short, and those that
    change how it plays stand out in red; the bank is shown as the table counts it, pounds left."""
    from render import companies
    from render.fonts import font

    trace = HERE / "fixtures" / "1860" / "1860_game_end_bank.trace.jsonl"
    summary = json.loads(trace.read_text().splitlines()[300])
    states = {"IOW": ["receivership", "insolvent", "nationalised"], "FYN": ["nationalised"]}
    facts = {"operator_states": ["receivership", "insolvent", "bankrupt", "relaunched", "nationalised"],
             "operators": {sym: {"states": s} for sym, s in states.items()}, "bank_pounds_left": 4321}
    img = _img(render.draw_companies("1860", summary, facts))
    red = _where(img, companies.TROUBLE)
    # whole words, over as many rows as the phone's width leaves them ("…" for a word would be narrower)
    assert red and red[2] - red[0] >= font(17, "bold").getlength("receivership,") - 8
    assert red[3] - red[1] < len(states["IOW"]) * companies.ROW_H  # IOW's rows only: the nationalised FYN is not red
    assert companies._bank_text(summary, companies._Money({}, {}), facts).startswith("Bank £4321 left")


def test_1860_companies_fit_a_phone_with_every_state():
    """1860's companies picture is no wider than ~700 px (a phone shows it whole, 17 px letters ~10 px high): its corporations in two
    stacked tables, each row led by the company, the states (receivership, insolvent, bankrupt) kept whole
    beside the president; the same in Russian, where the words are longer."""
    from i18n import speaking

    trace = HERE / "fixtures" / "1860" / "1860_game_end_bank.trace.jsonl"
    summary = json.loads(trace.read_text().splitlines()[300])
    states = {"IOW": ["receivership", "insolvent"], "S&C": ["bankrupt"], "FYN": ["relaunched", "receivership"]}
    facts = {"operator_states": ["receivership", "insolvent", "bankrupt", "relaunched", "nationalised"],
             "operators": {sym: {"states": s} for sym, s in states.items()}, "bank_pounds_left": 4321}
    for lang, name in (("en", "companies_1860_states"), ("ru", "companies_1860_states_ru")):
        with speaking(lang):
            png = render.draw_companies("1860", summary, facts)
        img = _check_size(png)
        assert img.width <= 740, (lang, img.size)  # 640 but for a long Russian state word (неплатёжеспособна)
        _compare(name, png)


def test_at_a_games_start_the_players_table_has_no_empty_certificates(monkeypatch):
    """At a game's start no one holds a certificate: the players' table leaves the column out (as it does the
    privates when no one has one) and so goes whole, not in two with a table of empty cells."""
    from engine.titles import rules_class
    from render import companies

    drawn = []
    draw = companies._Table.draw
    monkeypatch.setattr(companies._Table, "draw", lambda self, *args: drawn.append(self) or draw(self, *args))
    start = rules_class("1830").from_18xx(dict(json.loads((HERE / "fixtures" / "1830" / "26855.json").read_text()),
                                               actions=[]))
    render.draw_companies("1830", start.summary(), start.facts(), part="players")
    players = [t for t in drawn if t.title.startswith("Players")]
    assert len(players) == 1 and "Certificates (P: president)" not in [name for name, _w, _a in players[0].columns]


def test_closed_privates_are_named_in_a_line_not_given_rows(late):
    """A closed private does nothing more: the closed ones are named in one dark line under the privates and
    the depot (18MEX's seven closed at its end took fourteen light grey rows, their names over two)."""
    from render import companies

    _, summary = late
    everyone = ["SV", "CS", "DH", "MH", "CA", "BO"]
    heights = [_img(render.draw_companies("1830", dict(summary, companies={}, closed_companies=closed),
                                          part="players")).height for closed in ([], everyone[:1], everyone)]
    assert heights[1] == heights[2] == heights[0] + companies.NOTE_LINE


def test_the_companies_picture_tells_what_the_next_trains_rust_and_who_acts_for_the_operator_to_act(late):
    """A player weighs what the next train types rust before buying a train or spending: the picture's header says
    it, with whose trains go; and for the corporation to act, the player who acts for it."""
    from engine.core import data
    from render.companies import _next_text, _next_to_go, _player_names

    summary = late[-1]
    trains = {t["name"]: t for t in data.load("1830")["trains"]}
    assert _next_to_go(summary, trains, list(summary["depot"]["upcoming"])) == [
        "The first 6-train rusts the 3-trains of PRR, NYC, C&O.",
        "The first D-train rusts the 4-trains of B&O, NYNH, B&M."]
    assert _next_to_go(summary, trains, ["D"]) == ["The first D-train rusts the 4-trains of B&O, NYNH, B&M."]
    assert _next_text(summary, _player_names(summary)) == "Next: NYNH (Player 1627)"
    assert _next_text({**summary, "next": 82}, _player_names(summary)) == "Next: Player 82"


def test_a_grid_market_is_drawn_up_to_the_spaces_in_play(late):
    """On a phone the whole 1830 market makes everything small: the picture stops a couple of columns past the
    rightmost marker (or par space), every marker still in it, and says how far the prices go."""
    from render import market

    summary = late[-1]
    stacks = market._stacks(summary)
    full, cells, (cw, _ch), _least = market._background("1830", market._grid_depths(11, stacks))
    img = _img(render.draw_market("1830", summary))
    assert img.height >= full.height and img.width < full.width * 0.6
    assert market._columns_in_play(_market_data("1830"), stacks) == 10
    assert all(cells[pos][0] + cw <= img.width for pos in stacks)
    # at the start only the pars are in play: up to two columns past them
    start = _img(render.draw_market("1830", {"corporations": {}}))
    assert start.width == market._columns_in_play(_market_data("1830"), {}) * cw + 21 < img.width
    # its prices 22 px (were 18): on a phone showing it 400 px wide their digits read 7.3 px high (were 5.9)
    x0, y0, _ = cells[(0, 0)]
    ink = img.crop((int(x0) + 4, int(y0) + 4, int(x0 + cw) - 4, int(y0) + 28)).convert("L").point(lambda v: v < 60 and 255)
    top, bottom = ink.getbbox()[1], ink.getbbox()[3]
    assert (bottom - top) * 400 / img.width >= 7, (bottom - top, img.width)


def test_a_cut_grid_market_names_the_zones_it_leaves_out():
    """18MEX's endgame space (200, the top row's last) is past the columns in play for most of a game: the
    picture's note names it, so the legend's colour is not left unexplained."""
    from render import market

    assert market._zones_left_out("18MEX", _market_data("18MEX"), 14) == ["endgame"]
    assert market._zones_left_out("18MEX", _market_data("18MEX"), 15) == []
    assert market._zones_left_out("1830", _market_data("1830"), 10) == []  # its zones are all on the left


def _market_data(title: str) -> dict:
    from engine.core import data

    return data.load(title)["market"]


@pytest.mark.parametrize("title, syms", [("1830", ["PRR", "B&O", "NYNH", "CPR"]), ("18MEX", ["NdM", "UdY", "SPM"])])
def test_markers_on_a_grid_space_are_labels_a_phone_reads(title, syms):
    """Markers sharing a space of 1830's or 18MEX's market were round tokens three abreast, ~13 px across on a
    phone, and one or two round tokens had names of 15 px at most (5-7 px on a phone): every marker is a label
    as wide as the space, one under another in operating order, a row of two or more grown to hold them; a
    phone (the picture shown 400 px wide) still shows each 14 px high and 30 px wide."""
    from render import colors, market

    ops = {sym: {"stack_position": k} for k, sym in enumerate(syms)}
    summary = {"corporations": {sym: {"price": [0, 1, 3]} for sym in syms}}
    img = _img(render.draw_market(title, summary, {"operators": ops}))
    stacks = market._stacks(summary)
    assert market._grid_depths(len(_market_data(title)["grid"]), stacks)[1] == len(syms)
    _, cells, (cw, _ch), _ = market._background(title, market._grid_depths(len(_market_data(title)["grid"]), stacks))
    (x0, y0, _), (_, below, _) = cells[(1, 3)], cells[(2, 3)]
    spots = market.grid_markers(len(syms), x0, y0)
    for (_x, y, _w, h), (_, y_next, _, h_next) in zip(spots, spots[1:], strict=False):
        assert y + h / 2 < y_next - h_next / 2  # one under another, apart
    assert all(x0 < x - w / 2 and x + w / 2 < x0 + cw and y0 + 20 < y - h / 2 and y + h / 2 < below
               for x, y, w, h in spots)  # under the price, within the space
    scale = 400 / img.width
    tops = []
    for sym, (x, y, _w, _h) in zip(syms, spots, strict=True):
        box = _where(img, colors.entity(title, sym)[0])
        assert box and (box[2] - box[0]) * scale >= 30 and (box[3] - box[1]) * scale >= 14, (sym, box)
        assert abs((box[0] + box[2]) / 2 - x) <= 2 and abs((box[1] + box[3]) / 2 - y) <= 2, (sym, box)
        tops.append(box[1])
    assert tops == sorted(tops)  # the first to operate on top
    # one marker is such a label too, its row as high as the others; two go one under another, the row grown
    rows = [market._grid_row_height(market._grid_depths(len(_market_data(title)["grid"]), market._stacks(
        {"corporations": {sym: {"price": [0, 1, 3]} for sym in syms[:n]}}))[1]) for n in (1, 2)]
    assert rows[0] == market.GRID_H < rows[1]
    one, = market.grid_markers(1, x0, y0)
    assert one == spots[0] and one[1] + one[3] / 2 < y0 + market.GRID_H


@pytest.mark.parametrize("title", ["1830", "18MEX"])
def test_map_names_and_stations_are_written_large_or_abbreviated_with_a_legend(late, title):
    """A phone shows the map some 1,000 device pixels wide: names written at 0.15 of a hex's radius, as they
    were, read ~7 px high. Each location's name is written at least 0.175 R where that covers no track, stop or
    revenue, else its abbreviation at least 0.15 R (named in a band under the map), and a station's name
    fills its disc."""
    from render.mapview import tile_def

    view = late[0] if title == "1830" else _late_18mex_view()
    painter = mapdraw.MapPainter(view)
    R, r = painter.R / mapdraw.SS, painter.city_r / mapdraw.SS
    shorts = mapdraw._abbreviations(title)
    abbreviated, tokens = {}, []
    for coord, hv in view["hexes"].items():
        name = painter.hexes.get(coord, {}).get("location_name")
        if coord not in painter.centres:
            continue
        short = painter.hex_picture(coord, hv).short
        written = dict(painter.written)
        syms = {t for c in hv.get("cities") or [] for t in c.get("tokens") or [] if t}
        tokens += [(sym, written[sym]) for sym in syms]
        if not name:
            continue
        assert painter.name_covers == 0, coord  # the name written over no track, stop or revenue
        if short:
            abbreviated[short] = name
            assert short == shorts[name] and written[short] >= mapdraw.NAME_SIZES[mapdraw.ABBREVIATED - 1] * R - 1
        else:
            labels = set(tile_def(painter.map, coord, hv["tile"])[0].labels)
            lines = [text for text in written if text in name and text not in syms | labels]
            assert " ".join(lines) == name and all(written[t] >= 0.175 * R - 1 for t in lines), (coord, written)
    assert abbreviated and tokens
    sizes = sorted(size for _, size in tokens)  # they were 0.62 r at most
    assert sizes[0] >= 0.6 * r and sizes[len(sizes) // 2] >= 0.75 * r, tokens
    # the band under the map names each abbreviated location but those written in full in a callout
    img = painter.paint()
    for callout in painter.callouts:
        name = painter.hexes[callout["coord"]]["location_name"]
        if callout["lines"] != [shorts[name]]:
            del abbreviated[shorts[name]]
    assert painter.legend == abbreviated
    assert img.height >= painter.height / mapdraw.SS + 14 * 1.5
    assert painter.name_legend(Image.new("RGB", (img.width, 10)), abbreviated).height == img.height - painter.height // mapdraw.SS + 10


def test_a_crowded_hexs_name_is_written_small_or_abbreviated_rather_than_over_track():
    """1860's Newport (G5) late in a game has room neither for its name at a readable size nor for `New.` at
    0.15 R: its abbreviation goes smaller where it covers nothing, rather than the name over track."""
    from engine.titles import load_18xx

    game = load_18xx(json.loads((HERE / "fixtures" / "1860" / "1860_game_end_bank.json").read_text()))
    view = game.map_view()
    painter = mapdraw.MapPainter(view)
    for coord, hv in view["hexes"].items():
        if coord in painter.centres and painter.hexes[coord].get("location_name"):
            painter.hex_picture(coord, hv)
            assert painter.name_covers == 0, coord
    assert painter.hex_picture("G5", view["hexes"]["G5"]).short == "New."
    assert dict(painter.written)["New."] < 0.15 * painter.R / mapdraw.SS


def test_a_name_too_small_for_its_hex_goes_in_a_callout_over_an_empty_stretch(monkeypatch):
    """Late in 18MEX 13315, Mazatlán (K6) fits its hex only as `Maz.` at 0.15 R (13 px, ~7 px on a phone) and
    Mexico City (O10) likewise: each is written in a callout beside its hex instead, at 16 px or more, over
    a stretch where nothing was drawn, and its hex is drawn without it; Mazatlán is written in full, in the
    margin (naming no other hex), and leaves the legend under the map. Querétaro (M10) and Guadalajara (O8),
    abbreviated at 15 px in their hexes, are written larger in callouts too."""
    view = _late_18mex_view()
    painter, plain, callouts = _callouts_checked(view, monkeypatch)
    assert set(callouts) >= {"K6", "O10", "M10", "O8"}
    assert callouts["K6"]["lines"] == ["Mazatlán"]
    x0, y0, x1, y1 = (round(v) for v in callouts["K6"]["box"])
    assert plain.getpixel((x0, y0)) == plain.getpixel((x1, y1)) == (255, 255, 255)  # the margin
    assert "Maz." not in painter.legend and painter.legend["Mex."] == "Mexico City"


@pytest.mark.parametrize("log", ["1860_game_end_bank", "1860_game_end_stock_market"])
def test_1860s_newport_and_merstone_late_in_a_game_are_named_in_callouts(monkeypatch, log):
    """Late in 1860 Newport (G5) and Merstone (G7), in the crowded middle of the island, fit their hexes only
    as `New.` at 11.5 px and `Mer.` at 13.5 px: each goes in a callout at 16 px or more over an empty stretch
    of a neighbour (at the end of 1860_game_end_stock_market Merstone's only one is towards a corner of its
    hex, the middles of its edges taken by track)."""
    from engine.titles import load_18xx

    view = load_18xx(json.loads((HERE / "fixtures" / "1860" / f"{log}.json").read_text())).map_view()
    _painter, _plain, callouts = _callouts_checked(view, monkeypatch)
    assert {"G5", "G7"} <= set(callouts)


def test_1817s_names_and_abbreviations_under_16_px_late_in_a_game_are_named_in_callouts(monkeypatch):
    """Late in 1817 15528 Indianapolis (F3), Philadelphia (F19) and Scranton (D19) fit their hexes only as
    `Ind.`, `Phi.` and `Scr.` at 14.5 px, Blacksburg (I12) only at 14.5 px (0.2 R): each goes in a callout at
    16 px over an empty stretch of a neighbour (a 14.5 px abbreviation was left in its hex while a callout had
    to be 1.15 times larger; Scranton's goes near a corner of its hex, its edges' middles taken by track)."""
    from engine.titles import load_18xx

    view = load_18xx(json.loads((HERE / "fixtures" / "1817" / "15528.json").read_text())).map_view()
    _painter, _plain, callouts = _callouts_checked(view, monkeypatch)
    assert {"F3", "F19", "I12", "D19"} <= set(callouts)
    assert callouts["I12"]["lines"] == ["Blacksburg"]


def _callouts_checked(view: dict, monkeypatch):
    """The map's painter, its picture without callouts and the callouts (by hex), each callout checked: at 16 px or more, an
    abbreviation at SHORT_CALLOUT_GAIN (1.1) times its size in the hex at least; over a stretch where nothing is drawn without
    it, beside its hex and written there; its hex drawn without the name."""
    painter = mapdraw.MapPainter(view)
    img = painter.paint()
    callouts = {c["coord"]: c for c in painter.callouts}
    monkeypatch.setattr(mapdraw.MapPainter, "place_callouts", lambda *args: [])
    plain = mapdraw.MapPainter(view).paint()  # the same map without callouts
    monkeypatch.undo()
    R = painter.R / mapdraw.SS
    shorts = mapdraw._abbreviations(painter.map)
    for coord, callout in callouts.items():
        hv = view["hexes"][coord]
        assert callout["px"] >= mapdraw.CALLOUT_PX, callout
        if callout["lines"] == [shorts.get(painter.hexes[coord]["location_name"])]:
            in_hex = mapdraw._hex_picture(painter.map, coord, mapdraw._hex_key(hv)).name_px
            assert callout["px"] >= mapdraw.SHORT_CALLOUT_GAIN * in_hex, callout
        x0, y0, x1, y1 = (round(v) for v in callout["box"])
        under = plain.crop((x0, y0, x1, y1)).getextrema()
        assert all(hi - lo <= 6 for lo, hi in under), callout  # nothing drawn there: no track, stop, revenue
        cx, cy = (v / mapdraw.SS for v in painter.centres[coord])
        assert min(math.hypot(x - cx, y - cy) for x in (x0, x1) for y in (y0, y1)) > 0.5 * R  # beside the hex
        assert img.crop((x0, y0, x1, y1)).getextrema() != under  # and written there
        assert mapdraw._hex_picture(painter.map, coord, mapdraw._hex_key(hv), named=False).name_px is None
    return painter, plain, callouts


def test_abbreviations_are_unique_and_unlike_corporations_and_labels():
    shorts = mapdraw._abbreviations("18MEX")
    assert shorts["San Luis Potosí"] == "SLP" and shorts["Querétaro"] == "Que."
    assert shorts["Mexico City"] == "Mex."  # MC is a corporation and the hex's label
    assert mapdraw._abbreviations("1830")["New York & Newark"] == "NY&N"
    for title in TITLES:
        values = list(mapdraw._abbreviations(title).values())
        assert len(values) == len(set(values)), title


def _late_18mex_view():
    from engine.titles import load_18xx

    game = load_18xx(json.loads((HERE / "fixtures" / "18MEX" / "13315.json").read_text()))
    return game.map_view() if hasattr(game, "map_view") else game.hexmap.view()


def test_a_font_keeps_what_it_renders_and_draws_the_same():
    """The fonts keep the glyph bitmaps and lengths they rendered: the same text drawn again (at the same
    sub-pixel start, with or without a halo) is taken from what was kept, and is the same, bit for bit, as
    a fresh font of the same file draws it."""
    from PIL import ImageDraw, ImageFont

    from render import fonts

    kept = fonts.font(17, "bold")
    fresh = ImageFont.truetype(str(fonts.FONT_DIR / fonts._FILES["bold"]), 17)
    texts = [((10.5, 12.25), "Player 3 $1,100 Ёж", {}), ((40.75, 40.5), "NYNH", {"stroke_width": 2, "stroke_fill": "white"}),
             ((60.0, 80.0), "закрыта → 10% UdY", {"anchor": "mm"})]
    def hits():
        return fonts._rendered.cache_info().hits, fonts._measured.cache_info().hits

    pictures = []
    for f in (fresh, kept, kept):
        before = hits()
        img = Image.new("RGB", (320, 120), (240, 240, 230))
        d = ImageDraw.Draw(img)
        for xy, text, kw in texts:
            d.text(xy, text, font=f, fill=(20, 20, 20), **kw)
        pictures.append((img.tobytes(), [d.textlength(text, font=f) for _xy, text, _kw in texts]))
    assert pictures[0] == pictures[1] == pictures[2]
    # the last drawing's texts came from what was kept (the halo's text twice: its outline, then its letters)
    assert [after - was for after, was in zip(hits(), before, strict=True)] == [len(texts) + 1, len(texts)]
