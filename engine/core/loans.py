"""Loans from the bank to corporations, with an interest rate that follows the loans outstanding.

The bank has a fixed stock of loans of one value. The interest per loan rises by one step for each block of
loans taken (1817: $5 a loan while at most five are out, $10 up to ten, ... up to $70 with all seventy out);
a title fixes the rate for the length of an operating round. How many loans a corporation may hold and
what a loan does to its share price are the title's (`BaseGame.max_loans`, `after_loan_taken`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.errors import GameError


@dataclass
class LoanBank:
    total: int  # loans in the game
    value: int  # what one loan lends
    min_rate: int  # interest per loan of the first block, in money
    rate_step: int  # how much the rate rises per block
    per_block: int  # loans in a block
    taken: int = 0  # loans outstanding
    fixed_rate: int | None = None  # the rate fixed for the current operating round

    @classmethod
    def from_constants(cls, constants: dict, value: int = 100) -> LoanBank:
        """From 18xx.games' constants: MIN_LOAN..MAX_LOAN rates in steps of LOAN_INTEREST_INCREMENTS,
        LOANS_PER_INCREMENT loans per step."""
        low, high, step = constants["MIN_LOAN"], constants["MAX_LOAN"], constants["LOAN_INTEREST_INCREMENTS"]
        per_block = constants["LOANS_PER_INCREMENT"]
        blocks = (high - low) // step + 1
        return cls(total=blocks * per_block, value=value, min_rate=low, rate_step=step, per_block=per_block)

    @property
    def left(self) -> int:
        return self.total - self.taken

    @property
    def max_rate(self) -> int:
        return self.min_rate + self.rate_step * (self.total // self.per_block - 1)

    def rate_for(self, taken: int) -> int:
        """The interest per loan with `taken` loans out: one step per block begun."""
        blocks = -(-taken // self.per_block)
        return min(max(self.min_rate, self.min_rate + self.rate_step * (blocks - 1)), self.max_rate)

    @property
    def rate(self) -> int:
        """The rate now: fixed for an operating round, else what the loans out make it."""
        return self.fixed_rate if self.fixed_rate is not None else self.rate_for(self.taken)

    def interest(self, loans: int) -> int:
        return self.rate * loans * self.value // 100

    def lend(self, corp) -> None:
        if not self.left:
            raise GameError("the bank has no loans left: all {total} are out", total=self.total)
        self.taken += 1
        corp.loans += 1

    def repay(self, corp) -> None:
        if not corp.loans:
            raise GameError("{corporation} has no loan to repay", corporation=corp.sym)
        self.taken -= 1
        corp.loans -= 1
