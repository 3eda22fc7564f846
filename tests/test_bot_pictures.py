"""The bot's map after a run shows the run: the corporation's routes and a legend band."""

import io
import json
from pathlib import Path

from PIL import Image

from bot.engine_adapter import Engine
from engine.titles import load_18xx

LOG = json.loads((Path(__file__).parent / "fixtures" / "1830" / "26855.json").read_text())


def test_map_after_a_run_carries_its_routes():
    game = load_18xx(LOG, upto=92)  # NYNH has just run three 2-trains
    assert game.last_routes.get("NYNH")
    engine = Engine()
    plain = Image.open(io.BytesIO(engine.draw_map(game)))
    ran = Image.open(io.BytesIO(engine.draw_map(game, ran="NYNH")))
    assert ran.height > plain.height  # the legend band under the map
    assert ran.width == plain.width
