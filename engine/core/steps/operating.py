"""Operating-round steps: track, station tokens, routes, dividends, trains, privates, bankruptcy."""

from __future__ import annotations

from engine.core.entities import Company, Corporation, Player
from engine.core.errors import GameError
from engine.core.steps import Step
from engine.core.steps.stock import BuySellParShares


def corp_turn(step: Step, entity) -> bool:
    return entity is step.round.current_entity


def priced_lays(game, corp, **options) -> list[tuple[str, str, int, int]]:
    """Legal lays with their terrain cost: (hex, tile, rotation, cost)."""
    blocked = game.blocking_privates()
    out = []
    hexes = options.pop("hexes", None)
    for coord, tile_id, rotation in game.hexmap.legal_lays(corp.sym, colors=game.phase.tiles, blocked=blocked,
                                                          hexes=hexes, **options):
        cost = game.hexmap.check_lay(corp.sym, coord, tile_id, rotation, colors=game.phase.tiles, blocked=blocked,
                                     **options)
        out.append((coord, tile_id, rotation, cost))
    return out


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
    """A station waiting for its city: a home token to place, or one displaced when its tile changed."""

    description = "place its station"

    def pending(self):
        pending = self.game.hexmap.pending_tokens
        return pending[0] if pending else None

    def active_entities(self) -> list:
        pending = self.pending()
        return [self.game.corporation(pending[0])] if pending else []

    def actions(self, entity) -> tuple[str, ...]:
        return ("place_token",) if entity in self.active_entities() else ()

    def skip(self) -> None:
        """Stays on watch: a later tile lay may displace a station."""

    def process_place_token(self, action, corp: Corporation) -> None:
        game = self.game
        _, coord = self.pending()
        city = game.hexmap.city(action.city)
        if city.tile.hex is None or city.tile.hex.coord != coord:
            raise GameError(f"{corp.sym}'s station must go on a city of {coord}")
        game.hexmap.check_token(corp.sym, action.city, action.slot, need_connection=False)
        game.place_token(corp, action.city, action.slot, price=0)

    def legal(self, corp) -> list[dict]:
        game = self.game
        _, coord = self.pending()
        return [self.action(corp, "place_token", city=city_id, slot=slot)
                for city_id, slot in free_slots_on_hex(game, corp, coord)]


class Track(Step):
    """The operator's tile lays of the turn, as many and of the kinds the title allows (game.tile_lays)."""

    description = "lay or upgrade a tile, or pass"

    def setup(self) -> None:
        self.laid = 0  # tile lays made this turn
        self.upgraded = False
        self.laid_hexes: list[str] = []

    def tile_lay(self, operator) -> dict | None:
        """The next lay the operator has this turn ({"lay", "upgrade", "cost", "upgrade_cost"}), or None."""
        lays = self.game.tile_lays(operator)
        if self.laid >= len(lays):
            return None
        lay = dict(lays[self.laid])
        for key in ("lay", "upgrade"):
            if lay.get(key) == "not_if_upgraded":
                lay[key] = not self.upgraded
        lay.setdefault("cost", 0)
        lay.setdefault("upgrade_cost", lay["cost"])
        return lay

    def can_lay(self, operator) -> bool:
        if self.can_buy_tile_laying_company(operator):
            return True  # the step waits while a private that lays track here could still be bought
        lay = self.tile_lay(operator)
        return lay is not None and bool(lay["lay"] or lay["upgrade"]) and bool(operator.token_prices) \
            and operator.cash >= lay["cost"]

    def can_buy_tile_laying_company(self, operator) -> bool:
        game = self.game
        if "can_buy_companies" not in game.phase.status:
            return False
        return any(c.min_price <= operator.cash and any(a["type"] == "tile_lay" and a.get("when") == "track" for a in c.abilities)
                   for c in game.purchasable_companies(operator))

    def actions(self, entity) -> tuple[str, ...]:
        return ("lay_tile", "pass") if corp_turn(self, entity) and self.can_lay(entity) else ()

    def need_connection(self, corp: Corporation, coord: str) -> bool:
        # a station waiting to be placed again on its home hex still connects that hex
        return (corp.sym, coord) not in self.game.hexmap.pending_tokens

    @staticmethod
    def is_upgrade(hex_) -> bool:
        return hex_.tile.color != "white"

    def lay_refusal(self, lay: dict | None, hex_) -> str | None:
        """Why this lay's kind (new track or upgrade, the hex) isn't allowed now, if it isn't."""
        if lay is None:
            return "it has no tile lay left this turn"
        if self.is_upgrade(hex_):
            if not lay["upgrade"]:
                return "it can't upgrade a tile now"
            if lay.get("cannot_reuse_same_hex") and hex_.coord in self.laid_hexes:
                return f"it has already laid on {hex_.coord} this turn"
        elif not lay["lay"]:
            return "it can't lay new track now"
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
            raise GameError(f"{corp.sym} can't lay on {action.hex}: {refusal}")
        terrain = game.hexmap.check_lay(corp.sym, action.hex, action.tile, action.rotation, colors=game.phase.tiles,
                                        blocked=game.blocking_privates(),
                                        need_connection=self.need_connection(corp, action.hex))
        cost = self.lay_cost(lay, hex_, terrain)
        if cost + self.follow_up_cost(hex_) > corp.cash:
            total = game.fmt(cost + self.follow_up_cost(hex_))
            raise GameError(f"{corp.sym} has {game.fmt(corp.cash)} and can't pay {total} to lay on {action.hex}")
        upgrade = self.is_upgrade(hex_)
        game.lay_tile(corp, action.hex, action.tile, action.rotation, cost)
        self.laid += 1
        self.upgraded = self.upgraded or upgrade
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

    def why_not(self, entity, action) -> str | None:
        if action.type == "lay_tile" and corp_turn(self, entity) and (self.passed or not self.can_lay(entity)):
            return f"{entity.sym} has already laid its track this turn"
        return None

    def legal(self, corp) -> list[dict]:
        game = self.game
        out = []
        lay = self.tile_lay(corp)
        for coord, tile_id, rotation, terrain in priced_lays(game, corp):
            hex_ = game.hexmap.hex(coord)
            if self.lay_refusal(lay, hex_) is None and \
                    self.lay_cost(lay, hex_, terrain) + self.follow_up_cost(hex_) <= corp.cash:
                out.append(self.action(corp, "lay_tile", hex=coord, tile=tile_id, rotation=rotation))
        out.append(self.action(corp, "pass"))
        return out


class SpecialTrack(Step):
    """Tile lays granted by a private owned by the operating corporation (1830 CS, DH), and the free
    station a teleport lay allows on its hex."""

    blocks = False

    def setup(self) -> None:
        self.teleport: tuple[Company, str] | None = None

    def abilities(self, company) -> dict | None:
        if not isinstance(company, Company) or company.closed or company.owner is not self.round.current_entity:
            return None
        if not isinstance(company.owner, Corporation):
            return None
        for ability in company.abilities:
            if ability["type"] in ("tile_lay", "teleport") and not self.game.ability_used(company, ability):
                return ability
        return None

    def actions(self, entity) -> tuple[str, ...]:
        if self.teleport and self.teleport[0] is entity and self.teleport[0].owner.tokens_left:
            return ("place_token",)
        if self.abilities(entity) is None:
            return ()
        track = next((s for s in self.round.steps if isinstance(s, Track)), None)
        ability = self.abilities(entity)
        if ability["type"] == "teleport" and (track is None or track.passed):
            return ()
        return ("lay_tile",)

    def process_lay_tile(self, action, company: Company) -> None:
        game = self.game
        ability = self.abilities(company)
        corp = company.owner
        if action.hex not in ability.get("hexes", []):
            raise GameError(f"{company.sym} can only lay track on {', '.join(ability['hexes'])}")
        cost = game.hexmap.check_lay(corp.sym, action.hex, action.tile, action.rotation, colors=game.phase.tiles,
                                     blocked=game.blocking_privates(), need_connection=False,
                                     tiles_allowed=set(ability.get("tiles", [])) or None, special=True)
        cost -= min(cost, ability.get("discount", 0))
        if cost > corp.cash:
            raise GameError(f"{corp.sym} has {game.fmt(corp.cash)} and can't pay {game.fmt(cost)} to lay on {action.hex}")
        game.lay_tile(corp, action.hex, action.tile, action.rotation, cost)
        game.use_ability(company, ability)
        if ability["type"] == "teleport":
            # the tile is the corporation's lay this turn; a free station may follow on that hex
            for step in self.round.steps:
                if isinstance(step, Track):
                    step.passed = True
            self.teleport = (company, action.hex)

    def process_place_token(self, action, company: Company) -> None:
        game = self.game
        corp = company.owner
        coord = self.teleport[1]
        city = game.hexmap.city(action.city)
        if city.tile.hex is None or city.tile.hex.coord != coord:
            raise GameError(f"{company.sym}'s free station goes on {coord}")
        if corp.tokens_left == 0:
            raise GameError(f"{corp.sym} has no station tokens left")
        game.hexmap.check_token(corp.sym, action.city, action.slot, need_connection=False)
        game.place_token(corp, action.city, action.slot, price=0)
        self.teleport = None
        for step in self.round.steps:
            if isinstance(step, Token):
                step.passed = True

    def legal(self, entity) -> list[dict]:
        game = self.game
        out = []
        if self.teleport and self.teleport[0].owner is entity and entity.tokens_left:
            company, coord = self.teleport
            out.extend(self.action(company, "place_token", city=city_id, slot=slot)
                       for city_id, slot in free_slots_on_hex(game, entity, coord))
        for company in list(getattr(entity, "companies", [])):
            if "lay_tile" not in self.actions(company):
                continue
            ability = self.abilities(company)
            for coord, tile_id, rotation, cost in priced_lays(game, entity, need_connection=False, special=True,
                                                               tiles_allowed=set(ability.get("tiles", [])) or None,
                                                               hexes=ability.get("hexes")):
                if coord in ability.get("hexes", []) and cost - min(cost, ability.get("discount", 0)) <= entity.cash:
                    out.append(self.action(company, "lay_tile", hex=coord, tile=tile_id, rotation=rotation))
        return out


class Token(Step):
    description = "place a station token, or pass"

    def can_place(self, corp: Corporation) -> bool:
        price = corp.next_token_price
        if price is None or price > corp.cash:
            return False
        return bool(self.game.hexmap.legal_tokens(corp.sym))

    def actions(self, entity) -> tuple[str, ...]:
        if corp_turn(self, entity) and self.can_place(entity):
            return ("place_token", "pass")
        return ()

    def process_place_token(self, action, entity) -> None:
        game = self.game
        corp = entity
        price = corp.next_token_price
        if price is None:
            raise GameError(f"{corp.sym} has no station tokens left")
        if price > corp.cash:
            raise GameError(f"{corp.sym} has {game.fmt(corp.cash)} and can't pay {game.fmt(price)} for a station")
        game.hexmap.check_token(corp.sym, action.city, action.slot)
        game.place_token(corp, action.city, action.slot, price=price)
        self.passed = True

    def process_pass(self, action, corp) -> None:
        self.passed = True

    def why_not(self, entity, action) -> str | None:
        if action.type != "place_token" or not corp_turn(self, entity):
            return None
        game = self.game
        price = entity.next_token_price
        if price is None:
            return f"{entity.sym} has no station tokens left"
        if price > entity.cash:
            return f"{entity.sym} has {game.fmt(entity.cash)} and can't pay {game.fmt(price)} for a station"
        if self.passed:
            return f"{entity.sym} has already placed or passed on a station token this turn"
        try:
            game.hexmap.check_token(entity.sym, action.city, action.slot)
        except GameError as e:
            return str(e)
        return f"{entity.sym} can't reach a free station slot"

    def legal(self, corp) -> list[dict]:
        game = self.game
        out = []
        for city_id, slot in game.hexmap.legal_tokens(corp.sym):
            out.append(self.action(corp, "place_token", city=city_id, slot=slot))
        out.append(self.action(corp, "pass"))
        return out


class Route(Step):
    description = "run its trains"

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
                raise GameError(f"{corp.sym} doesn't own train {route.train}")
            if train.operated or train.id in trains:
                raise GameError(f"train {train.id} has already run this operating round")
            trains[train.id] = train
            specs.append({"train_name": train.name, "train_id": train.id, "distance": train.distance,
                          "multiplier": train.multiplier, "connections": route.connections, "nodes": route.nodes})
        revenues = game.route_revenues(corp, specs) if specs else []
        for route, revenue in zip(action.routes, revenues, strict=True):
            if route.revenue is not None and route.revenue != revenue:
                raise GameError(f"train {route.train}'s route pays {game.fmt(revenue)}, not {game.fmt(route.revenue)}")
        for train in trains.values():
            train.operated = True
        self.round.routes = [(r.train, v, r.connections) for r, v in zip(action.routes, revenues, strict=True)]
        self.round.revenue = sum(revenues) + (action.extra_revenue or 0)
        game.last_routes[corp.sym] = self.round.routes
        self.passed = True

    def why_not(self, entity, action) -> str | None:
        if action.type != "run_routes" or not corp_turn(self, entity):
            return None
        if not entity.trains:
            return f"{entity.sym} has no trains to run"
        if all(t.operated for t in entity.trains):
            return f"{entity.sym}'s trains have already run this operating round"
        if not self.game.route_available(entity):
            return f"{entity.sym} has no route for its trains"
        return None

    def legal(self, corp) -> list[dict]:
        best = self.game.best_routes(corp)
        # without a route finder the corporation can still declare a run that earns nothing
        return [self.action(corp, "run_routes", routes=best if best is not None else [])]


class Dividend(Step):
    description = "pay out or withhold"

    def actions(self, entity) -> tuple[str, ...]:
        if corp_turn(self, entity) and self.round.routes and self.round.revenue:
            return ("dividend",)
        return ()

    def process_dividend(self, action, corp: Corporation) -> None:
        if action.kind not in ("payout", "withhold"):
            raise GameError(f"{corp.sym} can pay out or withhold, not {action.kind}")
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
    description = "discard a train over the limit"

    def active_entities(self) -> list:
        return self.game.over_train_limit()[:1]

    def actions(self, entity) -> tuple[str, ...]:
        return ("discard_train",) if entity in self.active_entities() else ()

    def process_discard_train(self, action, corp: Corporation) -> None:
        train = self.game.train(action.train)
        if train.owner is not corp:
            raise GameError(f"{corp.sym} doesn't own train {action.train}")
        self.game.discard_train(train)

    def skip(self) -> None:
        """Nothing to discard: the step stays available for later phase changes."""

    def legal(self, corp) -> list[dict]:
        return [self.action(corp, "discard_train", train=t.id) for t in corp.trains]


class BuyTrain(Step):
    description = "buy trains, or pass"

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

    def other_train_budget(self, corp: Corporation, emergency: bool) -> int:
        """The most the corporation may pay another for a train: with its president's money in an
        emergency, unless the title forbids that (EBUY_FROM_OTHERS "never")."""
        if emergency and corp.owner and self.game.rules.ebuy_from_others != "never":
            return corp.cash + corp.owner.cash
        return corp.cash

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

    def min_depot_price(self, corp: Corporation) -> int:
        prices = [t.price for t in self.depot_trains()]
        prices += [price for _, _, price in self.exchange_options(corp)]
        return min(prices) if prices else 0

    def can_buy(self, corp: Corporation) -> bool:
        if self.room(corp):
            prices = [t.price for t in self.depot_trains()] + [1 for _ in self.other_trains(corp)]
            if prices and min(prices) <= corp.cash:
                return True
        return any(price <= corp.cash for _, _, price in self.exchange_options(corp))

    def must_buy(self, corp: Corporation) -> bool:
        return not corp.trains and self.game.route_available(corp)

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
        if entity is corp.owner and entity is not None and self.emergency(corp) and self.president_short(corp) > 0 \
                and self.emergency_bundles(corp):
            return ("sell_shares",)
        if entity is not corp:
            return ()
        if self.emergency(corp):
            return ("buy_train", "sell_shares")
        if self.can_buy(corp):
            return ("buy_train", "pass") if not self.must_buy(corp) else ("buy_train",)
        return ()

    # --- emergency sales --------------------------------------------------------------------
    def emergency_bundles(self, corp: Corporation) -> list:
        game = self.game
        player = corp.owner
        needed = self.cheapest_depot_price() - corp.cash - player.cash
        if needed <= 0:
            return []
        return [(shares, pct) for other in game.corporations if player.shares_of(other)
                for shares, pct in game.sellable_bundles(player, other)
                if self.emergency_sale_ok(corp, shares, pct, needed)]

    def emergency_sale_ok(self, corp: Corporation, shares: list, pct: int, needed: int) -> bool:
        """Within the market and presidency rules, not the buying corporation's presidency, and no more
        than needed: without its last certificate the sale would fall short."""
        game = self.game
        other = shares[0].corporation
        player = corp.owner
        if pct not in game.sale_percents(other, shares) or not other.ipoed:
            return False
        if not game.fits_in_pool(other, pct) or not game.can_dump(player, other, shares):
            return False
        if other is corp and self.would_change_president(player, corp, pct):
            return False
        per_share = other.share_price.price
        return per_share * (pct // other.share_percent) - per_share < needed

    def raisable(self, corp: Corporation) -> int:
        """The most the president can raise by selling shares now."""
        game = self.game
        player = corp.owner
        total = 0
        for other in game.corporations:
            values = [other.share_price.price * (pct // other.share_percent)
                      for shares, pct in game.sellable_bundles(player, other)
                      if game.fits_in_pool(other, pct) and game.can_dump(player, other, shares)
                      and not (other is corp and self.would_change_president(player, corp, pct))]
            total += max(values, default=0)
        return total

    def would_change_president(self, player: Player, corp: Corporation, pct: int) -> bool:
        percents = self.game.player_percents(corp)
        remaining = percents.get(player, 0) - pct
        return any(v > remaining for p, v in percents.items() if p is not player)

    def process_sell_shares(self, action, player) -> None:
        game = self.game
        corp = self.round.current_entity
        if isinstance(player, Corporation):
            raise GameError(f"{corp.sym}'s president sells shares, not the corporation")
        if player is not corp.owner:
            raise GameError(f"only {corp.sym}'s president may sell shares to buy its train")
        shares = [game.share(sid) for sid in action.shares]
        if not shares or any(s.owner is not player or s.corporation is not shares[0].corporation for s in shares):
            raise GameError(f"{player.name} sells certificates of one corporation that {player.name} holds")
        percent = action.percent if action.percent is not None else sum(s.percent for s in shares)
        needed = self.cheapest_depot_price() - corp.cash - player.cash
        if needed <= 0 or not self.emergency_sale_ok(corp, shares, percent, needed):
            raise GameError(f"{player.name} can't sell {percent}% of {shares[0].corporation.sym} now: "
                            "only as much as needed for the train, within the market and presidency rules")
        game.sell_shares(player, shares, percent)

    # --- buying ---------------------------------------------------------------------------------
    def process_buy_train(self, action, corp: Corporation) -> None:
        game = self.game
        train = game.train(action.train)
        exchange = game.train(action.exchange) if action.exchange else None
        price = action.price
        emergency = self.emergency(corp)
        if train.owner is corp:
            raise GameError(f"{corp.sym} already owns train {train.id}")
        if train.owner is None:
            if train not in self.depot_offer():
                same = next((t for t in self.depot_offer() if t.name == train.name), None)
                if same is not None:
                    raise GameError(f"the bank sells its {train.name}-trains in order: the next one is {same.id}")
                raise GameError(f"train {train.id} isn't for sale yet: the bank sells "
                                f"{', '.join(sorted({t.name for t in self.depot_offer()})) or 'no train'} now")
            if exchange is not None:
                if exchange.owner is not corp or not train.discount or exchange.name not in train.discount:
                    raise GameError(f"{corp.sym} can't trade in {action.exchange} for {train.id}")
                face = train.price - train.discount[exchange.name]
            else:
                face = train.price
            if price != face:
                raise GameError(f"train {train.id} costs {game.fmt(face)}, not {game.fmt(price)}")
            if emergency and exchange is None and price > self.cheapest_depot_price():
                raise GameError(f"{corp.sym} must buy the cheapest train ({game.fmt(self.cheapest_depot_price())}) "
                                "with its president's money")
        else:
            seller = train.owner
            if not isinstance(seller, Corporation) or seller.closed:
                raise GameError(f"train {train.id} isn't for sale")
            if price < 1:
                raise GameError("a train bought from another corporation costs at least $1")
            if self.face_value_only(corp, train) and price != train.price:
                raise GameError(f"train {train.id} changes hands at its face value, {game.fmt(train.price)}")
            if emergency and corp.cash < price and game.rules.ebuy_from_others == "never":
                raise GameError(f"{corp.sym} may not use its president's money for another corporation's train")
            if emergency and corp.cash < price and price > train.price:
                raise GameError(f"with its president's money {corp.sym} pays at most face value for {train.id}")
        if exchange is None and not self.room(corp):
            raise GameError(f"{corp.sym} already has {len(corp.trains)} trains, the limit in phase {game.phase.name}")
        if price > corp.cash:
            if not emergency:
                raise GameError(f"{corp.sym} has {game.fmt(corp.cash)} and can't pay {game.fmt(price)}")
            shortfall = price - corp.cash
            president = corp.owner
            if president.cash < shortfall:
                raise GameError(f"{corp.sym} and its president have {game.fmt(corp.cash + president.cash)}, "
                                f"not {game.fmt(price)}")
            game.transfer(president, corp, shortfall)
        game.buy_train(corp, train, price, exchange)

    def process_pass(self, action, corp) -> None:
        if self.must_buy(corp):
            raise GameError(f"{corp.sym} has no train and must buy one")
        self.passed = True

    def why_not(self, entity, action) -> str | None:
        corp = self.round.current_entity
        if entity is not corp or not isinstance(corp, Corporation):
            return None
        game = self.game
        if action.type == "pass" and self.must_buy(corp):
            return f"{corp.sym} has no train and must buy one"
        if action.type == "buy_train":
            if not self.room(corp) and not action.exchange:
                return f"{corp.sym} already has {len(corp.trains)} trains, the limit in phase {game.phase.name}"
            if self.passed:
                return f"{corp.sym} has finished buying trains this turn"
            if not self.can_buy(corp):
                return f"{corp.sym} has {game.fmt(corp.cash)} and can't pay for any train on sale"
        return None

    def legal(self, entity) -> list[dict]:
        corp = self.round.current_entity
        out = []
        if isinstance(entity, Player):
            for shares, pct in self.emergency_bundles(corp):
                out.append(self.action(entity, "sell_shares", shares=[s.id for s in shares], percent=pct))
            return out
        emergency = self.emergency(corp)
        budget = corp.cash + (corp.owner.cash if emergency and corp.owner else 0)
        if self.room(corp):
            for train in self.depot_offer():
                if train.price <= budget and not (emergency and train.price > self.cheapest_depot_price()):
                    out.append(self.action(corp, "buy_train", train=train.id, price=train.price, variant=train.name))
            # another corporation's train: any price both presidents agree on; offered at face value
            # or what the buyer can pay
            other_budget = self.other_train_budget(corp, emergency)
            for train in self.other_trains(corp):
                if self.face_value_only(corp, train):
                    if train.price <= other_budget:
                        out.append(self.action(corp, "buy_train", train=train.id, price=train.price))
                elif other_budget >= 1:
                    out.append(self.action(corp, "buy_train", train=train.id, price=min(train.price, other_budget)))
        for train, old, price in self.exchange_options(corp):
            if price <= budget:
                out.append(self.action(corp, "buy_train", train=train.id, price=price, variant=train.name,
                                       exchange=old.id))
        if emergency and corp.owner:
            for shares, pct in self.emergency_bundles(corp):
                out.append(self.action(corp.owner, "sell_shares", shares=[s.id for s in shares], percent=pct))
        if not self.must_buy(corp):
            out.append(self.action(corp, "pass"))
        return out


class BuyCompany(Step):
    """A corporation buys a private from a player, within the title's price range."""

    description = "buy a private company, or pass"

    def __init__(self, game, round_, blocks: bool = False) -> None:
        super().__init__(game, round_)
        self.blocks = blocks

    def purchasable(self, corp: Corporation) -> list[Company]:
        return self.game.purchasable_companies(corp)

    @staticmethod
    def price_range(company: Company) -> tuple[int, int]:
        return company.min_price, company.max_price

    def actions(self, entity) -> tuple[str, ...]:
        if not corp_turn(self, entity):
            return ()
        companies = self.purchasable(entity)
        if companies and min(self.price_range(c)[0] for c in companies) <= entity.cash:
            return ("buy_company", "pass") if self.blocks else ("buy_company",)
        return ()

    def why_not(self, entity, action) -> str | None:
        if action.type != "buy_company" or not corp_turn(self, entity):
            return None
        game = self.game
        company = game.company_by_sym.get(getattr(action, "company", None))
        if company is not None and company.ability("no_buy"):
            return f"{company.sym} can never be sold to a corporation"
        if "can_buy_companies" not in game.phase.status and not self.purchasable(entity):
            first = next((p.name for p in game.phases if "can_buy_companies" in p.status), None)
            when = f" (from phase {first})" if first else ""
            return f"corporations can't buy private companies in phase {game.phase.name}{when}"
        if company is not None and company not in self.purchasable(entity):
            return f"{company.sym} isn't for sale: it must be open and owned by a player"
        return None

    def process_buy_company(self, action, corp: Corporation) -> None:
        game = self.game
        company = game.company(action.company)
        reason = self.why_not(corp, action)
        if reason:
            raise GameError(reason)
        if company not in self.purchasable(corp):
            raise GameError(f"{corp.sym} can't buy {company.sym} now")
        low, high = self.price_range(company)
        if not low <= action.price <= high:
            raise GameError(f"{company.sym} sells to a corporation for {game.fmt(low)} to {game.fmt(high)}")
        if action.price > corp.cash:
            raise GameError(f"{corp.sym} has {game.fmt(corp.cash)} and can't pay {game.fmt(action.price)}")
        seller = company.owner
        game.transfer(corp, seller, action.price)
        seller.companies.remove(company)
        company.owner = corp
        corp.companies.append(company)

    def process_pass(self, action, corp) -> None:
        self.passed = True

    def legal(self, corp) -> list[dict]:
        out = []
        for company in self.purchasable(corp):
            low, high = self.price_range(company)
            for price in sorted({low, company.value, high}):
                if price <= corp.cash:
                    out.append(self.action(corp, "buy_company", company=company.sym, price=price))
        if self.blocks:
            out.append(self.action(corp, "pass"))
        return out


class BlockingBuyCompany(BuyCompany):
    def __init__(self, game, round_) -> None:
        super().__init__(game, round_, blocks=True)


class Bankrupt(Step):
    """The president can't raise the money for a train the corporation must buy."""

    blocks = False

    def actions(self, entity) -> tuple[str, ...]:
        if not corp_turn(self, entity):
            return ()
        buy = next((s for s in self.round.steps if isinstance(s, BuyTrain)), None)
        if buy is None or buy.passed or self.round.active_step() is not buy:
            return ()
        if buy.emergency(entity) and buy.president_short(entity) > buy.raisable(entity):
            return ("bankrupt",)
        return ()

    def why_not(self, entity, action) -> str | None:
        if action.type == "bankrupt" and isinstance(entity, Corporation):
            return (f"{entity.sym} can't declare bankruptcy: that is only when it must buy a train and its "
                    "president can't raise the money")
        return None

    def process_bankrupt(self, action, corp: Corporation) -> None:
        self.game.bankrupt(corp.owner, corp)

    def legal(self, corp) -> list[dict]:
        return [self.action(corp, "bankrupt")] if self.actions(corp) else []


__all__ = ["HomeToken", "Track", "SpecialTrack", "Token", "Route", "Dividend", "DiscardTrain", "BuyTrain", "BuyCompany",
           "BlockingBuyCompany", "Bankrupt", "BuySellParShares"]
