"""Stock markets: the grid of share prices and how a corporation's marker moves on it.

How a marker moves is a strategy chosen from the title's market data: a 2D grid (1830, 18MEX), a single
row (1817), a zig-zag row (1860, optionally with a ledge at the ends). Movement rules are those of
18xx.games, whose logs must replay: e.g. on a 2D grid a move right off the end of a row goes up, a move
left off the start goes down, and a move onto a cell that does not exist leaves the marker where it is.
"""

from __future__ import annotations

Coord = tuple[int, int]


class Cell:
    __slots__ = ("price", "row", "column", "types", "corporations", "id")

    def __init__(self, price: int, row: int, column: int, types: list[str]) -> None:
        self.price = price
        self.row = row
        self.column = column
        self.types = frozenset(types)
        self.corporations: list = []  # stack order: first = top
        self.id = f"{price},{row},{column}"

    @property
    def coord(self) -> Coord:
        return self.row, self.column

    @property
    def ends_game(self) -> bool:
        return "endgame" in self.types

    def __repr__(self) -> str:
        return f"Cell({self.id})"


def _cell_fields() -> tuple[str, ...]:
    return tuple(f for f in Cell.__slots__ if f not in StockMarket.CELL_FIXED)


class Movement:
    """Where one step in each direction leads from a cell (the coordinates may name no cell)."""

    def __init__(self, market: StockMarket) -> None:
        self.market = market

    def width(self, row: int) -> int:
        return len(self.market.grid[row])

    def left(self, at: Coord) -> Coord:
        raise NotImplementedError

    def right(self, at: Coord) -> Coord:
        raise NotImplementedError

    def up(self, at: Coord) -> Coord:
        raise NotImplementedError

    def down(self, at: Coord) -> Coord:
        raise NotImplementedError


class TwoDimensionalMovement(Movement):
    """Rows of prices: dividends move right (up at the end of a row), withholding left (down at the start)."""

    def left(self, at: Coord) -> Coord:
        r, c = at
        if c > 0 and self.market.cell(r, c - 1):
            return r, c - 1
        return self.down(at)

    def right(self, at: Coord) -> Coord:
        r, c = at
        if c + 1 >= self.width(r):
            return self.up(at)
        return r, c + 1

    def up(self, at: Coord) -> Coord:
        r, c = at
        return (r - 1, c) if r > 0 else at

    def down(self, at: Coord) -> Coord:
        r, c = at
        return (r + 1, c) if r + 1 < len(self.market.grid) else at


class OneDimensionalMovement(Movement):
    """One row: up is right and down is left; the ends hold the marker."""

    def left(self, at: Coord) -> Coord:
        r, c = at
        return (r, c - 1) if c > 0 else at

    def right(self, at: Coord) -> Coord:
        r, c = at
        return (r, c + 1) if c + 1 < self.width(r) else at

    def up(self, at: Coord) -> Coord:
        return self.right(at)

    def down(self, at: Coord) -> Coord:
        return self.left(at)


class ZigZagMovement(Movement):
    """One row drawn as a zig-zag: right and left move two cells, up and down one. With a ledge, a move of
    two that would run off an end stops at the end cell; without it the marker stays."""

    def __init__(self, market: StockMarket, ledge: bool = False) -> None:
        super().__init__(market)
        self.ledge = ledge

    def left(self, at: Coord) -> Coord:
        r, c = at
        if c - 2 >= 0:
            return r, c - 2
        return (r, 0) if self.ledge else at

    def right(self, at: Coord) -> Coord:
        r, c = at
        last = self.width(r) - 1
        if c + 2 <= last:
            return r, c + 2
        return (r, last) if self.ledge else at

    def up(self, at: Coord) -> Coord:
        r, c = at
        return (r, c + 1) if c + 1 < self.width(r) else at

    def down(self, at: Coord) -> Coord:
        r, c = at
        return (r, c - 1) if c > 0 else at


MOVEMENTS: dict[str, type[Movement]] = {
    "TwoDimensionalMovement": TwoDimensionalMovement,
    "OneDimensionalMovement": OneDimensionalMovement,
    "ZigZagMovement": ZigZagMovement,
}


class StockMarket:
    # cells a marker never enters by ordinary movement (1817's liquidation column)
    NO_NORMAL_MOVEMENT = frozenset({"liquidation"})

    def __init__(self, data: dict, ledge: bool = False) -> None:
        self.grid: list[list[Cell | None]] = []
        for r, row in enumerate(data["grid"]):
            self.grid.append([None if c is None else Cell(c["price"], r, col, c.get("types", []))
                              for col, c in enumerate(row)])
        name = data.get("movement") or ("ZigZagMovement" if data.get("zigzag") else
                                        "OneDimensionalMovement" if len(self.grid) == 1 else "TwoDimensionalMovement")
        cls = MOVEMENTS[name]
        self.movement: Movement = cls(self, ledge) if cls is ZigZagMovement else cls(self)
        self.cells = {c.id: c for row in self.grid for c in row if c}
        # highest first; equal prices: the right-most, then the lowest row (as 18xx.games lists them)
        self.par_prices = sorted((c for c in self.cells.values() if "par" in c.types),
                                 key=lambda c: (c.price, c.column, c.row), reverse=True)
        self.max_reached = False  # a marker has entered an end-of-game cell

    # Checkpoints of a game leave the market in place: its cells save the fields that change in play (all
    # but CELL_FIXED), and the checkpoint pickles the market's own attributes but FIXED.
    FIXED = frozenset({"grid", "movement", "cells", "par_prices"})
    CELL_FIXED = frozenset({"price", "row", "column", "types", "id"})

    def state(self) -> list[tuple]:
        """The changing fields of every cell (the markers on it, in stack order), for `set_state`."""
        fields = _cell_fields()
        return [tuple(list(getattr(c, f)) if isinstance(getattr(c, f), list) else getattr(c, f) for f in fields)
                for c in self.cells.values()]

    def set_state(self, state: list[tuple]) -> None:
        fields = _cell_fields()
        for cell, values in zip(self.cells.values(), state, strict=True):
            for field, value in zip(fields, values, strict=True):
                setattr(cell, field, list(value) if isinstance(value, list) else value)

    def cell(self, row: int, column: int) -> Cell | None:
        if 0 <= row < len(self.grid) and 0 <= column < len(self.grid[row]):
            return self.grid[row][column]
        return None

    def price_at_most(self, price: int) -> Cell:
        """The right-most cell of the first row priced at most `price` (1817's share price from a bid)."""
        return next(c for c in reversed(self.grid[0]) if c is not None and c.price <= price)

    # placing and moving markers -------------------------------------------------------------
    def set_par(self, corp, cell: Cell) -> None:
        corp.par_price = cell
        self._move(corp, cell)

    def _move(self, corp, cell: Cell | None) -> None:
        if cell is None or cell is corp.share_price:
            return
        if corp.share_price is not None:
            if cell.types & self.NO_NORMAL_MOVEMENT:
                return
            corp.share_price.corporations.remove(corp)
        cell.corporations.append(corp)  # arriving markers go to the bottom of the stack
        corp.share_price = cell
        if cell.ends_game:
            self.max_reached = True

    def move_to(self, corp, cell: Cell) -> None:
        """Move a marker straight to a cell by ordinary movement (1817 mergers), to the bottom of its stack."""
        self._move(corp, cell)

    def place(self, corp, cell: Cell) -> None:
        """Put a marker on a cell whatever the movement rules (1817: into the liquidation zone). A marker
        already there keeps its place in the cell's order."""
        if corp.share_price is cell:
            return
        if corp.share_price is not None:
            corp.share_price.corporations.remove(corp)
        cell.corporations.append(corp)
        corp.share_price = cell

    def _step(self, corp, direction: str) -> None:
        self._move(corp, self.cell(*getattr(self.movement, direction)(corp.share_price.coord)))

    def move_up(self, corp) -> None:
        self._step(corp, "up")

    def move_down(self, corp) -> None:
        self._step(corp, "down")

    def move_right(self, corp) -> None:
        self._step(corp, "right")

    def move_left(self, corp) -> None:
        self._step(corp, "left")

    def move(self, corp, direction: str, times: int = 1) -> None:
        """Move a marker `times` steps in one direction: "up", "down", "left" or "right"."""
        for _ in range(times):
            self._step(corp, direction)
