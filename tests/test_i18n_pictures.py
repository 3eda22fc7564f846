"""Pictures in Russian: golden PNGs of the 18xx stock market, companies and end-of-game chart and of Steam's
board and players, drawn with the game's language in force (the shipped DejaVu fonts draw Cyrillic, see
tests/test_i18n.py). Each differs from its English golden only where words are: the same picture otherwise.
Regenerate as the English ones (RENDER_GOLDEN_UPDATE=1, tests/test_render.py) and look at each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import ImageChops
from test_render import GOLDEN, _check_size, _compare, _img, _late_lines

import render
from engine.steam import Game
from i18n import speaking
from render.mapview import view_from_trace
from render.steam import draw_board, draw_players

HERE = Path(__file__).resolve().parent


def _differs_from_english(name: str, png: bytes) -> None:
    """The Russian picture is not the English one (its words changed) but has its size, or is taller where a
    longer text wraps over another line (the companies picture keeps to a phone's width)."""
    english = _img((GOLDEN / f"{name}.png").read_bytes())
    got = _img(png)
    assert got.size[0] >= english.size[0] * 0.9 and english.size[1] <= got.size[1] <= english.size[1] * 1.1, \
        (name, got.size, english.size)
    if got.size == english.size:
        assert ImageChops.difference(got, english).getbbox() is not None, name


@pytest.fixture(scope="module")
def late_summary():
    lines = _late_lines()
    return view_from_trace("1830", lines), lines[-1]


def test_1830_market_and_companies_in_russian(late_summary):
    _, summary = late_summary
    with speaking("ru"):
        pictures = (("market", render.draw_market("1830", summary)), ("companies", render.draw_companies("1830", summary)))
    for what, png in pictures:
        _check_size(png)
        _differs_from_english(f"{what}_1830_late", png)
        _compare(f"{what}_1830_late_ru", png)


def test_end_of_game_chart_in_russian():
    from render.chart import draw_chart, value_history

    log = json.loads((HERE / "fixtures" / "1830" / "1830_game_end_bank.json").read_text())
    with speaking("ru"):
        png = draw_chart("1830", value_history(log))
    _differs_from_english("chart_1830_game_end_bank", png)
    _compare("chart_1830_game_end_bank_ru", png)


def test_steam_board_and_players_in_russian():
    game = Game.from_18xx(json.loads((HERE / "fixtures" / "steam" / "rust_belt_basic_4p.json").read_text()), upto=150)
    with speaking("ru"):
        board, players = draw_board(game.view()), draw_players(game.summary())
    for name, png in (("steam_board_rust_belt_mid", board), ("steam_players_rust_belt_mid", players)):
        _check_size(png)
        _differs_from_english(name, png)
        _compare(f"{name}_ru", png)
    with speaking("en"):  # the language is the caller's: English again outside the block
        assert _img(draw_players(game.summary())).size == _img((GOLDEN / "steam_players_rust_belt_mid.png").read_bytes()).size


@pytest.mark.parametrize("title", ["1830", "18MEX"])
def test_a_cut_grid_market_says_its_prices_go_on_in_russian_on_a_line_of_its_own(late_summary, title):
    """The note that a cut grid market's prices go on to the right stands beside the legend where there is room
    (English); the Russian legend's words leave none, so the note has a line of its own under it, whole."""
    from i18n import _
    from render import market
    from render.fonts import font

    summary = late_summary[1] if title == "1830" else {"corporations": {"NdM": {"price": [0, 0, 5]}}}
    english = _img(render.draw_market(title, summary))
    with speaking("ru"):
        got = _img(render.draw_market(title, summary))
        hidden = market._zones_left_out(title, market.data.load(title)["market"], (got.width - 20) // market.GRID_W)
        top = max(info["price"] for row in market.data.load(title)["market"]["grid"] for info in row if info)
        note = _("prices go on to the right, up to {price}, with {zones}", price=top,
                 zones=", ".join(market._zone_word(z) for z in hidden)) if hidden else \
            _("prices go on to the right, up to {price}", price=top)
    assert got.width == english.width and got.height == english.height + market.NOTE_LINE
    ink = got.crop((0, english.height - 4, got.width, got.height)).convert("L").point(lambda v: 255 if v < 100 else 0)
    box = ink.getbbox()
    assert box and abs(box[0] - 20) <= 2 and abs(box[2] - box[0] - font(13).getlength(note)) <= 4, (box, note)
