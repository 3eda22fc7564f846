"""Standing orders (/auto): members program passes and buys; the engine plays them at their turns.

The recorded game with programs is played through the bot's service: members send their /auto orders
and their own moves, never the automatic ones, and the game still ends exactly as on 18xx.games.
"""

from __future__ import annotations

import json
from pathlib import Path

from fakediscord.play import session_1830

from bot.access import Caller
from bot.db import Database
from bot.families.g18xx import G18xx
from bot.families.g18xx.commands import AUTO_MODES
from bot.service import Service
from bot.session import Engine
from engine.core.actions import resolve_undo

LOG = json.loads((Path(__file__).parent / "fixtures" / "1830" / "1830_game_end_bank.json").read_text())


def controller(game, action: dict) -> int:
    if action["entity_type"] == "player":
        return int(action["entity"])
    if action["entity_type"] == "corporation":
        return game.corporation(action["entity"]).owner.id
    owner = game.company(action["entity"]).owner
    return owner.id if hasattr(owner, "id") else owner.owner.id


async def test_standing_orders_play_a_recorded_game(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as db:
        service = Service(db, Engine(), pictures=False)
        members = {int(p["id"]): 1000 + i for i, p in enumerate(LOG["players"])}
        row, _ = await service.import_game(Caller(1000), dict(LOG, actions=[]),
                                           [(members[int(p["id"])], f"P{p['id']}") for p in LOG["players"]])
        automatic = 0
        for action in resolve_undo(LOG["actions"]):
            game = (await service.live(row.id)).game
            member = members[controller(game, action)]
            kind, options = G18xx.command_for({k: v for k, v in action.items() if k != "auto_actions"})
            reply = await service.act(row.id, Caller(member), kind, options)
            automatic += "automatically" in reply.text
        game = (await service.live(row.id)).game
        assert game.finished and game.result() == LOG["result"] and game.end_reason == LOG["game_end_reason"]
        assert automatic >= 10


def test_auto_command_builds_each_program():
    session, auto = session_1830(), G18xx.commands["auto"]

    def build(options):
        return auto.build(session, options, 1, None)

    assert build({"mode": "pass"})["type"] == "program_share_pass"
    assert build({"mode": "pass-always"})["indefinite"] is True
    order = build({"mode": "buy", "corporation": "nyc", "until": "3", "then_pass": "yes"})
    assert (order["type"], order["corporation"], order["until_condition"], order["auto_pass_after"]) == \
        ("program_buy_shares", "NYC", 3, True)
    assert build({"mode": "off"})["type"] == "program_disable"


def test_auto_command_autocomplete():
    session, auto = session_1830(), G18xx.commands["auto"]
    legal = [{"type": "buy_shares", "entity": 1, "entity_type": "player", "shares": ["NYC_3"], "percent": 10},
             {"type": "par", "entity": 1, "entity_type": "player", "corporation": "PRR", "share_price": "67,5,6"}]
    # 1830 has no merger rounds: no merger pass offered
    assert [v for _, v in auto.choices(session, "mode", {}, legal)] == [m for m in AUTO_MODES if m != "merger-pass"]
    assert [v for _, v in auto.choices(session, "corporation", {"mode": "buy"}, legal)] == ["NYC", "PRR"]
