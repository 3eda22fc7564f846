"""Crashes and a second process: the console and the real bot (against the fake Discord) are killed with
SIGKILL at random points while they play random legal games, then started again. Every acknowledged
action is stored (checked when it is acknowledged, and again after each kill), nothing unacknowledged is
stored but the command in flight, the log replays and the integrity check passes. A second process on
the same database is refused at once; Ctrl-C and SIGTERM stop it quietly.

Bounded in time: a few kills each (ROUNDHOUSE_CRASH_TRIALS raises it for a longer run), the first two made
however slow the machine is."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import time

from fakediscord import FakeDiscord
from fakediscord.processes import bot as bot_process
from fakediscord.processes import console, environment
from fakediscord.randomplay import console_line, next_command, replay, seats, stored_log

from bot.db import Database
from bot.integrity import check

TRIALS = int(os.environ.get("ROUNDHOUSE_CRASH_TRIALS", "6"))
TIME_BUDGET = float(os.environ.get("ROUNDHOUSE_CRASH_SECONDS", "25"))
GAME = 1
MIN_KILLS = 2


def more_kills(ledger, wanted: int, started: float) -> bool:
    """Whether to go on: the first kills whatever the time (a loaded machine plays slowly), more within the budget."""
    return ledger.kills < min(wanted, MIN_KILLS) or (ledger.kills < wanted and
                                                     time.monotonic() - started < TIME_BUDGET)


async def _integrity(db_path: str) -> list[str]:
    async with Database(db_path, owner=False) as db:
        return await check(db)


def _answered(line: str) -> bool:
    return line.startswith(("Next:", "Game over", "**Game over**", "! ", "Undo of"))


class Ledger:
    """What was acknowledged, and the command in flight when the process was killed."""

    def __init__(self) -> None:
        self.acked: list[dict] = []
        self.inflight: str | None = None   # "action" | "undo"
        self.acknowledged = 0
        self.kills = 0
        self.inflight_stored = 0   # kills after the command in flight was stored (but not acknowledged)

    def verify_after_kill(self, stored: list[dict]) -> None:
        """The stored log is the acknowledged one, give or take the command in flight."""
        acked = self.acked
        ok = stored == acked or (self.inflight == "undo" and stored == acked[:-1]) or (
            self.inflight == "action" and len(stored) == len(acked) + 1 and stored[:-1] == acked)
        assert ok, (f"after kill {self.kills}: {len(acked)} acknowledged, {len(stored)} stored, "
                    f"in flight: {self.inflight}")
        self.inflight_stored += stored != acked
        self.acked, self.inflight = stored, None

    def figures(self) -> str:
        return (f"{self.kills} kills ({self.inflight_stored} after the command in flight was stored), "
                f"{self.acknowledged} actions acknowledged, 0 lost, {len(self.acked)} stored")


def test_console_killed_at_random_points_loses_no_acknowledged_action(tmp_path):
    db_path = str(tmp_path / "crash.db")
    rng = random.Random(int(os.environ.get("ROUNDHOUSE_CRASH_SEED", "7")))
    ledger = Ledger()
    proc = console(db_path, tmp_path)
    proc.send("new 1830 Ann Bob Cid Dan seed=11")
    proc.send("start")
    proc.read_until(lambda line: line.startswith("Next:"))
    names = {pid: name for pid, _, name, _ in seats(db_path, GAME)}
    game = replay(db_path, GAME)
    started = time.monotonic()
    try:
        while more_kills(ledger, TRIALS, started) and not game.finished:
            nxt = next_command(game, rng)
            assert nxt is not None
            last_by = ledger.acked[-1].get("entity") if ledger.acked else None
            if ledger.acked and rng.random() < 0.05 and isinstance(last_by, int):
                line, what = f"undo {names[last_by]}", "undo"
            else:
                pid, kind, options = nxt
                # sent at once: a move the console would first show (a pass ending a stock round) would wait for a
                # `yes` that never comes; which moves those are depends on where earlier kills left the game
                line, what = console_line(names[pid], kind, options) + " --yes", "action"
            proc.send(line)
            if rng.random() < 1 / 12:  # kill it somewhere in this command (or just after it)
                ledger.inflight = what
                time.sleep(rng.uniform(0, 0.04))
                proc.kill()
                ledger.kills += 1
                ledger.verify_after_kill(stored_log(db_path, GAME))
                assert asyncio.run(_integrity(db_path)) == []
                proc = console(db_path, tmp_path)
                game = replay(db_path, GAME)
                continue
            answer = proc.read_until(_answered)
            stored = stored_log(db_path, GAME)
            if answer[-1].startswith("! "):
                assert stored == ledger.acked, answer  # refused: nothing changed
                continue
            if what == "undo":
                assert stored == ledger.acked[:-1], answer
                game = replay(db_path, GAME)
            else:
                assert len(stored) == len(ledger.acked) + 1 and stored[:-1] == ledger.acked, answer
                game.apply(stored[-1])
            ledger.acked = stored
            ledger.acknowledged += what == "action"
    finally:
        proc.kill()
    assert ledger.kills >= min(TRIALS, MIN_KILLS), f"only {ledger.kills} kills before the game ended"
    assert asyncio.run(_integrity(db_path)) == []
    print(f"\nconsole crash test: {ledger.figures()}")


async def test_bot_killed_at_random_points_loses_no_acknowledged_action(tmp_path):
    db_path = str(tmp_path / "crash.db")
    rng = random.Random(int(os.environ.get("ROUNDHOUSE_CRASH_SEED", "7")) + 1)
    fake = await FakeDiscord().start()
    ledger = Ledger()
    users = [fake.add_user(n) for n in ("Ann", "Bob", "Cid")]
    proc = bot_process(db_path, tmp_path, fake.base, fake.guild_id)
    try:
        await fake.wait_connected(30)
        rec = await fake.command(users[0], fake.channel_id, "game", {"title": "1830"}, sub="new")
        thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)
        for uid in users[1:]:
            await fake.command(uid, thread, "game", {}, sub="join")
        rec = await fake.command(users[0], thread, "game", {}, sub="start")
        assert rec.final.content == "Done.", rec.final.content
        member = {pid: m for pid, m, _, _ in seats(db_path, GAME)}
        game = replay(db_path, GAME)
        started = time.monotonic()
        trials = max(MIN_KILLS, TRIALS // 2)
        while more_kills(ledger, trials, started) and not game.finished:
            pid, kind, options = next_command(game, rng)
            if rng.random() < 1 / 10:
                ledger.inflight = "action"
                task = asyncio.ensure_future(fake.command(member[pid], thread, kind, options, timeout=60))
                await asyncio.sleep(rng.uniform(0, 0.05))
                proc.kill()
                task.cancel()
                ledger.kills += 1
                fake.ready.clear()
                ledger.verify_after_kill(stored_log(db_path, GAME))
                assert await _integrity(db_path) == []
                proc = bot_process(db_path, tmp_path, fake.base, fake.guild_id)
                await fake.wait_connected(30)
                game = replay(db_path, GAME)
                continue
            rec = await fake.command(member[pid], thread, kind, options, timeout=60)
            stored = stored_log(db_path, GAME)
            if not rec.final.content.startswith("Done"):
                assert stored == ledger.acked, rec.final.content
                continue
            assert len(stored) == len(ledger.acked) + 1 and stored[:-1] == ledger.acked, rec.final.content
            game.apply(stored[-1])
            ledger.acked = stored
            ledger.acknowledged += 1
        assert await asyncio.to_thread(proc.interrupt, 120) == 130  # Ctrl-C: a quiet stop (slow on a busy machine)
        assert "Traceback" not in "".join(proc.stderr), "".join(proc.stderr)[-3000:]
    finally:
        proc.kill()
        await fake.stop()
    assert ledger.kills >= MIN_KILLS, f"only {ledger.kills} kills before the game ended"
    assert await _integrity(db_path) == []
    print(f"\nbot crash test: {ledger.figures()}")


def test_a_second_process_on_the_database_is_refused_and_ctrl_c_stops_quietly(tmp_path):
    db_path = str(tmp_path / "one.db")
    first = console(db_path, tmp_path)
    first.send("new 1830 Ann Bob seed=3")
    first.read_until(lambda line: "lobby" in line)
    for second in (console(db_path, tmp_path), bot_process(db_path, tmp_path, "http://127.0.0.1:9", 1)):
        assert second.wait(60) == 1
        err = "".join(second.stderr)
        assert f"in use by another Roundhouse process (pid {first.pid})" in err, err
        assert "Traceback" not in err
    first.send("games")
    assert "#1 1830 — lobby" in first.read_until(lambda line: line.startswith("#1"))[-1]
    # while it runs: an online backup, and the integrity check of the backup and of the live database
    env = environment(db_path)
    copy = str(tmp_path / "backup.db")
    for args in (["backup", copy], ["check", copy], ["check"]):
        done = subprocess.run([sys.executable, "-m", "bot", *args], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert done.stdout.strip().endswith(f"{db_path}: ok")
    assert first.interrupt() == 130
    time.sleep(0.1)
    assert "Traceback" not in "".join(first.stderr), first.stderr
    assert "stopped" in "".join(first.stderr)


async def test_the_bot_stops_quietly_when_the_system_stops_it(tmp_path):
    """SIGTERM (`docker stop`) closes the bot as Ctrl-C does, with a clean exit and no traceback."""
    fake = await FakeDiscord().start()
    proc = bot_process(str(tmp_path / "term.db"), tmp_path, fake.base, fake.guild_id)
    try:
        await fake.wait_connected(30)
        proc.proc.terminate()
        assert await asyncio.to_thread(proc.wait, 120) == 0
        time.sleep(0.1)
        assert "Traceback" not in "".join(proc.stderr), "".join(proc.stderr)[-3000:]
    finally:
        proc.kill()
        await fake.stop()
