"""1817's pictures from the engine's state (recorded game 15528, late in its sixth stock round): the map with
the mine and bridge markers, the one-row market wrapped into lines with its acquisition and liquidation
zones named, and the companies with their size, loans against the limit, interest and shorts.

Golden files: see tests/test_render.py (RENDER_GOLDEN_UPDATE=1 regenerates them)."""

from __future__ import annotations

import io
import json
from functools import cache
from pathlib import Path

from PIL import Image
from test_render import _compare, _where

import render
from engine.core.actions import resolve_undo
from engine.titles import rules_class

LOG = json.loads((Path(__file__).parent / "fixtures" / "1817" / "15528.json").read_text())
AT = 1300  # actions played: three mines and a bridge on the map, shorts, loans, a corporation liquidated


@cache
def _late():
    actions = [a for a in resolve_undo(LOG["actions"]) if a["type"] != "message"]
    game = rules_class("1817").from_18xx(dict(LOG, actions=actions[:AT]))
    summary = game.summary()
    names = {p["id"]: p["name"] for p in LOG["players"]}
    for p in summary["players"]:
        p["name"] = names[p["id"]]
    return game, summary, game.facts()


def test_map_shows_mines_and_bridges():
    game, _, _ = _late()
    view = game.map_view()
    markers = {coord: hv["markers"] for coord, hv in view["hexes"].items() if hv.get("markers")}
    assert markers["H9"] == ["bridge"] and sum(m == ["mine"] for m in markers.values()) >= 3
    png = render.draw_map(view)
    without = render.draw_map({**view, "hexes": {c: {k: v for k, v in hv.items() if k != "markers"}
                                                 for c, hv in view["hexes"].items()}})
    assert png != without
    _compare("map_1817_markers", png)


def test_market_wraps_its_row_and_names_the_zones():
    from render import colors, market

    _, summary, facts = _late()
    png = render.draw_market("1817", summary, facts)
    img = Image.open(io.BytesIO(png))
    # four lines of eight spaces, 840 px wide: a phone showing it 400 px wide reads its prices ~12 px high (three
    # lines of eleven, 1,140 px, read ~9 px)
    assert img.width == market.WRAP * market.WRAP_W + 40 <= 900 and img.height < 1.5 * img.width
    # its markers labels as wide as a space, one under another (round tokens two abreast were ~23 px across
    # on a phone, NYSW's name 6.7 px high): ~44 px wide on a phone, names up to 10.5 px
    for sym in ("A&S", "GT"):
        box = _where(img.convert("RGB"), colors.entity("1817", sym)[0])
        assert (box[2] - box[0]) * 400 / img.width >= 40, (sym, box)
    _compare("market_1817_zones", png)


def test_companies_show_size_loans_interest_and_shorts():
    game, summary, facts = _late()
    ops = facts["operators"]
    assert ops["A&S"]["total_shares"] == 10 and ops["A&S"]["loans"] == 4 and ops["A&S"]["max_loans"] == 10
    assert ops["A&S"]["interest"] == 4 * facts["loans"]["rate"] and sum(ops["A&S"]["shorts"].values()) == 10
    assert ops["R"]["zone"] == "liquidation" and facts["loans"]["out"] == sum(o.get("loans", 0) for o in ops.values())
    _compare("companies_1817_loans", render.draw_companies("1817", summary, facts))


def test_companies_and_market_in_russian():
    """The 1817 columns (size, loans, interest, shorts), the loans note, the zones and the corporations not
    started, in Russian: only the words differ from the English pictures."""
    from test_i18n_pictures import _differs_from_english

    from i18n import speaking

    _, summary, facts = _late()
    with speaking("ru"):
        pictures = (("companies_1817_loans", render.draw_companies("1817", summary, facts)),
                    ("market_1817_zones", render.draw_market("1817", summary, facts)))
    for name, png in pictures:
        _differs_from_english(name, png)
        _compare(f"{name}_ru", png)


def test_the_companies_picture_in_parts_is_its_parts(monkeypatch):
    """For a phone's viewer the tall companies picture (1817 late: 640 × ~2,900) goes in three, each within a
    phone screen's shape (390 × 844: ~1,385 px tall at 640 wide): the corporations with the header and their
    notes (how each runs), their shares and loans with the loans' note, then the players, privates and depot
    (these two under the title line alone). Each part is drawn exactly as in the whole picture (compared as
    drawn, before each PNG's own palette rounds its colours)."""
    from render import companies

    _, summary, facts = _late()
    with monkeypatch.context() as m:
        m.setattr(companies, "to_png", lambda img: img)
        whole = render.draw_companies("1817", summary, facts)
        parts = [render.draw_companies("1817", summary, facts, part) for part in companies.PARTS]
    assert companies.PARTS == ("corporations", "shares", "players")
    assert all(p.width == whole.width and p.height <= whole.width * 844 / 390 for p in parts)
    title_h, margin = 54, 16  # the title line (on every part); under a part's last block
    y = 0  # where each part's blocks are in the whole picture
    for k, part in enumerate(parts):
        top = 0 if k == 0 else title_h
        assert part.crop((0, 0, part.width, 44)) == whole.crop((0, 0, part.width, 44))  # the title line
        assert part.crop((0, top, part.width, part.height - margin)) == \
            whole.crop((0, y, part.width, y + part.height - margin - top))
        y += part.height - margin - top
    assert y == whole.height - margin
    # before any corporation has started there are no corporation tables (headings alone): the header and the
    # notes (loans, zones, the twenty not started) are the corporations picture, and there is no shares part
    start = rules_class("1817").from_18xx(dict(LOG, actions=[]))
    assert render.draw_companies("1817", start.summary(), start.facts(), "shares") is None
    assert all(h == companies.NOTE_LINE for h, _draw in companies._sheet("1817", start.summary(), start.facts()).corporations)
    # the loans' note is under the loans, in the shares part
    other = dict(facts, loans=dict(facts["loans"], out=facts["loans"]["out"] + 1))
    assert render.draw_companies("1817", summary, other, "corporations") == render.draw_companies("1817", summary, facts, "corporations")
    assert render.draw_companies("1817", summary, other, "shares") != render.draw_companies("1817", summary, facts, "shares")
    try:
        render.draw_companies("1817", summary, facts, "privates")
    except ValueError as e:
        assert "corporations, shares, players" in str(e)
    else:
        raise AssertionError("an unknown part was drawn")


def test_a_part_too_tall_for_a_phone_has_denser_rows():
    """With all twenty corporations started (1817_game_end_bankrupt after 779 actions) the shares part (two
    tables of twenty rows) and the players part (five players' many shorts, eleven privates) were taller than a
    phone's screen is at their width (640 × 1,646 and 1,608; the screen's shape: ~1,385): a part that would be
    has rows 27 px high instead of 34, and each fits; the corporations part, short enough, keeps its rows."""
    from render import companies

    log = json.loads((Path(__file__).parent / "fixtures" / "1817" / "1817_game_end_bankrupt.json").read_text())
    actions = [a for a in resolve_undo(log["actions"]) if a["type"] != "message"][:779]
    game = rules_class("1817").from_18xx(dict(log, actions=actions))
    summary, facts = game.summary(), game.facts()
    assert sum(1 for c in summary["corporations"].values() if c.get("ipoed") or c.get("floated")) == 20
    parts = [Image.open(io.BytesIO(render.draw_companies("1817", summary, facts, part))) for part in companies.PARTS]
    assert all(p.height <= p.width * companies.PHONE_SHAPE for p in parts), [p.size for p in parts]
    sheet = companies._sheet("1817", summary, facts)
    assert sheet.corporations[0][0] == 30 + companies.ROW_H * 21 + 16  # twenty corporations and the heads
    assert sheet.shares[0][0] == 30 + companies.DENSE_ROW_H * 21 + 16
