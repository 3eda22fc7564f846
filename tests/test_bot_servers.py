"""Two servers share the bot: through the fake Discord, nobody reaches a game of another server (commands,
autocomplete, buttons), host powers are judged in the game's own thread, and the bot comes up with a
broken game among healthy ones."""

from __future__ import annotations

import asyncio
import json

import pytest
from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
from fakediscord.play import fixture_log

from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")


def _threads(fake: FakeDiscord) -> list[int]:
    return sorted(c for c, ch in fake.channels.items() if ch.get("type") == 11)


async def _open(fake: FakeDiscord, host: int, channel: int) -> tuple[int, int, object]:
    rec = await fake.command(host, channel, "game", {"title": "1830"}, sub="new")
    assert "is open in" in rec.final.content, rec.final.content
    thread = _threads(fake)[-1]
    lobby = fake.channel_messages(thread)[0]
    gid = int(next(c for c in lobby.custom_ids if c.startswith("rh:join:")).split(":")[2])
    return gid, thread, lobby


async def _snapshot(bot, gids):
    return {g: (await bot.db.get_game(g), await bot.db.seats(g), await bot.db.actions(g),
                await bot.db.reminder(g)) for g in gids}


async def test_no_command_reaches_a_game_of_another_server(tmp_path):
    fake = await FakeDiscord().start()
    guild_b, channel_b = fake.add_guild("elsewhere")
    runner = BotRunner(fake, str(tmp_path / "rh.db"))
    bot = await runner.start()
    try:
        ann, bob, cid = (fake.add_user(n) for n in ("Ann", "Bob", "Cid"))
        eve = fake.add_user("Eve", admin=guild_b)       # administrator of the other server only
        # server A: a running game, a lobby and an imported game with free seats
        gid, thread, _ = await _open(fake, ann, fake.channel_id)
        for uid in (bob, cid):
            await fake.command(uid, thread, "game", {}, sub="join")
        await fake.command(ann, thread, "game", {}, sub="start")
        lobby_id, lobby_thread, _ = await _open(fake, ann, fake.channel_id)
        log = dict(fixture_log(), actions=[])
        rec = await fake.command(ann, fake.channel_id, "game",
                                 {"file": AttachmentRef("g.json", json.dumps(log).encode())}, sub="import")
        imported = int(rec.final.content.split("#")[1].split()[0])
        gids = (gid, lobby_id, imported)
        before = await _snapshot(bot, gids)
        posted = len([m for m in fake.messages if m.via == "channel"])

        # server B: its administrator and the host herself, by game number and autocomplete (buttons only
        # exist on the game's own messages, so they come from its server; the service checks them the same way)
        for uid in (eve, ann):
            calls = [("game", {"game": gid}, "abort"), ("game", {"game": lobby_id}, "start"),
                     ("game", {"game": lobby_id, "member": UserRef(ann)}, "kick"),
                     ("game", {"game": gid, "old": UserRef(bob), "new": UserRef(eve)}, "replace"),
                     ("game", {"game": lobby_id}, "join"), ("game", {"game": lobby_id}, "leave"),
                     ("game", {"game": imported, "seat": 1}, "claim"), ("game", {"game": gid}, "status"),
                     ("game", {"game": gid}, "history"), ("game", {"game": gid}, "export"),
                     ("game", {"game": gid, "hours": 1.0}, "remind"), ("game", {"game": gid}, "undo"),
                     ("pass", {"game": gid}, None), ("bid", {"game": gid, "company": "SV", "price": 20}, None)]
            for name, options, sub in calls:
                rec = await fake.command(uid, channel_b, name, options, sub=sub)
                assert rec.final.ephemeral and "in this server" in rec.final.content, (name, sub, rec.final.content)
                assert not rec.final.attachments
            choices = await fake.autocomplete(uid, channel_b, "bid", {"game": gid, "company": ""}, "company")
            assert choices == []
            rec = await fake.command(uid, channel_b, "game", {}, sub="list")
            assert rec.final.content == "No open games."
        assert await _snapshot(bot, gids) == before
        assert len([m for m in fake.messages if m.via == "channel"]) == posted

        # server A: Manage Threads counts in the game's own thread, not in another channel
        other_channel = fake.add_channel(fake.guild_id, "off-topic")
        mod = fake.add_user("Mod", manages=(other_channel,))
        rec = await fake.command(mod, other_channel, "game", {"game": lobby_id}, sub="abort")
        assert "Only the host" in rec.final.content
        admin = fake.add_user("Root", admin=fake.guild_id)
        rec = await fake.command(admin, other_channel, "game", {"game": lobby_id}, sub="abort")
        assert "Only the host" in rec.final.content  # typed elsewhere than the game's thread or channel
        rec = await fake.command(admin, lobby_thread, "game", {}, sub="abort")
        assert rec.final.content == "Done." and (await bot.db.get_game(lobby_id)).status == "aborted"
        assert fake.unknown == []
    finally:
        await runner.stop()
        await fake.stop()


async def test_the_bot_starts_with_a_broken_game_and_serves_the_others(tmp_path):
    fake = await FakeDiscord().start()
    db_path = str(tmp_path / "rh.db")
    runner = BotRunner(fake, db_path)
    await runner.start()
    try:
        ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
        games = []
        for _ in range(2):
            gid, thread, _ = await _open(fake, ann, fake.channel_id)
            await fake.command(bob, thread, "game", {}, sub="join")
            await fake.command(ann, thread, "game", {}, sub="start")
            games.append((gid, thread))
        (good, good_thread), (bad, bad_thread) = games
        await runner.stop()
        import sqlite3
        raw = sqlite3.connect(db_path)
        raw.execute("INSERT INTO actions(game_id, seq, action, action_id, created_at) VALUES (?, 1, ?, 1, 0)",
                    (bad, json.dumps({"type": "lay_tile", "entity": "NYC", "entity_type": "corporation",
                                      "hex": "A1", "tile": "57-0", "rotation": 0, "id": 1})))
        raw.commit()
        raw.close()
        bot = await runner.start()
        await asyncio.wait_for(bot.resumed, 20)  # the running games are replayed once connected
        assert list(bot.service.broken) == [bad]
        rec = await fake.command(ann, bad_thread, "game", {}, sub="status")
        assert f"Game #{bad} cannot be loaded" in rec.final.content
        rec = await fake.command(ann, good_thread, "game", {}, sub="status")
        assert "Next:" in rec.final.content
    finally:
        await runner.stop()
        await fake.stop()
