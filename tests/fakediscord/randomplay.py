"""Random legal play as members would type it: the next command for a game, chosen from its legal actions.

Used by the crash tests (console and bot processes killed at random points) and the fuzz test.
"""

from __future__ import annotations

import json
import random
import shlex
import sqlite3
from typing import Any

from bot.families.g18xx import G18xx
from bot.service import Service
from bot.session import Engine


def next_command(game: Any, rng: random.Random) -> tuple[int, str, dict[str, Any]] | None:
    """(player id who must send it, command, options) for a random legal action; None when over."""
    if game.finished:
        return None
    session = G18xx(str(game.TITLE), game)
    player = int(game.active_players()[0]) if game.active_players() else None
    # trades that wait for another player's consent store nothing yet: left to the tests of offers
    legal = [a for a in game.legal_actions() if G18xx.command_of(a) is not None and a["type"] != "bankrupt"
             and (player is None or session.needs_consent(player, a) is None)]
    if not legal:
        return None
    doing = [a for a in legal if a["type"] != "pass"]
    action = rng.choice(doing) if doing and rng.random() < 0.8 else rng.choice(legal)
    kind, options = G18xx.command_for(action)
    return int(game.active_players()[0]), kind, options


def console_line(seat_name: str, kind: str, options: dict[str, Any]) -> str:
    words = ["as", shlex.quote(seat_name), kind] + [f"{k}={shlex.quote(str(v))}" for k, v in options.items()]
    return " ".join(words)


def stored_log(db_path: str, game_id: int) -> list[dict]:
    """The stored log, read beside the running owner (SQLite WAL readers do not block it)."""
    conn = sqlite3.connect(db_path, timeout=10)
    try:
        rows = conn.execute("SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
    finally:
        conn.close()
    return [json.loads(r[0]) for r in rows]


def seats(db_path: str, game_id: int) -> list[tuple[int, int, str, int | None]]:
    """(player id, member id, name, position) of each seat."""
    conn = sqlite3.connect(db_path, timeout=10)
    try:
        return [tuple(r) for r in conn.execute(
            "SELECT player_id, member_id, name, position FROM seats WHERE game_id = ? ORDER BY position",
            (game_id,)).fetchall()]
    finally:
        conn.close()


def replay(db_path: str, game_id: int, engine: Engine | None = None) -> Any:
    """The game the stored log gives (the way the bot rebuilds it)."""
    conn = sqlite3.connect(db_path, timeout=10)
    try:
        title, seed, rules, settings = conn.execute(
            "SELECT title, seed, optional_rules, settings FROM games WHERE id = ?", (game_id,)).fetchone()
    finally:
        conn.close()
    from bot.db import Seat
    players = Service._players([Seat(game_id, p, m, n, pos, 0) for p, m, n, pos in seats(db_path, game_id)])
    setup = {**json.loads(settings), "optional_rules": json.loads(rules)}
    return (engine or Engine()).replay(title, players, seed, setup, stored_log(db_path, game_id), game_id).game
