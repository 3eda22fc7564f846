"""The thread's pinned summary through the fake Discord: one message, pinned when the game starts, edited
after every action (never reposted), pinned again when a member unpins it, posted anew when deleted; its id
is stored with the game and survives a restart."""

from __future__ import annotations

import pytest
from fakediscord import BotRunner, FakeDiscord
from test_bot_lobby import _act_first_legal

from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")


async def test_the_pinned_summary_follows_the_game(tmp_path):
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        ann, bob, cid = (fake.add_user(n) for n in ("Ann", "Bob", "Cid"))
        await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
        lobby = fake.channel_messages(thread)[0]
        gid = int(next(c for c in lobby.custom_ids if c.startswith("rh:join:")).split(":")[2])
        for uid in (bob, cid):
            await fake.command(uid, thread, "game", {}, sub="join")
        assert fake.pinned_messages(thread) == []  # a lobby has no summary yet

        await fake.command(ann, thread, "game", {}, sub="start")
        [pin] = fake.pinned_messages(thread)
        assert "starts. Seats:" in fake.channel_messages(thread)[-1].content  # the news stays last
        lv = await bot.service.live(gid)
        first, second, third = [lv.names[s.player_id] for s in sorted(lv.seats, key=lambda s: s.position)]
        lines = pin.content.splitlines()
        assert lines[0] == f"**1830** game #{gid} — Auction Round 1, phase 2, bank $9600."
        assert lines[1].startswith("Standings: 1. ") and all(f"{n} $800" in lines[1] for n in ("Ann", "Bob", "Cid"))
        assert lines[-1].startswith(f"Next: **{first}**")
        assert not (pin.allowed_mentions or {}).get("users")  # nobody is pinged by an edit
        assert (await bot.db.get_game(gid)).pin_message_id == pin.id

        # after every action the same message is edited in place
        members = {s.player_id: s.member_id for s in lv.seats}
        order = [members[s.player_id] for s in sorted(lv.seats, key=lambda s: s.position)]
        edits, posts = pin.edits, len(fake.channel_messages(thread))
        await _act_first_legal(fake, order[0], thread)
        assert pin.edits == edits + 1 and pin.content.splitlines()[-1].startswith(f"Next: **{second}**")
        assert fake.pinned_messages(thread) == [pin] and len(fake.channel_messages(thread)) == posts + 1

        # a member unpins it: the next action pins it again, still one message
        fake.unpin(pin)
        await _act_first_legal(fake, order[1], thread)
        assert fake.pinned_messages(thread) == [pin]

        # a member deletes it: the next action (after a restart) posts a new one and remembers it
        fake.delete_message(pin)
        await runner.stop()
        bot = await runner.start()
        await _act_first_legal(fake, order[2], thread)
        [again] = fake.pinned_messages(thread)
        assert again.id != pin.id and (await bot.db.get_game(gid)).pin_message_id == again.id
        assert again.content.splitlines()[-1].startswith(f"Next: **{first}**")
        assert fake.channel_messages(thread)[-1] is not again  # the action's news is still the last post

        # an undo edits it back
        await fake.command(order[2], thread, "game", {}, sub="undo")
        assert again.content.splitlines()[-1].startswith(f"Next: **{third}**")
        assert fake.pinned_messages(thread) == [again]
        assert not fake.unknown
    finally:
        await runner.stop()
        await fake.stop()
