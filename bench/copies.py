"""What each action costs the bot besides drawing: the read copy (`Session.frozen`, then `Session.thawed`), the
pre-send preview (`Session.confirmation`) and the action applied, per call, at a few states of a recorded game.

    .venv/bin/python bench/copies.py [tests/fixtures/1817/15528.json ...] [--at 0.25 0.5 0.75 0.95] [--window 20]
    BENCH_CODE=../other/checkout .venv/bin/python bench/copies.py   (that checkout's code, these fixtures)

At each state (a fraction of the log) it plays the next `--window` recorded actions as the bot does: the read
copy of the game made and thawed, the action previewed (from the copy's bytes), then applied; before a run, the
best run found by a read of the copy, then by the live game for `/run best` (which takes the copy's). Thread CPU milliseconds per call: the
median and the mean (the mean carries the cyclic collector's pauses, which grow with what the process holds),
the collector's share per call and the full collections the calls set off.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = Path(os.environ.get("BENCH_CODE", ROOT))  # another checkout's code, to compare (its tests' fake Discord too)
sys.path.insert(0, str(CODE))
sys.path.insert(0, str(CODE / "tests"))

from fakediscord.recorded import flatten  # noqa: E402

from bot.session import Engine  # noqa: E402

FIXTURES = [ROOT / "tests" / "fixtures" / "1817" / "15528.json", ROOT / "tests" / "fixtures" / "1830" / "26855.json"]


class Collector:
    """Thread CPU spent in the cyclic collector, and its full collections, as they happen."""

    def __init__(self) -> None:
        self.spent, self.full, self._start = 0.0, 0, 0.0
        gc.callbacks.append(self._seen)

    def _seen(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.thread_time()
        else:
            self.spent += time.thread_time() - self._start
            self.full += info["generation"] == 2


COLLECTOR = Collector()


def timed(costs: dict[str, list[tuple[float, float, int]]], name: str, work, *args):
    start, spent, full = time.thread_time(), COLLECTOR.spent, COLLECTOR.full
    out = work(*args)
    costs.setdefault(name, []).append(((time.thread_time() - start) * 1000, (COLLECTOR.spent - spent) * 1000,
                                       COLLECTOR.full - full))
    return out


def live_legal(session, copy) -> list[dict]:
    """The live game's legal actions, taking those its read copy found where the code does."""
    if hasattr(session, "take_legal"):
        session.take_legal(copy)
    return session.legal()


def preview(session, action: dict, names: dict, frozen: bytes):
    """The preview, from the read copy's bytes where the code takes them."""
    if "frozen" in inspect.signature(session.confirmation).parameters:
        return session.confirmation(action, names, frozen)
    return session.confirmation(action, names)


def bench(path: Path, fractions: list[float], window: int) -> None:
    engine = Engine()
    log = json.loads(path.read_text())
    exported = engine.load(log).export()
    played = [a for _, a in flatten(engine.load(log).game.actions)]
    names = {p["id"]: p["name"] for p in exported["players"]}
    costs: dict[str, list[float]] = {}
    for fraction in fractions:
        at = int(len(exported["actions"]) * fraction)
        session = engine.replay(exported["title"], exported["players"], exported["settings"].get("seed"),
                                {"optional_rules": exported["settings"].get("optional_rules") or []},
                                exported["actions"][:at])
        done = len(session.game.actions)
        for action in played[done:done + window]:
            frozen = timed(costs, "frozen", session.frozen)
            thawed = timed(costs, "thawed", session.thawed, frozen)
            if action.get("type") == "run_routes":  # the best run: found by a read of the copy, then for `/run`
                timed(costs, "legal (copy)", thawed.legal)
                timed(costs, "legal (live)", live_legal, session, thawed)
            timed(costs, "confirmation", preview, session, dict(action), names, frozen)
            timed(costs, "apply", session.apply, dict(action))
    print(f"{path.parent.name}/{path.name}: states {fractions}, {window} actions each")
    for name, calls in costs.items():
        xs = [ms for ms, _, _ in calls]
        print(f"  {name:13s} calls {len(xs):4d}  median {statistics.median(xs):6.1f} ms  mean {statistics.mean(xs):6.1f} ms"
              f"  max {max(xs):6.1f} ms  collector {sum(c for _, c, _ in calls) / len(calls):5.1f} ms/call,"
              f" {sum(f for _, _, f in calls)} full")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="*", type=Path, default=FIXTURES)
    parser.add_argument("--at", nargs="+", type=float, default=[0.25, 0.5, 0.75, 0.95])
    parser.add_argument("--window", type=int, default=20)
    args = parser.parse_args()
    print(f"{platform.machine()}, {os.cpu_count()} cores, CPython {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.2f}")
    for path in args.logs:
        bench(path, args.at, args.window)


if __name__ == "__main__":
    main()
