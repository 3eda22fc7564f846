"""End to end: an 18MEX game created in Discord with the Baja variant (`/game new title:18MEX
rules:baja_variant`), played through slash commands up to a corporation buying the Compagnie du Boleo and
placing its station on Santa Rosalia with `/token H3 using:CdB`. The moves are those of a random Baja game
18xx.games replays to the same state (tests/fixtures/18MEX/random/), each sent by the member whose seat acts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakediscord import BotRunner, FakeDiscord

from bot.access import Caller
from bot.families.g18xx import G18xx
from bot.session import engine_available

pytestmark = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")

GAME = Path(__file__).parent / "fixtures" / "18MEX" / "random" / \
    "baja_boleo_bought_in_phase_2_and_its_station_placed.json"
BOLEO_STATION = 121  # the log's action placing MC's station with the CdB, after MC bought it and laid its track


async def test_a_baja_game_created_in_discord_places_the_boleos_station(tmp_path):
    log = json.loads(GAME.read_text())
    assert log["settings"]["optional_rules"] == ["baja_variant"]
    fake = await FakeDiscord().start()
    runner = BotRunner(fake, str(tmp_path / "rh.db"), pictures=False)
    bot = await runner.start()
    try:
        users = [fake.add_user(n) for n in ("Ann", "Bob", "Cid")]
        rec = await fake.command(users[0], fake.channel_id, "game", {"title": "18MEX", "rules": "baja_variant"},
                                 sub="new")
        assert rec.final.ephemeral and "is open in" in rec.final.content, rec.final.content
        thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
        gid = int(next(c for c in fake.channel_messages(thread)[0].custom_ids if c.startswith("rh:join:")).split(":")[2])
        for uid in users[1:]:
            await fake.command(uid, thread, "game", {}, sub="join")
        await fake.command(users[0], thread, "game", {}, sub="start")
        lv = await bot.service.live(gid)
        assert list(lv.session.game.optional_rules) == ["baja_variant"] and "CdB" in lv.session.game.company_by_sym
        # the log's players in their seats' order: the game's first player is the log's first
        seats = sorted(lv.seats, key=lambda s: s.position)
        player = {p["id"]: s.player_id for p, s in zip(log["players"], seats, strict=True)}
        member = {s.player_id: s.member_id for s in seats}

        # each move as it was sent, standing orders (/auto) included: the bot's orders then act as they did
        for action in log["actions"][:BOLEO_STATION]:
            action = {k: v for k, v in action.items() if k not in ("id", "auto_actions")}
            if action["entity_type"] == "player":
                action = {**action, "entity": player[action["entity"]]}
                acting = action["entity"]
            else:
                [acting] = (await bot.service.live(gid)).session.active_players()
            if action["type"] == "program_auction_bid" and action["enable_maximum_bid"] and action["enable_buy_price"]:
                # an order with both a maximum and a buying price, which `/auto` does not give (docs/bot.md):
                # set as the engine takes it
                live = await bot.service.live(gid)
                await bot.service._apply(live, Caller(member[acting], guild_id=live.row.guild_id), action, None)
                continue
            kind, opts = G18xx.command_for(action)
            rec = await fake.command(member[acting], thread, kind, opts)
            confirm = next((c for c in rec.final.custom_ids if c.startswith(f"rh:confirm:{gid}:")), None)
            if confirm is not None:  # a pass that ends a round is shown first
                rec = await fake.click(member[acting], rec.final, confirm)
            offer = fake.channel_messages(thread)[-1]
            agree = next((c for c in offer.custom_ids if c.startswith(f"rh:offer_yes:{gid}:")), None)
            if agree is not None:  # a private bought from another player: its seller agrees to the price
                [seller] = (offer.allowed_mentions or {}).get("users")
                await fake.click(int(seller), offer, agree)
            assert rec.final.ephemeral and "Done" in rec.final.content, (action, rec.final.content)

        game = (await bot.service.live(gid)).session.game
        mc = game.corporation("MC")
        assert game.company("CdB").owner is mc and game.round.current_entity is mc
        president = member[mc.owner.id]
        # the president places MC's station with the Boleo, as the log does: free, on Santa Rosalia
        cash, before = mc.cash, len(fake.channel_messages(thread))
        rec = await fake.command(president, thread, "token", {"city": "H3", "using": "CdB"})
        assert rec.final.ephemeral and "Done" in rec.final.content, rec.final.content
        [news] = fake.channel_messages(thread)[before:]
        assert news.content.startswith("CdB places MC's station in H3 Santa Rosalia"), news.content
        game = (await bot.service.live(gid)).session.game
        assert "H3" in game.hexmap.tokened_hexes("MC") and game.corporation("MC").cash == cash
        # once used, it is refused with the reason, and nothing is posted
        rec = await fake.command(president, thread, "token", {"city": "H3", "using": "CdB"})
        assert rec.final.ephemeral and "CdB has no station to place" in rec.final.content, rec.final.content
        assert len(fake.channel_messages(thread)) == before + 1
        assert not fake.unknown
    finally:
        await runner.stop()
        await fake.stop()
