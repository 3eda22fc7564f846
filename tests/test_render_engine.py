"""Pictures drawn from the engine's real state (load_18xx replay) at a few points of the 1830 fixtures."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest
from PIL import Image

import render
from render import mapdraw
from render.mapview import starting_view

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "1830"
POINTS = [("26855.json", 60), ("26855.json", 250), ("26855.json", 400), ("1830_game_end_bank.json", None)]

load_18xx = pytest.importorskip("engine.titles").load_18xx


def _img(png: bytes) -> Image.Image:
    assert len(png) < 1_000_000
    img = Image.open(io.BytesIO(png)).convert("RGB")
    assert max(img.size) <= 2000
    return img


@pytest.fixture(scope="module", params=POINTS, ids=lambda p: f"{p[0]}@{p[1]}")
def state(request):
    name, at = request.param
    log = json.loads((FIXTURES / name).read_text())
    game = load_18xx(log, upto=at)
    view = game.map_view() if hasattr(game, "map_view") else game.hexmap.view()
    return log, game, view, game.summary()


def test_view_has_the_starting_views_shape(state):
    _, _, view, _ = state
    start = starting_view("1830")
    assert view["layout"] == start["layout"] and set(view["hexes"]) == set(start["hexes"])
    for hv in view["hexes"].values():
        assert {"tile", "rotation", "color", "cities", "blocked_by"} <= set(hv)
        for c in hv["cities"]:
            assert len(c["tokens"]) == len(c["reserved"]) == c["slots"]


def test_map_market_companies_draw(state):
    _, game, view, summary = state
    _img(render.draw_map(view))
    _img(render.draw_market("1830", summary))
    _img(render.draw_companies("1830", summary))


def test_laid_tiles_colour_around_their_hex_centre(state):
    """Every laid tile shows its colour around its hex centre (track and cities cover some of it)."""
    _, _, view, _ = state
    img = _img(render.draw_map(view))
    painter = mapdraw.MapPainter(view)
    start = starting_view("1830")["hexes"]
    R = painter.R / mapdraw.SS
    laid = [c for c, hv in view["hexes"].items() if hv["tile"] != start[c]["tile"]]
    for coord in laid:
        want = render.colors.TILE[view["hexes"][coord]["color"]]
        cx, cy = (v / mapdraw.SS for v in painter.centres[coord])
        samples = [(cx + d * R * math.cos(math.radians(a)), cy + d * R * math.sin(math.radians(a)))
                   for d in (0.2, 0.4, 0.6) for a in range(0, 360, 30)] + [(cx, cy)]
        hits = sum(all(abs(u - v) <= 30 for u, v in zip(img.getpixel((int(x), int(y))), want, strict=True))
                   for x, y in samples)
        assert hits >= 6, (coord, view["hexes"][coord]["tile"], hits)


def test_tokens_drawn_in_their_colour(state):
    _, _, view, summary = state
    img = _img(render.draw_map(view))
    painter = mapdraw.MapPainter(view)
    for sym, corp in summary["corporations"].items():
        fill, _ = render.colors.entity("1830", sym)
        for coord in corp.get("tokens", [])[:2]:
            cx, cy = (v / mapdraw.SS for v in painter.centres[coord])
            r = int(0.75 * painter.R / mapdraw.SS)
            hits = sum(all(abs(a - b) <= 20 for a, b in zip(img.getpixel((int(cx) + dx, int(cy) + dy)), fill,
                                                               strict=True))
                       for dx in range(-r, r + 1, 2) for dy in range(-r, r + 1, 2))
            assert hits >= 3, (sym, coord)


def test_cli_draws_the_last_run(tmp_path):
    from render.__main__ import main
    log = json.loads((FIXTURES / "26855.json").read_text())
    run = next(a for a in log["actions"] if a["type"] == "run_routes" and a["id"] >= 250)
    out, plain = tmp_path / "run.png", tmp_path / "plain.png"
    assert main([str(FIXTURES / "26855.json"), "--at", str(run["id"]), "--what", "map", "--out", str(out)]) == 0
    assert main([str(FIXTURES / "26855.json"), "--at", str(run["id"] + 1), "--what", "map",
                 "--out", str(plain)]) == 0
    with_run, without = _img(out.read_bytes()), _img(plain.read_bytes())
    assert with_run.height > without.height  # the legend band under the map
    for what in ("market", "companies"):
        assert main([str(FIXTURES / "26855.json"), "--at", "250", "--what", what, "--out", str(out)]) == 0
        _img(out.read_bytes())


def test_engine_routes_overlay_form():
    routes = mapdraw.overlay_routes([("5-1", 190, [["F20", "G19"], ["F22", "F20"]])])
    assert routes == [{"train": "5-train $190", "hexes_path": [["F20", "G19"], ["F22", "F20"]]}]


def test_cli_companies_picture_carries_the_engine_facts(tmp_path):
    """18MEX at stock round 5 of 13315: the NdM's and TM's 4-trains are obsolete; the command line draws
    them as the bot does (with the engine's facts), not from the bare summary."""
    from render.__main__ import _with_names, main
    path = FIXTURES.parent / "18MEX" / "13315.json"
    log = json.loads(path.read_text())
    game = load_18xx(log, upto=300)
    facts = game.facts()
    assert any(t["obsolete"] for op in facts["operators"].values() for t in op.get("trains", ()))
    out = tmp_path / "companies.png"
    assert main([str(path), "--at", "300", "--what", "companies", "--out", str(out)]) == 0
    summary = _with_names(game.summary(), log)
    assert out.read_bytes() == render.draw_companies("18MEX", summary, facts)
    assert out.read_bytes() != render.draw_companies("18MEX", summary)


def test_1860_run_overlay_in_credits_with_track_inside_a_hex():
    """1860's routes name track inside one hex (`F2 0.1`: between its stops 0 and 1); revenue is credits."""
    from engine.titles import create_game

    game = create_game("1860", players=[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}], seed=1)
    run = [("6+3-1", 290, [["F2 0.1"], ["F2 1.2"], ["F2", "E3", "E5"], ["E5", "F6"]])]
    assert mapdraw.overlay_routes(run, "1860")[0]["train"] == "6+3-train 290 cr"
    plain = _img(mapdraw.draw_map(game.map_view()))
    with_run = _img(mapdraw.draw_map(game.map_view(), routes=run, caption="C&N ran 290 cr:"))
    assert with_run.height > plain.height  # the legend band under the map


def test_face_down_stations_are_drawn_grey():
    """1860: a bankrupt company's stations stay on the map face down (the engine's view lists them)."""
    from engine.titles import create_game

    game = create_game("1860", players=[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}], seed=1)
    game.bankrupt.append(game.corporation("IOW"))
    view = game.map_view()
    assert view["hexes"]["I3"]["cities"][0]["face_down"] == []  # no station there yet
    city = view["hexes"]["I3"]["cities"][0]
    city["tokens"] = ["IOW"] + city["tokens"][1:]
    upright = _img(mapdraw.draw_map(view))
    city["face_down"] = ["IOW"]
    down = _img(mapdraw.draw_map(view))
    assert upright.size == down.size and upright.tobytes() != down.tobytes()
    assert game.face_down_stations() == {"IOW"}


# ---------------------------------------------------------------- what a player reads off the pictures
def _late_with_facts():
    log = json.loads((FIXTURES / "26855.json").read_text())
    game = load_18xx(log, upto=700)
    names = {p["id"]: p["name"] for p in log["players"]}
    summary = game.summary()
    for p in summary["players"]:
        p["name"] = names[p["id"]]
    return game, summary, game.facts()


def test_late_market_and_companies_with_facts_golden():
    """The depot's D trains have no limit, presidents' certificates are marked P, tokens are tokens left,
    the certificate count stands against the limit, and PRR, NYNH and B&M sharing $70 are numbered in the
    order they operate."""
    from test_render import _compare

    game, summary, facts = _late_with_facts()
    stack = {sym: facts["operators"][sym]["stack_position"] for sym in ("PRR", "NYNH", "B&M")}
    assert stack == {"PRR": 0, "NYNH": 1, "B&M": 2}
    order = [op.sym for op in game.operating_order()]
    assert order.index("PRR") < order.index("NYNH") < order.index("B&M")
    _compare("market_1830_stack_order", render.draw_market("1830", summary, facts))
    _compare("companies_1830_facts", render.draw_companies("1830", summary, facts))


def test_crossing_town_bars_apart():
    """Tile 56's two towns sit on crossing tracks: their bars are drawn apart, not on the crossing."""
    view = starting_view("1830")
    from render.mapview import lay_tile
    lay_tile(view, "G7", "56", 0)
    painter = mapdraw.MapPainter(view)
    cx, cy = painter.centres["G7"]
    h = mapdraw._Hex(cx, cy, painter.R, view["layout"])
    from render.mapview import tile_def
    tdef, _ = tile_def("1830", "G7", "56")
    towns = [p for p, n in zip(painter.node_positions(h, tdef, 0), tdef.nodes, strict=True) if n.kind == "town"]
    assert len(towns) == 2 and math.dist(*towns) > 0.3 * painter.R


def test_route_lines_leave_token_names_readable():
    """A run's lines start at the rim of the cities it joins, not across the station tokens' names."""
    from test_render import _compare

    log = json.loads((FIXTURES / "26855.json").read_text())
    game = load_18xx(log, upto=584)
    routes = game.last_routes["NYC"]
    view = game.map_view()
    painter = mapdraw.MapPainter(view)
    albany = painter.centres["E19"]
    start = painter.route_points(["E19", "E21", "E23"])[0]
    assert math.dist(start, albany) >= 0.9 * painter.city_r
    _compare("map_1830_route", render.draw_map(view, routes=routes, caption="NYC ran $320:"))


def test_end_of_game_chart_golden():
    """The end-of-game chart: every stock round's values, the last point the final result."""
    from test_render import _compare

    from render.chart import draw_chart, value_history

    log = json.loads((FIXTURES / "1830_game_end_bank.json").read_text())
    history = value_history(log)
    result = load_18xx(log).result()
    assert history["labels"] == [f"SR {n}" for n in range(1, 10)] + ["end"] and history["finished"]
    names = {p["id"]: p["name"] for p in log["players"]}
    assert history["ranking"] == sorted(((names[int(k)], v) for k, v in result.items()), key=lambda kv: -kv[1])
    assert {name: values[-1] for name, values in history["players"].items()} == dict(history["ranking"])
    assert history["prices"]["B&O"][0] == 100 and history["prices"]["B&O"][-1] == 350
    _compare("chart_1830_game_end_bank", draw_chart("1830", history))


def test_chart_is_deterministic_and_reads_money_as_text():
    """The chart is the same file every time (no version or date stamped in it), and a line of the ranking with
    two amounts stays text ("$2,436 … $2,343" is no formula): an 18MEX game of five players, whose ranking
    takes two lines."""
    import matplotlib
    from test_render import _compare

    from render.chart import STYLE, chart_figure, draw_chart, value_history

    log = json.loads((Path(__file__).resolve().parent / "fixtures" / "18MEX" / "13315.json").read_text())
    history = value_history(log)
    with matplotlib.rc_context(STYLE):
        heading = chart_figure("18MEX", history)._suptitle
    assert "4. Player 3 $2,436   5. Player 4 $2,343" in heading.get_text().splitlines()
    assert not heading.get_parse_math()
    png = draw_chart("18MEX", history)
    assert png == draw_chart("18MEX", history)
    assert b"matplotlib" not in png.lower()
    _compare("chart_18MEX_13315", png)
