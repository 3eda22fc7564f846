"""Stock markets: the grid of share prices and how a corporation's marker moves on it.

1830 and 18MEX use a 2D grid, 1817 a single row, 1860 a zig-zag row; movement is a strategy chosen
from the title's market data.
"""

from __future__ import annotations

TYPE_BY_LETTER_DEFAULT = {"p": "par", "y": "no_cert_limit", "o": "unlimited", "b": "multiple_buy",
                          "e": "endgame", "c": "close", "x": "par_1", "z": "par_2", "w": "par_3"}


class Cell:
    __slots__ = ("price", "row", "column", "types", "corporations", "id")

    def __init__(self, price: int, row: int, column: int, types: list[str]) -> None:
        self.price = price
        self.row = row
        self.column = column
        self.types = frozenset(types)
        self.corporations: list = []  # stack order: first = top
        self.id = f"{price},{row},{column}"

    def __repr__(self) -> str:
        return f"Cell({self.id})"


class StockMarket:
    def __init__(self, data: dict) -> None:
        self.grid: list[list[Cell | None]] = []
        for r, row in enumerate(data["grid"]):
            self.grid.append([None if c is None else Cell(c["price"], r, col, c.get("types", []))
                              for col, c in enumerate(row)])
        self.movement = data.get("movement", "TwoDimensionalMovement")
        self.cells = {c.id: c for row in self.grid for c in row if c}
        self.par_prices = sorted((c for c in self.cells.values() if "par" in c.types),
                                 key=lambda c: -c.price)

    def cell(self, row: int, column: int) -> Cell | None:
        if 0 <= row < len(self.grid) and 0 <= column < len(self.grid[row]):
            return self.grid[row][column]
        return None

    # placing and moving markers -------------------------------------------------------------
    def set_par(self, corp, cell: Cell) -> None:
        corp.par_price = cell
        self._move(corp, cell)

    def _move(self, corp, cell: Cell | None) -> None:
        if cell is None or cell is corp.share_price:
            return
        if corp.share_price is not None:
            corp.share_price.corporations.remove(corp)
        cell.corporations.append(corp)  # arriving markers go to the bottom of the stack
        corp.share_price = cell

    def move_up(self, corp) -> None:
        c = corp.share_price
        if self.movement == "OneDimensionalMovement":
            return self.move_right(corp)
        self._move(corp, self.cell(c.row - 1, c.column))

    def move_down(self, corp) -> None:
        c = corp.share_price
        if self.movement == "OneDimensionalMovement":
            return self.move_left(corp)
        self._move(corp, self.cell(c.row + 1, c.column))

    def move_right(self, corp) -> None:
        c = corp.share_price
        target = self.cell(c.row, c.column + 1)
        if target is None and self.movement == "TwoDimensionalMovement":
            return self.move_up(corp)
        self._move(corp, target)

    def move_left(self, corp) -> None:
        c = corp.share_price
        target = self.cell(c.row, c.column - 1)
        if target is None and self.movement == "TwoDimensionalMovement":
            return self.move_down(corp)
        self._move(corp, target)
