"""1817's operating round: corporations in share-price order (those in the liquidation zone skipped), each
laying a free tile and a $20 yellow one, placing a station, running, paying out (in full, half, or not),
buying trains, then paying interest on its loans and repaying loans. Loans may be taken at any time in the
turn; one taken after the interest is paid can't be repaid in the same turn. A corporation that ends its
turn without a train goes to the liquidation zone.
"""

from __future__ import annotations

from engine.core.autoroute import RouteRules
from engine.core.entities import Company, Corporation
from engine.core.errors import Either, GameError, Phrase
from engine.core.rounds import OperatingRound
from engine.core.steps import Step
from engine.core.steps.operating import BuyTrain, Dividend, SpecialTrack, Track, corp_turn

MINE_COMPANIES = ("MINC", "CM", "MAJC")
RANCH_COMPANIES = ("P22", "P23")  # the Volatility expansion's ranches
MINE, RANCH, BRIDGE = "mine", "ranch", "bridge"
TRACK_MARKERS = (MINE, RANCH)  # a route through one of these earns $10 more; the tile is never upgraded
MARKER_BONUS = 10  # a route through a mine or ranch, or stopping at a bridged city, earns $10 more


def route_bonus(hexmap, corp: str, route: dict, revenue: int) -> int:
    """$10 for each mine or ranch the route passes through, $10 for each of its stops on a bridged city."""
    marked = hexmap.assignments
    hexes = {p.tile.hex.coord for p in route["paths"] if p.tile.hex is not None}
    mines = sum(1 for coord in hexes for m in TRACK_MARKERS if m in marked.get(coord, ()))
    bridges = sum(1 for coord in route["hexes"] if BRIDGE in marked.get(coord, ()))
    return revenue + MARKER_BONUS * (mines + bridges)


MODERN_TRAIN_BONUS = {7: 10, 8: 20}  # modern trains: 7- and 8-trains earn this per station of theirs on the route


def modern_bonus(node, corp: str, distance) -> int:
    """With the modern trains, what a 7- or 8-train earns more at a stop: $10 or $20 at a city where its
    corporation has a station."""
    bonus = MODERN_TRAIN_BONUS.get(distance, 0) if isinstance(distance, int) else 0
    return bonus if bonus and node.is_city and node.tokened_by(corp) else 0


class RouteRules1817(RouteRules):
    """The route finder's view of the bonuses (the same as `route_bonus`): a bridged city adds to the value of
    each stop there, a mine to a route whose track runs through it; so a run's value still adds up as the
    search walks."""

    @property
    def simple_values(self) -> bool:
        return True

    def stop_value(self, node, train) -> int:
        bridged = BRIDGE in self.hexmap.assignments.get(node.tile.hex.coord, ())
        modern = modern_bonus(node, self.sym, train.distance) if self.game.modern_trains else 0
        return super().stop_value(node, train) + (MARKER_BONUS if bridged else 0) + modern

    def track_bonuses(self) -> dict[str, int]:
        return {coord: MARKER_BONUS * sum(m in marks for m in TRACK_MARKERS)
                for coord, marks in self.hexmap.assignments.items() if any(m in marks for m in TRACK_MARKERS)}

    def route_value(self, stops, paths, train) -> int:
        hexes = {p.tile.hex.coord for p in paths if p.tile.hex is not None}
        return sum(self.stop_value(s, train) for s in stops) + sum(self.track_bonuses().get(h, 0) for h in hexes)


class OperatingRound1817(OperatingRound):
    passes_set_off = True  # a pass may end buying trains (interest due) or the turn (no train: liquidation zone)

    def start(self) -> None:
        self.interest_paid: set[str] = set()
        self.cash_crisis_player = None  # whose debtors settle first: the president of the operator
        super().start()

    def start_operating(self) -> None:
        if self.game.in_liquidation(self.current_entity):
            self.next_entity()
            return
        super().start_operating()

    def after_process(self, action, entity) -> None:
        corp = self.current_operator()
        if corp is not None and not corp.closed:
            self.cash_crisis_player = corp.owner or self.cash_crisis_player
            self.pay_interest(corp)
            if self.active_step() is None and not corp.trains:
                self.game.liquidate(corp, "no_train")
        super().after_process(action, entity)

    def pay_interest(self, corp: Corporation) -> None:
        """Once the corporation is done buying trains it pays its interest, taking loans for it if it must;
        if it still can't, it goes to the liquidation zone and its president pays."""
        if corp.sym in self.interest_paid or not self.step_of(BuyTrain).passed:
            return
        self.interest_paid.add(corp.sym)
        loans, due = corp.loans, self.game.interest_owed(corp)
        owed = self.game.pay_interest(corp)
        if due:
            self.game.outcomes.append({"event": "interest", "corporation": corp.sym, "amount": self.game.interest_owed(corp),
                                       "unpaid": owed, "borrowed": corp.loans - loans})
        self.blocking_cache.clear()
        if owed:
            self.game.interest_default(corp, owed)

    def step_of(self, kind: type):
        return next(s for s in self.steps if isinstance(s, kind))


class Loan(Step):
    """Loans during the turn; after the interest is paid, repaying them (as long as no loan was taken
    since): the step then waits for the corporation to repay or pass."""

    description = Phrase("repay or take loans, or pass")

    def setup(self) -> None:
        self.borrowed_after_interest = False

    @property
    def blocks(self) -> bool:
        corp = self.round.current_entity
        return isinstance(corp, Corporation) and self.interest_paid(corp) and \
            (self.can_repay(corp) or self.game.can_take_loan(corp))

    def interest_paid(self, corp: Corporation) -> bool:
        return corp.sym in self.round.interest_paid

    def can_repay(self, corp: Corporation) -> bool:
        return self.interest_paid(corp) and corp.loans > 0 and corp.cash >= self.game.loan_bank.value \
            and not self.borrowed_after_interest

    def actions(self, entity) -> tuple[str, ...]:
        if not corp_turn(self, entity) or not isinstance(entity, Corporation):
            return ()
        acts = []
        if self.can_repay(entity):
            acts.append("payoff_loan")
        if self.game.can_take_loan(entity):
            acts.append("take_loan")
        if self.blocks:
            acts.append("pass")
        return tuple(acts)

    def process_take_loan(self, action, corp: Corporation) -> None:
        if self.interest_paid(corp):
            self.borrowed_after_interest = True
        self.game.take_loan(corp)

    def process_payoff_loan(self, action, corp: Corporation) -> None:
        if not self.can_repay(corp):
            raise GameError("{corporation} can't repay a loan now", corporation=corp.sym)
        self.game.repay_loan(corp)

    def process_pass(self, action, corp: Corporation) -> None:
        self.passed = True

    def why_not(self, entity, action) -> GameError | None:
        if action.type == "take_loan" and isinstance(entity, Corporation) and corp_turn(self, entity):
            if entity.loans >= self.game.max_loans(entity):
                return GameError("{entity} owes {loans} loans, as many as it has shares",
                                 entity=entity.sym, loans=entity.loans)
            if not self.game.loan_bank.left:
                return GameError("the bank has no loans left")
        return None

    def legal(self, corp) -> list[dict]:
        acts = self.actions(corp)
        out = []
        if "payoff_loan" in acts:
            out.append(self.action(corp, "payoff_loan", loan=self.game.loan_bank.taken - 1))
        if "take_loan" in acts:
            out.append(self.action(corp, "take_loan", loan=self.game.loan_bank.taken))
        if "pass" in acts:
            out.append(self.action(corp, "pass"))
        return out


def terrains(hex_) -> list[str]:
    """The terrain a lay on the hex builds over (its tile's upgrade costs)."""
    return [t for u in hex_.tile.upgrades for t in u.get("terrains", ())]


class Track1817(Track):
    """Mines and ranches are never upgraded; the bridge companies pay the water; the Mountain Engineers earn
    $20 for each mountain their corporation builds on; any other tile on Pittsburgh closes the Pittsburgh
    Steel Mill."""

    def funds(self, operator) -> int:
        return self.game.buying_power(operator)

    def lay_refusal(self, lay: dict | None, hex_) -> GameError | None:
        marks = self.game.hexmap.assignments.get(hex_.coord, ())
        if MINE in marks:
            return GameError("a mine is never upgraded")
        if RANCH in marks:
            return GameError("a ranch is never upgraded")
        return super().lay_refusal(lay, hex_)

    def lay_cost(self, lay: dict, hex_, terrain_cost: int) -> int:
        corp = self.round.current_entity
        return super().lay_cost(lay, hex_, terrain_cost - self.game.terrain_discount(corp, hex_, terrain_cost))

    def process_lay_tile(self, action, corp: Corporation) -> None:
        self.built_on = terrains(self.game.hexmap.hex(action.hex))
        super().process_lay_tile(action, corp)

    def after_lay(self, action, operator) -> None:
        """The Mountain Engineers' income comes before it is known whether another lay can be paid. An
        ordinary tile on Pittsburgh leaves the Pittsburgh Steel Mill open, though it can no longer be used
        (18xx.games means to close it then, but its check never matches: docs/1817.md)."""
        self.game.after_lay_1817(operator, action.hex, self.built_on)


class SpecialTrack1817(SpecialTrack):
    """The coal mines lay a yellow tile on a mountain next to a city as the corporation's tile lay of the
    turn (the mountain paid by the mine), reached by the corporation and with track towards a neighbouring
    city, town or off-board: the hex becomes a mine. The Pittsburgh Steel Mill lays its B-city tile on
    Pittsburgh, without a connection, as the turn's lay."""

    def abilities(self, company) -> dict | None:
        ability = super().abilities(company)
        if ability is not None and ability.get("consume_tile_lay") and self.track().tile_lay(company.owner) is None:
            return None
        return ability

    def track(self) -> Track1817:
        return next(s for s in self.round.steps if isinstance(s, Track1817))

    def lay_cost(self, company: Company, ability: dict, coord: str, terrain: int) -> int:
        track = self.track()
        corp = company.owner
        return track.lay_cost(track.tile_lay(corp), self.game.hexmap.hex(coord),
                              terrain - min(terrain, ability.get("discount", 0)))

    def refusal(self, company: Company, ability: dict, coord: str, tile_id: str, rotation: int) -> GameError | None:
        """Why the private can't make this lay now (None: it can), else its cost is affordable."""
        game = self.game
        corp = company.owner
        track = self.track()
        if coord not in ability.get("hexes", [coord]):
            return GameError("{company} can only lay track on {hexes}", company=company.sym,
                             hexes=', '.join(ability['hexes']))
        hex_ = game.hexmap.hex(coord)
        why = track.lay_refusal(track.tile_lay(corp), hex_)
        if why:
            return GameError("{company} can't lay on {coord}: {reason}", company=company.sym, coord=coord,
                             reason=why)
        if company.sym in RANCH_COMPANIES and any(n.tile.label == "B" for n in hex_.neighbors.values()):
            return GameError("a ranch is never next to a B city")
        if company.sym in MINE_COMPANIES and not self.faces_a_stop(hex_, tile_id, rotation):
            return GameError("a mine's track must lead towards a neighbouring city, town or off-board")
        if company.sym in RANCH_COMPANIES and not self.faces_a_stop(hex_, tile_id, rotation):
            return GameError("a ranch's track must lead towards a neighbouring city, town or off-board")
        return None

    def faces_a_stop(self, hex_, tile_id: str, rotation: int) -> bool:
        """An exit of the tile leads to a neighbour with a city, town or off-board that has track back or
        may still be upgraded to have it."""
        tile = self.game.hexmap.tile(tile_id)
        for edge in tile.shape(rotation).exits:
            other = hex_.neighbors.get(edge)
            if other is None or not (other.tile.cities or other.tile.towns or other.tile.offboards):
                continue
            if (edge + 3) % 6 in other.tile.exits or other.tile.upgrades_to:
                return True
        return False

    def check(self, company: Company, ability: dict, coord: str, tile_id: str, rotation: int) -> int:
        """The cost of the lay, or GameError why it can't be made."""
        game = self.game
        corp = company.owner
        why = self.refusal(company, ability, coord, tile_id, rotation)
        if why:
            raise why
        terrain = game.hexmap.check_lay(corp.sym, coord, tile_id, rotation, colors=game.phase.tiles,
                                        blocked=game.blocking_privates(),
                                        need_connection=company is not game.city_tile_private(),
                                        tiles_allowed=set(ability.get("tiles", [])) or None, special=True)
        cost = self.lay_cost(company, ability, coord, terrain)
        if cost > corp.cash:
            raise GameError("{corporation} has {cash} and can't pay {cost} to lay on {coord}",
                            corporation=corp.sym, cash=game.fmt(corp.cash), cost=game.fmt(cost), coord=coord)
        return cost

    def process_lay_tile(self, action, company: Company) -> None:
        ability = self.abilities(company)
        if ability is None or not ability.get("consume_tile_lay"):
            super().process_lay_tile(action, company)
            return
        game = self.game
        corp = company.owner
        track = self.track()
        hex_ = game.hexmap.hex(action.hex)
        cost = self.check(company, ability, action.hex, action.tile, action.rotation)
        built_on = terrains(hex_)
        upgrade = track.is_upgrade(hex_)
        game.lay_tile(corp, action.hex, action.tile, action.rotation, cost)
        self.round.num_laid_track += 1
        track.upgraded = track.upgraded or upgrade
        track.laid_hexes.append(action.hex)
        game.use_ability(company, ability)
        if company.sym in MINE_COMPANIES:
            game.hexmap.assignments.setdefault(action.hex, set()).add(MINE)
        elif company.sym in RANCH_COMPANIES:
            game.hexmap.assignments.setdefault(action.hex, set()).add(RANCH)
        elif company is game.city_tile_private():  # its B city clears the ranches around it
            for other in hex_.neighbors.values():
                game.hexmap.assignments.get(other.coord, set()).discard(RANCH)
        game.after_lay_1817(corp, action.hex, built_on)
        if ability.get("closed_when_used_up") and game.ability_used(company, ability):
            game.close_company(company)
        if not track.can_lay(corp):
            track.passed = True

    def legal(self, entity) -> list[dict]:
        game = self.game
        out = []
        for company, ability in self.player_abilities(entity):
            if not ability.get("consume_tile_lay"):
                continue
            corp = company.owner
            for coord, tile_id, rotation, terrain in game.hexmap.legal_lays(
                    corp.sym, colors=game.phase.tiles, blocked=game.blocking_privates(),
                    need_connection=company is not game.city_tile_private(), special=True, priced=True,
                    tiles_allowed=set(ability.get("tiles", [])) or None, hexes=ability.get("hexes")):
                if self.refusal(company, ability, coord, tile_id, rotation) is None and \
                        self.lay_cost(company, ability, coord, terrain) <= corp.cash:
                    out.append(self.action(company, "lay_tile", hex=coord, tile=tile_id, rotation=rotation))
        return out


class Bridge(Step):
    """The Ohio and Union Bridge companies put their bridges on Louisville, Cincinnati or Charleston, one
    bridge to a city, at any time in their corporation's turn."""

    blocks = False
    for_companies = True

    def ability(self, company) -> dict | None:
        if not isinstance(company, Company):
            return None
        found = self.game.usable_abilities(company, ("assign_hexes",))
        return found[0] if found else None

    def free_hexes(self, ability: dict) -> list[str]:
        marked = self.game.hexmap.assignments
        return [h for h in ability["hexes"] if BRIDGE not in marked.get(h, ())]

    def actions(self, entity) -> tuple[str, ...]:
        ability = self.ability(entity)
        return ("assign",) if ability and self.free_hexes(ability) else ()

    def process_assign(self, action, company: Company) -> None:
        ability = self.ability(company)
        if action.target not in ability["hexes"]:
            raise GameError("{company} builds its bridge on {hexes}", company=company.sym,
                            hexes=Either(ability['hexes']))
        if action.target not in self.free_hexes(ability):
            raise GameError("{target} already has a bridge", target=action.target)
        self.game.hexmap.assignments.setdefault(action.target, set()).add(BRIDGE)
        self.game.use_ability(company, ability)

    def legal(self, entity) -> list[dict]:
        out = []
        for company in self.game.companies:
            ability = self.ability(company)
            if ability and self.game.player_of(company) is self.game.player_of(entity):
                out.extend(self.action(company, "assign", target=h, target_type="hex")
                           for h in self.free_hexes(ability))
        return out


class Dividend1817(Dividend):
    """Pay out, pay half (the corporation keeps half, rounded down to a multiple of its share count), or
    withhold; the price moves by what the shareholders receive against the share price."""

    KINDS = ("payout", "half", "withhold")

    def process_dividend(self, action, corp: Corporation) -> None:
        if action.kind not in self.KINDS:
            raise GameError("{corporation} can pay out, pay half or withhold, not {kind}",
                            corporation=corp.sym, kind=action.kind)
        self.game.pay_dividend(corp, self.round.revenue, action.kind)
        self.passed = True

    def legal(self, corp) -> list[dict]:
        return [self.action(corp, "dividend", kind=k) for k in self.KINDS]


class BuyTrain1817(BuyTrain):
    """No corporation must buy a train (MUST_BUY_TRAIN never: one without a train at the end of its turn is
    liquidated), and none buys from a corporation in the liquidation zone."""

    def other_trains(self, corp: Corporation) -> list:
        return [t for t in super().other_trains(corp) if not self.game.in_liquidation(t.owner)]

    def can_buy(self, corp: Corporation) -> bool:
        """Room for a train, and one on sale within what the corporation could raise with loans. As on
        18xx.games, the trains of corporations in the liquidation zone, or liquidated by the bank and not yet
        rusted, count as on sale at $1 here, though they can't be bought."""
        game = self.game
        sold = game.depot.sold_names
        orphans = [t for t in game.orphan_trains
                   if not any(t.rusts_on_name(n) for n in sold) and t.obsolete_on not in sold]
        others = super().other_trains(corp) + orphans
        prices = [t.price for t in self.depot_trains()] + [1 for _ in others]
        return self.room(corp) and bool(prices) and min(prices) <= game.buying_power(corp)
