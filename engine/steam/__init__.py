"""Steam (Martin Wallace): rules engine for the basic and the standard game, on any map from data.

Entry points: :class:`engine.steam.game.Game`, :class:`engine.steam.game.Settings`,
:func:`engine.steam.board.load_board`, and the pydantic action models in :mod:`engine.steam.actions`.
"""

from engine.steam.actions import Action, parse_action
from engine.steam.board import Board, MapError, load_board, map_names
from engine.steam.game import Game, Settings

__all__ = ["Action", "Board", "Game", "MapError", "Settings", "load_board", "map_names", "parse_action"]
