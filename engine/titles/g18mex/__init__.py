"""18MEX: The Railroads Come to Mexico."""

from engine.titles.g18mex.game import Game18MEX

GAME = Game18MEX

__all__ = ["GAME", "Game18MEX"]
