"""Stale buttons, failures after a commit and bad input, mostly through the fake Discord: a game button acts
only at the moment of the game it was posted for; a vote or offer button answers only the request or offer
posted with it; an action stored is told done even when the thread refuses the post or a picture fails; a game
whose thread Discord refuses is closed again; an imported log is read off the event loop; malformed input gets
the format's error."""

from __future__ import annotations

import asyncio
import copy
import json
import sys
import threading
from types import SimpleNamespace

import pytest
from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
from fakediscord.play import GUILD, Killed, Posts, acting_caller, fixture_log, imported_game, started_game
from fakediscord.recorded import QuickPictures
from test_bot_lobby import _act_first_legal

from bot.access import Caller
from bot.db import Database
from bot.discord_bot import RoundhouseBot
from bot.errors import UserError
from bot.service import Service
from bot.session import Engine, engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")


def _button(message, what: str, game_id: int) -> str:
    return next(c for c in message.custom_ids if c.startswith(f"rh:{what}:{game_id}:"))


async def _started(fake: FakeDiscord, bot) -> tuple[int, int, list[int]]:
    """An 1830 game of Ann, Bob and Cid started in a new thread: (game, thread, members in seat order)."""
    ann, bob, cid = (fake.add_user(n) for n in ("Ann", "Bob", "Cid"))
    await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
    thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
    gid = int(next(c for c in fake.channel_messages(thread)[0].custom_ids if c.startswith("rh:join:")).split(":")[2])
    for uid in (bob, cid):
        await fake.command(uid, thread, "game", {}, sub="join")
    await fake.command(ann, thread, "game", {}, sub="start")
    lv = await bot.service.live(gid)
    return gid, thread, [s.member_id for s in sorted(lv.seats, key=lambda s: s.position)]


async def _two_played(fake: FakeDiscord, bot) -> tuple[int, int, list[int]]:
    """`_started`, then the first two members' first legal moves."""
    gid, thread, members = await _started(fake, bot)
    for member in members[:2]:
        await _act_first_legal(fake, member, thread)
    return gid, thread, members


async def _vote_asked(fake: FakeDiscord, bot) -> tuple[int, int, list[int], object]:
    """`_two_played`, then the second member asks to undo both moves: (game, thread, members, the vote's message)."""
    gid, thread, members = await _two_played(fake, bot)
    await fake.command(members[1], thread, "game", {"steps": 2}, sub="undo")
    return gid, thread, members, fake.channel_messages(thread)[-1]


async def test_a_game_button_acts_only_at_the_moment_it_was_posted_for(tmp_path):
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, second, third) = await _started(fake, bot)
        start = fake.channel_messages(thread)[-1]
        rec = await fake.click(first, start, _button(start, "pass", gid))
        assert rec.final.content.startswith("Done"), rec.final.content
        await _act_first_legal(fake, second, thread)
        await _act_first_legal(fake, third, thread)

        # the first member's turn again: the start message's Pass is from another moment
        count, posted = len(bot.service._live[gid].session.actions), len(fake.channel_messages(thread))
        rec = await fake.click(first, start, _button(start, "pass", gid))
        assert rec.final.ephemeral and "before the game moved on" in rec.final.content, rec.final.content
        assert len(bot.service._live[gid].session.actions) == count and len(fake.channel_messages(thread)) == posted

        # an action undone and another taken bring the log back to as many actions: still another moment
        latest = fake.channel_messages(thread)[-1]
        await _act_first_legal(fake, first, thread)
        rec = await fake.command(first, thread, "game", {}, sub="undo")
        assert rec.final.content == "Undone.", rec.final.content
        assert len(bot.service._live[gid].session.actions) == count
        posted = len(fake.channel_messages(thread))
        rec = await fake.click(first, latest, _button(latest, "pass", gid))
        assert "before the game moved on" in rec.final.content, rec.final.content
        assert len(bot.service._live[gid].session.actions) == count and len(fake.channel_messages(thread)) == posted

        # a button without a moment (posted by an older version of the bot) is refused too
        legacy = copy.deepcopy(latest)
        for row in legacy.components:
            for c in row["components"]:
                c["custom_id"] = c["custom_id"].rsplit(":", 1)[0]
        rec = await fake.click(first, legacy, f"rh:pass:{gid}")
        assert "before the game moved on" in rec.final.content, rec.final.content

        # the latest message's button is the moment's own, after a restart too
        await runner.stop()
        bot = await runner.start()
        latest = fake.channel_messages(thread)[-1]
        rec = await fake.click(first, latest, _button(latest, "pass", gid))
        assert rec.final.content.startswith("Done"), rec.final.content
        assert len(bot.service._live[gid].session.actions) == count + 1
        assert not fake.unknown
    finally:
        await runner.stop()
        await fake.stop()


async def test_an_action_stored_but_not_posted_is_told_done_and_never_sent_twice(tmp_path):
    """The thread refuses the bot's post (locked, or a permission taken away) after the action was stored: the
    member hears it was done (not "nothing was changed", which would have them send it again), by a command
    and by a button alike; the next post brings the thread up to date."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, second, third) = await _started(fake, bot)
        count = len(bot.service._live[gid].session.actions)
        fake.closed.add(thread)
        rec = await _act_first_legal(fake, first, thread)
        assert rec.final.ephemeral and rec.final.content.startswith("Done"), rec.final.content
        assert len(bot.service._live[gid].session.actions) == count + 1
        assert await bot.db.action_count(gid) == count + 1

        fake.closed.discard(thread)
        await _act_first_legal(fake, second, thread)
        latest = fake.channel_messages(thread)[-1]
        fake.closed.add(thread)
        rec = await fake.click(third, latest, _button(latest, "pass", gid))
        assert rec.final.ephemeral and rec.final.content.startswith("Done"), rec.final.content
        assert await bot.db.action_count(gid) == count + 3

        fake.closed.discard(thread)
        rec = await _act_first_legal(fake, first, thread)
        assert rec.final.content.startswith("Done") and await bot.db.action_count(gid) == count + 4
        assert fake.channel_messages(thread)[-1].content.splitlines()[-1].startswith("Next:")
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_failure_right_after_a_change_was_stored_says_it_was_stored(tmp_path):
    """The database fails a read just after an action's (then an undo's) commit: the member hears it was stored and
    must not send it again (not "nothing was changed"); the game is as stored, and the catch-up tells the thread."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, second, _third) = await _started(fake, bot)
        db, failing = bot.db, []
        append, truncate, undo_events = db.append_action, db.truncate_actions, db.undo_events

        async def armed(stored, *args, **kwargs):  # the commit goes through; the next read fails
            done = await stored(*args, **kwargs)
            failing.append(True)
            return done

        async def read(*args, **kwargs):
            if failing:
                failing.clear()
                raise OSError("disk I/O error")
            return await undo_events(*args, **kwargs)

        db.append_action = lambda *a, **k: armed(append, *a, **k)
        db.truncate_actions = lambda *a, **k: armed(truncate, *a, **k)
        db.undo_events = read
        for command in (lambda: _act_first_legal(fake, first, thread),
                        lambda: fake.command(first, thread, "game", {}, sub="undo")):
            posted = len(fake.channel_messages(thread))
            rec = await command()
            assert rec.final.ephemeral and rec.final.content == (
                "Done and stored, but telling the game's thread of it failed: the thread is told within a few "
                "minutes, so do not send it again."), rec.final.content
            assert len(fake.channel_messages(thread)) == posted
            told = await bot.service.catch_up(bot.publish)
            assert len(told) == 1 and told[0].text.startswith("Catching up"), told
        assert await bot.db.action_count(gid) == 0 and len(bot.service._live[gid].session.actions) == 0
        rec = await _act_first_legal(fake, first, thread)  # the game goes on
        assert rec.final.content.startswith("Done") and await bot.db.action_count(gid) == 1
    finally:
        await runner.stop()
        await fake.stop()


STORED_NOT_TOLD = "Done and stored, but telling the game's thread of it failed, so do not send it again."


def _telling_fails(svc: Service) -> list[bool]:
    """Arm it (append True): the service's next reply to tell (`_told`, `_tell`: always after the command's commit)
    fails once, as a read of the database or the words might."""
    armed: list[bool] = []
    for name in ("_told", "_tell"):
        real = getattr(svc, name)

        def failing(*args, real=real, **kwargs):
            if armed:
                armed.clear()
                raise OSError("disk I/O error")
            return real(*args, **kwargs)

        setattr(svc, name, failing)
    return armed


async def test_a_failure_right_after_a_lobby_seat_vote_or_reminder_change_says_it_was_stored(tmp_path):
    """Each change committed, then telling it fails: a join, a kick, a leave, reminder settings, the start, a seat
    handed over, votes for and against an undo, the abort. The member hears it was stored (the start: and that the
    thread is told), never that nothing changed; the database has it, and the game goes on from it."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        ann, bob, cid, dan, eve = (fake.add_user(n) for n in ("Ann", "Bob", "Cid", "Dan", "Eve"))
        await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
        gid = (await bot.db.game_by_thread(thread)).id
        armed = _telling_fails(bot.service)

        async def stored(member, options, sub, said=STORED_NOT_TOLD):
            armed.append(True)
            rec = await fake.command(member, thread, "game", options, sub=sub)
            assert not armed and rec.final.ephemeral and rec.final.content == said, (sub, rec.final.content)

        async def seated():
            return {s.member_id for s in await bot.db.seats(gid)}

        for member in (bob, dan, eve):
            await stored(member, {}, "join")
        assert await seated() == {ann, bob, dan, eve}
        await stored(ann, {"member": UserRef(dan)}, "kick")
        await stored(eve, {}, "leave")
        await fake.command(cid, thread, "game", {}, sub="join")
        assert await seated() == {ann, bob, cid}
        await stored(ann, {"hours": 6.0, "every": 12.0}, "remind")
        reminder = await bot.db.reminder(gid)
        assert reminder.first_after == 6 * 3600 and reminder.every == 12 * 3600
        await stored(ann, {}, "start", "Done and stored, but telling the game's thread of it failed: the thread is "
                                       "told within a few minutes, so do not send it again.")
        assert (await bot.db.get_game(gid)).status == "active"
        [told] = await bot.service.catch_up(bot.publish)
        assert told.text.startswith("Catching up") and "Next:" in told.text, told.text
        await stored(ann, {"old": UserRef(cid), "new": UserRef(dan)}, "replace")
        assert await seated() == {ann, bob, dan}

        lv = await bot.service.live(gid)
        members = [s.member_id for s in sorted(lv.seats, key=lambda s: s.position)]
        for member in members[:2]:
            assert (await _act_first_legal(fake, member, thread)).final.content.startswith("Done")
        rec = await fake.command(members[1], thread, "game", {"steps": 2}, sub="undo")
        assert rec.final.content == "Undo requested; the others must agree.", rec.final.content
        vote = fake.channel_messages(thread)[-1]
        req = await bot.db.undo_request(gid)
        for member, yes in ((members[2], True), (members[0], False)):
            armed.append(True)
            rec = await fake.click(member, vote, f"rh:undo_{'yes' if yes else 'no'}:{gid}:{req.token}")
            assert not armed and rec.final.content == STORED_NOT_TOLD, rec.final.content
            if yes:  # counted: the requester's and this one
                assert len((await bot.db.undo_request(gid)).agreed) == 2
        assert await bot.db.undo_request(gid) is None and await bot.db.action_count(gid) == 2
        assert (await _act_first_legal(fake, members[2], thread)).final.content.startswith("Done")
        await stored(ann, {}, "abort")
        assert (await bot.db.get_game(gid)).status == "aborted"
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_failure_right_after_a_declined_offer_was_stored_says_so(tmp_path):
    """Declined, and telling it fails: stored, the game goes on, and the offer's message is edited to its closed
    form by the catch-up, once; one declined and told owes no such edit."""
    edits = []

    async def posted(reply):  # as the adapter: the post, then the edits with it, each noted once out
        for out in (reply, *reply.also):
            if out.edit is not None:
                edits.append((out.edit, out.text))
            if out is not reply and out.on_posted is not None:
                await out.on_posted(1)
        return SimpleNamespace(id=1)

    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Engine(), pictures=False)
        gid, buyer, seller, wanted = await _train_from_another_president(svc)
        await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 300}, posted)
        offer = await db.trade_offer(gid)
        _telling_fails(svc).append(True)
        await refused(svc.answer_offer(gid, seller, False, offer.token, posted), STORED_NOT_TOLD)
        assert await db.trade_offer(gid) is None and await db.action_count(gid) == 336 and edits == []
        [closed] = await svc.catch_up(posted)
        assert edits == [(1, closed.text)] and closed.text.endswith(f"— closed: {seller.name} declined."), edits
        assert await svc.catch_up(posted) == [] and len(edits) == 1
        await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 300}, posted)  # the game goes on
        offer = await db.trade_offer(gid)
        await svc.answer_offer(gid, seller, False, offer.token, posted)  # told (its edit with it): none owed
        assert await db.ballots_closing() == [] and await svc.catch_up(posted) == [] and len(edits) == 2
        await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 1}, posted)
        assert await db.trade_offer(gid) is not None


async def test_a_post_the_thread_refused_is_made_good_when_the_bot_is_back(tmp_path):
    """The thread refuses the post of a stored action; once the bot has started again (the thread open by then),
    it tells the thread what it missed and pings whoever must act."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, second, _third) = await _started(fake, bot)
        fake.closed.add(thread)
        rec = await _act_first_legal(fake, first, thread)
        assert rec.final.content.startswith("Done"), rec.final.content
        posted = len(fake.channel_messages(thread))
        await runner.stop()
        fake.closed.discard(thread)
        bot = await runner.start()
        caught_up = await fake.wait_for_message(  # the bot's first sweep, once it is ready
            lambda m: m.channel_id == thread and m.content.startswith("Catching up"))
        told = fake.channel_messages(thread)[posted:]
        assert told[-1] is caught_up
        assert len(told) == 1 and told[0].content.startswith("Catching up: this thread was not told of the latest "
                                                             "moves.\n1. "), [m.content for m in told]
        assert f"Next: <@{second}>" in told[0].content, told[0].content
    finally:
        await runner.stop()
        await fake.stop()


class BrokenPictures(QuickPictures):
    """Pictures drawn quickly; once `broken`, the companies picture fails as a drawing bug would."""

    broken = False

    def picture(self, session, kind, change=None, names=None):
        if self.broken and kind == "companies":
            raise ValueError("drawing bug")
        return super().picture(session, kind, change, names)


async def test_a_picture_that_fails_after_the_action_was_stored_does_not_unsay_it(tmp_path):
    """The action is stored, then a picture of it fails to draw: the member hears it was done and the thread
    gets the news, without the picture that could not be drawn."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=BrokenPictures())
    bot = await runner.start()
    try:
        gid, thread, (first, second, third) = await _started(fake, bot)
        count = await bot.db.action_count(gid)
        posted = len(fake.channel_messages(thread))
        bot.service.engine.broken = True
        rec = await _act_first_legal(fake, first, thread)
        assert rec.final.ephemeral and rec.final.content.startswith("Done"), rec.final.content
        assert await bot.db.action_count(gid) == count + 1
        [news] = fake.channel_messages(thread)[posted:]
        assert news.content.splitlines()[-1].startswith("Next:")
        assert not any(name.endswith("-companies.png") for name, _ in news.attachments)
    finally:
        await runner.stop()
        await fake.stop()


async def test_an_imported_log_is_read_off_the_event_loop(tmp_path, monkeypatch):
    """A log may be 12 MB of JSON: parsing and checking it must not stall every other game's commands."""
    threads = []
    real = Service.parse_log

    def watched(self, data):
        threads.append(threading.current_thread())
        return real(self, data)

    monkeypatch.setattr(Service, "parse_log", watched)
    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Engine(), pictures=False)
        gid, _ = await imported_game(svc, fixture_log(), 30)
        assert await db.action_count(gid) == 30
    assert threads and threading.main_thread() not in threads


async def test_an_exported_log_is_written_off_the_event_loop(tmp_path, monkeypatch):
    """Writing a long game's log as JSON takes tens of milliseconds: not on the event loop."""
    threads = []
    real = json.dumps

    def watched(obj, *args, **kwargs):
        if isinstance(obj, dict) and "actions" in obj:
            threads.append(threading.current_thread())
        return real(obj, *args, **kwargs)

    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Engine(), pictures=False)
        gid, callers = await imported_game(svc, fixture_log(), 30)
        monkeypatch.setattr(json, "dumps", watched)
        name, data = await svc.export(gid, next(iter(callers.values())))
        monkeypatch.undo()
        assert len(json.loads(data)["actions"]) == 30 and name == f"roundhouse-1830-{gid}.json"
    assert threads and threading.main_thread() not in threads


async def test_a_vote_button_answers_only_the_request_it_was_posted_with(tmp_path):
    """A request to undo replaced by another at the same count: an Agree pressed on the first one's message
    (still showing its buttons on a member's screen) is not counted for the second."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, second, third) = await _two_played(fake, bot)
        await fake.command(second, thread, "game", {"steps": 2}, sub="undo")  # the first member's bid too
        seen = copy.deepcopy(fake.channel_messages(thread)[-1])
        await fake.command(third, thread, "game", {"steps": 1}, sub="undo")  # replaces it
        request = await bot.db.undo_request(gid)
        asked = request.agreed
        rec = await fake.click(first, seen, next(c for c in seen.custom_ids if c.startswith("rh:undo_yes:")))
        assert "no longer open" in rec.final.content, rec.final.content
        assert (await bot.db.undo_request(gid)).agreed == asked

        latest = fake.channel_messages(thread)[-1]
        rec = await fake.click(first, latest, next(c for c in latest.custom_ids if c.startswith("rh:undo_yes:")))
        assert rec.final.content == "Vote counted.", rec.final.content
        assert len((await bot.db.undo_request(gid)).agreed) == len(asked) + 1
    finally:
        await runner.stop()
        await fake.stop()


async def _train_from_another_president(svc: Service) -> tuple[int, Caller, Caller, dict]:
    """1830 26855 imported before C&O may buy another president's train: (game, buyer, seller, the train)."""
    gid, callers = await imported_game(svc, fixture_log(), 336)
    lv = svc._live[gid]
    buyer = acting_caller(svc, gid, callers)
    pid = lv.seat_of_member(buyer.member_id).player_id
    wanted = next(a for a in lv.session.legal() if a["type"] == "buy_train" and a["price"] == 1
                  and lv.session.needs_consent(pid, dict(a, price=300)) is not None)
    return gid, buyer, callers[lv.session.needs_consent(pid, dict(wanted, price=300))], wanted


async def test_an_offer_button_answers_only_the_offer_it_was_posted_with(tmp_path):
    """A trade offer replaced by another at the same count (a lower price): an Accept pressed on the first
    offer's message sells nothing; the second offer's own button sells at its price."""
    messages = iter(range(1, 100))

    async def posted(reply):
        return SimpleNamespace(id=next(messages))

    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Engine(), pictures=False)
        gid, buyer, seller, wanted = await _train_from_another_president(svc)
        await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 300}, posted)
        first = await db.trade_offer(gid)
        await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 1}, posted)
        offer = await db.trade_offer(gid)
        assert offer.action["price"] == 1 and offer.message_id != first.message_id and offer.token != first.token

        await refused(svc.answer_offer(gid, seller, True, first.token, posted, message_id=first.message_id),
                      "no longer open")
        assert await db.action_count(gid) == 336 and await db.trade_offer(gid) == offer
        await svc.answer_offer(gid, seller, True, offer.token, posted, message_id=offer.message_id)
        assert await db.action_count(gid) == 337
        assert (await db.actions(gid))[-1]["price"] == 1


async def refused(coro, *words: str) -> None:
    with pytest.raises(UserError) as info:
        await coro
    assert all(w in str(info.value) for w in words), str(info.value)


async def test_a_game_whose_thread_cannot_be_opened_is_not_left_behind(tmp_path):
    """Discord refuses the new game's thread (no permission in the channel): the member hears so and that no
    game was opened; the game just stored is closed, not left running without a thread to be imported again."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        ann = fake.add_user("Ann")
        fake.closed.add(fake.channel_id)
        rec = await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        assert "could not be opened" in rec.final.content and "no game was opened" in rec.final.content
        log = fixture_log()
        opts = {"file": AttachmentRef("game.json", json.dumps(dict(log, actions=log["actions"][:20])).encode()),
                "player1": UserRef(ann)}
        rec = await fake.command(ann, fake.channel_id, "game", opts, sub="import")
        assert "could not be opened" in rec.final.content, rec.final.content
        assert await bot.db.list_games(guild_id=fake.guild_id) == []
        assert await bot.db.due_reminders(float("inf")) == []

        fake.closed.discard(fake.channel_id)
        rec = await fake.command(ann, fake.channel_id, "game", opts, sub="import")
        assert rec.final.content.startswith("Imported"), rec.final.content
        assert len(await bot.db.list_games(guild_id=fake.guild_id)) == 1
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_game_whose_thread_discord_does_not_open_in_time_is_not_left_behind(tmp_path, monkeypatch):
    """Discord takes the new game's thread and does not answer: once the bot stops waiting, the member hears so and
    that no game was opened; the game is closed then (not only at the next start-up), its reminders none. The thread
    Discord opens after all is deleted."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        monkeypatch.setattr(sys.modules["bot.cogs.games"], "THREAD_WAIT", 0.2)  # the module as the bot loaded it
        ann = fake.add_user("Ann")
        fake.hung.add(fake.channel_id)
        rec = await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        assert rec.final.content == "Discord did not open the game's thread in time, so no game was opened: try " \
            "again.", rec.final.content
        assert await bot.db.list_games(guild_id=fake.guild_id) == [] and await bot.db.due_reminders(float("inf")) == []
        fake.hung.discard(fake.channel_id)
        fake.unhung.set()  # Discord opens the first thread after all: it is deleted, left to nobody
        rec = await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        assert "is open in" in rec.final.content and len(await bot.db.list_games(guild_id=fake.guild_id)) == 1
        await fake.wait_for_change(lambda: fake.deleted_channels)
        [late] = fake.deleted_channels
        threads = [c for c, ch in fake.channels.items() if ch.get("type") == 11]
        assert rec.final.content.endswith(f"<#{threads[0]}>.") and len(threads) == 1 and late not in threads
        assert not fake.channel_messages(late)
    finally:
        await runner.stop()
        await fake.stop()


async def _until(done, timeout: float = 10) -> None:
    """Until `done()` holds (the fake notes no change for it), looked at every 10 ms."""
    for _ in range(int(timeout * 100)):
        if done():
            return
        await asyncio.sleep(0.01)
    pytest.fail("it did not come")


@pytest.mark.parametrize("unlisted", [0, 2, 100])
async def test_a_thread_discord_opens_while_the_bot_is_stopped_is_deleted_at_start_up(tmp_path, monkeypatch,
                                                                                       unlisted):
    """The bot stops while Discord has yet to answer for a new game's thread, and Discord opens it meanwhile: back,
    the bot closes the game, telling its host, and deletes that thread (and no other). Should Discord leave it out
    of the first `unlisted` listings of the server's active threads, the bot looks again a few times, then at the
    next start-up."""
    monkeypatch.setattr(RoundhouseBot, "LATE_THREAD_WAITS", (0.01, 0.01, 0.01))
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    await runner.start()
    try:
        ann = fake.add_user("Ann")
        await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")

        def threads() -> list[int]:
            return [c for c, ch in fake.channels.items() if ch.get("type") == 11]

        [kept] = threads()
        fake.hung.add(fake.channel_id)
        asking = asyncio.ensure_future(fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new"))
        await _until(lambda: sum(p.endswith("/threads") for m, p in fake.requests if m == "POST") == 2)
        await runner.stop()
        asking.cancel()
        fake.hung.discard(fake.channel_id)
        fake.unhung.set()  # Discord opens it after all, the bot stopped
        await _until(lambda: len(threads()) == 2)
        [late] = [t for t in threads() if t != kept]
        fake.unlisted[late] = unlisted

        def listings() -> int:
            return sum(p.endswith("/threads/active") for _m, p in fake.requests)

        bot = await runner.start()
        if unlisted > len(RoundhouseBot.LATE_THREAD_WAITS):  # not listed yet after every look: kept for the next
            await _until(lambda: listings() == 1 + len(RoundhouseBot.LATE_THREAD_WAITS))
            assert fake.deleted_channels == [] and [g for g, *_ in await bot.db.threads_asked()] != []
            await runner.stop()
            fake.unlisted.clear()
            bot = await runner.start()
        await fake.wait_for_change(lambda: fake.deleted_channels)
        assert fake.deleted_channels == [late] and threads() == [kept]
        [game] = [r for r in await bot.db.list_games(guild_id=fake.guild_id, statuses=("aborted",))]
        told = fake.channel_messages(fake.channel_id)[-1]
        assert told.content.startswith(f"<@{ann}> Game #{game.id} was not opened: the bot stopped before its "
                                       "thread was made."), told.content
        assert await bot.db.threads_asked() == []
    finally:
        await runner.stop()
        await fake.stop()


async def test_malformed_routes_and_action_tiles_get_a_clear_answer(tmp_path):
    """`/run routes::` and `/steam tile tile:-5` were engine-free crashes ("Something went wrong"): now the
    format is named, and nothing changes."""
    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Engine(), pictures=False)
        gid, callers = await imported_game(svc, fixture_log(), 40)
        who = acting_caller(svc, gid, callers)
        for routes in (":", " : E19", ";:"):
            await refused(svc.act(gid, who, "run", {"routes": routes}), "write it as `TRAIN: HEX,HEX | HEX,HEX`")
        assert await db.action_count(gid) == 40

        row = await svc.new_game(Caller(1, "Ann", GUILD, 7000), title="steam", seed=5, channel_id=7000, thread_id=7001)
        for i, name in enumerate(("Bob", "Cid"), 2):
            await svc.join(row.id, Caller(i, name, GUILD, 7001))
        await svc.start(row.id, Caller(1, "Ann", GUILD, 7001))
        members = {s.player_id: s.member_id for s in svc._live[row.id].seats}
        first = Caller(members[int(svc._live[row.id].session.active_players()[0])], "", GUILD, 7001)
        for tile in ("-5", "-"):
            await refused(svc.act(row.id, first, "tile", {"tile": tile}, group="steam"), "an action tile number 1-7")
        assert await db.action_count(row.id) == 0


async def test_a_reminder_is_posted_in_its_games_line_with_the_game_free(tmp_path):
    """A reminder's words (whose turn, since when) are written with the game held and its post takes its place in
    the game's line then: no action's post comes in between (the reminder would ping a member who has just played),
    and Discord taking its time over the post does not hold the game (`tests/test_bot_posts.py`)."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, order = await _started(fake, bot)
        bot._reminder_task.cancel()  # its own sweep at start-up, late under load, would race this test's with the game
        await fake.command(order[0], thread, "game", {"hours": 6.0}, sub="remind")
        await bot.db.set_reminder(gid, next_at=1.0)
        held, real = [], bot.publish

        async def watched(reply, channel_id=None):
            held.append(bot.service.lock(gid).locked())
            return await real(reply, channel_id)

        bot.publish = watched
        assert await bot.send_reminders() == 1
        assert held == [False]
        assert fake.channel_messages(thread)[-1].content.startswith("Reminder")
    finally:
        await runner.stop()
        await fake.stop()


async def test_the_lobby_posts_in_its_games_line_with_the_game_free(tmp_path):
    """Joins, leaves and the start take their place in the game's line of posts while the game is held, and are
    posted once it is free: two members pressing Join at once edit the lobby message in the order they joined
    (the last edit lists both), and no first action is told before the start that made it possible (whose pinned
    summary would then be the older one)."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        ann, bob, cid, dan = (fake.add_user(n) for n in ("Ann", "Bob", "Cid", "Dan"))
        await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
        lobby = fake.channel_messages(thread)[0]
        gid = int(next(c for c in lobby.custom_ids if c.startswith("rh:join:")).split(":")[2])
        held, real = [], bot.publish

        async def watched(reply, channel_id=None):
            held.append(bot.service.lock(gid).locked())
            return await real(reply, channel_id)

        bot.publish = watched
        await asyncio.gather(fake.click(bob, lobby, f"rh:join:{gid}"), fake.click(cid, lobby, f"rh:join:{gid}"),
                             fake.command(dan, thread, "game", {}, sub="join"))
        assert "(4/6)" in lobby.content and all(n in lobby.content for n in ("Bob", "Cid", "Dan"))
        await fake.command(dan, thread, "game", {}, sub="leave")
        rec = await fake.command(ann, thread, "game", {}, sub="start")
        assert rec.final.content == "Done.", rec.final.content
        assert "starts. Seats:" in fake.channel_messages(thread)[-1].content
        assert len(held) >= 5 and not any(held), held
    finally:
        await runner.stop()
        await fake.stop()


async def test_seats_and_reminder_settings_are_posted_in_the_games_line(tmp_path):
    """/game claim, /game replace and /game remind take their place in the game's line of posts while the game is
    held: no action's post (or ping) comes in between the change and its words; they are posted once the game is
    free."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        log = fixture_log()
        ann, bob, cid = (fake.add_user(n) for n in ("Ann", "Bob", "Cid"))
        rec = await fake.command(ann, fake.channel_id, "game", {
            "file": AttachmentRef("game.json", json.dumps(dict(log, actions=log["actions"][:6])).encode()),
            "player1": UserRef(ann)}, sub="import")
        assert rec.final.content.startswith("Imported"), rec.final.content
        thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
        gid = int(rec.final.content.split("#")[1].split()[0])
        held, real = [], bot.publish

        async def watched(reply, channel_id=None):
            held.append(bot.service.lock(gid).locked())
            return await real(reply, channel_id)

        bot.publish = watched
        for who, options, sub, told in ((bob, {"seat": 2}, "claim", "takes over"),
                                        (ann, {"old": UserRef(bob), "new": UserRef(cid)}, "replace", "takes over"),
                                        (cid, {"hours": 6.0}, "remind", "Reminders after 6 h")):
            rec = await fake.command(who, thread, "game", options, sub=sub)
            assert rec.final.content == "Done.", (sub, rec.final.content)
            assert told in fake.channel_messages(thread)[-1].content, (sub, fake.channel_messages(thread)[-1].content)
        assert held == [False, False, False], held
    finally:
        await runner.stop()
        await fake.stop()


async def test_an_undo_request_the_thread_refuses_is_not_kept(tmp_path):
    """An undo vote whose message Discord refuses would have no buttons anywhere: the member hears why and
    nothing is asked; the request it would have replaced stays open, its message untouched."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, second, _third) = await _two_played(fake, bot)
        rec = await fake.command(second, thread, "game", {"steps": 2}, sub="undo")
        assert rec.final.content == "Undo requested; the others must agree.", rec.final.content
        asked = fake.channel_messages(thread)[-1]
        open_before, told = await bot.db.undo_request(gid), asked.content
        assert open_before is not None and open_before.message_id == asked.id

        fake.closed.add(thread)
        posted, count = len(fake.channel_messages(thread)), await bot.db.action_count(gid)
        rec = await fake.command(first, thread, "game", {"steps": 2}, sub="undo")
        assert rec.final.ephemeral and "could not be posted in the game's thread" in rec.final.content, \
            rec.final.content
        assert len(fake.channel_messages(thread)) == posted and asked.content == told and asked.custom_ids
        assert await bot.db.undo_request(gid) == open_before
        assert await bot.db.action_count(gid) == count == len(bot.service._live[gid].session.actions)
    finally:
        await runner.stop()
        await fake.stop()


async def test_reads_answer_the_member_alone_and_post_nothing_in_the_thread(tmp_path):
    """Status, history, export and the list are the member's alone: nothing reaches a game's thread but the posts
    in its line, in the order of the changes they tell (a read posted there could come before the post of an
    action sent just before it)."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, _second, _third) = await _two_played(fake, bot)
        posted = len(fake.channel_messages(thread))
        for sub in ("status", "history", "export", "list"):
            rec = await fake.command(first, thread, "game", {}, sub=sub)
            assert rec.final.ephemeral and rec.final.content, (sub, rec.final.content)
        assert len(fake.channel_messages(thread)) == posted
    finally:
        await runner.stop()
        await fake.stop()


async def test_an_undo_request_and_its_votes_are_posted_with_the_game_free(tmp_path):
    """The vote's message goes out with the game free (the request stored first, not posted yet, then confirmed
    with its message), and its buttons count the votes."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, (first, second, third) = await _two_played(fake, bot)
        held, real = [], bot.publish

        async def watched(reply, channel_id=None):
            held.append((reply.buttons[:1], bot.service.lock(gid).locked(), await bot.db.undo_request(gid)))
            return await real(reply, channel_id)

        bot.publish = watched
        rec = await fake.command(first, thread, "game", {"steps": 2}, sub="undo")
        assert rec.final.content == "Undo requested; the others must agree.", rec.final.content
        vote = fake.channel_messages(thread)[-1]
        [(buttons, locked, asked)] = held
        assert buttons[0].startswith("undo_yes:") and not locked and not asked.posted and asked.message_id is None
        req = await bot.db.undo_request(gid)
        assert req.posted and req.message_id == vote.id and f"rh:undo_yes:{gid}:{req.token}" in vote.custom_ids
        for member in (second, third):
            rec = await fake.click(member, vote, f"rh:undo_yes:{gid}:{req.token}")
            assert rec.final.content == "Vote counted.", rec.final.content
        assert await bot.db.action_count(gid) == 0 and not any(locked for _, locked, _ in held)
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_trade_offer_is_posted_with_the_game_free(tmp_path):
    """Discord taking its time over an offer's post holds up no other command; the offer, stored first as not
    posted yet, is open on its message once posted."""
    entered, release = asyncio.Event(), asyncio.Event()
    messages = iter(range(1, 100))

    async def slow(reply):
        if any(b.startswith("offer_yes:") for b in reply.buttons):
            entered.set()
            await release.wait()
        return SimpleNamespace(id=next(messages))

    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Engine(), pictures=False)
        gid, buyer, seller, wanted = await _train_from_another_president(svc)
        offering = asyncio.ensure_future(svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 300}, slow))
        await asyncio.wait_for(entered.wait(), 10)
        offer = await db.trade_offer(gid)
        assert not svc.lock(gid).locked() and offer is not None and not offer.posted
        assert "1830" in (await asyncio.wait_for(svc.status(gid, seller), 10)).text  # the game is free meanwhile
        release.set()
        await offering
        offer = await db.trade_offer(gid)
        assert offer.posted and offer.message_id is not None
        await svc.answer_offer(gid, seller, True, offer.token, slow, message_id=offer.message_id)
        assert await db.action_count(gid) == 337 and (await db.actions(gid))[-1]["price"] == 300


async def test_the_pictures_of_an_accepted_trade_and_of_an_undo_are_drawn_with_the_game_free(tmp_path):
    """As an action's: drawn from a copy of the game once it is free, each posted with its own pictures."""
    held: list[bool] = []
    lock: list[asyncio.Lock] = []  # the game's, once imported

    class Watched(Engine):
        def picture(self, session, kind, change=None, names=None):
            held.append(bool(lock) and lock[0].locked())
            return super().picture(session, kind, change, names)

    posts = posted = Posts()

    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Watched(), pictures=True)
        gid, buyer, seller, wanted = await _train_from_another_president(svc)
        lock.append(svc.lock(gid))
        await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 300}, posted)
        offer = await db.trade_offer(gid)
        held.clear()
        traded = await svc.answer_offer(gid, seller, True, offer.token, posted)
        assert traded.text.startswith(f"{seller.name} agrees.") and traded.pictures and held and not any(held)
        assert posts[-1] is traded and [a.text.split(" — ")[1] for a in traded.also] == \
            [f"closed: {seller.name} agreed."]  # the offer's message, edited once
        held.clear()
        undone = await svc.undo(gid, buyer, 1, posted)
        assert "undid 1 action" in undone.text and undone.pictures and held and not any(held)
        assert posts[-1] is undone and await db.action_count(gid) == 336


async def test_an_accepted_offer_cut_short_by_a_crash_is_neither_lost_nor_applied_twice(tmp_path, monkeypatch):
    """The offer is closed in the transaction that stores the trade: killed before that commit, the bot comes
    back with the offer open, and the seller's second Accept sells the train, once."""
    path = tmp_path / "rh.db"
    db = await Database(path).open()
    try:
        svc = Service(db, Engine(), pictures=False)
        gid, buyer, seller, wanted = await _train_from_another_president(svc)
        await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 120})
        offer = await db.trade_offer(gid)

        def die(*args, **kwargs):
            raise Killed

        with monkeypatch.context() as m:
            m.setattr(Database, "append_action", die)
            with pytest.raises(Killed):
                await svc.answer_offer(gid, seller, True, offer.token)
        await db.close()  # the process is gone; it starts again on the same database
        db = await Database(path).open()
        svc = Service(db, Engine(), pictures=False)
        await svc.resume_all()
        assert await db.action_count(gid) == 336 and await db.trade_offer(gid) == offer
        await svc.answer_offer(gid, seller, True, offer.token)
        assert await db.action_count(gid) == 337 and (await db.actions(gid))[-1]["price"] == 120
        await refused(svc.answer_offer(gid, seller, True, offer.token), "no longer open")
        assert await db.action_count(gid) == 337 and await db.trade_offer(gid) is None
    finally:
        await db.close()


async def test_a_post_lost_after_its_action_was_stored_is_made_good(tmp_path):
    """A start nobody was told of is made good first: whoever must act is pinged. Then the process is killed after
    an action was stored, before its post: once back, the thread is told what it missed, and whoever must act now
    is pinged (once). A thread that refuses that post is tried again an hour later; an undo whose post was lost
    is told too."""
    posts = posted = Posts()

    async def dies(reply):
        raise Killed

    async def refuses(reply):
        return None

    path = tmp_path / "rh.db"
    db = await Database(path).open()
    try:
        svc = Service(db, Engine(), pictures=False)
        gid, who = await started_game(svc)  # its start posted by nobody
        members = {c.member_id: c for c in who.values()}
        told = await svc.catch_up(posted)
        ann = who["Ann"].member_id
        assert len(told) == 1 and told[0].mention == [ann] and told[0].text == \
            f"Catching up: this thread was not told of the latest moves.\nNext: <@{ann}> — buy SV for $20, bid on a " \
            "dearer private, or pass.", told[0].text
        with pytest.raises(Killed):
            await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20}, dies)
        await db.close()
        db = await Database(path).open()
        svc = Service(db, Engine(), pictures=False)
        await svc.resume_all()
        told = await svc.catch_up(posted)
        assert len(told) == 1 and "\n1. Ann buys SV for $20\n" in told[0].text, told[0].text
        bob = members[svc._live[gid].row.turn_members[0]]
        with pytest.raises(Killed):
            await svc.act(gid, bob, "bid", {"company": "CA", "price": 170}, dies)
        await db.close()  # the process is gone; it starts again on the same database
        db = await Database(path).open()
        svc = Service(db, Engine(), pictures=False)
        await svc.resume_all()
        assert await db.action_count(gid) == 2
        cid = members[svc._live[gid].row.turn_members[0]]
        told = await svc.catch_up(posted)
        assert len(told) == 1 and told[0] is posts[-1]
        assert told[0].text.startswith("Catching up: this thread was not told of the latest moves.\n2. Bob bids $170 "
                                       "on CA"), told[0].text
        assert told[0].mention == [cid.member_id] and f"<@{cid.member_id}>" in told[0].text
        assert await svc.catch_up(posted) == []

        await svc.act(gid, cid, "pass", {}, refuses)  # Discord refuses the post
        assert await svc.catch_up(refuses, now=1000.0) == []
        assert await svc.catch_up(posted, now=1010.0) == [] and posts[-1] is told[0]  # not again so soon
        told = await svc.catch_up(posted, now=1000.0 + svc.CATCH_UP_RETRY)
        assert len(told) == 1 and "\n3. Cid passes" in told[0].text, told[0].text

        with pytest.raises(Killed):
            await svc.undo(gid, cid, 1, dies)
        await db.close()
        db = await Database(path).open()
        svc = Service(db, Engine(), pictures=False)
        await svc.resume_all()
        told = await svc.catch_up(posted)
        assert len(told) == 1 and told[0].text.splitlines()[1] == "↩ Cid undid 1 action: Cid passes.", told[0].text
        assert told[0].mention == [cid.member_id]
        assert await svc.catch_up(posted) == []
    finally:
        await db.close()


async def test_a_trade_offer_the_thread_refuses_is_not_kept(tmp_path):
    """An offer's message is the seller's only way to answer it: one Discord refuses to post is not kept (the
    buyer hears why), and the offer it would have replaced stays open on its own message."""
    messages = iter(range(1, 100))

    async def posted(reply):
        return SimpleNamespace(id=next(messages))

    async def refuses(reply):
        return None

    async with Database(tmp_path / "rh.db") as db:
        svc = Service(db, Engine(), pictures=False)
        gid, buyer, _seller, wanted = await _train_from_another_president(svc)
        await refused(svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 300}, refuses),
                      "could not be posted", "nothing was offered")
        assert await db.trade_offer(gid) is None
        await svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 300}, posted)
        offer = await db.trade_offer(gid)
        assert offer.message_id is not None
        await refused(svc.act(gid, buyer, "train", {"train": wanted["train"], "price": 1}, refuses),
                      "could not be posted")
        assert await db.trade_offer(gid) == offer and await db.action_count(gid) == 336


async def test_a_refused_vote_whose_telling_failed_loses_its_buttons_at_the_catch_up(tmp_path):
    """A Refuse is stored (the request closed) and telling it fails: the vote message keeps its buttons until the
    catch-up edits it to its closed form, once."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        gid, thread, members, vote = await _vote_asked(fake, bot)
        req = await bot.db.undo_request(gid)
        armed = _telling_fails(bot.service)
        armed.append(True)
        rec = await fake.click(members[0], vote, f"rh:undo_no:{gid}:{req.token}")
        assert not armed and rec.final.content == STORED_NOT_TOLD, rec.final.content
        assert await bot.db.undo_request(gid) is None and vote.custom_ids  # closed, its buttons still there
        [closed] = await bot.service.catch_up(bot.publish)
        assert closed.edit == vote.id and not vote.custom_ids, vote.custom_ids
        name = next(s.name for s in await bot.db.seats(gid) if s.member_id == members[0])
        assert vote.content == f"Undo vote on 2 actions closed: {name} refused.", vote.content
        edits = len(fake.edits)
        assert await bot.service.catch_up(bot.publish) == [] and len(fake.edits) == edits  # once
    finally:
        await runner.stop()
        await fake.stop()

