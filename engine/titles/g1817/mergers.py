"""1817's merger and conversion round and acquisition round, after each operating round.

Merger and conversion: each corporation in the normal zone, in share-price order, may convert (2 to 5, 5 to
10 shares) or merge with another of its size, or pass. Acquisition: from the lowest share price up, a
corporation in the liquidation zone is liquidated, one in the acquisition zone is auctioned, and any other
may be offered for sale by its president when some player could pay its minimum price.

Built so far: the order of turns and passing. Converting, merging, offering, auctions and liquidations
are refused as not built yet (docs/1817.md).
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
        self.entity_index = -1
        self.next_entity()

    @property
    def finished(self) -> bool:
        return self.entity_index >= len(self.entities)

    def after_process(self, action, entity) -> None:
        if self.active_step() is None:
            self.next_entity()

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
        if entity is not self.round.current_entity or not isinstance(entity, Corporation):
            return ()
        acts = []
        if entity.total_shares in (2, 5):
            acts.append("convert")
        if self.mergeable(entity):
            acts.append("merge")
        return (*acts, "pass") if acts else ()

    def process_convert(self, action, corp: Corporation) -> None:
        raise GameError("converting a corporation is not built yet")

    def process_merge(self, action, corp: Corporation) -> None:
        raise GameError("merging corporations is not built yet")

    def process_pass(self, action, corp: Corporation) -> None:
        self.passed = True

    def legal(self, corp) -> list[dict]:
        return [self.action(corp, "pass")] if self.actions(corp) else []


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
