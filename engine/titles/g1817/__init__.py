"""1817 (rules partly built: see docs/1817.md; not offered to players yet)."""

from engine.titles.g1817.game import Game1817

GAME = Game1817

__all__ = ["GAME", "Game1817"]
