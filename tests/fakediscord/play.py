"""Games set up through the bot's service for tests (no Discord): members, callers, recorded positions."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bot.access import Caller
from bot.service import Service
from bot.session import Engine

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "1830"
GUILD = 501          # the server the test games live in
OTHER_GUILD = 502    # another server with the bot


def fixture_log(name: str = "26855") -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def resolved_actions(log: dict) -> list[dict]:
    from engine.core.actions import resolve_undo
    return resolve_undo(log["actions"])


async def started_game(svc: Service, names: tuple[str, ...] = ("Ann", "Bob", "Cid"), *, seed: int = 5,
                       guild: int | None = GUILD, thread: int | None = 9001) -> tuple[int, dict[str, Caller]]:
    """A started 1830 game in `guild` (its thread `thread`); callers by name, the first one hosting."""
    callers = {n: Caller(11 + i, n, guild, thread) for i, n in enumerate(names)}
    first = callers[names[0]]
    row = await svc.new_game(Caller(first.member_id, first.name, guild, 8000), title="1830", seed=seed,
                             channel_id=8000, thread_id=thread)
    for n in names[1:]:
        await svc.join(row.id, callers[n])
    await svc.start(row.id, first)
    return row.id, callers


async def imported_game(svc: Service, log: dict, upto: int | None = None, *, guild: int | None = GUILD,
                        thread: int | None = 9101) -> tuple[int, dict[int, Caller]]:
    """A recorded game imported up to `upto` resolved actions; callers by the log's player id."""
    actions = resolved_actions(log)[:upto] if upto is not None else log["actions"]
    callers = {int(p["id"]): Caller(100 + i, p["name"], guild, thread) for i, p in enumerate(log["players"])}
    members: list[tuple[int, str] | None] = [(callers[int(p["id"])].member_id, p["name"]) for p in log["players"]]
    row, _ = await svc.import_game(callers[int(log["players"][0]["id"])], dict(log, actions=actions), members,
                                   channel_id=8100, thread_id=thread)
    return row.id, callers


def session_1830(seed: int = 5) -> Any:
    """A fresh 1830 game as the bot plays it (Ann, Bob, Cid are players 1, 2, 3), for unit tests of the 18xx
    commands and words."""
    return Engine().create("1830", [{"id": i, "name": n} for i, n in enumerate(("Ann", "Bob", "Cid"), 1)],
                           seed, {"optional_rules": []})


def acting_caller(svc: Service, game_id: int, callers: dict[int, Caller]) -> Caller:
    lv = svc._live[game_id]
    return callers[int(lv.game.active_players()[0])]


def stored_events(svc: Service) -> asyncio.Event:
    """Set whenever the service stores an action (its transaction committed): a test waits for it, not polls."""
    stored = asyncio.Event()
    apply_one = svc._apply_one

    async def noted(*args: Any, **kwargs: Any) -> Any:
        done = await apply_one(*args, **kwargs)
        stored.set()
        return done

    svc._apply_one = noted  # type: ignore[method-assign]
    return stored


def waiting_on(lock: asyncio.Lock, commands: int = 1) -> asyncio.Event:
    """Set once `commands` commands have found `lock` held and wait for it: a test waits for it, not polls."""
    queued = asyncio.Event()
    acquire = lock.acquire
    found = 0

    async def noted() -> bool:
        nonlocal found
        if lock.locked():
            found += 1
            if found >= commands:
                queued.set()
        return await acquire()

    lock.acquire = noted  # type: ignore[method-assign]
    return queued


class Killed(BaseException):
    """The process dies here (raised where a test kills it): nothing after it runs, what was not committed is
    lost."""


class Posts(list):
    """A stand-in for the bot's publish (`Service` publish): each reply kept, posted as message number len(self)."""

    async def __call__(self, reply: Any) -> Any:
        self.append(reply)
        return SimpleNamespace(id=len(self))


class FaultyEngine(Engine):
    """The real engine, but applying an action of type `fail_on` changes the game and then raises an
    unexpected error, as an engine bug would."""

    def __init__(self, fail_on: str | None = None) -> None:
        super().__init__()
        self.fail_on = fail_on

    def _live(self, session: Any) -> Any:
        session = super()._live(session)
        game = session.game
        real = game.apply

        def apply(action: dict) -> dict:
            out = real(action)
            if self.fail_on and action.get("type") == self.fail_on:
                raise RuntimeError("engine bug after changing the game")
            return out

        game.apply = apply
        return session


def state(game: Any) -> str:
    """The whole visible state of a game, comparable across rebuilds."""
    return json.dumps({"summary": game.summary(), "actions": game.actions, "legal": game.legal_actions()},
                      sort_keys=True, default=str)
