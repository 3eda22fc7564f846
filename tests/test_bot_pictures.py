"""The bot's map after a run shows the run: the corporation's routes and a legend band."""

import io
import json
from pathlib import Path

from PIL import Image

from bot.families.g18xx import G18xx
from bot.session import Change
from engine.titles import load_18xx

LOG = json.loads((Path(__file__).parent / "fixtures" / "1830" / "26855.json").read_text())


def test_map_after_a_run_carries_its_routes():
    game = load_18xx(LOG, upto=92)  # NYNH has just run three 2-trains
    assert game.last_routes.get("NYNH")
    session = G18xx("1830", game)
    run = next(a for a in reversed(game.actions) if a["type"] == "run_routes")
    plain = Image.open(io.BytesIO(session.draw("map")))
    ran = Image.open(io.BytesIO(session.draw("map", Change(run, {}, {}))))
    assert ran.height > plain.height  # the legend band under the map
    assert ran.width == plain.width


def test_the_companies_picture_goes_in_two_with_every_change_of_it():
    """The companies picture is posted in two (corporations; players, privates, depot), each half as tall for a
    phone's viewer: an action that changes it posts both, and so does the game's start."""
    game = load_18xx(LOG, upto=92)
    session = G18xx("1830", game)
    assert {"companies", "players"} <= set(session.start_pictures)
    buy = next(a for a in game.actions if a["type"] == "buy_shares")
    assert {"companies", "players"} <= session.pictures_for(Change(buy, {}, {}))
    whole = Image.open(io.BytesIO(__import__("render").draw_companies("1830", session.named_summary(None),
                                                                      session.facts())))
    parts = [Image.open(io.BytesIO(session.draw(kind))) for kind in ("companies", "players")]
    assert all(p.width == whole.width and p.height < whole.height for p in parts)


def test_1817_posts_its_corporations_shares_and_loans_as_a_picture_of_their_own():
    """1817's corporations come in three tables (how each runs; shares, stations, privates; size, loans,
    shorts): the second and third are posted as a picture of their own with the other parts, whenever the
    companies picture is. A title whose corporations fit one picture has no such part."""
    log = json.loads((Path(__file__).parent / "fixtures" / "1817" / "15528.json").read_text())
    game = load_18xx(log, upto=300)
    session = G18xx("1817", game)
    assert {"companies", "shares", "players"} <= set(session.start_pictures)
    buy = next(a for a in game.actions if a["type"] == "buy_shares")
    assert {"companies", "shares", "players"} <= session.pictures_for(Change(buy, {}, {}))
    parts = [Image.open(io.BytesIO(session.draw(kind))) for kind in ("companies", "shares", "players")]
    assert len({p.width for p in parts}) == 1 and all(p.height <= p.width * 844 / 390 for p in parts)
    assert G18xx("1830", load_18xx(LOG, upto=92)).draw("shares") is None
