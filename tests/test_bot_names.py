"""Members' names with Markdown or mentions in them, through the fake Discord: every message writes them as typed
(escaped), none pings anyone by them, and the pictures draw them as given."""

from __future__ import annotations

import pytest
from fakediscord import BotRunner, FakeDiscord
from fakediscord.recorded import QuickPictures
from test_bot_lobby import _act_first_legal

from bot.session import engine_available, written_name

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")

NAMES = ("**Ann** [y](https://e.x)", "__Bob__ `x`", "~~Cid~~ @everyone <@123456789012345678>")  # 40 at most
WRITTEN = (r"\*\*Ann\*\* \[y](https://e.x)", r"\_\_Bob\_\_ \`x\`",
           r"\~\~Cid\~\~ @" + "\u200b" + r"everyone <@" + "\u200b" + r"123456789012345678>")


class NamesDrawn(QuickPictures):
    def __init__(self) -> None:
        super().__init__()
        self.names: list[dict] = []

    def picture(self, session, kind, change=None, names=None):
        self.names.append(dict(names or {}))
        return super().picture(session, kind, change, names)


async def test_names_are_written_as_typed_and_drawn_as_given(tmp_path):
    fake = await FakeDiscord().start()
    engine = NamesDrawn()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=engine)
    bot = await runner.start()
    try:
        ann, bob, cid = (fake.add_user(n) for n in NAMES)
        await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
        gid = int(next(c for c in fake.channel_messages(thread)[0].custom_ids if c.startswith("rh:join:"))
                  .split(":")[2])
        for uid in (bob, cid):
            await fake.command(uid, thread, "game", {}, sub="join")
        lobby = fake.channel_messages(thread)[0].content
        assert all(w in lobby for w in WRITTEN), lobby
        await fake.command(ann, thread, "game", {}, sub="start")
        lv = await bot.service.live(gid)
        members = [s.member_id for s in sorted(lv.seats, key=lambda s: s.position)]
        for member in members:
            await _act_first_legal(fake, member, thread)
        await fake.command(members[0], thread, "game", {"steps": 3}, sub="undo")  # a request naming the others
        listed = await fake.command(ann, thread, "game", {}, sub="list")
        status = await fake.command(ann, thread, "game", {}, sub="status")

        said = [m for m in fake.channel_messages(thread)] + [listed.final, status.final]
        for m in said:
            for raw in NAMES:  # no name reaches a message as typed: its Markdown would render
                assert raw not in m.content, m.content
            am = m.allowed_mentions or {}
            assert am.get("parse") == [] and set(int(u) for u in am.get("users") or []) <= {ann, bob, cid}, am
        text = "\n".join(m.content for m in said)
        assert all(w in text for w in WRITTEN)
        told = [m.content for m in fake.channel_messages(thread) if m.content.startswith(WRITTEN)]
        assert len(told) == 4 and "asks to undo" in told[-1], told  # three actions, the request: each by its name
        assert engine.names and all(set(n.values()) == set(NAMES) for n in engine.names)  # drawn as given
    finally:
        await runner.stop()
        await fake.stop()


@pytest.mark.parametrize("names", [NAMES, ("**A\\nn**", "__B\\ob__ `x`", "C\\id ~~x~~ <@123456789012345678>")],
                         ids=["markdown", "backslash"])
async def test_an_undo_stored_before_names_were_escaped_is_written_escaped(tmp_path, names):
    """An undo's sentences are stored as told; one stored before names were written escaped (and before records had
    a version) holds them as typed, and the history writes it as it writes a later one: escaped (a name typed with
    a backslash too), and a later one not escaped twice."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        ann, bob, cid = (fake.add_user(n) for n in names)
        await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
        for uid in (bob, cid):
            await fake.command(uid, thread, "game", {}, sub="join")
        await fake.command(ann, thread, "game", {}, sub="start")
        gid = next(iter(bot.service._live))
        lv = await bot.service.live(gid)
        members = [s.member_id for s in sorted(lv.seats, key=lambda s: s.position)]
        for member in members:
            await _act_first_legal(fake, member, thread)
        await fake.command(members[-1], thread, "game", {}, sub="undo")  # their own action: undone at once
        last = lv.names[lv.seat_of_member(members[-1]).player_id]

        def undo_line(rec) -> str:
            return next(line for line in rec.final.content.splitlines() if line.startswith("↩"))

        written = undo_line(await fake.command(ann, thread, "game", {}, sub="history"))
        assert written.count(last) == 2, written  # who undid, and who had bid
        db = bot.service.db.conn
        (told,) = await (await db.execute("SELECT told FROM undo_events WHERE game_id = ?", (gid,))).fetchone()
        for raw in names:
            told = told.replace(written_name(raw), raw)
        assert told != written and any(raw in told for raw in names)
        await db.execute("UPDATE undo_events SET told = ?, version = NULL WHERE game_id = ?", (told, gid))  # as stored
        # before
        await db.commit()
        assert undo_line(await fake.command(ann, thread, "game", {}, sub="history")) == written
    finally:
        await runner.stop()
        await fake.stop()


async def test_autocomplete_names_members_as_typed(tmp_path):
    """Autocomplete's choices are plain text (Discord shows no Markdown in them): a choice naming a member names
    them as typed, with no escape, while the thread's words escape the same name."""
    from fakediscord.play import fixture_log, imported_game

    from bot.db import Database
    from bot.service import Service
    from bot.session import Engine

    log = fixture_log()
    log = dict(log, players=[dict(p, name=n) for p, n in zip(log["players"], ("**Ann**", "__Bob__", "~~Cid~~",
                                                                               "`Dan`"), strict=True)])
    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        gid, callers = await imported_game(svc, log, 100)  # a player may buy SV from its owner
        lv = svc._live[gid]
        buyer = callers[lv.session.active_players()[0]]
        owner = lv.game.company("SV").owner
        choices = await svc.autocomplete(gid, buyer, "private", "company", "", {})
        assert choices and all(f"from {owner.name} for" in label for label, _value in choices), choices
        assert not any("\\" in label for label, _value in choices), choices
