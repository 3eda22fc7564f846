"""1817's merger and conversion round and acquisition round, after each operating round.

Merger and conversion: each corporation in the normal zone, in share-price order, may convert (2 to 5, 5 to
10 shares) or merge with another of its size, or pass. Acquisition: from the lowest share price up, a
corporation in the liquidation zone is liquidated, one in the acquisition zone is auctioned, and any other
may be offered for sale by its president when some player could pay its minimum price.

Built so far: the order of turns and passing, and conversions (with the share purchases after them and
the stations a bigger corporation buys). Merging, offering, auctions and liquidations are refused as not
built yet (docs/1817.md).
"""

from __future__ import annotations

from engine.core.entities import Corporation, Player
from engine.core.errors import GameError
from engine.core.rounds import Round
from engine.core.steps import Step


class RoundOfSet(Round):
    """A round after an operating round, numbered as it is (18xx.games: "Merger Round 2.1 (of 2)")."""

    label = ""

    @property
    def description(self) -> str:
        return f"{self.label} {self.game.turn}.{self.round_num} (of {self.game.operating_rounds})"


class MergerRound1817(RoundOfSet):
    name = "Merger and Conversion Round"
    label = "Merger Round"
    kind = "merger"

    def start(self) -> None:
        game = self.game
        self.entities = sorted((c for c in game.corporations if c.floated and not c.closed and game.in_normal_zone(c)),
                               key=game.operating_sort_key)
        self.converted: Corporation | None = None  # the corporation that just converted, while players buy
        self.converted_price = None
        self.stations_due = 0  # stations the converted corporation must buy
        self.entity_index = -1
        self.next_entity()

    @property
    def finished(self) -> bool:
        return self.entity_index >= len(self.entities)

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
    description = "convert, merge or pass"

    def mergeable(self, corp: Corporation) -> list[Corporation]:
        """Corporations of its size in the normal zone it could merge with (the share and cash conditions
        of a merger aside, which are not built yet)."""
        game = self.game
        return [c for c in game.corporations if c is not corp and c.floated and not c.closed
                and game.in_normal_zone(c) and c.total_shares == corp.total_shares and c.total_shares != 10]

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
            raise GameError(f"{corp.sym} has 10 shares already: it can't grow")
        stations = len(corp.token_prices)
        if corp.total_shares == 2:
            self.game.resize(corp, 5)
            due = 1 if stations < 8 else 0
        else:
            self.game.resize(corp, 10)
            due = min(max(8 - stations, 0), 2)
        self.round.converting(corp, due)

    def process_merge(self, action, corp: Corporation) -> None:
        raise GameError("merging corporations is not built yet")

    def process_pass(self, action, corp: Corporation) -> None:
        self.passed = True

    def legal(self, corp) -> list[dict]:
        return [self.action(corp, "pass")] if self.actions(corp) else []


class PostConversion(Step):
    """After a conversion, from its president round the table: each player may buy one of its new shares (the
    president as many as they like) or pass; until the corporation takes a loan."""

    description = "buy a share of the converted corporation, or pass"

    def skip(self) -> None:
        """Waits for a conversion."""

    def corporation(self) -> Corporation | None:
        converted = self.round.converted
        return converted if converted is not None and converted.share_price is self.round.converted_price else None

    def treasury_share(self, corp: Corporation):
        return next((s for s in corp.shares_of(corp) if not s.president), None)

    def can_buy(self, player: Player, corp: Corporation) -> bool:
        game = self.game
        share = self.treasury_share(corp)
        return share is not None and player.cash >= game.certificate_price(share, corp.share_price.price) and \
            game.holding_ok(player, corp, share.percent) and game.num_certs(player) < game.cert_limit

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
            raise GameError(f"{player.name} may buy one of {corp.sym}'s treasury shares")
        if not self.can_buy(player, corp):
            raise GameError(f"{player.name} can't buy a share of {corp.sym}")
        game.buy_shares(player, shares)
        if player is not corp.owner or not self.can_buy(player, corp):
            player.passed = True

    def process_sell_shares(self, action, player: Player) -> None:
        raise GameError("selling shares after a conversion is not built yet")

    def process_pass(self, action, player: Player) -> None:
        player.passed = True

    def legal(self, player) -> list[dict]:
        corp = self.corporation()
        out = []
        if "buy_shares" in self.actions(player):
            share = self.treasury_share(corp)
            out.append(self.action(player, "buy_shares", shares=[share.id], percent=share.percent))
        if self.actions(player):
            out.append(self.action(player, "pass"))
        return out


class PostConversionLoans(Step):
    """Then the converted corporation may take loans (for its stations), or pass."""

    description = "take loans, or pass"

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

    def start(self) -> None:
        game = self.game
        self.entities = list(game.players)
        # corporations to deal with, lowest share price first
        self.offering = sorted((c for c in game.corporations if c.floated and not c.closed),
                               key=game.operating_sort_key, reverse=True)
        for step in self.steps:
            step.setup()

    @property
    def finished(self) -> bool:
        return all(step.done() for step in self.steps)

    def after_process(self, action, entity) -> None:
        pass


class Acquire(Step):
    """Each corporation in turn: liquidated, auctioned, or offered for sale by its president (if anyone could
    pay its minimum price) or passed over."""

    description = "offer the corporation for sale, or pass"

    def setup(self) -> None:
        self.offer: Corporation | None = None
        self.next_offer()

    def done(self) -> bool:
        return self.offer is None

    def skip(self) -> None:
        """Waits for the president of the corporation on offer."""

    def next_offer(self) -> None:
        game = self.game
        round_ = self.round
        self.offer = None
        while round_.offering:
            corp = round_.offering[0]
            if game.entered_zone_this_round(corp):
                round_.offering.pop(0)
                continue
            if not game.in_normal_zone(corp):
                zone = "liquidation" if game.in_liquidation(corp) else "acquisition"
                raise GameError(f"{corp.sym} is in the {zone} zone: its {zone} is not built yet")
            if any(self.max_bid(p, corp) >= self.min_bid(corp) for p in game.players):
                self.offer = corp
                return
            round_.offering.pop(0)

    def active_entities(self) -> list:
        return [self.offer.owner] if self.offer else []

    def actions(self, entity) -> tuple[str, ...]:
        return ("assign", "pass") if self.offer and entity is self.offer.owner else ()

    def min_bid(self, corp: Corporation) -> int:
        return -(-corp.total_shares * corp.share_price.price // 10) * 10

    def max_bid(self, player: Player, corp: Corporation) -> int:
        """The most a player's corporations could pay for `corp`: cash, loans they could still take (the
        acquired corporation's loans repaid first), the acquired treasury and its own shares' worth."""
        game = self.game
        best = 0
        for buyer in game.corporations:
            if buyer.owner is not player or buyer is corp or not buyer.floated or not game.in_normal_zone(buyer):
                continue
            loans = min(game.max_loans(buyer) - buyer.loans, game.loan_bank.left + corp.loans)
            power = buyer.cash + loans * game.loan_bank.value
            compensation = corp.percent_of(corp) // corp.share_percent * corp.share_price.price
            best = max(best, power + corp.cash + compensation - corp.loans * game.loan_bank.value)
        if corp.owner is player:
            best = min(best, self.min_bid(corp))
        return best

    def process_assign(self, action, player: Player) -> None:
        raise GameError("offering a corporation for sale is not built yet")

    def process_pass(self, action, player: Player) -> None:
        self.round.offering.pop(0)
        self.next_offer()

    def legal(self, player) -> list[dict]:
        return [self.action(player, "pass")] if self.actions(player) else []
