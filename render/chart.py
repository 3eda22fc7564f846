"""The game over time: each player's value and each corporation's share price at the start of every stock
round and at the end (or now, for a running game), as two line charts in one picture.

`value_history(log)` replays an 18xx.games log with the engine and samples it; `draw_chart(title, history)`
draws what was sampled and knows nothing of the rules.
"""

from __future__ import annotations

import math
from typing import Any

from PIL import Image, ImageDraw

from . import colors as C
from .fonts import font
from .png import to_png

WIDTH = 1400
PANEL_H = 420
LEFT, RIGHT, TOP = 90, 260, 64
GRID = (225, 225, 225)
AXIS = (90, 90, 90)
PLAYER_COLOURS = [(230, 25, 75), (0, 130, 200), (60, 180, 75), (145, 30, 180), (245, 130, 48), (0, 128, 128),
                  (128, 0, 0), (70, 70, 70)]


def value_history(log: dict, upto: int | None = None) -> dict[str, Any]:
    """{title, labels, players: {name: [value…]}, prices: {corporation: [price or None…]}, ranking}: the
    game sampled before each stock round's first action and after its last action (`upto`: an action id)."""
    from engine.titles import load_18xx

    actions = load_18xx(log, upto=upto).actions
    game = load_18xx({**log, "actions": []})
    names = {p["id"]: p.get("name") or f"Player {p['id']}" for p in log.get("players", [])}
    labels: list[str] = []
    players: dict[str, list[int]] = {names.get(p.id, str(p.id)): [] for p in game.players}
    prices: dict[str, list[int | None]] = {c.sym: [] for c in game.corporations}

    def sample(label: str) -> None:
        labels.append(label)
        for p in game.players:
            players[names.get(p.id, str(p.id))].append(game.player_value(p))
        for c in game.corporations:
            prices[c.sym].append(c.share_price.price if c.share_price and not c.closed else None)

    seen_round = None
    for action in actions:
        rnd = game.round
        key = rnd.description  # "Stock Round 3", "Operating Round 3.1 (of 2)"
        if key != seen_round and "Stock" in rnd.name:
            sample(f"SR {game.turn}")
        seen_round = key
        game.apply(action)
    sample("end" if game.finished else "now")
    ranking = sorted(((names.get(p.id, str(p.id)), game.player_value(p)) for p in game.players),
                     key=lambda kv: -kv[1])
    return {"title": str(log.get("title")), "labels": labels, "players": players,
            "currency": getattr(getattr(game, "rules", None), "currency_format_str", None) or "$%s",
            "prices": {sym: v for sym, v in prices.items() if any(x is not None for x in v)},
            "ranking": ranking, "finished": bool(game.finished)}


def _nice_step(span: float) -> int:
    """A round grid step giving about five lines over `span`."""
    raw = max(span / 5, 1)
    mag = 10 ** math.floor(math.log10(raw))
    return int(next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw))


def _panel(d: ImageDraw.ImageDraw, y0: int, heading: str, labels: list[str],
           series: list[tuple[str, list[int | None], tuple[int, int, int]]], money) -> None:
    x0, x1 = LEFT, WIDTH - RIGHT
    top, bottom = y0 + 40, y0 + PANEL_H - 50
    d.text((20, y0 + 6), heading, font=font(22, "bold"), fill=C.BLACK)
    values = [v for _, vs, _ in series for v in vs if v is not None]
    high = max(values, default=1)
    step = _nice_step(high)
    high = step * math.ceil(high / step) or step
    small = font(15)

    def x_at(i: int) -> float:
        return x0 + (x1 - x0) * (i / max(1, len(labels) - 1))

    def y_at(v: float) -> float:
        return bottom - (bottom - top) * v / high

    for v in range(0, high + 1, step):
        y = y_at(v)
        d.line((x0, y, x1, y), fill=GRID, width=1)
        d.text((x0 - 8, y), money(v), font=small, fill=AXIS, anchor="rm")
    every = max(1, math.ceil(len(labels) / 16))
    for i, label in enumerate(labels):
        if i % every == 0 or i == len(labels) - 1:
            d.text((x_at(i), bottom + 8), label, font=small, fill=AXIS, anchor="mt")
    d.line((x0, bottom, x1, bottom), fill=AXIS, width=2)
    ends: list[tuple[float, str, tuple[int, int, int]]] = []
    for name, vs, colour in series:
        run: list[tuple[float, float]] = []
        for i, v in enumerate(vs):
            if v is None:
                if len(run) > 1:
                    d.line(run, fill=colour, width=4, joint="curve")
                run = []
                continue
            run.append((x_at(i), y_at(v)))
        if len(run) > 1:
            d.line(run, fill=colour, width=4, joint="curve")
        for x, y in run:
            d.ellipse((x - 4, y - 4, x + 4, y + 4), fill=colour)
        last = next(((i, v) for i, v in reversed(list(enumerate(vs))) if v is not None), None)
        if last is not None:
            ends.append((y_at(last[1]), f"{name} {money(last[1])}", colour))
    # labels at the right, in the order of the lines' ends, kept apart
    ends.sort()
    placed: list[float] = []
    for y, text, colour in ends:
        y = max(y, placed[-1] + 20) if placed else y
        placed.append(y)
        d.line((x1 + 6, y, x1 + 24, y), fill=colour, width=4)
        d.text((x1 + 30, y), text, font=font(16, "bold"), fill=C.BLACK, anchor="lm")


def draw_chart(title: str, history: dict[str, Any]) -> bytes:
    """Players' values above, share prices below, one point per stock round (see the module docstring)."""
    labels = history["labels"]
    currency = history.get("currency") or "$%s"

    def money(v: int) -> str:
        return currency.replace("%s", str(v))

    img = Image.new("RGB", (WIDTH, TOP + 2 * PANEL_H + 20), C.WHITE)
    d = ImageDraw.Draw(img)
    ranking = ", ".join(f"{i}. {name} {money(v)}" for i, (name, v) in enumerate(history.get("ranking") or [], start=1))
    heading = f"{title} — {'final ranking' if history.get('finished') else 'standing now'}: {ranking}"
    size = 22
    while size > 12 and d.textlength(heading, font=font(size, "bold")) > WIDTH - 40:
        size -= 1
    d.text((20, 14), heading, font=font(size, "bold"), fill=C.BLACK)
    players = [(name, vs, PLAYER_COLOURS[i % len(PLAYER_COLOURS)])
               for i, (name, vs) in enumerate(history["players"].items())]
    _panel(d, TOP, "Players' value (cash, shares at market price, privates)", labels, players, money)
    corps = [(sym, vs, C.entity(title, sym)[0]) for sym, vs in history["prices"].items()]
    _panel(d, TOP + PANEL_H, "Share prices", labels, corps, money)
    return to_png(img)
