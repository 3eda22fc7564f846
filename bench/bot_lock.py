"""How long one game's lock is held by reads, how long the event loop stalls, and what a game costs in memory.

Imports a recorded game into a service (real engine and pictures, no Discord), then measures:
* with the lock held by each command: `/game status` with every picture, with the chart only, and autocomplete
  (CPU seconds of the process, worker threads included, while the lock is held);
* actions sent as their members send them (the game's next recorded actions, with their pictures): the lock's
  holds and the CPU of each, and how many copies of the game (`Session.frozen`) they made with nobody reading;
  then `/game export` and an undo of the last action;
* the longest stall of the event loop (a 1 ms ticker's largest gap) while the game's whole log is read from the
  database, and while the log is imported (the import limit is 20,000 actions: `--import-copies` repeats the
  log's actions, renumbered, as a long game would be);
* the memory (tracemalloc) one game in memory takes, and what is left once the service evicts it.

    .venv/bin/python bench/bot_lock.py [tests/fixtures/1817/15528.json] [--repeat 3] [--cut 20] [--actions 6]

The game is imported without its last `--cut` actions, so it is still running (autocomplete has a turn).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.access import Caller  # noqa: E402
from bot.db import Database  # noqa: E402
from bot.service import Service  # noqa: E402


def held(svc: Service, game_id: int) -> list[float]:
    """Wraps the game's lock so each hold is timed (CPU seconds of the whole process, threads included)."""
    lock = svc.lock(game_id)
    holds: list[float] = []
    acquire, release = lock.acquire, lock.release
    started: list[float] = []

    async def timed_acquire() -> bool:
        ok = await acquire()
        started.append(time.process_time())
        return ok

    def timed_release() -> None:
        holds.append(time.process_time() - started.pop())
        release()

    lock.acquire, lock.release = timed_acquire, timed_release  # type: ignore[method-assign]
    return holds


class LookingOutOfTurn:
    """The CPU seconds (of the thread doing it) spent working out whether a post carries the out-of-turn button
    (`Service._powers_held`), with the game's lock held and without, per action sent."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, bool]] = []
        self.per_action: list[list[tuple[float, bool]]] = []

    def take(self) -> list[tuple[float, bool]]:
        calls, self.calls = self.calls, []
        return calls

    def report(self) -> str:
        held = [sum(t for t, locked in calls if locked) * 1000 for calls in self.per_action]
        free = [sum(t for t, locked in calls if not locked) * 1000 for calls in self.per_action]
        n = sum(len(calls) for calls in self.per_action)
        if not held:
            return "looking for moves out of turn: no action sent"
        return (f"looking for moves out of turn: {n} time(s) over {len(held)} actions; with the lock held "
                f"{statistics.mean(held):.1f} ms CPU an action (mean), {max(held):.1f} ms at most; without it "
                f"{statistics.mean(free):.1f} ms (mean), {max(free):.1f} ms at most")


def looking_out_of_turn(svc: Service, game_id: int) -> LookingOutOfTurn:
    """Times `Service._powers_held` (a method taking the game, or a static one taking a session), noting whether
    the game's lock is held while it runs."""
    record = LookingOutOfTurn()
    raw = Service.__dict__["_powers_held"]
    real = raw.__func__ if isinstance(raw, staticmethod) else functools.partial(raw, svc)

    def timed(*args):
        t = time.thread_time()
        try:
            return real(*args)
        finally:
            record.calls.append((time.thread_time() - t, svc.lock(game_id).locked()))

    svc._powers_held = timed  # type: ignore[method-assign]
    return record


async def stall(work) -> tuple[float, float]:
    """(the event loop's longest stall, wall seconds) while `work()` runs: a ticker sleeping 1 ms notes its gaps."""
    gaps: list[float] = []
    done = False

    async def ticker() -> None:
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    tick = asyncio.ensure_future(ticker())
    await asyncio.sleep(0.01)
    t = time.perf_counter()
    await work()
    wall = time.perf_counter() - t
    done = True
    await tick
    return max(gaps), wall


async def main(path: Path, repeat: int, cut: int, actions: int) -> None:
    from engine.core.actions import resolve_undo

    log = json.loads(path.read_text())
    later = resolve_undo(log["actions"])[-cut:] if cut else []
    log = {**log, "actions": resolve_undo(log["actions"])[:-cut] if cut else log["actions"]}
    with tempfile.TemporaryDirectory() as tmp:
        async with Database(Path(tmp) / "rh.db") as db:
            svc = Service(db, pictures=True)
            callers = {int(p["id"]): Caller(100 + i, p["name"], 1, 9101) for i, p in enumerate(log["players"])}
            members = [(callers[int(p["id"])].member_id, p["name"]) for p in log["players"]]
            first = callers[int(log["players"][0]["id"])]
            row, _ = await svc.import_game(first, log, members, channel_id=8100, thread_id=9101)
            gid = row.id
            holds = held(svc, gid)
            for what, kinds in (("status, all pictures", None), ("status, chart only", ("chart",)),
                                ("status, no pictures", ())):
                holds.clear()
                for _ in range(repeat):
                    await svc.status(gid, first, kinds)
                print(f"{what:28s} lock held {min(holds):.3f} s CPU (min of {repeat}), max {max(holds):.3f}")
            lv = await svc.live(gid)
            session = lv.session
            acting = callers[int(session.active_players()[0])]
            types = set(session.action_types())
            name = next((n for n, c in type(session).commands.items() if c.options and
                         any(t in types for t in getattr(c, "types", ()) or ())), next(iter(type(session).commands)))
            option = type(session).commands[name].options[0].name if type(session).commands[name].options else ""
            for attempt in ("first", "again"):
                holds.clear()
                t = time.process_time()
                got = await svc.autocomplete(gid, acting, name, option, "", {})
                print(f"autocomplete {name} {option} ({attempt}): {len(got)} choices, "
                      f"{time.process_time() - t:.3f} s CPU; lock held {sum(holds):.3f} s over {len(holds)} hold(s)")

            family = type(session)
            copies: list[int] = []
            real_frozen = family.frozen
            family.frozen = lambda self: copies.append(1) or real_frozen(self)  # type: ignore[method-assign]
            sent = []

            async def posted(reply):  # Discord's part of publishing left out: the service's own part measured
                return object()

            looked = looking_out_of_turn(svc, gid)
            for action in later[:actions]:
                lv = await svc.live(gid)
                pid = int(action["entity"]) if action["entity_type"] == "player" else \
                    int(lv.session.active_players()[0])
                kind, options = family.command_for(action)
                holds.clear()
                t = time.process_time()
                await svc.act(gid, callers[pid], kind, options, posted, confirmed=True)
                sent.append((sum(holds), max(holds), time.process_time() - t, callers[pid]))
                looked.per_action.append(looked.take())
            family.frozen = real_frozen  # type: ignore[method-assign]
            if sent:
                print(f"{len(sent)} actions: lock held {statistics.median(h for h, *_ in sent):.3f} s CPU (median), "
                      f"longest hold {max(m for _, m, *_ in sent):.3f} s; {statistics.median(c for *_, c, _ in sent):.3f} s CPU "
                      f"an action in all (median); the game copied {len(copies)} time(s), nobody reading")
                print(looked.report())
                holds.clear()
                t = time.process_time()
                await svc.export(gid, first)
                print(f"export: lock held {sum(holds):.3f} s CPU, {time.process_time() - t:.3f} s CPU in all")
                holds.clear()
                t = time.process_time()
                await svc.undo(gid, sent[-1][3], 1)
                print(f"undo of 1 action: lock held {sum(holds):.3f} s CPU over {len(holds)} hold(s), "
                      f"{time.process_time() - t:.3f} s CPU in all")

            worst, wall = await stall(lambda: asyncio.sleep(0.05))
            print(f"nothing to do (reference): the event loop's longest stall {worst * 1000:.1f} ms")
            worst, wall = await stall(lambda: db.actions(gid))
            print(f"reading the log ({len(log['actions'])} actions): {wall * 1000:.0f} ms, the event loop's longest "
                  f"stall {worst * 1000:.1f} ms")
            actions = log["actions"]
            copies = max(1, 20_000 // max(1, len(actions)))
            many = [dict(a, id=i + 1) for i, a in enumerate(actions * copies)][:20_000]
            other = await db.create_game(title=row.title, seed=row.seed, created_by=first.member_id, guild_id=1)
            worst, wall = await stall(lambda: db.replace_actions(other.id, many))
            print(f"storing an imported log of {len(many)} actions: {wall * 1000:.0f} ms, the event loop's longest "
                  f"stall {worst * 1000:.1f} ms")

            # memory: the game built from its log, then evicted
            svc._live.clear()
            gc.collect()
            await svc.live(gid)  # caches (the title's data, renderers) warm
            svc._live.clear()
            gc.collect()
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            await svc.live(gid)
            built = tracemalloc.get_traced_memory()[0] - base
            evicted = svc.evict(now=time.monotonic() + 10 * svc.idle_after)
            await asyncio.sleep(0.01)  # the tasks that returned the game end
            gc.collect()
            left = tracemalloc.get_traced_memory()[0] - base
            tracemalloc.stop()
            print(f"game in memory: {built / 2**20:.2f} MB; evicted {evicted}: {left / 2**20:.2f} MB left")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("log", nargs="?", default=str(ROOT / "tests/fixtures/1817/15528.json"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cut", type=int, default=20, help="leave out the log's last N actions (a running game)")
    ap.add_argument("--actions", type=int, default=6, help="then send this many of them")
    args = ap.parse_args()
    asyncio.run(main(Path(args.log), args.repeat, args.cut, args.actions))
