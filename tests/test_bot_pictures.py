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
