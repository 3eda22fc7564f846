"""Operating-round steps: track, station tokens, routes, dividends, trains, privates, bankruptcy."""

from __future__ import annotations

from engine.core.abilities import current_step_name
from engine.core.actions import quoted
from engine.core.entities import Company, Corporation, Player
from engine.core.errors import GameError, Phrase
from engine.core.steps import Step
from engine.core.steps.stock import BuySellParShares


def corp_turn(step: Step, entity) -> bool:
    return entity is step.round.current_entity


def priced_lays(game, corp, **options) -> list[tuple[str, str, int, int]]:
    """Legal lays with their terrain cost: (hex, tile, rotation, cost)."""
    blocked = game.blocking_privates()
    return game.hexmap.legal_lays(corp.sym, colors=game.phase.tiles, blocked=blocked, priced=True, **options)


def affordable_lays(game, corp: Corporation, **options) -> list[tuple[str, str, int]]:
    """Legal lays whose terrain cost the corporation can pay."""
    return [(coord, tile, rotation) for coord, tile, rotation, cost in priced_lays(game, corp, **options)
            if cost <= corp.cash]


def free_slots_on_hex(game, corp: Corporation, coord: str) -> list[tuple[str, int]]:
    """(city id, first free slot) of each city on the hex where the corporation may put a station,
    connection aside (home and teleport stations)."""
    out = []
    for city in game.hexmap.hex(coord).tile.cities:
        try:
            out.append((city.id, game.hexmap.check_token(corp.sym, city.id, 0, need_connection=False)))
        except GameError:
            continue
    return out


class HomeToken(Step):
    """A station waiting for its city: a home token to place when the home hex has several cities, or
    stations a tile lay took off a hex of several cities, placed again by the corporation that laid it."""

    description = Phrase("place a station")

    def pending(self):
        pending = self.game.hexmap.pending_tokens
        return pending[0] if pending else None

    def placer(self) -> Corporation | None:
        pending = self.pending()
        if pending is None:
            return None
        return self.game.corporation(self.game.token_placers.get(pending, pending[0]))

    def active_entities(self) -> list:
        placer = self.placer()
        return [placer] if placer else []

    def actions(self, entity) -> tuple[str, ...]:
        return ("place_token",) if entity in self.active_entities() else ()

    def skip(self) -> None:
        """Stays on watch: a later tile lay may displace a station."""

    def process_place_token(self, action, placer: Corporation) -> None:
        game = self.game
        sym, coord = self.pending()
        corp = game.corporation(sym)
        city = game.hexmap.city(action.city)
        if city.tile.hex is None or city.tile.hex.coord != coord:
            raise GameError("{corporation}'s station must go on a city of {coord}", corporation=corp.sym,
                            coord=coord)
        game.hexmap.check_token(corp.sym, action.city, action.slot, need_connection=False)
        game.place_token(corp, action.city, action.slot, price=0)
        game.token_placers.pop((sym, coord), None)

    def legal(self, placer) -> list[dict]:
        game = self.game
        sym, coord = self.pending()
        return [self.action(placer, "place_token", city=city_id, slot=slot)
                for city_id, slot in free_slots_on_hex(game, game.corporation(sym), coord)]


class Track(Step):
    """The operator's tile lays of the turn, as many and of the kinds the title allows (game.tile_lays)."""

    description = Phrase("lay or upgrade a tile, or pass")

    def setup(self) -> None:
        # tile lays made this turn are counted by the round: a private's teleport uses one
        self.round.num_laid_track = 0
        self.upgraded = False
        self.laid_city = False
        self.laid_hexes: list[str] = []

    def tile_lay(self, operator) -> dict | None:
        """The next lay the operator has this turn ({"lay", "upgrade", "cost", "upgrade_cost"}), or None."""
        lays = self.game.tile_lays(operator)
        if self.round.num_laid_track >= len(lays):
            return None
        lay = dict(lays[self.round.num_laid_track])
        for key in ("lay", "upgrade"):
            if lay.get(key) == "not_if_upgraded":
                lay[key] = not self.upgraded
            elif lay.get(key) == "not_if_upgraded_or_city":
                lay[key] = not self.upgraded and not self.laid_city
        lay.setdefault("cost", 0)
        lay.setdefault("upgrade_cost", lay["cost"])
        return lay

    def can_lay(self, operator) -> bool:
        if self.can_buy_tile_laying_company(operator):
            return True  # the step waits while a private that lays track here could still be bought
        lay = self.tile_lay(operator)
        return lay is not None and bool(lay["lay"] or lay["upgrade"]) and bool(operator.token_prices) \
            and self.funds(operator) >= lay["cost"]

    def funds(self, operator) -> int:
        """What the operator could spend on a lay (1817: with the loans it may still take)."""
        return operator.cash

    def can_buy_tile_laying_company(self, operator) -> bool:
        game = self.game
        if "can_buy_companies" not in game.phase.status:
            return False
        return any(c.min_price <= operator.cash and
                   any(a.get("when") == "track" for a in game.abilities(c, "tile_lay", any_owner=True))
                   for c in game.purchasable_companies(operator))

    def actions(self, entity) -> tuple[str, ...]:
        return ("lay_tile", "pass") if corp_turn(self, entity) and self.can_lay(entity) else ()

    def need_connection(self, corp: Corporation, coord: str) -> bool:
        # a station waiting to be placed again on its home hex still connects that hex
        return (corp.sym, coord) not in self.game.hexmap.pending_tokens

    @staticmethod
    def is_upgrade(hex_) -> bool:
        return hex_.tile.color != "white"

    def lay_refusal(self, lay: dict | None, hex_) -> GameError | None:
        """Why this lay's kind (new track or upgrade, the hex) isn't allowed now, if it isn't."""
        if lay is None:
            return GameError("it has no tile lay left this turn")
        if self.is_upgrade(hex_):
            if not lay["upgrade"]:
                return GameError("it can't upgrade a tile now")
            if lay.get("cannot_reuse_same_hex") and hex_.coord in self.laid_hexes:
                return GameError("it has already laid on {coord} this turn", coord=hex_.coord)
        elif not lay["lay"]:
            return GameError("it can't lay new track now")
        return None

    def tile_refusal(self, corp, hex_, tile_id: str, rotation: int, cost: int) -> GameError | None:
        """Why the title forbids this particular lay, if it does (1860: a city tile as a second lay, an
        upgrade no train of the corporation would reach)."""
        return None

    def lay_cost(self, lay: dict, hex_, terrain_cost: int) -> int:
        return terrain_cost + (lay["upgrade_cost"] if self.is_upgrade(hex_) else lay["cost"])

    def follow_up_cost(self, hex_) -> int:
        """What the lay costs beyond its own hex (18MEX: the other half of Mexico City)."""
        return 0

    def process_lay_tile(self, action, corp: Corporation) -> None:
        game = self.game
        hex_ = game.hexmap.hex(action.hex)
        lay = self.tile_lay(corp)
        refusal = self.lay_refusal(lay, hex_)
        if refusal:
            raise GameError("{corporation} can't lay on {hex}: {reason}", corporation=corp.sym,
                            hex=action.hex, reason=refusal)
        terrain = game.hexmap.check_lay(corp.sym, action.hex, action.tile, action.rotation, colors=game.phase.tiles,
                                        blocked=game.blocking_privates(),
                                        need_connection=self.need_connection(corp, action.hex))
        cost = self.lay_cost(lay, hex_, terrain)
        refusal = self.tile_refusal(corp, hex_, action.tile, action.rotation, cost)
        if refusal:
            raise GameError("{corporation} can't lay tile {tile} on {hex}: {reason}", corporation=corp.sym,
                            tile=action.tile, hex=action.hex, reason=refusal)
        if cost + self.follow_up_cost(hex_) > corp.cash:
            total = game.fmt(cost + self.follow_up_cost(hex_), corp)
            raise GameError("{corporation} has {cash} and can't pay {total} to lay on {hex}",
                            corporation=corp.sym, cash=game.fmt(corp.cash, corp), total=total, hex=action.hex)
        upgrade = self.is_upgrade(hex_)
        game.lay_tile(corp, action.hex, action.tile, action.rotation, cost)
        self.round.num_laid_track += 1
        self.upgraded = self.upgraded or upgrade
        self.laid_city = self.laid_city or bool(game.hexmap.hex(action.hex).tile.cities)
        self.laid_hexes.append(action.hex)
        self.after_lay(action, corp)
        if not self.can_lay(corp):
            self.passed = True

    def turn_facts(self, entity) -> dict:
        lay = self.tile_lay(entity)
        return {"tile_lay": {"new_track": bool(lay["lay"]), "upgrade": bool(lay["upgrade"])}} if lay else {}

    def after_lay(self, action, operator) -> None:
        """A title's follow-up to a lay (18MEX: the other half of Mexico City)."""

    def process_pass(self, action, corp) -> None:
        self.passed = True

    def why_not(self, entity, action) -> GameError | None:
        if action.type == "lay_tile" and corp_turn(self, entity) and (self.passed or not self.can_lay(entity)):
            return GameError("{entity} has already laid its track this turn", entity=entity.sym)
        return None

    def legal(self, corp) -> list[dict]:
        return self.lay_actions(corp, priced_lays(self.game, corp)) + [self.action(corp, "pass")]

    def lay_actions(self, corp, lays) -> list[dict]:
        """The lays among `lays` (priced_lays' tuples) that the corporation may make now."""
        game = self.game
        out = []
        lay = self.tile_lay(corp)
        for coord, tile_id, rotation, terrain in lays:
            hex_ = game.hexmap.hex(coord)
            if self.lay_refusal(lay, hex_) is not None:
                continue
            cost = self.lay_cost(lay, hex_, terrain)
            if cost + self.follow_up_cost(hex_) <= corp.cash and \
                    self.tile_refusal(corp, hex_, tile_id, rotation, cost) is None:
                out.append(self.action(corp, "lay_tile", hex=coord, tile=tile_id, rotation=rotation))
        return out


# the moments a private's tile lay may be asked for (18xx.games' special track step), besides the
# current step of the turn
SPECIAL_TRACK_TIMES = ("owning_corp_or_turn", "owning_player_or_turn", "owning_player_track", "or_between_turns",
                       "stock_round")


class SpecialTrack(Step):
    """Tile lays granted by a private, when its ability's timing allows (engine.core.abilities): an extra
    lay (1830 CS, any time in the turn of the corporation that owns it) or a teleport (1830 DH: a tile on
    its hex while its corporation lays track, which is the turn's tile lay and lets a free station
    follow, see SpecialToken)."""

    blocks = False
    for_companies = True

    def setup(self) -> None:
        self.round.num_laid_track = 0

    def abilities(self, company) -> dict | None:
        """The tile lay (or teleport) the private may make now."""
        if not isinstance(company, Company):
            return None
        times = (*SPECIAL_TRACK_TIMES, current_step_name(self.round) or "")
        for kind in ("tile_lay", "teleport"):
            for ability in self.game.usable_abilities(company, (kind,), times):
                if kind != "teleport" or not self.game.ability_uses(company, ability):
                    return ability
        return None

    def payer(self, company: Company):
        owner = company.owner
        return owner if isinstance(owner, Corporation) else self.round.current_entity

    def actions(self, entity) -> tuple[str, ...]:
        return ("lay_tile",) if self.abilities(entity) else ()

    def process_lay_tile(self, action, company: Company) -> None:
        game = self.game
        ability = self.abilities(company)
        corp = self.payer(company)
        if action.hex not in ability.get("hexes", [action.hex]):
            raise GameError("{company} can only lay track on {hexes}", company=company.sym,
                            hexes=', '.join(ability['hexes']))
        teleport = ability["type"] == "teleport"
        if teleport and self.round.num_laid_track >= len(game.tile_lays(corp)):
            raise GameError("{company}'s tile is the tile lay of the turn, and it has been made",
                            company=company.sym)
        cost = game.hexmap.check_lay(corp.sym, action.hex, action.tile, action.rotation, colors=game.phase.tiles,
                                     blocked=game.blocking_privates(), need_connection=False,
                                     tiles_allowed=set(ability.get("tiles", [])) or None, special=True)
        cost -= min(cost, ability.get("discount", 0))
        if cost > corp.cash:
            raise GameError("{corporation} has {cash} and can't pay {cost} to lay on {hex}",
                            corporation=corp.sym, cash=game.fmt(corp.cash, corp), cost=game.fmt(cost, corp),
                            hex=action.hex)
        game.lay_tile(corp, action.hex, action.tile, action.rotation, cost)
        game.use_ability(company, ability)
        if teleport:
            self.round.num_laid_track += 1
            if corp.tokens_left:
                self.round.teleported = company
            else:
                game.remove_ability(company, ability["type"])

    def player_abilities(self, entity):
        """(private, the lay it may make now) for the privates of the player who decides for `entity`."""
        game = self.game
        for company in game.companies:
            ability = self.abilities(company)
            if ability is not None and game.player_of(company) is game.player_of(entity):
                yield company, ability

    def legal(self, entity) -> list[dict]:
        game = self.game
        out = []
        for company, ability in self.player_abilities(entity):
            corp = self.payer(company)
            if ability["type"] == "teleport" and self.round.num_laid_track >= len(game.tile_lays(corp)):
                continue
            for coord, tile_id, rotation, cost in priced_lays(game, corp, need_connection=False, special=True,
                                                               tiles_allowed=set(ability.get("tiles", [])) or None,
                                                               hexes=ability.get("hexes")):
                if coord in ability.get("hexes", [coord]) and cost - min(cost, ability.get("discount", 0)) <= corp.cash:
                    out.append(self.action(company, "lay_tile", hex=coord, tile=tile_id, rotation=rotation))
        return out


def station_abilities(game, corp) -> list[tuple[Company, dict]]:
    """(private, ability) for each station ability (type "token", e.g. 18MEX's Boleo) of the corporation's
    privates that it may use now."""
    return [(company, ability) for company in corp.companies
            for ability in game.usable_abilities(company, ("token",))]


class SpecialToken(Step):
    """Stations granted by a private: the free station a teleport allows on its hex (1830 DH: once the tile
    is laid, the private must place it, or decline, before anything else; it is the station of the turn),
    and a station ability usable in its corporation's turn on the hexes it names, without a connection
    (18MEX's Boleo: on top of the turn's station). Either is the corporation's next station, free."""

    description = Phrase("place the teleport station, or pass")
    for_companies = True

    @property
    def blocks(self) -> bool:
        """Only a teleport's station must be settled before the turn goes on; a station ability is offered
        beside the turn's steps."""
        return self.round.teleported is not None

    def setup(self) -> None:
        self.round.tokened = False

    def ability(self, company) -> dict | None:
        if not isinstance(company, Company):
            return None
        for ability in self.game.usable_abilities(company, ("teleport", "token")):
            if ability["type"] == "token" or self.game.ability_uses(company, ability):
                return ability
        return None

    def blocking(self) -> bool:
        return self.round.teleported is not None

    def active_entities(self) -> list:
        return [self.round.teleported] if self.round.teleported is not None else super().active_entities()

    def actions(self, entity) -> tuple[str, ...]:
        if self.ability(entity) is None or not entity.owner.tokens_left:
            return ()
        return ("place_token", "pass") if entity is self.round.teleported else ("place_token",)

    def station_refusal(self, company: Company, ability: dict | None) -> GameError | None:
        """Why the private can't place its station now, if it can't."""
        if ability is not None and (ability.get("extra_action") or not self.round.tokened):
            return None
        if ability is not None:
            return GameError("a station has already been placed this turn")
        refusal = self.game.station_power_refusal(company, self.round.current_entity)
        if refusal is not None:
            return refusal
        ability = next(a for a in company.abilities if a["type"] in ("teleport", "token"))
        corp = company.owner
        if not corp.tokens_left:
            return GameError("{corporation} has no station tokens left", corporation=corp.sym)
        if ability["type"] == "token" and all(c in self.game.hexmap.tokened_hexes(corp.sym) for c in ability["hexes"]):
            return GameError("{corporation} already has a station on {hexes}", corporation=corp.sym,
                             hexes=', '.join(ability['hexes']))
        return GameError("{company}'s station can't be placed now", company=company.sym)

    def why_not(self, entity, action) -> GameError | None:
        if action.type != "place_token" or not isinstance(entity, Company):
            return None
        return self.station_refusal(entity, self.ability(entity))

    def process_place_token(self, action, company: Company) -> None:
        game = self.game
        ability = self.ability(company)
        refusal = self.station_refusal(company, ability)
        if refusal:
            raise refusal
        corp = company.owner
        city = game.hexmap.city(action.city)
        if city.tile.hex is None or city.tile.hex.coord not in ability.get("hexes", [city.tile.hex.coord]):
            raise GameError("{company}'s free station goes on {hexes}", company=company.sym,
                            hexes=', '.join(ability['hexes']))
        game.hexmap.check_token(corp.sym, action.city, action.slot, need_connection=False)
        game.place_token(corp, action.city, action.slot, price=0)
        if not ability.get("extra_action"):
            self.round.tokened = True
        if ability["type"] == "token":
            game.use_ability(company, ability)
            game.remove_ability(company, "token")
        if self.round.teleported is not None:
            self.settled()

    def process_pass(self, action, company: Company) -> None:
        if company is not self.round.teleported:
            raise GameError("{company} has no station to decline", company=company.sym)
        self.settled()

    def settled(self) -> None:
        company = self.round.teleported
        ability = self.ability(company)
        if ability is not None:
            self.game.remove_ability(company, ability["type"])
        self.round.teleported = None

    def skip(self) -> None:
        """Waits for a teleport."""

    def legal(self, entity) -> list[dict]:
        game = self.game
        out = []
        for company in game.companies:
            ability = self.ability(company)
            if ability is None or game.player_of(company) is not game.player_of(entity) or \
                    self.station_refusal(company, ability) is not None:
                continue
            for coord in ability.get("hexes", []):
                out.extend(self.action(company, "place_token", city=city_id, slot=slot)
                           for city_id, slot in free_slots_on_hex(game, company.owner, coord))
            if company is self.round.teleported:
                out.append(self.action(company, "pass"))
        return out


class Token(Step):
    """The station of the turn, on a city the corporation's track reaches, for its next station's price (free
    on a hex where a private of the corporation grants a station, which uses up the private's ability)."""

    description = Phrase("place a station token, or pass")

    def setup(self) -> None:
        self.round.tokened = False
        self.declined = False

    def station_ability(self, corp: Corporation, coord: str) -> tuple[Company, dict] | None:
        """The corporation's private (and its ability) that grants a station on this hex now, if one does."""
        return next(((c, a) for c, a in station_abilities(self.game, corp) if coord in a.get("hexes", [coord])),
                    None)

    def station_terms(self, corp: Corporation, coord: str) -> tuple[int | None, tuple[Company, dict] | None]:
        """What the corporation's next station costs on this hex (None: it has none left), and the private
        (with its ability) that grants it there, if one does: worked out once for a station placed."""
        price = corp.next_token_price
        if price is None:
            return None, None
        granted = self.station_ability(corp, coord)
        return (price if granted is None else min(price, granted[1].get("price", 0))), granted

    def cheapest_station(self, corp: Corporation) -> int | None:
        """The least a station may cost the corporation this turn (18xx.games opens the step on it)."""
        price = corp.next_token_price
        if price is None:
            return None
        return min([price] + [a.get("price", 0) for _, a in station_abilities(self.game, corp)])

    def can_place(self, corp: Corporation) -> bool:
        price = self.cheapest_station(corp)
        if self.round.tokened or price is None or price > corp.cash:
            return False
        return self.reaches_station(corp)

    def reaches_station(self, corp: Corporation) -> bool:
        return self.game.reaches_station(corp)

    def actions(self, entity) -> tuple[str, ...]:
        if corp_turn(self, entity) and self.can_place(entity):
            return ("place_token", "pass")
        return ()

    def city_hex(self, city_id: str) -> str:
        hex_ = self.game.hexmap.city(city_id).tile.hex
        return hex_.coord if hex_ is not None else ""

    def refusal_at(self, corp: Corporation, city_id: str) -> GameError | None:
        """Why the corporation can't pay for its next station in this city, if it can't."""
        return self.price_refusal(corp, self.station_terms(corp, self.city_hex(city_id))[0])

    def price_refusal(self, corp: Corporation, price: int | None) -> GameError | None:
        """Why the corporation can't pay `price` for a station (`station_terms`), if it can't."""
        game = self.game
        if price is None:
            return GameError("{corporation} has no station tokens left", corporation=corp.sym)
        if price > corp.cash:
            return GameError("{corporation} has {cash} and can't pay {price} for a station",
                             corporation=corp.sym, cash=game.fmt(corp.cash, corp), price=game.fmt(price, corp))
        return None

    def process_place_token(self, action, entity) -> None:
        game = self.game
        corp = entity
        game.hexmap.city(action.city)  # an unknown city is refused first
        price, granted = self.station_terms(corp, self.city_hex(action.city))
        refusal = self.price_refusal(corp, price)
        if refusal:
            raise refusal
        game.hexmap.check_token(corp.sym, action.city, action.slot)
        game.place_token(corp, action.city, action.slot, price=price)
        if granted is not None:  # the private's station has been placed
            game.use_ability(*granted)
            game.remove_ability(granted[0], "token")
        self.round.tokened = True
        self.passed = True

    def process_pass(self, action, corp) -> None:
        self.passed = True
        self.declined = True

    def why_not(self, entity, action) -> GameError | None:
        if action.type != "place_token" or not corp_turn(self, entity):
            return None
        try:
            refusal = self.refusal_at(entity, action.city)
        except GameError as e:
            return e
        if refusal:
            return refusal
        if self.round.tokened:
            return GameError("{entity} has already placed a station token this turn", entity=entity.sym)
        if self.declined:
            return GameError("{entity} has passed on placing a station token this turn", entity=entity.sym)
        try:
            self.game.hexmap.check_token(entity.sym, action.city, action.slot)
        except GameError as e:
            return e
        if self.passed:  # skipped: when the step came the corporation could place no station
            return GameError("{entity} had no station token it could place when its station step came, so that "
                             "step is over", entity=entity.sym)
        return None  # an earlier step of the turn comes first: its refusal says which

    def legal(self, corp) -> list[dict]:
        out = [self.action(corp, "place_token", city=city_id, slot=slot)
               for city_id, slot in self.game.hexmap.legal_tokens(corp.sym)
               if self.refusal_at(corp, city_id) is None]
        out.append(self.action(corp, "pass"))
        return out


class Route(Step):
    description = Phrase("run its trains")

    def actions(self, entity) -> tuple[str, ...]:
        if corp_turn(self, entity) and any(not t.operated for t in entity.trains) and \
                self.game.route_available(entity):
            return ("run_routes",)
        return ()

    def process_run_routes(self, action, corp: Corporation) -> None:
        game = self.game
        trains = {}
        specs = []
        for route in action.routes:
            train = next((t for t in corp.trains if t.id == route.train), None)
            if train is None:
                raise GameError("{corporation} doesn't own train {train}", corporation=corp.sym,
                                train=route.train)
            if train.operated or train.id in trains:
                raise GameError("train {train} has already run this operating round", train=train.id)
            trains[train.id] = train
            specs.append({"train_name": train.name, "train_id": train.id, "distance": train.distance,
                          "multiplier": train.multiplier, "connections": route.connections, "nodes": route.nodes,
                          "revenue": route.revenue})
        revenues = game.route_revenues(corp, specs) if specs else []
        for route, revenue in zip(action.routes, revenues, strict=True):
            if route.revenue is not None and route.revenue != revenue:
                raise GameError("train {train}'s route pays {revenue}, not {revenue2}", train=route.train,
                                revenue=game.fmt(revenue, corp), revenue2=game.fmt(route.revenue, corp))
        for train in trains.values():
            train.operated = True
        self.round.routes = [(r.train, v, r.connections) for r, v in zip(action.routes, revenues, strict=True)]
        self.round.revenue = sum(revenues) + (action.extra_revenue or 0)
        game.last_routes[corp.sym] = self.round.routes
        self.passed = True

    def why_not(self, entity, action) -> GameError | None:
        if action.type != "run_routes" or not corp_turn(self, entity):
            return None
        if not entity.trains:
            return GameError("{entity} has no trains to run", entity=entity.sym)
        if all(t.operated for t in entity.trains):
            return GameError("{entity}'s trains have already run this operating round",
                             entity=entity.sym)
        if not self.game.route_available(entity):
            return GameError("{entity} has no route for its trains", entity=entity.sym)
        return None

    def legal(self, corp) -> list[dict]:
        best = self.game.best_routes(corp)
        # without a route finder the corporation can still declare a run that earns nothing
        return [self.action(corp, "run_routes", routes=best if best is not None else [])]


class Dividend(Step):
    description = Phrase("pay out or withhold")

    def actions(self, entity) -> tuple[str, ...]:
        if corp_turn(self, entity) and self.round.routes and self.round.revenue:
            return ("dividend",)
        return ()

    def process_dividend(self, action, corp: Corporation) -> None:
        if action.kind not in ("payout", "withhold"):
            raise GameError("{corporation} can pay out or withhold, not {kind}", corporation=corp.sym,
                            kind=action.kind)
        self.game.pay_dividend(corp, self.round.revenue, action.kind)
        self.passed = True

    def skip(self) -> None:
        corp = self.round.current_entity
        if isinstance(corp, Corporation):
            self.game.pay_dividend(corp, 0, "withhold")
        self.passed = True

    def legal(self, corp) -> list[dict]:
        return [self.action(corp, "dividend", kind=k) for k in ("payout", "withhold")]


class DiscardTrain(Step):
    """Corporations over their train limit discard. When a phase change leaves several over it, every one of
    them is to act and any may discard first; 18xx.games names only the first as acting (its current entity,
    as here: `active_entities()[0]`) but takes a discard from any of them."""

    description = Phrase("discard a train over the limit")

    def active_entities(self) -> list:
        return self.game.over_train_limit()

    def actions(self, entity) -> tuple[str, ...]:
        return ("discard_train",) if entity in self.game.over_train_limit() else ()

    def process_discard_train(self, action, corp: Corporation) -> None:
        train = self.game.train(action.train)
        if train.owner is not corp:
            raise GameError("{corporation} doesn't own train {train}", corporation=corp.sym,
                            train=action.train)
        self.game.discard_train(train)

    def skip(self) -> None:
        """Nothing to discard: the step stays available for later phase changes."""

    def legal(self, corp) -> list[dict]:
        return [self.action(corp, "discard_train", train=t.id) for t in corp.trains]


class BuyTrain(Step):
    """Buy trains from the bank or other corporations. A corporation with a route and no train must buy
    one; when it can't pay, its president adds money (for the bank's cheapest train, or another
    corporation's train at up to face value) and may sell shares for it, but only as many as needed."""

    description = Phrase("buy trains, or pass")
    last_sale_price: int | None = None  # per share, of the president's latest sale this turn

    def setup(self) -> None:
        self.last_sale_price = None

    # --- what the corporation may do ----------------------------------------------------------
    def room(self, corp: Corporation) -> bool:
        return self.game.trains_counted_for_limit(corp) < self.game.train_limit(corp)

    def depot_trains(self) -> list:
        return self.game.depot.depot_trains(self.game.phase_names_reached)

    def depot_offer(self) -> list:
        """The bank's trains this corporation may buy now (a title may limit them, e.g. one per turn)."""
        return self.depot_trains()

    def other_trains(self, corp: Corporation) -> list:
        """Trains other operators may sell: not those that may never change hands, nor obsolete ones."""
        game = self.game
        if not game.rules.allow_train_buy_from_others:
            return []
        return [t for c in game.corporations + game.minors if c is not corp and not c.closed for t in c.trains
                if t.buyable and (not t.obsolete or game.rules.allow_obsolete_train_buy)]

    def face_value_only(self, corp: Corporation, train) -> bool:
        game = self.game
        return game.buys_trains_at_face_value(corp) or \
            (train.owner is not None and game.buys_trains_at_face_value(train.owner))

    def exchange_options(self, corp: Corporation) -> list[tuple]:
        """(train, traded-in train, price) for trade-in purchases (1830 Diesel)."""
        out = []
        for train in self.depot_trains():
            if not train.discount or train.owner is not None or train not in self.game.depot.upcoming:
                continue
            for old in corp.trains:
                if old.name in train.discount:
                    out.append((train, old, train.price - train.discount[old.name]))
        return out

    def can_buy(self, corp: Corporation) -> bool:
        if self.room(corp):
            prices = [t.price for t in self.depot_trains()] + [1 for _ in self.other_trains(corp)]
            if prices and min(prices) <= corp.cash:
                return True
        return any(price <= corp.cash for _, _, price in self.exchange_options(corp))

    def must_buy(self, corp: Corporation) -> bool:
        """A corporation without a train must buy one while the bank has trains: when it has a route
        (MUST_BUY_TRAIN route), always, or never."""
        when = self.game.rules.must_buy_train
        if when == "never" or corp.trains or not self.depot_trains():
            return False
        return when == "always" or self.game.route_available(corp)

    def emergency(self, corp: Corporation) -> bool:
        return self.must_buy(corp) and corp.cash < self.cheapest_depot_price()

    def turn_facts(self, entity) -> dict:
        corp = self.round.current_entity
        if not isinstance(corp, Corporation):
            return {}
        return {"must_buy": bool(self.must_buy(corp)), "emergency": bool(self.emergency(corp))}

    def cheapest_depot_price(self) -> int:
        prices = [t.price for t in self.depot_trains()]
        return min(prices) if prices else 0

    def president_short(self, corp: Corporation) -> int:
        """How much the president still lacks to buy the cheapest train."""
        return self.cheapest_depot_price() - corp.cash - corp.owner.cash

    def actions(self, entity) -> tuple[str, ...]:
        corp = self.round.current_entity
        if not isinstance(corp, Corporation):
            return ()
        if entity is corp.owner and entity is not None:
            return ("sell_shares",)
        if entity is not corp:
            return ()
        if self.must_buy(corp):
            return ("sell_shares", "buy_train")
        if self.can_buy(corp):
            return ("buy_train", "pass")
        return ()

    # --- the president's sales --------------------------------------------------------------------
    def sale_ok(self, corp: Corporation, shares: list, pct: int) -> bool:
        """Within the market and presidency rules (the buying corporation's presidency may not change
        hands), and no more than needed for the bank's cheapest train: without its cheapest certificate
        the sale would fall short."""
        game = self.game
        other = shares[0].corporation
        player = corp.owner
        if pct not in game.sale_percents(other, shares) or not other.ipoed:
            return False
        if not game.fits_in_pool(other, pct) or not game.can_dump(player, other, shares):
            return False
        if other is corp and self.would_change_president(player, corp, pct):
            return False
        needed = self.cheapest_depot_price() - corp.cash - player.cash
        per_share = other.share_price.price
        smallest = min(game.certificate_price(s, per_share) for s in shares)
        return game.bundle_price(other, pct) - smallest < needed

    def offered_sales(self, corp: Corporation) -> list:
        game = self.game
        return [(shares, pct) for shares, pct in self.sale_bundles(corp)
                if not game.keeps_presidency_without_certificate(corp.owner, shares[0].corporation, shares, pct)]

    def sale_bundles(self, corp: Corporation) -> list:
        player = corp.owner
        return [(shares, pct) for other in self.game.corporations if player.shares_of(other)
                for shares, pct in self.game.sellable_bundles(player, other) if self.sale_ok(corp, shares, pct)]

    def would_change_president(self, player: Player, corp: Corporation, pct: int) -> bool:
        percents = self.game.player_percents(corp)
        remaining = percents.get(player, 0) - pct
        return any(v > remaining for p, v in percents.items() if p is not player)

    def process_sell_shares(self, action, player) -> None:
        game = self.game
        corp = self.round.current_entity
        if isinstance(player, Corporation):
            raise GameError("{corporation}'s president sells shares, not the corporation",
                            corporation=corp.sym)
        if player is not corp.owner:
            raise GameError("only {corporation}'s president may sell shares to buy its train",
                            corporation=corp.sym)
        shares = [game.share(sid) for sid in action.shares]
        if not shares or any(s.owner is not player or s.corporation is not shares[0].corporation for s in shares):
            raise GameError("{player} sells certificates of one corporation that {player} holds",
                            player=player.name)
        game.check_presidents_certificate_last(player, shares[0].corporation, shares)
        percent = action.percent if action.percent is not None else sum(s.percent for s in shares)
        if not self.sale_ok(corp, shares, percent) or \
                game.keeps_presidency_without_certificate(player, shares[0].corporation, shares, percent):
            raise GameError("{player} can't sell {percent}% of {corporation} now: only as much as needed for "
                            "the bank's cheapest train, within the market and presidency rules",
                            player=player.name, percent=percent, corporation=shares[0].corporation.sym)
        self.last_sale_price = shares[0].corporation.share_price.price
        game.sell_shares(player, shares, percent)

    # --- buying ---------------------------------------------------------------------------------
    def price_range(self, corp: Corporation, train) -> tuple[int, int]:
        """What may be paid for another corporation's train: any price the corporation can pay (face value
        only, where the title says so), or when it can't pay face value, up to face value with the
        president's money (unless the title forbids), and once the president has sold, enough that the
        last sale was needed."""
        if corp.cash >= train.price or self.game.rules.ebuy_from_others == "never" or corp.owner is None:
            low, high = 1, corp.cash
        else:
            most = corp.cash + corp.owner.cash
            low = most - self.last_sale_price + 1 if self.last_sale_price else 1
            high = most if self.game.rules.ebuy_from_others == "always" else min(train.price, most)
        if self.face_value_only(corp, train):  # 18MEX NdM: face value, if that is within the range
            return (train.price, train.price) if low <= train.price <= high else (train.price, high)
        return low, high

    def offered_other_trains(self, corp: Corporation) -> list:
        trains = self.other_trains(corp)
        if corp.cash < self.cheapest_depot_price() and self.last_sale_price:
            trains = [t for t in trains if t.price >= self.price_range(corp, t)[0]]
        return trains

    def offered_depot_trains(self, corp: Corporation) -> list:
        trains = self.depot_offer()
        if trains and corp.cash < self.cheapest_depot_price():
            trains = [min(trains, key=lambda t: t.price)]
        return trains

    def process_buy_train(self, action, corp: Corporation) -> None:
        game = self.game
        train = game.train(action.train)
        exchange = game.train(action.exchange) if action.exchange else None
        price = action.price
        if train.owner is corp:
            raise GameError("{corporation} already owns train {train}", corporation=corp.sym, train=train.id)
        if action.variant is not None and action.variant != train.name:
            raise GameError("train {train} is a {train2}-train, not {variant}", train=train.id,
                            train2=train.name, variant=quoted(action.variant))
        if train.owner is None:
            if train not in self.depot_offer():
                same = next((t for t in self.depot_offer() if t.name == train.name), None)
                if same is not None:
                    raise GameError("the bank sells its {train}-trains in order: the next one is {same}",
                                    train=train.name, same=same.id)
                offer = ", ".join(sorted({t.name for t in self.depot_offer()}))
                if not offer:
                    raise GameError("train {train} isn't for sale: the bank has no train left", train=train.id)
                raise GameError("train {train} isn't for sale yet: the bank sells {offer} now", train=train.id,
                                offer=offer)
            if exchange is not None:
                if exchange.owner is not corp or not train.discount or exchange.name not in train.discount:
                    raise GameError("{corporation} can't trade in {exchange} for {train}",
                                    corporation=corp.sym, exchange=action.exchange, train=train.id)
                face = train.price - train.discount[exchange.name]
            else:
                face = train.price
            if price != face:
                raise GameError("train {train} costs {face}, not {price}", train=train.id,
                                face=game.fmt(face, corp), price=game.fmt(price, corp))
        else:
            seller = train.owner
            if not isinstance(seller, Corporation) or seller.closed:
                raise GameError("train {train} isn't for sale", train=train.id)
            if exchange is not None:
                raise GameError("{corporation} can trade in a train only for one bought from the bank",
                                corporation=corp.sym)
            if train not in self.offered_other_trains(corp):
                raise GameError("{corporation} may not buy {train} now: its president sold more than needed",
                                corporation=corp.sym, train=train.id)
            low, high = self.price_range(corp, train)
            if not low <= price <= high:
                raise GameError("{corporation} may pay {low} to {high} for {train}, not {price}",
                                corporation=corp.sym, low=game.fmt(low, corp), high=game.fmt(high, corp),
                                train=train.id, price=game.fmt(price, corp))
        if exchange is None and not self.room(corp):
            raise GameError("{corporation} already has {n} trains, the limit in phase {phase}",
                            corporation=corp.sym, n=len(corp.trains), phase=game.phase.name)
        if price > corp.cash:
            if not self.must_buy(corp):
                raise GameError("{corporation} has {cash} and can't pay {price}", corporation=corp.sym,
                                cash=game.fmt(corp.cash, corp), price=game.fmt(price, corp))
            if train.owner is None and price > self.cheapest_depot_price():
                raise GameError("{corporation} must buy the cheapest train ({price}) with its president's "
                                "money", corporation=corp.sym,
                                price=game.fmt(self.cheapest_depot_price(), corp))
            if exchange is not None:
                raise GameError("the president can't add money to a trade-in")
            shortfall = price - corp.cash
            president = corp.owner
            if president.cash < shortfall:
                raise GameError("{corporation} and its president have {cash}, not {price}",
                                corporation=corp.sym, cash=game.fmt(corp.cash + president.cash, corp),
                                price=game.fmt(price, corp))
            game.transfer(president, corp, shortfall)
        game.buy_train(corp, train, price, exchange)
        self.end_if_nothing_more(corp)

    def end_if_nothing_more(self, corp: Corporation) -> None:
        """After a purchase: buying ends for this turn once no other train can be bought, as on 18xx.games, even
        if money comes in later in the turn (18MEX: a train bought before running, then a dividend withheld;
        1817: the interest is then due before another corporation discards a train the purchase put over its
        limit)."""
        if not self.can_buy(corp):
            self.passed = True

    def process_pass(self, action, corp) -> None:
        if self.must_buy(corp):
            raise GameError("{corporation} has no train and must buy one", corporation=corp.sym)
        self.passed = True

    def why_not(self, entity, action) -> GameError | None:
        corp = self.round.current_entity
        if entity is not corp or not isinstance(corp, Corporation):
            return None
        game = self.game
        if action.type == "pass" and self.must_buy(corp):
            return GameError("{corporation} has no train and must buy one", corporation=corp.sym)
        if action.type == "buy_train":
            if not self.room(corp) and not action.exchange:
                return GameError("{corporation} already has {n} trains, the limit in phase {phase}",
                                 corporation=corp.sym, n=len(corp.trains), phase=game.phase.name)
            if self.passed:
                return GameError("{corporation} has finished buying trains this turn", corporation=corp.sym)
            if not self.can_buy(corp):
                return GameError("{corporation} has {cash} and can't pay for any train on sale",
                                 corporation=corp.sym, cash=game.fmt(corp.cash, corp))
        return None

    def legal(self, entity) -> list[dict]:
        corp = self.round.current_entity
        out = []
        if isinstance(entity, Player):
            for shares, pct in self.offered_sales(corp):
                out.append(self.action(entity, "sell_shares", shares=[s.id for s in shares], percent=pct))
            return out
        must = self.must_buy(corp)
        budget = corp.cash + (corp.owner.cash if must and corp.owner else 0)
        if self.room(corp):
            cheapest = self.cheapest_depot_price()
            for train in self.offered_depot_trains(corp):
                if train.price <= corp.cash or (must and train.price == cheapest and train.price <= budget):
                    out.append(self.action(corp, "buy_train", train=train.id, price=train.price, variant=train.name))
            # another corporation's train: any price both presidents agree on; offered at the ends of
            # the range it may be paid in
            for train in self.offered_other_trains(corp):
                low, high = self.price_range(corp, train)
                high = min(high, budget)
                for price in sorted({low, high}):
                    if low <= price <= high:
                        out.append(self.action(corp, "buy_train", train=train.id, price=price))
        for train, old, price in self.exchange_options(corp):
            if price <= corp.cash:
                out.append(self.action(corp, "buy_train", train=train.id, price=price, variant=train.name,
                                       exchange=old.id))
        if must and corp.owner:
            for shares, pct in self.offered_sales(corp):
                out.append(self.action(corp.owner, "sell_shares", shares=[s.id for s in shares], percent=pct))
        if not must:
            out.append(self.action(corp, "pass"))
        return out


class BuyCompany(Step):
    """A corporation buys a private from a player, within the title's price range."""

    description = Phrase("buy a private company, or pass")

    def __init__(self, game, round_, blocks: bool = False) -> None:
        super().__init__(game, round_)
        self.blocks = blocks

    def purchasable(self, corp: Corporation) -> list[Company]:
        game = self.game
        return game.purchasable_companies(corp) if game.corporations_buy_companies() else []

    @staticmethod
    def price_range(company: Company) -> tuple[int, int]:
        return company.min_price, company.max_price

    def actions(self, entity) -> tuple[str, ...]:
        if not corp_turn(self, entity):
            return ()
        companies = self.purchasable(entity)
        if companies and min(self.price_range(c)[0] for c in companies) <= entity.cash:
            return ("buy_company", "pass") if self.blocks else ("buy_company",)
        if self.blocks and self.game.has_active_abilities(entity):
            # the turn stays open while a private the corporation owns may still act (1830 CS)
            return ("pass",)
        return ()

    def why_not(self, entity, action) -> GameError | None:
        if action.type != "buy_company" or not corp_turn(self, entity):
            return None
        game = self.game
        company = game.company_by_sym.get(getattr(action, "company", None))
        if company is not None and company.ability("no_buy"):
            return GameError("{company} can never be sold to a corporation", company=company.sym)
        if company is not None and (company.closed or not isinstance(company.owner, Player)):
            return GameError("{company} isn't for sale: it must be open and owned by a player", company=company.sym)
        if "can_buy_companies" not in game.phase.status and not self.purchasable(entity):
            first = next((p.name for p in game.phases if "can_buy_companies" in p.status), None)
            when = f" (from phase {first})" if first else ""
            return GameError("corporations can't buy private companies in phase {phase}{when}",
                             phase=game.phase.name, when=when)
        if company is not None and company not in self.purchasable(entity):
            return GameError("{company} isn't for sale: it must be open and owned by a player",
                             company=company.sym)
        return None

    def process_buy_company(self, action, corp: Corporation) -> None:
        game = self.game
        company = game.company(action.company)
        reason = self.why_not(corp, action)
        if reason:
            raise reason
        if company not in self.purchasable(corp):
            raise GameError("{corporation} can't buy {company} now", corporation=corp.sym,
                            company=company.sym)
        low, high = self.price_range(company)
        if not low <= action.price <= high:
            raise GameError("{company} sells to a corporation for {low} to {high}", company=company.sym,
                            low=game.fmt(low, corp), high=game.fmt(high, corp))
        if action.price > corp.cash:
            raise GameError("{corporation} has {cash} and can't pay {price}", corporation=corp.sym,
                            cash=game.fmt(corp.cash, corp), price=game.fmt(action.price, corp))
        game.sell_company(company, corp, action.price)

    def process_pass(self, action, corp) -> None:
        self.passed = True

    def legal(self, corp) -> list[dict]:
        out = []
        for company in self.purchasable(corp):
            low, high = self.price_range(company)
            for price in sorted({low, company.value, high}):
                if price <= corp.cash:
                    out.append(self.action(corp, "buy_company", company=company.sym, price=price))
        if "pass" in self.actions(corp):
            out.append(self.action(corp, "pass"))
        return out


class BlockingBuyCompany(BuyCompany):
    def __init__(self, game, round_) -> None:
        super().__init__(game, round_, blocks=True)


class Bankrupt(Step):
    """During its corporation's turn, a president whose cash, the corporation's cash and what selling
    shares now would bring fall short of the bank's cheapest train may declare bankruptcy: they sell what
    they still may (while buying a train: only as much as needed) and give up their cash."""

    blocks = False

    def sale_rule(self):
        """How shares may be sold at this moment of the turn (None: not at all)."""
        return getattr(self.round.active_step(), "sale_ok", None)

    def liquidity(self, corp: Corporation, enough: int | None = None) -> int:
        """Cash of the president and the corporation, and what the president's allowed sales would bring
        (counted until `enough` is reached)."""
        game = self.game
        player = corp.owner
        value = player.cash + corp.cash
        sale_ok = self.sale_rule()
        if sale_ok is not None:
            for other in game.corporations:
                if enough is not None and value >= enough:
                    break
                if player.shares_of(other):
                    value += max((game.bundle_price(other, pct)
                                  for shares, pct in game.liquidation_bundles(player, other)
                                  if sale_ok(corp, shares, pct)), default=0)
        return value

    def can_go_bankrupt(self, corp: Corporation) -> bool:
        if corp.owner is None:
            return False
        price = self.game.min_depot_price()
        return self.liquidity(corp, enough=price) < price

    def actions(self, entity) -> tuple[str, ...]:
        if corp_turn(self, entity) and isinstance(entity, Corporation) and self.can_go_bankrupt(entity):
            return ("bankrupt",)
        return ()

    def why_not(self, entity, action) -> GameError | None:
        if action.type == "bankrupt" and isinstance(entity, Corporation):
            return (GameError("{entity} can't declare bankruptcy: its president can still raise the "
                              "{min_depot_price} for the bank's cheapest train", entity=entity.sym,
                              min_depot_price=self.game.fmt(self.game.min_depot_price(), entity)))
        return None

    def process_bankrupt(self, action, corp: Corporation) -> None:
        self.game.bankrupt(corp.owner, corp, self.sale_rule())

    def legal(self, corp) -> list[dict]:
        return [self.action(corp, "bankrupt")] if self.actions(corp) else []


__all__ = ["HomeToken", "Track", "SpecialTrack", "SpecialToken", "Token", "Route", "Dividend", "DiscardTrain", "BuyTrain", "BuyCompany",
           "BlockingBuyCompany", "Bankrupt", "BuySellParShares"]
