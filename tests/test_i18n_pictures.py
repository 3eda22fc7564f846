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
def test_a_cut_grid_markets_legend_and_note_are_written_large_in_lines_as_wide_as_the_picture(late_summary, title):
    """The legend and the note that a cut grid market's prices go on to the right are written at LEGEND_PX (16 px
    or more; they were 13 px, ~5 px on a phone) in lines as wide as the picture: the longer Russian words take
    more lines, not a wider picture; the note stands at the end of the legend's last line where there is room,
    else on a line of its own, whole."""
    from i18n import _
    from render import market
    from render.fonts import font

    summary = late_summary[1] if title == "1830" else {"corporations": {"NdM": {"price": [0, 0, 5]}}}
    assert market.LEGEND_PX >= 16
    english = _img(render.draw_market(title, summary))
    count = {}
    for lang in ("en", "ru"):
        with speaking(lang):
            got = _img(render.draw_market(title, summary))
            grid = market.data.load(title)["market"]["grid"]
            hidden = market._zones_left_out(title, market.data.load(title)["market"], (got.width - 20) // market.GRID_W)
            top = max(info["price"] for row in grid for info in row if info)
            note = _("prices go on to the right, up to {price}, with {zones}", price=top,
                     zones=", ".join(market._zone_word(z) for z in hidden)) if hidden else \
                _("prices go on to the right, up to {price}", price=top)
            lines = market.legend_lines(title, got.width, note)
            words = [w for *_, w in market._legend_entries(title)]
        assert got.width == english.width
        f = font(market.LEGEND_PX)
        for line in lines:  # every word within the picture
            for x, item in line:
                w = f.getlength(item) if isinstance(item, str) else market.LEGEND_SWATCH + 6 + f.getlength(words[item])
                assert 20 <= x and x + w <= got.width - 12, (lang, item)
        k, x = next((k, x) for k, line in enumerate(lines) for x, item in line if item == note)
        assert sum(isinstance(item, int) for line in lines for _x, item in line) == len(words)
        count[lang] = len(lines)
        y = got.height - 6 - (len(lines) - k) * market.LEGEND_LINE
        ink = got.crop((0, y, got.width, y + market.LEGEND_LINE)).convert("L").point(lambda v: 255 if v < 100 else 0)
        ink = ink.crop((int(x) - 2, 0, got.width, ink.height)).getbbox()
        assert ink and abs(ink[2] - ink[0] - f.getlength(note)) <= 4 and ink[3] - ink[1] >= 0.7 * market.LEGEND_PX, \
            (lang, ink, note)
    assert count["ru"] > count["en"] if title == "1830" else count["ru"] >= count["en"]  # the longer words wrap


@pytest.mark.parametrize("fixture, upto", [("18MEX/13315.json", None), ("18MEX/13315.json", 80),
                                           ("1830/1830_game_end_bank.json", None), ("1817/16281.json", None)])
def test_companies_picture_writes_every_cell_whole_in_both_languages(monkeypatch, fixture, upto):
    """A column grows to hold its longest cell, so nothing is cut short with `…`: Russian's `приоритет, ходит`
    (turn), `100% (10 резерв)` (IPO), `6' (устаревает)` (rusts on), `закрыта → 10% UdY` (a closed minor) were, and
    English's `priority, to act` and `4 (obsolete)`; the picture stays a phone's width (~640 px). No cell begins with a
    blank (the NdM without trains early in 18MEX 13315 had ` (max 4)`)."""
    from engine.titles import load_18xx
    from render import companies

    log = json.loads((HERE / "fixtures" / fixture).read_text())
    game = load_18xx(log, upto=upto)
    written = []
    draw_cell = companies._Table._cell

    def spy(d, x, y, w, h, text, f, fill, align):
        written.append((text, f.getlength(text) <= w - 2 * companies.PAD + 4 and text == text.strip()))
        return draw_cell(d, x, y, w, h, text, f, fill, align)

    monkeypatch.setattr(companies._Table, "_cell", staticmethod(spy))
    for lang in ("en", "ru"):
        with speaking(lang):
            img = _img(render.draw_companies(log["title"], game.summary(), game.facts()))
        assert img.width <= 710
    assert len(written) > 100 and [text for text, whole in written if not whole] == []


def test_1817s_merger_and_acquisition_rounds_are_named_in_russian():
    """The companies picture's header names the round: 1817's rounds after an operating round (the engine's
    `Merger Round 2.1 (of 2)`, `Acquisition Round 2.2 (of 2)`) were left in English in a Russian game."""
    from types import SimpleNamespace

    from engine.titles.g1817.mergers import AcquisitionRound1817, MergerRound1817
    from i18n.engine_words import round_text

    game = SimpleNamespace(turn=2, operating_rounds=2)
    said = []
    for cls, num in ((MergerRound1817, 1), (AcquisitionRound1817, 2)):
        described = SimpleNamespace(label=cls.label, game=game, round_num=num)
        text = cls.description.fget(described)
        with speaking("ru"):
            said.append(round_text(text))
        with speaking("en"):
            assert round_text(text) == text
    assert said == ["Раунд слияний 2.1 (из 2)", "Раунд поглощений 2.2 (из 2)"]


def test_the_charts_headings_and_labels_stay_clear_in_russian():
    """The chart's panel headings start at the picture's margin, as its ranking does: the Russian players'
    heading (`Игроки: деньги, акции по цене рынка, частные комп.`), begun over the plot, ran past the right edge.
    Of every other point's label, the one just before the last is left out where they would touch."""
    import matplotlib
    import matplotlib.text

    from render import chart

    history = chart.value_history(json.loads((HERE / "fixtures" / "1817" / "15528.json").read_text()), None)
    with speaking("ru"), matplotlib.rc_context(chart.STYLE):
        fig = chart.chart_figure("1817", history)
        fig.canvas.draw()
        width = fig.bbox.width
        for ax in fig.axes[:2]:
            heading = ax.get_title(loc="left")
            title = next(t for t in ax.get_children() if isinstance(t, matplotlib.text.Text) and t.get_text() == heading)
            box = title.get_window_extent()
            assert heading and 0.02 * width <= box.x0 and box.x1 <= 0.98 * width, (heading, box)
    # the points' labels along the bottom stand apart: `АР 9` ran into `итог` (1830, ten points)
    history = chart.value_history(json.loads((HERE / "fixtures" / "1830" / "1830_game_end_bank.json").read_text()))
    with speaking("ru"), matplotlib.rc_context(chart.STYLE):
        fig = chart.chart_figure("1830", history)
        fig.canvas.draw()
        for ax in fig.axes[:2]:
            boxes = [t.get_window_extent() for t in ax.get_xticklabels() if t.get_text()]
            assert len(boxes) >= 4 and boxes[-1].x1 > boxes[-2].x1
            assert all(b.x0 - a.x1 >= 10 for a, b in zip(boxes, boxes[1:], strict=False)), boxes
