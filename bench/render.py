"""Drawing time of the map, stock market and companies pictures: median wall-clock and CPU per picture.

    .venv/bin/python bench/render.py [--repeat N] [--titles 1830 1817 ...]

Each title's state is the end of a recorded game (1830 26855 after action 400, the bench's state of old),
replayed by the engine. Goal on the 2-core CI machine: map < 150 ms (warm, < 50 ms), market and companies
< 50 ms each. "first" includes the per-title caches (starting map, market grid, fonts, texts); "map cold"
empties the per-hex picture cache before each drawing (every changed hex repainted, as after a restart).
CPU is the process's own (time.process_time): on a shared machine it moves less than the wall-clock.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

# this file is named like the package: import the package from the repository root, not this file
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

import render  # noqa: E402
from render import mapdraw  # noqa: E402

STATES = {"1830": ("1830/26855.json", 400), "1817": ("1817/15528.json", None),
          "1860": ("1860/1860_game_end_bank.json", None), "18MEX": ("18MEX/13315.json", None)}


def _state(title: str):
    from engine.titles import load_18xx

    fixture, at = STATES[title]
    game = load_18xx(json.loads((ROOT / "tests" / "fixtures" / fixture).read_text()), upto=at)
    return game.map_view(), game.summary(), game.facts()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--titles", nargs="*", default=list(STATES))
    args = ap.parse_args()
    for title in args.titles:
        view, summary, facts = _state(title)
        fixture, at = STATES[title]
        print(f"{title}: {fixture}" + (f" after action {at}" if at else " at its end"))

        def map_cold(view=view):
            mapdraw._hex_picture.cache_clear()
            return render.draw_map(view)

        jobs = {
            "map": lambda view=view: render.draw_map(view),
            "map cold": map_cold,
            "market": lambda title=title, summary=summary, facts=facts: render.draw_market(title, summary, facts),
            "companies": lambda title=title, summary=summary, facts=facts: render.draw_companies(title, summary, facts),
        }
        for name, job in jobs.items():
            t0 = time.perf_counter()
            size = len(job())
            first = time.perf_counter() - t0
            walls, cpus = [], []
            for _ in range(args.repeat):
                t0, c0 = time.perf_counter(), time.process_time()
                job()
                walls.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
            print(f"  {name:10s} median {statistics.median(walls) * 1000:7.1f} ms   CPU {statistics.median(cpus) * 1000:7.1f} ms"
                  f"   first {first * 1000:7.1f} ms   {size / 1024:6.0f} KiB")


if __name__ == "__main__":
    main()
