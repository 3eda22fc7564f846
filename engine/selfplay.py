"""Random legal games, checking the game's invariants after every action.

    python -m engine.selfplay 1830 --games N --seed S [--players P] [--max-actions M]
    python -m engine.selfplay steam --map NAME --mode basic|standard --players P --games N --seed S

The last line printed is one JSON object {"games", "actions", "seconds", "failures"}; each failure is
also printed with the seed and the action log that reproduce it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from engine.core.errors import GameError
from engine.titles import create_game


def check_invariants(game, total_money: int | None) -> str | None:
    """The first broken invariant, or None."""
    money = game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations + game.minors)
    if total_money is not None and money != total_money:
        return f"money is {money}, not {total_money}"
    for p in game.players:
        if p.cash < 0:
            return f"{p.name} has negative cash {p.cash}"
    for c in game.corporations:
        if c.cash < 0:
            return f"{c.sym} has negative cash {c.cash}"
        held = c.ipo_percent + game.pool.percent_of(c) + sum(p.percent_of(c) for p in game.players)
        if held != 100:
            return f"{c.sym}'s certificates add up to {held}%"
        if game.pool.percent_of(c) > game.rules.market_share_limit:
            return f"the market holds {game.pool.percent_of(c)}% of {c.sym}"
        pres = c.presidents_share.owner
        if c.ipoed and (c.owner is None or pres is not c.owner):
            return f"{c.sym}'s president's certificate is not with its president"
        if c.tokens_left < 0:
            return f"{c.sym} placed more tokens than it has"
    if not game.over_train_limit() or game.finished:
        for c in game.corporations:
            if game.trains_counted_for_limit(c) > game.train_limit(c):
                return f"{c.sym} has {len(c.trains)} trains over the limit"
    return None


def play_one(title: str, players: int, seed: int, max_actions: int) -> tuple[int, str | None, list[dict], object]:
    rng = random.Random(seed)
    game = create_game(title, [{"id": i + 1, "name": f"Player {i + 1}"} for i in range(players)], seed=seed)
    total = None if game.bank.unlimited else (game.bank.cash + sum(p.cash for p in game.players))
    applied = 0
    while not game.finished and applied < max_actions:
        legal = game.legal_actions()
        if not legal:
            return applied, "no legal action but the game is not over", game.actions, game
        # passing everywhere makes for long games: prefer doing something
        doing = [a for a in legal if a["type"] != "pass"]
        choice = rng.choice(doing) if doing and rng.random() < 0.8 else rng.choice(legal)
        try:
            game.apply(choice)
        except GameError as e:
            return applied, f"a legal action was refused: {choice}: {e}", game.actions + [choice], game
        applied += 1
        problem = check_invariants(game, total)
        if problem:
            return applied, problem, game.actions, game
    return applied, None, game.actions, game


def run(title: str, games: int, seed: int, players: int | None = None, max_actions: int = 4000) -> dict:
    start = time.perf_counter()
    total_actions = 0
    failures = []
    finished = 0
    rng = random.Random(seed)
    for i in range(games):
        game_seed = rng.randrange(1 << 30)
        n = players or (3 + i % 4)
        applied, problem, log, game = play_one(title, n, game_seed, max_actions)
        total_actions += applied
        finished += bool(game.finished)
        if problem:
            failures.append({"seed": game_seed, "players": n, "problem": problem, "actions": log})
    return {"games": games, "finished": finished, "actions": total_actions,
            "seconds": round(time.perf_counter() - start, 3), "failures": failures}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].lower() == "steam":
        from engine.steam.selfplay import main as steam_main

        return steam_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m engine.selfplay")
    parser.add_argument("title")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--max-actions", type=int, default=4000)
    args = parser.parse_args(argv)
    out = run(args.title, args.games, args.seed, args.players, args.max_actions)
    for failure in out["failures"]:
        print(json.dumps(failure))
    print(json.dumps({"games": out["games"], "actions": out["actions"], "seconds": out["seconds"],
                      "failures": len(out["failures"]), "finished": out["finished"]}))
    return 1 if out["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
