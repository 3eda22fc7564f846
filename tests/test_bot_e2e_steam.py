"""End to end: a whole Steam game through the real bot (discord.py) against the fake Discord.

Three members open a standard Rust Belt game with `/game new title:steam`, join and start it, then play
it to the end with the `/steam` commands and the game buttons: each move is what the engine's self-play
agent would do, sent by the member whose seat must act, with the options its autocomplete offers.
Along the way: pictures after each action that changes them, a ping only when the member to act
changes, refusals out of turn and of another family's commands, and a restart in the middle.
Played in English and in Russian (a Russian server, members whose Discord speaks Russian): in Russian every
post is Russian, player and place names aside.
"""

from __future__ import annotations

import random

import pytest
from fakediscord import BotRunner, FakeDiscord
from fakediscord.recorded import QuickPictures

from bot.db import Database
from bot.families import Steam
from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engines not importable")

BUTTONS = {"pass": "pass", "end_build": "done"}
SEED = 1  # this game's seed (a lobby draws one at random): a game that plays every kind of move
SPECIAL = {"grow", "urbanize", "upgrade", "redirect", "upgrade_loco", "score"}
WORDS = {  # what the posts and replies say, by language
    "en": {"open": "is open in", "lobby": "**Steam** game", "map": "(Rust Belt; standard game)", "starts": "starts. Seats:",
           "turn": "not your turn", "family": "is Steam: use `/steam …`", "done": "Done", "over": "**Game over**",
           "vp": "VP", "status": "Rust Belt, standard game"},
    "ru": {"open": "открыта в", "lobby": "**Steam**, партия", "map": "(Rust Belt; стандартная игра)", "starts": "начинается. Места:",
           "turn": "не ваш ход", "family": "это Steam: используйте `/стим …`", "done": "Сделано",
           "over": "**Партия окончена**", "vp": "ПО", "status": "Rust Belt, стандартная игра"},
}


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_whole_steam_game_through_discord(tmp_path, lang):
    from engine.steam import Game
    from engine.steam.actions import to_dict
    from engine.steam.agent import choose
    from i18n.glossary import foreign_words

    say = WORDS[lang]
    fake = await FakeDiscord().start()
    fake.guild_locale = lang
    db_path = str(tmp_path / "rh.db")
    engine = QuickPictures()
    runner = BotRunner(fake, db_path, engine=engine)
    await runner.start()
    try:
        ann, bob, cid = (fake.add_user(n, locale=lang) for n in ("Ann", "Bob", "Cid"))
        maps = await fake.autocomplete(ann, fake.channel_id, "game", {"title": "steam", "map": ""}, "map", sub="new")
        assert ("Rust Belt", "rust_belt") in {(c["name"], c["value"]) for c in maps}
        modes = await fake.autocomplete(ann, fake.channel_id, "game", {"title": "steam", "mode": "st"}, "mode", sub="new")
        assert [c["value"] for c in modes] == ["standard"]
        rec = await fake.command(ann, fake.channel_id, "game",
                                 {"title": "steam", "map": "rust_belt", "mode": "standard"}, sub="new")
        assert rec.final.ephemeral and say["open"] in rec.final.content, rec.final.content
        thread = max(cid_ for cid_, ch in fake.channels.items() if ch.get("type") == 11)
        game_id = int(rec.final.content.replace("№", "#").split("#")[1].split()[0])
        await runner.bot.service.db.update_game(game_id, seed=SEED)  # the same game every run
        lobby = fake.channel_messages(thread)[-1]
        assert say["lobby"] in lobby.content and say["map"] in lobby.content, lobby.content
        await fake.click(bob, lobby, f"rh:join:{game_id}")
        await fake.command(cid, thread, "game", {}, sub="join")
        rec = await fake.command(ann, thread, "game", {}, sub="start")
        started = fake.channel_messages(thread)[-1]
        assert say["starts"] in started.content, started.content
        assert {n.split("-")[-1] for n, _ in started.attachments} == {"map.png", "players.png"}

        # a shadow of the game (the same settings and seats) chooses the moves
        shadow = Game.from_18xx((await runner.bot.service.live(game_id)).session.export())
        places = {n for h in shadow.board.hexes for n in (shadow.board.hexes[h].town,
                                                           getattr(shadow.board.hexes[h].city, "name", None)) if n}
        names = places | {"Ann", "Bob", "Cid", "Rust Belt", "Steam"}
        member_of = {p["id"]: {"Ann": ann, "Bob": bob, "Cid": cid}[p["name"]] for p in shadow.to_18xx()["players"]}
        rng = random.Random(7)
        announced = member_of[shadow.active_players()[0]]
        assert f"<@{announced}>" in started.content
        kinds: set[str] = set()
        checked = {"refusal": 0, "autocomplete": 0, "buttons": 0}
        i = 0
        while not shadow.finished:
            model = choose(shadow, rng)
            action = to_dict(model, shadow.pid(model.player))
            kind, opts = Steam.command_for(action)
            who = member_of[action["entity"]]

            if i % 40 == 3:  # out of turn: refused; an 18xx command in a Steam thread: pointed to /steam
                other = next(m for m in member_of.values() if m != who)
                before = len(fake.channel_messages(thread))
                rec = await fake.command(other, thread, "steam", opts, sub=kind)
                assert say["turn"] in rec.final.content.lower(), rec.final.content
                rec = await fake.command(who, thread, "pass", {})
                assert say["family"] in rec.final.content, rec.final.content
                assert len(fake.channel_messages(thread)) == before
                checked["refusal"] += 1

            spec = Steam.commands[kind]
            for o in spec.options:  # the value sent is among the choices autocomplete offers
                if o.name not in opts or checked["autocomplete"] > 60:
                    continue
                filled = {k: v for k, v in opts.items() if k != o.name}
                choices = await fake.autocomplete(who, thread, "steam", {**filled, o.name: ""}, o.name, sub=kind)
                values = [str(c["value"]) for c in choices]
                if len(values) < 25:
                    assert str(opts[o.name]) in values, (kind, o.name, opts, values)
                    checked["autocomplete"] += 1

            if i == 120:
                await runner.stop()
                await runner.start()

            before = len(fake.channel_messages(thread))
            last = fake.channel_messages(thread)[-1]
            button = BUTTONS.get(action["type"]) or ({"income": "income", "vp": "vp"}.get(action.get("to"))
                                                       if action["type"] == "score" else None)
            pressed = next((c for c in last.custom_ids if c.startswith(f"rh:{button}:{game_id}:")), None) \
                if button else None
            if pressed and i % 2 == 0:
                rec = await fake.click(who, last, pressed)
                checked["buttons"] += 1
            else:
                rec = await fake.command(who, thread, "steam", opts, sub=kind)
            assert rec.final is not None and rec.final.ephemeral, (i, action)
            assert rec.final.content.startswith(say["done"]), (i, action, rec.final.content)
            shadow.apply(action)
            kinds.add(action["type"])
            posted = fake.channel_messages(thread)[before:]
            assert len(posted) == 1, (i, action, [m.content for m in posted])
            msg = posted[0]
            if lang == "ru":
                assert not foreign_words(msg.content, names), (i, action, msg.content)
                assert not foreign_words(rec.final.content, names), (i, action, rec.final.content)
            pictures = {n.split("-")[-1] for n, _ in msg.attachments}
            if action["type"] in ("lay", "upgrade", "redirect", "urbanize", "grow", "move"):
                assert "map.png" in pictures, (i, action, pictures)
            if action["type"] in ("take_tile", "move", "upgrade_loco", "score") or action.get("loans"):
                assert "players.png" in pictures, (i, action, pictures)
            if not pictures:  # nothing to see changed: nothing drawn (no shares issued, a bid, a pass)
                assert action["type"] in ("capital", "bid", "pass", "end_build"), (i, action)
            # pings: only when the member to act changes, and only that member
            am = msg.allowed_mentions or {}
            assert am.get("parse", []) == [], am
            nxt = member_of[shadow.active_players()[0]] if not shadow.finished else None
            if nxt is not None and nxt != announced:
                assert [str(u) for u in am.get("users", [])] == [str(nxt)], (i, action, am, msg.content)
                announced = nxt
            else:
                assert not am.get("users") and "<@" not in msg.content, (i, action, msg.content)
            i += 1

        final = fake.channel_messages(thread)[-1]
        assert say["over"] in final.content and say["vp"] in final.content, final.content
        if lang == "ru":
            assert not foreign_words(final.content, names), final.content
        assert {"capital", "bid", "take_tile", "lay", "end_build", "move", "pass"} <= kinds, kinds
        assert len(kinds & SPECIAL) >= 4 and shadow.end_reason == "rounds", (kinds, shadow.end_reason)
        assert checked["refusal"] >= 3 and checked["autocomplete"] > 20 and checked["buttons"] > 5, checked
        rec = await fake.command(bob, thread, "game", {}, sub="status")
        assert say["status"] in rec.final.content and say["over"] in rec.final.content, rec.final.content
    finally:
        await runner.stop()
        await fake.stop()

    async with Database(db_path) as db:
        row = await db.get_game(game_id)
        assert row.status == "finished" and row.settings == {"map": "rust_belt", "mode": "standard",
                                                             "turn_order": "auction"} or row.settings
        assert {str(k): v for k, v in row.result.items()} == shadow.result()
        assert await db.action_count(game_id) == len(shadow.actions)
