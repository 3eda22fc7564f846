"""The title registry: every 18xx title with its folder, facts from its data, and its rules engine.

A title is a folder `engine/titles/g<title>/` with its data in `data/` (meta.json names it); its package
exports `GAME`, the game class, once the title has a rules engine. A rules engine still being built
(`GAME.PLAYABLE` false) replays logs as far as its rules go but is not offered to players. Nothing else
lists titles: the bot, the pictures and the command-line tools read `REGISTRY` (all titles) or `TITLES`
(the playable ones).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from engine.core import data as title_data
from engine.core.errors import GameError
from engine.core.game import BaseGame


@dataclass(frozen=True)
class Title:
    name: str  # as in game logs: "1830", "18MEX"
    display_name: str
    full_name: str
    player_range: tuple[int, int]
    optional_rules: tuple[tuple[str, str], ...]  # (sym, short name)
    data_dir: Path
    game_class: type[BaseGame] | None  # None: data only, no rules engine yet

    @property
    def playable(self) -> bool:
        return self.game_class is not None and self.game_class.PLAYABLE

    @property
    def playable_rules(self) -> tuple[tuple[str, str], ...]:
        """The optional rules a game of this title may be created with."""
        if not self.playable:
            return ()
        return tuple(r for r in self.optional_rules if r[0] not in self.game_class.UNSUPPORTED_OPTIONAL_RULES)


def _discover() -> dict[str, Title]:
    out = {}
    for name, path in title_dirs_sorted():
        meta = title_data.load(name)["meta"]
        package = importlib.import_module(f"engine.titles.{path.parent.name}")
        low, high = meta["player_range"]
        out[name] = Title(
            name=name, display_name=meta.get("display_title") or name, full_name=meta.get("full_title") or name,
            player_range=(low, high),
            optional_rules=tuple((r["sym"], r.get("short_name", r["sym"])) for r in meta.get("optional_rules", ())),
            data_dir=path, game_class=getattr(package, "GAME", None))
    return out


def title_dirs_sorted() -> list[tuple[str, Path]]:
    return sorted(title_data.title_dirs().items())


REGISTRY: dict[str, Title] = _discover()
TITLES: dict[str, type[BaseGame]] = {name: t.game_class for name, t in REGISTRY.items() if t.playable}


def game_class(title: str) -> type[BaseGame]:
    try:
        return TITLES[title]
    except KeyError:
        raise GameError("no rules engine for {title} yet; playable: {titles}", title=repr(title),
                        titles=', '.join(TITLES)) from None


def rules_class(title: str) -> type[BaseGame]:
    """The rules engine of a title, also one still being built (replays and tools; players get `game_class`)."""
    entry = REGISTRY.get(title)
    if entry is None or entry.game_class is None:
        return game_class(title)
    return entry.game_class


def create_game(title: str, players: list[dict], seed: int = 0, optional_rules=(), game_id=None) -> BaseGame:
    return game_class(title)(players, seed, optional_rules, game_id)


def load_18xx(log: dict, upto: int | None = None, before_each=None) -> BaseGame:
    """An 18xx.games game log replayed through our rules (undo/redo resolved, auto actions applied);
    `before_each(game)` is called before each action."""
    if not isinstance(log, dict):
        raise GameError("a game log is a JSON object, not {name}", name=type(log).__name__)
    return game_class(str(log.get("title"))).from_18xx(log, upto=upto, before_each=before_each)


__all__ = ["REGISTRY", "TITLES", "Title", "create_game", "load_18xx", "game_class", "rules_class"]
