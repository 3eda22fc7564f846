"""1817 rule hooks over the 18xx core (rules and what is built so far: docs/1817.md).

An unlimited bank; a private auction with seed money; twenty identical corporations started by auction
at 2, 5 or 10 shares; loans with an interest rate that follows the loans out; short selling; a one-row
market with acquisition and liquidation zones; merger and acquisition rounds after each operating round.
"""

from __future__ import annotations

from engine.core.entities import Company, Corporation, Player, Share
from engine.core.errors import GameError
from engine.core.game import BaseGame
from engine.core.loans import LoanBank
from engine.core.rounds import AuctionRound
from engine.core.steps.operating import DiscardTrain, Route, Token
from engine.titles.g1817.auction import SelectionAuction, TieredAuction
from engine.titles.g1817.crisis import CashCrisis
from engine.titles.g1817.mergers import (
    Acquire,
    AcquisitionRound1817,
    Conversion,
    MergerRound1817,
    PostConversion,
    PostConversionLoans,
    ReduceStations,
)
from engine.titles.g1817.operating import (
    Bridge,
    BuyTrain1817,
    Dividend1817,
    Loan,
    OperatingRound1817,
    RouteRules1817,
    SpecialTrack1817,
    Track1817,
    modern_bonus,
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

# the Volatility expansion's privates whose powers the rules apply (engine.titles.g1817.data.variants)
LOAN_SHARK, PONZI_SCHEME, INVENTOR = "P12", "P13", "P14"
EXPRESS_TRACK, EFFICIENT_TRACK, GOLDEN_PARACHUTE, STATION_SUBSIDY = "P18", "P19", "P20", "P21"
LOAN_SHARK_CASH, LOAN_SHARK_INTEREST = 60, 10
INVENTOR_PAYOUTS = {"2": 20, "3": 30, "4": 40, "5": 50, "6": 60, "7": 70, "8": 80}
EXPRESS_TRACK_FEE, EFFICIENT_TRACK_COST = 10, 10
GOLDEN_PARACHUTE_PAY = 100

# certificates of a corporation of each size: the president's first
SIZES = {2: [100], 5: [40, 20, 20, 20], 10: [20] + [10] * 8}
STATIONS = {2: 1, 5: 2, 10: 4}  # stations a corporation of each size starts with


class Game1817(BaseGame):
    TITLE = "1817"
    PLAYABLE = True
    ROUND_END = "acquisition"
    PLAYER_DEBT = True
    KEEPS_FINDINGS_THROUGH_REMOVALS = True  # the stations of a corporation the bank liquidates: see docs/1817.md
    PROGRAM_TYPES = (*BaseGame.PROGRAM_TYPES, "program_merger_pass")
    IPO_NAME = "Treasury"
    ROUTE_RULES = RouteRules1817

    @property
    def city_tile_privates(self) -> list[str]:
        """The privates that lay the B-city tile on their city: the Volatility expansion keeps one of them,
        drawn at random (without it, the Pittsburgh Steel Mill)."""
        return self.data["constants"]["VOLATILITY_CITY_TILE_COMPANIES"]

    @property
    def volatility(self) -> bool:
        return "volatility" in self.optional_rules

    @property
    def modern_trains(self) -> bool:
        return "modern_trains" in self.optional_rules

    def game_companies(self, players: int) -> list[dict]:
        """With the Volatility expansion, its thirteen privates join the ten, and of the four city-tile
        privates one, drawn at random, stays in the game."""
        if not self.volatility:
            return super().game_companies(players)
        companies = list(self.data["companies"])
        city_tile = sorted((c for c in companies if c["sym"] in self.city_tile_privates), key=lambda _: self.rand())
        return [c for c in companies if c["sym"] not in self.city_tile_privates or c is city_tile[0]]

    def city_tile_private(self) -> Company:
        return next(c for c in self.companies if c.sym in self.city_tile_privates)

    def setup(self) -> None:
        self.loan_bank = LoanBank.from_constants(self.data["constants"])
        self.home_pending: Corporation | None = None  # a corporation being auctioned, to choose its home
        self.home_chooser = None  # the player who opened its auction: they choose the home city
        self.owner_when_liquidated: dict[str, object] = {}  # corporation -> its president when it was liquidated
        self.zones_at_merger_start: dict[str, str] = {}  # corporation -> its market zone when the merger round began
        self.final_operating_rounds: int | None = None  # operating rounds of the last set, once the 8 is out
        # trains of corporations the bank liquidated: out of the game, though 18xx.games still counts them as
        # trains on sale when it decides whether a corporation may buy a train
        self.orphan_trains: list = []
        # (survivor, merged or acquired corporation, its number of stations) while the survivor reduces stations
        self.stations_to_reduce: tuple | None = None
        self.inventor_paid: set[str] = set()  # the kinds of train the Inventor was paid for

    # --- rounds -------------------------------------------------------------------------------------
    def make_map(self):
        from engine.core.hexmap import HexMap

        return HexMap(self.data, route_hook=self.route_bonus)

    def route_bonus(self, hexmap, corp: str, route: dict, revenue: int) -> int:
        """Mines, ranches and bridges; with the modern trains, a 7- or 8-train's stations."""
        revenue = route_bonus(hexmap, corp, route, revenue)
        if self.modern_trains:
            distance = self.depot.data_by_name[route["train_name"]]["distance"]
            revenue += sum(modern_bonus(node, corp, distance) for node in route["stops"])
        return revenue

    def initial_round(self):
        return AuctionRound(self, [TieredAuction if self.volatility else SelectionAuction])

    def stock_round(self):
        self.loan_bank.fixed_rate = None
        self.close_bank_shorts()
        return StockRound1817(self, [DiscardTrain, HomeStation, BuySellParShares1817])

    def close_bank_shorts(self) -> None:
        """Shorts left in the market (a bankrupt player's) are closed at the start of a stock round: the bank
        buys shares from the treasury at the market price, as many as it needs and there are."""
        for corp in self.corporations:
            if corp.share_price is None or not self.in_normal_zone(corp):
                continue
            while self.shorts_of(self.pool, corp):
                share = next((s for s in corp.shares_of(corp) if s.percent > 0), None)
                if share is None:
                    break
                self.transfer(self.bank, corp, self.certificate_price(share, corp.share_price.price))
                self.give_share(share, self.pool)
                self.unshort(self.pool, share)

    def after_stock_round(self):
        round_ = super().after_stock_round()
        self.operating_rounds = self.final_operating_rounds or self.operating_rounds
        return round_

    def event_signal_end_game(self, event: dict) -> None:
        """The first 8-train (bought or exported): the game ends after one more full set of operating rounds,
        three of them if it came out in the second operating round of a set."""
        self.final_operating_rounds = 3 if self.round.round_num == 2 else 2
        self.end_check()  # the last set is fixed now, though the game notices the end only at the next action

    def operating_round(self, round_num: int):
        self.loan_bank.fixed_rate = self.loan_bank.rate_for(self.loan_bank.taken)
        self.outcomes.append({"event": "interest_rate", "rate": self.loan_bank.fixed_rate})
        for company in self.companies:  # mail contracts pay only a corporation that owns a train
            for ability in company.abilities:
                if ability["type"] == "revenue_change" and isinstance(company.owner, Corporation):
                    company.revenue = ability["revenue"] if company.owner.trains else 0
        return OperatingRound1817(self, [CashCrisis, Loan, SpecialTrack1817, Bridge, Track1817, Token, Route, Dividend1817,
                                         DiscardTrain, BuyTrain1817], round_num=round_num)

    def after_operating_round(self):
        self.export_train()
        self.zones_at_merger_start = {c.sym: self.zone(c) for c in self.corporations}
        return MergerRound1817(self, [ReduceStations, DiscardTrain, PostConversion, PostConversionLoans, Conversion],
                               round_num=self.round.round_num)

    def after_merger_round(self):
        return AcquisitionRound1817(self, [ReduceStations, CashCrisis, DiscardTrain, Acquire],
                                    round_num=self.round.round_num)

    def after_acquisition_round(self):
        if self.round.round_num < self.operating_rounds:
            return self.operating_round(self.round.round_num + 1)
        self.turn += 1
        return self.stock_round()

    # --- the Volatility privates that pay when trains come and go ---------------------------------
    def buy_train(self, corp: Corporation, train, price: int, exchange=None) -> None:
        super().buy_train(corp, train, price, exchange)
        self.train_moved(train.name)

    def discard_train(self, train) -> None:
        super().discard_train(train)
        self.train_moved(train.name)

    def train_moved(self, kind: str) -> None:
        """The Inventor: the bank pays its corporation when a train of a kind first moves (bought from the
        bank or a corporation, exported, discarded, rusted or gone obsolete) while a corporation owns it."""
        inventor = self.company_by_sym.get(INVENTOR)
        if inventor is None or inventor.closed or not isinstance(inventor.owner, Corporation):
            return
        if kind in self.inventor_paid:
            return
        self.inventor_paid.add(kind)
        if INVENTOR_PAYOUTS.get(kind):
            self.company_pays(inventor, inventor.owner, INVENTOR_PAYOUTS[kind])

    def rust(self, bought_name: str) -> None:
        """Trains rust: the Scrapper's corporation is paid for its own; the kinds that rust count as moved
        for the Inventor (18xx.games rusts every train of the kind, the exported ones too)."""
        owners = {t: t.owner for t in self.depot.trains if not t.rusted and t.owner is not None}
        in_pile = [t for t in self.depot.discarded if t.obsolete_on == bought_name]
        super().rust(bought_name)
        for kind in dict.fromkeys([t.name for t in self.depot.trains if t.rusts_on_name(bought_name)] +
                                  [t.name for t in in_pile]):
            self.train_moved(kind)
        for train, owner in owners.items():
            if train.rusted:
                self.scrapped(train, owner)

    def rust_obsolete(self, operator) -> None:
        obsolete = [t for t in operator.trains if t.obsolete]
        super().rust_obsolete(operator)
        for train in obsolete:
            self.train_moved(train.name)
            self.scrapped(train, operator)

    def scrapped(self, train, owner) -> None:
        """A train of a corporation leaves the game: the Scrapper's corporation is paid for its own."""
        if isinstance(owner, Corporation):
            for company in owner.companies:
                for ability in self.abilities(company, "train_scrapper"):
                    value = ability["scrap_values"].get(train.name, 0)
                    if value:
                        self.company_pays(company, owner, value)

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
            self.train_moved(train.name)
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

    def resize(self, corp: Corporation, shares: int) -> list:
        """A corporation's certificates become those of its new size (the president's keeps its holder);
        the new certificates, in its treasury."""
        if shares == corp.total_shares:
            return []
        new = self.reissue_shares(corp, SIZES[shares])
        for share in new:
            self.share_by_id[share.id] = share
        corp.max_ownership_percent = 60
        return new

    def contribute(self, company: Company, corp: Corporation) -> None:
        """A private goes into the corporation its owner starts, at face value, paid back to the owner."""
        player = company.owner
        if corp.cash < company.value:
            raise GameError("{corporation} has {cash} and can't take {company} at {value}",
                            corporation=corp.sym, cash=self.fmt(corp.cash), company=company.sym,
                            value=self.fmt(company.value))
        corp.cash -= company.value
        player.cash += company.value
        player.companies.remove(company)
        company.owner = corp
        corp.companies.append(company)
        if company.ability("additional_token"):
            corp.add_tokens([0])
        if company.sym == LOAN_SHARK:
            self.company_pays(company, corp, LOAN_SHARK_CASH)

    def golden_parachute(self, corp: Corporation, buyer: Corporation | None) -> None:
        """The Golden Parachute pays $100 to the president of its corporation when the corporation is
        acquired by one another player presides, or liquidated by the bank."""
        president = corp.owner
        if not self.owns(corp, GOLDEN_PARACHUTE) or not isinstance(president, Player):
            return
        if buyer is not None and buyer.owner is president:
            return
        self.company_pays(self.company(GOLDEN_PARACHUTE), president, GOLDEN_PARACHUTE_PAY)

    def formed(self, corp: Corporation) -> None:
        """The corporation is formed: it buys the stations its size calls for; the Ponzi Scheme put into it
        closes."""
        self.buy_missing_stations(corp)
        for company in list(corp.companies):
            if company.sym == PONZI_SCHEME:
                self.close_company(company)

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

    def liquidate(self, corp: Corporation, why: str) -> None:
        """The marker goes to the liquidation zone; the corporation is liquidated in the acquisition round.
        `why`: `no_train` (it ended its turn without one), `interest` (it could not pay its interest),
        `stations` (converted, it could not pay for its stations), `bankrupt` (its president went bankrupt)."""
        if corp.owner is None:
            return
        entering, was = not self.in_liquidation(corp), corp.share_price.price if corp.share_price else None
        self.owner_when_liquidated[corp.sym] = corp.owner
        self.market.place(corp, self.market.cell(0, 0))
        if entering:  # its price before and after
            self.outcomes.append({"event": "liquidation_zone", "corporation": corp.sym, "why": why,
                                  "price": [was, corp.share_price.price]})

    def presided_by_nobody(self, corp: Corporation) -> bool:
        return corp.owner is None and corp.presidents_share.owner is self.pool

    def operating_order(self):
        return [c for c in super().operating_order() if not self.in_liquidation(c)]

    # --- track ----------------------------------------------------------------------------------------
    def tile_lays(self, operator) -> tuple[dict, ...]:
        """Express Track: the first lay costs $10 and the second is free; Efficient Track: the second costs
        $10; both: both lays free."""
        lays = super().tile_lays(operator)
        express, efficient = self.owns(operator, EXPRESS_TRACK), self.owns(operator, EFFICIENT_TRACK)
        if not (express or efficient):
            return lays
        first, second = dict(lays[0]), dict(lays[1])
        if express and not efficient:
            first["cost"] = EXPRESS_TRACK_FEE
        second["cost"] = EFFICIENT_TRACK_COST if efficient and not express else 0
        return (first, second, *lays[2:])

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
                self.charge(holder, -amount)

    # --- interest -------------------------------------------------------------------------------------
    def interest_owed(self, corp: Corporation) -> int:
        """Interest on the corporation's loans, and the Loan Shark's $10."""
        return self.loan_bank.interest(corp.loans) + (LOAN_SHARK_INTEREST if self.owns(corp, LOAN_SHARK) else 0)

    @staticmethod
    def owns(corp, sym: str) -> bool:
        return any(c.sym == sym for c in corp.companies)

    def pay_interest(self, corp: Corporation) -> int:
        """Interest on the corporation's loans, taking more loans while it can't pay; what it still owes."""
        owed = self.interest_owed(corp)
        while owed > corp.cash and self.can_take_loan(corp):
            self.take_loan(corp)
            owed = self.interest_owed(corp)
        if owed > corp.cash:
            return owed
        if owed:
            self.transfer(corp, self.bank, owed)
        return 0

    def interest_default(self, corp: Corporation, owed: int) -> None:
        """A corporation that can't pay its interest is liquidated; its cash goes to its president, who pays."""
        owner = corp.owner
        if owner is not None:
            self.outcomes.append({"event": "interest_unpaid", "corporation": corp.sym, "owed": owed,
                                  "president": owner.id, "treasury": corp.cash})
        self.liquidate(corp, "interest")
        if owner is None:  # presided by nobody since its president's bankruptcy
            return
        if corp.cash:
            self.transfer(corp, owner, corp.cash)
        self.charge(owner, owed)

    def charge(self, player, amount: int) -> None:
        """A player pays the bank what they owe, whatever their cash: below zero they are in a cash crisis
        (engine.titles.g1817.crisis)."""
        player.cash -= amount
        self.bank.cash += amount

    def go_bankrupt(self, player) -> None:
        """After their last sales (engine.titles.g1817.crisis), the player's certificates go to the market
        without changing presidents (those they presided go to the liquidation zone, presided by nobody),
        the bank forgives their debt and takes their cash."""
        held = sorted((c for c in self.corporations if player.shares_of(c) and c.share_price),
                      key=self.operating_sort_key)
        for corp in held:
            for share in list(player.shares_of(corp)):
                self.give_share(share, self.pool)
            if corp.owner is player:
                self.liquidate(corp, "bankrupt")
                corp.owner = None
            self.close_market_shorts(corp)
        if player.cash:
            self.bank.cash += player.cash
            player.cash = 0
        player.bankrupt = True
        left = sum(1 for p in self.players if not p.bankrupt)
        self.cert_limit = self.data["meta"]["cert_limit"].get(str(left), self.cert_limit)

    def sell_shares(self, player, shares: list[Share], percent: int) -> None:
        """After any sale, a short and a share both in the market cancel out (as 18xx.games does after
        every sale)."""
        super().sell_shares(player, shares, percent)
        for corp in self.corporations:
            self.close_market_shorts(corp)

    def close_market_shorts(self, corp: Corporation) -> None:
        """A short and a share both in the market cancel out."""
        while self.shorts_of(self.pool, corp):
            share = next((s for s in self.pool.shares_of(corp) if s.percent > 0 and not s.president), None)
            if share is None:
                return
            self.unshort(self.pool, share)

    def sellable_bundles(self, player, corp: Corporation):
        """Only shares are sold: a short is closed by buying one."""
        return [(shares, pct) for shares, pct in super().sellable_bundles(player, corp)
                if all(s.percent > 0 for s in shares)]

    # --- short selling ------------------------------------------------------------------------------
    def short(self, player, corp: Corporation) -> None:
        """A short sale: an extra share goes to the market and its seller keeps the short, paid the price."""
        number = max([s.number for s in corp.shares] + [9])
        self.add_share(Share(f"{corp.sym}_{number + 2}", corp, -corp.share_percent, owner=player, buyable=False,
                             counts_for_limit=False))
        self.add_share(Share(f"{corp.sym}_{number + 1}", corp, corp.share_percent, owner=self.pool))
        self.transfer(self.bank, player, corp.share_price.price)

    @staticmethod
    def shorts(corp: Corporation) -> list[Share]:
        return [s for s in corp.shares if s.percent < 0]

    @staticmethod
    def shorts_of(holder, corp: Corporation) -> list[Share]:
        return [s for s in holder.shares_of(corp) if s.percent < 0]

    def unshort(self, holder, share: Share) -> None:
        """A share and a short in the same hands cancel out: both leave the game."""
        short = next(s for s in holder.shares_of(share.corporation) if s.percent == -share.percent)
        self.remove_share(share)
        self.remove_share(short)

    def add_share(self, share: Share) -> None:
        corp = share.corporation
        corp.shares.append(share)
        share.owner.shares_by_corp.setdefault(corp.sym, []).append(share)
        corp.holdings[share.owner] = corp.holdings.get(share.owner, 0) + share.percent
        self.share_by_id[share.id] = share

    def remove_share(self, share: Share) -> None:
        corp = share.corporation
        corp.shares.remove(share)
        share.owner.shares_by_corp[corp.sym].remove(share)
        corp.holdings[share.owner] = corp.holdings.get(share.owner, 0) - share.percent
        del self.share_by_id[share.id]

    # --- mergers ------------------------------------------------------------------------------------
    def merged_price(self, corp: Corporation, target: Corporation):
        """Two 2-share corporations merge at the market price at most the sum of their prices, two 5-share
        ones at most their average."""
        total = corp.share_price.price + target.share_price.price
        return self.market.price_at_most(total if corp.total_shares == 2 else total // 2)

    def merge(self, corp: Corporation, target: Corporation) -> None:
        """`target` merges into `corp`: its cash, privates, loans, trains and stations go over; the price is
        the merged one; two 2-share corporations become one of 5 shares (a president who didn't preside both
        buying the extra share for the other at the new price), two of 5 shares one of 10 (each 20% becomes
        10%); `target` may be started again."""
        cell = self.merged_price(corp, target)
        if target.cash:
            self.transfer(target, corp, target.cash)
        corp.loans += target.loans
        target.loans = 0
        self.take_over(corp, target)
        self.market.move_to(corp, cell)
        if corp.total_shares == 2:
            owner, other = corp.owner, target.owner
            self.resize(corp, 5)
            if owner is not other:
                owner.cash -= cell.price
                corp.cash += cell.price
                self.give_share(next(s for s in corp.shares_of(corp) if not s.president), other)
        else:
            self.merge_shares(corp, target)
        self.reset_corporation(target)

    def take_over(self, corp: Corporation, target: Corporation) -> None:
        """The trains, privates and stations of a corporation merged or acquired go to the survivor."""
        for company in list(target.companies):
            target.companies.remove(company)
            company.owner = corp
            corp.companies.append(company)
        for train in list(target.trains):
            target.trains.remove(train)
            train.owner = corp
            corp.trains.append(train)
        self.merge_stations(corp, target)

    def merge_stations(self, corp: Corporation, target: Corporation) -> None:
        """A station of the survivor in a city where the merged one has one goes back to its charter; the
        merged one's stations become the survivor's where they stand, at most 8 of them and one a hex: over
        that the survivor first removes stations (engine.titles.g1817.mergers.ReduceStations)."""
        hexmap = self.hexmap
        theirs = {id(c) for c in hexmap.token_cities(target.sym)}
        for city in hexmap.token_cities(corp.sym):
            if id(city) in theirs:
                hexmap.remove_token(corp.sym, city.tile.hex.coord)
                self.station_back_to_charter(corp)
        self.forget_route(corp)
        self.stations_to_reduce = (corp, target, len(target.token_prices))
        if not self.stations_over_limit():
            self.move_stations()

    @staticmethod
    def station_back_to_charter(corp: Corporation) -> None:
        """A station taken off the map goes back to its corporation's charter (while the survivor reduces its
        stations, each side's charter shows it, as on 18xx.games)."""
        if corp.tokens_used:
            corp.tokens_used -= 1

    def stations_over_limit(self) -> bool:
        corp, target, _ = self.stations_to_reduce
        placed, moved = self.hexmap.tokened_hexes(corp.sym), self.hexmap.tokened_hexes(target.sym)
        return bool(set(placed) & set(moved)) or len(placed) + len(moved) > self.STATION_LIMIT_AFTER_MERGER

    def move_stations(self) -> None:
        corp, target, their_count = self.stations_to_reduce
        hexmap = self.hexmap
        placed, moved = hexmap.tokened_hexes(corp.sym), hexmap.tokened_hexes(target.sym)
        for coord in moved:
            hexmap.replace_token(target.sym, corp.sym, coord, first_free_slot=True)
        target.tokens_used = 0
        total = min(len(corp.token_prices) + their_count, self.STATION_LIMIT_AFTER_MERGER)
        used = len(placed) + len(moved)
        corp.token_prices = [0] * total
        corp.token_used = [True] * used + [False] * (total - used)
        self.stations_to_reduce = None
        self.findings_renewed()  # 18xx.games looks at the map again once stations have moved

    STATION_LIMIT_AFTER_MERGER = 8

    def merge_shares(self, corp: Corporation, target: Corporation) -> None:
        """Two 5-share corporations: the survivor grows to 10 shares; each 20% of the merged one becomes one
        of its 10% shares (its new treasury shares first, then extra ones), each short of 20% a short of 10%;
        the player holding most becomes president (the survivor's president keeps it in a tie); then a
        holder's short and 10% share cancel out."""
        previous = corp.owner
        issued = self.resize(corp, 10)
        number = max([s.number for s in corp.shares] + [9])
        for share in list(target.shares):
            holder = corp if share.owner is target else share.owner
            for _ in range(abs(share.percent) // 20):
                if share.percent > 0 and issued:
                    new = issued.pop(0)
                    if holder is not corp:
                        self.give_share(new, holder)
                    continue
                number += 1
                if share.percent > 0:
                    self.add_share(Share(f"{corp.sym}_{number}", corp, 10, owner=holder))
                else:
                    self.add_share(Share(f"{corp.sym}_{number}", corp, -10, owner=holder, buyable=False,
                                         counts_for_limit=False))
        self.check_presidency(corp, previous, None)
        for holder in dict.fromkeys(s.owner for s in corp.shares):
            while self.shorts_of(holder, corp):
                share = next((s for s in holder.shares_of(corp) if s.percent == 10), None)
                if share is None:
                    break
                self.unshort(holder, share)

    def reset_corporation(self, corp: Corporation) -> None:
        """A corporation merged away or acquired becomes one that may be started again."""
        self.forget_route(corp)
        for holder in (*self.players, self.pool):
            holder.shares_by_corp.pop(corp.sym, None)
        for share in corp.shares:
            self.share_by_id.pop(share.id, None)
        if not (self.stations_to_reduce and self.stations_to_reduce[1] is corp):  # its stations wait to move
            for coord in self.hexmap.tokened_hexes(corp.sym):
                self.hexmap.remove_token(corp.sym, coord)
        for company in list(corp.companies):
            self.close_company(company)
        for train in corp.trains:  # a corporation the bank liquidated: its trains leave the game
            train.owner = None
            self.orphan_trains.append(train)
        if corp.share_price is not None:
            corp.share_price.corporations.remove(corp)
        Corporation.__init__(corp, corp.data)
        for share in corp.shares:
            self.share_by_id[share.id] = share

    def conversion_stations_cost(self, corp: Corporation, count: int) -> int:
        """$50 a station; the Station Subsidy pays for one."""
        return count * STATION_PRICE - (STATION_PRICE if self.owns(corp, STATION_SUBSIDY) else 0)

    def buy_conversion_stations(self, corp: Corporation, count: int) -> None:
        """A converted corporation buys the stations its new size brings at $50 each (the Station Subsidy
        paying for one), or is liquidated."""
        if not count:
            return
        cost = self.conversion_stations_cost(corp, count)
        if corp.cash < cost:
            self.liquidate(corp, "stations")
            return
        self.transfer(corp, self.bank, cost)
        if cost < count * STATION_PRICE:
            self.company_payments.append({"company": STATION_SUBSIDY, "to": corp.key, "to_type": corp.kind,
                                          "amount": count * STATION_PRICE - cost})
        corp.add_tokens([0] * count)

    # --- loans --------------------------------------------------------------------------------------
    def check_named(self, action) -> None:
        if action.type in ("take_loan", "payoff_loan") and not 0 <= action.loan < self.loan_bank.total:
            raise GameError("there is no loan {loan}: the game's loans are numbered 0 to {last}", loan=action.loan,
                            last=self.loan_bank.total - 1)

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
            raise GameError("{corporation} owes {loans} loans, as many as it may", corporation=corp.sym,
                            loans=corp.loans)
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
        if self.stations_to_reduce and self.stations_to_reduce[1] is corp and not corp.ipoed:
            # the merged corporation's stations, waiting for the survivor to reduce them, are no longer its
            # own once it is reset (18xx.games has started it afresh), nor yet the survivor's
            out["tokens"] = []
        return out

    # --- what players' views show (engine.core.turninfo) --------------------------------------------
    def player_of(self, entity):
        """A corporation being auctioned has no president yet: the player who opened its auction chooses
        its home city."""
        if entity is not None and entity is self.home_pending and entity.owner is None:
            return self.home_chooser
        return super().player_of(entity)

    def operator_facts(self, operator) -> dict:
        """A corporation's size, loans (and how many more it may take), the interest they cost at the rate
        now, its market zone and the shorts against it by holder (player id, or "market")."""
        if not isinstance(operator, Corporation):
            return {}
        shorts: dict = {}
        for s in self.shorts(operator):
            holder = "market" if s.owner is self.pool else getattr(s.owner, "id", None)
            shorts[holder] = shorts.get(holder, 0) + 1
        return {"loans": operator.loans, "max_loans": self.max_loans(operator),
                "interest": self.interest_owed(operator),
                "zone": self.zone(operator) if operator.share_price else None, "shorts": shorts}

    def title_facts(self) -> dict:
        """The loans: what one lends, the rate now (fixed for an operating round or not), the rate the next
        loan would make, loans out and left; during the Volatility auction, its pyramid's rows (top first)."""
        lb = self.loan_bank
        rows = getattr(self.round.active_step(), "rows", None) if isinstance(self.round, AuctionRound) else None
        auction = {"auction_rows": [[c.sym if c else None for c in row] for row in rows]} if rows else {}
        return {**auction, "loans": {"value": lb.value, "rate": lb.rate, "fixed": lb.fixed_rate is not None,
                          "rate_after_next": lb.rate if lb.fixed_rate is not None else lb.rate_for(lb.taken + 1),
                          "out": lb.taken, "left": lb.left, "total": lb.total},
                "unlimited_bank": True}
