"""18MEX rule hooks over the 18xx core (rules: docs/18mex.md).

Three minors (A, B, C) sold as privates in the opening auction; the NdM with two 5% certificates reserved
for the minors' owners; phase 3½ closes the minors into those certificates (and a reserved UdY 10%); the
first 5-train lets a major merge into the NdM; mail contracts; 4D trains double cities and offboards;
4-trains become obsolete at phase 6½; one train from the bank per turn before the first 4-train.
"""

from __future__ import annotations

from engine.core.entities import Company, Corporation, Minor, Player, Share, Train
from engine.core.game import BaseGame
from engine.core.rounds import AuctionRound, OperatingRound, StockRound
from engine.core.steps.auction import CompanyPendingPar, WaterfallAuction
from engine.core.steps.operating import BuyCompany, DiscardTrain, HomeToken, Route, SpecialToken, Token
from engine.titles.g18mex import steps

NDM = "NdM"
UDY = "UdY"
# minor -> (corporation, certificate) it is exchanged for at phase 3½
MINOR_EXCHANGES = {"A": (NDM, "NdM_7"), "B": (NDM, "NdM_8"), "C": (UDY, "UdY_8")}
NDM_MERGE_SHARE = "NdM_9"  # the 10% the president of the merged major receives
NOT_MERGEABLE = ("FCP", "TM")  # their "base" ability: never merged into the NdM
COPPER_CANYON_HEX = "F5"
COPPER_CANYON_TILE = "470"
MEXICO_CITY_HEXES = ("O10", "P11")  # one double hex: a tile laid on one is laid on both
BOLEO = "CdB"  # the Compagnie du Boleo, in the game with the Baja variant: a free station on Santa Rosalia
# privates corporations may buy from players already in phase 2, each with the optional rule that offers it
EARLY_SALES = (("KCMO", "early_buy_of_kcmo"), (BOLEO, "baja_variant"))


class Game18MEX(BaseGame):
    TITLE = "18MEX"
    PROGRAM_TYPES = (*BaseGame.PROGRAM_TYPES, *WaterfallAuction.PROGRAM_TYPES)  # auction programs too
    UNSUPPORTED_OPTIONAL_RULES: frozenset[str] = frozenset()
    KEEPS_FINDINGS_THROUGH_REMOVALS = True  # a minor's or a merged major's station taken off: see docs/18mex.md

    def __init__(self, players, seed=0, optional_rules=(), game_id=None) -> None:
        self.stock_round_started = False  # minors of an unfinished opening auction are paid a fixed sum
        self.minors_close_pending = False  # optional rule: minors close at the next stock round
        self.merge_candidates: list[Corporation] = []
        self.merge_trigger: Player | None = None  # the player whose corporation bought the first 5-train
        self.merged_major: Corporation | None = None
        self.merged_cities_to_select: list[str] = []  # hexes of the merged major's stations, NdM to choose one
        self.recently_floated: list[Corporation] = []  # floated since the last operating round (optional rule)
        super().__init__(players, seed, optional_rules, game_id)

    # --- set-up -----------------------------------------------------------------------------------
    def setup(self) -> None:
        for minor in self.minors:  # each minor owns a 2-train from the start, never to be sold
            train = self.depot.upcoming[0]
            self.depot.remove(train)
            train.owner = minor
            train.buyable = False
            minor.trains.append(train)
        for _corp, share_id in MINOR_EXCHANGES.values():
            share = self.share(share_id)
            share.buyable = False
            if share.percent == 5:
                share.counts_for_limit = False
        self.share(NDM_MERGE_SHARE).buyable = False
        self.set_company_prices()
        if "early_buy_of_kcmo" in self.optional_rules:
            kcmo = self.company("KCMO")
            kcmo.min_price, kcmo.max_price = 1, kcmo.value
        if "hard_rust_t4" in self.optional_rules:
            for train in self.depot.trains:
                if train.name == "4":
                    train.rusts_on, train.obsolete_on = train.obsolete_on, None

    @property
    def ndm(self) -> Corporation:
        return self.corporation_by_sym[NDM]

    # --- rounds -------------------------------------------------------------------------------------
    def initial_round(self):
        return AuctionRound(self, [CompanyPendingPar, WaterfallAuction])

    def stock_round(self):
        self.stock_round_started = True
        if self.minors_close_pending:
            self.close_minors()
        return StockRound(self, [DiscardTrain, steps.BuySellParShares])

    def operating_round(self, round_num: int):
        return OperatingRound(self, [steps.Bankrupt, steps.Assign, SpecialToken, BuyCompany, HomeToken, steps.Merge,
                                     steps.SpecialTrack, steps.Track, Token, Route, steps.Dividend,
                                     DiscardTrain, steps.SingleDepotTrainBuy, steps.BlockingBuyCompany],
                              round_num=round_num)

    # --- privates and minors -----------------------------------------------------------------------
    def after_buy_company(self, player: Player, company: Company, price: int) -> None:
        super().after_buy_company(player, company, price)
        minor = self.minor_by_sym.get(company.sym)
        if minor is not None:  # the minor's charter was sold as a private: its buyer owns the minor
            minor.owner = player
            minor.floated = True

    def payout_companies(self) -> None:
        super().payout_companies()
        if not self.stock_round_started:
            # the opening auction ended a round unfinished: bought minors earn a fixed $30, as on 18xx.games
            for minor in self.minors:
                if minor.floated and not minor.closed:
                    self.transfer(self.bank, minor.owner, 15)
                    self.transfer(self.bank, minor, 15)

    def purchasable_companies(self, buyer) -> list[Company]:
        if isinstance(buyer, Minor):
            return []
        if self.early_sale():  # in phase 2 only the privates an optional rule offers, from whoever owns them
            return [c for c in self.early_sale_companies() if not c.closed and isinstance(c.owner, Player)]
        return super().purchasable_companies(buyer)

    def early_sale_companies(self) -> list[Company]:
        """The privates corporations may buy in phase 2: the KCM&O (optional rule) and the Boleo (Baja variant)."""
        syms = [sym for sym, rule in EARLY_SALES if rule in self.optional_rules]
        return [self.company(sym) for sym in syms]

    def early_sale(self) -> bool:
        return self.phase.name == "2" and bool(self.early_sale_companies())

    def corporations_buy_companies(self) -> bool:
        return super().corporations_buy_companies() or self.early_sale()

    def pay_minor(self, minor: Minor, revenue: int) -> None:
        """A minor keeps half its revenue (rounded down) and pays the rest to its owner."""
        minor.last_revenue = revenue
        self.revenue_decided(minor)
        kept = revenue // 2
        if kept:
            self.transfer(self.bank, minor, kept)
        if revenue - kept:
            self.transfer(self.bank, minor.owner, revenue - kept)

    # --- certificates -------------------------------------------------------------------------------
    def cert_count(self, share: Share) -> int:
        """NdM 5% certificates don't count toward the certificate limit."""
        if share.corporation.sym == NDM and share.percent == 5:
            return 0
        return super().cert_count(share)

    def sellable_bundles(self, player: Player, corp: Corporation) -> list[tuple[list[Share], int]]:
        """NdM 5% certificates are sold one at a time, apart from the 10% ones."""
        if corp.sym != NDM or not corp.ipoed:
            return super().sellable_bundles(player, corp)
        whole = [s for s in player.shares_of(corp) if s.percent > 5]
        halves = [s for s in player.shares_of(corp) if s.percent == 5][:1]
        return self.bundles_of(corp, whole) + self.bundles_of(corp, halves)

    def liquidation_bundles(self, player: Player, corp: Corporation) -> list[tuple[list[Share], int]]:
        return super().sellable_bundles(player, corp)

    def presidency_swap_order(self, shares: list[Share]) -> list[Share]:
        """The new president hands over 10% certificates before 5% ones (as 18xx.games orders them: by size,
        then the list reversed, so the certificates received last go first)."""
        return sorted(shares, key=lambda s: s.percent)[::-1]

    # --- trains -------------------------------------------------------------------------------------
    def keeps_train(self, train: Train) -> bool:
        # optional rule: minors' 2-trains last until the minors close at the next stock round
        return "delay_minor_close" in self.optional_rules and train.name == "2" and isinstance(train.owner, Minor)


    # --- mail contract ------------------------------------------------------------------------------
    def place_home_token(self, operator) -> None:
        super().place_home_token(operator)
        if isinstance(operator, Corporation) and operator.trains:
            # the mail contract: the home city's value, paid to the treasury before the turn
            income = self.mail_income(operator)
            if income > 0:
                self.transfer(self.bank, operator, income)
                self.outcomes.append({"event": "mail_contract", "to": operator.sym, "to_type": operator.kind,
                                      "amount": income})

    def mail_income(self, corp: Corporation) -> int:
        home = self.hexmap.hex(self.home_hexes(corp)[0]).tile
        stops = home.cities + home.towns
        return stops[0].revenue_for(self.phase.tiles, corp.trains[0].name if corp.trains else None) if stops else 0

    # --- facts for players' views ---------------------------------------------------------------------
    def operator_facts(self, operator) -> dict:
        if isinstance(operator, Minor):
            corp, share = MINOR_EXCHANGES[operator.sym]
            return {"closes_into": {"corporation": corp, "certificate": share,
                                    "percent": self.share(share).percent}}
        out = {"mail": self.mail_income(operator), "may_merge": operator.sym not in NOT_MERGEABLE + (NDM,)}
        if operator.sym == NDM:
            out["tradeable"] = "ndm_unavailable" not in self.phase.status
        return out

    def title_facts(self) -> dict:
        return {"merger": {"candidates": [c.sym for c in self.merge_candidates],
                           "merged": self.merged_major.sym if self.merged_major else None,
                           "cert_limit_raised": self.cert_limit > self.data["meta"]["cert_limit"][str(len(self.players))]}}

    # --- events -------------------------------------------------------------------------------------
    def set_company_prices(self) -> None:
        for company in self.companies:  # corporations buy privates for half to one and a half face value
            company.min_price = company.value // 2
            company.max_price = company.value * 3 // 2
        boleo = self.company_by_sym.get(BOLEO)
        if boleo is not None:  # but the Boleo for half to full face value ($15 to $30)
            boleo.max_price = boleo.value

    def event_companies_buyable(self, event: dict) -> None:
        """From phase 3 corporations may buy privates (the phase status says so), all at the usual prices
        (also the KCM&O, bought earlier for less under an optional rule)."""
        self.set_company_prices()

    def event_minors_closed(self, event: dict) -> None:
        """Phase 3½: the minors close into reserved certificates (delayed to the next stock round by an
        optional rule)."""
        if "delay_minor_close" in self.optional_rules and not self.minors_close_pending:
            self.minors_close_pending = True
            return
        self.close_minors()

    def close_minors(self) -> None:
        self.minors_close_pending = False
        for sym, (corp_sym, share_id) in MINOR_EXCHANGES.items():
            minor = self.minor(sym)
            if minor.closed:
                continue
            corp = self.corporation(corp_sym)
            share = self.share(share_id)
            share.buyable = True
            if minor.owner is not None:
                self.buy_shares(minor.owner, [share], free=True)
            minor.closed_cities = self.hexmap.token_cities(minor.sym)
            with self.findings_kept():
                for coord in self.hexmap.tokened_hexes(minor.sym):
                    self.hexmap.remove_token(minor.sym, coord)
            if minor.cash:
                self.transfer(minor, corp, minor.cash)
            for train in list(minor.trains):
                minor.trains.remove(train)
                train.owner = None
                train.rusted = True
                self.depot.trains.remove(train)
            minor.closed = True
            minor.floated = False
            minor.owner = None
            self.close_company(self.company(sym))
        self.remove_ability(self.ndm, "no_buy")

    def event_ndm_merger(self, event: dict) -> None:
        for sym in NOT_MERGEABLE:
            self.remove_ability(self.corporation(sym), "base")
        ndm = self.ndm
        if not ndm.floated:
            self.merge_major(None)
            return
        self.merge_candidates = self.mergeable_corporations()
        self.possible_auto_merge()

    def mergeable_corporations(self) -> list[Corporation]:
        """Majors that may merge into the NdM: first those floated and owned by players, in seat order
        from the left of the player whose corporation bought the first 5-train; then, if nobody merges,
        one not floated (not yet started, if there is such a major) chosen by the NdM."""
        ndm = self.ndm
        corps = [c for c in self.corporations if c.owner is not ndm.owner and c.sym not in NOT_MERGEABLE
                 and c is not ndm]
        floated = [c for c in corps if isinstance(c.owner, Player) and c.floated]
        others = [c for c in corps if c not in floated]
        trigger = self.players.index(self.merge_trigger) if self.merge_trigger in self.players else -1
        order = {p: (i + 10 if i <= trigger else i) for i, p in enumerate(self.players)}
        operating = self.round.entities if isinstance(self.round, OperatingRound) else []
        floated.sort(key=lambda c: (order[c.owner], operating.index(c) if c in operating else len(operating)))
        if any(not c.ipoed for c in others):
            others = [c for c in others if not c.ipoed]
        return floated + others

    def possible_auto_merge(self) -> None:
        if not self.merge_candidates:
            self.merge_major(None)
            return
        first = self.merge_candidates[0]
        if len(self.merge_candidates) == 1 and not first.floated:
            self.merge_major(first)

    def merge_decider(self) -> Corporation:
        first = self.merge_candidates[0]
        return first if first.floated else self.ndm

    def decline_merge(self, corp: Corporation) -> None:
        self.merge_candidates.remove(corp)
        self.possible_auto_merge()

    def merge_major(self, major: Corporation | None) -> None:
        """Merge a major into the NdM (None: nobody merges, and the certificate limit rises by one)."""
        self.merge_candidates = []
        ndm = self.ndm
        self.share(NDM_MERGE_SHARE).buyable = True
        if major is None:
            self.cert_limit += 1
            return
        self.merged_major = major
        half_price = major.share_price.price / 2 if major.ipoed else 0
        for player in self.players:
            refund = 0.0
            for share in list(player.shares_of(major)):
                if share.president:
                    self.buy_shares(major.owner, [self.share(NDM_MERGE_SHARE)], free=True)
                else:
                    refund += half_price
                self.give_share(share, major)
            for share in list(self.pool.shares_of(major)):
                self.give_share(share, major)
            if refund > 0:
                amount = -int(-refund // 1)
                self.transfer(self.bank, player, amount)
        with self.findings_kept():
            self.merge_stations(major)
        if major.cash > 0:
            self.transfer(major, ndm, major.cash)
        for train in list(major.trains):
            major.trains.remove(train)
            train.owner = ndm
            ndm.trains.append(train)
        self.close_corporation(major, remove_stations=not self.merged_cities_to_select)

    def merge_stations(self, major: Corporation) -> None:
        """The NdM takes two exchange stations: one replaces the merged major's home station (or takes its
        reserved home), the other one of its other stations (the NdM's president chooses when there are
        several); the rest are removed, and so is any in a city where the NdM already is; unused exchange
        stations stay on the NdM's charter at the price of its last station."""
        ndm = self.ndm
        hm = self.hexmap
        # the exchange tokens come after every token of the charter, placed or not: a later station takes the
        # first unused token, so it is listed before them
        hm.hold_token_places(ndm.sym, len(ndm.token_used))
        ndm.add_tokens([ndm.token_prices[-1]] * 2)
        exchange = 2
        home = hm.hex(self.home_hexes(major)[0])
        placed = next((c for c in home.tile.cities if major.sym in c.tokens), None)
        city = placed or next((c for c in home.tile.cities if major.sym in c.reservations), None) or \
            (home.tile.cities[0] if home.tile.cities else None)
        for c in home.tile.cities:
            c.reservations = [None if r == major.sym else r for r in c.reservations]
        if major.sym in home.reservations:
            home.reservations.remove(major.sym)
        if placed is not None:
            hm.remove_token(major.sym, home.coord)
            major.tokens_used -= 1  # the token goes back to the charter
        if city is not None and ndm.sym not in city.tokens:
            hm.place_free_token(ndm.sym, city, place=self.use_exchange_token())
            exchange -= 1
        for coord in hm.tokened_hexes(major.sym):
            if any(ndm.sym in c.tokens and major.sym in c.tokens for c in hm.hex(coord).tile.cities):
                hm.remove_token(major.sym, coord)
                major.tokens_used -= 1  # the token goes back to the charter
        remaining = hm.tokened_hexes(major.sym)
        self.merged_cities_to_select = []
        if len(remaining) <= exchange:
            for coord in remaining:
                city = next(c for c in hm.hex(coord).tile.cities if major.sym in c.tokens)
                hm.remove_token(major.sym, coord)
                major.tokens_used -= 1  # the token goes back to the charter
                hm.place_free_token(ndm.sym, city, place=self.use_exchange_token())
        else:
            self.merged_cities_to_select = list(remaining)

    def use_exchange_token(self) -> int:
        """One of the two exchange tokens at the end of the NdM's charter goes on the map: its place on the
        charter."""
        ndm = self.ndm
        place = next(i for i in range(len(ndm.token_used) - 2, len(ndm.token_used)) if not ndm.token_used[i])
        ndm.use_token(place)
        return place

    def select_ndm_city(self, coord: str) -> None:
        major = self.merged_major
        for hex_coord in self.merged_cities_to_select:
            if hex_coord == coord:  # the NdM's station takes the merged major's place
                self.hexmap.replace_token(major.sym, self.ndm.sym, hex_coord, place=self.use_exchange_token())
            else:
                self.hexmap.remove_token(major.sym, hex_coord)
                major.tokens_used -= 1  # the token goes back to the charter
        self.merged_cities_to_select = []
        major.tokens_used = 0

    # --- map ----------------------------------------------------------------------------------------
    def tile_lays(self, operator) -> list[dict]:
        if isinstance(operator, Minor):
            return [{"lay": True, "upgrade": False}]
        lays = [{"lay": True, "upgrade": True}, {"lay": "not_if_upgraded", "upgrade": False}]
        if "triple_yellow_first_or" in self.optional_rules and operator in self.recently_floated:
            lays.append({"lay": "not_if_upgraded", "upgrade": False})
        return lays

    def float_corporation(self, corp: Corporation) -> None:
        super().float_corporation(corp)
        self.recently_floated.append(corp)

    def after_lay(self, operator, coord: str, by: Company | None = None) -> None:
        """A tile laid on one half of Mexico City is laid on the other too (its terrain paid); the KCM&O
        closes once it has laid its Copper Canyon tile (18xx.games)."""
        if coord in MEXICO_CITY_HEXES and not self._laying_partner:
            other = MEXICO_CITY_HEXES[1 - MEXICO_CITY_HEXES.index(coord)]
            laid = self.hexmap.hex(coord).tile.name
            partner = laid.replace("P", "MC") if laid.endswith("P") else laid.replace("MC", "P")
            self._laying_partner = True
            try:
                cost = self.hexmap.check_lay(operator.sym, other, partner, 0, colors=self.phase.tiles,
                                             need_connection=False)
                self.lay_tile(operator, other, partner, 0, cost)
            finally:
                self._laying_partner = False
        kcmo = self.company_by_sym.get("KCMO")
        if by is kcmo and kcmo is not None and self.hexmap.hex(coord).tile.name == COPPER_CANYON_TILE:
            self.close_company(kcmo)

    def action_processed(self, action, entity) -> None:
        """A tile on Copper Canyon by anyone but the KCM&O takes its right to lay there; as on 18xx.games
        this comes after the turn has moved past steps with nothing left to do."""
        kcmo = self.company_by_sym.get("KCMO")
        if action.type == "lay_tile" and action.hex == COPPER_CANYON_HEX and kcmo is not None \
                and not kcmo.closed and entity is not kcmo:
            self.remove_ability(kcmo, "tile_lay")

    _laying_partner = False

    def partner_lay_cost(self, coord: str) -> int:
        """What laying on one half of Mexico City costs on the other half (its terrain)."""
        if coord not in MEXICO_CITY_HEXES:
            return 0
        other = self.hexmap.hex(MEXICO_CITY_HEXES[1 - MEXICO_CITY_HEXES.index(coord)])
        return sum(u.get("cost", 0) for u in other.tile.upgrades)

    def after_operating_round(self):
        self.recently_floated = []
        return super().after_operating_round()
