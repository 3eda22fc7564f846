"""A game's posts go out in the order of the changes they tell, each taking its place in the game's line while the
game is held and posted once it is free (`Service._told`): Discord taking its time over an undo's, a reminder's or
a start's post holds up the later posts, never the game (the next action is stored meanwhile); a post Discord
refuses loses nothing (the change it tells is stored, the command is done, the next posts go out)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from fakediscord.play import (
    GUILD,
    Killed,
    acting_caller,
    fixture_log,
    imported_game,
    resolved_actions,
    started_game,
    stored_events,
)

from bot.access import Caller
from bot.db import Database
from bot.errors import UserError
from bot.families.g18xx import G18xx
from bot.service import Service
from bot.session import Engine

UPTO = 30  # 26855: the first stock round, shares being bought


class Thread:
    """The game's thread as the service posts to it. `hold(words)`: the next post starting with `words` waits until
    `release()`d (`entered` is set once it is waiting); `refuse(words)`: the next such post fails, as Discord
    refusing it would."""

    def __init__(self) -> None:
        self.posts: list[str] = []
        self.entered, self.go = asyncio.Event(), asyncio.Event()
        self.held: str | None = None
        self.refused: str | None = None

    def hold(self, words: str) -> None:
        self.held = words

    def refuse(self, words: str) -> None:
        self.refused = words

    def release(self) -> None:
        self.go.set()

    async def publish(self, reply):
        text = reply.text
        if self.refused is not None and text.startswith(self.refused):
            self.refused = None
            raise RuntimeError("Discord refused the post")
        if self.held is not None and text.startswith(self.held):
            self.held = None
            self.entered.set()
            await self.go.wait()
        self.posts.append(text.splitlines()[0])
        return SimpleNamespace(id=len(self.posts))


async def recorded_1830(db: Database) -> tuple[Service, list[dict], int, dict]:
    """A service with 26855 imported up to `UPTO`: (service, the log's actions, game id, callers by player id)."""
    svc = Service(db, Engine(), pictures=False)
    log = fixture_log()
    gid, callers = await imported_game(svc, log, UPTO)
    return svc, resolved_actions(log), gid, callers


async def send(svc: Service, gid: int, callers, action: dict, publish):
    kind, options = G18xx.command_for(action)
    return await svc.act(gid, callers[int(action["entity"])], kind, options, publish, confirmed=True)


async def test_an_undo_post_held_up_holds_up_the_later_posts_not_the_game(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        svc, actions, gid, callers = await recorded_1830(db)
        thread = Thread()
        await send(svc, gid, callers, actions[UPTO], thread.publish)
        stored = stored_events(svc)
        thread.hold("Player")  # the undo's sentence starts with its member's name
        undoing = asyncio.ensure_future(svc.undo(gid, callers[int(actions[UPTO]["entity"])], 1, thread.publish))
        await asyncio.wait_for(thread.entered.wait(), 10)
        assert not svc.lock(gid).locked() and await db.action_count(gid) == UPTO  # undone, its post on its way
        stored.clear()
        again = asyncio.ensure_future(send(svc, gid, callers, actions[UPTO], thread.publish))
        await asyncio.wait_for(stored.wait(), 10)
        assert await db.action_count(gid) == UPTO + 1 and not again.done() and len(thread.posts) == 1
        thread.release()
        undone, redone = await undoing, await again
        assert thread.posts[1:] == [undone.text.splitlines()[0], redone.text.splitlines()[0]], thread.posts
        assert "undid 1 action" in thread.posts[1]


async def test_a_reminder_post_held_up_holds_up_the_later_posts_not_the_game(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        svc, actions, gid, callers = await recorded_1830(db)
        await db.set_reminder(gid, enabled=1, next_at=1.0)
        thread = Thread()
        stored = stored_events(svc)
        thread.hold("Reminder")
        reminding = asyncio.ensure_future(svc.due_reminders(publish=thread.publish))
        await asyncio.wait_for(thread.entered.wait(), 10)
        assert not svc.lock(gid).locked()
        acting = asyncio.ensure_future(send(svc, gid, callers, actions[UPTO], thread.publish))
        await asyncio.wait_for(stored.wait(), 10)
        assert await db.action_count(gid) == UPTO + 1 and not acting.done() and thread.posts == []
        thread.release()
        [reminder], done = await reminding, await acting
        assert thread.posts == [reminder.text.splitlines()[0], done.text.splitlines()[0]]


async def test_a_post_refused_loses_nothing(tmp_path):
    """The start's and then an undo's post refused: the game started and the undo is stored all the same, each
    command is done, and the next actions are stored and posted."""
    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        thread = Thread()
        who = {n: Caller(11 + i, n, GUILD, 9001) for i, n in enumerate(("Ann", "Bob", "Cid"))}
        row = await svc.new_game(Caller(11, "Ann", GUILD, 8000), title="1830", seed=5, channel_id=8000,
                                 thread_id=9001)
        for name in ("Bob", "Cid"):
            await svc.join(row.id, who[name], thread.publish)
        thread.refuse("**1830** game")
        started = await svc.start(row.id, who["Ann"], thread.publish)
        assert "starts" in started.text and svc._live[row.id].row.status == "active"
        callers = {svc._live[row.id].seat_of_member(c.member_id).player_id: c for c in who.values()}
        first = acting_caller(svc, row.id, callers)
        await svc.act(row.id, first, "pass", {}, thread.publish, confirmed=True)
        thread.refuse(first.name)  # the undo's sentence
        undone = await svc.undo(row.id, first, 1, thread.publish)
        assert "undid 1 action" in undone.text and await db.action_count(row.id) == 0
        for _ in range(2):
            await svc.act(row.id, acting_caller(svc, row.id, callers), "pass", {}, thread.publish, confirmed=True)
        assert await db.action_count(row.id) == 2 == len(svc._live[row.id].session.actions)
        assert thread.refused is None and len(thread.posts) == 2 + 3, thread.posts  # two joins, three passes
        assert not any("starts" in p or "undid" in p for p in thread.posts), thread.posts


async def test_an_undo_request_is_posted_with_the_game_free(tmp_path):
    """An undo vote is stored before its post, as not posted yet, and posted once the game is free: Discord taking
    its time holds up no action. The action stored meanwhile closes the vote, and once its post is out its message
    loses its buttons (nothing knew that message before)."""
    async with Database(str(tmp_path / "rh.db")) as db:
        svc, actions, gid, callers = await recorded_1830(db)
        thread = Thread()
        stored = stored_events(svc)
        asker = next(c for p, c in callers.items() if p != int(actions[UPTO]["entity"]))
        thread.hold(asker.name)  # "… asks to undo the last action"
        asking = asyncio.ensure_future(svc.undo(gid, asker, 1, thread.publish))  # an imported action: a vote
        await asyncio.wait_for(thread.entered.wait(), 10)
        asked = await db.undo_request(gid)
        assert not svc.lock(gid).locked() and asked is not None and not asked.posted and asked.message_id is None
        acting = asyncio.ensure_future(send(svc, gid, callers, actions[UPTO], thread.publish))
        await asyncio.wait_for(stored.wait(), 10)
        assert await db.action_count(gid) == UPTO + 1 and await db.undo_request(gid) is None and not asking.done()
        thread.release()
        assert (await asking).token == asked.token
        done = await acting
        await svc._posted(gid)
        assert thread.posts[-3:] == [f"{asker.name} asks to undo the last action: " + thread.posts[-3].split(": ", 1)[1],
                                     done.text.splitlines()[0], "Undo vote on 1 action closed: the game went on."], \
            thread.posts


async def test_a_vote_pressed_before_its_request_is_known_posted_waits_for_it(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        svc, actions, gid, callers = await recorded_1830(db)
        thread = Thread()
        asker, voter = list(callers.values())[:2]
        thread.hold(asker.name)
        asking = asyncio.ensure_future(svc.undo(gid, asker, 1, thread.publish))
        await asyncio.wait_for(thread.entered.wait(), 10)
        token = (await db.undo_request(gid)).token
        voting = asyncio.ensure_future(svc.vote_undo(gid, voter, True, token, thread.publish, message_id=1))
        thread.release()
        await asking
        assert "agrees to undo 1 action" in (await voting).text
        req = await db.undo_request(gid)
        assert req.posted and req.message_id == 1 and len(req.agreed) == 2, req


async def test_an_undo_request_posted_just_before_the_bot_stopped_is_kept_by_a_press_on_it(tmp_path):
    """Killed once the request's message is out but before it was confirmed as posted: after the restart the
    request is there, not posted as far as the bot knows; a press on its message (its buttons carry its number)
    shows it was, and is counted. An answer that is no press, or for another request, is refused."""
    posts: list = []

    async def posted_then_killed(reply):
        posts.append(reply)
        raise Killed

    path = tmp_path / "rh.db"
    db = await Database(path).open()
    try:
        svc = Service(db, Engine(), pictures=False)
        gid, who = await started_game(svc)
        await svc.act(gid, who["Ann"], "bid", {"company": "SV", "price": 20})
        await svc.act(gid, who["Bob"], "bid", {"company": "CA", "price": 170})
        with pytest.raises(Killed):
            await svc.undo(gid, who["Ann"], 2, posted_then_killed)
        [asked] = posts
        yes = next(b for b in asked.buttons if b.startswith("undo_yes:"))
        token = int(yes.split(":")[1])
        await db.close()  # the process is gone; it starts again on the same database
        db = await Database(path).open()
        svc = Service(db, Engine(), pictures=False)
        await svc.resume_all()
        req = await db.undo_request(gid)
        assert req is not None and req.token == token and not req.posted
        for answer in (svc.vote_undo(gid, who["Bob"], True, token),
                       svc.vote_undo(gid, who["Bob"], True, token + 1, message_id=77)):
            with pytest.raises(UserError, match="no longer open"):
                await answer
        waiting = await svc.vote_undo(gid, who["Bob"], True, token, message_id=77)
        assert "waiting for Cid" in waiting.text
        req = await db.undo_request(gid)
        assert req.posted and req.message_id == 77 and len(req.agreed) == 2
        await svc.vote_undo(gid, who["Cid"], True, token, message_id=77)
        assert await db.action_count(gid) == 0
    finally:
        await db.close()
