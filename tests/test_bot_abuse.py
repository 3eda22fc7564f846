"""What a member may try on others through the fake Discord: text of theirs the bot echoes in a game's thread (an
imported log's result, names with invisible controls) reads as typed and pings nobody, and the heavy commands one
member may set going at once (imports, undo requests) are bounded, so one member cannot hold the machine that
every server's games share."""

from __future__ import annotations

import asyncio
import json
import re
import threading

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


class HeldLoads(QuickPictures):
    """Imports' replays wait for `release` (each tells `loading` it began)."""

    def __init__(self) -> None:
        super().__init__()
        self.loading, self.release = asyncio.Event(), threading.Event()
        self.loop = asyncio.get_running_loop()

    def load(self, log: dict):
        self.loop.call_soon_threadsafe(self.loading.set)
        self.release.wait(30)
        return super().load(log)


async def test_a_member_has_one_import_on_its_way_at_a_time(tmp_path):
    """Imports wait for each other, each holding its file (up to 12 MB): a member's second import while the first
    is on its way is refused at once, its file never downloaded; another member's waits its turn as before."""
    fake = await FakeDiscord().start()
    engine = HeldLoads()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=engine)
    bot = await runner.start()
    try:
        log = fixture_log()
        ann, bob, cid, dee = members = [fake.add_user(n) for n in ("Ann", "Bob", "Cid", "Dee")]
        short = dict(log, actions=resolved_actions(log)[:20])
        first = asyncio.ensure_future(_import(fake, ann, short, members))
        await asyncio.wait_for(engine.loading.wait(), 20)
        again = await _import(fake, ann, short, members)
        assert "Your other import is on its way" in again.final.content, again.final.content
        assert len(fake.downloads) == 1
        other = asyncio.ensure_future(_import(fake, bob, short, [bob, ann, cid, dee]))
        await fake.wait_for_change(lambda: len(fake.downloads) == 2)  # downloaded, waiting for the first
        engine.release.set()
        assert (await first).final.content.startswith("Imported"), (await first).final.content
        assert (await other).final.content.startswith("Imported"), (await other).final.content
        assert len(await bot.db.list_games(guild_id=fake.guild_id)) == 2
        assert (await _import(fake, ann, short, members)).final.content.startswith("Imported")  # once answered
    finally:
        engine.release.set()
        await runner.stop()
        await fake.stop()


async def test_a_member_has_one_undo_request_or_vote_on_its_way_at_a_time(tmp_path):
    """An undo request replays the game before it is held (a second for a long 1817 game), in the worker threads
    every server's actions use: a member's second request (or vote) while the first is on its way is refused at
    once, no replay made for it; once it is answered they may ask again."""
    fake = await FakeDiscord().start()
    engine = HeldLoads()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=engine)
    await runner.start()
    try:
        ann, bob, cid = (fake.add_user(n) for n in ("Ann", "Bob", "Cid"))
        await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        thread = _threads(fake)[-1]
        for uid in (bob, cid):
            await fake.command(uid, thread, "game", {}, sub="join")
        await fake.command(ann, thread, "game", {}, sub="start")
        for _ in range(3):  # whoever is to act passes: an undo of 2 takes back another's action, so it asks
            for uid in (ann, bob, cid):
                rec = await fake.command(uid, thread, "pass", {})
                if rec.final.content.startswith("Done"):
                    break
        asker = ann  # turns go round: the last two actions are never all one seat's, so an undo of 2 asks
        engine.loading.clear()
        first = asyncio.ensure_future(fake.command(asker, thread, "game", {"steps": 2}, sub="undo"))
        await asyncio.wait_for(engine.loading.wait(), 20)  # its words: the game replayed up to the two actions
        again = await fake.command(asker, thread, "game", {"steps": 3}, sub="undo")
        assert "Your other undo request or vote is on its way" in again.final.content, again.final.content
        engine.release.set()
        assert (await first).final.content == "Undo requested; the others must agree.", (await first).final.content
        again = await fake.command(asker, thread, "game", {"steps": 2}, sub="undo")
        assert again.final.content == "Undo requested; the others must agree.", again.final.content
    finally:
        engine.release.set()
        await runner.stop()
        await fake.stop()


async def test_an_interaction_from_no_server_reaches_no_game(tmp_path):
    """The game commands are for servers (Discord offers them nowhere else); one sent from a DM all the same comes
    from no server, and reaches no game: not the console's games either, which belong to no server and may share
    the database."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        from bot.access import Caller

        seats = [Caller(1001 + i, n) for i, n in enumerate(("Ann", "Bob", "Cid"))]  # the console's players
        row = await bot.service.new_game(seats[0], title="1830", seed=5)
        for seat in seats[1:]:
            await bot.service.join(row.id, seat)
        await bot.service.start(row.id, seats[0])
        eve = fake.add_user("Eve")
        dm = fake.add_dm(eve)
        rec = await fake.command(eve, dm, "game", {}, sub="list")
        assert rec.final.content == "No open games.", rec.final.content
        for sub in ("status", "history", "export"):
            rec = await fake.command(eve, dm, "game", {"game": row.id}, sub=sub)
            assert "There is no game" in rec.final.content and not rec.final.attachments, (sub, rec.final.content)
        assert await fake.autocomplete(eve, dm, "bid", {"game": row.id, "company": ""}, "company") == []
        rec = await fake.command(eve, dm, "game", {"on": True}, sub="notify")  # a member's own setting: fine anywhere
        assert rec.final.content == "I will DM you when it is your turn."
    finally:
        await runner.stop()
        await fake.stop()


async def _started_1830(fake: FakeDiscord) -> tuple[int, list[int]]:
    """An 1830 game started in a new thread: (thread, its members)."""
    members = [fake.add_user(n) for n in ("Ann", "Bob", "Cid")]
    await fake.command(members[0], fake.channel_id, "game", {"title": "1830"}, sub="new")
    thread = _threads(fake)[-1]
    for uid in members[1:]:
        await fake.command(uid, thread, "game", {}, sub="join")
    await fake.command(members[0], thread, "game", {}, sub="start")
    return thread, members


async def test_an_answer_longer_than_discord_takes_is_shortened_never_lost(tmp_path, monkeypatch):
    """Discord refuses a message over 2,000 characters: a move's words that long (many names written escaped, a
    long settlement) are shortened in the presser's *Done*, not answered *nothing was changed* once stored, and a
    preview that long is shown shortened, its Confirm working."""
    from bot.families.g18xx import G18xx

    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        thread, members = await _started_1830(fake)
        real = G18xx.describe_all
        monkeypatch.setattr(G18xx, "describe_all", lambda self, changes, names: real(self, changes, names) + "; " +
                            "and so on " * 300)
        post = fake.channel_messages(thread)[-1]
        button = next(c for c in post.custom_ids if c.startswith("rh:pass:"))
        seated = {s.member_id: s for s in await bot.db.seats(1)}
        first = next(m for m in members if seated[m].position == 0)
        rec = await fake.click(first, post, button)
        assert rec.final.content.startswith("Done: ") and len(rec.final.content) <= 2000, rec.final.content[:80]
        assert await bot.db.action_count(1) == 1
        monkeypatch.setattr(G18xx, "confirmation", lambda self, action, names, frozen=None: "If you pass: " +
                            "it goes on " * 300)
        second = next(m for m in members if seated[m].position == 1)
        rec = await fake.command(second, thread, "pass", {})
        assert rec.final.content.startswith("If you pass: ") and len(rec.final.content) <= 2000, rec.final.content[:80]
        confirm = next(c for c in rec.final.custom_ids if c.startswith("rh:confirm:"))
        rec = await fake.click(second, rec.final, confirm)
        assert await bot.db.action_count(1) == 2
        assert fake.too_long == [], fake.too_long
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_member_sends_so_many_imports_an_hour(tmp_path, monkeypatch):
    """Each import is a game every start-up replays, whose post pings the members it seats: a member sends at most
    `MAX_IMPORTS_AN_HOUR` within an hour (refused ones too: each was read and replayed), a further one refused
    before its file is downloaded; an hour on they may import again, and another member meanwhile."""
    import bot.service

    monkeypatch.setattr(bot.service, "MAX_IMPORTS_AN_HOUR", 2)
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot_ = await runner.start()
    now = [1_000_000.0]
    bot_.service.clock = lambda: now[0]
    try:
        log = fixture_log()
        ann, bob, cid, dee = members = [fake.add_user(n) for n in ("Ann", "Bob", "Cid", "Dee")]
        short = dict(log, actions=resolved_actions(log)[:10])
        assert (await _import(fake, ann, short, members)).final.content.startswith("Imported")
        refused = await _import(fake, ann, dict(short, title="1889"), members)
        assert refused.final.content.startswith("Cannot import"), refused.final.content
        downloads = len(fake.downloads)
        rec = await _import(fake, ann, short, members)
        assert rec.final.content == "You sent 2 imports within the hour: send another later.", rec.final.content
        assert len(fake.downloads) == downloads
        assert (await _import(fake, bob, short, [bob, ann, cid, dee])).final.content.startswith("Imported")
        now[0] += 3600
        assert (await _import(fake, ann, short, members)).final.content.startswith("Imported")
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_member_who_handed_their_seat_over_answers_nothing_of_it(tmp_path):
    """A member whose seat went to another (`/game replace`) holds nothing of it any more: not the preview they were
    shown, not the game's buttons, not its commands; the new holder acts for it (and cannot confirm a preview
    shown to the member before them)."""
    from test_bot_confirm import _bot_before_first_loan, _button

    async with _bot_before_first_loan(tmp_path) as (fake, _runner, bot, users, thread, game_id, loan, who):
        count = await bot.db.action_count(game_id)
        preview = (await fake.command(who, thread, "loan", {"corporation": loan["entity"]})).final
        newcomer = fake.add_user("Newcomer")
        rec = await fake.command(who, thread, "game", {"old": UserRef(who), "new": UserRef(newcomer)}, sub="replace")
        assert rec.final.content == "Done.", rec.final.content
        rec = await fake.click(newcomer, preview, _button(preview, "confirm"))
        assert "Only the member who asked" in rec.final.content, rec.final.content
        rec = await fake.click(who, preview, _button(preview, "confirm"))
        assert "moved on" in rec.final.content and preview.custom_ids == [], rec.final.content
        rec = await fake.command(who, thread, "loan", {"corporation": loan["entity"]})
        assert rec.final.content == "You have no seat in this game.", rec.final.content
        post = next(m for m in reversed(fake.channel_messages(thread)) if any(
            c.startswith("rh:pass:") for c in m.custom_ids))
        rec = await fake.click(who, post, _button(post, "pass"))
        assert rec.final.content == "You have no seat in this game.", rec.final.content
        assert await fake.autocomplete(who, thread, "loan", {"corporation": ""}, "corporation") != []  # reads: anyone
        assert await bot.db.action_count(game_id) == count
        preview = (await fake.command(newcomer, thread, "loan", {"corporation": loan["entity"]})).final
        rec = await fake.click(newcomer, preview, _button(preview, "confirm"))
        assert "→ Done: " in rec.final.content, rec.final.content
        assert await bot.db.action_count(game_id) == count + 1


async def test_a_closed_lobbys_buttons_say_the_game_is_over(tmp_path):
    """Join, Leave and Start pressed under an aborted lobby's message (a client still showing them) change nothing
    and say the game is over, not that it started."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        ann, bob, cid = (fake.add_user(n) for n in ("Ann", "Bob", "Cid"))
        await fake.command(ann, fake.channel_id, "game", {"title": "1830"}, sub="new")
        thread = _threads(fake)[-1]
        lobby = fake.channel_messages(thread)[0]
        buttons = lobby.components
        await fake.command(bob, thread, "game", {}, sub="join")
        assert (await fake.command(ann, thread, "game", {}, sub="abort")).final.content == "Done."
        assert lobby.custom_ids == []
        lobby.components = buttons
        seats = await bot.db.seats(1)
        for uid, what in ((cid, "join"), (bob, "leave"), (ann, "start")):
            rec = await fake.click(uid, lobby, next(c for c in lobby.custom_ids if c.startswith(f"rh:{what}:")))
            assert rec.final.content == "This game is already over.", (what, rec.final.content)
        rec = await fake.command(ann, thread, "game", {"member": UserRef(bob)}, sub="kick")
        assert rec.final.content == "This game is already over.", rec.final.content
        assert await bot.db.seats(1) == seats and (await bot.db.get_game(1)).status == "aborted"
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_trade_offer_and_an_undo_vote_are_answered_only_by_those_asked(tmp_path):
    """A trade offer's Accept counts only from the seller's seat (not the buyer's, another player's or a
    spectator's), an undo vote's Agree only from a seat asked, once however often it is pressed."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        log = fixture_log()
        members = [fake.add_user(n) for n in ("Ann", "Bob", "Cid", "Dee")]
        eve = fake.add_user("Eve")  # in the server, in no seat
        rec = await _import(fake, members[0], dict(log, actions=resolved_actions(log)[:336]), members)
        game, thread = _game_of(rec), _threads(fake)[-1]
        lv = bot.service._live[game]
        seat = {s.player_id: s.member_id for s in lv.seats}
        buyer = seat[lv.session.active_players()[0]]
        pid = next(p for p, m in seat.items() if m == buyer)
        wanted = next(a for a in lv.session.legal() if a["type"] == "buy_train" and a["price"] == 1
                      and lv.session.needs_consent(pid, dict(a, price=300)) is not None)
        seller = seat[lv.session.needs_consent(pid, dict(wanted, price=300))]
        await fake.command(buyer, thread, "train", {"train": wanted["train"], "price": 300})
        offer = fake.channel_messages(thread)[-1]
        accept = next(c for c in offer.custom_ids if c.startswith("rh:offer_yes:"))
        for uid in (buyer, eve, next(m for m in members if m not in (buyer, seller))):
            rec = await fake.click(uid, offer, accept)
            assert rec.final.content.startswith("Only ") and "answers this offer" in rec.final.content, \
                rec.final.content
        assert await bot.db.action_count(game) == 336 and await bot.db.trade_offer(game) is not None
        assert (await fake.click(seller, offer, accept)).final.content == "Answer given."
        assert await bot.db.action_count(game) == 337

        asker = seat[lv.session.active_players()[0]]
        await fake.command(asker, thread, "game", {"steps": 2}, sub="undo")  # the trade among them: a vote
        vote = fake.channel_messages(thread)[-1]
        agree = next(c for c in vote.custom_ids if c.startswith("rh:undo_yes:"))
        rec = await fake.click(eve, vote, agree)
        assert rec.final.content == "Only the players of this game vote on undo.", rec.final.content
        voter = next(m for m in members if m != asker)
        for _ in range(2):
            assert (await fake.click(voter, vote, agree)).final.content == "Vote counted."
        request = await bot.db.undo_request(game)
        assert request is not None and len(request.agreed) == 2  # the asker and the voter, once
        assert await bot.db.action_count(game) == 337
    finally:
        await runner.stop()
        await fake.stop()
