"""Median drawing time of the Steam board and players pictures.

    .venv/bin/python bench/render_steam.py [--repeat N]

The states come from the logs in tests/fixtures/steam/ (a mid-game Rust Belt board, a finished Eastern US &
Canada one). "first" includes the per-map caches (terrain picture, hex pictures); "board cold" empties the
per-hex picture cache before each drawing (every hex with pieces repainted, as after a restart); "board"
is the usual case in a game, where only the hexes changed by the last action are new.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

# this file sits beside a package-like folder name: import the packages from the repository root
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from engine.steam import Game  # noqa: E402
from render.steam import board, draw_board, draw_players  # noqa: E402

STATES = [("rust_belt_basic_4p", 150), ("eastern_standard_5p", None)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    for name, at in STATES:
        log = json.loads((ROOT / "tests" / "fixtures" / "steam" / f"{name}.json").read_text())
        g = Game.from_18xx(log, upto=at)
        view, summary = g.view(), g.summary()
        print(f"{name} after action {len(g.actions)} ({len(view['track'])} hexes with track)")

        def cold(view=view):
            board._hex_picture.cache_clear()
            return draw_board(view)

        jobs = {"board": lambda view=view: draw_board(view), "board cold": cold,
                "players": lambda summary=summary: draw_players(summary)}
        for label, job in jobs.items():
            t0 = time.perf_counter()
            size = len(job())
            first = time.perf_counter() - t0
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                job()
                times.append(time.perf_counter() - t0)
            print(f"  {label:10s} median {statistics.median(times) * 1000:7.1f} ms   first {first * 1000:7.1f} ms"
                  f"   {size / 1024:6.0f} KiB")


if __name__ == "__main__":
    main()
