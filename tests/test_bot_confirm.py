"""An 1817 loan through the fake Discord is shown before it is sent: the preview (what it costs) reaches only
the member who asked, with Confirm and Cancel; nobody else may answer it; Cancel drops it; Confirm applies
exactly the action shown, once; a preview shown before the game moved on (here an undo and another action,
back to as many actions as when it was shown) is refused and changes nothing."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
from fakediscord.play import Killed, imported_game, resolved_actions
from fakediscord.recorded import QuickPictures

from bot.access import Caller
from bot.db import Database
from bot.errors import PreviewClosed
from bot.service import Service
from bot.session import Engine
from engine.core.actions import resolve_undo

FIXTURE = Path(__file__).parent / "fixtures" / "1817" / "15528.json"


async def _import_before(fake: FakeDiscord, fixture: Path, pick) -> tuple[list[int], int, int, dict]:
    """A recorded game imported up to the action `pick(actions)` numbers: (members, thread, game id, that action)."""
    log = json.loads(fixture.read_text())
    actions = [a for a in resolve_undo(log["actions"]) if a["type"] != "message"]
    k = pick(actions)
    users = [fake.add_user(p["name"].replace(" ", "")) for p in log["players"]]
    opts = {"file": AttachmentRef("game.json", json.dumps(dict(log, actions=actions[:k])).encode())}
    opts.update({f"player{i + 1}": UserRef(uid) for i, uid in enumerate(users)})
    rec = await fake.command(users[0], fake.channel_id, "game", opts, sub="import")
    assert rec.final.content.startswith("Imported"), rec.final.content
    thread = max(cid for cid, ch in fake.channels.items() if ch.get("type") == 11)
    game_id = int(rec.final.content.split("#")[1].split()[0])
    return users, thread, game_id, actions[k]


async def _game_before_first_loan(fake: FakeDiscord) -> tuple[list[int], int, int, dict]:
    return await _import_before(fake, FIXTURE, lambda actions: next(i for i, a in enumerate(actions)
                                                                    if a["type"] == "take_loan"))


@contextlib.asynccontextmanager
async def _bot_before_first_loan(tmp_path):
    """The bot on a fake Discord, 15528 imported up to its first loan: (fake, runner, bot, users, thread, game id,
    that loan, the member whose turn it is)."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        users, thread, game_id, loan = await _game_before_first_loan(fake)
        live = bot.service._live[game_id]
        who = next(s.member_id for s in live.seats if s.player_id == live.session.active_players()[0])
        yield fake, runner, bot, users, thread, game_id, loan, who
    finally:
        await runner.stop()
        await fake.stop()


def _button(message, what: str) -> str:
    return next(c for c in message.custom_ids if c.startswith(f"rh:{what}:"))


async def _sent_pass(fake: FakeDiscord, bot, game_id: int, who: int, thread: int) -> None:
    """The game moved on by a pass sent confirmed (`/pass` ending the stock round is shown first: a preview of its
    own would replace the member's one under test)."""
    caller = Caller(who, "", fake.guild_id, thread)
    reply = await bot.service.act(game_id, caller, "pass", {}, publish=bot.publish, confirmed=True)
    assert not reply.private and reply.text, reply.text


def _answered_again(rec, preview, told: str) -> None:
    """A preview already answered, pressed again: the member alone hears it is no longer open; the preview still
    tells its one answer, unedited."""
    assert rec.final is not preview and rec.final.ephemeral, rec.final.content
    assert rec.final.content == "This preview is no longer open: nothing was done.", rec.final.content
    assert preview.content.count("\n→ ") == 1 and told in preview.content and preview.edits == 1, preview.content


async def test_a_loan_is_confirmed_by_its_member_once(tmp_path):
    async with _bot_before_first_loan(tmp_path) as (fake, _runner, bot, users, thread, game_id, loan, who):
        live = bot.service._live[game_id]
        members = {s.player_id: s.member_id for s in live.seats}
        other = next(u for u in users if u != who)
        corp = loan["entity"]
        count = len(live.session.actions)
        posted = len(fake.channel_messages(thread))

        rec = await fake.command(who, thread, "loan", {"corporation": corp})
        preview = rec.final
        assert preview.ephemeral and preview.content.startswith(f"{corp} takes a loan of $100: treasury "), \
            preview.content
        assert "1 of 2 loans" in preview.content and "price $55 → $50" in preview.content
        assert len(fake.channel_messages(thread)) == posted and len(live.session.actions) == count

        # someone else's press is refused (the preview stays open); Cancel drops it and says so in the preview,
        # whose buttons go; a Confirm pressed after that (a client that still shows them) finds nothing open
        confirm, cancel, buttons = _button(preview, "confirm"), _button(preview, "cancel"), preview.components
        rec = await fake.click(other, preview, confirm)
        assert rec.final.ephemeral and "Only the member who asked" in rec.final.content
        assert preview.custom_ids == [confirm, cancel] and not preview.edits
        rec = await fake.click(who, preview, cancel)
        assert rec.final is preview and preview.custom_ids == [] and preview.edits == 1
        assert preview.content.startswith(f"{corp} takes a loan of $100") and \
            preview.content.endswith("\n→ Cancelled: nothing was done."), preview.content
        preview.components = buttons  # as a client that still shows them would press them
        rec = await fake.click(who, preview, confirm)
        _answered_again(rec, preview, "\n→ Cancelled: nothing was done.")
        assert len(fake.channel_messages(thread)) == posted and len(bot.service._live[game_id].session.actions) == count

        # shown again, confirmed: applied once, exactly as shown
        rec = await fake.command(who, thread, "loan", {"corporation": corp})
        preview = rec.final
        confirm, buttons = _button(preview, "confirm"), preview.components
        rec = await fake.click(who, preview, confirm)
        assert "\n→ Done: " + f"{corp} takes a loan of $100" in rec.final.content, rec.final.content
        assert rec.final is preview and preview.custom_ids == []
        session = bot.service._live[game_id].session
        stored = session.actions[-1]
        assert len(session.actions) == count + 1
        same = ("type", "entity", "entity_type", "loan")
        assert {k: stored.get(k) for k in same} == {k: loan.get(k) for k in same}
        assert len(fake.channel_messages(thread)) == posted + 1
        preview.components = buttons
        rec = await fake.click(who, preview, confirm)  # pressed twice: applied once
        _answered_again(rec, preview, "\n→ Done: " + f"{corp} takes a loan of $100")
        assert len(session.actions) == count + 1

        # a preview shown before the game moved on: refused, nothing changes
        lender = members[session.active_players()[0]]
        choices = await fake.autocomplete(lender, thread, "loan", {"corporation": ""}, "corporation")
        assert choices  # the same president may borrow for another of theirs
        rec = await fake.command(lender, thread, "loan", {"corporation": choices[0]["value"]})
        stale = rec.final
        assert lender == who  # so the loan just taken is theirs to undo at once
        rec = await fake.command(lender, thread, "game", {"steps": 1}, sub="undo")
        assert len(bot.service._live[game_id].session.actions) == count, rec.final.content
        await _sent_pass(fake, bot, game_id, lender, thread)  # as many actions as when shown, another game
        moved = len(bot.service._live[game_id].session.actions)
        before = len(fake.channel_messages(thread))
        rec = await fake.click(lender, stale, _button(stale, "confirm"))
        assert "→ The game moved on since this preview" in rec.final.content, rec.final.content
        assert rec.final is stale and stale.custom_ids == []
        assert len(bot.service._live[game_id].session.actions) == moved
        assert len(fake.channel_messages(thread)) == before


async def test_whether_a_preview_was_answered_is_stored_not_read_from_its_words(tmp_path, monkeypatch):
    """A preview answered, pressed again after its message lost its outcome line, is still known for answered;
    one whose own words hold an arrow line, closed because the game moved on, is still answered in place (its
    buttons go): the previews table keeps how each was answered (migration 011)."""
    from bot.families.g18xx import G18xx

    shown = G18xx.confirmation
    monkeypatch.setattr(G18xx, "confirmation", lambda self, action, names, frozen=None: (
        None if (text := shown(self, action, names, frozen)) is None else text + "\n→ then the rate rises"))
    async with _bot_before_first_loan(tmp_path) as (fake, _runner, bot, _users, thread, game_id, loan, who):
        # cancelled, then its message shown again as it was before the answer
        rec = await fake.command(who, thread, "loan", {"corporation": loan["entity"]})
        first = rec.final
        words, cancel, buttons = first.content, _button(first, "cancel"), first.components
        token = int(cancel.split(":")[-1])
        await fake.click(who, first, cancel)
        assert (await bot.db.preview(token)).answered == "cancelled"
        first.content, first.components = words, buttons
        rec = await fake.click(who, first, cancel)
        assert rec.final is not first and rec.final.ephemeral, rec.final.content
        assert rec.final.content == "This preview is no longer open: nothing was done."
        assert first.content == words

        rec = await fake.command(who, thread, "loan", {"corporation": loan["entity"]})
        preview = rec.final
        assert preview.content.endswith("\n→ then the rate rises") and preview.custom_ids
        token = int(_button(preview, "confirm").split(":")[-1])
        await _sent_pass(fake, bot, game_id, who, thread)  # the game moves on
        rec = await fake.click(who, preview, _button(preview, "confirm"))
        assert rec.final is preview and preview.custom_ids == [], rec.final.content
        assert preview.content.endswith("\n→ The game moved on since this preview, so nothing was done: send the "
                                        "command again to see what it does now."), preview.content
        assert (await bot.db.preview(token)).answered == "closed"


async def test_a_preview_open_across_a_restart_is_confirmed_once(tmp_path):
    """The preview is stored: the bot restarts between the preview and its Confirm, and the Confirm applies
    the action shown, once; one shown before a restart after which the game moved on is refused."""
    async with _bot_before_first_loan(tmp_path) as (fake, runner, bot, _users, thread, game_id, loan, who):
        live = bot.service._live[game_id]
        count = len(live.session.actions)
        rec = await fake.command(who, thread, "loan", {"corporation": loan["entity"]})
        preview = rec.final
        confirm, buttons = _button(preview, "confirm"), preview.components

        await runner.stop()
        bot = await runner.start()
        assert game_id not in bot.service._live or len(bot.service._live[game_id].session.actions) == count
        posted = len(fake.channel_messages(thread))
        rec = await fake.click(who, preview, confirm)
        assert rec.final is preview and preview.custom_ids == []
        assert f"\n→ Done: {loan['entity']} takes a loan of $100" in preview.content, preview.content
        assert await bot.db.action_count(game_id) == count + 1
        assert len(fake.channel_messages(thread)) == posted + 1
        preview.components = buttons
        rec = await fake.click(who, preview, confirm)
        _answered_again(rec, preview, f"\n→ Done: {loan['entity']} takes a loan of $100")
        assert await bot.db.action_count(game_id) == count + 1

        # shown, then a restart, then the game moves on: the old Confirm changes nothing
        lender = who
        choices = await fake.autocomplete(lender, thread, "loan", {"corporation": ""}, "corporation")
        rec = await fake.command(lender, thread, "loan", {"corporation": choices[0]["value"]})
        stale = rec.final
        await runner.stop()
        bot = await runner.start()
        await _sent_pass(fake, bot, game_id, lender, thread)
        moved = await bot.db.action_count(game_id)
        rec = await fake.click(lender, stale, _button(stale, "confirm"))
        assert "→ The game moved on since this preview" in stale.content and stale.custom_ids == []
        assert await bot.db.action_count(game_id) == moved


BANKRUPT = Path(__file__).parent / "fixtures" / "1817" / "1817_game_end_bankrupt.json"


@contextlib.asynccontextmanager
async def _bot_at(tmp_path, fixture: Path, pick):
    """The bot on a fake Discord with a recorded game imported up to the action `pick(actions)` numbers:
    (fake, bot, thread, game id, {player id: member id})."""
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        users, thread, game_id, _action = await _import_before(fake, fixture, pick)
        members = {s.player_id: s.member_id for s in bot.service._live[game_id].seats}
        yield fake, bot, thread, game_id, members
    finally:
        await runner.stop()
        await fake.stop()


async def test_a_pass_that_lets_the_bank_liquidate_is_shown_first(tmp_path):
    """NYOW in the liquidation zone, nobody bidding: the players pass in turn, told nothing more (their passes
    set nothing off); the last pass lets the bank liquidate NYOW, its president paying what its loans leave
    unpaid: that pass is shown first, privately, and only Confirm sends it."""
    def nyow_liquidation(actions):
        return next(i for i, a in enumerate(actions) if a["type"] == "bid" and a.get("corporation") == "NYOW"
                    and a["price"] == 10)

    async with _bot_at(tmp_path, BANKRUPT, nyow_liquidation) as (fake, bot, thread, game_id, members):
        session = bot.service._live[game_id].session
        sale = session.turn_info()["acquisition"]  # unbid: at the bank's $0, its loans unpaid but its treasury
        assert {k: sale[k] for k in ("corporation", "mode", "opening", "at", "proceeds", "president_pays")} == \
            {"corporation": "NYOW", "mode": "liquidate", "opening": 10, "at": 0, "proceeds": {}, "president_pays": 159}
        while True:
            count, posted = len(session.actions), len(fake.channel_messages(thread))
            who = members[session.active_players()[0]]
            rec = await fake.command(who, thread, "pass", {})
            if rec.final.custom_ids:
                break
            assert rec.final.content.startswith("Done: "), rec.final.content  # a plain pass: sent at once
            assert len(session.actions) == count + 1
        preview = rec.final
        assert preview.ephemeral and len(fake.channel_messages(thread)) == posted and len(session.actions) == count
        assert preview.content == "If you pass: the bank liquidates NYOW: its stations come off the map; NYOW's 2 " \
                                  "loans are repaid first; Player2, its president, pays the $159 they leave " \
                                  "unpaid; the holders of NYOW get nothing; Player2 is left $92 short: they " \
                                  "must sell shares to pay it, or go bankrupt", preview.content
        rec = await fake.click(who, preview, _button(preview, "cancel"))
        assert preview.content.endswith("\n→ Cancelled: nothing was done.") and len(session.actions) == count
        # the thread's Pass button asks the same
        last = fake.channel_messages(thread)[-1]
        rec = await fake.click(who, last, next(c for c in last.custom_ids if c.startswith(f"rh:pass:{game_id}:")))
        preview = rec.final
        assert preview.ephemeral and preview.content.startswith("If you pass: the bank liquidates NYOW")
        assert len(fake.channel_messages(thread)) == posted and len(session.actions) == count
        rec = await fake.click(who, preview, _button(preview, "confirm"))
        assert "\n→ Done: " in preview.content and preview.custom_ids == []
        assert len(session.actions) == count + 1 and len(fake.channel_messages(thread)) == posted + 1
        assert not session.game.corporation("NYOW").floated  # liquidated


async def test_an_offer_says_what_each_holder_gets_at_its_opening_bid(tmp_path):
    def offer(actions):
        return next(i for i, a in enumerate(actions) if a["type"] == "assign" and a.get("target_type") == "corporation")

    async with _bot_at(tmp_path, BANKRUPT, offer) as (fake, bot, thread, game_id, members):
        session = bot.service._live[game_id].session
        who = members[session.active_players()[0]]
        rec = await fake.command(who, thread, "offer", {})
        preview = rec.final
        assert preview.content.startswith("UR is offered for sale: bids from $100; "), preview.content
        assert preview.content.endswith("; sold at $100: Player5 receives $100"), preview.content
        rec = await fake.click(who, preview, _button(preview, "cancel"))
        assert preview.content.endswith("\n→ Cancelled: nothing was done.") and preview.custom_ids == []


async def test_an_operating_pass_that_leaves_a_corporation_without_a_train_is_shown_first(tmp_path):
    """GT, its buying done, passing on loans would end its turn without a train: the pass is shown first,
    privately, saying so; confirmed, the thread is told the same. Earlier passes of GT's turn set nothing off
    and went at once."""
    def gt_without_a_train(actions):  # GT's pass on loans in the recorded game's operating round 2.1
        return 592

    async with _bot_at(tmp_path, FIXTURE, gt_without_a_train) as (fake, bot, thread, game_id, members):
        session = bot.service._live[game_id].session
        who = members[session.active_players()[0]]
        count, posted = len(session.actions), len(fake.channel_messages(thread))
        rec = await fake.command(who, thread, "pass", {})
        preview = rec.final
        assert preview.ephemeral and preview.custom_ids, preview.content
        assert preview.content == "If you pass: GT ends its turn without a train: it moves into the liquidation " \
                                  "zone ($60 → $0)", preview.content
        assert len(session.actions) == count and len(fake.channel_messages(thread)) == posted
        await fake.click(who, preview, _button(preview, "confirm"))
        assert "\n→ Done: GT passes" in preview.content and len(session.actions) == count + 1
        told = fake.channel_messages(thread)[posted].content
        assert told.startswith("GT passes; GT ends its turn without a train: it moves into the liquidation zone "
                               "($60 → $0)"), told


async def test_a_confirm_cut_short_by_a_crash_is_neither_lost_nor_applied_twice(tmp_path, monkeypatch):
    """The preview is marked answered in the transaction that stores its action: killed before that commit,
    the bot comes back with the preview open and the game as it was, and the member's second press applies the
    loan; killed after it (before anything was posted), the second press finds it answered and applies nothing."""
    log = json.loads(FIXTURE.read_text())
    k = next(i for i, a in enumerate(resolved_actions(log)) if a["type"] == "take_loan")
    path = tmp_path / "rh.db"

    async def started() -> tuple[Database, Service]:
        db = await Database(path).open()
        return db, Service(db, Engine(), pictures=False)

    db, svc = await started()
    try:
        gid, callers = await imported_game(svc, log, k)
        live = svc._live[gid]
        who = callers[int(live.session.active_players()[0])]
        corp = resolved_actions(log)[k]["entity"]
        count = len(live.session.actions)

        for dies_in in ("append_action", "_finish_reply"):
            shown = await svc.act(gid, who, "loan", {"corporation": corp})
            token = int(shown.buttons[0].split(":")[1])
            with monkeypatch.context() as m:
                target = Database if dies_in == "append_action" else Service

                def die(*args, **kwargs):
                    raise Killed

                m.setattr(target, dies_in, die)
                with pytest.raises(Killed):
                    await svc.confirm(gid, who, token, True)
            await db.close()  # the process is gone; it starts again on the same database
            db, svc = await started()
            await svc.resume_all()
            if dies_in == "append_action":  # nothing stored: the press is open still, and applies once
                assert await db.action_count(gid) == count and (await db.preview(token)).answered is None
                reply = await svc.confirm(gid, who, token, True)
                assert reply.text.startswith(f"{corp} takes a loan of $100"), reply.text
            else:  # stored with its answer: pressed again, nothing more
                assert await db.action_count(gid) == count + 1
                assert (await db.preview(token)).answered == "confirmed"
            with pytest.raises(PreviewClosed) as again:
                await svc.confirm(gid, who, token, True)
            assert again.value.answered
            count += 1
            assert await db.action_count(gid) == count == len(svc._live[gid].session.actions)
            assert (await db.actions(gid))[-1]["type"] == "take_loan"
    finally:
        await db.close()
