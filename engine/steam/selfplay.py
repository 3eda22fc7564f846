"""Random self-play for Steam: play random legal games to the end, checking invariants after every action.

    python -m engine.steam.selfplay --map rust_belt --mode basic --players 4 --games 10 --seed 1

The last line printed is JSON: {"games", "actions", "seconds", "failures"}; each failure carries the
game seed, the error and the action log so the game can be replayed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback

from engine.core.errors import GameError
from engine.steam import tiles as T
from engine.steam.actions import Bid, Capital, EndBuild, Move, Pass, TakeTile, UpgradeLoco
from engine.steam.board import BAG, CUBE_COLORS
from engine.steam.game import Game, Settings
from engine.steam.legal import build_actions, is_legal_track, legal_actions, to_action, track_candidates

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


def choose(g: Game, rng: random.Random):
    """A random legal action, weighted so that games move on."""
    s = g.s
    p = g.active_player()
    if s.phase == "build" and not s.score_queue:
        opts = build_actions(g, p, track=False)
        ends = [a for a in opts if isinstance(a, EndBuild)]
        special = [a for a in opts if not isinstance(a, EndBuild)]
        if special and (not ends or rng.random() < 0.5):
            return rng.choice(special)
        pl = s.players[p]
        broke = pl.income <= -4 if g.mode == "basic" else pl.cash < 2
        if ends and (rng.random() < 0.15 or (broke and rng.random() < 0.8)):
            return ends[0]
        if s.placements < g.placement_limit(p):
            cands = track_candidates(g, p)
            cands = rng.sample(cands, min(40, len(cands)))
            if rng.random() < 0.7:
                cands.sort(key=lambda a: -_connects(g, a))
            for cand in cands:
                a = to_action(p, cand)
                if is_legal_track(g, a):
                    return a
        return ends[0] if ends else rng.choice(special)
    opts = legal_actions(g)
    if s.phase in ("setup_auction", "auction") and not s.score_queue:
        if rng.random() < 0.6:
            return next(a for a in opts if isinstance(a, Pass))
        bids = [a for a in opts if isinstance(a, Bid)][:4]
        return rng.choice(bids) if bids else opts[0]
    if s.phase == "capital":
        pl = s.players[p]
        top = (2 if pl.cash < 6 else 0) if pl.income > -4 else (1 if pl.cash < 3 else 0)
        return rng.choice([a for a in opts if isinstance(a, Capital) and a.loans <= top])
    if s.phase == "move" and not s.score_queue:
        moves = [a for a in opts if isinstance(a, Move)]
        if moves and rng.random() < 0.9:
            want = "income" if s.players[p].income < 4 or s.round < 3 else rng.choice(["income", "vp"])
            moves = [m for m in moves if m.to == want] or moves
            best = max(len(m.links) for m in moves)
            return rng.choice([m for m in moves if len(m.links) == best] if rng.random() < 0.6 else moves)
        ups = [a for a in opts if isinstance(a, UpgradeLoco)]
        if ups and s.players[p].loco < 3 and rng.random() < 0.4:
            return ups[0]
        return next(a for a in opts if isinstance(a, Pass))
    if s.phase == "select":
        pl = s.players[p]
        tiles = [a for a in opts if isinstance(a, TakeTile)]
        if pl.loco >= 3:
            tiles = [a for a in tiles if a.tile != 6] or tiles
        if g.mode == "basic" and pl.income <= -3:
            cheap = [a for a in tiles if a.tile in (1, 2, 3, 4) or not a.use]
            tiles = cheap or tiles
        return rng.choice(tiles)
    if s.score_queue:
        return opts[0] if s.players[p].income < 4 else rng.choice(opts)
    return rng.choice(opts)


def _connects(g: Game, a) -> int:
    """How many ends of a candidate track action meet a city or track (a cheap guide for the random agent)."""
    kind, h, face, rot = a
    if kind != "lay":
        return 0
    net = g.network()
    paths = T.FACES[face].rotated(rot)
    return sum(1 for path in paths for e in path if net.resolve(h, e)[0] != "open")


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


def run(map_name: str, mode: str, players: int, games: int, seed: int, turn_order: str = "auction") -> dict:
    start = time.perf_counter()
    total = 0
    failures = []
    for i in range(games):
        game_seed = seed * 100003 + i
        settings = Settings(map=map_name, mode=mode, players=players, seed=game_seed, turn_order=turn_order)
        rng = random.Random(game_seed ^ 0x5EED)
        g = None
        try:
            g, n = play_one(settings, rng)
            total += n
        except (GameError, AssertionError, Exception) as e:  # report every failure with its replay data
            log = []
            try:
                log = g.action_log() if g is not None else []
            except Exception:
                pass
            failures.append({"seed": game_seed, "settings": settings.model_dump(), "error": f"{type(e).__name__}: {e}",
                             "traceback": traceback.format_exc(limit=5), "actions": log})
    return {"games": games, "actions": total, "seconds": round(time.perf_counter() - start, 3), "failures": failures}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine.steam.selfplay", description=__doc__.splitlines()[0])
    ap.add_argument("--map", default="rust_belt")
    ap.add_argument("--mode", choices=["basic", "standard"], default="basic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--turn-order", choices=["auction", "draw"], default="auction")
    args = ap.parse_args(argv)
    out = run(args.map, args.mode, args.players, args.games, args.seed, args.turn_order)
    print(json.dumps(out))
    return 1 if out["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
