"""1860: Railways on the Isle of Wight."""

from engine.titles.g1860.game import Game1860

GAME = Game1860

__all__ = ["GAME", "Game1860"]
