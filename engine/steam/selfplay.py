"""Self-play for Steam: seeded games played to the end, checking invariants after every action.

    python -m engine.steam.selfplay --map rust_belt --mode basic --players 4 --games 10 --seed 1

The agent (`choose`) plays only legal actions and is deterministic for a given seed: mostly greedy
(deliver goods, build links toward cities its goods can go to, add goods when it has none to move,
spend little), with a random share so that the odd rules get played too.  The last line printed is
JSON: {"games", "actions", "scored", "delivered", "seconds", "failures"}; "scored" counts the games
that reached final scoring with a player still in; each failure carries the game seed, the error and
the action log so the game can be replayed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from math import ceil

from engine.core.errors import GameError
from engine.steam import tiles as T
from engine.steam.actions import Bid, Capital, EndBuild, Move, Pass, TakeTile, UpgradeLoco
from engine.steam.board import BAG, CUBE_COLORS, MapError, load_board
from engine.steam.board import map_name as canonical_map_name
from engine.steam.game import Game, Settings
from engine.steam.legal import (
    build_actions,
    deliverable,
    is_legal_track,
    legal_actions,
    move_actions,
    to_action,
    track_candidates,
)

MAX_ACTIONS = 5000
OTHER_TRIES = 8  # track candidates the agent weighs besides extending its own open ends


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
    """A legal action for the active player: mostly greedy (deliver goods, build links that connect
    cities where goods can go, spend little), with a seeded random share so every rule gets exercised."""
    s = g.s
    p = g.active_player()
    pl = s.players[p]
    if s.score_queue:
        opts = legal_actions(g)
        return opts[0] if pl.income < 4 or rng.random() < 0.7 else opts[1]
    if s.phase == "build":
        return _choose_build(g, p, rng)
    if s.phase == "move":
        return _choose_move(g, p, rng)
    opts = legal_actions(g)
    if s.phase in ("setup_auction", "auction"):
        bids = [a for a in opts if isinstance(a, Bid)]
        spare = pl.cash - 6 if s.phase == "auction" else pl.cash
        bids = [a for a in bids if a.amount <= min(3, spare)]
        if bids and rng.random() < 0.3:
            return rng.choice(bids[:2])
        return next(a for a in opts if isinstance(a, Pass))
    if s.phase == "capital":
        # standard game: enough cash for a build turn, but keep income above the locomotive's upkeep
        want = max(0, ceil((10 - pl.cash) / 5))
        floor = -3 if s.round < g.rounds - 1 else 0
        top = max(0, min(want, pl.income - floor))
        if rng.random() < 0.1:
            top = rng.randrange(top + 2)
        return max((a for a in opts if isinstance(a, Capital) and a.loans <= top), key=lambda a: a.loans)
    if s.phase == "select":
        return _choose_tile(g, p, [a for a in opts if isinstance(a, TakeTile)], rng)
    return rng.choice(opts)


def _choose_tile(g: Game, p: int, tiles: list, rng: random.Random):
    pl = g.s.players[p]
    basic = g.mode == "basic"
    can_deliver = bool(deliverable(g, p))

    def worth(a) -> float:
        if a.tile == 6:  # Locomotive: cheap reach early, a burden later
            price = (4 + pl.loco + 1) if basic else 0
            if not basic:  # free, but the upkeep grows
                return 3 if pl.income > pl.loco + 1 and pl.loco < 4 else -2
            return (3 if pl.loco < 3 else -2) - (4 if price > pl.cash else 0)
        if a.tile in (5, 7) and a.use:  # more goods: best when there is nothing to deliver
            price = (2 if a.tile == 5 else 6) if basic else 0
            return (1 if can_deliver else 3.5) - (5 if price > pl.cash else 0)
        return {1: 1, 2: 2, 3: 3, 4: 2}.get(a.tile, 0)

    if rng.random() < 0.2:
        return rng.choice(tiles)
    best = max(worth(a) for a in tiles)
    return rng.choice([a for a in tiles if worth(a) == best])


def _choose_move(g: Game, p: int, rng: random.Random):
    s = g.s
    pl = s.players[p]
    opts = move_actions(g, p)
    moves = [a for a in opts if isinstance(a, Move)]
    if moves and rng.random() < 0.95:
        want = "income" if pl.income < 5 or s.round < g.rounds - 2 else "vp"
        moves = [m for m in moves if m.to == want] or moves
        own = {m: _own_links(g, p, m) for m in moves}
        best = max(own.values())
        return rng.choice([m for m in moves if own[m] == best])
    ups = [a for a in opts if isinstance(a, UpgradeLoco)]
    if ups and (g.mode == "basic" or pl.income >= pl.loco - 3) and (_reach_grows(g, p) or rng.random() < 0.15):
        return ups[0]
    return next(a for a in opts if isinstance(a, Pass))


def _reach_grows(g: Game, p: int) -> bool:
    """Would one more locomotive level let p deliver a cube it cannot deliver now?"""
    pl = g.s.players[p]
    now = deliverable(g, p)
    pl.loco += 1
    try:
        return bool(deliverable(g, p) - now)
    finally:
        pl.loco -= 1


def _own_links(g: Game, p: int, m: Move) -> int:
    net = g.network()
    return sum(1 for lid in m.links if net.by_id[lid].owner == p)


def _choose_build(g: Game, p: int, rng: random.Random):
    s = g.s
    opts = build_actions(g, p, track=False)
    ends = [a for a in opts if isinstance(a, EndBuild)]
    special = [a for a in opts if not isinstance(a, EndBuild)]
    if special:
        if rng.random() < 0.2:
            return rng.choice(special)
        base = _value(g, p)
        gain, best = max(((_value_after(g, p, a) - base, i) for i, a in enumerate(special)))
        if not ends or gain > 0 or rng.random() < 0.3:
            return special[best]
    if s.placements < g.placement_limit(p):
        cands = track_candidates(g, p)
        net = g.network()
        ahead = {g.board.nbr(h, e) for (h, e), li in net.open_ends.items() if net.links[li].owner == p}
        extend = [c for c in cands if c[1] in ahead]
        others = [c for c in cands if c[1] not in ahead]
        cands = extend + rng.sample(others, min(OTHER_TRIES, len(others)))
        if rng.random() < 0.08:  # now and then any legal tile, so that odd builds are played too
            for cand in cands:
                a = to_action(p, cand)
                if is_legal_track(g, a):
                    return a
        base = _value(g, p)
        best, best_gain = None, 0.5
        for cand in cands:
            a = to_action(p, cand)
            try:
                plan = g._plan_track(a)
            except GameError:
                continue
            gain = _value_after(g, p, plan) - base - 0.4 * plan["cost"]
            if gain > best_gain:
                best, best_gain = a, gain
        if best is not None:
            return best
    return ends[0] if ends else rng.choice(special)


def _value_after(g: Game, p: int, plan) -> float:
    """The build value for p once the planned tile (or a City Growth / New City action) is done, played
    on a copy of the state."""
    saved, saved_net = g.s, g._net_cache
    g.s = saved.clone()
    try:
        if isinstance(plan, dict):
            g._commit_plan(p, plan)
        else:
            g._dispatch(plan)
        return _value(g, p)
    finally:
        g.s, g._net_cache = saved, saved_net


def _hex_distance(a, b) -> int:
    dq, dr = b[0] - a[0], b[1] - a[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def _value(g: Game, p: int) -> float:
    """How good p's track is: goods it can deliver, complete links, and open ends close to a city they
    could usefully reach."""
    s = g.s
    net = g.network()
    cities = g.all_cities()
    value = 12.0 * len(deliverable(g, p))
    incomplete = 0
    pl = s.players[p]
    budget = pl.cash if g.mode == "standard" else pl.cash + 5 * max(0, pl.income + 6)
    for link in net.links:
        if link.owner != p:
            continue
        if link.complete:
            value += 10
            continue
        incomplete += 1
        oe = link.open_end
        ahead = g.board.nbr(oe[1], oe[2])
        start = link.nodes[0] if link.nodes else None
        if ahead is None:
            continue
        useful = [c for c in cities if c != start and start in cities
                  and (cities[c] in s.city_cubes.get(start, ()) or cities[start] in s.city_cubes.get(c, ()))]
        d_useful = min((_hex_distance(ahead, c) for c in useful), default=99)
        d_any = min((_hex_distance(ahead, c) for c in cities if c != start), default=99) + 3
        d = min(d_useful, d_any, 9)
        value += 10 - 2 * d - max(0, 2.5 * d - budget)  # worth less when it cannot be paid for
    return value - 6 * max(0, incomplete - 1)


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
    total = scored = delivered = 0
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
        except (GameError, AssertionError, Exception) as e:  # report every failure with its replay data
            log = []
            try:
                log = g.action_log() if g is not None else []
            except Exception:
                pass
            failures.append({"seed": game_seed, "settings": settings.model_dump(), "error": f"{type(e).__name__}: {e}",
                             "traceback": traceback.format_exc(limit=5), "actions": log})
    return {"games": games, "actions": total, "scored": scored, "delivered": delivered,
            "seconds": round(time.perf_counter() - start, 3), "failures": failures}


def reached_final_scoring(g: Game) -> bool:
    """Did the game play all its rounds and end in final scoring with at least one player still in?"""
    res = g.result()
    return bool(res and res["rounds"] == g.rounds and any(not r["bankrupt"] for r in res["ranking"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine.steam.selfplay", description=__doc__.splitlines()[0])
    ap.add_argument("--map", default="rust_belt")
    ap.add_argument("--mode", choices=["basic", "standard"], default="basic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--turn-order", choices=["auction", "draw"], default="auction")
    args = ap.parse_args(argv)
    try:
        board = load_board(args.map)
    except MapError as e:
        ap.error(str(e))
    if not board.min_players <= args.players <= board.max_players:
        ap.error(f"map {board.name} is for {board.min_players}-{board.max_players} players, not {args.players}")
    out = run(canonical_map_name(args.map), args.mode, args.players, args.games, args.seed, args.turn_order)
    for failure in out["failures"]:  # each with the seed and the action log that reproduce it
        print(json.dumps(failure))
    print(json.dumps({**out, "failures": len(out["failures"])}))
    return 1 if out["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
