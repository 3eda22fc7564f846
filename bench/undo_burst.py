"""One member sending a burst of undo requests on a long 1817 game while another server's member acts: how long
that action takes, and the process CPU the burst costs. An undo request replays the game before the game is held
(its words: the actions it would take back), in the worker threads every server's actions use.

    .venv/bin/python bench/undo_burst.py [--burst 8] [--at 1600]
    BENCH_CODE=../other/checkout .venv/bin/python bench/undo_burst.py   (that checkout's code, these fixtures)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = Path(os.environ.get("BENCH_CODE", ROOT))  # another checkout's code, to compare
sys.path.insert(0, str(CODE))
sys.path.insert(0, str(CODE / "tests"))

from fakediscord.play import OTHER_GUILD, imported_game, started_game  # noqa: E402

from bot.db import Database  # noqa: E402
from bot.errors import UserError  # noqa: E402
from bot.service import Service  # noqa: E402
from bot.session import Engine  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "1817" / "15528.json"


async def run(burst: int, at: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with Database(Path(tmp) / "rh.db") as db:
            svc = Service(db, Engine(), pictures=False)
            game, callers = await imported_game(svc, json.loads(FIXTURE.read_text()), at)
            other, other_callers = await started_game(svc, guild=OTHER_GUILD, thread=9002)
            asker = next(iter(callers.values()))

            async def ask() -> bool:
                try:
                    await svc.undo(game, asker, 3)  # others' actions among them: a vote is asked for
                    return True
                except UserError:
                    return False

            started = time.process_time()
            asked = [asyncio.ensure_future(ask()) for _ in range(burst)]
            await asyncio.sleep(0.05)
            lv = svc._live[other]
            member = next(s.member_id for s in lv.seats if s.player_id == lv.session.active_players()[0])
            acting = next(c for c in other_callers.values() if c.member_id == member)
            wall = time.perf_counter()
            await svc.act(other, acting, "pass", {})
            took = time.perf_counter() - wall
            done = await asyncio.gather(*asked)
            print(f"another server's pass: {took:.2f} s; the burst's CPU {time.process_time() - started:.2f} s; "
                  f"{sum(done)} of {burst} requests taken")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--burst", type=int, default=8)
    parser.add_argument("--at", type=int, default=1600, help="actions of 15528 imported")
    args = parser.parse_args()
    print(f"{platform.machine()}, {os.cpu_count()} cores, CPython {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.1f}, code {CODE}")
    asyncio.run(run(args.burst, args.at))


if __name__ == "__main__":
    main()
