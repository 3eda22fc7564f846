"""Lobby (one message edited in place), seats, undo (own and by a vote that survives a restart), reminders,
DMs, export/status/history through the fake Discord, with the real engine and the real renderer."""

from __future__ import annotations

import json

import pytest
from fakediscord import BotRunner, FakeDiscord, UserRef

from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")


async def _act_first_legal(fake: FakeDiscord, uid: int, thread: int):
    """Bid on the first private offered, at the price autocomplete suggests."""
    companies = await fake.autocomplete(uid, thread, "bid", {"company": "", "price": 0}, "company")
    assert companies, "autocomplete offered nothing"
    company = companies[0]["value"]
    prices = await fake.autocomplete(uid, thread, "bid", {"company": company, "price": ""}, "price")
    assert prices
    return await fake.command(uid, thread, "bid", {"company": company, "price": prices[0]["value"]})


async def test_lobby_undo_reminders_dms_export(tmp_path):
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"))
    bot = await runner.start()
    try:
        ann, bob, cid, dan = (fake.add_user(n) for n in ("Ann", "Bob", "Cid", "Dan"))
        rec = await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        assert rec.final.ephemeral and "is open in" in rec.final.content
        thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
        lobby = fake.channel_messages(thread)[0]
        assert "lobby (1/6): Ann" in lobby.content
        join = next(c for c in lobby.custom_ids if c.startswith("rh:join:"))
        gid = int(join.split(":")[2])

        for uid in (bob, cid, dan):
            rec = await fake.click(uid, lobby, join)
            assert rec.final.content == "Done."
        rec = await fake.click(bob, lobby, join)
        assert "already in this game" in rec.final.content
        assert "lobby (4/6): Ann, Bob, Cid, Dan" in lobby.content and "Dan joins" in lobby.content
        rec = await fake.command(dan, thread, "game", {}, sub="leave")
        assert "lobby (3/6)" in lobby.content and "Dan leaves" in lobby.content
        rec = await fake.command(bob, thread, "game", {}, sub="start")
        assert "Only the host" in rec.final.content
        rec = await fake.command(ann, thread, "game", {"member": UserRef(cid)}, sub="kick")
        assert "Cid was removed" in lobby.content
        rec = await fake.command(cid, thread, "game", {}, sub="join")
        assert "Cid joins" in lobby.content and "join" in lobby.custom_ids[0]
        # the lobby is one message, edited in place; nobody was pinged by it
        assert fake.channel_messages(thread) == [lobby] and lobby.edits == 6
        assert not (lobby.allowed_mentions or {}).get("users")

        # start: seats shuffled from the seed, first player pinged alone, real pictures attached
        rec = await fake.command(ann, thread, "game", {}, sub="start")
        start = fake.channel_messages(thread)[-1]
        assert "starts. Seats:" in start.content
        assert "started" in lobby.content and lobby.custom_ids == []
        first = [int(u) for u in start.allowed_mentions["users"]]
        assert len(first) == 1 and first[0] in (ann, bob, cid)
        assert start.allowed_mentions.get("parse") == []
        assert {n.rsplit("-", 1)[-1] for n, _ in start.attachments} == {"map.png", "companies.png", "players.png"}
        assert all(d.startswith(b"\x89PNG") and len(d) > 1000 for _, d in start.attachments)

        lv = await bot.service.live(gid)
        seat_members = [s.member_id for s in sorted(lv.seats, key=lambda s: s.position)]
        assert seat_members[0] == first[0]
        p1, p2, p3 = seat_members

        # p1 bids, then takes it back (own last action)
        rec = await _act_first_legal(fake, p1, thread)
        assert rec.final.content.startswith("Done"), rec.final.content
        assert await bot.db.action_count(gid) == 1
        rec = await fake.command(p1, thread, "game", {}, sub="undo")
        assert rec.final.content == "Undone.", rec.final.content
        assert await bot.db.action_count(gid) == 0
        assert "undid 1 action" in fake.channel_messages(thread)[-1].content

        # p1 and p2 act; p1 may not undo p2's action alone -> a vote with buttons, kept across a restart
        await _act_first_legal(fake, p1, thread)
        await _act_first_legal(fake, p2, thread)
        assert await bot.db.action_count(gid) == 2
        rec = await fake.command(p1, thread, "game", {"steps": 2}, sub="undo")
        assert "others must agree" in rec.final.content
        vote = fake.channel_messages(thread)[-1]
        assert sorted(int(u) for u in vote.allowed_mentions["users"]) == sorted((p2, p3))
        yes = next(c for c in vote.custom_ids if c.startswith("rh:undo_yes:"))
        rec = await fake.click(p2, vote, yes)
        assert await bot.db.action_count(gid) == 2
        await runner.stop()
        bot = await runner.start()
        player_of = {s.member_id: s.player_id for s in lv.seats}
        assert (await bot.db.undo_request(gid)).agreed == {player_of[p1], player_of[p2]}
        rec = await fake.click(p3, vote, yes)
        assert await bot.db.action_count(gid) == 0
        assert "undid 2 action" in fake.channel_messages(thread)[-1].content
        assert vote.custom_ids == [] and "everyone agreed" in vote.content
        assert await bot.db.undo_request(gid) is None

        # a vote ends when the game goes on
        await _act_first_legal(fake, p1, thread)
        await _act_first_legal(fake, p2, thread)
        rec = await fake.command(p1, thread, "game", {"steps": 2}, sub="undo")
        vote = fake.channel_messages(thread)[-1]
        await _act_first_legal(fake, p3, thread)
        assert vote.custom_ids == [] and "the game went on" in vote.content
        assert await bot.db.undo_request(gid) is None
        rec = await fake.command(p3, thread, "game", {}, sub="undo")
        rec = await fake.command(p2, thread, "game", {}, sub="undo")
        rec = await fake.command(p1, thread, "game", {}, sub="undo")
        assert await bot.db.action_count(gid) == 0

        # DMs: p2 opts in; when it becomes p2's turn a DM goes out
        rec = await fake.command(p2, thread, "game", {"on": True}, sub="notify")
        assert "DM you" in rec.final.content
        await _act_first_legal(fake, p1, thread)
        await fake.wait_for_message(lambda m: fake.channels.get(m.channel_id, {}).get("type") == 1)
        dms = [m for m in fake.messages if fake.channels.get(m.channel_id, {}).get("type") == 1]
        assert dms and "your turn" in dms[0].content
        assert f"https://discord.com/channels/{fake.guild_id}/{thread}" in dms[0].content
        assert fake.channels[dms[0].channel_id]["recipients"][0]["id"] == str(p2)

        # reminders: stored in SQLite, posted in the thread (which gets unarchived), pinging only p2
        rec = await fake.command(ann, thread, "game", {"hours": 6.0}, sub="remind")
        rem = await bot.db.reminder(gid)
        assert rem.enabled and rem.first_after == 6 * 3600 and rem.next_at is not None
        await bot.db.set_reminder(gid, next_at=1.0)
        sent = await bot.send_reminders()
        assert sent == 1
        msg = fake.channel_messages(thread)[-1]
        assert msg.content.startswith("Reminder") and [int(u) for u in msg.allowed_mentions["users"]] == [p2]
        assert thread in fake.unarchived
        assert (await bot.db.reminder(gid)).next_at > 1e9
        rec = await fake.command(ann, thread, "game", {"hours": 0.0}, sub="remind")
        assert not (await bot.db.reminder(gid)).enabled

        # read-only commands, for anyone
        rec = await fake.command(dan, thread, "game", {}, sub="status")
        assert rec.final.ephemeral and "Next:" in rec.final.content
        assert [name.rsplit("-", 1)[-1] for name, _ in rec.final.attachments] == \
            ["map.png", "market.png", "companies.png", "players.png", "chart.png"]
        rec = await fake.command(dan, thread, "game", {}, sub="history")
        *undos, last = rec.final.content.splitlines()  # the five undos above, told before the one action left
        assert last.startswith("1. ") and len(undos) == 5 and all(" undid " in u for u in undos)
        assert undos[1].startswith("↩ With everyone's agreement (") and " undid 2 actions taken by " in undos[1]
        rec = await fake.command(dan, fake.channel_id, "game", {}, sub="list")
        assert f"#{gid} 1830" in rec.final.content
        rec = await fake.command(dan, fake.channel_id, "game", {"game": gid}, sub="export")
        (name, data), = rec.final.attachments
        exported = json.loads(data)
        assert exported["title"] == "1830" and len(exported["actions"]) == 1
        seated = sorted(lv.seats, key=lambda s: s.position)
        assert [p["id"] for p in exported["players"]] == [s.player_id for s in seated]

        # a member without a seat cannot act; a wrong thread is refused politely
        rec = await fake.command(dan, thread, "pass", {})
        assert "no seat" in rec.final.content
        rec = await fake.command(p2, fake.channel_id, "pass", {})
        assert "game's thread" in rec.final.content
        assert fake.unknown == []
    finally:
        await runner.stop()
        await fake.stop()


@pytest.mark.parametrize("lang, steam, rules", [
    ("en", "(Rust Belt; basic game)", "(optional rules: Optional extra 6-Train)"),
    ("ru", "(Rust Belt; базовая игра)", "(дополнительные правила: Optional extra 6-Train)"),
])
async def test_a_lobby_names_its_settings_in_words(tmp_path, lang, steam, rules):
    """The lobby line names a game's settings by the words /game new offers them with, in the member's
    language, not by their stored values."""
    fake = await FakeDiscord().start()
    fake.guild_locale = lang
    runner = BotRunner(fake, str(tmp_path / "rh.db"))
    await runner.start()
    try:
        ann = fake.add_user("Ann", locale=lang)
        lobbies = []
        for settings in ({"title": "steam", "map": "rust_belt", "mode": "basic"},
                         {"title": "1830", "rules": "optional_6_train"}):
            await fake.command(ann, fake.channel_id, "game", settings, sub="new")
            thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
            lobbies.append(fake.channel_messages(thread)[0].content)
        assert steam in lobbies[0] and "rust_belt" not in lobbies[0], lobbies[0]
        assert rules in lobbies[1] and "optional_6_train" not in lobbies[1], lobbies[1]
    finally:
        await runner.stop()
