"""1817's merger and conversion round and acquisition round, after each operating round.

Merger and conversion: each corporation in the normal zone, in share-price order, may convert (2 to 5, 5 to
10 shares) or merge with another of its size, or pass. Acquisition: from the lowest share price up, a
corporation in the liquidation zone is liquidated, one in the acquisition zone is auctioned, and any other
may be offered for sale by its president when some player could pay its minimum price.

After a merger or an acquisition the survivor has at most 8 stations and one a hex: over that it first
removes stations (`ReduceStations`).
"""

from __future__ import annotations

from engine.core.entities import Corporation, Player
from engine.core.errors import GameError, Phrase
from engine.core.rounds import Round
from engine.core.steps import Step
from engine.titles.g1817.auction import Auction


class RoundOfSet(Round):
    """A round after an operating round, numbered as it is (18xx.games: "Merger Round 2.1 (of 2)")."""

    label = ""
    merger = True
    passes_set_off = True  # a pass may end a sale or a liquidation

    @property
    def description(self) -> str:
        return f"{self.label} {self.game.turn}.{self.round_num} (of {self.game.operating_rounds})"


class MergerRound1817(RoundOfSet):
    name = "Merger and Conversion Round"
    label = "Merger Round"
    kind = "merger"
    short_name = "MR"

    def start(self) -> None:
        game = self.game
        self.entities = sorted((c for c in game.corporations if c.floated and not c.closed and game.in_normal_zone(c)
                                and c.owner is not None), key=game.operating_sort_key)
        self.converts: list[Corporation] = []  # converted or merged this round
        self.converted: Corporation | None = None  # the corporation that just converted, while players buy
        self.converted_price = None
        self.stations_due = 0  # stations the converted corporation must buy
        self.entity_index = -1
        self.next_entity()

    @property
    def finished(self) -> bool:
        """Every corporation has had its turn, and nothing is left to do (a train over the limit discarded,
        even in a round where no corporation may convert or merge)."""
        return self.entity_index >= len(self.entities) and self.active_step() is None

    def after_process(self, action, entity) -> None:
        if self.active_step() is not None:
            return
        if self.converted is not None:
            self.game.buy_conversion_stations(self.converted, self.stations_due)
            self.converted = None
            for player in self.game.players:
                player.passed = False
        self.next_entity()

    def converting(self, corp: Corporation, stations: int) -> None:
        """After a conversion the players may buy its new shares, then it may take loans; then it buys its
        stations (or is liquidated)."""
        self.converted = corp
        self.converts.append(corp)
        self.converted_price = corp.share_price
        self.stations_due = stations
        for player in self.game.players:
            player.passed = False
        self.blocking_cache.clear()

    def next_entity(self) -> None:
        """The next corporation with something it may do."""
        while True:
            self.entity_index += 1
            self.blocking_cache.clear()
            if self.finished:
                return
            for step in self.steps:
                step.passed = False
                step.setup()
            self.skip_steps()
            if self.active_step() is not None:
                return


class Conversion(Step):
    description = Phrase("convert, merge or pass")

    def mergeable(self, corp: Corporation) -> list[Corporation]:
        """Corporations of its size (2 or 5 shares) in the normal zone, not converted or merged this round,
        it may merge with: two 5-share ones only if some player would hold 40% of the result, two 2-share
        ones of different presidents only if its president can buy the extra share."""
        game = self.game
        out = []
        for target in game.corporations:
            if target is corp or not target.floated or target.closed or not game.in_normal_zone(target) \
                    or target in self.round.converts or target.total_shares != corp.total_shares \
                    or target.total_shares == 10:
                continue
            if target.total_shares == 5 and self.merged_max_holding(corp, target) < 40:
                continue
            if target.total_shares == 2 and target.owner is not corp.owner and \
                    corp.owner.cash < game.merged_price(corp, target).price:
                continue
            out.append(target)
        return out

    def merged_max_holding(self, corp: Corporation, target: Corporation) -> int:
        game = self.game
        totals: dict = {}
        for c in (corp, target):
            for player, percent in game.player_percents(c).items():
                totals[player] = totals.get(player, 0) + percent
        return max(totals.values(), default=0)

    def actions(self, entity) -> tuple[str, ...]:
        if entity is not self.round.current_entity or not isinstance(entity, Corporation) or self.round.converted:
            return ()
        acts = []
        if entity.total_shares in (2, 5):
            acts.append("convert")
        if self.mergeable(entity):
            acts.append("merge")
        return (*acts, "pass") if acts else ()

    def process_convert(self, action, corp: Corporation) -> None:
        """2 shares become 5 (and one more station, up to 8), 5 become 10 (two more)."""
        if corp.total_shares not in (2, 5):
            raise GameError("{corporation} has 10 shares already: it can't grow", corporation=corp.sym)
        stations = len(corp.token_prices)
        if corp.total_shares == 2:
            self.game.resize(corp, 5)
            due = 1 if stations < 8 else 0
        else:
            self.game.resize(corp, 10)
            due = min(max(8 - stations, 0), 2)
        self.round.converting(corp, due)

    def process_merge(self, action, corp: Corporation) -> None:
        game = self.game
        target = game.corporation(action.corporation)
        if target not in self.mergeable(corp):
            raise GameError("{corporation} can't merge with {target}", corporation=corp.sym,
                            target=target.sym)
        game.merge(corp, target)
        self.round.entities = [c for c in self.round.entities if c is not target]
        self.round.entity_index = self.round.entities.index(corp)
        self.round.converting(corp, 0)

    def process_pass(self, action, corp: Corporation) -> None:
        self.passed = True

    # --- what merger-round programs look at -----------------------------------------------------------
    def merger_auto_pass_entity(self) -> Corporation | None:
        return self.round.current_entity

    def others_acted(self) -> bool:
        return bool(self.round.converts)

    def legal(self, corp) -> list[dict]:
        acts = self.actions(corp)
        out = [self.action(corp, "convert")] if "convert" in acts else []
        if "merge" in acts:
            out.extend(self.action(corp, "merge", corporation=c.sym) for c in self.mergeable(corp))
        return out + [self.action(corp, "pass")] if acts else []


class ReduceStations(Step):
    """A survivor over the station limits removes stations: first where both corporations have one in the
    same hex, then any, until it has one a hex and at most 8."""

    description = Phrase("remove a station")

    def pending(self):
        return self.game.stations_to_reduce

    def active_entities(self) -> list:
        pending = self.pending()
        return [pending[0]] if pending else []

    def actions(self, entity) -> tuple[str, ...]:
        return ("remove_token",) if entity in self.active_entities() else ()

    def skip(self) -> None:
        """Waits for the next merger or acquisition over the limits."""

    def done(self) -> bool:
        return self.pending() is None

    def removable(self) -> list[tuple[str, int]]:
        """(city, slot) of the stations the survivor may remove now."""
        corp, target, _ = self.pending()
        hexmap = self.game.hexmap
        placed, moved = set(hexmap.tokened_hexes(corp.sym)), set(hexmap.tokened_hexes(target.sym))
        both = placed & moved
        out = []
        for sym in (corp.sym, target.sym):
            for city in hexmap.token_cities(sym):
                if not both or city.tile.hex.coord in both:
                    out.append((city.id, city.tokens.index(sym)))
        return out

    def process_remove_token(self, action, corp: Corporation) -> None:
        game = self.game
        if (action.city, action.slot) not in self.removable():
            raise GameError("{corporation} may remove a station from {choices}", corporation=corp.sym,
                            choices=", ".join(f"{c} #{s}" for c, s in self.removable()))
        city = game.hexmap.city(action.city)
        sym = city.tokens[action.slot]
        game.hexmap.remove_token(sym, city.tile.hex.coord)
        game.station_back_to_charter(game.corporation(sym))
        game.forget_route(corp)
        if not game.stations_over_limit():
            game.move_stations()

    def legal(self, corp) -> list[dict]:
        if not self.actions(corp):
            return []
        return [self.action(corp, "remove_token", city=city, slot=slot) for city, slot in self.removable()]


class PostConversion(Step):
    """After a conversion, from its president round the table: each player may buy one of its new shares (the
    president as many as they like; one who is short closes a short with it), sell theirs (not the president),
    or pass; until the corporation takes a loan."""

    description = Phrase("buy a share of the converted corporation, or pass")

    def skip(self) -> None:
        """Waits for a conversion."""

    def corporation(self) -> Corporation | None:
        converted = self.round.converted
        return converted if converted is not None and converted.share_price is self.round.converted_price else None

    def treasury_share(self, corp: Corporation):
        return next((s for s in corp.shares_of(corp) if not s.president), None)

    def can_buy(self, player: Player, corp: Corporation) -> bool:
        """A share to close a short ignores the holding and certificate limits."""
        game = self.game
        share = self.treasury_share(corp)
        return share is not None and player.cash >= game.certificate_price(share, corp.share_price.price) and (
            bool(game.shorts_of(player, corp)) or
            game.holding_ok(player, corp, share.percent) and game.num_certs(player) < game.cert_limit)

    def active_entities(self) -> list:
        corp = self.corporation()
        if corp is None:
            return []
        players = self.game.players
        start = players.index(corp.owner)
        for player in players[start:] + players[:start]:
            if not player.passed and (self.can_buy(player, corp) or self.can_sell(player, corp)):
                return [player]
        return []

    def can_sell(self, player: Player, corp: Corporation) -> bool:
        return player is not corp.owner and any(s.percent > 0 for s in player.shares_of(corp))

    def actions(self, entity) -> tuple[str, ...]:
        if entity not in self.active_entities():
            return ()
        corp = self.corporation()
        acts = ["buy_shares"] if self.can_buy(entity, corp) else []
        if self.can_sell(entity, corp):
            acts.append("sell_shares")
        return (*acts, "pass")

    def process_buy_shares(self, action, player: Player) -> None:
        game = self.game
        corp = self.corporation()
        shares = [game.share(sid) for sid in action.shares]
        if len(shares) != 1 or shares[0].owner is not corp or shares[0].president:
            raise GameError("{player} may buy one of {corporation}'s treasury shares", player=player.name,
                            corporation=corp.sym)
        if not self.can_buy(player, corp):
            raise GameError("{player} can't buy a share of {corporation}", player=player.name,
                            corporation=corp.sym)
        closing = bool(game.shorts_of(player, corp))
        game.buy_shares(player, shares)
        if closing:  # the share and the short leave the game
            game.unshort(player, shares[0])
        if player is not corp.owner or not self.can_buy(player, corp):
            player.passed = True

    def process_sell_shares(self, action, player: Player) -> None:
        """A holder other than the president may sell instead (18xx.games: any of their shares of it, to the
        market, at its price); that is their turn."""
        game = self.game
        corp = self.corporation()
        shares = [game.share(sid) for sid in action.shares]
        percent = sum(s.percent for s in shares)
        if "sell_shares" not in self.actions(player) or \
                not any({s.id for s in bundle} == set(action.shares) for bundle, _ in self.sales(player, corp)):
            raise GameError("{player} may sell only their own shares of {corporation}", player=player.name,
                            corporation=corp.sym)
        game.sell_shares(player, shares, percent)
        player.passed = True

    def sales(self, player: Player, corp: Corporation) -> list:
        return self.game.sellable_bundles(player, corp)

    def process_pass(self, action, player: Player) -> None:
        player.passed = True

    def legal(self, player) -> list[dict]:
        corp = self.corporation()
        out = []
        if "buy_shares" in self.actions(player):
            share = self.treasury_share(corp)
            out.append(self.action(player, "buy_shares", shares=[share.id], percent=share.percent))
        if "sell_shares" in self.actions(player):
            out.extend(self.action(player, "sell_shares", shares=[s.id for s in bundle], percent=percent)
                       for bundle, percent in self.sales(player, corp))
        if self.actions(player):
            out.append(self.action(player, "pass"))
        return out


class PostConversionLoans(Step):
    """Then the converted corporation may take loans (for its stations), or pass."""

    description = Phrase("take loans, or pass")

    def skip(self) -> None:
        """Waits for a conversion."""

    def active_entities(self) -> list:
        corp = self.round.converted
        return [corp] if corp is not None and self.game.can_take_loan(corp) else []

    def actions(self, entity) -> tuple[str, ...]:
        return ("take_loan", "pass") if entity in self.active_entities() else ()

    def process_take_loan(self, action, corp: Corporation) -> None:
        self.game.take_loan(corp)

    def process_pass(self, action, corp: Corporation) -> None:
        self.passed = True

    def legal(self, corp) -> list[dict]:
        if not self.actions(corp):
            return []
        return [self.action(corp, "take_loan", loan=self.game.loan_bank.taken), self.action(corp, "pass")]


class AcquisitionRound1817(RoundOfSet):
    name = label = "Acquisition Round"
    kind = "acquisition"
    short_name = "AR"

    def start(self) -> None:
        game = self.game
        self.cash_crisis_player: Player | None = None
        self.acquired: list[Corporation] = []  # bought by a player's corporation this round
        self.entities = [p for p in game.players if any(c.owner is p for c in game.corporations)]
        # corporations to deal with, lowest share price first
        self.offering = sorted((c for c in game.corporations if c.floated and not c.closed),
                               key=game.operating_sort_key, reverse=True)
        for step in self.steps:
            step.setup()

    @property
    def finished(self) -> bool:
        """Every corporation dealt with, and nothing left to do (a train over the limit discarded)."""
        return all(step.done() for step in self.steps) and self.active_step() is None

    def after_process(self, action, entity) -> None:
        # as on 18xx.games, the sale is looked at again (a corporation that moved into a zone, a bankrupt
        # bidder) only when it is the round's business again: not while a cash crisis (several players in
        # debt after one sale) or a station or a train over the limit is still to be settled
        step = self.active_step()
        if isinstance(step, Acquire):
            step.drop_orphan_offer()


class Acquire(Auction):
    """Each corporation in turn, from the lowest price: one in the liquidation zone is auctioned with the
    bank bidding $0 (unsold, the bank liquidates it); one in the acquisition zone is auctioned; any other
    may be offered for sale by its president, when some player could pay its minimum price. Bids are in
    tens, from $10 (price x shares, rounded up to $10, for one offered); its president may only bid the
    minimum. The winner names which of their corporations buys it (when more than one could): the buyer
    takes its cash, privates, loans, trains and stations, borrows what it must to pay, may borrow more and
    repay the loans it took over (those left move its price left); the proceeds go to the shareholders
    (a liquidated corporation's loans repaid first, its president paying any shortfall)."""

    description = Phrase("bid, offer the corporation for sale, or pass")

    def setup(self) -> None:
        self.setup_auction()
        self.offer: Corporation | None = None  # waiting for its president to offer it for sale or not
        self.winner: tuple[Player, Corporation, int] | None = None  # waiting for the winner to name the buyer
        self.buyer: Corporation | None = None  # the buyer, taking and repaying loans
        self.mode = ""
        self.next_offer()

    @property
    def increment(self) -> int:
        return 10

    def done(self) -> bool:
        return not (self.offer or self.auctioning or self.winner or self.buyer)

    def skip(self) -> None:
        """Waits for the corporations still to be dealt with."""

    # --- which corporation is next --------------------------------------------------------------------
    def next_offer(self) -> None:
        game = self.game
        round_ = self.round
        self.setup_auction()
        self.offer = None
        while round_.offering:
            corp = round_.offering[0]
            if game.entered_zone_this_round(corp):
                round_.offering.pop(0)
                continue
            self.liquidation_cash = 0
            self.liquidation_loans = 0
            if game.in_liquidation(corp):
                self.mode = "liquidate"
                self.liquidation_cash, self.liquidation_loans = corp.cash, corp.loans
                if corp.cash:
                    game.transfer(corp, game.bank, corp.cash)
                corp.loans = 0
                self.start_auction(corp)
                return
            if game.zone(corp) == "acquisition":
                self.mode = "acquisition"
                self.start_auction(corp)
                return
            self.mode = "offered"
            if corp.owner is not None and \
                    any(self.max_bid(p, corp) >= self.opening_bid(corp) for p in round_.entities):
                self.offer = corp
                return
            round_.offering.pop(0)

    def drop_orphan_offer(self) -> None:
        """A corporation on offer or at auction that moved into a zone meanwhile (its president went bankrupt
        in a cash crisis) is no longer dealt with this round, unless a buyer is already taking it over; a
        bankrupt bidder is out of the auction."""
        corp = self.offer or self.auctioning or (self.winner[1] if self.winner else None)
        if corp is not None and self.buyer is None and self.game.entered_zone_this_round(corp):
            self.offer = self.auctioning = self.winner = None
            self.bids.clear()
            self.bidders = []
            self.round.offering.remove(corp)
            self.next_offer()
            self.round.blocking_cache.clear()
        for player in [p for p in self.bidders if p.bankrupt]:
            self.drop_out(player)
            self.round.blocking_cache.clear()

    def start_auction(self, corp: Corporation) -> None:
        """The bank opens: every player who could pay the opening bid is in."""
        self.auctioning = corp
        self.bids[corp.sym] = []
        low = self.opening_bid(corp)
        self.bidders = [p for p in self.round.entities if self.max_bid(p, corp) >= low]
        self.resolve()

    # --- prices -----------------------------------------------------------------------------------------
    def opening_bid(self, corp: Corporation) -> int:
        if self.game.zone(corp) != "normal":
            return 10
        return -(-corp.total_shares * corp.share_price.price // 10) * 10

    def raise_min(self) -> int:
        high = self.highest()
        return high[1] + self.increment if high else self.opening_bid(self.auctioning)

    def treasury_compensation(self, corp: Corporation) -> int:
        """An offered corporation's treasury shares are sold to the market for its buyer."""
        if self.mode != "offered":
            return 0
        return corp.percent_of(corp) // corp.share_percent * corp.share_price.price

    def can_acquire(self, corp: Corporation, buyer: Corporation) -> bool:
        return buyer is not corp and buyer.floated and not buyer.closed and self.game.in_normal_zone(buyer)

    def buyer_max(self, buyer: Corporation, corp: Corporation) -> int:
        """What the buyer could pay: its cash and loans (the acquired loans repaid and taken again), the
        acquired cash and treasury shares."""
        game = self.game
        loans = min(game.max_loans(buyer) - buyer.loans, game.loan_bank.left + corp.loans)
        power = buyer.cash + loans * game.loan_bank.value
        return power + corp.cash + self.treasury_compensation(corp) - corp.loans * game.loan_bank.value

    def max_bid(self, player: Player, corp: Corporation = None) -> int:
        corp = corp or self.auctioning
        best = max((self.buyer_max(c, corp) for c in self.game.corporations
                    if c.owner is player and self.can_acquire(corp, c)), default=0)
        if corp.owner is player:
            best = min(best, self.raise_min() if self.auctioning is corp else self.opening_bid(corp))
        return best

    def buyers(self, player: Player, corp: Corporation, price: int) -> list[Corporation]:
        return [c for c in self.game.corporations
                if c.owner is player and self.can_acquire(corp, c) and self.buyer_max(c, corp) >= price]

    # --- who acts -----------------------------------------------------------------------------------------
    def active_entities(self) -> list:
        if self.offer:
            return [self.offer.owner]
        if self.auctioning:
            if self.highest():
                return [self.next_bidder()]
            corp = self.auctioning
            owner = self.game.owner_when_liquidated.get(corp.sym) if self.mode == "liquidate" else corp.owner
            players = self.game.players
            start = (players.index(owner) + 1) % len(players) if owner in players else 0
            return [next(p for p in players[start:] + players[:start] if p in self.bidders)]
        if self.buyer:
            return [self.buyer]
        if self.winner:
            return [self.winner[0]]
        return []

    def actions(self, entity) -> tuple[str, ...]:
        if entity not in self.active_entities():
            return ()
        if self.offer:
            return ("assign", "pass")
        if self.auctioning:
            return ("bid", "pass")
        if self.buyer:
            if self.may_borrow():
                return ("take_loan", "pass")
            return ("payoff_loan", "pass") if self.may_repay() else ()
        return ("merge",) if self.winner else ()

    def may_borrow(self) -> bool:
        return not self.passed_loans and self.game.can_take_loan(self.buyer)

    def may_repay(self) -> bool:
        return not self.passed_repay and self.unpaid_loans > 0 and self.buyer.cash >= self.game.loan_bank.value

    # --- offers and bids ----------------------------------------------------------------------------------
    def process_assign(self, action, player: Player) -> None:
        corp = self.offer
        if action.target != corp.sym:
            raise GameError("{player} may offer {corporation} for sale, not {target}", player=player.name,
                            corporation=corp.sym, target=action.target)
        self.offer = None
        self.start_auction(corp)

    def process_bid(self, action, player: Player) -> None:
        corp = self.game.corporation(action.corporation) if action.corporation else self.auctioning
        if corp is not self.auctioning:
            raise GameError("the auction for {item} must finish first", item=self.auctioning.sym)
        if action.price % 10:
            raise GameError("bids on {corporation} are in tens of dollars, not {price}", corporation=corp.sym,
                            price=self.game.fmt(action.price))
        self.raise_bid(player, action.price)
        self.resolve()

    def check_price(self, player: Player, item, price: int, low: int) -> None:
        fmt = self.game.fmt
        if price < low:
            raise GameError("a bid on {item} must be at least {low}", item=item.sym, low=fmt(low))
        if (price - low) % 5:
            raise GameError("a bid on {item} goes up from {low} in steps of $5", item=item.sym, low=fmt(low))
        if price > self.max_bid(player, item):
            raise GameError("{player}'s corporations could pay at most {most}", player=player.name,
                            most=fmt(self.max_bid(player, item)))

    def resolve(self) -> None:
        corp = self.auctioning
        if corp is None:
            return
        if not self.bidders:
            self.bids.clear()
            self.auctioning = None
            if self.mode == "liquidate":
                self.bank_liquidates(corp)
            self.round.offering.remove(corp)
            self.next_offer()
            return
        if len(self.bidders) != 1 or not self.bids.get(corp.sym):
            return
        player, price = self.bids[corp.sym][0]
        self.bids.clear()
        self.bidders = []
        self.auctioning = None
        self.winner = (player, corp, price)
        self.game.outcomes.append({"event": "auction_won", "corporation": corp.sym, "player": player.id,
                                   "price": price, "mode": self.mode})
        buyers = self.buyers(player, corp, price)
        if len(buyers) == 1:
            self.acquire(buyers[0])

    def process_merge(self, action, player: Player) -> None:
        buyer = self.game.corporation(action.corporation)
        _, corp, price = self.winner
        if buyer not in self.buyers(player, corp, price):
            raise GameError("{buyer} can't buy {corporation}: name one of {corporations}", buyer=buyer.sym,
                            corporation=corp.sym,
                            corporations=', '.join(c.sym for c in self.buyers(player, corp, price)))
        self.acquire(buyer)

    # --- the purchase ---------------------------------------------------------------------------------------
    def acquire(self, buyer: Corporation) -> None:
        game = self.game
        winner, corp, price = self.winner
        self.buyer = buyer
        game.golden_parachute(corp, buyer)
        compensation = self.treasury_compensation(corp)
        if compensation:
            game.transfer(game.bank, corp, compensation)
        cash = corp.cash
        if corp.cash:
            game.transfer(corp, buyer, corp.cash)
        if game.in_liquidation(corp):
            self.liquidation_cash += price
        self.shareholder_cash = price
        game.take_over(buyer, corp)
        self.unpaid_loans = corp.loans
        buyer.loans += corp.loans
        taken_over, corp.loans = corp.loans, 0
        borrowed = buyer.loans
        while buyer.cash < price:
            game.take_loan(buyer)
        game.transfer(buyer, game.bank, price)
        game.outcomes.append({"event": "acquired", "corporation": corp.sym, "buyer": buyer.sym, "player": winner.id,
                              "price": price, "cash": cash, "treasury_shares": compensation, "loans": taken_over,
                              "borrowed": buyer.loans - borrowed})
        self.passed_loans = self.passed_repay = False
        self.repaid_over_limit = 0
        self.after_loans()

    def after_loans(self) -> None:
        """Once the buyer is done borrowing: loans over its limit are repaid, then it may repay the rest of
        those it took over; those left move its price one step left each."""
        game = self.game
        if self.may_borrow():
            return
        while self.buyer.loans > game.max_loans(self.buyer):
            game.repay_loan(self.buyer, move=False)
            self.unpaid_loans -= 1
            self.repaid_over_limit += 1
        if self.may_repay():
            return
        game.outcomes.append({"event": "loans_kept", "corporation": self.buyer.sym, "from": self.winner[1].sym,
                              "loans": self.unpaid_loans, "repaid_over_limit": self.repaid_over_limit})
        game.market.move(self.buyer, "left", self.unpaid_loans)
        if self.game.zone(self.buyer) == "acquisition" and self.buyer in self.round.offering:
            self.round.offering.remove(self.buyer)
        self.settle(self.winner[1])

    def process_take_loan(self, action, corp: Corporation) -> None:
        if not self.may_borrow():
            raise GameError("{corporation} can't take a loan now", corporation=corp.sym)
        self.game.take_loan(corp)
        if not self.may_borrow():
            self.after_loans()

    def process_payoff_loan(self, action, corp: Corporation) -> None:
        if not self.may_repay():
            raise GameError("{corporation} can't repay a loan now", corporation=corp.sym)
        self.game.repay_loan(corp, move=False)
        self.unpaid_loans -= 1
        self.passed_loans = True
        if not self.may_repay():
            self.after_loans()

    def bank_liquidates(self, corp: Corporation) -> None:
        """Nobody bought it: its stations come off the map (findings kept: 18xx.games doesn't look at the map
        again until the next tile or station) and its debts are settled."""
        self.game.golden_parachute(corp, None)
        stations = self.game.hexmap.tokened_hexes(corp.sym)
        with self.game.findings_kept():
            for coord in stations:
                self.game.hexmap.remove_token(corp.sym, coord)
        self.game.outcomes.append({"event": "liquidated", "corporation": corp.sym, "stations": list(stations)})
        self.settle(corp)

    def settle(self, corp: Corporation) -> None:
        """A liquidated corporation's loans are repaid from what it had and fetched, its president paying
        any shortfall; the rest, or the price of one bought, goes to the shareholders per share (a short
        pays it)."""
        game = self.game
        president = corp.owner or game.owner_when_liquidated.get(corp.sym)
        self.round.cash_crisis_player = president
        repaid = charged = 0
        if game.in_liquidation(corp):
            repaid = self.liquidation_loans
            self.shareholder_cash, debt = self.liquidation_split(self.liquidation_cash)
            game.loan_bank.taken -= self.liquidation_loans
            self.liquidation_loans = 0
            if debt and corp.owner is not None:  # a bankrupt president's corporation: nobody pays
                charged = debt
                game.charge(corp.owner, debt)
        paid = self.proceeds(corp, self.shareholder_cash)
        for player, amount in paid.items():
            if amount > 0:
                game.transfer(game.bank, player, amount)
            else:
                game.charge(player, -amount)
        game.outcomes.append({"event": "settled", "corporation": corp.sym,
                              "buyer": self.buyer.sym if self.buyer is not None else None,
                              "shareholders": self.shareholder_cash, "loans_repaid": repaid,
                              "president": president.id if president is not None else None,
                              "president_pays": charged, "paid": {p.id: amount for p, amount in paid.items()}})
        game.reset_corporation(corp)
        self.shareholder_cash = 0
        self.buyer = None
        if self.winner:
            self.winner = None
            self.round.offering.remove(corp)
            self.round.acquired.append(corp)
            self.next_offer()

    def liquidation_split(self, cash: int) -> tuple[int, int]:
        """What a liquidated corporation's `cash` (its treasury and the price it fetched) leaves its
        shareholders once its loans are repaid, and what of its loans it leaves unpaid (its president pays)."""
        owed = self.liquidation_loans * self.game.loan_bank.value
        return (0, owed - cash) if owed > cash else (cash - owed, 0)

    def proceeds(self, corp: Corporation, cash: int) -> dict[Player, int]:
        """What each holder of `corp` gets when `cash` goes to its shareholders: the same amount a share,
        rounded down, a short paying it (negative)."""
        per_share = cash // corp.total_shares
        if per_share <= 0:
            return {}
        shares = {player: player.percent_of(corp) // corp.share_percent for player in self.game.players}
        return {player: n * per_share for player, n in shares.items() if n}

    # --- what merger-round programs look at -----------------------------------------------------------
    def merger_auto_pass_entity(self) -> Corporation | None:
        return self.offer

    def others_acted(self) -> bool:
        return bool(self.round.acquired)

    def process_pass(self, action, entity) -> None:
        if self.offer:
            self.round.offering.remove(self.offer)
            self.next_offer()
        elif self.auctioning:
            self.drop_out(entity)
        elif self.buyer and self.may_borrow():
            self.passed_loans = True
            self.after_loans()
        elif self.buyer:
            self.passed_repay = True
            self.after_loans()

    def turn_facts(self, entity) -> dict:
        """The corporation on sale (`acquisition`: how it is sold, its opening bid, the price it sells at now
        (`at`: the winning or the highest bid, else its opening bid, or the bank's $0 for one in the
        liquidation zone) and what each holder gets then; in a liquidation also its loans, what it had, and
        what its president pays of the loans the price leaves unpaid), the auction's bids, and what the
        winner or the buyer must decide."""
        facts = self.auction_facts() if self.auctioning and self.highest() else {}
        corp = self.offer or self.auctioning or (self.winner[1] if self.winner else None)
        if corp is not None:
            sale = facts["acquisition"] = {"corporation": corp.sym, "mode": self.mode, "opening": self.opening_bid(corp)}
            high = self.highest() if self.auctioning else None
            # sold at the price bid now (its opening bid before any), each holder gets (a short: pays), as
            # `settle` pays them; a liquidated one's loans repaid first, its president paying any shortfall
            price = self.winner[2] if self.winner else high[1] if high else \
                0 if self.mode == "liquidate" else sale["opening"]  # unbid, the bank's $0 stands
            sale["at"] = price
            cash = price
            if self.mode == "liquidate":  # its treasury went to the bank when its sale began
                fetched = self.liquidation_cash + (0 if self.buyer is not None else price)  # once bought: counted
                cash, debt = self.liquidation_split(fetched)
                president = corp.owner or self.game.owner_when_liquidated.get(corp.sym)
                sale.update(loans=self.liquidation_loans, treasury=fetched - price,
                            president=president.id if president is not None else None,
                            president_pays=debt if corp.owner is not None else 0)
            sale["shareholders"] = cash
            sale["proceeds"] = {p.id: v for p, v in self.proceeds(corp, cash).items()}
        if self.winner:
            facts["acquisition"]["price"] = self.winner[2]
        if self.buyer is not None:
            facts["buyer"] = self.buyer.sym
        return facts

    def legal(self, entity) -> list[dict]:
        acts = self.actions(entity)
        out = []
        if "assign" in acts:
            out.append(self.action(entity, "assign", target=self.offer.sym, target_type="corporation"))
        if "bid" in acts:
            low = self.raise_min()
            if low <= self.max_bid(entity, self.auctioning):
                out.append(self.action(entity, "bid", corporation=self.auctioning.sym, price=low))
        if "merge" in acts:
            player, corp, price = self.winner
            out.extend(self.action(entity, "merge", corporation=c.sym) for c in self.buyers(player, corp, price))
        if "take_loan" in acts:
            out.append(self.action(entity, "take_loan", loan=self.game.loan_bank.taken))
        if "payoff_loan" in acts:
            out.append(self.action(entity, "payoff_loan", loan=self.game.loan_bank.taken - 1))
        if "pass" in acts:
            out.append(self.action(entity, "pass"))
        return out
