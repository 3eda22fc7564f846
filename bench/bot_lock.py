"""How long one game's lock is held by reads, and what a game costs in memory (issue: the bot's reliability).

Imports a recorded game into a service (real engine and pictures, no Discord), then measures, with the lock
held by each command: `/game status` with every picture, with the chart only, and an autocomplete; and the
memory a game in memory takes (tracemalloc of building it) and gives back when evicted.

    .venv/bin/python bench/bot_lock.py [tests/fixtures/1817/15528.json] [--repeat 3] [--cut 20]

The game is imported without its last `--cut` actions, so it is still running (autocomplete has a turn).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.access import Caller  # noqa: E402
from bot.db import Database  # noqa: E402
from bot.service import Service  # noqa: E402


def held(svc: Service, game_id: int) -> list[float]:
    """Wraps the game's lock so each hold is timed (CPU seconds of the whole process, threads included)."""
    lock = svc.lock(game_id)
    holds: list[float] = []
    acquire, release = lock.acquire, lock.release
    started: list[float] = []

    async def timed_acquire() -> bool:
        ok = await acquire()
        started.append(time.process_time())
        return ok

    def timed_release() -> None:
        holds.append(time.process_time() - started.pop())
        release()

    lock.acquire, lock.release = timed_acquire, timed_release  # type: ignore[method-assign]
    return holds


async def main(path: Path, repeat: int, cut: int) -> None:
    log = json.loads(path.read_text())
    from engine.core.actions import resolve_undo

    log = {**log, "actions": resolve_undo(log["actions"])[:-cut] if cut else log["actions"]}
    with tempfile.TemporaryDirectory() as tmp:
        async with Database(Path(tmp) / "rh.db") as db:
            svc = Service(db, pictures=True)
            callers = {int(p["id"]): Caller(100 + i, p["name"], 1, 9101) for i, p in enumerate(log["players"])}
            members = [(callers[int(p["id"])].member_id, p["name"]) for p in log["players"]]
            first = callers[int(log["players"][0]["id"])]
            row, _ = await svc.import_game(first, log, members, channel_id=8100, thread_id=9101)
            gid = row.id
            holds = held(svc, gid)
            for what, kinds in (("status, all pictures", None), ("status, chart only", ("chart",)),
                                ("status, no pictures", ())):
                holds.clear()
                for _ in range(repeat):
                    await svc.status(gid, first, kinds)
                print(f"{what:28s} lock held {min(holds):.3f} s CPU (min of {repeat}), max {max(holds):.3f}")
            lv = await svc.live(gid)
            session = lv.session
            acting = session.active_players()[0]
            cmd = next(iter(type(session).commands))
            holds.clear()
            t = time.process_time()
            await svc.autocomplete(gid, callers[int(acting)], cmd, next(iter(session.commands[cmd].options), ""), "", {})
            print(f"autocomplete {cmd:15s} {time.process_time() - t:.3f} s CPU; lock held "
                  f"{sum(holds):.3f} s over {len(holds)} hold(s)")
            # memory: a game built from its log, then dropped
            svc._live.clear()
            gc.collect()
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            await svc.live(gid)
            built = tracemalloc.get_traced_memory()[0] - base
            svc._live.clear()
            gc.collect()
            left = tracemalloc.get_traced_memory()[0] - base
            tracemalloc.stop()
            print(f"game in memory: {built / 2**20:.1f} MB; after dropping it: {left / 2**20:.1f} MB")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("log", nargs="?", default=str(ROOT / "tests/fixtures/1817/15528.json"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cut", type=int, default=20, help="leave out the log's last N actions (a running game)")
    args = ap.parse_args()
    asyncio.run(main(Path(args.log), args.repeat, args.cut))
