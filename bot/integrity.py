"""Integrity check and online backup of a Roundhouse database. Both are safe while the bot runs: they
do not take the owner lock, and SQLite (WAL) lets them read a consistent snapshot.

    python -m bot check [DB]      # prints each problem; exit status 1 if there is any
    python -m bot backup FILE     # SQLite online backup of ROUNDHOUSE_DB
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path
from typing import Any

from bot.db import Database, migration_files
from bot.service import Live, Service
from bot.session import Engine


async def check(db: Database, engine: Any | None = None) -> list[str]:
    """Every problem found (empty: the database is sound): SQLite's own checks, the schema version, each
    log in order with unique ids, each running game replaying to what its row says (status, result,
    whose turn), open undo votes matching their log. Read in one snapshot, so a bot writing meanwhile
    cannot make its games look inconsistent."""
    conn = db.conn
    assert conn is not None
    snapshot = not conn.in_transaction
    if snapshot:
        await conn.execute("BEGIN")
    try:
        return await _problems(db, conn, engine)
    finally:
        if snapshot:
            await conn.rollback()


async def _problems(db: Database, conn: Any, engine: Any | None) -> list[str]:
    problems: list[str] = []
    async with conn.execute("PRAGMA integrity_check") as cur:
        verdict = [r[0] for r in await cur.fetchall()]
    if verdict != ["ok"]:
        problems += [f"sqlite: {v}" for v in verdict]
    async with conn.execute("PRAGMA foreign_key_check") as cur:
        problems += [f"foreign key: {tuple(r)}" for r in await cur.fetchall()]
    latest = max((v for v, _, _ in migration_files()), default=0)
    if await db.schema_version() != latest:
        problems.append(f"schema version {await db.schema_version()}, latest is {latest}: start the bot to migrate")
        return problems
    svc = Service(db, engine or Engine(), pictures=False)
    for row in await db.list_games(statuses=("lobby", "active", "finished", "aborted"), any_guild=True):
        where = f"game {row.id}"
        async with conn.execute("SELECT seq, action_id FROM actions WHERE game_id = ? ORDER BY seq",
                                (row.id,)) as cur:
            rows = [(r[0], r[1]) for r in await cur.fetchall()]
        if [seq for seq, _ in rows] != list(range(1, len(rows) + 1)):
            problems.append(f"{where}: action numbers are not 1..{len(rows)}")
        ids = [i for _, i in rows]
        if any(i is None for i in ids) or any(b <= a for a, b in zip(ids, ids[1:], strict=False)):
            problems.append(f"{where}: action ids are missing or not increasing")
        vote = await db.undo_request(row.id)
        if vote is not None and vote.at_count != len(rows):
            problems.append(f"{where}: an undo vote asked at {vote.at_count} actions is open at {len(rows)}")
        if row.status == "lobby" and rows:
            problems.append(f"{where}: in the lobby but has {len(rows)} actions")
        if row.status not in ("active", "finished"):
            continue
        seats = await db.seats(row.id)
        try:
            game = await asyncio.to_thread(svc.engine.replay, row.title, svc._players(seats), row.seed,
                                           row.setup, await db.actions(row.id), row.id)
        except Exception as exc:
            problems.append(f"{where}: the log does not replay: {exc}")
            continue
        if len(game.actions) != len(rows):
            problems.append(f"{where}: {len(rows)} actions stored, {len(game.actions)} replayed")
        if game.finished != (row.status == "finished"):
            problems.append(f"{where}: stored as {row.status}, the log says finished={game.finished}")
        if game.finished and {str(k): v for k, v in (row.result or {}).items()} != game.result():
            problems.append(f"{where}: stored result {row.result}, the log gives {game.result()}")
        turn = svc._turn_members(Live(row, seats, game))
        if turn != row.turn_members:
            problems.append(f"{where}: stored turn {row.turn_members}, the log gives {turn}")
    return problems


async def _check_file(path: str) -> list[str]:
    if not Path(path).exists():
        return [f"{path}: no such database"]
    async with Database(path, owner=False) as db:
        return await check(db)


def main(path: str) -> int:
    problems = asyncio.run(_check_file(path))
    for p in problems:
        print(p)
    print(f"{path}: {'ok' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


def backup(source: str, dest: str) -> None:
    """SQLite's online backup: a consistent copy, page by page, while the bot keeps writing."""
    if not Path(source).exists():
        raise SystemExit(f"{source}: no such database")
    src = sqlite3.connect(source)
    try:
        out = sqlite3.connect(dest)
        try:
            src.backup(out, pages=1024)
        finally:
            out.close()
    finally:
        src.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "roundhouse.db"))
