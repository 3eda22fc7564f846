"""Self-play figures for Steam: per map, mode and player count, how many games reach final scoring, how many
with everyone still in, how many see a bankruptcy, and the time per game.

    .venv/bin/python bench/steam_selfplay.py [--games N] [--seed S]

Games are those of `python -m engine.selfplay steam` (engine.steam.selfplay.run) with the same seeds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from engine.steam.board import load_board, map_names  # noqa: E402
from engine.steam.selfplay import run  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    total = {"games": 0, "scored": 0, "bankrupt": 0, "seconds": 0.0, "failures": 0}
    print(f"{'map':24s} {'mode':9s} {'players':>7s} {'games':>5s} {'final':>6s} {'all in':>6s} "
          f"{'bankr.':>6s} {'s/game':>6s}")
    for name in map_names():
        board = load_board(name)
        for mode in ("basic", "standard"):
            for n in range(board.min_players, board.max_players + 1):
                out = run(name, mode, n, args.games, args.seed)
                print(f"{name:24s} {mode:9s} {n:7d} {out['games']:5d} {out['scored']:6d} "
                      f"{out['games'] - out['bankrupt'] - len(out['failures']):6d} {out['bankrupt']:6d} "
                      f"{out['seconds'] / out['games']:6.2f}", flush=True)
                for key in ("games", "scored", "bankrupt", "seconds"):
                    total[key] += out[key]
                total["failures"] += len(out["failures"])
    g = total["games"]
    print(f"all: {g} games, {total['scored'] / g:.0%} reach final scoring, "
          f"{(g - total['bankrupt'] - total['failures']) / g:.0%} with everyone in, "
          f"{total['bankrupt'] / g:.0%} with a bankruptcy, {total['failures']} failures, "
          f"{total['seconds'] / g:.2f} s a game")


if __name__ == "__main__":
    main()
