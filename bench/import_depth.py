"""Reading an imported file: `Service.parse_log` (JSON, the depth check, the log's shape) on files made to cost,
each within the import's 12 MB, against a real long log. Per shape: the whole reading and the depth check
alone (`brackets_of`, `nested_deeper_than`), thread CPU, best of --repeat.

    .venv/bin/python bench/import_depth.py [--repeat 3] [--root DIR]   (--root: another checkout's code)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def compact(value) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def shapes(fixture: dict) -> dict[str, bytes]:
    head = {"title": "1830", "players": [{"id": 1, "name": "A"}, {"id": 2, "name": "B"}]}
    deep = json.loads("[" * 18 + "1" + "]" * 18)  # 19 deep inside the log's actions: within the limit
    return {"1817 15528 x13 (real actions)": compact({**fixture, "actions": fixture["actions"] * 13}),
            "4M empty objects": compact({**head, "actions": [{}] * 4_000_000}),
            "4M empty lists": compact({**head, "actions": [[]] * 4_000_000}),
            "300k lists 19 deep": compact({**head, "actions": [deep] * 300_000}),
            "4M empty strings": compact({**head, "actions": [""] * 4_000_000}),
            "3M strings '['": compact({**head, "actions": ["["] * 3_000_000}),
            "1.5M strings '\\\"['": compact({**head, "actions": ['\\"['] * 1_500_000})}


def best(repeat: int, call) -> float:
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        try:
            call()
        except Exception:  # a refusal (the shapes above are no game log): the reading is what is timed
            pass
        times.append(time.thread_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    sys.path.insert(0, str(args.root))
    import bot.service
    from bot.service import Service, nested_deeper_than
    from bot.session import Engine

    service = Service.__new__(Service)  # parse_log reads nothing of the service but its engine's titles
    service.engine = Engine()
    fixture = json.loads((ROOT / "tests" / "fixtures" / "1817" / "15528.json").read_text())
    for name, data in shapes(fixture).items():
        whole = best(args.repeat, lambda: service.parse_log(data))  # noqa: B023
        read = json.loads(data)
        if hasattr(bot.service, "brackets_of"):
            check = best(args.repeat, lambda: nested_deeper_than(bot.service.brackets_of(data), 20))  # noqa: B023
        else:  # older code walked the value read
            check = best(args.repeat, lambda: nested_deeper_than(read, 20))  # noqa: B023
        print(f"{name:32} {len(data) / 2**20:5.1f} MB  parse_log {whole:6.3f} s  depth check {check:6.3f} s",
              flush=True)


if __name__ == "__main__":
    main()
