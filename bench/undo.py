"""Resolving undo and redo in big logs, and loading them; undo in a live late game.

    python bench/undo.py [--sizes 1 8.6 90]

Big logs are made from the 26855 fixture: before each of its actions comes a burst of actions that are then
taken back (undo to the last kept id, single undos, redos, undos again) and chat, until the log has the size
asked for. Its undo resolution keeps exactly the fixture's actions and the chat, so loading it ends in the
fixture's result. CPU seconds; memory is the peak traced while loading.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.core.actions import resolve_undo  # noqa: E402
from engine.titles import load_18xx  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "1830" / "26855.json"


def big_log(megabytes: float, seed: int = 1) -> dict:
    """The fixture with undone bursts and chat added until its JSON is about `megabytes` long."""
    log = json.loads(FIXTURE.read_text())
    kept = resolve_undo(log["actions"])
    rng = random.Random(seed)
    per_action = max(0, int(megabytes * 1e6 / len(json.dumps(kept[0])) / len(kept)) - 1)
    out: list[dict] = []
    next_id = 1
    last_kept = 0

    def add(action: dict) -> int:
        nonlocal next_id
        out.append({**action, "id": next_id})
        next_id += 1
        return next_id - 1

    for action in kept:
        budget = per_action
        while budget > 0:
            burst = rng.randint(1, 6)
            for _ in range(burst):
                add(action)
            shape = rng.random()
            if shape < 0.5:
                add({"type": "undo", "entity": action["entity"], "entity_type": action.get("entity_type", "player"),
                     "action_id": last_kept})
            else:  # one by one, with chat and a redo and its undo in between
                for _ in range(burst):
                    add({"type": "undo", "entity": action["entity"]})
                add({"type": "message", "entity": action["entity"], "message": "oops"})
                add({"type": "redo", "entity": action["entity"]})
                add({"type": "undo", "entity": action["entity"], "action_id": last_kept})
            budget -= burst + 3
        last_kept = add(action)
    return {**log, "actions": out}


def cpu(fn):
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 8.6, 90], help="log sizes in MB")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}; "
          "CPU seconds")
    fixture = json.loads(FIXTURE.read_text())
    for size in args.sizes:
        log = big_log(size)
        text = json.dumps(log)
        parse_s, log = cpu(lambda t=text: json.loads(t))
        resolve_s, kept = cpu(lambda lg=log: resolve_undo(lg["actions"]))
        load_s, game = cpu(lambda lg=log: load_18xx(lg))
        assert game.result() == fixture["result"]
        tracemalloc.start()
        load_18xx(log)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"{len(text) / 1e6:6.1f} MB, {len(log['actions']):7} actions ({len(kept)} kept, chat included): "
              f"json {parse_s:.2f} s, "
              f"undo resolution {resolve_s:.3f} s, load (resolution + replay) {load_s:.2f} s, "
              f"peak memory while loading {peak / 1e6:.0f} MB")
    # undo in a live late game: loaded up to action 480 of 502, ten actions played live, then undone one by one
    kept = resolve_undo(fixture["actions"])
    times: list[list[float]] = []
    for _ in range(5):
        game = load_18xx({**fixture, "actions": kept[:480]})
        for action in kept[480:490]:
            game.apply({k: v for k, v in action.items() if k != "auto_actions"})
        times.append([cpu(game.undo)[0] * 1000 for _ in range(10)])
    first = statistics.median(t[0] for t in times)
    rest = statistics.median(x for t in times for x in t[1:])
    print(f"undo in a live game (late 1830, ten actions played since loading): the first {first:.2f} ms, "
          f"each next one {rest:.2f} ms (medians)")

if __name__ == "__main__":
    main()
