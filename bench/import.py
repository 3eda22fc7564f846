"""Importing a large 18xx.games log through the bot: time and peak memory, then the restart that rebuilds it.

The log is a recorded 1830 game (its last moves left out, so it is still running) grown to about 10 MB the
way real logs grow: every move taken back and made again (undo/redo), and a long chat between moves. It stays inside the bot's import limits (12 MB, 20,000 actions).

    .venv/bin/python bench/import.py [--mb 10] [--undo-to] [--churn N] [--fixture tests/fixtures/1830/26855.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.access import Caller  # noqa: E402
from bot.db import Database  # noqa: E402
from bot.service import MAX_IMPORT_ACTIONS, Service  # noqa: E402
from bot.session import Engine  # noqa: E402


def grown_log(fixture: Path, megabytes: float, undo_to: bool = False, churn: int = 1) -> bytes:
    """undo_to: each undo names the action to go back to (`action_id`), as 18xx.games writes an undo of
    several steps, instead of undoing one step. churn: undo/redo pairs after each move (the rest is chat)."""
    log = json.loads(fixture.read_text())
    actions: list[dict] = []
    next_id = 1

    def add(action: dict) -> None:
        nonlocal next_id
        actions.append({**action, "id": next_id})
        next_id += 1

    from engine.core.actions import resolve_undo
    recorded = resolve_undo(log["actions"])[:-20]  # still running
    chat_per_move = max(1, (MAX_IMPORT_ACTIONS - (1 + 2 * churn) * len(recorded)) // len(recorded))
    chat = "x" * max(1, int(megabytes * 2**20 / (len(recorded) * chat_per_move) - 90))
    for action in recorded:
        add(action)
        undo = {"type": "undo", "entity": action["entity"], "entity_type": action["entity_type"]}
        for _ in range(churn):
            add({**undo, "action_id": next_id - 2} if undo_to else undo)
            add({"type": "redo", "entity": action["entity"], "entity_type": action["entity_type"]})
        for _ in range(chat_per_move):
            add({"type": "message", "entity": action["entity"], "entity_type": action["entity_type"],
                 "message": chat})
    return json.dumps({**log, "actions": actions}).encode()


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def main(fixture: Path, megabytes: float, undo_to: bool, churn: int) -> None:
    data = grown_log(fixture, megabytes, undo_to, churn)
    entries = len(json.loads(data)["actions"])
    base = peak_mb()
    with tempfile.TemporaryDirectory() as tmp:
        async with Database(Path(tmp) / "import.db") as db:
            svc = Service(db, Engine(), pictures=False)
            players = json.loads(data)["players"]
            members = [(1000 + i, p["name"]) for i, p in enumerate(players)]
            t = time.perf_counter()
            row, _ = await svc.import_game(Caller(1000, "host"), data, members)
            imported = time.perf_counter() - t
            stored = await db.action_count(row.id)
        after_import = peak_mb()
        async with Database(Path(tmp) / "import.db") as db:
            t = time.perf_counter()
            resumed, broken = await Service(db, Engine(), pictures=False).resume_all()
            restart = time.perf_counter() - t
    kind = f"{churn} undo/redo per move, " + ("undo to an action id" if undo_to else "undo one step")
    print(f"log {len(data) / 2**20:.1f} MB, {entries} entries ({kind}) -> {stored} actions stored")
    print(f"import {imported:.2f} s, peak memory +{after_import - base:.0f} MB (process peak {after_import:.0f} MB)")
    print(f"restart (rebuild from the stored log) {restart:.2f} s; resumed {resumed}, broken {broken}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=10.0)
    ap.add_argument("--fixture", default=str(ROOT / "tests/fixtures/1830/26855.json"))
    ap.add_argument("--undo-to", action="store_true", help="undos name the action to go back to")
    ap.add_argument("--churn", type=int, default=1, help="undo/redo pairs after each move")
    ns = ap.parse_args()
    asyncio.run(main(Path(ns.fixture), ns.mb, ns.undo_to, ns.churn))
