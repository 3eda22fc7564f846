"""Copies of a game's state at points of its log, so that a refused action or an undo goes back to an
earlier state without replaying the whole log.

A checkpoint is the game's state at a position of its log (the number of actions applied). Going back to
position p puts back the latest checkpoint at or before p and applies the few logged actions between.

The state is pickled, except two big, mostly fixed parts that stay in place: the map and the stock market.
Their pieces (hexes, tiles, cities, paths; market cells) save the fields that change in play (`HexMap.state`,
`StockMarket.state`), their own attributes are pickled but those set up once from the title data (`FIXED`)
and caches, and the pickle refers to them, and to market cells, by name. Should anything else hold a piece of
the map, the whole state, map included, is pickled instead. The action log, the game's modes and the shared
title data are never part of a checkpoint.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from dataclasses import dataclass

from engine.core.hexmap import Hex, HexMap
from engine.core.market import Cell, StockMarket
from engine.core.tiles import City, Node, Path, Shape, Tile

# game attributes a checkpoint leaves out: the log (append-only, cut back on restore), how the game is
# being driven (and where an action being applied has got to), the checkpoints and the shared title data
NOT_SAVED = frozenset({"actions", "generate_auto_actions", "changing", "checkpoints", "data"})
MAP_PIECES = (Hex, Tile, Node, City, Path, Shape)


class _MapPieceOutsideMap(Exception):
    pass


# Stand-ins for the objects that stay in place, inside a pickled state; `_Loader` resolves them against the
# game being restored.
def _the_game():
    raise pickle.UnpicklingError("a game state is loaded by engine.core.checkpoints only")


def _the_map():
    raise pickle.UnpicklingError("a game state is loaded by engine.core.checkpoints only")


def _the_market():
    raise pickle.UnpicklingError("a game state is loaded by engine.core.checkpoints only")


def _market_cell(cell_id: str):
    raise pickle.UnpicklingError("a game state is loaded by engine.core.checkpoints only")


def _refer_to_game(_game):
    return _the_game, ()


def _refer_to_map(_map):
    return _the_map, ()


def _refer_to_market(_market):
    return _the_market, ()


def _refer_to_cell(cell: Cell):
    return _market_cell, (cell.id,)


def _refuse_map_piece(piece):
    raise _MapPieceOutsideMap(type(piece).__name__)


class _Loader(pickle.Unpickler):
    def __init__(self, data: bytes, game) -> None:
        super().__init__(io.BytesIO(data))
        self.game = game

    def find_class(self, module: str, name: str):
        if module == __name__:
            game = self.game
            if name == "_the_game":
                return lambda: game
            if name == "_the_map":
                return lambda: game.hexmap
            if name == "_the_market":
                return lambda: game.market
            if name == "_market_cell":
                return lambda cell_id: game.market.cells[cell_id]
        return super().find_class(module, name)


@dataclass
class Checkpoint:
    position: int
    state: bytes  # pickled (attributes, market state or None)
    map_state: tuple | None  # None: the map is in `state`


def _with_subclasses(classes) -> set[type]:
    out = set()
    todo = list(classes)
    while todo:
        cls = todo.pop()
        if cls not in out:
            out.add(cls)
            todo.extend(cls.__subclasses__())
    return out


_tables: dict[tuple[type, bool], dict] = {}


def _dispatch_table(game_type: type, map_apart: bool) -> dict:
    table = _tables.get((game_type, map_apart))
    if table is None:
        table = {**copyreg.dispatch_table, game_type: _refer_to_game}
        table.update((cls, _refer_to_market) for cls in _with_subclasses([StockMarket]))
        table.update((cls, _refer_to_cell) for cls in _with_subclasses([Cell]))
        if map_apart:
            table.update((cls, _refer_to_map) for cls in _with_subclasses([HexMap]))
            table.update((piece, _refuse_map_piece) for piece in _with_subclasses(MAP_PIECES))
        table = _tables[(game_type, map_apart)] = table
    return table


def _own_attributes(part) -> dict:
    """A part kept in place: its attributes but those fixed at setup and caches."""
    skip = type(part).FIXED | getattr(type(part), "CACHES", frozenset())
    return {k: v for k, v in vars(part).items() if k not in skip}


def _pickle(game, map_apart: bool) -> bytes:
    market = getattr(game, "market", None)
    market_state = (market.state(), _own_attributes(market)) if isinstance(market, StockMarket) else None
    map_attributes = _own_attributes(game.hexmap) if map_apart else None
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _dispatch_table(type(game), map_apart)
    pickler.dump(({k: v for k, v in game.__dict__.items() if k not in NOT_SAVED}, market_state, map_attributes))
    return buffer.getvalue()


def save(game, position: int, previous: Checkpoint | None = None) -> Checkpoint:
    """The game's state now, as the state at `position` of its log (sharing with `previous` what has not
    changed since)."""
    hexmap = getattr(game, "hexmap", None)
    if isinstance(hexmap, HexMap):
        try:
            state = _pickle(game, map_apart=True)
            return Checkpoint(position, state, hexmap.state(previous.map_state if previous else None))
        except _MapPieceOutsideMap:
            pass
    return Checkpoint(position, _pickle(game, map_apart=False), None)


def restore(game, checkpoint: Checkpoint) -> None:
    """Put a saved state back into `game` in place (objects that hold the game keep holding it)."""
    attributes, market_state, map_attributes = _Loader(checkpoint.state, game).load()
    for key in [k for k in game.__dict__ if k not in NOT_SAVED]:
        del game.__dict__[key]
    game.__dict__.update(attributes)
    if market_state is not None:
        cells, own = market_state
        game.market.set_state(cells)
        game.market.__dict__.update(own)
    if checkpoint.map_state is not None:
        game.hexmap.set_state(checkpoint.map_state)
        game.hexmap.__dict__.update(map_attributes)


class Checkpoints:
    """The latest few checkpoints of one game, one at most every `every` actions: going back costs
    restoring one and applying at most `every` actions again."""

    def __init__(self, every: int = 32, keep: int = 3) -> None:
        self.every = every
        self.keep = keep
        self.saved: list[Checkpoint] = []  # in log order
        self.enabled = True  # off while a log is loaded in one go
        self.broken = False  # the state can't be pickled: going back replays the log instead

    def due(self, position: int) -> bool:
        if not self.enabled or self.broken:
            return False
        return not self.saved or position - self.saved[-1].position >= self.every

    def take(self, game, position: int) -> None:
        """Save the game's current state as the state at `position` (none while a corporation's walk is kept
        through stations taken off the map: walks are worked out again from the map on restoring, so going
        back starts from a checkpoint before the stations came off and replays their removal)."""
        if getattr(game, "walks_kept_since_lay", None):
            return
        self.forget_after(position - 1)
        try:
            checkpoint = save(game, position, self.saved[-1] if self.saved else None)
        except Exception:  # something in the state can't be pickled
            self.broken = True
            self.saved.clear()
            return
        self.saved.append(checkpoint)
        del self.saved[: -self.keep]

    def at_or_before(self, position: int) -> Checkpoint | None:
        for checkpoint in reversed(self.saved):
            if checkpoint.position <= position:
                return checkpoint
        return None

    def forget_after(self, position: int) -> None:
        """Drop checkpoints of states after `position` (those actions are being taken back)."""
        while self.saved and self.saved[-1].position > position:
            self.saved.pop()
