"""Game effects of the operating round shared by every title: track, stations, runs, dividends."""

from __future__ import annotations

from contextlib import contextmanager

from engine.core.entities import Company, Corporation, Player
from engine.core.errors import GameError


class OperatingMixin:
    """Operating-round effects shared by every title: track, stations, runs, dividends, bankruptcy."""

    # 18xx.games keeps what it found of a corporation's stations' reach from one tile or station laid (anywhere)
    # to the next. A title whose stations may come off the map in between without it looking again (18MEX:
    # minors closing, a merger; 1817: the bank liquidating a corporation) sets this: a corporation that looked
    # for a station site since the last tile or station keeps that finding until the next one, and, when it
    # found none, what its stations reached then (the city freed is no station site for it, and track beyond
    # it not yet its to build on). Such removals happen inside `findings_kept()`.
    KEEPS_FINDINGS_THROUGH_REMOVALS = False

    def reaches_station(self, corp: Corporation) -> bool:
        """Whether the corporation reaches a city with room for its station (as first found since the last
        tile or station, where the title keeps findings)."""
        if not self.KEEPS_FINDINGS_THROUGH_REMOVALS:
            return bool(self.hexmap.legal_tokens(corp.sym))
        found = self.station_findings.get(corp.sym)
        if found is None or found[0] != self.track_or_station_count:
            found = (self.track_or_station_count, bool(self.hexmap.legal_tokens(corp.sym)))
            self.station_findings[corp.sym] = found
        return found[1]

    def findings_renewed(self) -> None:
        """A tile or station laid anywhere (or stations moved to another corporation): every finding is made
        afresh when next needed."""
        self.track_or_station_count += 1
        if self.walks_kept_since_lay:
            self.hexmap.forget_walks(self.walks_kept_since_lay)
            self.walks_kept_since_lay.clear()

    def note_graphs_looked(self, entity) -> None:
        """18xx.games has looked at the map for the corporation that acted in an operating round and for the
        one to act now (their steps ask what their stations reach); a title keeping findings keeps that
        through stations taken off the map."""
        if self.KEEPS_FINDINGS_THROUGH_REMOVALS and self.round.operating:
            for corp in (entity, *self.round.active_entities()[:1]):
                if isinstance(corp, Corporation):
                    self.graphs_looked[corp.sym] = self.track_or_station_count

    @contextmanager
    def findings_kept(self):
        """Stations taken off the map in this block leave the corporations that found no station site since
        the last tile or station (and those whose map the title says was looked at since, `graphs_looked`)
        with what their stations reached then."""
        if not self.KEEPS_FINDINGS_THROUGH_REMOVALS:
            yield
            return
        n = self.track_or_station_count
        kept = [sym for sym, (count, found) in self.station_findings.items() if count == n and not found]
        kept += [sym for sym, count in self.graphs_looked.items() if count == n and sym not in kept]
        self.walks_kept_since_lay.update(kept)
        with self.hexmap.walks_kept(kept):
            yield

    def par_cell(self, share_price: str):
        cell = self.market.cells.get(share_price)
        if cell is None or cell not in self.market.par_prices:
            prices = ", ".join(self.fmt(c.price) for c in self.market.par_prices)
            raise GameError("{share_price} is not a par price; choose one of {prices}",
                            share_price=share_price, prices=prices)
        return cell

    def home_hexes(self, corp: Corporation) -> list[str]:
        return [corp.home] if isinstance(corp.home, str) else list(corp.home or [])

    def place_home_token(self, corp: Corporation) -> None:
        """The free home station at the start of a corporation's first turn.

        When the home hex has several cities and track already decides between them, the corporation
        chooses: the token waits in the map's pending tokens (1830 Erie on E11). Each is told (`outcomes`,
        `home_station`: the hex, and whether the corporation still chooses the city).
        """
        if not corp.token_prices or corp.token_used[0]:
            return
        for coord in self.home_hexes(corp):
            try:
                # the city its reservation is on (it moves with upgrades), else the first
                self.hexmap.place_home_token(corp.sym, coord, None)
                corp.tokens_used += 1
                chooses = False
            except GameError:
                self.hexmap.pending_tokens.append((corp.sym, coord))
                chooses = True
            # told (a user interface previews it: a stock round's end starting the first operator's turn)
            self.outcomes.append({"event": "home_station", "corporation": corp.sym, "hex": coord, "chooses": chooses})

    def lay_tile(self, corp: Corporation, coord: str, tile_id: str, rotation: int, cost: int) -> None:
        if cost:
            self.transfer(corp, self.bank, cost)
        old_tokens = [list(c.tokens) for c in self.hexmap.hex(coord).tile.cities]
        displaced = self.hexmap.lay(coord, tile_id, rotation)
        if (corp.sym, coord) in displaced and corp.sym not in self._routes_found:
            # 18xx.games checks the new track while the stations it takes off still stand in the new
            # tile's cities of the same index: a route the layer has then counts from now on
            new_cities = self.hexmap.hex(coord).tile.cities
            stations = [(new_cities[i], slot, sym) for i, tokens in enumerate(old_tokens) if i < len(new_cities)
                        for slot, sym in enumerate(tokens) if sym and slot < new_cities[i].slots]
            if self.hexmap.route_available(corp.sym, stations):
                self._routes_found.add(corp.sym)
        # a station the new tile can't carry over goes back to its charter until it is placed again
        for sym, _ in displaced:
            self.corporation_by_sym[sym].tokens_used -= 1
            # the corporation that laid the tile chooses the city each displaced station goes to
            self.token_placers[(sym, coord)] = corp.sym
        self.findings_renewed()

    def forget_route(self, corp: Corporation) -> None:
        """The corporation lost stations (1817: a merger, or it was started afresh): look for its route again."""
        self._routes_found.discard(corp.sym)

    def place_token(self, corp: Corporation, city_id: str, slot: int, price: int) -> None:
        """The corporation's next station from its charter, for `price` (a private's station is free)."""
        if price:
            self.transfer(corp, self.bank, price)
        self.hexmap.place_token(corp.sym, city_id, slot)
        corp.tokens_used += 1
        self.findings_renewed()

    def route_available(self, corp: Corporation) -> bool:
        # once a corporation has a route it keeps one (track is never taken away; a title that takes stations
        # away says so with `forget_route`)
        if corp.sym in self._routes_found:
            return True
        if self.hexmap.route_available(corp.sym):
            self._routes_found.add(corp.sym)
            return True
        return False

    def route_revenues(self, corp: Corporation, specs: list[dict]) -> list[int]:
        return self.hexmap.route_revenue(corp.sym, specs, self.phase.tiles)

    def run_results(self, corp: Corporation, routes: list[dict]) -> list[tuple[int, int]]:
        """(revenue, subsidy) of each route of a run in run_routes form ("train" is a train id), checked:
        GameError says why a route may not run (a title with subsidies, 1860, overrides this)."""
        specs = []
        seen: set = set()
        by_id = {t.id: t for t in corp.trains}
        for route in routes:
            tid = route.get("train")
            train = by_id.get(tid)
            if train is None:
                raise GameError("{corporation} doesn't own train {train}", corporation=corp.sym, train=tid)
            if train.operated or tid in seen:
                raise GameError("train {train} has already run this operating round", train=tid)
            seen.add(tid)
            specs.append({"train_name": train.name, "train_id": tid, "distance": train.distance,
                          "multiplier": train.multiplier,
                          "connections": route.get("connections") or [], "nodes": route.get("nodes"),
                          "revenue": route.get("revenue")})
        return [(revenue, 0) for revenue in (self.route_revenues(corp, specs) if specs else [])]

    def may_run_nothing(self, corp: Corporation) -> bool:
        """Whether the corporation may leave all its trains idle (1860: not while it has a route)."""
        return True

    def best_routes(self, corp: Corporation) -> list[dict] | None:
        """The best run for the corporation's trains, in run_routes format (None: not available)."""
        try:
            from engine.core.autoroute import best_routes
        except ImportError:
            return None
        return best_routes(self, corp)

    def revenue_decided(self, operator) -> None:
        """Once its revenue is decided an operator has an operating record, all its trains count as run in
        this operating round (idle ones too, as on 18xx.games: sold on, they don't run again in it), and
        its obsolete trains go."""
        operator.operated = True
        for train in operator.trains:
            train.operated = True
        self.rust_obsolete(operator)

    def pay_dividend(self, corp: Corporation, revenue: int, kind: str) -> None:
        corp.last_revenue = revenue
        self.revenue_decided(corp)
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

    # abilities: used up after their count of uses, or removed (a teleport once its station is settled)
    def ability_live(self, company: Company, ability: dict) -> bool:
        if company.closed or (company.sym, ability["type"]) in self._removed_abilities:
            return False
        return not self.ability_used(company, ability)

    def station_power_refusal(self, company: Company, turn_of=None) -> GameError | None:
        """Why a private's station (a station or teleport power) can't be placed, by the first thing in the way:
        no such power left, no corporation owning it, not that corporation's turn (`turn_of`: the operator
        whose turn it is; None outside an operating round, as in a stock round); None if nothing of these."""
        ability = next((a for a in company.abilities if a["type"] in ("teleport", "token")), None)
        if ability is None or company.closed or not self.ability_live(company, ability):
            return GameError("{company} has no station to place", company=company.sym)
        corp = company.owner
        if not isinstance(corp, Corporation):
            return GameError("{company}'s station is placed by a corporation that owns it", company=company.sym)
        if turn_of is None:
            return GameError("{company}'s station is placed in {corporation}'s turn of an operating round",
                             company=company.sym, corporation=corp.sym)
        if corp is not turn_of:
            return GameError("{company}'s station is placed in {corporation}'s turn", company=company.sym,
                             corporation=corp.sym)
        return None

    def ability_used(self, company: Company, ability: dict) -> bool:
        """Used up: as many uses as its count."""
        count = ability.get("count")
        return count is not None and self.ability_uses(company, ability) >= count

    def ability_uses(self, company: Company, ability: dict) -> int:
        return self._ability_uses.get((company.sym, ability["type"]), 0)

    def use_ability(self, company: Company, ability: dict) -> None:
        key = (company.sym, ability["type"])
        self._ability_uses[key] = self._ability_uses.get(key, 0) + 1

    def usable_abilities(self, company: Company, kinds: tuple[str, ...], times: tuple[str, ...] | None = None,
                         passive_ok: bool = True) -> list[dict]:
        from engine.core.abilities import usable

        return [a for a in company.abilities if a["type"] in kinds and usable(self, company, a, times, passive_ok)]

    def has_active_abilities(self, corp: Corporation) -> bool:
        """The corporation owns a private with an ability it may use now (not a passive one)."""
        from engine.core.abilities import usable

        return any(usable(self, c, a, passive_ok=False) for c in corp.companies for a in c.abilities)

    def bankrupt(self, player: Player, corp: Corporation, sale_ok=None) -> None:
        """The president goes bankrupt: in operating order, they sell the largest bundles still allowed
        (`sale_ok(corp, shares, percent)`; none when None) until none is, then give their cash to the bank."""
        holdings = sorted((c for c in self.corporations if player.shares_of(c) and c.share_price),
                          key=self.operating_sort_key)
        if sale_ok is not None:
            for other in holdings:
                while True:
                    bundles = [(s, p) for s, p in self.sellable_bundles(player, other) if sale_ok(corp, s, p)]
                    if not bundles:
                        break
                    shares, percent = max(bundles, key=lambda b: b[1])
                    self.sell_shares(player, shares, percent)
        if player.cash:
            self.transfer(player, self.bank, player.cash)
        player.bankrupt = True
