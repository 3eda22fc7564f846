"""Pictures of a game: pure functions from game state (plain data) to PNG bytes, drawn with Pillow.

* `draw_map(view, routes=None)`: the map; `view` is HexMap.view() (or render.mapview.starting_view /
  view_from_trace).
* `draw_market(title, summary, facts)`: the stock market with the corporations' price tokens (in stack order).
* `draw_companies(title, summary, facts, part=None)`: corporations, players, privates, bank, phase and depot;
  `part="corporations"`, `"shares"` (1817's corporations' shares and loans; None elsewhere) or `"players"`
  (players, privates, depot) one part of it, for a phone.
* `draw_chart(title, history)`: players' values and share prices by stock round (`chart.value_history(log)`).

`summary` is a state dict in the format of the 18xx.games trace lines (docs/formats/traces.md).
"""

from .chart import draw_chart
from .companies import draw_companies
from .mapdraw import draw_map
from .market import draw_market


def warm(title: str) -> None:
    """Build a title's cached starting map ahead of its first picture (that takes a few hundred ms)."""
    from .mapdraw import _static

    _static(title)


__all__ = ["draw_chart", "draw_companies", "draw_map", "draw_market", "warm"]
