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
from engine.core.steps.operating import DiscardTrain, Route, Token
from engine.titles.g1817.auction import SelectionAuction
from engine.titles.g1817.mergers import (
    Acquire,
    AcquisitionRound1817,
    Conversion,
    MergerRound1817,
    PostConversion,
    PostConversionLoans,
)
from engine.titles.g1817.operating import (
    Bridge,
    BuyTrain1817,
    Dividend1817,
    Loan,
    OperatingRound1817,
    SpecialTrack1817,
    Track1817,
    route_bonus,
    terrains,
)
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
        self.owner_when_liquidated: dict[str, object] = {}  # corporation -> its president when it was liquidated
        self.zones_at_merger_start: dict[str, str] = {}  # corporation -> its market zone when the merger round began

    # --- rounds -------------------------------------------------------------------------------------
    def make_map(self):
        from engine.core.hexmap import HexMap

        return HexMap(self.data, route_hook=route_bonus)

    def initial_round(self):
        return AuctionRound(self, [SelectionAuction])

    def stock_round(self):
        self.loan_bank.fixed_rate = None
        return StockRound1817(self, [DiscardTrain, HomeStation, BuySellParShares1817])

    def operating_round(self, round_num: int):
        self.loan_bank.fixed_rate = self.loan_bank.rate_for(self.loan_bank.taken)
        for company in self.companies:  # mail contracts pay only a corporation that owns a train
            for ability in company.abilities:
                if ability["type"] == "revenue_change" and isinstance(company.owner, Corporation):
                    company.revenue = ability["revenue"] if company.owner.trains else 0
        return OperatingRound1817(self, [Loan, SpecialTrack1817, Bridge, Track1817, Token, Route, Dividend1817,
                                         DiscardTrain, BuyTrain1817], round_num=round_num)

    def after_operating_round(self):
        self.export_train()
        self.zones_at_merger_start = {c.sym: self.zone(c) for c in self.corporations}
        return MergerRound1817(self, [DiscardTrain, PostConversion, PostConversionLoans, Conversion],
                               round_num=self.round.round_num)

    def after_merger_round(self):
        return AcquisitionRound1817(self, [Acquire], round_num=self.round.round_num)

    def after_acquisition_round(self):
        if self.round.round_num < self.operating_rounds:
            return self.operating_round(self.round.round_num + 1)
        self.turn += 1
        return self.stock_round()

    def export_train(self) -> None:
        """At the end of an operating round the bank's next train leaves the game as if bought (all the
        2-trains after the first one)."""
        upcoming = self.depot.upcoming
        if not upcoming:
            return
        name = upcoming[0].name
        for train in [t for t in upcoming if t.name == name] if name == "2" else [upcoming[0]]:
            self.depot.remove(train)
            train.rusted = True
            self.on_train_bought_from_depot(train)

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

    # --- the market's zones -------------------------------------------------------------------------
    @staticmethod
    def zone(corp: Corporation) -> str:
        types = corp.share_price.types if corp.share_price else frozenset()
        return "liquidation" if "liquidation" in types else "acquisition" if "acquisition" in types else "normal"

    def in_liquidation(self, corp) -> bool:
        return isinstance(corp, Corporation) and self.zone(corp) == "liquidation"

    def in_normal_zone(self, corp: Corporation) -> bool:
        return self.zone(corp) == "normal"

    def entered_zone_this_round(self, corp: Corporation) -> bool:
        """It moved into the acquisition or liquidation zone during this merger round."""
        zone = self.zone(corp)
        return zone != "normal" and zone != self.zones_at_merger_start.get(corp.sym)

    def liquidate(self, corp: Corporation) -> None:
        """The marker goes to the liquidation zone; the corporation is liquidated in the acquisition round."""
        self.owner_when_liquidated[corp.sym] = corp.owner
        self.market.place(corp, self.market.cell(0, 0))

    def operating_order(self):
        return [c for c in super().operating_order() if not self.in_liquidation(c)]

    # --- track ----------------------------------------------------------------------------------------
    def terrain_discount(self, corp: Corporation, hex_, cost: int) -> int:
        """The bridge companies build over water for free."""
        built_on = terrains(hex_)
        for company in corp.companies:
            for ability in self.abilities(company, "tile_discount"):
                if ability.get("terrain") in built_on:
                    return min(ability["discount"], cost)
        return 0

    def after_lay_1817(self, corp: Corporation, coord: str, built_on: list[str]) -> None:
        """The Mountain Engineers earn their corporation $20 for each mountain it builds on."""
        for company in corp.companies:
            for ability in self.abilities(company, "tile_income"):
                count = built_on.count(ability["terrain"])
                if count:
                    self.transfer(self.bank, corp, ability["income"] * count)

    # --- dividends ------------------------------------------------------------------------------------
    def pay_dividend(self, corp: Corporation, revenue: int, kind: str) -> None:
        corp.last_revenue = revenue
        corp.operated = True
        self.rust_obsolete(corp)
        if kind == "withhold":
            kept = revenue
        elif kind == "half":
            kept = revenue // 2 if corp.total_shares == 2 else revenue // 2 // corp.total_shares * corp.total_shares
        else:
            kept = 0
        if kept:
            self.transfer(self.bank, corp, kept)
        paid = revenue - kept
        if paid:
            self.payout(corp, paid)
        price = 40 if self.zone(corp) == "acquisition" else corp.share_price.price
        if paid <= 0:
            self.market.move_left(corp)
        else:
            self.market.move(corp, "right", 2 if paid >= 2 * price else 1 if paid >= price else 0)

    def payout(self, corp: Corporation, revenue: int) -> None:
        """Each share pays its part, rounded up: players' to them (a short costs its holder), the treasury's
        to the corporation, the market's to nobody."""
        for holder in (*self.players, corp):
            amount = self.dividend_part(corp, holder.percent_of(corp), revenue)
            if amount > 0:
                self.transfer(self.bank, holder, amount)
            elif amount < 0:
                raise GameError("shorts paying dividends are not built yet")

    # --- interest -------------------------------------------------------------------------------------
    def pay_interest(self, corp: Corporation) -> int:
        """Interest on the corporation's loans, taking more loans while it can't pay; what it still owes."""
        owed = self.loan_bank.interest(corp.loans)
        while owed > corp.cash and self.can_take_loan(corp):
            self.take_loan(corp)
            owed = self.loan_bank.interest(corp.loans)
        if owed > corp.cash:
            return owed
        if owed:
            self.transfer(corp, self.bank, owed)
        return 0

    def interest_default(self, corp: Corporation, owed: int) -> None:
        """A corporation that can't pay its interest is liquidated; its cash goes to its president, who pays."""
        raise GameError(f"{corp.sym} can't pay {self.fmt(owed)} interest: its liquidation is not built yet")

    def buy_conversion_stations(self, corp: Corporation, count: int) -> None:
        """A converted corporation buys the stations its new size brings at $50 each, or is liquidated."""
        if not count:
            return
        if corp.cash < count * STATION_PRICE:
            self.liquidate(corp)
            return
        self.transfer(corp, self.bank, count * STATION_PRICE)
        corp.add_tokens([0] * count)

    # --- loans --------------------------------------------------------------------------------------
    def max_loans(self, corp: Corporation) -> int:
        """A corporation may owe as many loans as it has shares."""
        return corp.total_shares

    def can_take_loan(self, corp: Corporation) -> bool:
        return corp.loans < self.max_loans(corp) and self.loan_bank.left > 0

    def buying_power(self, corp: Corporation) -> int:
        """Cash and the loans it may still take."""
        loans = min(self.max_loans(corp) - corp.loans, self.loan_bank.left)
        return corp.cash + loans * self.loan_bank.value

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
