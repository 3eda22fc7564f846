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
    # Every game these return is ready for live play: standing orders (programs) act after each new
    # action, whether the game was just created, rebuilt from its stored log, or imported.
    @staticmethod
    def _live(game: GameLike) -> GameLike:
        game.generate_auto_actions = True  # type: ignore[attr-defined]
        return game

    def create(self, title: str, players: list[dict], seed: int, optional_rules: list[str],
               game_id: Any = None) -> GameLike:
        from engine.titles import create_game
        return self._live(create_game(title, players=players, seed=seed, optional_rules=list(optional_rules),
                                      game_id=game_id))

    def load(self, log_dict: dict) -> GameLike:
        """Build a game from an 18xx.games log (undo/redo resolved by the engine)."""
        from engine.titles import load_18xx
        return self._live(load_18xx(log_dict))

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
               actions: list[dict], game_id: Any = None) -> GameLike:
        if not actions:
            return self.create(title, players, seed, optional_rules, game_id)
        return self.load(self.log_dict(title, players, seed, optional_rules, actions, game_id))

    def is_game_error(self, exc: BaseException) -> bool:
        if self.GameError is _MissingGameError:  # engine imported after this adapter was made
            self.GameError = _game_error_class()
        return isinstance(exc, self.GameError)

    # ------------------------------------------------------------------ facts for messages
    @staticmethod
    def turn_info(game: GameLike) -> dict:
        """What the acting entity may do now, as the engine tells it (engine.core.turninfo): `types`, `step`
        and the step's facts (`auction`, `cheapest`, `par`, `must_buy` / `emergency`, `tile_lay`, `merge`...).
        Empty when the engine cannot tell."""
        try:
            return game.turn_info()  # type: ignore[attr-defined]
        except Exception:  # messages are best effort: never let them block a move
            log.exception("turn_info failed")
            return {}

    @staticmethod
    def map_facts(game: GameLike) -> dict:
        """Location names by hex, the map layout, each phase's train limit, tiles and rules, what each private
        pays, and per-operator facts, as the engine tells them (engine.core.turninfo.facts)."""
        try:
            return game.facts()  # type: ignore[attr-defined]
        except Exception:
            log.exception("map_facts failed")
            return {}

    @staticmethod
    def tile_exits(game: GameLike, tile: str, rotation: int) -> list[int] | None:
        """The edges a tile (a copy id like `57-0` or a name) leaves by at a rotation; None if unknown."""
        try:
            manifest = game.hexmap._manifest  # type: ignore[attr-defined]
            name = tile if tile in manifest else tile.rsplit("-", 1)[0]
            rec = manifest.get(name)
            if rec is None:
                return None
            edges = {(e + rotation) % 6 for p in rec.get("paths", ()) for e in (p.get("a"), p.get("b"))
                     if isinstance(e, int)}
            return sorted(edges)
        except Exception:
            log.exception("tile_exits failed")
            return None

    @staticmethod
    def city_hex(game: GameLike, city: str) -> str | None:
        """The hex of a city id (`57-0-0`), None if unknown."""
        try:
            h = game.hexmap.city(city).hex  # type: ignore[attr-defined]
            return h.coord if h is not None else None
        except Exception:
            return None

    @staticmethod
    def player_names(game: GameLike) -> dict[int, str]:
        try:
            return {p.id: p.name for p in game.players}  # type: ignore[attr-defined]
        except Exception:
            return {}

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

    def _named_summary(self, game: GameLike) -> dict:
        """The summary with the players' names, so pictures say "Ann" rather than "Player 1"."""
        summary = game.summary()
        names = self.player_names(game)
        for p in summary.get("players", []) or []:
            if p.get("id") in names and not p.get("name"):
                p["name"] = names[p["id"]]
        return summary

    def draw_market(self, game: GameLike, title: str) -> bytes | None:
        return self._draw("draw_market", title, self._named_summary(game))

    def draw_companies(self, game: GameLike, title: str) -> bytes | None:
        return self._draw("draw_companies", title, self._named_summary(game))


def engine_available() -> bool:
    try:
        import engine.titles  # noqa: F401
        from engine.titles import create_game, load_18xx  # noqa: F401
    except Exception:
        return False
    return True
