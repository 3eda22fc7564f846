"""1860: Railways on the Isle of Wight, as rule hooks over the 18xx core (rules: docs/1860.md).

Six lots sold by auctions for the right to choose (four privates and the president's certificates of the
first two companies); companies available layer by layer; a zig-zag market with a ledge at each end;
two yellow lays or one upgrade, and a home tile at float; N+M trains, towns and halts, halt subsidies;
insolvency with leased trains; receivership; bankruptcy at a price of 0 and relaunch; privates sold to
the bank; the Fishbourne ferry; nationalisation and its British Rail end game. Players' money is pounds,
the companies' money credits.
"""

from __future__ import annotations

from engine.core.distance import Distances
from engine.core.entities import Company, Corporation, Player, Share, Train
from engine.core.errors import GameError
from engine.core.game import BaseGame
from engine.core.market import StockMarket
from engine.core.rounds import AuctionRound, OperatingRound, StockRound
from engine.titles.g1860 import steps
from engine.titles.g1860.routes import RouteRules1860

FISHBOURNE = "FFC"
LEASE_BASE, LEASE_PER_STOP = 40, 20  # an insolvent company's leased train: 40 credits + 20 a stop


class OperatingRound1860(OperatingRound):
    """Companies operate; at the end of each turn a company without trains that has a route becomes
    insolvent, one with trains stops being so, and one whose price fell to 0 goes bankrupt."""

    trains_run_again_each_turn = True

    @property
    def description(self) -> str:
        game = self.game
        if game.nationalization:
            return f"{self.name} {game.turn}.{self.round_num} (Nationalization)"
        return super().description

    def start_operating(self) -> None:
        corp = self.current_entity
        self.game.crowded = [corp] if corp in self.game.over_train_limit() else []
        super().start_operating()

    def after_process(self, action, entity) -> None:
        corp = self.current_operator()
        if corp is not None and action.type == "run_routes":
            self.game.after_run(corp)
        if corp is not None and self.game.turn_over(corp):
            self.steps_done()
        super().after_process(action, entity)

    def steps_done(self) -> None:
        for step in self.steps:
            step.passed = True
        self.blocking_cache.clear()

    def next_entity(self) -> None:
        corp = self.current_entity
        if corp is not None:
            self.game.after_operating(corp)
        super().next_entity()

    lowest_payers_nationalized = False  # set when the end check has nationalised this round's lowest payers


class StockRound1860(StockRound):
    """A stock round that starts over when a sale makes a company bankrupt."""

    def after_process(self, action, entity) -> None:
        game = self.game
        if game.restart_stock_round:
            game.restart_stock_round = False
            self.start()
            return
        super().after_process(action, entity)


class Game1860(BaseGame):
    TITLE = "1860"
    ROUTE_RULES = RouteRules1860

    def __init__(self, players, seed=0, optional_rules=(), game_id=None) -> None:
        if "simplified_insolvency" in optional_rules and \
                {"original_insolvency", "original_game"} & set(optional_rules):
            raise GameError("simplified insolvency can't be combined with original insolvency or the first-edition "
                            "rules")
        self.insolvent: list[Corporation] = []
        self.bankrupt: list[Corporation] = []
        self.nationalized: list[Corporation] = []
        self.no_price_drop_on_sale = False
        self.southern_formed = False
        self.sr_after_southern = False  # from the first stock round after the first 9+5: no track, tokens, halts
        self.nationalization = False
        self.crowded: list[Corporation] = []  # the company that must discard trains at the start of its turn
        self.or_payouts: dict[str, int] = {}  # what each company paid in its latest OR (British Rail)
        self.pending_home_tracks: list[Corporation] = []  # floated in this stock round, home tile to lay
        # each company's distances from its stations as last worked out since the latest tile lay (what an
        # upgrade's check compares with, as 18xx.games keeps them)
        self.distance_cache: dict[str, Distances] = {}
        super().__init__(players, seed, optional_rules, game_id)

    # --- set-up -----------------------------------------------------------------------------------
    def setup(self) -> None:
        constants = self.data["constants"]
        self.layer_by_sym: dict[str, int] = dict(constants["LAYER_BY_NAME"])
        self.par_range = {int(k): tuple(v) for k, v in constants["PAR_RANGE"].items()}
        self.repar_range = {int(k): tuple(v) for k, v in constants["REPAR_RANGE"].items()}
        self.company_sale_fee: int = constants["COMPANY_SALE_FEE"]
        self.halt_subsidy: int = constants["HALT_SUBSIDY"]
        self.bank_pounds: int = constants["BANK_CASH"]
        self.min_par_after_bankruptcy: int = constants["MIN_PAR_AFTER_BANKRUPTCY"]
        # the bank holds the pounds and the companies' credits; its pounds run out as the title says
        self.bank.checks_cash = False
        self.transfer(self.bank, self.bank, 0)
        self.bank.cash = constants["BANK_CASH_AND_COMPANY_CREDITS"] - sum(p.cash for p in self.players)
        # one certificate of each company linked to a starting private is reserved for its exchange
        for company in self.companies:
            for ability in company.abilities:
                if ability["type"] == "exchange":
                    corp = self.corporation(ability["corporations"][0])
                    corp.shares[-1].buyable = False

    def make_market(self) -> StockMarket:
        return StockMarket(self.data["market"], ledge=True)

    def make_map(self):
        from engine.core.hexmap import HexMap

        return HexMap(self.data, pass_full_cities=1)

    # --- options ------------------------------------------------------------------------------------
    def option(self, name: str) -> bool:
        """An optional rule in force (the first-edition rules bring their parts along)."""
        implied = {"two_player_map": ("original_game",), "original_insolvency": ("original_game",),
                   "no_skip_towns": ("original_game",)}
        return name in self.optional_rules or any(o in self.optional_rules for o in implied.get(name, ()))

    # --- rounds -------------------------------------------------------------------------------------
    def initial_round(self):
        return AuctionRound(self, [steps.BuyCert])

    def stock_round(self):
        self.pending_home_tracks = []
        return StockRound1860(self, [steps.HomeTrack, steps.Exchange, steps.BuySellParShares])

    def operating_round(self, round_num: int):
        return OperatingRound1860(self, [steps.DiscardTrain, steps.Track, steps.Token, steps.Route,
                                         steps.Dividend, steps.BuyTrain], round_num=round_num)

    def after_auction_round(self):
        self.priority_after_auction()
        return self.stock_round()

    def after_stock_round(self):
        self.operating_rounds = self.phase.operating_rounds
        self.reorder_players()
        if self.nationalization_due():
            self.nationalization = True
        return self.operating_round(1)

    def after_operating_round(self):
        """Once every started company with a president has a train after the Southern Railway formed, only
        operating rounds follow (the British Rail end game)."""
        if self.round.round_num < self.operating_rounds or self.nationalization_due():
            if self.nationalization_due():
                self.nationalization = True
            return self.operating_round(self.round.round_num + 1)
        self.turn += 1
        if self.southern_formed:
            self.sr_after_southern = True
        return self.stock_round()

    def priority_after_auction(self) -> None:
        """The richest player gets priority; on a tie, the one whose privates are worth least."""
        by_cash = sorted(self.players, key=lambda p: p.cash, reverse=True)
        if by_cash[0].cash > by_cash[1].cash:
            first = by_cash[0]
        else:
            first = min((p for p in self.players if p.companies), key=lambda p: sum(c.value for c in p.companies))
        i = self.players.index(first)
        self.players = self.players[i:] + self.players[:i]

    # --- layers and par prices ----------------------------------------------------------------------
    def layer(self, corp: Corporation) -> int:
        return self.layer_by_sym[corp.sym]

    def current_layer(self) -> int:
        """Companies are available up to one layer above the highest layer with a company that has operated
        or whose IPO is empty."""
        done = [self.layer(c) for c in self.corporations if not c.shares_of(c) or c.operated]
        return min(max(done) + 1, 4) if done else 1

    def layer_available(self, corp: Corporation) -> bool:
        return self.layer(corp) <= self.current_layer()

    def par_range_of(self, corp: Corporation) -> tuple[int, int]:
        ranges = self.repar_range if corp in self.bankrupt else self.par_range
        return ranges[self.layer(corp)]

    def par_prices(self, corp: Corporation) -> list:
        """The cells a company may be started at: its layer's range of par cells, or after a bankruptcy
        any par or re-par cell from the title's minimum up to its maximum par."""
        low, high = self.par_range_of(corp)
        if corp in self.bankrupt:
            cells = [c for c in self.market.cells.values() if c.types & {"par", "repar"}]
            cells.sort(key=lambda c: c.column, reverse=True)
        else:
            cells = self.market.par_prices
        return [c for c in cells if low <= c.price <= high]

    def min_price(self, corp: Corporation) -> int:
        """What a share of a company without a price counts for (the lowest par, or the minimum re-par)."""
        if corp in self.bankrupt:
            return self.min_par_after_bankruptcy
        return min(c.price for c in self.market.par_prices)

    # --- money --------------------------------------------------------------------------------------
    def bank_pounds_left(self) -> int:
        return self.bank_pounds - sum(p.cash for p in self.players)

    def title_facts(self) -> dict:
        return {"bank_pounds_left": self.bank_pounds_left()}

    def check_bank_broken(self) -> None:
        if not self.nationalization and self.bank_pounds_left() < 0:
            self.bank.broken = True

    # --- shares -------------------------------------------------------------------------------------
    def counts_for_cert_limit(self, corp: Corporation) -> bool:
        return True

    def share_price_for_sale(self, corp: Corporation) -> int:
        """What a share sells for: half (rounded down) if the company has no train, unless it has not operated
        and the optional rule says such shares keep their value."""
        price = corp.share_price.price
        if corp.trains or (self.option("non_operated_full_value") and not corp.operated):
            return price
        return price // 2

    def certificate_value(self, share: Share) -> int:
        price = self.certificate_price(share, share.corporation.share_price.price)
        corp = share.corporation
        if corp.trains or (self.option("non_operated_full_value") and not corp.operated):
            return price
        return price // 2

    def sell_shares(self, player: Player, shares: list[Share], percent: int) -> None:
        corp = shares[0].corporation
        price = self.share_price_for_sale(corp) * (percent // corp.share_percent)
        self.transfer_shares(shares, self.pool, percent)
        self.transfer(self.bank, player, price)
        moves = percent // corp.share_percent
        if "ignore_one_sale" in corp.share_price.types:
            moves -= 1
        if corp.operated and not self.no_price_drop_on_sale:
            self.market.move(corp, "down", max(moves, 0))
        self.check_bankruptcy(corp)

    def float_corporation(self, corp: Corporation) -> None:
        """A (re)launched company: out of bankruptcy, its marker to the bottom of its stack, 10 x par
        credits added to what its treasury holds, its home station placed and its home tile due."""
        if corp in self.bankrupt:
            self.bankrupt.remove(corp)
        # one step down and back up: the bottom of its stack (from the 0 cell this leaves it one step higher)
        self.market.move(corp, "down")
        self.market.move(corp, "up")
        super().float_corporation(corp)  # the home station too (HOME_TOKEN_TIMING float)
        home = self.hexmap.hex(self.home_hexes(corp)[0])
        if home.tile.color == "white" and not self.sr_after_southern:
            self.pending_home_tracks.append(corp)

    def floats(self, corp: Corporation) -> bool:
        """Half its shares bought from the IPO: certificates in the market count against it."""
        return corp.ipo_percent <= 100 - corp.float_percent - self.pool.percent_of(corp)

    def player_value(self, player: Player) -> int:
        value = player.cash + sum(c.value for c in player.companies if not c.closed)
        for share in player.all_shares():
            corp = share.corporation
            if corp.share_price is None:
                value += 0 if corp.trains else self.min_price(corp) * share.percent // corp.share_percent // 2
                continue
            value += self.certificate_value(share)
        return value

    # --- privates -----------------------------------------------------------------------------------
    def payout_companies(self) -> None:
        for company in sorted((c for c in self.companies if isinstance(c.owner, Player) and c.revenue
                               and not c.closed),
                              key=lambda c: (self.players.index(c.owner), c.revenue, c.name)):
            self.pay_income(company)

    def bank_companies(self) -> list[Company]:
        """Privates the bank sells: those sold to it, and the Fishbourne ferry from phase 6."""
        return [c for c in self.companies if not c.closed and c.owner is self.bank]

    def close_other_companies(self, keep: Company) -> None:
        """The Fishbourne ferry bought: every other private closes, and the certificates reserved for them
        may now be bought."""
        for corp in self.corporations:
            for share in corp.shares:
                share.buyable = True
        for company in self.companies:
            if company is not keep:
                self.close_company(company)

    def close_company(self, company: Company) -> None:
        if company.owner is self.bank:
            company.owner = None
        super().close_company(company)

    def event_fishbourne_to_bank(self, event: dict) -> None:
        self.company(FISHBOURNE).owner = self.bank

    def event_relax_cert_limit(self, event: dict) -> None:
        self.no_price_drop_on_sale = True
        self.cert_limit = 999

    def event_southern_forms(self, event: dict) -> None:
        self.southern_formed = True

    # --- track --------------------------------------------------------------------------------------
    def distances(self, corp: Corporation) -> Distances:
        found = self.distance_cache.get(corp.sym)
        if found is None:
            found = self.distance_cache[corp.sym] = Distances(self.hexmap, corp.sym)
        return found

    def lay_tile(self, corp, coord: str, tile_id: str, rotation: int, cost: int) -> None:
        """Every lay makes the distances out of date; an upgrade's check works out the layer's anew."""
        upgrade = self.hexmap.hex(coord).tile.color != "white"
        super().lay_tile(corp, coord, tile_id, rotation, cost)
        self.distance_cache = {}
        if upgrade:
            self.distances(corp)

    # --- homes --------------------------------------------------------------------------------------
    def place_home_token(self, corp: Corporation) -> None:
        if self.sr_after_southern:
            return
        super().place_home_token(corp)

    def may_run_nothing(self, corp: Corporation) -> bool:
        """A company with a route for its trains (an insolvent one: for its leased train) must run. Track
        that joins two stops may still allow no legal route (every way from home re-enters a hex): then it
        runs nothing, where 18xx.games takes no action at all (docs/1860.md)."""
        must_run = (self.route_available(corp) and (corp.trains or corp in self.insolvent)
                    and (not corp.receivership or not self.nationalization))
        return not must_run or not self.best_routes(corp)

    # --- insolvency, bankruptcy, receivership ----------------------------------------------------
    OPERATOR_STATES = ("receivership", "insolvent", "bankrupt", "relaunched", "nationalised")

    def operator_facts(self, operator) -> dict:
        """The halt subsidy the operating company's run has earned (paid into its treasury with the dividend)."""
        subsidy = getattr(self.round, "subsidy", 0) if self.round.active_entities()[:1] == [operator] else 0
        return {"subsidy": subsidy} if subsidy else {}

    def face_down_stations(self) -> set[str]:
        return {c.sym for c in self.bankrupt if not c.ipoed}

    def operator_states(self, operator) -> list[str]:
        """`relaunched`: bankrupt and started again, not floated yet."""
        states = super().operator_states(operator)
        if operator in self.insolvent:
            states.append("insolvent")
        if operator in self.bankrupt:
            states.append("relaunched" if operator.ipoed else "bankrupt")
        if operator in self.nationalized:
            states.append("nationalised")
        return states

    def receivership(self, corp: Corporation) -> bool:
        return corp.receivership

    def make_insolvent(self, corp: Corporation) -> None:
        if corp not in self.insolvent:
            self.insolvent.append(corp)

    def clear_insolvent(self, corp: Corporation) -> None:
        if corp in self.insolvent:
            self.insolvent.remove(corp)

    def check_bankruptcy(self, corp: Corporation) -> None:
        if corp.share_price is not None and "close" in corp.share_price.types:
            self.make_bankrupt(corp)

    def make_bankrupt(self, corp: Corporation) -> None:
        """A company at a price of 0: every certificate back to its IPO without compensation, its price and
        par gone, its stations turned over (still in the way of others, but passable), its treasury and
        trains kept for a relaunch; the player with the fewest shares gets priority, and a stock round
        starts over."""
        if corp in self.bankrupt:
            return
        self.bankrupt.append(corp)
        corp.share_price.corporations.remove(corp)
        corp.share_price = corp.par_price = None
        corp.ipoed = corp.floated = False
        corp.receivership = False
        for holder in [*self.players, self.pool]:
            for share in list(holder.shares_of(corp)):
                self.move_share(share, corp)
        corp.shares_by_corp[corp.sym].sort(key=corp.shares.index)
        corp.holdings = {corp: 100}
        corp.owner = None
        first = min(self.players, key=lambda p: sum(s.percent for s in p.all_shares()))
        i = self.players.index(first)
        self.players = self.players[i:] + self.players[:i]
        rnd = self.round
        if isinstance(rnd, OperatingRound):
            rnd.steps_done()
        elif isinstance(rnd, StockRound):
            self.programs.by_player.clear()
            self.restart_stock_round = True

    restart_stock_round = False

    def turn_over(self, corp: Corporation) -> bool:
        """The operating company's turn ends at once (it went bankrupt)."""
        return corp in self.bankrupt

    def after_operating(self, corp: Corporation) -> None:
        self.check_bankruptcy(corp)
        if corp in self.bankrupt:
            return
        if not corp.trains and self.route_available(corp):
            self.make_insolvent(corp)
        elif corp.trains:
            self.clear_insolvent(corp)

    def can_afford_depot_train(self, corp: Corporation) -> bool:
        price = self.min_depot_price()
        return price > 0 and corp.cash >= price

    def check_insolvency(self, corp: Corporation) -> None:
        """At its run: a company in receivership without trains that can't buy one is insolvent; an
        insolvent one that can now buy a train no longer is."""
        if corp.receivership and not corp.trains and self.route_available(corp) and \
                not self.can_afford_depot_train(corp):
            self.make_insolvent(corp)
        elif corp in self.insolvent and self.can_afford_depot_train(corp):
            self.clear_insolvent(corp)

    def leased_train(self) -> Train | None:
        """The bank's cheapest train, which an insolvent company leases for its run."""
        trains = self.depot.depot_trains(self.phase_names_reached)
        return min(trains, key=lambda t: t.price) if trains else None

    def runnable_trains(self, corp: Corporation) -> list[Train]:
        if corp in self.insolvent:
            leased = self.leased_train()
            return [leased] if leased else []
        return list(corp.trains)

    def after_run(self, corp: Corporation) -> None:
        """Companies in receivership or insolvent withhold at once; in the British Rail end game companies
        pay out."""

    def pay_dividend_1860(self, corp: Corporation, revenue: int, subsidy: int, kind: str) -> None:
        """Pay out (to the players only: certificates in the IPO or the market earn nothing) or withhold;
        subsidies go to the treasury. Withholding moves the price one step left; a payout of at least the
        price moves it right once per multiple of the price, up to four times."""
        corp.last_revenue = revenue
        self.revenue_decided(corp)
        self.or_payouts[corp.sym] = revenue if kind == "payout" else 0
        if kind == "withhold":
            if revenue + subsidy:
                self.transfer(self.bank, corp, revenue + subsidy)
            self.market.move_left(corp)
        else:
            if subsidy:
                self.transfer(self.bank, corp, subsidy)
            for player in self.players:
                amount = -(-player.percent_of(corp) * revenue // 100)
                if amount:
                    self.transfer(self.bank, player, amount)
            if revenue <= 0:
                self.market.move_left(corp)
            else:
                self.market.move(corp, "right", min(revenue // corp.share_price.price, 4))
        self.check_bank_broken()
        self.check_bankruptcy(corp)

    def run_results(self, corp: Corporation, routes: list[dict]) -> list[tuple[int, int]]:
        """(revenue, subsidy) of each route of a run, checked under 1860's rules."""
        from engine.titles.g1860.routes import check_run

        runnable = {t.id: t for t in self.runnable_trains(corp)}
        seen: set = set()
        for route in routes:
            tid = route.get("train")
            if tid not in runnable:
                raise GameError("{corporation} can't run train {train}", corporation=corp.sym, train=tid)
            if tid in seen or runnable[tid].operated:
                raise GameError("train {train} has already run this operating round", train=tid)
            seen.add(tid)
        return check_run(self, corp, routes) if routes else []

    # --- nationalisation --------------------------------------------------------------------------
    def nationalization_due(self) -> bool:
        """Once the Southern Railway has formed: every started company with a president owns a train."""
        if not self.southern_formed:
            return False
        if self.nationalization:
            return True
        return all(c.trains for c in self.corporations if c.ipoed and not c.receivership)

    def nationalize_lowest_payers(self) -> None:
        """After each OR of the end game the companies that paid least stop: all tied at the lowest, and
        if only one paid the lowest, those tied at the next; when two or fewer are left, both."""
        paid = {c: self.or_payouts.get(c.sym, 0) for c in self.corporations if c.floated and c not in self.nationalized}
        order = sorted(paid, key=lambda c: paid[c])
        if len(order) < 3:
            stop = order
        else:
            low = paid[order[0]]
            stop = [c for c in order if paid[c] == low]
            above = [c for c in order if paid[c] > low]
            if len(stop) == 1 and above:
                stop += [c for c in order if paid[c] == paid[above[0]]]
        for corp in stop:
            if corp not in self.nationalized:
                self.nationalized.append(corp)

    def end_check_nationalization(self) -> bool:
        """The end is judged once per action (core); as on 18xx.games, an operating round of the end game
        that the action finished first nationalises its lowest payers, and the game ends at once when no
        company is left. (Done later, as the round is left, the last company's nationalisation would come
        after the one judgement and the game would go on through empty rounds.)"""
        rnd = self.round
        if not self.nationalization or not rnd.finished or rnd.kind != "operating":
            return False
        if not rnd.lowest_payers_nationalized:
            rnd.lowest_payers_nationalized = True
            self.nationalize_lowest_payers()
        return all(c in self.nationalized for c in self.corporations if c.floated)

    def operating_order(self) -> list:
        floated = [c for c in self.corporations if c.floated and c not in self.nationalized]
        return sorted(floated, key=self.operating_sort_key)

    @staticmethod
    def operating_sort_key(corp: Corporation):
        cell = corp.share_price
        return (-cell.price, -cell.column, cell.row, cell.corporations.index(corp), corp.name)

    # --- trains -------------------------------------------------------------------------------------
    def over_train_limit(self) -> list:
        return [c for c in self.corporations if c.trains and len(c.trains) > self.train_limit(c)]
