"""Storage (migrations, repository) and the local console, without Discord."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakediscord.play import session_1830

from bot.commands import fit
from bot.config import Config
from bot.console import Console, run_console
from bot.db import Database, UndoEvent, migration_files
from bot.errors import UserError
from bot.families.g18xx import G18xx
from bot.families.g18xx.commands import format_routes, parse_routes
from bot.service import Service
from bot.session import Change, engine_available

ROOT = Path(__file__).resolve().parent.parent
needs_engine = pytest.mark.skipif(not engine_available(), reason="engine.titles not importable yet")


async def test_migrations_are_recorded_and_applied_once(tmp_path):
    path = tmp_path / "x.db"
    async with Database(path) as db:
        versions = [v for v, _ in await db.applied_migrations()]
        assert versions == [v for v, _, _ in migration_files()] and versions[0] == 1
        assert await db.migrate() == []
        async with db.conn.execute("PRAGMA journal_mode") as cur:
            assert (await cur.fetchone())[0] == "wal"
    async with Database(path) as db:  # reopening applies nothing new
        assert [v for v, _ in await db.applied_migrations()] == versions


async def test_repository_round_trip(tmp_path):
    async with Database(tmp_path / "x.db") as db:
        g = await db.create_game(title="1830", seed=7, created_by=11, thread_id=99)
        await db.add_seat(g.id, 1, 11, "Ann")
        await db.add_seat(g.id, 2, 12, "Bob")
        await db.set_positions(g.id, [2, 1])
        assert [s.name for s in await db.seats(g.id)] == ["Bob", "Ann"]
        seq = await db.append_action(g.id, {"type": "pass", "entity": 2, "entity_type": "player", "id": 1}, 12, 1,
                                     {"turn_members": [11]})
        assert seq == 1 and await db.action_count(g.id) == 1
        assert (await db.get_game(g.id)).turn_members == [11]
        assert (await db.game_by_thread(99)).id == g.id
        await db.truncate_actions(g.id, 0)
        assert await db.actions(g.id) == []
        undo = UndoEvent(g.id, 0, 1, 1, [2], [2], "Bob passes", 5.0)
        await db.add_undo_event(undo)
        await db.add_undo_event(UndoEvent(g.id, 0, 2, 1, [None], [], "Bob passes", 6.0))
        assert (await db.undo_events(g.id))[0] == undo and [e.takers for e in await db.undo_events(g.id)] == [[2], [None]]
        assert (await db.get_game(g.id)).pin_message_id is None
        await db.update_game(g.id, pin_message_id=123)
        assert (await db.get_game(g.id)).pin_message_id == 123
        await db.set_dm_optin(12, True)
        assert await db.dm_optin(12) and not await db.dm_optin(11)
        await db.set_reminder(g.id, next_at=5.0)
        await db.update_game(g.id, status="active")
        assert [r.game_id for r in await db.due_reminders(10.0)] == [g.id]
        assert await db.due_reminders(1.0) == []


def test_routes_text_round_trip():
    routes = [{"train": "3-0", "connections": [["G19", "F20"], ["F20", "E19", "D18"]]},
              {"train": "4-1", "connections": [["F2 1.2"]]}]
    assert parse_routes(format_routes(routes)) == routes
    # 1860: how many of a route's halts count as stops is the route's own setting
    halts = [{"train": "3+2-0", "halts": 1, "connections": [["F2", "F4"], ["F4", "G5"]]}]
    assert format_routes(halts) == "3+2-0 halts=1: F2,F4 | F4,G5"
    assert parse_routes(format_routes(halts)) == halts
    with pytest.raises(UserError, match="is not a setting of a route"):
        parse_routes("3+2-0 stops=1: F2,F4")


def test_describe_sentences():
    session = session_1830()
    before = {"players": [{"id": 1, "cash": 600}], "corporations": {"PRR": {"cash": 0, "price": [67, 5, 6]}},
              "companies": {"CA": None}, "round_desc": "Stock Round 1", "phase": "2"}
    after = {"players": [{"id": 1, "cash": 466}], "corporations": {"PRR": {"cash": 0, "price": [67, 5, 6]}},
             "companies": {"CA": None}, "round_desc": "Stock Round 1", "phase": "2"}
    par = {"type": "par", "entity": 1, "entity_type": "player", "corporation": "PRR", "share_price": "67,5,6"}
    assert session.describe(Change(par, before, after), {1: "Ann"}) == \
        "Ann pars PRR at $67 and buys the president's certificate (20%) for $134"
    after2 = dict(after, phase="3", round_desc="Operating Round 1.1")
    lay = {"type": "lay_tile", "entity": "PRR", "entity_type": "corporation", "hex": "H12", "tile": "57-0",
           "rotation": 1}
    text = session.describe(Change(lay, before, after2), {})
    assert text.startswith("PRR lays tile 57 on H12") and "Phase 3" in text
    assert "Operating Round 1.1 begins" in text


@needs_engine
async def test_console_plays_and_survives_restart(tmp_path):
    db_path = tmp_path / "c.db"
    cfg = Config(db_path=str(db_path), out_dir=str(tmp_path / "out"))

    async def run(lines: str) -> str:
        out = io.StringIO()
        await run_console(cfg, stdin=io.StringIO(lines), stdout=out)
        return out.getvalue()

    text = await run("help\nnew 1830 Ann Bob Cid\nstart\nlegal\n")
    assert "as SEAT ACTION" in text and "starts. Seats:" in text and "bid CA 165    # CA: $165 or more" in text
    assert "picture:" in text and Path(text.split("picture: ")[1].split()[0]).exists()
    text = await run("as 1 bid SV 20\nas 1 bid SV 20\nas 9 pass\nhistory\n")
    assert "buys SV for $20" in text
    assert "! It is not your turn" in text and "! No seat `9`" in text
    assert "1. " in text.split("history")[-1] or "1. " in text
    text = await run("as 2 pass\nundo 2\nstatus\nexport\n")  # a fresh process: the game was resumed
    assert "passes" in text and "undid 1 action" in text and "Exported to" in text
    exported = json.loads(next((tmp_path / "out").glob("*.json")).read_text())
    assert len(exported["actions"]) == 1


@needs_engine
async def test_console_plays_the_1860_auction(tmp_path):
    """1860's bids for the first choice name no company: `legal` writes them so they can be typed back."""
    cfg = Config(db_path=str(tmp_path / "c.db"), out_dir=str(tmp_path / "out"))
    out = io.StringIO()
    lines = "new 1860 Ann Bob Cid seed=3\nstart\nlegal\nas 1 bid price=5\nas 2 bid 15\nas 3 pass\nas 1 pass\n" \
        "legal\nas 2 bid BHC\nstatus\n"
    await run_console(cfg, stdin=io.StringIO(lines), stdout=out)
    text = out.getvalue()
    assert "bid price=5    # the first choice of the lots: £5" in text
    assert "Bob bids £5 for the first choice of the lots" in text and "Cid bids £15" in text
    assert "choose a lot: buy a private (`as SEAT bid …`) or a president's certificate (`as SEAT par …`)" in text
    assert "bid BHC 30    # BHC: buy it for £30" in text and "Cid buys BHC for £30" in text
    assert "• Cid: £625 (worth £655, 1/21 certificates) — BHC" in text


def test_python_m_bot_without_token_runs_the_console(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["ROUNDHOUSE_DB"] = str(tmp_path / "m.db")
    res = subprocess.run([sys.executable, "-m", "bot"], input="help\ngames\nfoo\n", capture_output=True, text=True,
                         cwd=tmp_path, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    assert "Roundhouse console" in res.stdout and "No open games." in res.stdout and "Unknown command" in res.stdout
    assert (tmp_path / "m.db").exists()


async def test_console_parse_action():
    assert Console.parse_action(G18xx, "lay", ["E19", "57-0", "1", "using=CS"]) == (
        "lay", {"hex": "E19", "tile": "57-0", "rotation": 1, "using": "CS"})
    assert Console.parse_action(G18xx, "run", ["3-0:", "E19,F20"]) == ("run", {"routes": "3-0: E19,F20"})
    assert Service  # imported for type checks


async def test_sharded_by_configuration(tmp_path):
    from discord.ext import commands

    from bot.discord_bot import make_bot

    plain = make_bot(Config(db_path=str(tmp_path / "a.db")))
    sharded = make_bot(Config(db_path=str(tmp_path / "b.db"), sharded=True, shard_count=2))
    assert not isinstance(plain, commands.AutoShardedBot)
    assert isinstance(sharded, commands.AutoShardedBot) and sharded.shard_count == 2
    assert Config.from_env({"ROUNDHOUSE_SHARDED": "1", "ROUNDHOUSE_DEV_GUILD": "42"}).dev_guild == 42


def test_sell_offers_both_percents_of_a_presidents_certificate():
    session, sell = session_1830(), G18xx.commands["sell"]
    legal = [{"type": "sell_shares", "entity": 1, "entity_type": "player", "shares": ["B&O_3", "B&O_0"],
              "percent": p} for p in (20, 30)]
    legal.append({"type": "sell_shares", "entity": 1, "entity_type": "player", "shares": ["B&O_3"], "percent": 10})
    choices = fit(sell.choices(session, "shares", {}, legal), "")
    assert choices == [("sell 20% of B&O: B&O_3+B&O_0 (president's certificate swapped)", "B&O_3+B&O_0@20"),
                       ("sell 30% of B&O: B&O_3+B&O_0 (president's certificate sold)", "B&O_3+B&O_0@30"),
                       ("sell 10% of B&O: B&O_3", "B&O_3@10")]
    for value, pct in (("B&O_3+B&O_0@20", 20), ("B&O_0+B&O_3@30", 30), ("B&O_3+B&O_0", 30)):
        assert sell.build(session, {"shares": value}, 1, legal)["percent"] == pct
