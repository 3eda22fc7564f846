"""The game over time: each player's value and each corporation's share price at the start of every stock
round and at the end (or now, for a running game), as two line charts in one picture.

`ValueHistory` samples a game as it goes (as its log is loaded, then as it is played), `value_history(log)` replays
an 18xx.games log with the engine and samples it; `draw_chart(title, history)` draws what was sampled with
matplotlib (Agg, no display) and knows nothing of the rules.
"""

from __future__ import annotations

import io
from functools import cache
from typing import Any

from PIL import Image

from i18n import _

from . import colors as C
from .fonts import FONT_DIR
from .png import to_png

PLAYER_COLOURS = ["#e6194b", "#0082c8", "#3cb44b", "#911eb4", "#f58230", "#008080", "#800000", "#464646"]
# about 1000 x 1300 pixels: a phone shows the whole picture with legible text
FIGSIZE, DPI = (10.0, 13.0), 100
TITLE_X = 0.03  # where the headings start, a share of the width
SPREAD_POINTS = 4.0  # how far apart coinciding lines are drawn
STYLE = {
    "font.family": "DejaVu Sans",  # the copy in render/fonts (registered in _matplotlib), never a system font
    "font.size": 17,
    "axes.titlesize": 20,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#dddddd",
    "legend.fontsize": 16,
    "legend.frameon": False,
    "text.parse_math": False,  # "$3,255 … $2,436" is money, not a formula between two dollar signs
    "svg.hashsalt": "roundhouse",  # stable element ids should a chart be saved as SVG
}


class ValueHistory:
    """The chart's points, sampled as a game goes: `seen(game)` is told every state the game passes through
    before an action (`load_18xx(before_each=seen)` as a log is loaded; the bot after each action it applies,
    the state before the next one). A state before a stock round's first action is a point; `history(game)`
    adds the state now. Told a state it saw before (the game rebuilt shorter, an undo), it forgets what came
    after, so the points are always those a replay of the game's log gives."""

    def __init__(self) -> None:
        self._rounds: list[str] = []  # the round of the state after 0, 1, 2… actions
        self._points: list[tuple[int, str, dict[Any, int], dict[str, int | None]]] = []  # (actions, label, …)
        self._players: list[Any] = []  # ids in the order of the game's start (the order of the chart's lines)
        self._corporations: list[str] = []

    @property
    def seen_actions(self) -> int:
        """How many actions the last state it was told of followed (-1: none yet)."""
        return len(self._rounds) - 1

    def seen(self, game) -> None:
        done = len(game.actions)
        if done > len(self._rounds):
            raise ValueError(f"the value history missed states: told of {len(self._rounds)}, then of {done}")
        del self._rounds[done:]
        while self._points and self._points[-1][0] >= done:
            self._points.pop()
        if not self._players:
            self._players = [p.id for p in game.players]
            self._corporations = [c.sym for c in game.corporations]
        rnd = game.round
        key = rnd.description  # "Stock Round 3", "Operating Round 3.1 (of 2)"
        if (not self._rounds or self._rounds[-1] != key) and "Stock" in rnd.name:
            self._points.append((done, f"SR {game.turn}", *self._sample(game)))
        self._rounds.append(key)

    @staticmethod
    def _sample(game) -> tuple[dict[Any, int], dict[str, int | None]]:
        return ({p.id: game.player_value(p) for p in game.players},
                {c.sym: c.share_price.price if c.share_price and not c.closed else None for c in game.corporations})

    def history(self, game, title: str, names: dict[Any, str]) -> dict[str, Any]:
        """{title, labels, players: {name: [value…]}, prices: {corporation: [price or None…]}, ranking, …} of
        `game` (the game it was told of, in the state now): the points before the actions it has, then now."""
        done = len(game.actions)
        if self.seen_actions != done:
            raise ValueError(f"the value history was last told of {self.seen_actions} actions, the game has {done}")
        if not self._players:
            self.seen(game)

        def name(pid: Any) -> str:
            return names.get(pid, str(pid))

        points = [p for p in self._points if p[0] < done]
        now = self._sample(game)
        points.append((done, "end" if game.finished else "now", *now))
        players = {name(pid): [values[pid] for _, _, values, _ in points] for pid in self._players}
        prices = {sym: [price[sym] for _, _, _, price in points] for sym in self._corporations}
        ranking = sorted(((name(p.id), now[0][p.id]) for p in game.players), key=lambda kv: -kv[1])
        return {"title": str(title), "labels": [label for _, label, _, _ in points], "players": players,
                "currency": getattr(getattr(game, "rules", None), "currency_format_str", None) or "$%s",
                "prices": {sym: v for sym, v in prices.items() if any(x is not None for x in v)},
                "ranking": ranking, "finished": bool(game.finished)}


def log_names(log: dict) -> dict[Any, str]:
    """The players' names of an 18xx.games log by id (`Player 1` for one without)."""
    return {p["id"]: p.get("name") or _("Player {n}", n=p["id"]) for p in log.get("players", [])}


def value_history(log: dict, upto: int | None = None) -> dict[str, Any]:
    """The history (`ValueHistory.history`) of an 18xx.games log, replayed (`upto`: an action id)."""
    from engine.titles import load_18xx

    values = ValueHistory()
    game = load_18xx(log, upto=upto, before_each=values.seen)
    values.seen(game)
    return values.history(game, str(log.get("title")), log_names(log))


@cache
def _matplotlib():
    """matplotlib's object API on the Agg canvas (no pyplot, no display, safe off the main thread), with the
    package's fonts registered; imported on first use so other pictures don't pay for it."""
    from matplotlib import font_manager
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"):
        font_manager.fontManager.addfont(str(FONT_DIR / name))
    return Figure, FigureCanvasAgg, FuncFormatter, MaxNLocator


def _short(name: str, most: int = 14) -> str:
    return name if len(name) <= most else name[:most - 1] + "…"


def _lines(items: list[str], width: int) -> list[str]:
    """`items` joined into lines of at most `width` characters, never splitting an item."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 3 + len(item) <= width:
            lines[-1] += "   " + item
        else:
            lines.append(item)
    return lines


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _panel(ax, heading: str, labels: list[str], series: list[tuple[str, list[int | None], str]], money,
           ticks) -> None:
    """One line per series (a gap where a value is None), its legend ordered by the last value, highest first."""
    import matplotlib.patheffects as pe

    func_formatter, max_locator = ticks
    xs = list(range(len(labels)))
    high = max((v for _, values, _ in series for v in values if v is not None), default=0)
    ax.set_ylim(0, max(high, 1) * 1.06)
    # where lines coincide (two corporations at one price), each is drawn a few points apart from the others so
    # all show; the rest are drawn exactly
    apart = SPREAD_POINTS * ax.figure.dpi / 72 * ax.get_ylim()[1] / ax.bbox.height
    shifts = [[0.0] * len(labels) for _ in series]
    for x in xs:
        same: dict[int, list[int]] = {}
        for i, (_name, values, _colour) in enumerate(series):
            if x < len(values) and values[x] is not None:
                same.setdefault(values[x], []).append(i)
        for group in same.values():
            for k, i in enumerate(group):
                shifts[i][x] = (k - (len(group) - 1) / 2) * apart
    ends = []
    for i, (name, values, colour) in enumerate(series):
        ys = [float("nan") if v is None else v + shifts[i][x] for x, v in enumerate(values)]
        # a dark rim keeps light colours (a yellow or white corporation) visible on white
        line, = ax.plot(xs, ys, color=colour, linewidth=3.0, marker="o", markersize=6.5,
                        path_effects=[pe.Stroke(linewidth=4.4, foreground="#555555"), pe.Normal()])
        last = next((v for v in reversed(values) if v is not None), None)
        if last is not None:
            ends.append((-last, name, line, f"{_short(name)} {money(last)}"))
    ends.sort(key=lambda e: e[:2])
    box = ax.get_position()  # the heading starts at the figure's margin, as the ranking above does: in
    ax.set_title(heading, pad=12, x=(TITLE_X - box.x0) / box.width)  # Russian it ran past the right edge
    ax.set_xlim(-0.3, max(len(labels) - 1, 1) + 0.3)
    ax.yaxis.set_major_locator(max_locator(nbins=5, steps=[1, 2, 2.5, 5, 10], integer=True))
    ax.yaxis.set_major_formatter(func_formatter(lambda v, _pos: money(int(v))))
    every = max(1, -(-len(labels) // 8))  # at most 8 labels across a phone's width
    # ... and none crowding the last (`SR 9` against `end`)
    shown = [i for i in xs if i % every == 0 and xs[-1] - i >= every] + xs[-1:]
    ax.set_xticks(shown, [labels[i] for i in shown])
    ax.grid(axis="x", visible=False)
    if ends:
        ax.legend([e[2] for e in ends], [e[3] for e in ends], loc="upper left", bbox_to_anchor=(1.0, 1.0),
                  handlelength=1.2, borderaxespad=0.3, labelspacing=0.5)


def _label(label: str) -> str:
    """A point's label (`SR 3`, `end`, `now`: the history's) in the language in force."""
    if label.startswith("SR "):
        return _("SR {n}", n=label[3:])
    return {"end": _("end"), "now": _("now")}.get(label, label)


def draw_chart(title: str, history: dict[str, Any]) -> bytes:
    """Players' values above, share prices below, one point per stock round (see the module docstring)."""
    import matplotlib

    with matplotlib.rc_context(STYLE):
        fig = chart_figure(title, history)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})  # no version stamp in the file
    return to_png(Image.open(buf))


def chart_figure(title: str, history: dict[str, Any]):
    """The chart as a matplotlib figure on an Agg canvas; drawn under `STYLE` (draw_chart sets it)."""
    figure, canvas, func_formatter, max_locator = _matplotlib()
    labels = [_label(x) for x in history["labels"]]
    currency = history.get("currency") or "$%s"

    def money(v: int) -> str:
        return currency.replace("%s", f"{v:,}")

    ranking = [f"{i}. {_short(name, 20)} {money(v)}"
               for i, (name, v) in enumerate(history.get("ranking") or [], start=1)]
    heading = _("{title} — final ranking", title=title) if history.get("finished") else \
        _("{title} — standing now", title=title)
    fig = figure(figsize=FIGSIZE, dpi=DPI, facecolor="white")
    canvas(fig)
    lines = [heading, *_lines(ranking, 72)]
    fig.suptitle("\n".join(lines), x=TITLE_X, y=0.99, ha="left", va="top",
                 fontsize=19, fontweight="bold", linespacing=1.4)
    top, bottom = fig.subplots(2, 1, gridspec_kw={"hspace": 0.32})
    fig.subplots_adjust(left=0.13, right=0.72, top=0.92 - 0.03 * len(lines), bottom=0.04)
    players = [(name, vs, PLAYER_COLOURS[i % len(PLAYER_COLOURS)])
               for i, (name, vs) in enumerate(history["players"].items())]
    ticks = (func_formatter, max_locator)
    _panel(top, _("Players' value (cash, shares at market price, privates)"), labels, players, money, ticks)
    corps = [(sym, vs, _hex(C.entity(title, sym)[0])) for sym, vs in history["prices"].items()]
    _panel(bottom, _("Share prices"), labels, corps, money, ticks)
    return fig
