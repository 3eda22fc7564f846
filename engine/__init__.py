"""Roundhouse rules engines: a title-independent 18xx core, one folder per 18xx title, and Steam.

A game is its settings plus its action log; state is derived by applying the actions.
"""

from engine.core.errors import GameError

__all__ = ["GameError"]
