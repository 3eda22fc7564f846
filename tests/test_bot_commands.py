"""The command set: every title's every legal move is a command, and all of it fits Discord's limits.

Shape (docs/bot.md): the 18xx family's verbs are top-level commands shared by every 18xx title (their
options and autocomplete come from the thread's game), Steam's are the `/steam` group, and `/game` holds
the lobby and the rest. Discord allows 100 global chat-input commands, 25 subcommands per group and 25
options per command; 1817's verbs (loans, shorts, conversions, sizes, offers) are in, and the count leaves
room for another title's.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import discord
import pytest

from bot.cogs.play import COMMAND_LIMIT, SUBCOMMAND_LIMIT
from bot.config import Config
from bot.discord_bot import EXTENSIONS, make_bot
from bot.errors import UserError
from bot.families import FAMILIES, G18xx, Steam
from bot.session import Engine

FIXTURES = Path(__file__).parent / "fixtures"
ROOM_TO_GROW = 10  # another title's verbs


async def synced_commands(tmp_path) -> list[dict]:
    """The commands as the bot would sync them to Discord (the JSON of `tree.sync`)."""
    bot = make_bot(Config(db_path=str(tmp_path / "c.db")))
    for ext in EXTENSIONS:
        await bot.load_extension(ext)
    return [c.to_dict(bot.tree) for c in bot.tree.get_commands()]


async def test_the_command_set_fits_discord_with_every_game(tmp_path):
    payload = await synced_commands(tmp_path)
    names = [c["name"] for c in payload]
    assert len(names) == len(set(names))
    top = len(payload)
    print(f"\n{top} top-level commands: {', '.join(sorted(names))}")
    assert top + ROOM_TO_GROW <= COMMAND_LIMIT
    for c in payload:
        subs = [o for o in c.get("options", []) if o["type"] in (1, 2)]
        assert len(subs) <= SUBCOMMAND_LIMIT and len(c.get("options", [])) <= SUBCOMMAND_LIMIT, c["name"]
        for sub in subs:
            assert len(sub.get("options", [])) <= SUBCOMMAND_LIMIT
    # every family's commands are there: the 18xx verbs at the top level, Steam's in its group
    assert set(G18xx.commands) <= set(names)
    steam = next(c for c in payload if c["name"] == Steam.group)
    assert {o["name"] for o in steam["options"]} == set(Steam.commands)
    new = next(o for o in next(c for c in payload if c["name"] == "game")["options"] if o["name"] == "new")
    titles = {ch["value"] for o in new["options"] if o["name"] == "title" for ch in o["choices"]}
    assert {"1830", "18MEX", "steam"} <= titles == set(Engine().titles)
    assert {"map", "mode", "rules"} <= {o["name"] for o in new["options"]}


def round_trip(session, action: dict, player: int) -> None:
    """The command for a legal action builds that action again (the fields the command sets)."""
    kind, options = session.command_for(action)
    cmd = session.command(kind)
    built = cmd.build(session, cmd.given(options), player, session.legal())
    for key, value in built.items():
        if key == "entity" and value is None:
            continue
        if key == "routes":
            assert [r["connections"] for r in value] == [r["connections"] for r in action[key]]
        else:
            assert action.get(key) == value, (kind, options, key, built, action)


def controller(session, action: dict) -> int:
    if action["entity_type"] == "player":
        return int(action["entity"])
    return int(session.active_players()[0])


COMMON = {"bid", "buy_shares", "sell_shares", "lay_tile", "run_routes", "buy_train"}


@pytest.mark.parametrize("title, fixture, kinds", [
    ("1830", "26855", COMMON | {"par"}), ("18MEX", "13315", COMMON | {"par"}),
    ("1860", "1860_game_end_bank", COMMON | {"par"}),
    ("1817", "16281", COMMON | {"take_loan", "payoff_loan", "short", "convert", "merge", "choose", "assign"})])
def test_every_legal_18xx_move_is_a_command(title, fixture, kinds):
    from engine.core.actions import resolve_undo
    from engine.titles import rules_class

    log = json.loads((FIXTURES / title / f"{fixture}.json").read_text())
    session = G18xx(title, rules_class(title).from_18xx(dict(log, actions=[])))
    seen: set[str] = set()
    for k, action in enumerate(resolve_undo(log["actions"])):
        if k % 9 == 0 or action["type"] in ("choose", "convert", "merge", "short"):  # rare moves: each time
            for a in session.legal():
                if a["type"].startswith("program_"):
                    continue
                assert session.command_of(a) is not None, a
                seen.add(a["type"])
                round_trip(session, a, controller(session, a))
        session.game.apply(action)
    assert kinds <= seen, kinds - seen


def test_every_legal_steam_move_is_a_command():
    from engine.steam.actions import to_dict
    from engine.steam.agent import choose

    session = Engine().create("steam", [{"id": i, "name": n} for i, n in enumerate(("Ann", "Bob", "Cid"), 1)], 5,
                              {"map": "rust_belt", "mode": "standard"})
    rng = random.Random(5)
    seen: set[str] = set()
    while not session.finished:
        legal = session.legal() if len(session.actions) % 2 == 0 else []
        for a in legal[:: max(1, len(legal) // 6)]:
            assert session.command_of(a) is not None, a
            seen.add(a["type"])
            round_trip(session, a, int(a["entity"]))
        game = session.game
        model = choose(game, rng)
        session.apply(to_dict(model, game.pid(model.player)))
    assert {"capital", "bid", "pass", "take_tile", "lay", "end_build", "move"} <= seen


def test_each_family_owns_its_buttons_and_commands():
    for fam in FAMILIES:
        for key, button in fam.buttons.items():
            assert button.command in fam.commands, (fam.family, key)
        for cmd in fam.commands.values():
            assert cmd.name == cmd.name.lower() and len(cmd.help) <= 100 and cmd.types
            assert discord.app_commands  # the specs are plain data; discord.py checks the names when built


def test_1860_private_sold_to_the_bank():
    """From the second stock round a player may sell a private to the bank (face value less £30)."""
    from bot.commands import fit
    from engine.core.actions import resolve_undo
    from engine.titles import load_18xx

    log = json.loads((FIXTURES / "1860" / "1860_game_end_bank.json").read_text())
    actions = resolve_undo(log["actions"])
    upto = next(k for k, a in enumerate(actions) if a["id"] == 66)
    session = G18xx("1860", load_18xx(dict(log, actions=actions[:upto])))
    private, legal = G18xx.commands["private"], session.legal()
    choices = dict(fit(private.choices(session, "company", {}, legal), ""))
    assert choices["YHC: sell it to the bank for £20"] == "YHC"
    built = private.build(session, {"company": "YHC"}, 3864, legal)
    assert built == {"type": "sell_company", "entity": 3864, "entity_type": "player", "company": "YHC", "price": 20}
    text = session.describe(session.apply(built), {3864: "Ann"})
    assert text.startswith("Ann sells YHC to the bank for £20"), text


def test_18mex_change_making_trades_are_their_own_choices():
    """An NdM 10% sold taking a 5% back from the market is a choice of its own, and builds that trade."""
    from bot.commands import fit
    from bot.session import Change
    from engine.core.actions import resolve_undo
    from engine.titles import load_18xx

    log = json.loads((FIXTURES / "18MEX" / "13315.json").read_text())
    session = G18xx("18MEX", load_18xx(dict(log, actions=resolve_undo(log["actions"])[:437])))
    sell, legal = G18xx.commands["sell"], session.legal()
    choices = dict(fit(sell.choices(session, "shares", {}, legal), "NdM"))
    assert choices["sell 10% of NdM: NdM_2, taking back NdM_8 (5%)"] == "NdM_2@10~NdM_8"
    assert choices["sell 10% of NdM: NdM_2"] == "NdM_2@10"
    for value in choices.values():
        built = sell.build(session, {"shares": value}, 109, legal)
        assert built in [{k: v for k, v in a.items() if k != "id"} for a in legal], built
    trade = sell.build(session, {"shares": "NdM_2@10~NdM_8"}, 109, legal)
    change = session.apply(trade)
    text = session.describe(change, {109: "Cid"})
    assert text.startswith("Cid sells 10% of NdM, taking back NdM_8 (5%) for $"), text
    assert isinstance(change, Change)


def test_18mex_station_choice_after_a_merger():
    """The NdM's president chooses which of a merged major's stations the NdM keeps: places by name."""
    from engine.titles import create_game

    session = G18xx("18MEX", create_game("18MEX", [{"id": i, "name": n} for i, n in enumerate("ABC", 1)], 1))
    assign = G18xx.commands["assign"]
    legal = [{"type": "assign", "entity": "NdM", "entity_type": "corporation", "target": h, "target_type": "hex"}
             for h in ("I12", "P13")]
    assert assign.choices(session, "target", {}, legal) == [("I12 Matamoros", "I12"), ("P13 Veracruz", "P13")]
    assert assign.build(session, {"target": "p13"}, 1, legal) == legal[1]
    with pytest.raises(UserError, match="choose I12, P13"):
        assign.build(session, {"target": "O10"}, 1, legal)
    from bot.families.g18xx.words import next_hint

    info = {"types": ["assign"], "assign": {"hexes": ["I12", "P13"], "from": "MEX"}}
    assert next_hint(info, session.words(), "NdM") == \
        "choose which of MEX's stations the NdM keeps: I12 Matamoros, P13 Veracruz (/assign)"
