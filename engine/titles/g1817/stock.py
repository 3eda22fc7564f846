"""1817's stock round: a player's turn is one of acting as a player (sell, short, then buy one share or
start a corporation by auction) or acting for a corporation they preside (take loans, buy back shares).

Starting a corporation: the player names a corporation and an opening bid of $100-$400 (a multiple of $5),
and the corporation chooses its home city; the players then raise in turn or drop out. The winner pays the
bid into the treasury (privates they own may pay part of it at face value, `assign`), chooses the size
the phase allows (`choose`: 2, 5 or 10 shares), and the share price is the market price at or below half
the bid. A 5- or 10-share corporation buys its extra stations for $50 each as soon as it can.
"""

from __future__ import annotations

from itertools import combinations

from engine.core.entities import Company, Corporation, Player
from engine.core.errors import Either, GameError, Phrase
from engine.core.rounds import StockRound
from engine.core.steps import Step
from engine.core.steps.stock import BuySellParShares, track_for_programs
from engine.titles.g1817.auction import Auction

MIN_IPO_BID = 100
MAX_IPO_BID = 400
STATION_PRICE = 50
TRAIN_STATION = "TS"  # the private that brings one more station


class HomeStation(Step):
    """A corporation being auctioned places its home station in any city with room for it."""

    description = Phrase("choose the home city")

    def pending(self) -> Corporation | None:
        return self.game.home_pending

    def active_entities(self) -> list:
        corp = self.pending()
        return [corp] if corp else []

    def actions(self, entity) -> tuple[str, ...]:
        return ("place_token",) if entity is not None and entity is self.pending() else ()

    def skip(self) -> None:
        """Waits for the next corporation auctioned."""

    def process_place_token(self, action, corp: Corporation) -> None:
        game = self.game
        game.hexmap.check_token(corp.sym, action.city, action.slot, need_connection=False)
        game.place_token(corp, action.city, action.slot, price=0)
        game.home_pending = None

    def legal(self, corp) -> list[dict]:
        out = []
        for city_id, slot in self.game.home_cities(corp):
            out.append(self.action(corp, "place_token", city=city_id, slot=slot))
        return out


class BuySellParShares1817(Auction, BuySellParShares):
    description = Phrase("buy, sell, start a corporation, act for a corporation or pass")
    secure_percent = 60  # with shorts, 50% of a corporation is not enough to keep it

    def setup(self) -> None:
        BuySellParShares.setup(self)
        self.setup_auction()
        self.winner: Player | None = None  # who won the auction of a corporation, still forming it
        self.sized = False
        self.forming: Corporation | None = None  # the corporation being auctioned or formed
        self.corporate_action: Corporation | None = None  # the corporation the player acts for this turn
        self.bought_back = False  # it has bought back shares (no loans after that)

    # --- who acts ---------------------------------------------------------------------------------
    def active_entities(self) -> list:
        if self.winner:
            return [self.winner]
        if self.auctioning:
            return [self.next_bidder()]
        return super().active_entities()

    def actions(self, entity) -> tuple[str, ...]:
        current = self.round.current_entity
        if isinstance(entity, Corporation):
            if entity.owner is current and not self.winner and not self.auctioning and \
                    not self.must_sell(current):
                return self.corporate_actions(entity)
            return ()
        if not isinstance(entity, Player):
            return ()
        if self.winner:
            if entity is not self.winner:
                return ()
            if not self.sized:
                return ("choose",)
            return ("assign",) if entity.cash < 0 else ("assign", "pass")
        if self.auctioning:
            return ("bid", "pass") if entity in self.active_entities() else ()
        if entity is not current:
            return ()
        if self.corporate_action:
            return ("pass",) if self.corporate_actions(self.corporate_action) else ()
        acts = list(super().actions(entity))
        if "par" in acts:
            acts.remove("par")
        if not self.bought and self.shortable(entity):
            acts.insert(0, "short")
        if not self.bought and self.max_bid(entity) >= MIN_IPO_BID and self.startable():
            acts.insert(0, "bid")
        if (acts or self.any_corporate_actions(entity)) and "pass" not in acts and not self.must_sell(entity):
            acts.append("pass")
        return tuple(acts)

    def corporate_actions(self, corp: Corporation) -> tuple[str, ...]:
        """A corporation its president acts for: loans (in any zone, as on 18xx.games), then buying back its
        shares from the market (in the normal zone)."""
        if self.corporate_action not in (None, corp) or self.current_actions or corp.share_price is None:
            return ()
        acts = []
        if self.game.can_take_loan(corp) and not self.bought_back:
            acts.append("take_loan")
        if self.game.in_normal_zone(corp) and self.redeemable(corp):
            acts.append("buy_shares")
        return tuple(acts)

    def redeemable(self, corp: Corporation) -> list[tuple[list, int]]:
        """(certificates, percent) bundles of its shares in the market it can pay for, smallest first: the
        market's growing bundles, as a player would sell them (18xx.games: a president's certificate sold
        to the market is bought back with all the rest, or in part)."""
        return [(bundle, percent) for bundle, percent in self.market_bundles(corp)
                if self.bundle_price(corp, percent) <= corp.cash]

    def market_bundles(self, corp: Corporation) -> list[tuple[list, int]]:
        return self.game.bundles_of(corp, [s for s in self.game.pool.shares_of(corp) if s.percent > 0])

    @staticmethod
    def bundle_price(corp: Corporation, percent: int) -> int:
        return corp.share_price.price * percent // corp.share_percent

    def any_corporate_actions(self, player: Player) -> bool:
        return any(self.corporate_actions(c) for c in self.game.corporations if c.owner is player)

    # --- starting a corporation -----------------------------------------------------------------
    def startable(self) -> list[Corporation]:
        return [c for c in self.game.corporations if not c.ipoed and not c.closed]

    def max_bid(self, player: Player) -> int:
        game = self.game
        if game.num_certs(player) >= game.cert_limit:
            return 0
        return min(MAX_IPO_BID, player.cash + sum(c.value for c in player.companies))

    @staticmethod
    def private_sums(player: Player) -> set[int]:
        values = [c.value for c in player.companies]
        return {sum(combo) for n in range(len(values) + 1) for combo in combinations(values, n)}

    def check_payable(self, player: Player, price: int) -> None:
        """A bid is paid in cash and privates at face value: some set of the player's privates must come to
        at most the bid, and within the player's cash of it."""
        if not any(total <= price <= total + player.cash for total in self.private_sums(player)):
            raise GameError("{player} can't pay {price} with {cash} and privates worth {companies}",
                            player=player.name, price=self.game.fmt(price), cash=self.game.fmt(player.cash),
                            companies=', '.join(self.game.fmt(v) for v in sorted(self.private_sums(player))))

    def payable_bid(self, player: Player, low: int) -> int | None:
        """The lowest bid from `low` the player can pay in cash and privates (None: none)."""
        prices = [max(low, total) for total in self.private_sums(player) if max(low, total) <= total + player.cash]
        prices = [p for p in prices if p <= min(MAX_IPO_BID, self.max_bid(player))]
        return min(prices, default=None)

    def process_bid(self, action, player: Player) -> None:
        game = self.game
        corp = game.corporation(action.corporation) if action.corporation else self.auctioning
        if corp is None:
            raise GameError("name the corporation to start")
        if self.auctioning:
            if corp is not self.auctioning:
                raise GameError("the auction for {item} must finish first", item=self.auctioning.sym)
            self.check_payable(player, action.price)
            self.raise_bid(player, action.price)
            return
        if corp not in self.startable():
            if corp.closed:
                raise GameError("{corporation} can't be started: it has closed", corporation=corp.sym)
            raise GameError("{corporation} can't be started: it has started", corporation=corp.sym)
        if not game.home_cities(corp):
            raise GameError("no city has room for a home station")
        self.check_price(player, corp, action.price, MIN_IPO_BID)
        self.check_payable(player, action.price)
        self.current_actions.clear()
        game.home_pending = corp
        game.home_chooser = player
        self.open_auction(player, corp, action.price)

    def check_price(self, player: Player, item, price: int, low: int) -> None:
        if price > MAX_IPO_BID:
            raise GameError("a bid on {item} may not exceed {most}", item=item.sym,
                            most=self.game.fmt(MAX_IPO_BID))
        super().check_price(player, item, price, low)

    def won(self, player: Player, corp: Corporation, price: int) -> None:
        game = self.game
        cell = game.market.price_at_most(price // 2)
        game.set_par(corp, cell)
        game.buy_shares(player, [corp.presidents_share], free=True)
        # the whole bid goes into the treasury, privates contributed in place of cash pay the winner back
        player.cash -= price
        corp.cash += price
        self.winner = player
        self.sized = False
        self.track(player, corp, "par")
        sizes = game.corporation_sizes()
        if len(sizes) == 1:
            self.size(corp, sizes[0])
        self.form_if_complete()

    def form_if_complete(self) -> None:
        """Formed once its size is chosen and no more privates can go in."""
        if self.sized and not self.contributable(self.winner):
            self.formed()

    def size(self, corp: Corporation, shares: int) -> None:
        self.sized = True
        self.game.resize(corp, shares)

    def contributable(self, player: Player) -> list[Company]:
        """The winner's privates that can go into the corporation: some set of them that includes it covers
        what the winner owes in cash and comes to at most the treasury."""
        if player is not self.winner:
            return []
        corp = self.forming
        low = max(0, -player.cash)
        out = []
        companies = list(player.companies)
        for n in range(1, len(companies) + 1):
            for combo in combinations(companies, n):
                if low <= sum(c.value for c in combo) <= corp.cash:
                    out.extend(c for c in combo if c not in out)
        return out

    def formed(self) -> None:
        """The corporation is formed: it buys the stations its size calls for, and the turn is over."""
        corp = self.forming
        self.game.formed(corp)
        self.winner = None
        self.forming = None
        self.round.current_entity.passed = False  # the player who started the auction has acted
        self.passed = True

    def open_auction(self, player: Player, item, price: int) -> None:
        self.forming = item
        super().open_auction(player, item, price)

    def process_choose(self, action, player: Player) -> None:
        sizes = self.game.corporation_sizes()
        try:
            shares = int(action.choice)
        except (TypeError, ValueError):
            shares = None
        if shares not in sizes:
            raise GameError("{corporation} may have {choices} shares now, not {choice}",
                            corporation=self.forming.sym, choices=Either(map(str, sizes)),
                            choice=action.choice)
        self.size(self.forming, shares)
        self.form_if_complete()

    def process_assign(self, action, player: Player) -> None:
        game = self.game
        company = game.company(str(action.target))
        if company not in self.contributable(player):
            raise GameError("{company} can't go into {corporation}", company=company.sym,
                            corporation=self.forming.sym)
        game.contribute(company, self.forming)
        self.form_if_complete()

    # --- short selling ------------------------------------------------------------------------------
    def shortable(self, player: Player) -> list[Corporation]:
        return [c for c in self.game.corporations if self.short_refusal(player, c) is None]

    def short_refusal(self, player: Player, corp: Corporation) -> GameError | None:
        """Why the player can't sell a share of the corporation short now, if they can't. Once a turn a player
        may short a 5- or 10-share corporation that has operated, in the normal zone, of which they hold no
        share, while fewer of its shares are short than it has (five with the optional rule); no new
        shorts in the last phase."""
        game = self.game
        limit = 5 if "five_shorts" in game.optional_rules else corp.total_shares
        checks = (
            ("no_new_shorts" in game.phase.status, GameError("no new shorts may be sold in this phase")),
            (any(kind == "short" for kind, _ in self.current_actions),
             GameError("{player} has already sold short this turn", player=player.name)),
            (not corp.floated or corp.total_shares == 2,
             GameError("{corporation} can't be shorted: it isn't a 5- or 10-share corporation",
                       corporation=corp.sym)),
            (not corp.operated, GameError("{corporation} has not operated yet", corporation=corp.sym)),
            (not game.in_normal_zone(corp), GameError("{corporation} is in the {zone} zone", corporation=corp.sym,
                                                      zone=Phrase(game.zone(corp), "market"))),
            (player.percent_of(corp) > 0, GameError("{player} holds shares of {corporation}",
                                                    player=player.name, corporation=corp.sym)),
            (len(game.shorts(corp)) >= limit, GameError("{limit} shares of {corporation} are short already",
                                                        limit=limit, corporation=corp.sym)),
        )
        return next((why for failed, why in checks if failed), None)

    def why_not(self, entity, action) -> GameError | None:
        if action.type == "short" and entity is self.round.current_entity:
            corp = self.game.corporation_by_sym.get(action.corporation)
            if corp is None:
                return GameError("there is no corporation {corporation}", corporation=action.corporation)
            why = self.short_refusal(entity, corp) or \
                (GameError("shorts come before the purchase of the turn") if self.bought else None)
            return GameError("{entity} can't sell {corporation} short: {reason}", entity=entity.name,
                             corporation=corp.sym, reason=why) if why else None
        return super().why_not(entity, action)

    def process_short(self, action, player: Player) -> None:
        corp = self.game.corporation(action.corporation)
        why = self.short_refusal(player, corp) or \
            (GameError("shorts come before the purchase of the turn") if self.bought else None)
        if why:
            raise GameError("{player} can't sell {corporation} short: {reason}", player=player.name,
                            corporation=corp.sym, reason=why)
        self.game.short(player, corp)
        self.round.players_sold.setdefault(player.id, set()).add(corp.sym)
        player.passed = False
        self.track(player, corp, "short")

    # --- buying, closing shorts -------------------------------------------------------------------
    def can_buy_share(self, player: Player, share) -> bool:
        corp = share.corporation
        if not self.game.in_normal_zone(corp):
            return False
        if self.game.shorts_of(player, corp):
            return self.closing_buy_allowed(player, share)
        return super().can_buy_share(player, share)

    def closing_buy_allowed(self, player: Player, share) -> bool:
        return self.closing_buy_refusal(player, share) is None

    def closing_buy_refusal(self, player: Player, share) -> GameError | None:
        """Buying a share to close a short ignores the certificate and holding limits."""
        corp = share.corporation
        checks = (
            (not share.buyable or share.president or share.owner not in (corp, self.game.pool),
             GameError("{share} is not for sale", share=share.id)),
            (self.sold_this_round(player, corp),
             GameError("{player} sold {corporation} this round and can't buy it again", player=player.name,
                       corporation=corp.sym)),
            (self.bought, GameError("{player} has already bought this turn", player=player.name)),
            (self.share_price(share) > player.cash,
             GameError("{player} has {cash} and can't pay {price}", player=player.name,
                       cash=self.game.fmt(player.cash), price=self.game.fmt(self.share_price(share)))),
        )
        return next((why for failed, why in checks if failed), None)

    def check_buy(self, action, player: Player):
        shares = [self.game.share(sid) for sid in action.shares]
        if len(shares) == 1 and self.game.shorts_of(player, shares[0].corporation):
            why = self.closing_buy_refusal(player, shares[0])
            if why:
                raise why
            return shares[0], self.share_price(shares[0])
        return super().check_buy(action, player)

    def process_buy_shares(self, action, player) -> None:
        if isinstance(player, Corporation):
            self.buy_back(action, player)
            return
        share, _ = self.check_buy(action, player)
        closing = bool(self.game.shorts_of(player, share.corporation))
        super().process_buy_shares(action, player)
        if closing:
            self.game.unshort(player, share)
        self.game.buy_missing_stations(share.corporation)

    # --- selling ----------------------------------------------------------------------------------
    def sale_in_order(self) -> bool:
        """Sales come before the purchase of the turn, never after."""
        return not self.bought

    def sellable_bundles(self, player: Player, corp: Corporation):
        if self.corporate_action or not corp.operated or not self.game.in_normal_zone(corp):
            return []
        return super().sellable_bundles(player, corp)

    def check_sale(self, player: Player, corp: Corporation, shares, percent: int) -> None:
        if not corp.operated:
            raise GameError("{corporation} has not operated yet: its shares can't be sold",
                            corporation=corp.sym)
        if not self.game.in_normal_zone(corp):
            raise GameError("{corporation} is in the {zone} zone: its shares can't be traded",
                            corporation=corp.sym, zone=self.game.zone(corp))
        super().check_sale(player, corp, shares, percent)

    # --- acting for a corporation -----------------------------------------------------------------
    def process_take_loan(self, action, corp: Corporation) -> None:
        if not self.corporate_actions(corp):
            raise GameError("{corporation} can't take a loan now", corporation=corp.sym)
        self.corporate_action = corp
        track_for_programs(self.round, corp.owner, corp, "loan", self.game.programs.seq)
        self.game.take_loan(corp)
        self.game.buy_missing_stations(corp)

    def buy_back(self, action, corp: Corporation) -> None:
        game = self.game
        if "buy_shares" not in self.corporate_actions(corp):
            raise GameError("{corporation} can't buy back shares now", corporation=corp.sym)
        shares = [game.share(sid) for sid in action.shares]
        if any(s.corporation is not corp or s.owner is not game.pool for s in shares):
            raise GameError("{corporation} buys back its own shares from the market", corporation=corp.sym)
        percent = action.percent or sum(s.percent for s in shares)
        bundles = self.market_bundles(corp)
        if not any(set(bundle) == set(shares) and p == percent for bundle, p in bundles):
            raise GameError("{corporation} buys back the market's shares smallest first, its president's "
                            "certificate last: {options}", corporation=corp.sym,
                            options="; ".join(f"{', '.join(s.id for s in b)} ({p}%)" for b, p in bundles))
        price = self.bundle_price(corp, percent)
        if price > corp.cash:
            raise GameError("{corporation} has {cash} and can't pay {price}", corporation=corp.sym,
                            cash=game.fmt(corp.cash), price=game.fmt(price))
        game.transfer(corp, game.bank, price)
        game.transfer_shares(shares, corp)
        track_for_programs(self.round, corp.owner, corp, "redeem", game.programs.seq)
        self.corporate_action = corp
        self.bought_back = True

    def sale_timing_ok(self, corp: Corporation) -> bool:
        return corp.operated

    # --- passing ----------------------------------------------------------------------------------
    def normal_pass(self) -> bool:
        return not (self.auctioning or self.winner)

    def process_pass(self, action, player: Player) -> None:
        if self.winner:
            if not self.sized:
                raise GameError("{player} must first choose how many shares {corporation} has",
                                player=player.name, corporation=self.forming.sym)
            self.formed()
            return
        if self.auctioning:
            self.drop_out(player)
            return
        self.record_corporate_action()
        super().process_pass(action, player)

    def skip(self) -> None:
        self.record_corporate_action()
        super().skip()

    def record_corporate_action(self) -> None:
        """Acting for a corporation is the player's turn: they have not passed."""
        if self.corporate_action and ("corporation", self.corporate_action) not in self.current_actions:
            self.current_actions.append(("corporation", self.corporate_action))

    # --- what can be done -------------------------------------------------------------------------
    def turn_facts(self, entity) -> dict:
        """The auction of a corporation being started (`auction`), and the corporation its winner is forming
        (`forming`: its size to choose, privates to contribute)."""
        facts = self.auction_facts()
        if self.winner and self.forming:
            facts["forming"] = self.forming.sym
        elif isinstance(entity, Player) and not self.auctioning:  # what they may do for their corporations
            corporate = {c.sym: list(self.corporate_actions(c)) for c in self.game.corporations if c.owner is entity}
            corporate = {sym: acts for sym, acts in corporate.items() if acts}
            if corporate:
                facts["corporate"] = corporate
        return facts

    def legal(self, entity) -> list[dict]:
        acts = self.actions(entity)
        if isinstance(entity, Corporation):
            out = [self.action(entity, "take_loan", loan=self.game.loan_bank.taken)] if "take_loan" in acts else []
            if "buy_shares" in acts:
                out.extend(self.action(entity, "buy_shares", shares=[s.id for s in bundle], percent=percent)
                           for bundle, percent in self.redeemable(entity))
            return out
        if self.winner:
            out = []
            if "choose" in acts:
                out.extend(self.action(entity, "choose", choice=n) for n in self.game.corporation_sizes())
            if "assign" in acts:
                out.extend(self.action(entity, "assign", target=c.sym, target_type="company")
                           for c in self.contributable(entity))
            if "pass" in acts:
                out.append(self.action(entity, "pass"))
            return out
        if self.auctioning:
            out = []
            low = self.raise_min()
            price = self.payable_bid(entity, low)
            if price is not None:
                out.append(self.action(entity, "bid", corporation=self.auctioning.sym, price=price))
            return out + [self.action(entity, "pass")]
        out = super().legal(entity)
        if "short" in acts:
            out.extend(self.action(entity, "short", corporation=c.sym) for c in self.shortable(entity))
        price = self.payable_bid(entity, MIN_IPO_BID) if "bid" in acts else None
        if price is not None:
            for corp in self.startable():
                out.append(self.action(entity, "bid", corporation=corp.sym, price=price))
        if "pass" in acts and not any(a["type"] == "pass" for a in out):
            out.append(self.action(entity, "pass"))
        return out


class StockRound1817(StockRound):
    def legal_actions(self, entity=None) -> list[dict]:
        """The acting player's moves and those of the corporations they preside (loans, buying back shares):
        acting for one of them is a player's turn."""
        out = super().legal_actions(entity)
        entity, steps = self.steps_open_to_actor(entity)
        if isinstance(entity, Player):
            for corp in self.game.corporations:
                if corp.owner is entity:
                    out.extend(a for step in steps for a in step.legal(corp) if self.offered_by(step, a))
        return out

    def finish(self) -> None:
        """Prices move as in the core; then a corporation that never bought the stations its size calls
        for is liquidated, and a Train Station private owned by a corporation closes."""
        super().finish()
        game = self.game
        for corp in game.corporations:
            if corp.floated and not corp.operated and game.stations_missing(corp) > 0:
                game.liquidate(corp, "stations")
        for company in game.companies:
            if company.sym == TRAIN_STATION and isinstance(company.owner, Corporation) and not company.closed:
                game.close_company(company)
                game.outcomes.append({"event": "company_closed", "company": company.sym})
