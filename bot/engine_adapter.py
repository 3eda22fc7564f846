"""The single place where the bot touches the rules engine and the renderer.

Everything else in bot/ goes through an `Engine` instance, so tests can hand the service a fake one and
integration with engine/ and render/ is a change of this file only.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

log = logging.getLogger(__name__)

TITLES = ("1830",)


class GameLike(Protocol):  # what the bot needs from a game object (engine.titles API)
    actions: list[dict]
    finished: bool
    end_reason: str | None

    def apply(self, action: dict) -> dict: ...
    def undo(self) -> None: ...
    def to_18xx(self) -> dict: ...
    def active_players(self) -> list[int]: ...
    def acting_entity(self) -> dict: ...
    def legal_actions(self) -> list[dict]: ...
    def result(self) -> dict[str, int]: ...
    def summary(self) -> dict: ...


class _MissingGameError(Exception):
    pass


def _game_error_class() -> type[Exception]:
    try:
        from engine import GameError
        return GameError
    except ImportError:
        pass
    try:  # an editable install made before engine/__init__.py existed sees `engine` as a namespace package
        from engine.core.errors import GameError
        return GameError
    except ImportError:  # pragma: no cover
        return _MissingGameError


class Engine:
    """Real engine + renderer. Methods are synchronous and may be slow: call them off the event loop."""

    titles = TITLES

    def __init__(self) -> None:
        self.GameError: type[Exception] = _game_error_class()

    # ------------------------------------------------------------------ games
    def create(self, title: str, players: list[dict], seed: int, optional_rules: list[str]) -> GameLike:
        from engine.titles import create_game
        return create_game(title, players=players, seed=seed, optional_rules=list(optional_rules))

    def load(self, log_dict: dict) -> GameLike:
        """Build a game from an 18xx.games log (undo/redo resolved by the engine)."""
        from engine.titles import load_18xx
        return load_18xx(log_dict)

    @staticmethod
    def log_dict(title: str, players: list[dict], seed: int, optional_rules: list[str],
                 actions: list[dict], game_id: Any = None) -> dict:
        return {
            "id": game_id if game_id is not None else seed,
            "title": title,
            "players": players,
            "settings": {"seed": seed, "optional_rules": list(optional_rules)},
            "actions": actions,
        }

    def replay(self, title: str, players: list[dict], seed: int, optional_rules: list[str],
               actions: list[dict]) -> GameLike:
        if not actions:
            return self.create(title, players, seed, optional_rules)
        return self.load(self.log_dict(title, players, seed, optional_rules, actions))

    def is_game_error(self, exc: BaseException) -> bool:
        if self.GameError is _MissingGameError:  # engine imported after this adapter was made
            self.GameError = _game_error_class()
        return isinstance(exc, self.GameError)

    # ------------------------------------------------------------------ pictures
    @staticmethod
    def _draw(name: str, *args: Any, **kwargs: Any) -> bytes | None:
        """render.<name>(...) as PNG bytes; None without a renderer or when drawing fails."""
        try:
            import render
        except ImportError:
            return None
        fn = getattr(render, name, None)
        if fn is None:
            return None
        try:
            return fn(*args, **kwargs)
        except Exception:  # a picture must never block a move
            log.exception("%s failed", name)
            return None

    def draw_map(self, game: GameLike, ran: str | None = None) -> bytes | None:
        """The map with the privates blocking now; with `ran` (a corporation), the run it just made."""
        routes = caption = None
        if ran and game.last_routes.get(ran):  # type: ignore[attr-defined]
            routes = game.last_routes[ran]  # type: ignore[attr-defined]
            caption = f"{ran} ran ${sum(revenue for _, revenue, _ in routes)}:"
        return self._draw("draw_map", game.map_view(), routes=routes, caption=caption)  # type: ignore[attr-defined]

    def warm_pictures(self, title: str) -> None:
        """Prepare a title's starting map picture so the first move of the day isn't slow to show."""
        self._draw("warm", title)

    def draw_market(self, game: GameLike, title: str) -> bytes | None:
        return self._draw("draw_market", title, game.summary())

    def draw_companies(self, game: GameLike, title: str) -> bytes | None:
        return self._draw("draw_companies", title, game.summary())


def engine_available() -> bool:
    try:
        import engine.titles  # noqa: F401
        from engine.titles import create_game, load_18xx  # noqa: F401
    except Exception:
        return False
    return True
