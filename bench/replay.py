"""Time replaying each fixture through our rules: median of --repeat runs, as engine.replay measures it.

    python bench/replay.py [--repeat 5] [--title 1830|18MEX]

The reference: ruby ../shared/tools/ref18xx/replay.rb --repeat 5 tests/fixtures/<TITLE>/*.json (goal: ours under
half its time).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.replay import replay  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--title", action="append", help="fixture folder(s) under tests/fixtures (default: all)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}")
    folders = [ROOT / "tests" / "fixtures" / t for t in args.title] if args.title else \
        sorted(p for p in (ROOT / "tests" / "fixtures").iterdir() if p.is_dir())
    for path in sorted(p for folder in folders for p in folder.glob("*.json")):
        log = json.loads(path.read_text())
        replay(log)  # warm caches and imports
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            game, applied = replay(log)
            times.append(time.perf_counter() - start)
        print(f"{path.parent.name}/{path.stem}: {applied} actions, median {statistics.median(times) * 1000:.1f} ms "
              f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})")


if __name__ == "__main__":
    main()
