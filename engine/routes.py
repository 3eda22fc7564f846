"""Best routes over a game log.

    python -m engine.routes GAME.json --check

Replays the log; before every run_routes action computes the best run of the acting corporation
(engine.core.autoroute.best_routes) and prints one JSON line per run:
{"id", "corporation", "recorded" (revenue the players ran), "best", "ms"}, and "refused" (why) when the
engine refuses the players' run entered as a player enters it, without stated revenues: a log may hold a run
that 18xx.games took as logged, with its revenues stated, and refuses when it works the revenue out (two
routes sharing a tile's track between two stops); the finder owes no such run. Then a summary line (runs,
better = runs where best > recorded, worse = best < recorded of a run not refused, refused, median_ms,
worst_ms). With --check, the best routes are also fed to the engine's route check (they must pass and
reproduce their revenue) and the exit status is 1 if any run is worse or any check fails.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from engine.core.actions import parse_action, resolve_undo
from engine.core.autoroute import best_routes, check_routes
from engine.core.errors import GameError
from engine.titles import rules_class


def new_game(log: dict):
    return rules_class(str(log.get("title"))).from_18xx({**log, "actions": []})


def run_states(log: dict):
    """Replay `log`; yield (game, action) just before each run_routes action is applied."""
    game = new_game(log)
    with game.loading():
        for action in resolve_undo(log["actions"]):
            if game.finished:
                break
            if action.get("type") == "run_routes":
                yield game, action
            try:
                game.apply(action)
            except GameError as e:
                raise GameError("action {id} ({type}): {reason}", id=action.get('id'),
                                type=action.get('type'), reason=e) from None


def _as_typed(routes: list[dict]) -> list[dict]:
    """The routes without their stated revenues and subsidies."""
    return [{k: v for k, v in r.items() if k not in ("revenue", "subsidy")} for r in routes]


def recorded_revenue(game, corp, action: dict) -> int:
    """What the players' run earned: revenue and (1860) halt subsidies."""
    routes = action.get("routes") or []
    stored = [r.get("revenue") for r in routes]
    if routes and all(v is not None for v in stored):
        return sum(stored) + sum(r.get("subsidy") or 0 for r in routes)
    return sum(revenue + subsidy for revenue, subsidy in game.run_results(corp, _as_typed(routes)))


def refused_as_typed(game, corp, action: dict) -> str | None:
    """Why the engine refuses the players' run entered without its stated revenues (None: it doesn't)."""
    routes = action.get("routes") or []
    if not routes or all(r.get("revenue") is None for r in routes):
        return None
    try:
        game.run_results(corp, _as_typed(routes))
    except GameError as e:
        return str(e)
    return None


def earned(routes: list[dict]) -> int:
    return sum(r["revenue"] + (r.get("subsidy") or 0) for r in routes)


def analyse(log: dict, check: bool = False, out=None):
    """One result dict per run_routes action of the log."""
    results = []
    for game, action in run_states(log):
        corp = game.entity(parse_action(action))
        t0 = time.perf_counter()
        best = best_routes(game, corp)
        ms = (time.perf_counter() - t0) * 1000
        total = earned(best)
        res = {"id": action.get("id"), "corporation": corp.sym,
               "recorded": recorded_revenue(game, corp, action), "best": total, "ms": round(ms, 2)}
        refused = refused_as_typed(game, corp, action)
        if refused:
            res["refused"] = refused
        if check and best:
            try:
                got = check_routes(game, corp, best)
                if got != [r["revenue"] for r in best]:
                    res["error"] = f"engine revenues {got} != {[r['revenue'] for r in best]}"
                if earned(best) < res["recorded"] and not refused:
                    res["below"] = True
            except GameError as e:
                res["error"] = str(e)
        if out is not None:
            print(json.dumps(res), file=out, flush=True)
        results.append(res)
    return results


def summary(results: list[dict]) -> dict:
    ms = [r["ms"] for r in results]
    return {"runs": len(results),
            "better": sum(1 for r in results if r["best"] > r["recorded"]),
            "worse": sum(1 for r in results if r["best"] < r["recorded"] and "refused" not in r),
            "refused": sum(1 for r in results if "refused" in r),
            "errors": sum(1 for r in results if "error" in r),
            "median_ms": round(statistics.median(ms), 2) if ms else 0,
            "worst_ms": round(max(ms), 2) if ms else 0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.routes", description=__doc__.splitlines()[0])
    parser.add_argument("game", help="18xx.games game log (JSON)")
    parser.add_argument("--check", action="store_true",
                        help="also run the engine's check on the best routes; exit 1 on best < recorded")
    args = parser.parse_args(argv)
    with open(args.game, encoding="utf-8") as f:
        log = json.load(f)
    results = analyse(log, check=args.check, out=sys.stdout)
    s = summary(results)
    print(json.dumps(s))
    if s["worse"] or s["errors"]:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
