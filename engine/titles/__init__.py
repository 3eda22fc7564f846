"""Title registry: create a game by title, or load an 18xx.games log."""

from __future__ import annotations

from engine.core.errors import GameError
from engine.core.game import BaseGame
from engine.titles.g1830 import Game1830

TITLES: dict[str, type[BaseGame]] = {"1830": Game1830}


def game_class(title: str) -> type[BaseGame]:
    try:
        return TITLES[title]
    except KeyError:
        raise GameError(f"no rules engine for {title!r} yet; playable: {', '.join(TITLES)}") from None


def create_game(title: str, players: list[dict], seed: int = 0, optional_rules=(), game_id=None) -> BaseGame:
    return game_class(title)(players, seed, optional_rules, game_id)


def load_18xx(log: dict, upto: int | None = None) -> BaseGame:
    """An 18xx.games game log replayed through our rules (undo/redo resolved, auto actions applied)."""
    return game_class(str(log.get("title"))).from_18xx(log, upto=upto)


__all__ = ["TITLES", "create_game", "load_18xx", "game_class"]
