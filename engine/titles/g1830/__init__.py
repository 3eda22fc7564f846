"""1830: Railways & Robber Barons."""

from engine.titles.g1830.game import Game1830

GAME = Game1830

__all__ = ["GAME", "Game1830"]
