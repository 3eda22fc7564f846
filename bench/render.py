"""Median drawing time of the map, stock market and companies pictures of a late 1830 state.

    .venv/bin/python bench/render.py [--repeat N]

Goal on the 2-core CI machine: map < 150 ms (warm, < 50 ms), market and companies < 50 ms each. The state comes from the
engine's replay of tests/fixtures/1830/26855.json (the trace file beside it if the engine fails). "first"
includes the per-title caches (starting map, market grid, fonts); "map cold" empties the per-hex picture
cache before each drawing (every changed hex repainted, as after a restart).
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
from render.mapview import view_from_trace  # noqa: E402

GAME = ROOT / "tests" / "fixtures" / "1830" / "26855.json"
TRACE = ROOT / "tests" / "fixtures" / "1830" / "26855.trace.jsonl"


def _state(at: int):
    try:
        from engine.titles import load_18xx
        game = load_18xx(json.loads(GAME.read_text()), upto=at)
        summary = game.summary()
        view = game.map_view() if hasattr(game, "map_view") else game.hexmap.view()
        return view, summary, "engine"
    except Exception as e:  # noqa: BLE001 - the bench must still run on a broken engine
        print(f"engine replay failed ({e}); using the trace", file=sys.stderr)
    lines = [json.loads(s) for s in TRACE.read_text().splitlines() if s.strip()]
    lines = [ln for ln in lines if (ln["id"] if ln.get("id") is not None else ln.get("auto_of", 0)) <= at]
    return view_from_trace("1830", lines), lines[-1], "trace"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--at", type=int, default=400)
    args = ap.parse_args()
    view, summary, source = _state(args.at)
    print(f"1830 state after action {args.at} ({source})")

    def map_cold():
        mapdraw._hex_picture.cache_clear()
        return render.draw_map(view)

    jobs = {
        "map": lambda: render.draw_map(view),
        "map cold": map_cold,
        "market": lambda: render.draw_market("1830", summary),
        "companies": lambda: render.draw_companies("1830", summary),
    }
    for name, job in jobs.items():
        t0 = time.perf_counter()
        size = len(job())
        first = time.perf_counter() - t0
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            job()
            times.append(time.perf_counter() - t0)
        print(f"{name:10s} median {statistics.median(times) * 1000:7.1f} ms   first {first * 1000:7.1f} ms"
              f"   {size / 1024:6.0f} KiB")


if __name__ == "__main__":
    main()
