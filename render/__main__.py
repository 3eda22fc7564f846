"""python -m render GAME.json --at N --what map|market|companies --out FILE.png

Draws the state after action N (default: the last) of an 18xx.games game log. Uses the engine's replay
when available; otherwise falls back to the per-action trace beside the log (GAME.trace.jsonl).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import draw_companies, draw_map, draw_market
from .mapview import view_from_trace


def _from_engine(game: dict, at: int | None):
    try:
        from engine.titles import load_18xx  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        g = load_18xx(game, upto=at)
        return g.hexmap.view(), g.summary()
    except Exception as e:  # the engine is young: draw from the trace rather than nothing
        print(f"engine replay failed ({e}); using the trace file", file=sys.stderr)
        return None


def _from_trace(path: Path, game: dict, at: int | None):
    trace = path.with_name(path.name.removesuffix(".json") + ".trace.jsonl")
    if not trace.exists():
        raise SystemExit(f"no engine replay and no trace file {trace}")
    lines = [json.loads(s) for s in trace.read_text().splitlines() if s.strip()]
    if at is not None:
        lines = [ln for ln in lines if (ln.get("id") if ln.get("id") is not None else ln.get("auto_of", 0)) <= at]
    summary = dict(lines[-1])
    names = {p["id"]: p.get("name") for p in game.get("players", [])}
    summary["players"] = [{**p, "name": names.get(p["id"])} for p in summary.get("players", [])]
    return view_from_trace(game["title"], lines), summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m render", description=__doc__.splitlines()[0])
    ap.add_argument("game", type=Path)
    ap.add_argument("--at", type=int, default=None, help="action id (default: end of the game)")
    ap.add_argument("--what", choices=("map", "market", "companies"), default="map")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    game = json.loads(args.game.read_text())
    state = _from_engine(game, args.at) or _from_trace(args.game, game, args.at)
    view, summary = state
    title = game["title"]
    if args.what == "map":
        png = draw_map(view)
    elif args.what == "market":
        png = draw_market(title, summary)
    else:
        png = draw_companies(title, summary)
    args.out.write_bytes(png)
    print(f"wrote {args.out} ({len(png)} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
