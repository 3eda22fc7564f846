"""Steam pictures: pure functions from a game's state (plain data) to PNG bytes.

* `draw_board(view)`: the board, from engine.steam.Game.view().
* `draw_players(summary)`: the players and the action tiles, from Game.summary() (view() works too).
* `warm(map_id)`: prepare a map's terrain picture.
"""

from .board import draw_board
from .players import draw_players

PICTURES = {"map": lambda g: draw_board(g.view()), "players": lambda g: draw_players(g.summary())}


def warm(map_id: str) -> None:
    """Draw a map's terrain ahead of its first picture (that takes most of a second)."""
    from .board import _terrain

    _terrain(map_id)


def picture_of_log(log: dict, at: int | None, what: str) -> bytes:
    """A picture ("map" or "players") of a Steam log's game after action id `at` (default: the end)."""
    from engine.steam import Game

    if what not in PICTURES:
        raise ValueError(f"Steam has {' and '.join(PICTURES)} pictures, not {what!r}")
    return PICTURES[what](Game.from_18xx(log, upto=at))


__all__ = ["PICTURES", "draw_board", "draw_players", "picture_of_log", "warm"]
