"""python -m render GAME.json --at N --what map|market|companies|chart|players --out FILE.png

Draws the state after action N (default: the last) of an 18xx.games game log, replayed by the engine
(engine.titles.load_18xx), with the engine's facts (minors, reserved and 5% certificates, obsolete trains) on
the companies and market pictures. Titles without an engine yet are drawn from the per-action trace beside
the log (GAME.trace.jsonl). A map drawn right after a run_routes action shows that run.
`chart`: each player's value and each share price at every stock round up to N (render/chart.py).
Steam logs (title "steam") have two pictures: map and players.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import draw_companies, draw_map, draw_market
from .mapview import view_from_trace


def _engine_titles() -> set[str]:
    try:
        from engine.titles import TITLES
    except ImportError:
        return set()
    return set(TITLES)


def _with_names(summary: dict, game: dict) -> dict:
    names = {p["id"]: p.get("name") for p in game.get("players", [])}
    return {**summary, "players": [{**p, "name": p.get("name") or names.get(p["id"])}
                                   for p in summary.get("players", [])]}


def _last_action(game: dict, at: int | None) -> dict | None:
    actions = [a for a in game.get("actions", []) if at is None or a.get("id", 0) <= at]
    return actions[-1] if actions else None


def from_engine(game: dict, at: int | None):
    """(map view, summary, (routes, caption) of the last action if it ran trains, facts) from the engine's replay."""
    from engine.titles import load_18xx
    g = load_18xx(game, upto=at)
    summary = _with_names(g.summary(), game)
    view = g.map_view() if hasattr(g, "map_view") else g.hexmap.view()
    routes = caption = None
    last = _last_action(game, at)
    if last and last.get("type") == "run_routes" and g.last_routes.get(last.get("entity")):
        routes = g.last_routes[last["entity"]]
        caption = f"{last['entity']} ran ${sum(r[1] for r in routes)}:"
    return view, summary, (routes, caption), g.facts()


def from_trace(path: Path, game: dict, at: int | None):
    trace = path.with_name(path.name.removesuffix(".json") + ".trace.jsonl")
    if not trace.exists():
        raise SystemExit(f"{game.get('title')} has no engine yet and there is no trace file {trace}")
    lines = [json.loads(s) for s in trace.read_text().splitlines() if s.strip()]
    if at is not None:
        lines = [ln for ln in lines if (ln.get("id") if ln.get("id") is not None else ln.get("auto_of", 0)) <= at]
    return view_from_trace(game["title"], lines), _with_names(dict(lines[-1]), game), (None, None), None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m render", description=__doc__.splitlines()[0])
    ap.add_argument("game", type=Path)
    ap.add_argument("--at", type=int, default=None, help="action id (default: end of the game)")
    ap.add_argument("--what", choices=("map", "market", "companies", "chart", "players"), default="map")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    game = json.loads(args.game.read_text())
    title = str(game["title"])
    if title.lower() == "steam":
        from .steam import picture_of_log
        try:
            png = picture_of_log(game, args.at, args.what)
        except Exception as e:  # noqa: BLE001 - report the engine's refusal or a picture Steam lacks
            print(f"cannot draw the {args.what} of {args.game}: {e}", file=sys.stderr)
            return 1
        args.out.write_bytes(png)
        print(f"wrote {args.out} ({len(png)} bytes)", file=sys.stderr)
        return 0
    if args.what == "chart":
        if title not in _engine_titles():
            print(f"a chart needs the engine of {title}, which is not there yet", file=sys.stderr)
            return 1
        from .chart import draw_chart, value_history
        png = draw_chart(title, value_history(game, args.at))
        args.out.write_bytes(png)
        print(f"wrote {args.out} ({len(png)} bytes)", file=sys.stderr)
        return 0
    if title in _engine_titles():
        try:
            view, summary, routes, facts = from_engine(game, args.at)
        except Exception as e:  # noqa: BLE001 - report the engine's refusal, don't draw a stale state
            print(f"engine replay of {args.game} failed: {e}", file=sys.stderr)
            return 1
    else:
        view, summary, routes, facts = from_trace(args.game, game, args.at)
    if args.what == "map":
        png = draw_map(view, routes=routes[0], caption=routes[1])
    elif args.what == "market":
        png = draw_market(title, summary, facts)
    else:
        png = draw_companies(title, summary, facts)
    args.out.write_bytes(png)
    print(f"wrote {args.out} ({len(png)} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
