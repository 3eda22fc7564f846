"""What a refused action costs on a late game, next to what an accepted one costs.

    python bench/refusal.py [--repeat 30]

Each 1830 fixture is loaded up to late points of its log; from each point some of the following logged
actions are played live (as the bot plays them), then illegal actions are refused: the first refusal after
those live actions, and the same refusal again. CPU time, medians over the points and repeats.
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

from engine.core.actions import resolve_undo  # noqa: E402
from engine.core.errors import GameError  # noqa: E402
from engine.titles import load_18xx  # noqa: E402


def illegal_actions(game) -> dict[str, dict]:
    """Refused actions of several kinds for the entity to act now: refused when read, refused before any
    step takes them, and legal actions with one number or id made wrong, which a step refuses."""
    acting = game.acting_entity()
    other_player = next(p.id for p in game.players if p.id not in game.active_players())
    out = {
        "malformed": {**acting, "type": "buy_train", "train": 5, "price": "a lot"},
        "out of turn": {"type": "pass", "entity": other_player, "entity_type": "player"},
    }
    for legal in game.legal_actions():
        for field, wrong in (("price", 10**6), ("rotation", 9), ("share_price", "1,1,1"), ("city", "57-9-0"),
                             ("shares", ["PRR_99"]), ("kind", "keep")):
            if field in legal:
                out["refused by its step"] = {**legal, field: wrong}
                return out
    return out


def cpu_ms(fn) -> float:
    start = time.process_time()
    fn()
    return (time.process_time() - start) * 1000


def refuse(game, action) -> None:
    try:
        game.apply(action)
    except GameError:
        return
    raise AssertionError(f"accepted: {action}")


def bench_fixture(path: Path, points: int, live: int, repeat: int) -> dict[str, list[float]]:
    log = json.loads(path.read_text())
    actions = resolve_undo(log["actions"])
    out: dict[str, list[float]] = {"accepted": []}
    n = len(actions)
    for start in range(n - points * 4 - live, n - live, 4):  # late points, a few actions apart
        game = load_18xx({**log, "actions": actions[:start]})
        for action in actions[start:start + live]:  # live: programs play, as the log recorded
            live_action = {k: v for k, v in action.items() if k != "auto_actions"}
            out["accepted"].append(cpu_ms(lambda g=game, a=live_action: g.apply(a)))
        if game.finished:
            continue
        for kind, action in illegal_actions(game).items():
            before = game.summary()
            times = [cpu_ms(lambda g=game, a=action: refuse(g, a)) for _ in range(repeat)]
            assert game.summary() == before
            out.setdefault(f"{kind}: first", []).append(times[0])
            out.setdefault(f"{kind}: again", []).extend(times[1:])
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=10, help="late points of each log")
    parser.add_argument("--live", type=int, default=10, help="logged actions played live before refusing")
    parser.add_argument("--repeat", type=int, default=10, help="refusals of each kind at each point")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}; "
          "CPU ms, median (max)")
    for path in sorted((ROOT / "tests" / "fixtures" / "1830").glob("*.json")):
        results = bench_fixture(path, args.points, args.live, args.repeat)
        print(f"{path.stem}:")
        for kind, times in results.items():
            print(f"  {kind:<22} {statistics.median(times):7.3f} ({max(times):.3f})  n={len(times)}")


if __name__ == "__main__":
    main()
