"""End to end: the real bot (discord.py) against a fake Discord on loopback, with the real 18xx engine.

Whole recorded games (1830; 18MEX with its minors, NdM 5% certificates and merger; 1817 with its loans, shorts,
conversions, mergers and acquisitions; 1860 with its turn auction,
credits, halts, insolvency, receivership and bankruptcy) are played through
slash commands and buttons; pings, pictures, refusals, autocomplete and a restart mid-game are checked
along the way. The second 1830 fixture's log has programmed actions: their recorded auto actions are
sent as commands by the members they belong to.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef
from fakediscord.recorded import QuickPictures, controller, flatten

from bot.db import Database
from bot.families.g18xx import G18xx
from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")

FIXTURES = Path(__file__).parent / "fixtures"


# what players of a title read in its own terms along the recorded game
TITLE_WORDS = {"18MEX": (
    "Player1 bids $55 on minor C.", "Player3 wins minor A for $55",
    "A runs 1 train for $30 (2-0: $30): $15 to A, $15 to Player3.",
    "minor A closes: Player3 receives a 5% NdM certificate", "minor C closes: Player1 receives a 10% UdY certificate",
    "for MEX — merge MEX into the NdM (/merge) or decline (pass).", "MEX merges into the NdM",
    "sells a 5% NdM certificate for $", "buys a 5% NdM certificate from the market for $",
    "4 trains are obsolete: they run once more, then go", "4 trains are gone (NdM loses 4-0)",
), "1860": (
    "Player2 bids £50 for the first choice of the lots.",
    "choose a lot: buy a private (/bid) or a president's certificate (/par)", "Player2 buys RPSC for £130",
    "C&N floats with 1000 cr", "C&N runs 1 train for 50 cr (2+1-0: 50 cr) and a subsidy of 10 cr for its halts",
    "C&N pays out 50 cr: £5 a share", "FYN passes — FYN is insolvent",
    "FYN runs 1 train for 180 cr (7+4-0: 180 cr) — FYN withholds", "FYN is no longer insolvent",
    "S&C goes bankrupt: its certificates go back to its IPO", "S&C is relaunched", "BHI&R goes into receivership",
), "1817": (
    "Player1 bids $10 on MAJC", "opens an auction to start H with $", "H places a station in H9 Charleston",
    "Player4 puts OBC into H for $40", "makes J a 2-share corporation at $110 a share",
    "PSNR takes a loan of $100: 1 of 2 loans, interest $5 a loan ($5 a round); PSNR price $55 → $50",
    "GT repays a loan of $100:", "A&S converts, 2 → 5 shares: Player2 2 of 2 → 2 of 5 (40%)",
    "J merges into WT: 5 shares at $150; Player3 2 WT + 2 J → 2 of 5 (40%)",
    "Player4 sells a share of NYSW short for $70", "Belt pays half of $60: $30 into its treasury",
    "offers ME for sale (bids from $250)", "names PSNR as the buyer of A&A for $450", "buys back 20% of NYSW",
    "OBC is placed on H9 Charleston",
)}


async def _import(fake: FakeDiscord, host: int, log: dict, users: list[int]) -> tuple[int, int]:
    empty = dict(log, actions=[])
    opts = {"file": AttachmentRef("game.json", json.dumps(empty).encode())}
    for i, uid in enumerate(users):
        opts[f"player{i + 1}"] = UserRef(uid)
    rec = await fake.command(host, fake.channel_id, "game", opts, sub="import")
    assert rec.final is not None and rec.final.ephemeral, rec.final
    assert rec.final.content.startswith(("Imported", "Импортировано")), rec.final.content
    thread = max(cid for cid, ch in fake.channels.items() if ch.get("type") == 11)
    return int(rec.final.content.replace("№", "#").split("#")[1].split()[0]), thread


WORDS = {  # what the posts and private replies say, by language
    "en": {"turn": "not your turn", "refused": "Not allowed", "done": "Done", "over": "Game over"},
    "ru": {"turn": "не ваш ход", "refused": "Нельзя", "done": "Сделано", "over": "Партия окончена"},
}


@pytest.mark.parametrize("title, fixture, lang", [("1830", "26855", "en"), ("1830", "1830_game_end_bank", "en"),
                                                  ("18MEX", "13315", "en"), ("1860", "1860_game_end_stock_market", "en"),
                                                  ("1817", "15528", "en"), ("1830", "26855", "ru")])
async def test_whole_recorded_game_through_discord(tmp_path, title, fixture, lang):
    """In Russian (a Russian server, members whose Discord speaks Russian) every post is Russian but for
    names: players, places, companies; and so are the refusals, the engine's reasons included."""
    from engine.titles import load_18xx
    from i18n.glossary import foreign_words

    say = WORDS[lang]

    log = json.loads((FIXTURES / title / f"{fixture}.json").read_text())
    trace = [json.loads(x) for x in (FIXTURES / title / f"{fixture}.trace.jsonl").read_text().splitlines()]
    recorded = [a for a in load_18xx(log).actions if a["type"] != "message"]  # chat is the channel's, not a move
    assert len(recorded) + sum(len(a.get("auto_actions", ())) for a in recorded) == len(trace) - 1
    steps = list(flatten(recorded))
    applied = [a for _, a in steps]
    states = [trace[k] for k, _ in steps]

    fake = await FakeDiscord().start()
    fake.guild_locale = lang
    db_path = str(tmp_path / "rh.db")
    engine = QuickPictures()
    runner = BotRunner(fake, db_path, engine=engine)
    await runner.start()
    game = load_18xx(log)
    allowed = {p["name"].replace(" ", "") for p in log["players"]} | set((game.facts().get("locations") or {}).values())
    try:
        users = [fake.add_user(p["name"].replace(" ", ""), locale=lang) for p in log["players"]]
        member_of = {int(p["id"]): u for p, u in zip(log["players"], users, strict=True)}
        game_id, thread = await _import(fake, users[0], log, users)

        def seat(k: int) -> int:
            return member_of[controller(applied[k], states[k], applied[k - 1] if k else None)]

        announced = seat(0)
        checked_refusals = checked_ac = previews = 0
        restarted = False
        for i, action in enumerate(applied):
            who = seat(i)
            kind, opts = G18xx.command_for(action)

            if i in (3, 120, 300) and checked_refusals < 3:
                # out of turn: someone else sends the very same command -> refused, nothing changes
                other = next(u for u in users if u != who)
                before = len(fake.channel_messages(thread))
                rec = await fake.command(other, thread, kind, opts)
                assert rec.final.ephemeral and say["turn"] in rec.final.content.lower(), rec.final.content
                assert len(fake.channel_messages(thread)) == before
                # illegal: the right member, an impossible action -> the engine's message, nothing changes
                bad = ("lay", {"hex": "A1", "tile": "57-0", "rotation": 0}) if kind != "lay" else \
                    ("bid", {"company": "CA", "price": 1})
                rec = await fake.command(who, thread, bad[0], bad[1])
                assert rec.final.ephemeral and rec.final.content.startswith(say["refused"]), rec.final.content
                if lang == "ru":  # the engine's reason too is in the member's language
                    assert not foreign_words(rec.final.content, allowed), rec.final.content
                assert len(fake.channel_messages(thread)) == before
                assert rec.channel_messages == []
                checked_refusals += 1

            # (1860's bids for the first choice name no company: their price is the player's own)
            if kind in ("bid", "lay", "buy", "par") and checked_ac < 6 and (kind != "bid" or "company" in opts):
                focus = {"bid": "company", "lay": "hex", "buy": "share", "par": "corporation"}[kind]
                choices = await fake.autocomplete(who, thread, kind, {**opts, focus: ""}, focus)
                values = [c["value"] for c in choices]
                assert opts[focus] in values or (kind == "buy" and any(
                    str(v).split("@")[0] == opts[focus].split("@")[0] for v in values)), (kind, opts, values)
                checked_ac += 1

            if i == 250 and not restarted:
                await runner.stop()
                await runner.start()
                restarted = True

            before = len(fake.channel_messages(thread))
            last = fake.channel_messages(thread)[-1] if before else None
            button = {"pass": "pass", "dividend": action.get("kind")}.get(kind)
            pressed = next((c for c in last.custom_ids if c.startswith(f"rh:{button}:{game_id}:")), None) \
                if button and last is not None else None
            if pressed and i % 2 == 0:
                rec = await fake.click(who, last, pressed)
            elif kind == "bankrupt":
                rec = await fake.command(who, thread, "bankrupt", {})
                confirm = rec.final
                [yes] = [c for c in confirm.custom_ids if c.startswith(f"rh:bankrupt:{game_id}:")]
                rec = await fake.click(who, confirm, yes)
            else:
                rec = await fake.command(who, thread, kind, opts)
            confirm = next((c for c in rec.final.custom_ids if c.startswith(f"rh:confirm:{game_id}:")), None) \
                if rec.final is not None else None
            if confirm is not None:  # a loan, conversion, merger, buyer, offer, a pass that ends a sale: shown first
                assert rec.final.ephemeral and len(fake.channel_messages(thread)) == before, (i, action)
                previews += 1
                preview = rec.final
                rec = await fake.click(who, preview, confirm)
                # the preview itself now says it was done, its buttons gone
                assert rec.final is preview and preview.custom_ids == [], (i, action, preview.custom_ids)
                assert f"\n→ {say['done']}" in preview.content, (i, action, preview.content)
            else:
                assert rec.final is not None and rec.final.content.startswith(say["done"]), \
                    (i, action, rec.final and rec.final.content)
            assert rec.final is not None and rec.final.ephemeral, (i, action)
            posted = fake.channel_messages(thread)[before:]
            assert len(posted) == 1, (i, action, [m.content for m in posted])
            msg = posted[0]
            if lang == "ru":
                assert not foreign_words(msg.content, allowed), (i, action, msg.content)
            names = [n for n, _ in msg.attachments]
            if kind in ("lay", "token", "run"):
                assert any(n.endswith("-map.png") for n in names), (i, names)
            if kind in ("par", "dividend") or (kind == "sell"):
                assert any(n.endswith("-market.png") for n in names), (i, names)
            for _, data in msg.attachments:
                assert data.startswith(b"\x89PNG")

            # pings: only when the member to act changes, and only that member
            nxt = seat(i + 1) if i + 1 < len(applied) else None
            am = msg.allowed_mentions or {}
            assert am.get("parse", []) == [], am
            if nxt is not None and nxt != announced:
                assert [str(u) for u in am.get("users", [])] == [str(nxt)], (i, action, am, msg.content)
                assert f"<@{nxt}>" in msg.content
                announced = nxt
            else:
                assert not am.get("users"), (i, action, am, msg.content)
                assert "<@" not in msg.content

        final = fake.channel_messages(thread)[-1]
        assert say["over"] in final.content and ": 1. " in final.content and ", 2. " in final.content
        assert any(name.endswith("-chart.png") for name, _ in final.attachments)  # the end-of-game post
        assert restarted and checked_refusals == 3 and checked_ac == 6
        assert previews > 0, previews  # every title's stock rounds end with a pass shown first
        said = "\n".join(m.content for m in fake.channel_messages(thread))
        for words in TITLE_WORDS.get(title, ()) if lang == "en" else ():
            assert words in said, words
    finally:
        await runner.stop()
        await fake.stop()

    async with Database(db_path) as db:
        row = await db.get_game(game_id)
        assert row.status == "finished"
        assert {str(k): v for k, v in row.result.items()} == log["result"]
        assert row.end_reason == log["game_end_reason"]
        assert await db.action_count(game_id) == len(applied)
