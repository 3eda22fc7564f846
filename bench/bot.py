"""Bot latency: interaction sent -> the thread message with its pictures received, through the fake Discord.

Plays a whole recorded game (real engine, real renderer) by slash commands and reports p50/p95/max
over all actions, and separately for actions that carry pictures. Goal: p95 < 500 ms.

    .venv/bin/python bench/bot.py [tests/fixtures/1830/26855.json] [--limit N] [--no-pictures]
    .venv/bin/python bench/bot.py tests/fixtures/18MEX/13315.json
    .venv/bin/python bench/bot.py --steam 5        # a standard Rust Belt game of the self-play agent

Logs with programmed actions (e.g. 1830_game_end_bank.json) are played as in the e2e test: each recorded
auto action is a command of its own, `program_*` actions are left out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fakediscord import AttachmentRef, BotRunner, FakeDiscord, UserRef  # noqa: E402
from fakediscord.recorded import flatten  # noqa: E402

from bot.session import Engine  # noqa: E402


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def steam_log(seed: int) -> dict:
    """A whole standard Rust Belt game for three players, as the engine's self-play agent plays it."""
    import random

    from engine.steam import Game, Settings
    from engine.steam.agent import choose

    game = Game(Settings(map="rust_belt", mode="standard", players=["Ann", "Bob", "Cid"], seed=seed))
    rng = random.Random(seed)
    while not game.finished:
        game.apply(choose(game, rng))
    return game.to_18xx()


async def main(log: dict, name: str, limit: int | None, pictures: bool) -> None:
    family = Engine().title(log["title"]).family
    applied = [a for _, a in flatten(Engine().load(log).actions)]
    if limit:
        applied = applied[:limit]
    fake = await FakeDiscord().start()
    with tempfile.TemporaryDirectory() as tmp:
        runner = BotRunner(fake, str(Path(tmp) / "bench.db"), pictures=pictures)
        bot = await runner.start()
        try:
            users = [fake.add_user(f"P{i}") for i in range(len(log["players"]))]
            member_of = {int(p["id"]): u for p, u in zip(log["players"], users, strict=True)}
            opts = {"file": AttachmentRef("g.json", json.dumps(dict(log, actions=[])).encode())}
            opts.update({f"player{i + 1}": UserRef(u) for i, u in enumerate(users)})
            rec = await fake.command(users[0], fake.channel_id, "game", opts, sub="import", timeout=120)
            gid = int(rec.final.content.split("#")[1].split()[0])
            thread = max(c for c, ch in fake.channels.items() if ch.get("type") == 11)

            total: list[float] = []
            with_pics: list[float] = []
            ack: list[float] = []
            t_start = time.perf_counter()
            for a in applied:
                lv = await bot.service.live(gid)
                pid = lv.session.active_players()[0] if a["entity_type"] != "player" else a["entity"]
                kind, o = family.command_for(a)
                if kind == "bankrupt":
                    r = await fake.command(member_of[int(pid)], thread, "bankrupt", {})
                    rec = await fake.click(member_of[int(pid)], r.final, f"rh:bankrupt:{gid}")
                elif family.group:
                    rec = await fake.command(member_of[int(pid)], thread, family.group, o, sub=kind, timeout=60)
                else:
                    rec = await fake.command(member_of[int(pid)], thread, kind, o, timeout=60)
                if not rec.final.content.startswith("Done"):
                    raise SystemExit(f"action {a} refused: {rec.final.content}")
                msg = rec.channel_messages[-1]
                dt = (msg.at - rec.sent_at) * 1000
                total.append(dt)
                ack.append((rec.done_at - rec.sent_at) * 1000)
                if msg.attachments:
                    with_pics.append(dt)
            wall = time.perf_counter() - t_start
        finally:
            await runner.stop()
            await fake.stop()

    print(f"{name}: {len(total)} actions in {wall:.1f} s (pictures {'on' if pictures else 'off'})")
    for name, xs in (("all actions", total), ("with pictures", with_pics), ("ephemeral ack", ack)):
        if xs:
            print(f"  {name:14s} n={len(xs):4d}  p50 {statistics.median(xs):6.1f} ms  p95 {pct(xs, 95):6.1f} ms"
                  f"  max {max(xs):6.1f} ms")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("fixture", nargs="?", default=str(ROOT / "tests/fixtures/1830/26855.json"))
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--no-pictures", action="store_true")
    ap.add_argument("--steam", type=int, metavar="SEED", help="play a self-play Steam game instead of a fixture")
    ns = ap.parse_args()
    if ns.steam is not None:
        game_log, label = steam_log(ns.steam), f"steam rust_belt standard seed {ns.steam}"
    else:
        game_log, label = json.loads(Path(ns.fixture).read_text()), Path(ns.fixture).name
    asyncio.run(main(game_log, label, ns.limit, not ns.no_pictures))
