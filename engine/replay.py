"""Replay an 18xx.games game log through our rules.

    python -m engine.replay GAME.json [--trace OUT.jsonl] [--repeat K]

Steam logs (title "steam", written by `python -m engine.selfplay steam ... --export DIR`) replay the same way.

The last line printed is one JSON object: result, game_end_reason, actions_applied and seconds (the
median time of the replay itself over --repeat runs). Exit status 0 when the whole log applied.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from engine.core.actions import WORDS_ONLY, parse_action, quoted, resolve_undo
from engine.core.errors import GameError
from engine.core.game import actions_of
from engine.titles import rules_class


def replay(log: dict, trace: list | None = None):
    """Apply every kept action of the log; with `trace`, append one state line per applied action."""
    if str(log.get("title")).lower() == "steam":
        from engine.steam.game import replay_log
        return replay_log(log, trace)
    game = rules_class(str(log.get("title"))).from_18xx({**log, "actions": []})
    if trace is not None:
        trace.append({"seq": 0, "id": 0, "type": "_setup", **game.summary()})
    applied = 0
    with game.loading():
        for index, action in enumerate(resolve_undo(actions_of(log))):
            try:
                if trace is None:
                    game.apply(action)
                else:
                    _apply_traced(game, action, index, trace)
            except GameError as e:
                raise GameError("action {id} ({type}): {reason}", id=quoted(action.get('id')),
                                type=quoted(action.get('type')), reason=e) from None
            applied += 1
    return game, applied


def _apply_traced(game, action: dict, index: int, trace: list) -> None:
    """Apply an action and its auto actions one by one, writing a trace line after each."""
    parent = dict(action)
    autos = parent.pop("auto_actions", None) or []
    game.apply(parent)
    if action.get("type") not in WORDS_ONLY:
        trace.append(_line(game, parent, len(trace), parent.get("id")))
    game.programs.acting = True  # as apply() makes them: the programs' own actions, not their players'
    try:
        for auto in autos:
            game._process(parse_action(auto))
            trace.append(_line(game, auto, len(trace), None, auto_of=parent.get("id")))
    finally:
        game.programs.acting = False
    game.actions[-1] = action


def _line(game, action: dict, seq: int, action_id, auto_of=None) -> dict:
    line = {"seq": seq, "id": action_id, "type": action.get("type"), "entity": action.get("entity"),
            "entity_type": action.get("entity_type")}
    if auto_of is not None:
        line["auto_of"] = auto_of
    line.update(game.summary())
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.replay", description=__doc__.splitlines()[0])
    parser.add_argument("game", help="18xx.games game log (JSON)")
    parser.add_argument("--trace", help="write one state line per applied action to this JSONL file")
    parser.add_argument("--repeat", type=int, default=1, help="replay K times and report the median time")
    args = parser.parse_args(argv)
    with open(args.game, encoding="utf-8") as f:
        log = json.load(f)
    times = []
    game = applied = trace = None
    try:
        for i in range(max(1, args.repeat)):
            trace = [] if (args.trace and i == 0) else None
            start = time.perf_counter()
            game, applied = replay(log, trace)
            times.append(time.perf_counter() - start)
            if trace is not None:
                with open(args.trace, "w", encoding="utf-8") as out:
                    for line in trace:
                        out.write(json.dumps(line) + "\n")
    except GameError as e:
        if args.trace and trace:
            with open(args.trace, "w", encoding="utf-8") as out:
                for line in trace:
                    out.write(json.dumps(line) + "\n")
        print(f"error: {e}")
        return 1
    print(json.dumps({"result": game.result(), "game_end_reason": game.end_reason, "actions_applied": applied,
                      "seconds": round(statistics.median(times), 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
