"""1817's opening sale of privates: players in turn nominate a private with an opening bid, or pass; the
others then raise in turn or drop out. Seed money from the bank pays what a winning bid falls short of the
private's face value while it lasts. All players passing in a row ends the sale: the unsold privates leave
the game.

As on 18xx.games (whose logs must replay), a bid may exceed the face value (the short rules' "most
players" variant) and the opening bid is any multiple of $5 from face value less the seed money left.
"""

from __future__ import annotations

from engine.core.entities import Company, Player
from engine.core.errors import GameError, Phrase
from engine.core.steps import Step


class Auction(Step):
    """One item auctioned among the players still in it: each in seat order after the highest bidder raises
    by a multiple of the increment or drops out; one left with a bid wins. The nomination rules and what
    winning does are the subclass's."""

    description = Phrase("bid or pass")

    def setup_auction(self) -> None:
        self.auctioning = None  # the item on sale
        self.bids: dict[str, list[tuple[Player, int]]] = {}  # item sym -> (bidder, price), highest last
        self.bidders: list[Player] = []  # still in the auction, in seat order
        self.nominator: Player | None = None

    @property
    def increment(self) -> int:
        return self.game.rules.min_bid_increment

    def highest(self) -> tuple[Player, int] | None:
        bids = self.bids.get(self.auctioning.sym) if self.auctioning else None
        return max(bids, key=lambda b: b[1]) if bids else None

    def next_bidder(self) -> Player:
        leader = self.highest()[0]
        return self.bidders[(self.bidders.index(leader) + 1) % len(self.bidders)]

    def raise_min(self) -> int:
        return self.highest()[1] + self.increment

    def max_bid(self, player: Player) -> int:
        return player.cash

    def check_price(self, player: Player, item, price: int, low: int) -> None:
        fmt = self.game.fmt
        if price < low:
            raise GameError("a bid on {item} must be at least {low}", item=item.sym, low=fmt(low))
        if (price - low) % self.increment:
            raise GameError("a bid on {item} goes up from {low} in steps of {increment}", item=item.sym,
                            low=fmt(low), increment=fmt(self.increment))
        if price > self.max_bid(player):
            raise GameError("{player} can bid at most {most}", player=player.name,
                            most=fmt(self.max_bid(player)))

    def open_auction(self, player: Player, item, price: int) -> None:
        self.auctioning = item
        self.nominator = player
        self.bids[item.sym] = [(player, price)]
        low = self.raise_min()
        self.bidders = [p for p in self.round.entities if p is player or self.max_bid(p) >= low]
        self.resolve()

    def raise_bid(self, player: Player, price: int) -> None:
        item = self.auctioning
        self.check_price(player, item, price, self.raise_min())
        self.bids[item.sym] = [b for b in self.bids[item.sym] if b[0] is not player] + [(player, price)]
        low = self.raise_min()
        for other in [p for p in self.bidders if p is not player and self.max_bid(p) < low]:
            self.drop_out(other)

    def drop_out(self, player: Player) -> None:
        if self.auctioning is None:
            return
        self.bidders.remove(player)
        self.bids[self.auctioning.sym] = [b for b in self.bids[self.auctioning.sym] if b[0] is not player]
        self.resolve()

    def resolve(self) -> None:
        """One bidder left with a bid: the auction is won."""
        item = self.auctioning
        if item is None or len(self.bidders) != 1 or not self.bids.get(item.sym):
            return
        player, price = self.bids[item.sym][0]
        self.bids.clear()
        self.bidders = []
        self.auctioning = None
        self.won(player, item, price)

    def won(self, player: Player, item, price: int) -> None:
        raise NotImplementedError

    def auction_facts(self) -> dict:
        if not self.auctioning:
            return {}
        return {"auction": {"item": self.auctioning.sym, "bids": [(p.id, v) for p, v in self.bids[self.auctioning.sym]],
                            "bidders": [p.id for p in self.bidders], "min": self.raise_min()}}


class SelectionAuction(Auction):
    description = Phrase("nominate a private with a bid, bid or pass")

    def setup(self) -> None:
        self.setup_auction()
        self.companies: list[Company] = [c for c in self.game.companies if c.owner is None and not c.closed]
        self.seed_money = self.game.data["constants"]["SEED_MONEY"]
        self.ended = False

    def done(self) -> bool:
        return self.ended or not self.companies

    def skip(self) -> None:
        """Bidding goes on while privates are unsold."""

    def active_entities(self) -> list:
        if self.done():
            return []
        if self.auctioning:
            return [self.next_bidder()]
        return [self.round.current_entity]

    def actions(self, entity) -> tuple[str, ...]:
        return ("bid", "pass") if entity in self.active_entities() else ()

    def opening_min(self, company: Company) -> int:
        return max(0, company.value - self.seed_money)

    def turn_facts(self, entity) -> dict:
        facts = {"seed_money": self.seed_money}
        facts.update(self.auction_facts())
        return facts

    def process_bid(self, action, player: Player) -> None:
        player.passed = False
        company = self.game.company(action.company) if action.company else self.auctioning
        if self.auctioning:
            if company is not self.auctioning:
                raise GameError("the auction for {item} must finish first", item=self.auctioning.sym)
            self.raise_bid(player, action.price)
            self.after_bidding()
            return
        if company not in self.companies:
            raise GameError("{company} is not for sale", company=company.sym)
        self.check_price(player, company, action.price, self.opening_min(company))
        self.open_auction(player, company, action.price)
        self.after_bidding()

    def process_pass(self, action, player: Player) -> None:
        if self.auctioning:
            self.drop_out(player)
            self.after_bidding()
            return
        player.passed = True
        if all(p.passed for p in self.round.entities):
            for company in self.companies:
                self.game.close_company(company)
            self.companies = []
            self.ended = True
            self.round.next_entity_index()
            return
        self.next_nominator()

    def after_bidding(self) -> None:
        """Whatever happened in the auction, the next nomination is the player's after the one who
        nominated (as 18xx.games resets it after every bid and pass), with everyone back in."""
        for p in self.round.entities:
            p.passed = False
        self.round.entity_index = self.round.entities.index(self.turn_order_from())
        self.next_nominator()

    def turn_order_from(self) -> Player:
        """The player the next nomination comes after."""
        return self.nominator

    def next_nominator(self) -> None:
        for _ in self.round.entities:
            self.round.next_entity_index()
            if not self.round.current_entity.passed:
                return

    def won(self, player: Player, company: Company, price: int) -> None:
        self.seed_money -= max(0, company.value - price)
        self.companies.remove(company)
        self.game.buy_company_from_bank(player, company, price)

    def legal(self, player) -> list[dict]:
        out = []
        if self.auctioning:
            low = self.raise_min()
            if low <= self.max_bid(player):
                out.append(self.action(player, "bid", company=self.auctioning.sym, price=low))
        else:
            for company in self.companies:
                low = self.opening_min(company)
                if low <= self.max_bid(player):
                    out.append(self.action(player, "bid", company=company.sym, price=low))
        out.append(self.action(player, "pass"))
        return out


class TieredAuction(SelectionAuction):
    """The Volatility expansion's sale: the privates are dealt at random into a pyramid of six rows (one
    private in the top row, six in the bottom one), the city-tile private on top. Only the bottom row is for
    sale; a player must nominate one of its privates, from $0, there is no seed money. A private sold leaves
    an empty slot, and a private of that row left without a neighbour is removed from the game; the row
    above opens once the bottom one is empty. The next nomination is the player's after the last winner."""

    description = "nominate a private of the bottom row with a bid, bid or pass"
    ROWS = 6

    def setup(self) -> None:
        super().setup()
        self.seed_money = 0
        self.last_winner: Player | None = None
        game = self.game
        dealt = sorted(self.companies, key=lambda _: game.rand())
        top = game.city_tile_private()
        dealt.remove(top)
        dealt.insert(0, top)
        self.rows: list[list[Company | None]] = []
        for size in range(1, self.ROWS + 1):
            self.rows.append(dealt[:size])
            dealt = dealt[size:]

    def for_sale(self) -> list[Company]:
        return [c for c in self.rows[-1] if c is not None] if self.rows else []

    def opening_min(self, company: Company) -> int:
        return 0

    def actions(self, entity) -> tuple[str, ...]:
        if entity not in self.active_entities():
            return ()
        return ("bid", "pass") if self.auctioning else ("bid",)

    def process_bid(self, action, player: Player) -> None:
        if not self.auctioning and action.company and self.game.company(action.company) not in self.for_sale():
            raise GameError("only the bottom row is for sale: {companies}",
                            companies=", ".join(c.sym for c in self.for_sale()))
        super().process_bid(action, player)

    def process_pass(self, action, player: Player) -> None:
        if not self.auctioning:
            raise GameError("a private of the bottom row must be nominated (the sale goes on until none is left)")
        super().process_pass(action, player)

    def won(self, player: Player, company: Company, price: int) -> None:
        self.last_winner = player
        self.companies.remove(company)
        self.game.buy_company_from_bank(player, company, price)
        row = next(r for r in self.rows if company in r)
        slot = row.index(company)
        row[slot] = None
        for side in (slot - 1, slot + 1):
            if 0 <= side < len(row) and row[side] is not None and not self.has_neighbour(row, side):
                self.companies.remove(row[side])
                self.game.close_company(row[side])
                row[side] = None
        if all(c is None for c in row):
            self.rows.remove(row)

    @staticmethod
    def has_neighbour(row: list, slot: int) -> bool:
        return any(0 <= i < len(row) and row[i] is not None for i in (slot - 1, slot + 1))

    def turn_order_from(self) -> Player:
        return self.last_winner or self.nominator

    def turn_facts(self, entity) -> dict:
        facts = {"tiers": [[c.sym if c else None for c in row] for row in self.rows]}
        facts.update(self.auction_facts())
        return facts

    def legal(self, player) -> list[dict]:
        if self.auctioning:
            return super().legal(player)
        return [self.action(player, "bid", company=c.sym, price=0) for c in self.for_sale()]
