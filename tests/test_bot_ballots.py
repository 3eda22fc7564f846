"""Undo requests and trade offers (ballots: their message is their only way to answer) through the fake Discord and
the service: asking again and again pings the seats asked once in a while, not each time."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from fakediscord import BotRunner, FakeDiscord
from test_bot_stale import _train_from_another_president, _two_played

from bot.db import Database
from bot.service import BALLOT_PING_EVERY, Service
from bot.session import Engine, engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")


def _pinged(message) -> list[int]:
    return sorted(int(u) for u in (message.allowed_mentions or {}).get("users") or [])


async def test_asking_to_undo_again_and_again_pings_the_others_once_in_a_while(tmp_path):
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    now = [1000.0]
    bot.service.clock = lambda: now[0]
    try:
        gid, thread, (first, second, third) = await _two_played(fake, bot)
        name = {s.member_id: s.name for s in bot.service._live[gid].seats}

        async def ask(member: int, steps: int = 2):
            rec = await fake.command(member, thread, "game", {"steps": steps}, sub="undo")
            assert rec.final.content == "Undo requested; the others must agree.", rec.final.content
            return fake.channel_messages(thread)[-1]

        vote = await ask(first)
        assert _pinged(vote) == sorted((second, third)) and f"<@{second}>" in vote.content
        for steps in (1, 2, 1):  # the same seat asking again at once: posted, nobody pinged
            now[0] += 60
            again = await ask(first, steps)
            assert again.id != vote.id and _pinged(again) == [], again.content
            assert f"<@{second}>" not in again.content, again.content
            whom = again.content.split("Everyone must agree: ")[1].splitlines()[0]
            assert sorted(whom.split(", ")) == sorted((name[second], name[third])), again.content
            assert f"Nobody was pinged: {name[first]} asked them less than 5 minutes ago" in again.content
        other = await ask(second)  # another seat's request pings
        assert _pinged(other) == sorted((first, third))
        now[0] += BALLOT_PING_EVERY  # long enough since the first member's last ping
        later = await ask(first)
        assert _pinged(later) == sorted((second, third)) and "Nobody was pinged" not in later.content

        # the request posted without a ping is as open as any: its buttons undo
        req = await bot.db.undo_request(gid)
        for member in (second, third):
            rec = await fake.click(member, later, f"rh:undo_yes:{gid}:{req.token}")
            assert rec.final.content == "Vote counted.", rec.final.content
        assert await bot.db.action_count(gid) == 0
    finally:
        await runner.stop()
        await fake.stop()


async def test_offering_a_trade_again_and_again_pings_the_seller_once_in_a_while(tmp_path):
    posts = []

    async def posted(reply):
        posts.append(reply)
        return SimpleNamespace(id=len(posts))

    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Engine(), pictures=False)
        now = [1000.0]
        svc.clock = lambda: now[0]
        gid, buyer, seller, wanted = await _train_from_another_president(svc)

        async def offer(price: int):
            await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": price}, posted)
            return next(p for p in reversed(posts) if any(b.startswith("offer_yes:") for b in p.buttons))

        assert (await offer(300)).mention == [seller.member_id]
        again = await offer(290)
        assert again.mention == [] and f"<@{seller.member_id}>" not in again.text and "Nobody was pinged" in again.text
        now[0] += BALLOT_PING_EVERY
        assert (await offer(280)).mention == [seller.member_id]
        made = await db.trade_offer(gid)
        await svc.answer_offer(gid, seller, True, made.token, posted, message_id=made.message_id)
        assert (await db.actions(gid))[-1]["price"] == 280
