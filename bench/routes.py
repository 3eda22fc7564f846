"""Time of the route finder (engine.core.autoroute.best_routes) at every run_routes state of the fixtures.

    .venv/bin/python bench/routes.py [--repeat N] [--title 1830|18MEX|1860|1817]

Each state is timed N times; reported per title: the median over states of the per-state median, the
worst per-state median, and the worst single call, in wall-clock time and in CPU time (the process's own,
which a busy machine inflates less); and the 90th and 99th percentiles over states of the per-state CPU
median (the tail: a title's few slow states); and the same four figures of the first call at each state (`first_cpu_*`:
the states are replayed in order, so what a call keeps for the next -- the map's walks -- is as a game leaves
it, not as the same state's calls before left it). Goals: 1830 and 18MEX median < 5 ms, worst < 150 ms; 1860 median
< 20 ms, worst < 1 s.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from engine.core.actions import parse_action  # noqa: E402
from engine.core.autoroute import best_routes  # noqa: E402
from engine.core.errors import GameError  # noqa: E402
from engine.routes import new_game, run_states  # noqa: E402
from engine.titles import TITLES  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--title", action="append", help="fixture folder(s) under tests/fixtures (default: every title's)")
    args = ap.parse_args()
    titles = args.title or sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name in TITLES)
    for title in titles:
        measure(title, sorted((FIXTURES / title).glob("*.json")), args.repeat)


def measure(title: str, paths: list[Path], repeat: int) -> None:
    medians: list[float] = []
    cpu_medians: list[float] = []
    first_cpu: list[float] = []
    worst_call = 0.0
    worst_state = None
    for path in paths:
        name = path.stem
        log = json.loads(path.read_text())
        try:
            new_game(log)
        except GameError as e:  # a fixture of an expansion not built yet (1817's Volatility)
            print(f"{name}: skipped ({e})", file=sys.stderr)
            continue
        for game, action in run_states(log):
            corp = game.entity(parse_action(action))
            times, cpu = [], []
            for _ in range(max(1, repeat)):
                t0, c0 = time.perf_counter(), time.process_time()
                best_routes(game, corp)
                times.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
            med = statistics.median(times)
            medians.append(med)
            cpu_medians.append(statistics.median(cpu))
            first_cpu.append(cpu[0])
            worst_call = max(worst_call, max(times))
            if worst_state is None or med > worst_state[0]:
                worst_state = (med, name, action.get("id"), corp.sym)
    gc.collect()
    if not medians:
        return
    print(json.dumps({"title": title, "states": len(medians), "median_ms": round(statistics.median(medians), 2),
                      "worst_ms": round(max(medians), 2), "worst_single_call_ms": round(worst_call, 2),
                      **spread("cpu", cpu_medians), **spread("first_cpu", first_cpu),
                      "worst_state": {"game": worst_state[1], "id": worst_state[2], "corporation": worst_state[3]}}))


def spread(name: str, times: list[float]) -> dict[str, float]:
    """The median, 90th and 99th percentiles and the worst of `times` (ms), named name_median_ms etc."""
    centiles = statistics.quantiles(times, n=100, method="inclusive") if len(times) > 1 else times * 99
    return {f"{name}_median_ms": round(statistics.median(times), 2), f"{name}_p90_ms": round(centiles[89], 2),
            f"{name}_p99_ms": round(centiles[98], 2), f"{name}_worst_ms": round(max(times), 2)}


if __name__ == "__main__":
    main()
