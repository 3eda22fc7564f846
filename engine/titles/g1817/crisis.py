"""1817's cash crisis: a player who owes more than they have (interest or debts of a corporation they
preside, a short's dividend or settlement) sells shares, only as many as needed, until their cash is no
longer negative; one who can't, or won't, goes bankrupt.

Bankruptcy: the player sells what the crisis still allows, the rest of their certificates go to the market (the
presidency stays with nobody: each corporation they presided goes to the liquidation zone), the bank
forgives what they still owe, and the game goes on without them, with the certificate limit of the
players left.
"""

from __future__ import annotations

from engine.core.entities import Corporation, Player, Share
from engine.core.errors import GameError, Phrase
from engine.core.steps import Step


class CashCrisis(Step):
    description = Phrase("sell shares to pay what you owe, or go bankrupt")

    def active_entities(self) -> list:
        start = getattr(self.round, "cash_crisis_player", None)
        if start is None:
            return []
        players = self.game.players
        i = players.index(start)
        debtor = next((p for p in players[i:] + players[:i] if p.cash < 0 and not p.bankrupt), None)
        return [debtor] if debtor else []

    def actions(self, entity) -> tuple[str, ...]:
        if entity not in self.active_entities():
            return ()
        return ("sell_shares", "bankrupt") if self.sales(entity) else ("bankrupt",)

    def skip(self) -> None:
        """Waits for the next crisis."""

    def turn_facts(self, entity) -> dict:
        """What the player in a cash crisis owes (their cash below zero)."""
        return {"owes": -entity.cash} if isinstance(entity, Player) and entity.cash < 0 else {}

    def done(self) -> bool:
        return not self.active_entities()

    def sales(self, player: Player) -> list[tuple[list[Share], int]]:
        """(certificates, percent) the player may sell now: within the market and presidency rules (a
        sale may not hand over a presidency), of corporations in the normal zone, and no more than needed:
        without its cheapest certificate the sale would not cover the debt."""
        game = self.game
        owed = -player.cash
        out = []
        for corp in game.corporations:
            # 18xx.games allows a sale of any corporation during an operating round, else once it has operated
            if not player.shares_of(corp) or not (corp.operated or game.round.operating) or \
                    not game.in_normal_zone(corp):
                continue
            for shares, percent in game.sellable_bundles(player, corp):
                if not game.fits_in_pool(corp, percent) or not game.can_dump(player, corp, shares) or \
                        game.keeps_presidency_without_certificate(player, corp, shares, percent):
                    continue
                if corp.owner is player and self.hands_over_presidency(player, corp, percent):
                    continue
                smallest = min(game.certificate_price(s, corp.share_price.price) for s in shares)
                if game.bundle_price(corp, percent) - smallest < owed:
                    out.append((shares, percent))
        return out

    def hands_over_presidency(self, player: Player, corp: Corporation, percent: int) -> bool:
        percents = self.game.player_percents(corp)
        others = [v for p, v in percents.items() if p is not player]
        return percents.get(player, 0) - percent < max(others, default=0)

    def process_sell_shares(self, action, player: Player) -> None:
        game = self.game
        shares = [game.share(sid) for sid in action.shares]
        percent = action.percent if action.percent is not None else sum(s.percent for s in shares)
        if not any(set(map(id, shares)) == set(map(id, bundle)) and pct == percent
                   for bundle, pct in self.sales(player)):
            raise GameError("{player} can't sell {percent}% of {corporation} now: only what the market and "
                            "presidency rules allow, and no more than needed", player=player.name,
                            percent=percent, corporation=shares[0].corporation.sym)
        game.sell_shares(player, shares, percent)

    def process_bankrupt(self, action, player: Player) -> None:
        """The player first sells what the crisis still allows, the largest such sale of each corporation in
        operating order (so no sale hands over a presidency, nor sells more than the debt needs)."""
        game = self.game
        for corp in sorted((c for c in game.corporations if player.shares_of(c) and c.share_price),
                           key=game.operating_sort_key):
            bundles = [(shares, pct) for shares, pct in self.sales(player) if shares[0].corporation is corp]
            if bundles:
                shares, percent = max(bundles, key=lambda b: game.bundle_price(corp, b[1]))
                game.sell_shares(player, shares, percent)
        game.go_bankrupt(player)

    def legal(self, player) -> list[dict]:
        out = [self.action(player, "sell_shares", shares=[s.id for s in shares], percent=percent)
               for shares, percent in self.sales(player)] if "sell_shares" in self.actions(player) else []
        return out + ([self.action(player, "bankrupt")] if self.actions(player) else [])
