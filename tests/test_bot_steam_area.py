"""The board around a place, through the real bot (discord.py) against the fake Discord: `/game status place:`
answers with the status and, instead of the whole board (whose names a phone writes ~2.6 px high), the part of
it around a city, town or hex `q,r`, legible on a phone; a name that is no place, or several, is told so; a game
without such a picture says so. In English and in Russian."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
from fakediscord.play import GUILD
from fakediscord.recorded import QuickPictures
from PIL import Image

from bot.access import Caller
from bot.db import Database
from bot.errors import UserError
from bot.service import Service
from bot.session import Engine, engine_available
from render.steam.board import area_box

pytestmark = pytest.mark.skipif(not engine_available(), reason="engines not importable")

FIXTURE = Path(__file__).parent / "fixtures" / "steam" / "eastern_standard_5p.json"
WORDS = {
    "en": {"status": "Eastern US & Canada, standard game", "two": "`Springfield` names several places: 6,23, 24,6",
           "none": "`Atlantis` is not a city, town or hex `q,r` of this board."},
    "ru": {"status": "Eastern US & Canada, стандартная игра", "two": "`Springfield` — это несколько мест: 6,23, 24,6",
           "none": "`Atlantis` — не город, не посёлок и не гекс `q,r` этого поля."},
}


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_status_shows_the_board_around_a_place(tmp_path, lang):
    say = WORDS[lang]
    log = json.loads(FIXTURE.read_text(encoding="utf-8"))
    fake = await FakeDiscord().start()
    fake.guild_locale = lang
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        users = [fake.add_user(p["name"], locale=lang) for p in log["players"]]
        opts = {"file": AttachmentRef("game.json", json.dumps(log).encode())}
        opts.update({f"player{i + 1}": UserRef(u) for i, u in enumerate(users)})
        await fake.command(users[0], fake.channel_id, "game", opts, sub="import")
        thread = max(cid for cid, ch in fake.channels.items() if ch.get("type") == 11)
        game = bot.service._live[max(bot.service._live)].session.game

        rec = await fake.command(users[1], thread, "game", {"place": "chicago"}, sub="status")
        assert say["status"] in rec.final.content, rec.final.content
        (name, data), = rec.final.attachments
        chicago = next(h for h, c in game.board.cities.items() if c.name == "Chicago")
        box = area_box("eastern_us_and_canada", chicago)
        assert name.endswith("status-area.png") and Image.open(io.BytesIO(data)).size == (box[2] - box[0],
                                                                                           box[3] - box[1])
        rec = await fake.command(users[1], thread, "game", {"place": "6,23"}, sub="status")
        assert [n for n, _ in rec.final.attachments] == [name]

        for place, words in (("Springfield", say["two"]), ("Atlantis", say["none"])):
            rec = await fake.command(users[1], thread, "game", {"place": place}, sub="status")
            assert words in rec.final.content and not rec.final.attachments, rec.final.content
        rec = await fake.command(users[1], thread, "game", {}, sub="status")
        assert {n.split("-")[-1] for n, _ in rec.final.attachments} == {"map.png", "players.png"}
    finally:
        await runner.stop()
        await fake.stop()


async def test_an_18xx_game_has_no_board_around_a_place(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        who = [Caller(21 + i, n, GUILD, 9501) for i, n in enumerate(("Ann", "Bob", "Cid"))]
        row = await svc.new_game(who[0], title="1830", seed=3, channel_id=8500, thread_id=9501)
        for c in who[1:]:
            await svc.join(row.id, c)
        await svc.start(row.id, who[0])
        with pytest.raises(UserError, match="1830 has no picture of the board around a place"):
            await svc.status(row.id, who[1], place="E19")
        assert (await svc.status(row.id, who[1])).text
