"""Game effects of the operating round shared by every title: track, stations, runs, dividends."""

from __future__ import annotations

from engine.core.entities import Company, Corporation, Player
from engine.core.errors import GameError


class OperatingMixin:
    """Operating-round effects shared by every title: track, stations, runs, dividends, bankruptcy."""

    def par_cell(self, share_price: str):
        cell = self.market.cells.get(share_price)
        if cell is None or cell not in self.market.par_prices:
            prices = ", ".join(self.fmt(c.price) for c in self.market.par_prices)
            raise GameError(f"{share_price} is not a par price; choose one of {prices}")
        return cell

    def home_hexes(self, corp: Corporation) -> list[str]:
        return [corp.home] if isinstance(corp.home, str) else list(corp.home or [])

    def place_home_token(self, corp: Corporation) -> None:
        """The free home station at the start of a corporation's first turn.

        When the home hex has several cities and track already decides between them, the corporation
        chooses: the token waits in the map's pending tokens (1830 Erie on E11).
        """
        if not corp.token_prices or corp.token_used[0]:
            return
        for coord in self.home_hexes(corp):
            try:
                self.hexmap.place_home_token(corp.sym, coord, corp.home_city)
                corp.tokens_used += 1
            except GameError:
                self.hexmap.pending_tokens.append((corp.sym, coord))

    def lay_tile(self, corp: Corporation, coord: str, tile_id: str, rotation: int, cost: int) -> None:
        if cost:
            self.transfer(corp, self.bank, cost)
        # a station the new tile can't carry over goes back to its charter until it is placed again
        for sym, _ in self.hexmap.lay(coord, tile_id, rotation):
            self.corporation_by_sym[sym].tokens_used -= 1

    def place_token(self, corp: Corporation, city_id: str, slot: int, price: int) -> None:
        if price:
            self.transfer(corp, self.bank, price)
        self.hexmap.place_token(corp.sym, city_id, slot)
        corp.tokens_used += 1

    def route_available(self, corp: Corporation) -> bool:
        return len(self.hexmap.reachable_nodes(corp.sym)) >= 2

    def route_revenues(self, corp: Corporation, specs: list[dict]) -> list[int]:
        return self.hexmap.route_revenue(corp.sym, specs, self.phase.tiles)

    def best_routes(self, corp: Corporation) -> list[dict] | None:
        """The best run for the corporation's trains, in run_routes format (None: not available)."""
        try:
            from engine.core.autoroute import best_routes
        except ImportError:
            return None
        return best_routes(self, corp)

    def pay_dividend(self, corp: Corporation, revenue: int, kind: str) -> None:
        corp.last_revenue = revenue
        corp.operated = True  # it has an operating record once its revenue is decided
        self.rust_obsolete(corp)
        if kind == "payout":
            self.payout(corp, revenue)
            if revenue > 0:
                self.market.move_right(corp)
            else:
                self.market.move_left(corp)
        else:
            if revenue:
                self.transfer(self.bank, corp, revenue)
            self.market.move_left(corp)

    def rust_obsolete(self, operator) -> None:
        """Obsolete trains run one last time: they go once the operator's revenue is decided."""
        for train in [t for t in operator.trains if t.obsolete]:
            operator.trains.remove(train)
            train.owner = None
            train.rusted = True

    # abilities with a limited number of uses
    def ability_used(self, company: Company, ability: dict) -> bool:
        count = ability.get("count")
        return count is not None and self._ability_uses.get((company.sym, ability["type"]), 0) >= count

    def use_ability(self, company: Company, ability: dict) -> None:
        key = (company.sym, ability["type"])
        self._ability_uses[key] = self._ability_uses.get(key, 0) + 1

    def bankrupt(self, player: Player, corp: Corporation) -> None:
        """The president can't pay for a required train: sell what the market takes, give up the cash."""
        for sym in list(player.shares_by_corp):
            other = self.corporation_by_sym[sym]
            bundles = [(s, p) for s, p in self.sellable_bundles(player, other)
                       if self.fits_in_pool(other, p) and self.can_dump(player, other, s)]
            if bundles:
                shares, percent = max(bundles, key=lambda b: b[1])
                self.sell_shares(player, shares, percent)
        if player.cash:
            self.transfer(player, self.bank, player.cash)
        player.bankrupt = True
