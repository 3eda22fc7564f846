"""The opening private-company sale: the 1830/18MEX waterfall auction, and the par a private can demand."""

from __future__ import annotations

from engine.core.entities import Company, Player
from engine.core.errors import GameError, Phrase
from engine.core.programs import AUCTION_PROGRAM_TYPES
from engine.core.steps import Step


class CompanyPendingPar(Step):
    """A private that came with a president's certificate (1830 BO): its owner sets the par at once."""

    description = Phrase("set the par price")

    def setup(self) -> None:
        self.pending: Company | None = None

    def done(self) -> bool:
        return self.pending is None

    def skip(self) -> None:
        """Waits for the next private that brings a president's certificate."""

    def active_entities(self) -> list:
        return [self.pending.owner] if self.pending else []

    def actions(self, entity) -> tuple[str, ...]:
        if self.pending and entity is self.pending.owner:
            return ("par",)
        return ()

    def corporation(self):
        ability = self.pending.ability("shares")
        return self.game.share(ability["shares"]).corporation

    def turn_facts(self, entity) -> dict:
        return {"par": self.corporation().sym} if self.pending else {}

    def process_par(self, action, player: Player) -> None:
        corp = self.corporation()
        if action.corporation != corp.sym:
            raise GameError("{player} must set the par price of {corporation}, not {corporation2}",
                            player=player.name, corporation=corp.sym, corporation2=action.corporation)
        cell = self.game.par_cell(action.share_price)
        self.game.set_par(corp, cell)
        self.game.buy_shares(player, [corp.presidents_share], free=True)
        self.pending = None

    def legal(self, entity) -> list[dict]:
        corp = self.corporation()
        return [self.action(entity, "par", corporation=corp.sym, share_price=c.id)
                for c in self.game.market.par_prices]


class WaterfallAuction(Step):
    """Buy the cheapest private at face value or bid on a dearer one; bids resolve as the cheaper sell."""

    description = Phrase("buy the cheapest private, bid or pass")
    PROGRAM_TYPES = AUCTION_PROGRAM_TYPES  # a player's auction program plays their turns here

    def setup(self) -> None:
        self.companies: list[Company] = sorted((c for c in self.game.companies if c.owner is None),
                                               key=lambda c: c.value)
        self.cheapest = self.companies[0] if self.companies else None
        self.bids: dict[str, list[tuple[Player, int]]] = {}
        self.auctioning: Company | None = None

    def done(self) -> bool:
        return not self.companies

    def skip(self) -> None:
        """Bidding goes on while privates are unsold."""

    # --- who acts ----------------------------------------------------------------------------
    def active_entities(self) -> list:
        if self.auctioning:
            bids = self.bids[self.auctioning.sym]
            return [min(bids, key=lambda b: b[1])[0]]
        if not self.companies:
            return []
        return [self.round.current_entity]

    def actions(self, entity) -> tuple[str, ...]:
        if self.companies and entity in self.active_entities():
            return ("bid", "pass")
        return ()

    # --- money set aside ---------------------------------------------------------------------
    def committed(self, player: Player, except_sym: str | None = None) -> int:
        return sum(price for sym, bids in self.bids.items() if sym != except_sym
                   for p, price in bids if p is player)

    def max_bid(self, player: Player, company: Company) -> int:
        return player.cash - self.committed(player, company.sym)

    def highest_bid(self, company: Company) -> int | None:
        bids = self.bids.get(company.sym)
        return max(price for _, price in bids) if bids else None

    def high_bidder(self, company: Company) -> Player | None:
        bids = self.bids.get(company.sym)
        return max(bids, key=lambda b: b[1])[0] if bids else None

    def may_purchase(self, company: Company) -> bool:
        """Whether `company` sells now at its price: the cheapest private, while no auction runs."""
        return company is self.companies[0] and not self.auctioning

    def min_bid(self, company: Company) -> int:
        if self.may_purchase(company):
            return company.min_bid
        high = self.highest_bid(company)
        return (high if high is not None else company.min_bid) + self.game.rules.min_bid_increment

    def turn_facts(self, entity) -> dict:
        if self.auctioning:
            bids = self.bids.get(self.auctioning.sym, [])
            return {"auction": {"company": self.auctioning.sym, "bids": [(p.id, price) for p, price in bids],
                                "min": self.min_bid(self.auctioning)}}
        if self.companies:
            return {"cheapest": (self.companies[0].sym, self.min_bid(self.companies[0]))}
        return {}

    # --- processing --------------------------------------------------------------------------
    def process_bid(self, action, player: Player) -> None:
        company = self.game.company(action.company) if action.company else self.auctioning
        if company is None or company not in self.companies:
            raise GameError("{company} is not for sale", company=action.company)
        if self.auctioning:
            # the auctioned private's bidders bid on it; an auction program of theirs for another private
            # bids on that one meanwhile, as on 18xx.games, and the auction waits for their answer
            if company is not self.auctioning and not self.game.programs.acting:
                raise GameError("the auction for {item} must finish first", item=self.auctioning.sym)
            self.check_bid(player, company, action.price)
            self.place_bid(player, company, action.price)
            return
        if company is self.companies[0]:
            price = company.min_bid
            if action.price != price:
                raise GameError("{company} is the cheapest private: it sells at {price}, not {price2}",
                                company=company.sym, price=self.game.fmt(price),
                                price2=self.game.fmt(action.price))
            if self.max_bid(player, company) < price:
                raise GameError("{player} has {most} free and can't pay {price} for {company}",
                                player=player.name, most=self.game.fmt(self.max_bid(player, company)),
                                price=self.game.fmt(price), company=company.sym)
            player.passed = False
            self.buy(player, company, price)
            self.round.next_entity_index()
            self.resolve_bids()
        else:
            self.check_bid(player, company, action.price)
            player.passed = False
            self.place_bid(player, company, action.price)
            self.round.next_entity_index()

    def check_bid(self, player: Player, company: Company, price: int) -> None:
        low = self.min_bid(company)
        if price < low:
            raise GameError("a bid on {company} must be at least {low}", company=company.sym,
                            low=self.game.fmt(low))
        if price > self.max_bid(player, company):
            raise GameError("{player} has only {most} not set aside for other bids and can't bid {price}",
                            player=player.name, most=self.game.fmt(self.max_bid(player, company)),
                            price=self.game.fmt(price))

    def place_bid(self, player: Player, company: Company, price: int) -> None:
        bids = [b for b in self.bids.get(company.sym, []) if b[0] is not player]
        bids.append((player, price))
        self.bids[company.sym] = bids

    def process_pass(self, action, player: Player) -> None:
        if self.auctioning:
            company = self.auctioning
            bids = [b for b in self.bids[company.sym] if b[0] is not player]
            self.bids[company.sym] = bids
            if len(bids) == 1:
                self.win(company)
            return
        player.passed = True
        if all(p.passed for p in self.round.entities):
            self.all_passed()
        self.round.next_entity_index()

    def all_passed(self) -> None:
        for p in self.round.entities:
            p.passed = False
        if self.cheapest in self.companies:
            self.cheapest.discount += self.game.rules.min_bid_increment
            if self.cheapest.min_bid <= 0:
                self.round.next_entity_index()
                self.buy(self.round.current_entity, self.cheapest, 0)
                self.resolve_bids()
        else:
            self.game.payout_companies()

    def buy(self, player: Player, company: Company, price: int) -> None:
        self.companies.remove(company)
        self.bids.pop(company.sym, None)
        self.game.buy_company_from_bank(player, company, price)
        pending = self.round.steps[0]
        if isinstance(pending, CompanyPendingPar) and company.ability("shares") and \
                self.game.share(company.ability("shares")["shares"]).president:
            pending.pending = company

    def win(self, company: Company) -> None:
        player, price = max(self.bids[company.sym], key=lambda b: b[1])
        self.auctioning = None
        self.buy(player, company, price)
        self.resolve_bids()

    def resolve_bids(self) -> None:
        while self.companies:
            company = self.companies[0]
            bids = self.bids.get(company.sym, [])
            if len(bids) == 1:
                player, price = bids[0]
                self.buy(player, company, price)
                continue
            if len(bids) > 1:
                self.auctioning = company
            return

    # --- what can be done --------------------------------------------------------------------
    def legal(self, player) -> list[dict]:
        out = []
        if self.auctioning:
            company = self.auctioning
            low = self.min_bid(company)
            if low <= self.max_bid(player, company):
                out.append(self.action(player, "bid", company=company.sym, price=low))
            out.append(self.action(player, "pass"))
            return out
        for company in self.companies:
            low = self.min_bid(company)
            if low <= self.max_bid(player, company):
                out.append(self.action(player, "bid", company=company.sym, price=low))
        out.append(self.action(player, "pass"))
        return out
