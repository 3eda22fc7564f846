"""Time replaying each 1830 fixture through our rules: median of --repeat runs, as engine.replay measures it.

    python bench/replay.py [--repeat 5]
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
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}")
    for path in sorted((ROOT / "tests" / "fixtures" / "1830").glob("*.json")):
        log = json.loads(path.read_text())
        replay(log)  # warm caches and imports
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            game, applied = replay(log)
            times.append(time.perf_counter() - start)
        print(f"{path.stem}: {applied} actions, median {statistics.median(times) * 1000:.1f} ms "
              f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})")


if __name__ == "__main__":
    main()
