"""A private's ability usable out of turn is offered to its owner alone: in 1830's first stock round, while another
player is to act, MH's owner finds the exchange for an NYC share in `/buy`'s autocomplete (with `using` and without),
nobody else does, and the owner may send it there and then; another member sending it is told it is not their turn."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from fakediscord.play import fixture_log, imported_game

from bot.db import Database
from bot.errors import UserError
from bot.service import Service
from bot.session import Engine

UPTO = 27  # 26855: Stock Round 1, player 117 to act; MH is player 330's and NYC has its par price
OWNER, ACTING = 330, 117


async def test_mh_is_offered_to_its_owner_out_of_turn(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        gid, callers = await imported_game(svc, fixture_log(), UPTO)
        lv = svc._live[gid]
        assert lv.session.active_players() == [ACTING] and lv.game.company("MH").owner.id == OWNER
        owner, acting = callers[OWNER], callers[ACTING]
        others = [c for pid, c in callers.items() if pid not in (OWNER, ACTING)]

        assert await svc.autocomplete(gid, owner, "buy", "using", "", {}) == [("MH", "MH")]
        shares = await svc.autocomplete(gid, owner, "buy", "share", "", {"using": "MH"})
        assert shares == [("exchange MH for NYC_1 (10%)", "MH>NYC_1@10")], shares
        assert ("exchange MH for NYC_1 (10%)", "MH>NYC_1@10") in await svc.autocomplete(gid, owner, "buy", "share", "", {})
        for caller in [acting, *others]:
            assert await svc.autocomplete(gid, caller, "buy", "using", "", {}) == []
            offered = await svc.autocomplete(gid, caller, "buy", "share", "", {})
            assert not any("MH" in str(value) for _, value in offered), offered

        try:
            await svc.act(gid, others[0], "buy", {"share": "MH>NYC_1@10"})
            raise AssertionError("another member exchanged MH")
        except UserError as e:
            assert "not your turn" in str(e), str(e)
        reply = await svc.act(gid, owner, "buy", {"share": "MH>NYC_1@10"})
        assert reply.text.startswith("Player 4 exchanges MH for 10% of NYC"), reply.text
        assert lv.session.active_players() == [ACTING]
        assert lv.game.company("MH").closed and lv.game.share("NYC_1").owner.id == OWNER
        assert await svc.autocomplete(gid, owner, "buy", "using", "", {}) == []


async def test_the_owner_alone_is_shown_a_button_for_mh_out_of_turn(tmp_path):
    """A post's buttons are everyone's: once MH may be exchanged out of turn, the next post carries one button for
    what seats may use out of turn; its press shows the presser alone a button for each of theirs (another member
    hears they have none), and that button sends the move, once."""
    from fakediscord.play import resolved_actions

    from bot.families.g18xx import G18xx

    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        log = fixture_log()
        gid, callers = await imported_game(svc, log, UPTO)
        lv = svc._live[gid]
        owner, acting = callers[OWNER], callers[ACTING]
        posts = []

        async def publish(reply):
            posts.append(reply)
            return object()

        for action in resolved_actions(log)[UPTO:UPTO + 2]:  # NYC's par by the player to act, then PRR's by MH's
            kind, options = G18xx.command_for(action)
            await svc.act(gid, callers[action["entity"]], kind, options, publish)
        # the first post the bot makes while MH may be exchanged, though MH's owner is to act then; not the next
        assert [[b for b in p.buttons if b.startswith("powers:")] for p in posts] == [[f"powers:{UPTO + 1}"], []]
        acting = callers[lv.session.active_players()[0]]
        moment = UPTO + 1
        assert lv.session.active_players() != [OWNER]

        for caller in [c for c in callers.values() if c is not owner]:
            with pytest.raises(UserError, match="^Nothing of yours may be used out of turn now.$"):
                await svc.press(gid, caller, "powers", moment)
        menu = await svc.press(gid, owner, "powers", moment)
        assert menu.private and menu.text.startswith("Yours to use now, out of turn (for you alone):"), menu.text
        assert "exchange MH for NYC_1 (10%)" in menu.labels.values(), menu.labels
        use = next(b for b, label in menu.labels.items() if label == "exchange MH for NYC_1 (10%)")
        assert use in menu.buttons and use.startswith("power:")
        arg = int(use.split(":")[1])
        with pytest.raises(UserError, match="^Nothing of yours may be used out of turn now.$"):  # another member
            await svc.press(gid, acting, "power", arg)
        done = await svc.press(gid, owner, "power", arg)
        assert done.text.startswith("Player 4 exchanges MH for 10% of NYC"), done.text
        assert lv.game.company("MH").closed and not any(b.startswith("powers:") for b in done.buttons)
        with pytest.raises(UserError, match="posted before the game moved on"):  # a button acts once
            await svc.press(gid, owner, "power", arg)



@contextlib.asynccontextmanager
async def _imported_through_discord(tmp_path):
    """The fake Discord and a bot on it, 26855 up to `UPTO` imported through `/game import` by MH's owner: yields
    (fake, its runner, Discord users by player id, the thread, the game, the log's actions)."""
    from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
    from fakediscord.play import resolved_actions

    log = fixture_log()
    actions = resolved_actions(log)
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    await runner.start()
    try:
        users = {int(p["id"]): fake.add_user(p["name"].replace(" ", "")) for p in log["players"]}
        opts = {"file": AttachmentRef("game.json", json.dumps(dict(log, actions=actions[:UPTO])).encode())}
        opts.update({f"player{i + 1}": UserRef(users[int(p["id"])]) for i, p in enumerate(log["players"])})
        rec = await fake.command(users[OWNER], fake.channel_id, "game", opts, sub="import")
        assert rec.final.content.startswith("Imported as game #"), rec.final.content
        thread = max(cid for cid, ch in fake.channels.items() if ch.get("type") == 11)
        yield fake, runner, users, thread, int(rec.final.content.split("#")[1].split()[0]), actions
    finally:
        await runner.stop()
        await fake.stop()


async def test_the_out_of_turn_button_through_discord(tmp_path):
    """Through Discord: the post's button answers each presser privately; the owner's answer carries a button
    named after the move, which sends it; once nobody holds such a move, the post loses that button."""
    from bot.families.g18xx import G18xx

    async with _imported_through_discord(tmp_path) as (fake, runner, users, thread, gid, actions):
        post = fake.channel_messages(thread)[-1]  # the import's: MH may be exchanged
        for action in actions[UPTO:UPTO + 2]:
            kind, options = G18xx.command_for(action)
            await fake.command(users[action["entity"]], thread, kind, options)
        [powers] = [c for c in post.custom_ids if c.startswith(f"rh:powers:{gid}:")]
        text, ids = post.content, list(post.custom_ids)
        other = next(u for pid, u in users.items() if pid != OWNER)
        rec = await fake.click(other, post, powers)
        assert rec.final.ephemeral and rec.final.content == "Nothing of yours may be used out of turn now."
        rec = await fake.click(users[OWNER], post, powers)
        menu = rec.final
        assert menu.ephemeral and menu.content.startswith("Yours to use now, out of turn"), menu.content
        labels = {c["label"]: c["custom_id"] for row in menu.components for c in row["components"]}
        use = labels["exchange MH for NYC_1 (10%)"]
        assert use.startswith(f"rh:power:{gid}:")
        before = len(fake.channel_messages(thread))
        rec = await fake.click(users[OWNER], menu, use)
        assert rec.final.ephemeral and rec.final.content.startswith("Done: Player4 exchanges MH for 10% of NYC"), \
            rec.final.content
        [news] = fake.channel_messages(thread)[before:]
        assert news.content.startswith("Player4 exchanges MH for 10% of NYC") and powers not in news.custom_ids
        # nobody holds such a move now: the older post loses its button, keeping its words and its other buttons
        assert not [c for c in post.custom_ids if c.startswith("rh:powers:")] and post.edits == 1, post.custom_ids
        assert post.content == text and post.custom_ids == [c for c in ids if c != powers]
        assert not fake.unknown


async def test_the_out_of_turn_button_is_worked_out_off_the_lock(tmp_path):
    """An action whose pictures are drawn from a copy of the game once it is free has its out-of-turn button worked
    out on that copy too, never while the game is held, for the moment the post tells of."""
    from fakediscord.play import resolved_actions
    from fakediscord.recorded import QuickPictures

    from bot.families.g18xx import G18xx

    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, QuickPictures(), pictures=True)
        log = fixture_log()
        gid, callers = await imported_game(svc, log, UPTO)
        looked: list[bool] = []  # the game's lock held while looking
        real = svc._powers_held
        svc._powers_held = lambda *args: looked.append(svc.lock(gid).locked()) or real(*args)
        posts = []

        async def publish(reply):
            posts.append(reply)
            return object()

        for action in resolved_actions(log)[UPTO:UPTO + 2]:  # NYC's par by the player to act, then PRR's by MH's
            kind, options = G18xx.command_for(action)
            await svc.act(gid, callers[action["entity"]], kind, options, publish)
        assert looked == [False, False]
        assert all(post.pictures for post in posts)
        moment = posts[0].told[0]
        assert f"powers:{moment}" in posts[0].buttons and not any(b.startswith("powers:") for b in posts[1].buttons)
        menu = await svc.press(gid, callers[OWNER], "powers", moment)
        assert "exchange MH for NYC_1 (10%)" in menu.labels.values(), menu.labels


async def test_titles_without_moves_out_of_turn_never_look_for_them(tmp_path):
    """1817 has nothing a seat may use out of its turn: its posts never look for such moves (with or without
    pictures), and carry no out-of-turn button."""
    from fakediscord.play import resolved_actions
    from fakediscord.recorded import QuickPictures

    from bot.families.g18xx import G18xx

    log = json.loads((Path(__file__).parent / "fixtures" / "1817" / "15528.json").read_text())
    for pictures in (True, False):
        async with Database(str(tmp_path / f"rh{pictures}.db")) as db:
            svc = Service(db, QuickPictures(), pictures=pictures)
            gid, callers = await imported_game(svc, log, 190)

            def looked(*args):
                raise AssertionError("looked for moves out of turn in 1817")

            svc._powers_held = looked
            posts = []

            async def publish(reply, posts=posts):
                posts.append(reply)
                return object()

            for action in resolved_actions(log)[190:196]:
                lv = svc._live[gid]
                assert not lv.session.has_out_of_turn()
                kind, options = G18xx.command_for(action)
                await svc.act(gid, callers[lv.session.active_players()[0]], kind, options, publish, confirmed=True)
            assert len(posts) == 6 and not any(b.startswith("powers:") for post in posts for b in post.buttons)


async def test_the_out_of_turn_button_is_posted_when_the_seats_holding_such_moves_change(tmp_path):
    """Not under every post while MH may be exchanged (70 actions of 26855, from NYC's par to PRR buying MH): on the
    first post, and on the first after a restart (what was told is not kept); MH bought by a corporation (nobody
    holds such a move any more), no button either."""
    from fakediscord.play import resolved_actions
    from test_bot_reliability import controller

    from bot.families.g18xx import G18xx

    log = fixture_log()
    actions = resolved_actions(log)
    assert actions[96]["type"] == "buy_company" and actions[96]["company"] == "MH"
    async with Database(str(tmp_path / "rh.db")) as db:
        svc = Service(db, Engine(), pictures=False)
        gid, callers = await imported_game(svc, log, UPTO)
        posts = []

        async def publish(reply):
            posts.append(reply)
            return object()

        async def send(action):
            lv = await svc.live(gid)
            kind, options = G18xx.command_for(action)
            await svc.act(gid, callers[controller(lv.game, action)], kind, options, publish, confirmed=True)

        for action in actions[UPTO:60]:
            await send(action)
        svc, restarted = Service(db, Engine(), pictures=False), len(posts)  # the bot restarted: told again
        for action in actions[60:97]:
            await send(action)
        with_button = [i for i, p in enumerate(posts) if any(b.startswith("powers:") for b in p.buttons)]
        assert len(posts) > 60 and with_button == [0, restarted], with_button


async def test_a_post_from_before_a_restart_loses_the_out_of_turn_button(tmp_path):
    """The import's post carries the out-of-turn button; the bot restarts; the next post carries it (what was told
    is not kept) and the import's post loses it, its words and other buttons kept: one message shows it."""
    from bot.families.g18xx import G18xx

    async with _imported_through_discord(tmp_path) as (fake, runner, users, thread, gid, actions):
        post = fake.channel_messages(thread)[-1]
        [powers] = [c for c in post.custom_ids if c.startswith(f"rh:powers:{gid}:")]
        text, ids = post.content, list(post.custom_ids)
        await runner.stop()
        await runner.start()
        kind, options = G18xx.command_for(actions[UPTO])
        await fake.command(users[actions[UPTO]["entity"]], thread, kind, options)
        latest = fake.channel_messages(thread)[-1]
        assert any(c.startswith(f"rh:powers:{gid}:") for c in latest.custom_ids), latest.custom_ids
        assert powers not in post.custom_ids and post.edits == 1, post.custom_ids
        assert post.content == text and post.custom_ids == [c for c in ids if c != powers]
        showing = [m for m in fake.channel_messages(thread) if any(c.startswith("rh:powers:") for c in m.custom_ids)]
        assert showing == [latest]
