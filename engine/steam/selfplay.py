"""Self-play for Steam: seeded games played to the end, checking invariants after every action.

    python -m engine.steam.selfplay --map rust_belt --mode basic --players 4 --games 10 --seed 1 [--export DIR]

The agent (engine.steam.agent.choose) plays only legal actions and is deterministic for a given seed.  The
last line printed is JSON: {"games", "actions", "scored", "bankrupt", "delivered", "seconds", "failures"};
"scored" counts the games that played every round and reached final scoring with a player still in,
"bankrupt" the games in which somebody went bankrupt; each failure carries the game seed, the error and
the action log so the game can be replayed.  `--export DIR` writes each game's log as DIR/steam-SEED.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from pathlib import Path

from engine.core.errors import GameError
from engine.steam import tiles as T
from engine.steam.agent import choose
from engine.steam.board import BAG, CUBE_COLORS, MapError, load_board
from engine.steam.board import map_name as canonical_map_name
from engine.steam.game import CITY_STUB, Game, Settings

MAX_ACTIONS = 5000


class InvariantError(AssertionError):
    pass


def check_invariants(g: Game) -> None:
    s = g.s
    counts = dict.fromkeys(CUBE_COLORS, 0)
    for c, n in s.bag.items():
        if n < 0:
            raise InvariantError(f"bag has {n} {c} cubes")
        counts[c] += n
    for cubes in list(s.city_cubes.values()) + list(s.reserve):
        for c in cubes:
            counts[c] += 1
    if counts != BAG:
        raise InvariantError(f"cubes not conserved: {counts} != {BAG}")
    used: dict[str, int] = {}
    for t in s.track.values():
        if t.face != CITY_STUB:
            used[t.face] = used.get(t.face, 0) + 1
    if {f: n for f, n in used.items() if n} != {f: n for f, n in s.used_faces.items() if n}:
        raise InvariantError(f"tile accounting differs: board {used} vs {s.used_faces}")
    if not T.feasible(used):
        raise InvariantError(f"more track tiles on the board than the supply holds: {used}")
    for p in s.players:
        if p.bankrupt:
            continue
        if p.income < -10:
            raise InvariantError(f"{p.name} income {p.income} below -10")
        if not 1 <= p.loco <= 6:
            raise InvariantError(f"{p.name} locomotive {p.loco}")
        if p.cash < 0:
            raise InvariantError(f"{p.name} cash {p.cash}")
        if p.vp < 0 and not s.finished:
            raise InvariantError(f"{p.name} VP {p.vp}")
    active = sorted(q for q, p in enumerate(s.players) if not p.bankrupt)
    if s.phase not in ("setup_auction", "done") and sorted(s.order) != active:
        raise InvariantError(f"turn order {s.order} is not the players in the game {active}")
    if sum(s.new_city_supply.values()) + len(s.new_cities) != 8:
        raise InvariantError("New City tiles not conserved")


def play_one(settings: Settings, rng: random.Random) -> tuple[Game, int]:
    g = Game(settings)
    check_invariants(g)
    n = 0
    while not g.finished:
        if n >= MAX_ACTIONS:
            raise InvariantError(f"game did not end within {MAX_ACTIONS} actions")
        action = choose(g, rng)
        g.apply(action)
        n += 1
        check_invariants(g)
    if g.result() is None:
        raise InvariantError("finished game has no result")
    return g, n


def run(map_name: str, mode: str, players: int, games: int, seed: int, turn_order: str = "auction",
        export: Path | None = None) -> dict:
    """Play `games` seeded games; with `export`, write each game's log there (`steam-<seed>.json`, the
    layout of Game.to_18xx, replayable by `python -m engine.replay`)."""
    start = time.perf_counter()
    total = scored = delivered = bankrupt = 0
    failures = []
    for i in range(games):
        game_seed = seed * 100003 + i
        settings = Settings(map=map_name, mode=mode, players=players, seed=game_seed, turn_order=turn_order)
        rng = random.Random(game_seed ^ 0x5EED)
        g = None
        try:
            g, n = play_one(settings, rng)
            total += n
            delivered += g.s.delivered
            scored += reached_final_scoring(g)
            bankrupt += any(p.bankrupt for p in g.s.players)
            if export is not None:
                g.game_id = game_seed
                export.mkdir(parents=True, exist_ok=True)
                (export / f"steam-{game_seed}.json").write_text(json.dumps(g.to_18xx()) + "\n")
        except (GameError, AssertionError, Exception) as e:  # report every failure with its replay data
            log = []
            try:
                log = g.action_log() if g is not None else []
            except Exception:
                pass
            failures.append({"seed": game_seed, "settings": settings.model_dump(), "error": f"{type(e).__name__}: {e}",
                             "traceback": traceback.format_exc(limit=5), "actions": log})
    return {"games": games, "actions": total, "scored": scored, "bankrupt": bankrupt, "delivered": delivered,
            "seconds": round(time.perf_counter() - start, 3), "failures": failures}


def reached_final_scoring(g: Game) -> bool:
    """Did the game play all its rounds and end in final scoring with at least one player still in?"""
    res = g.scoring()
    return bool(res and res["rounds"] == g.rounds and any(not r["bankrupt"] for r in res["ranking"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine.steam.selfplay", description=__doc__.splitlines()[0])
    ap.add_argument("--map", default="rust_belt")
    ap.add_argument("--mode", choices=["basic", "standard"], default="basic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--turn-order", choices=["auction", "draw"], default="auction")
    ap.add_argument("--export", type=Path, help="write each game's log (JSON) into this folder")
    args = ap.parse_args(argv)
    try:
        board = load_board(args.map)
    except MapError as e:
        ap.error(str(e))
    if not board.min_players <= args.players <= board.max_players:
        ap.error(f"map {board.name} is for {board.min_players}-{board.max_players} players, not {args.players}")
    out = run(canonical_map_name(args.map), args.mode, args.players, args.games, args.seed, args.turn_order,
              args.export)
    for failure in out["failures"]:  # each with the seed and the action log that reproduce it
        print(json.dumps(failure))
    print(json.dumps({**out, "failures": len(out["failures"])}))
    return 1 if out["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
