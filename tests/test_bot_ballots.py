"""Undo requests and trade offers (ballots: their message is their only way to answer) through the fake Discord and
the service: asking again and again pings the seats asked once in a while, not each time."""

from __future__ import annotations

import asyncio

import pytest
from fakediscord import BotRunner, FakeDiscord
from fakediscord.play import Killed, Posts
from fakediscord.server import Message
from test_bot_lobby import _act_first_legal
from test_bot_stale import _train_from_another_president, _two_played, _vote_asked

from bot.db import Database
from bot.errors import UserError
from bot.service import BALLOT_PING_EVERY, Service, in_background
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


async def test_asking_again_after_a_restart_does_not_ping_again(tmp_path):
    """When a seat's request last pinged is stored: the bot restarted, the same seat asking again at once is posted
    without pinging, while another seat's request pings."""
    fake = await FakeDiscord().start()
    path = str(tmp_path / "rh.db")
    runner = BotRunner(fake, path, pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, second, third) = await _two_played(fake, bot)
        rec = await fake.command(first, thread, "game", {"steps": 2}, sub="undo")
        assert rec.final.content == "Undo requested; the others must agree.", rec.final.content
        assert _pinged(fake.channel_messages(thread)[-1]) == sorted((second, third))
        await runner.stop()
        bot = await runner.start()
        for member, pinged in ((first, []), (third, sorted((first, second)))):
            rec = await fake.command(member, thread, "game", {"steps": 1}, sub="undo")
            assert rec.final.content == "Undo requested; the others must agree.", rec.final.content
            again = fake.channel_messages(thread)[-1]
            assert _pinged(again) == pinged, again.content
            assert ("Nobody was pinged" in again.content) == (not pinged), again.content
    finally:
        await runner.stop()
        await fake.stop()


async def test_offering_a_trade_again_and_again_pings_the_seller_once_in_a_while(tmp_path):
    posts = posted = Posts()

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


async def _held_requests(bot, refused: list | None = None):
    """Hold up the posts of undo requests (the bot's `publish`): (entered, release). `refused`: Discord refuses the
    first edit closing a vote, kept there."""
    entered, release, real = asyncio.Event(), asyncio.Event(), bot.publish

    async def held(reply, channel_id=None):
        if any(b.startswith("undo_yes:") for b in reply.buttons):
            entered.set()
            await release.wait()
        if refused == [] and reply.edit is not None and reply.text.startswith("Undo vote"):
            refused.append(reply)
            return None
        return await real(reply, channel_id)

    bot.publish = held
    return entered, release


@pytest.mark.parametrize("edit_lost", [False, True])
async def test_a_request_closed_while_its_post_is_on_its_way_says_why(tmp_path, edit_lost):
    """The host aborts the game while an undo request's post is on its way: once posted, its message loses its
    buttons saying the game was aborted (not guessing that the game went on). Should Discord refuse that edit
    (`edit_lost`), the catch-up makes it."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, members = await _two_played(fake, bot)
        host = (await bot.db.get_game(gid)).created_by
        asker = next(m for m in members if m != host)
        refused: list = []
        entered, release = await _held_requests(bot, refused if edit_lost else None)
        asking = asyncio.ensure_future(fake.command(asker, thread, "game", {"steps": 2}, sub="undo"))
        await asyncio.wait_for(entered.wait(), 10)
        assert not (await bot.db.undo_request(gid)).posted
        aborting = asyncio.ensure_future(fake.command(host, thread, "game", {}, sub="abort"))
        for _ in range(1000):  # closed with the game, its post still held up
            if await bot.db.undo_request(gid) is None:
                break
            await asyncio.sleep(0.01)
        else:
            pytest.fail("the abort did not close the request")
        assert not aborting.done()  # its post waits for the request's
        release.set()
        assert (await asking).final.content == "Undo requested; the others must agree."
        assert (await aborting).final.content == "Done."
        if edit_lost:
            await bot.service._ballot_settled(gid)
            await bot.service._posted(gid)
            [vote] = [m for m in fake.channel_messages(thread) if "asks to undo" in m.content]
            assert refused and vote.custom_ids  # its buttons are still there
            await bot.service.catch_up(bot.publish)
        vote = await fake.wait_for_message(lambda m: m.channel_id == thread and m.content.startswith("Undo vote"))
        assert vote.content == "Undo vote on 2 actions closed: the game was aborted." and not vote.custom_ids, \
            vote.content
    finally:
        await runner.stop()
        await fake.stop()


async def _stopped_while_asking(fake: FakeDiscord, path: str, hold) -> tuple[int, int, list[int], object]:
    """An 1830 game of three, two moves played, in which the first member asks to undo both; `hold(fake, bot,
    thread)` holds the request on its way (returning an event set once it is held), and the bot stops there: (game,
    thread, members, the request as stored then)."""
    runner = BotRunner(fake, path, pictures=False)
    bot = await runner.start()
    try:
        gid, thread, members = await _two_played(fake, bot)
        entered = await hold(fake, bot, thread)
        asking = asyncio.ensure_future(fake.command(members[0], thread, "game", {"steps": 2}, sub="undo"))
        await asyncio.wait_for(entered.wait(), 10)
        asked = await bot.db.undo_request(gid)
    finally:
        await runner.stop()
    asking.cancel()
    return gid, thread, members, asked


async def _post_held(fake, bot, thread) -> asyncio.Event:
    return (await _held_requests(bot))[0]


async def _answer_lost(fake, bot, thread) -> asyncio.Event:
    """The request's message is posted, but Discord's answer never reaches the bot."""
    fake.unanswered.add(thread)
    entered = asyncio.Event()
    in_background(set(), fake.wait_for_message(lambda m: m.channel_id == thread and "asks to undo" in m.content)
                  ).add_done_callback(lambda _done: entered.set())
    return entered


async def _confirmation_held(fake, bot, thread) -> asyncio.Event:
    """The request's post goes out; its confirmation (`settle_ballot`) never comes."""
    entered, never = asyncio.Event(), asyncio.Event()

    async def held(*args, **kwargs):
        entered.set()
        await never.wait()

    bot.db.settle_ballot = held
    return entered


async def test_a_request_stored_but_never_posted_is_posted_when_the_bot_is_back(tmp_path):
    """The bot stops between storing an undo request and posting it (nobody saw it): back, it posts it, pinging
    the others, and its buttons undo."""
    fake = await FakeDiscord().start()
    path = str(tmp_path / "rh.db")
    runner = None
    try:
        gid, thread, (first, second, third), asked = await _stopped_while_asking(fake, path, _post_held)
        assert asked is not None and not asked.posted
        assert not any("asks to undo" in m.content for m in fake.channel_messages(thread))

        runner = BotRunner(fake, path, pictures=False)
        bot = await runner.start()
        vote = await fake.wait_for_message(lambda m: m.channel_id == thread and "asks to undo" in m.content)
        assert vote.content.endswith("\n(Posted after a restart of the bot.)") and \
            _pinged(vote) == sorted((second, third)), vote.content
        assert f"rh:undo_yes:{gid}:{asked.token}" in vote.custom_ids
        for member in (second, third):
            rec = await fake.click(member, vote, f"rh:undo_yes:{gid}:{asked.token}")
            assert rec.final.content == "Vote counted.", rec.final.content
            if member == second:
                req = await bot.db.undo_request(gid)
                assert req.posted and req.message_id == vote.id and len(req.agreed) == 2, req
        assert await bot.db.action_count(gid) == 0
    finally:
        if runner is not None:
            await runner.stop()
        await fake.stop()


@pytest.mark.parametrize("talk", [0, 150])
@pytest.mark.parametrize("hold", [_confirmation_held, _answer_lost], ids=["confirmation", "answer"])
async def test_a_request_posted_just_before_the_bot_stopped_is_not_posted_twice(tmp_path, hold, talk):
    """The bot stops once the request's message is out but before it was known to be posted (before its
    confirmation, or before Discord's answer reached it), and the members then post `talk` messages in the thread:
    back, it takes that message as the request's (kept when Discord answered, or found among the messages posted
    since the request was stored): no second message, nobody pinged again; its buttons undo, and it loses them
    once the vote is over."""
    fake = await FakeDiscord().start()
    path = str(tmp_path / "rh.db")
    runner = None
    try:
        gid, thread, (first, second, third), _asked = await _stopped_while_asking(fake, path, hold)
        fake.unanswered.clear()
        fake.unhung.set()
        [vote] = [m for m in fake.channel_messages(thread) if "asks to undo" in m.content]
        for n in range(talk):
            fake.messages.append(Message(fake.new_id(), thread, f"chat {n}", [], None, [], 0, "channel", None, 0.0))

        runner = BotRunner(fake, path, pictures=False)
        bot = await runner.start()
        await bot.service.catch_up(bot.publish)
        await bot.service._ballot_settled(gid)  # (the start-up's own catch-up may be the one confirming it)
        req = await bot.db.undo_request(gid)
        assert req.posted and req.message_id == vote.id, req
        assert [m.id for m in fake.channel_messages(thread) if "asks to undo" in m.content] == [vote.id]
        for member in (second, third):
            rec = await fake.click(member, vote, f"rh:undo_yes:{gid}:{req.token}")
            assert rec.final.content == "Vote counted.", rec.final.content
        assert await bot.db.action_count(gid) == 0
        await bot.service._posted(gid)
        closed = next(m for m in fake.channel_messages(thread) if m.id == vote.id)
        assert not closed.custom_ids and "closed: everyone agreed" in closed.content, closed.content
    finally:
        if runner is not None:
            await runner.stop()
        await fake.stop()


@pytest.mark.parametrize("answered", [True, False], ids=["answered", "answer_lost"])
async def test_a_request_closed_before_its_message_was_known_loses_its_buttons_after_a_restart(tmp_path, answered):
    """The host aborts the game while Discord has taken an undo request's post but not answered it, so the abort
    does not know its message; then Discord answers (`answered`) and the bot stops before closing the message, or
    the bot stops first. Back, the catch-up edits the vote to its closed form, once, posting nothing new."""
    fake = await FakeDiscord().start()
    path = str(tmp_path / "rh.db")
    runner = BotRunner(fake, path, pictures=False)
    bot = await runner.start()
    try:
        gid, thread, members = await _two_played(fake, bot)
        host = (await bot.db.get_game(gid)).created_by
        asker = next(m for m in members if m != host)
        posted = await _answer_lost(fake, bot, thread)
        confirming = await _confirmation_held(fake, bot, thread)
        asking = asyncio.ensure_future(fake.command(asker, thread, "game", {"steps": 2}, sub="undo"))
        await asyncio.wait_for(posted.wait(), 10)
        aborting = asyncio.ensure_future(fake.command(host, thread, "game", {}, sub="abort"))
        for _ in range(1000):
            if (await bot.db.get_game(gid)).status == "aborted":
                break
            await asyncio.sleep(0.01)
        else:
            pytest.fail("the abort was not stored")
        if answered:
            fake.unanswered.clear()
            fake.unhung.set()
            await asyncio.wait_for(confirming.wait(), 10)
    finally:
        await runner.stop()
    asking.cancel()
    aborting.cancel()
    fake.unanswered.clear()
    fake.unhung.set()
    try:
        [vote] = [m for m in fake.channel_messages(thread) if "asks to undo" in m.content]
        assert vote.custom_ids
        posts = len(fake.channel_messages(thread))
        runner = BotRunner(fake, path, pictures=False)
        bot = await runner.start()
        await bot.service.catch_up(bot.publish)
        await fake.wait_for_change(lambda: not vote.custom_ids)
        assert vote.content == "Undo vote on 2 actions closed: the game was aborted.", vote.content
        assert [m for m in fake.channel_messages(thread)[posts:] if "Undo vote" in m.content] == []
        edits = len(fake.edits)
        await bot.service.catch_up(bot.publish)
        assert await bot.db.ballots_closing() == [] and not [e for e in fake.edits[edits:] if e[0] == vote.id]
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_closing_edit_refused_while_the_post_carrying_it_is_out_stays_owed(tmp_path):
    """The next action closes an undo vote: its post goes out, but Discord refuses the edit closing the vote's
    message (sent with it). The edit stays owed, and the catch-up makes it once Discord takes it, once."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, members, vote = await _vote_asked(fake, bot)
        fake.unedited.add(vote.id)
        rec = await _act_first_legal(fake, members[2], thread)
        assert rec.final.content.startswith("Done"), rec.final.content
        await bot.service._posted(gid)
        assert vote.custom_ids and [c.message_id for c in await bot.db.ballots_closing()] == [vote.id]
        await bot.service.catch_up(bot.publish)  # refused again: still owed
        assert vote.custom_ids and [c.message_id for c in await bot.db.ballots_closing()] == [vote.id]
        fake.unedited.clear()
        await bot.service.catch_up(bot.publish)
        assert not vote.custom_ids and vote.content == "Undo vote on 2 actions closed: the game went on.", \
            vote.content
        assert await bot.db.ballots_closing() == []
    finally:
        await runner.stop()
        await fake.stop()


async def test_an_accepted_offer_the_engine_refuses_is_closed_saying_why(tmp_path, monkeypatch):
    """A train offered by another president is accepted, but the engine refuses the trade: the seller hears why,
    nothing is stored, and the offer's message loses its buttons saying why (once: none is owed after)."""
    posts = posted = Posts()

    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Engine(), pictures=False)
        gid, buyer, seller, wanted = await _train_from_another_president(svc)
        await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 300}, posted)
        offer = await db.trade_offer(gid)
        game = svc._live[gid].session.game

        def refuses(action):
            raise svc.engine.GameError("the seller's train is rusted")

        monkeypatch.setattr(game, "apply", refuses)
        with pytest.raises(UserError) as refusal:
            await svc.answer_offer(gid, seller, True, offer.token, posted, message_id=offer.message_id)
        await svc._posted(gid)
        assert await db.trade_offer(gid) is None and await db.action_count(gid) == 336
        [closed] = [p for p in posts if p.edit == offer.message_id]
        reason = str(refusal.value).rstrip(".")
        assert not closed.buttons and closed.text.endswith(f"— closed: the trade could not be made: {reason}."), \
            closed.text
        assert await db.ballots_closing() == [] and await svc.catch_up(posted) == []


async def test_an_offer_posted_just_before_the_bot_stopped_is_posted_again_and_either_message_answers(tmp_path):
    """Killed once the offer's message is out but before it was known to be posted: once back, the catch-up posts
    it again (nobody could tell it was out); an Accept on the first message trades, once."""
    posts = posted = Posts()

    async def posted_then_killed(reply):
        await posted(reply)
        raise Killed

    path = tmp_path / "rh.db"
    db = await Database(path).open()
    try:
        svc = Service(db, Engine(), pictures=False)
        gid, buyer, seller, wanted = await _train_from_another_president(svc)
        with pytest.raises(Killed):
            await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 300}, posted_then_killed)
        first = len(posts)
        await db.close()  # the process is gone; it starts again on the same database
        db = await Database(path).open()
        svc = Service(db, Engine(), pictures=False)
        await svc.resume_all()
        [again] = await svc.catch_up(posted)
        assert again is posts[-1] and again.text.startswith(posts[first - 1].text), again.text
        assert again.mention == [seller.member_id]
        offer = await db.trade_offer(gid)
        assert offer.posted and offer.message_id == len(posts) != first
        assert await svc.catch_up(posted) == []
        await svc.answer_offer(gid, seller, True, offer.token, posted, message_id=first)
        assert await db.action_count(gid) == 337 and (await db.actions(gid))[-1]["price"] == 300
        with pytest.raises(UserError, match="no longer open"):
            await svc.answer_offer(gid, seller, True, offer.token, posted, message_id=len(posts))
    finally:
        await db.close()


@pytest.mark.parametrize("closer", ["action", "undo", "abort"])
async def test_a_vote_closed_by_a_change_whose_post_was_lost_loses_its_buttons_at_the_catch_up(tmp_path, closer):
    """An undo vote is closed by the next action, by an undo replacing it or by the abort, and the thread refuses
    the post that would have closed its message: once the thread takes posts again, the catch-up edits the vote to
    its closed form, saying why, once."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, members, vote = await _vote_asked(fake, bot)
        assert vote.custom_ids and await bot.db.undo_request(gid) is not None
        fake.closed.add(thread)
        if closer == "action":
            rec = await _act_first_legal(fake, members[2], thread)
            why = "the game went on"
        elif closer == "undo":  # the asker takes back their own last action at once
            rec = await fake.command(members[1], thread, "game", {"steps": 1}, sub="undo")
            why = "replaced by an undo"
        else:
            host = (await bot.db.get_game(gid)).created_by
            rec = await fake.command(host, thread, "game", {}, sub="abort")
            why = "the game was aborted"
        assert rec.final.content.startswith(("Done", "Undone")), rec.final.content
        assert await bot.db.undo_request(gid) is None and vote.custom_ids  # closed, its buttons still there
        fake.closed.discard(thread)
        await bot.service.catch_up(bot.publish)
        assert not vote.custom_ids and vote.content == f"Undo vote on 2 actions closed: {why}.", vote.content
        edits = len(fake.edits)
        await bot.service.catch_up(bot.publish)
        assert not [e for e in fake.edits[edits:] if e[0] == vote.id]  # once
    finally:
        await runner.stop()
        await fake.stop()

