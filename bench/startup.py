"""Start-up with many running games: the time from starting the bot to its first answered commands, through the
fake Discord (real engine, pictures off).

Stores `--games` copies of a recorded game (still running: its last 20 actions left out), then starts the bot on
that database and times, from the start: connected (the gateway's READY), `/game list` answered, `/game status`
of the game played last answered, and every running game it keeps in memory built.

    .venv/bin/python bench/startup.py [--games 50] [--fixture tests/fixtures/1830/26855.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fakediscord import BotRunner, FakeDiscord  # noqa: E402
from fakediscord.play import imported_game, resolved_actions  # noqa: E402

from bot.db import Database  # noqa: E402
from bot.service import Service  # noqa: E402
from bot.session import Engine  # noqa: E402


async def stored_games(path: Path, log: dict, games: int, guild: int) -> list[int]:
    """`games` running games in `path`: one imported, the others copies of its rows, each played a second later
    than the one before. No thread is owed a post (`told_moment` unknown), so nothing is caught up."""
    async with Database(path) as db:
        first, _ = await imported_game(Service(db, Engine(), pictures=False), log, len(resolved_actions(log)) - 20,
                                       guild=guild, thread=900_000)
    raw = sqlite3.connect(path)
    columns = [r[1] for r in raw.execute("PRAGMA table_info(games)") if r[1] != "id"]
    ids = [first]
    for n in range(1, games):
        values = dict(zip(columns, raw.execute(f"SELECT {', '.join(columns)} FROM games WHERE id = ?",
                                               (first,)).fetchone(), strict=True))
        values.update(thread_id=900_000 + n, last_action_at=1_000_000 + n)
        gid = raw.execute(f"INSERT INTO games({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                          list(values.values())).lastrowid
        for table in ("seats", "actions", "reminders"):
            cols = [r[1] for r in raw.execute(f"PRAGMA table_info({table})") if r[1] != "game_id"]
            raw.execute(f"INSERT INTO {table}(game_id, {', '.join(cols)}) SELECT ?, {', '.join(cols)} FROM {table} "
                        "WHERE game_id = ?", (gid, first))
        ids.append(gid)
    raw.execute("UPDATE games SET told_moment = NULL, told_count = NULL")
    raw.commit()
    raw.close()
    return ids


async def main(fixture: Path, games: int) -> None:
    log = json.loads(fixture.read_text())
    fake = await FakeDiscord().start()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "startup.db"
        ids = await stored_games(path, log, games, fake.guild_id)
        member = fake.add_user("Ann")
        runner = BotRunner(fake, str(path), pictures=False)
        t0 = time.perf_counter()
        bot = await runner.start()
        times = {"connected": time.perf_counter() - t0}
        try:
            rec = await fake.command(member, fake.channel_id, "game", {}, sub="list", timeout=600)
            assert "#" in rec.final.content, rec.final.content
            times["/game list answered"] = time.perf_counter() - t0
            rec = await fake.command(member, fake.channel_id, "game", {"game": ids[-1]}, sub="status", timeout=600)
            assert "Next:" in rec.final.content, rec.final.content
            times["/game status answered"] = time.perf_counter() - t0
            resumed = getattr(bot, "resumed", None)
            if resumed is not None:
                await resumed
            times[f"games built ({len(bot.service._live)} in memory)"] = time.perf_counter() - t0
        finally:
            await runner.stop()
            await fake.stop()
    print(f"{games} running games of {fixture.name} ({len(resolved_actions(log)) - 20} actions each), pictures off")
    for what, t in times.items():
        print(f"  {what:32s} {t:6.2f} s")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--fixture", default=str(ROOT / "tests/fixtures/1830/26855.json"))
    ns = ap.parse_args()
    asyncio.run(main(Path(ns.fixture), ns.games))
