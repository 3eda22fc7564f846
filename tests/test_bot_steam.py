"""Steam through the bot's service (no Discord): set-up checked against the engine's maps and modes, the
commands and their autocomplete, turns, undo by consent, spectating, reminders, export and import, and a
restart — all as for 1830."""

from __future__ import annotations

import json

import pytest
from fakediscord.play import GUILD, OTHER_GUILD

from bot.access import Caller
from bot.db import Database
from bot.errors import UserError
from bot.service import Service
from bot.session import Engine

THREAD = 9301


@pytest.fixture
async def db(tmp_path):
    async with Database(str(tmp_path / "rh.db")) as database:
        yield database


async def refused(coro, words: str) -> str:
    try:
        await coro
    except UserError as e:
        assert words in str(e), str(e)
        return str(e)
    raise AssertionError(f"not refused: {words}")


async def steam_game(svc: Service, names=("Ann", "Bob", "Cid")) -> tuple[int, dict[str, Caller]]:
    who = {n: Caller(21 + i, n, GUILD, THREAD) for i, n in enumerate(names)}
    row = await svc.new_game(who[names[0]], title="steam", seed=5, channel_id=8300, thread_id=THREAD,
                             settings={"map": "Rust Belt", "mode": "standard"})
    for n in names[1:]:
        await svc.join(row.id, who[n])
    await svc.start(row.id, who[names[0]])
    return row.id, who


def acting(svc: Service, gid: int, who: dict[str, Caller]) -> Caller:
    lv = svc._live[gid]
    return who[lv.names[lv.session.active_players()[0]]]


async def test_settings_come_from_the_engine_and_are_checked(db):
    svc = Service(db, Engine(), pictures=False)
    ann = Caller(21, "Ann", GUILD, THREAD)
    await refused(svc.new_game(ann, title="steam", settings={"map": "atlantis"}), "is not one of")
    await refused(svc.new_game(ann, title="steam", settings={"mode": "expert"}), "basic, standard")
    await refused(svc.new_game(ann, title="1830", settings={"map": "rust_belt"}), "1830 takes rules, not `map`")
    await refused(svc.new_game(ann, title="chess"), "Unknown title")
    row = await svc.new_game(ann, title="STEAM", seed=3, settings={"map": "Rust Belt"})
    assert (row.title, row.settings) == ("steam", {"map": "rust_belt", "mode": "basic"})
    await svc.join(row.id, Caller(22, "Bob", GUILD))
    await refused(svc.start(row.id, ann), "Steam needs at least 3 players")
    assert "**Steam** game" in await svc.lobby_text(row.id) and "(2/6)" in await svc.lobby_text(row.id)
    mex = await svc.new_game(ann, title="18MEX", seed=4, settings={"rules": "delay_minor_close"})
    assert mex.optional_rules == ["delay_minor_close"]
    for i, name in enumerate(("Bob", "Cid"), start=22):
        await svc.join(mex.id, Caller(i, name, GUILD))
    started = await svc.start(mex.id, ann)
    assert "**18MEX** game" in started.text and "buy MCAR for $20, bid on a dearer private, or pass" in started.text


async def test_steam_turns_autocomplete_undo_spectators_and_restart(db):
    svc = Service(db, Engine(), pictures=False)
    gid, who = await steam_game(svc)
    lv = svc._live[gid]
    first = acting(svc, gid, who)
    other = next(c for c in who.values() if c != first)
    await refused(svc.act(gid, other, "shares", {"count": 1}), "not your turn")
    await refused(svc.act(gid, first, "pass", {}, group=None), "is Steam: use `/steam …`")
    await refused(svc.act(gid, first, "lay", {"hex": "E19"}), "Unknown action `lay`")
    await refused(svc.act(gid, first, "shares", {"count": "lots"}), "count must be a number")
    choices = await svc.autocomplete(gid, first, "shares", "count", "", {}, group="steam")
    assert choices[:2] == [("issue 0 shares: +$0, income 0 → 0", 0), ("issue 1 share: +$5, income 0 → -1", 1)]
    assert len(choices) == 11
    reply = await svc.act(gid, first, "shares", {"count": 2}, group="steam")
    assert reply.text.startswith(f"{first.name} issues 2 shares for $10: income 0 → -2.")
    for _ in range(2):
        await svc.act(gid, acting(svc, gid, who), "shares", {"count": 0})
    assert "turn-order auction" in reply.text or "bid at least $0" in svc.turn_text(lv, mention=False)
    bids = await svc.autocomplete(gid, acting(svc, gid, who), "bid", "amount", "", {})
    assert bids[0] == ("$0", 0)

    # undo: your own last action at once; further back needs the others
    bidder = acting(svc, gid, who)
    await svc.act(gid, bidder, "bid", {"amount": 1})
    undone = await svc.undo(gid, bidder, 1)
    assert "undid 1 action: " in undone.text and "bids $1" in undone.text
    request = await svc.undo(gid, bidder, 2)
    assert request.steps == 2
    for c in who.values():
        if c != bidder:
            await svc.vote_undo(gid, c, True, request.token)
    assert len(svc._live[gid].session.actions) == 1

    # anyone in the server follows the game; nobody elsewhere sees it
    outsider = Caller(99, "Eve", GUILD, 1234)
    status = await svc.status(gid, outsider)
    assert "Rust Belt, standard game — round 1 of 10" in status.text and "• Ann:" in status.text
    await refused(svc.status(gid, Caller(99, "Eve", OTHER_GUILD, 1)), "no game")
    told = (await svc.history(gid, outsider)).text.splitlines()
    assert told[0] == f"1. {first.name} issues 2 shares for $10: income 0 → -2"
    assert told[1].startswith("↩ ") and " undid 1 action: " in told[1] and "bids $1" in told[1]
    assert told[2].startswith("↩ With everyone's agreement (") and len(told) == 3

    # reminders name the member to act
    await svc.set_remind(gid, bidder, 1)
    due = await svc.due_reminders(now=10**12)
    assert due and "Reminder" in due[0].text and due[0].mention == [acting(svc, gid, who).member_id]

    # a restart rebuilds the game from its stored log
    before = svc._live[gid].session.summary()
    again = Service(db, Engine(), pictures=False)
    await again.resume_all()
    assert again._live[gid].session.summary() == before


async def test_steam_export_and_import(db):
    svc = Service(db, Engine(), pictures=False)
    gid, who = await steam_game(svc)
    for _ in range(3):
        await svc.act(gid, acting(svc, gid, who), "shares", {"count": 1})
    name, data = await svc.export(gid, who["Ann"])
    log = json.loads(data)
    assert name == f"roundhouse-steam-{gid}.json"
    assert log["title"] == "steam" and log["settings"]["map"] == "rust_belt" and log["settings"]["mode"] == "standard"
    assert len(log["actions"]) == 3 and log["id"] == gid
    members = [(31 + i, p["name"]) for i, p in enumerate(log["players"])]
    row, reply = await svc.import_game(Caller(31, "Ann", GUILD, 9400), data, members, thread_id=9400)
    assert "Imported a Steam game with 3 actions" in reply.text
    assert (row.title, row.seed, row.settings["mode"]) == ("steam", 5, "standard")
    assert svc._live[row.id].session.summary() == svc._live[gid].session.summary()
    await refused(svc.import_game(Caller(31, "Ann", GUILD), json.dumps({**log, "players": log["players"] * 3}),
                                  []), "player id twice")


async def test_the_console_plays_steam(tmp_path):
    import io
    import re

    from bot.config import Config
    from bot.console import run_console

    cfg = Config(db_path=str(tmp_path / "c.db"), out_dir=str(tmp_path / "out"), pictures=False)

    async def run(lines: str) -> str:
        out = io.StringIO()
        await run_console(cfg, stdin=io.StringIO(lines), stdout=out)
        return out.getvalue()

    text = await run("titles\nnew steam Ann Bob Cid map=rust_belt mode=standard seed=5\nstart\nlegal\n")
    assert "steam — Steam, 3-6 players; map: eastern_us_and_canada, rust_belt" in text
    assert "Steam game #1 (Rust Belt; standard game)" in text and "starts. Seats:" in text
    assert "  shares 2    # take $10 capital (income 0 -> -2)" in text
    first = re.search(r"Next: @(\w+) — issue shares", text).group(1)
    text = await run(f"as {first} shares 2\nas {first} shares 1\nhistory\n")
    assert f"{first} issues 2 shares for $10: income 0 → -2." in text and "! It is not your turn" in text
    assert f"1. {first} issues 2 shares for $10: income 0 → -2" in text
    text = await run("status\nexport\n")  # a fresh process: the game was resumed
    assert "Rust Belt, standard game — round 1 of 10, buy capital." in text and "Exported to" in text


async def test_the_console_offers_the_free_pass_holder_both_passes_and_the_board_around_a_place(tmp_path):
    import io
    from pathlib import Path

    from bot.config import Config
    from bot.console import run_console

    log = json.loads((Path(__file__).parent / "fixtures" / "steam" / "eastern_standard_5p.json").read_text())
    upto = next(i for i, a in enumerate(log["actions"]) if a["id"] == 43)  # Eve's pass with her free pass
    path = tmp_path / "game.json"
    path.write_text(json.dumps(dict(log, actions=log["actions"][:upto])))
    cfg = Config(db_path=str(tmp_path / "c.db"), out_dir=str(tmp_path / "out"), pictures=False)
    out = io.StringIO()
    lines = f"import {path}\nlegal\nas Eve pass decline\nlegal\nstatus Springfield\n"
    await run_console(cfg, stdin=io.StringIO(lines), stdout=out)
    text = out.getvalue()
    assert "`Springfield` names several places: 6,23, 24,6; write one's hex `q,r`." in text  # status PLACE
    first, _, after = text.partition("Eve declines the First Player free pass and drops out of the auction")
    assert "  pass use    # pass (First Player's free pass: you stay in)" in first
    assert "  pass decline    # pass and drop out of this auction (not using the First Player free pass)" in first
    assert after and "  pass    # pass (drop out of this auction)" in after and "pass use" not in after
