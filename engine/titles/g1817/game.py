"""1817 rule hooks over the 18xx core (rules and what is built so far: docs/1817.md).

An unlimited bank; a private auction with seed money; twenty identical corporations started by auction
at 2, 5 or 10 shares; loans with an interest rate that follows the loans out; short selling; a one-row
market with acquisition and liquidation zones; merger and acquisition rounds after each operating round.
"""

from __future__ import annotations

from engine.core.entities import Company, Corporation
from engine.core.errors import GameError
from engine.core.game import BaseGame
from engine.core.loans import LoanBank
from engine.core.rounds import AuctionRound
from engine.core.steps.operating import DiscardTrain
from engine.titles.g1817.auction import SelectionAuction
from engine.titles.g1817.stock import (
    STATION_PRICE,
    TRAIN_STATION,
    BuySellParShares1817,
    HomeStation,
    StockRound1817,
)

# certificates of a corporation of each size: the president's first
SIZES = {2: [100], 5: [40, 20, 20, 20], 10: [20] + [10] * 8}
STATIONS = {2: 1, 5: 2, 10: 4}  # stations a corporation of each size starts with


class Game1817(BaseGame):
    TITLE = "1817"
    PLAYABLE = False  # the stock, operating, merger and acquisition rounds are still being built
    UNSUPPORTED_OPTIONAL_RULES = frozenset({"volatility", "modern_trains"})

    def setup(self) -> None:
        self.loan_bank = LoanBank.from_constants(self.data["constants"])
        self.home_pending: Corporation | None = None  # a corporation being auctioned, to choose its home

    # --- rounds -------------------------------------------------------------------------------------
    def initial_round(self):
        return AuctionRound(self, [SelectionAuction])

    def stock_round(self):
        self.loan_bank.fixed_rate = None
        return StockRound1817(self, [DiscardTrain, HomeStation, BuySellParShares1817])

    def sold_out_moves(self, corp: Corporation) -> int:
        """A 5- or 10-share corporation all of whose shares players hold rises at the end of a stock round
        (with the short squeeze, twice if they hold more, as shorts allow)."""
        held = sum(v for v in self.player_percents(corp).values() if v > 0)
        if corp.total_shares == 2 or held < 100:
            return 0
        return 2 if held > 100 and "short_squeeze" in self.optional_rules else 1

    # --- starting corporations ----------------------------------------------------------------------
    def corporation_sizes(self) -> list[int]:
        """The sizes a corporation may start at in the current phase."""
        return list(self.data["phases"][self.phase_index]["corporation_sizes"])

    def home_cities(self, corp: Corporation) -> list[tuple[str, int]]:
        """(city, slot) of every city with room for the corporation's home station."""
        out = []
        for h in self.hexmap.hexes.values():
            for city in h.tile.cities:
                try:
                    out.append((city.id, self.hexmap.check_token(corp.sym, city.id, 0, need_connection=False)))
                except GameError:
                    continue
        return out

    def resize(self, corp: Corporation, shares: int) -> None:
        """A corporation's certificates become those of its new size (the president's keeps its holder)."""
        if shares == corp.total_shares:
            return
        for share in self.reissue_shares(corp, SIZES[shares]):
            self.share_by_id[share.id] = share
        corp.max_ownership_percent = 60

    def contribute(self, company: Company, corp: Corporation) -> None:
        """A private goes into the corporation its owner starts, at face value, paid back to the owner."""
        player = company.owner
        if corp.cash < company.value:
            raise GameError(f"{corp.sym} has {self.fmt(corp.cash)} and can't take {company.sym} at "
                            f"{self.fmt(company.value)}")
        corp.cash -= company.value
        player.cash += company.value
        player.companies.remove(company)
        company.owner = corp
        corp.companies.append(company)
        if company.ability("additional_token"):
            corp.add_tokens([0])

    def stations_missing(self, corp: Corporation) -> int:
        """Stations a corporation still has to buy for its size (the Train Station's one is free)."""
        extra = 1 if any(c.sym == TRAIN_STATION for c in corp.companies) else 0
        return STATIONS[corp.total_shares] + extra - len(corp.token_prices)

    def buy_missing_stations(self, corp: Corporation) -> None:
        """Stations the size calls for are bought at once if the treasury can pay them all (not an action);
        until then the corporation may take loans on its president's later turns."""
        missing = self.stations_missing(corp)
        if corp.operated or missing <= 0 or corp.cash < missing * STATION_PRICE:
            return
        self.transfer(corp, self.bank, missing * STATION_PRICE)
        corp.add_tokens([0] * missing)

    def liquidate(self, corp: Corporation) -> None:
        raise GameError(f"{corp.sym} would be liquidated, which is not built yet")

    # --- loans --------------------------------------------------------------------------------------
    def max_loans(self, corp: Corporation) -> int:
        """A corporation may owe as many loans as it has shares."""
        return corp.total_shares

    def can_take_loan(self, corp: Corporation) -> bool:
        return corp.loans < self.max_loans(corp) and self.loan_bank.left > 0

    def take_loan(self, corp: Corporation) -> None:
        """$100 from the bank; the share price moves one step left."""
        if corp.loans >= self.max_loans(corp):
            raise GameError(f"{corp.sym} owes {corp.loans} loans, as many as it may")
        self.loan_bank.lend(corp)
        self.transfer(self.bank, corp, self.loan_bank.value)
        self.market.move_left(corp)

    def repay_loan(self, corp: Corporation, move: bool = True) -> None:
        self.loan_bank.repay(corp)
        self.transfer(corp, self.bank, self.loan_bank.value)
        if move:
            self.market.move_right(corp)

    # --- state lines --------------------------------------------------------------------------------
    def trace_fields(self) -> dict:
        return {"interest_rate": self.loan_bank.rate, "loans_left": self.loan_bank.left}

    def corporation_trace_fields(self, corp: Corporation) -> dict:
        out = {"loans": corp.loans}
        if corp.total_shares != 10:
            out["shares"] = corp.total_shares
        return out
