"""An 1817 loan through the fake Discord is shown before it is sent: the preview (what it costs) reaches only
the member who asked, with Confirm and Cancel; nobody else may answer it; Cancel drops it; Confirm applies
exactly the action shown, once; a preview shown before the game moved on (here an undo and another action,
back to as many actions as when it was shown) is refused and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
from fakediscord.recorded import QuickPictures

from engine.core.actions import resolve_undo

FIXTURE = Path(__file__).parent / "fixtures" / "1817" / "15528.json"


async def _game_before_first_loan(fake: FakeDiscord) -> tuple[list[int], int, int, dict]:
    log = json.loads(FIXTURE.read_text())
    actions = [a for a in resolve_undo(log["actions"]) if a["type"] != "message"]
    k = next(i for i, a in enumerate(actions) if a["type"] == "take_loan")
    users = [fake.add_user(p["name"].replace(" ", "")) for p in log["players"]]
    opts = {"file": AttachmentRef("game.json", json.dumps(dict(log, actions=actions[:k])).encode())}
    opts.update({f"player{i + 1}": UserRef(uid) for i, uid in enumerate(users)})
    rec = await fake.command(users[0], fake.channel_id, "game", opts, sub="import")
    assert rec.final.content.startswith("Imported"), rec.final.content
    thread = max(cid for cid, ch in fake.channels.items() if ch.get("type") == 11)
    game_id = int(rec.final.content.split("#")[1].split()[0])
    return users, thread, game_id, actions[k]


def _button(message, what: str) -> str:
    return next(c for c in message.custom_ids if c.startswith(f"rh:{what}:"))


async def test_a_loan_is_confirmed_by_its_member_once(tmp_path):
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), engine=QuickPictures())
    bot = await runner.start()
    try:
        users, thread, game_id, loan = await _game_before_first_loan(fake)
        live = bot.service._live[game_id]
        members = {s.player_id: s.member_id for s in live.seats}
        who = members[live.session.active_players()[0]]
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

        # someone else's press is refused; Cancel drops it; a Confirm after that finds nothing open
        rec = await fake.click(other, preview, _button(preview, "confirm"))
        assert rec.final.ephemeral and "Only the member who asked" in rec.final.content
        rec = await fake.click(who, preview, _button(preview, "cancel"))
        assert rec.final.content == "Cancelled: nothing was done."
        rec = await fake.click(who, preview, _button(preview, "confirm"))
        assert "no longer open" in rec.final.content
        assert len(fake.channel_messages(thread)) == posted and len(bot.service._live[game_id].session.actions) == count

        # shown again, confirmed: applied once, exactly as shown
        rec = await fake.command(who, thread, "loan", {"corporation": corp})
        preview = rec.final
        rec = await fake.click(who, preview, _button(preview, "confirm"))
        assert rec.final.content.startswith(f"Done: {corp} takes a loan of $100"), rec.final.content
        session = bot.service._live[game_id].session
        stored = session.actions[-1]
        assert len(session.actions) == count + 1
        same = ("type", "entity", "entity_type", "loan")
        assert {k: stored.get(k) for k in same} == {k: loan.get(k) for k in same}
        assert len(fake.channel_messages(thread)) == posted + 1
        rec = await fake.click(who, preview, _button(preview, "confirm"))
        assert "no longer open" in rec.final.content and len(session.actions) == count + 1

        # a preview shown before the game moved on: refused, nothing changes
        lender = members[session.active_players()[0]]
        choices = await fake.autocomplete(lender, thread, "loan", {"corporation": ""}, "corporation")
        assert choices  # the same president may borrow for another of theirs
        rec = await fake.command(lender, thread, "loan", {"corporation": choices[0]["value"]})
        stale = rec.final
        assert lender == who  # so the loan just taken is theirs to undo at once
        rec = await fake.command(lender, thread, "game", {"steps": 1}, sub="undo")
        assert len(bot.service._live[game_id].session.actions) == count, rec.final.content
        rec = await fake.command(lender, thread, "pass", {})  # as many actions as when shown, another game
        assert rec.final.content.startswith("Done"), rec.final.content
        moved = len(bot.service._live[game_id].session.actions)
        before = len(fake.channel_messages(thread))
        rec = await fake.click(lender, stale, _button(stale, "confirm"))
        assert "moved on since this preview" in rec.final.content, rec.final.content
        assert len(bot.service._live[game_id].session.actions) == moved
        assert len(fake.channel_messages(thread)) == before
    finally:
        await runner.stop()
        await fake.stop()
