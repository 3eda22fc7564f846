"""Recorded games as the commands members would send (e2e tests and bench), and a quick renderer."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator

from bot.session import Engine

SKIPPED = ("program_",)  # programs only shape the server's auto actions; those are submitted by hand here


def flatten(applied: list[dict]) -> Iterator[tuple[int, dict]]:
    """(trace index, action) for each action a member submits, in order.

    The engine's applied log keeps the server's `auto_actions` inside the action that triggered them; the
    fixture trace has one state per action *and* per auto action. Each auto action becomes a separate
    command by the member it belongs to, at the point it occurred; programmed actions (`program_*`, which
    change nothing in the game) are left out. The index is that of the trace state before the action.
    """
    k = 0
    for action in applied:
        for a in (action, *action.get("auto_actions", ())):
            if not a["type"].startswith(SKIPPED):
                yield k, {key: v for key, v in a.items() if key != "auto_actions"}
            k += 1


def controller(action: dict, state: dict, previous: dict | None = None) -> int:
    """Player id who must submit `action`, from the trace state before it (and the action before it: a
    corporation without a president yet, 1817's being auctioned, has its home chosen by the player who
    opened the auction)."""
    if action["entity_type"] == "player":
        return int(action["entity"])
    if action["entity_type"] == "corporation":
        pres = state["corporations"][action["entity"]].get("pres")
        if pres is None and previous is not None:
            return int(previous["entity"])
        return int(pres)
    if action["entity_type"] == "minor":
        return int(state["minors"][action["entity"]]["owner"])
    owner = state["companies"][action["entity"]]
    return int(owner) if isinstance(owner, int) else int(state["corporations"][owner]["pres"])


class QuickPictures(Engine):
    """The real rules engines; every picture a tiny PNG, so a whole game through Discord stays fast."""

    def __init__(self) -> None:
        super().__init__()
        self.drawn: list[str] = []

    def picture(self, session, kind, change=None, names=None):
        self.drawn.append(kind)
        return tiny_png(kind)


def console_moves(title: str, log: dict, trace: list[dict], actions: list[dict]) -> Iterator[tuple[str, str]]:
    """Each of the recorded actions as the console line its player types (`as SEAT COMMAND …`), with its kind."""
    from bot.console import Console
    from bot.families.g18xx import G18xx
    from engine.titles import rules_class

    session = G18xx(title, rules_class(title).from_18xx(dict(log, actions=[])))
    seat = {p["id"]: i for i, p in enumerate(log["players"], start=1)}
    steps = list(flatten(actions))
    for n, (k, action) in enumerate(steps):
        kind, opts = session.command_for(action)
        who = seat[controller(action, trace[k], steps[n - 1][1] if n else None)]
        yield f"as {who} {kind} {Console.command_words(session, kind, opts)}", kind


async def console_text(tmp_path, lines: list[str]) -> str:
    """What the console prints for `lines` typed one after another, on a fresh database under `tmp_path`;
    no line may be refused."""
    import io

    from bot.config import Config
    from bot.console import run_console

    out = io.StringIO()
    await run_console(Config(db_path=str(tmp_path / "c.db"), out_dir=str(tmp_path / "out")),
                      stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out)
    text = out.getvalue()
    assert "! " not in text, text[text.index("! ") - 300:text.index("! ") + 300]
    return text


def tiny_png(text: str = "x") -> bytes:
    """A valid 1x1 PNG (the quick renderer's picture)."""
    raw = b"\x00\xff\xff\xff"

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"tEXt", b"c\x00" + text.encode()) + chunk(b"IEND", b""))
