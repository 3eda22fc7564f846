"""The First Player free pass through the real bot (discord.py) against the fake Discord: the holder is offered
two buttons, using the free pass or declining it to drop out at once (the rulebook's "можете", may), and the
`free_pass` option of `/steam pass` with its autocomplete; the others keep one Pass button, and a pass of theirs
naming a free pass is refused with the engine's reason. In English and in Russian."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
from fakediscord.recorded import QuickPictures

from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engines not importable")

FIXTURE = Path(__file__).parent / "fixtures" / "steam" / "eastern_standard_5p.json"
HOLDER_PASS = 43  # the log's id of Eve's pass using the free pass she holds after taking First Player
WORDS = {
    "en": {"imported": "Imported", "done": "Done", "declines": "Eve declines the First Player free pass and drops "
           "out of the auction", "none": "Cid holds no First Player free pass in this auction",
           "hint": "(high bid: Dee $0) (/steam bid), use your First Player free pass, or pass and drop out"},
    "ru": {"imported": "Импортировано", "done": "Сделано", "declines": "Eve отказывается от бесплатного паса "
           "первого игрока и выходит из аукциона", "none": "У игрока Cid нет бесплатного паса первого игрока",
           "hint": "(высшая ставка: Dee $0) (/стим ставка), бесплатный пас первого игрока или пас с выходом"},
}


def _buttons(message) -> set[str]:
    return {c.split(":")[1] for c in message.custom_ids if c.startswith("rh:")}


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_free_pass_holder_chooses_to_use_it_or_drop_out(tmp_path, lang):
    say = WORDS[lang]
    log = json.loads(FIXTURE.read_text(encoding="utf-8"))
    upto = next(i for i, a in enumerate(log["actions"]) if a["id"] == HOLDER_PASS)
    fake = await FakeDiscord().start()
    fake.guild_locale = lang
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        users = {p["name"]: fake.add_user(p["name"], locale=lang) for p in log["players"]}
        opts = {"file": AttachmentRef("game.json", json.dumps(dict(log, actions=log["actions"][:upto])).encode())}
        opts.update({f"player{i + 1}": UserRef(users[p["name"]]) for i, p in enumerate(log["players"])})
        rec = await fake.command(users["Ann"], fake.channel_id, "game", opts, sub="import")
        assert rec.final.content.startswith(say["imported"]), rec.final.content
        thread = max(cid for cid, ch in fake.channels.items() if ch.get("type") == 11)
        game_id = int(rec.final.content.replace("№", "#").split("#")[1].split()[0])
        live = bot.service._live[game_id]
        assert live.session.active_players() == [5]  # Eve, holding the free pass
        posted = fake.channel_messages(thread)[-1]
        assert {"free_pass", "drop_out"} <= _buttons(posted) and "pass" not in _buttons(posted), posted.custom_ids
        assert say["hint"] in posted.content, posted.content

        choices = await fake.autocomplete(users["Eve"], thread, "steam", {"free_pass": ""}, "free_pass", sub="pass")
        assert [c["value"] for c in choices] == ["use", "decline"], choices

        # Eve declines it: out at once, on the rightmost free slot (Bob passed first and has the last)
        await fake.click(users["Eve"], posted, next(c for c in posted.custom_ids if c.startswith("rh:drop_out:")))
        assert fake.channel_messages(thread)[-1].content.startswith(say["declines"]), \
            fake.channel_messages(thread)[-1].content
        assert live.session.export()["actions"][-1] == {**log["actions"][upto], "free_pass": False}
        assert live.session.summary()["auction"]["slots"] == [None, None, None, 5, 2]
        after = fake.channel_messages(thread)[-1]
        assert "pass" in _buttons(after) and "drop_out" not in _buttons(after), after.custom_ids
        # a pass that names a free pass its sender does not hold: the engine's reason, nothing done
        count = len(live.session.actions)
        rec = await fake.command(users["Cid"], thread, "steam", {"free_pass": "use"}, sub="pass")
        assert say["none"] in rec.final.content and rec.final.ephemeral, rec.final.content
        assert len(live.session.actions) == count
        rec = await fake.command(users["Cid"], thread, "steam", {}, sub="pass")
        assert rec.final.content.startswith(say["done"]), rec.final.content
    finally:
        await runner.stop()
        await fake.stop()
