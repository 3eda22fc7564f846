"""What a member may try on others through the fake Discord: text of theirs the bot echoes in a game's thread (an
imported log's result, names with invisible controls) reads as typed and pings nobody, and the heavy commands one
member may set going at once (imports, undo requests) are bounded, so one member cannot hold the machine that
every server's games share."""

from __future__ import annotations

import json
import re

import pytest
from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
from fakediscord.play import fixture_log, resolved_actions
from fakediscord.recorded import QuickPictures

from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")


def _threads(fake: FakeDiscord) -> list[int]:
    return sorted(c for c, ch in fake.channels.items() if ch.get("type") == 11)


def _game_of(rec) -> int:
    return int(rec.final.content.split("#")[1].split()[0])


async def _import(fake: FakeDiscord, member: int, log: dict, seated: list[int]):
    players = {f"player{i + 1}": UserRef(m) for i, m in enumerate(seated)}
    return await fake.command(member, fake.channel_id, "game",
                              {"file": AttachmentRef("game.json", json.dumps(log).encode()), **players}, sub="import")


async def test_an_imported_logs_result_is_told_as_typed_and_bounded(tmp_path):
    """The result an imported log gives is the file's, not the game's: its post names the players as written and
    gives numbers; anything else there is quoted (no mention, no Markdown, no wall of text pushing out whose
    turn it is)."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    await runner.start()
    try:
        log = fixture_log()
        members = [fake.add_user(n) for n in ("Ann", "Bob", "Cid", "Dee")]
        first = str(log["players"][0]["id"])
        junk = {"@everyone <@&42>": "**" + "x" * 3000, first: "`code` <@1>", **{str(n): 1 for n in range(50)}}
        rec = await _import(fake, members[0], dict(log, actions=resolved_actions(log)[:30], result=junk), members)
        assert rec.final.content.startswith("Imported"), rec.final.content
        said = next(m for m in fake.channel_messages(_threads(fake)[-1]) if m.content.startswith("Imported"))
        assert "Next: <@" in said.content, said.content  # whose turn it is, not cut off
        assert len(said.content) < 1000, len(said.content)
        unquoted = re.sub(r"`[^`]*`", "", said.content)  # what is not shown as code: no mention, no Markdown
        assert not any(x in unquoted for x in ("@everyone", "<@&", "<@1>", "**x")), said.content
        assert "Ann `'code' <@1>`" in said.content, said.content  # the player by name, the score quoted
        assert said.allowed_mentions.get("parse") == [] and not said.allowed_mentions.get("roles")
    finally:
        await runner.stop()
        await fake.stop()


async def test_names_lose_the_characters_that_show_nothing(tmp_path):
    """A name's control characters and direction marks are not kept (a right-to-left override would show the rest
    of its line backwards: whose turn it is, spelt anew): a member's Discord name and an imported log's names."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        ann = fake.add_user("Ann\u202e")
        bob = fake.add_user("B\x00o\u2067b\x07")
        await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        thread = _threads(fake)[-1]
        await fake.command(bob, thread, "game", {}, sub="join")
        lobby = fake.channel_messages(thread)[0].content
        assert "Ann, Bob." in lobby and not re.search("[\x00-\x09\x0b-\x1f\u202e\u2067]", lobby), repr(lobby)
        log = fixture_log()
        named = dict(log, actions=[], players=[{**p, "name": f"\u202eP{i}\x1b[31m"} for i, p in enumerate(log["players"])])
        rec = await _import(fake, ann, named, [])
        assert rec.final.content.startswith("Imported"), rec.final.content
        seats = await bot.db.seats(_game_of(rec))
        assert [s.name for s in seats] == ["P0[31m", "P1[31m", "P2[31m", "P3[31m"]
        said = next(m.content for m in fake.channel_messages(_threads(fake)[-1]) if m.content.startswith("Imported"))
        assert not re.search("[\x00-\x09\x0b-\x1f\u202e]", said), repr(said)
    finally:
        await runner.stop()
        await fake.stop()
