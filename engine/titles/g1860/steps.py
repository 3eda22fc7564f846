"""1860 steps: the opening auctions, the stock round with privates sold to and bought from the bank, home
tiles at float, and the operating turn of companies that may be insolvent, in receivership or bankrupt."""

from __future__ import annotations

from engine.core.actions import quoted
from engine.core.distance import Distances
from engine.core.entities import Company, Corporation, Player, Share
from engine.core.errors import GameError, Phrase
from engine.core.steps import Step, operating, stock

PHASE_OF_FISHBOURNE = "6"


# --- the opening auctions -------------------------------------------------------------------------------


class BuyCert(Step):
    """Six auctions for the right to choose a lot: the four starting privates and the president's
    certificates of the first layer. Bids start at 0 and rise by at least 5; a player may bid only if,
    winning, they could still pay for the cheapest lot left. The winner pays the bid and takes a lot at
    its price (a president's certificate: twice the par they choose). If everyone passes, the first to
    act takes a lot for nothing bid (the cheapest one for all their money if that is all they can do)."""

    description = Phrase("bid for the next lot, or buy one")
    MIN_RAISE = 5

    def setup(self) -> None:
        game = self.game
        privates = sorted((c for c in game.companies if c.ability("exchange")), key=lambda c: (c.value, c.name))
        self.lots: list = privates + [c for c in game.corporations if game.layer(c) == 1]
        self.turn_bids: dict[Player, int] = {}
        self.first_player: Player | None = None
        self.setup_auction()

    def setup_auction(self) -> None:
        """Placeholder bids below zero keep the seating order from the player to act."""
        entities = self.round.entities
        start = self.round.entity_index
        n = len(entities)
        self.first_player = entities[start]
        self.turn_bids = {p: -n + ((i - start) % n) for i, p in enumerate(entities)}

    def done(self) -> bool:
        return not self.lots

    def skip(self) -> None:
        """The auctions go on while lots are left."""

    # --- who acts ---------------------------------------------------------------------------------
    def active_entities(self) -> list:
        if not self.lots:
            return []
        if self.turn_bids:
            return [min(self.turn_bids, key=self.turn_bids.get)]
        return [self.round.current_entity]

    def actions(self, entity) -> tuple[str, ...]:
        if not self.lots or entity not in self.active_entities():
            return ()
        if not self.turn_bids:
            return ("bid", "par")
        if self.min_player_bid() + self.cheapest_price() <= entity.cash:
            return ("bid", "pass")
        return ("pass",)

    # --- prices ---------------------------------------------------------------------------------------
    def lot_price(self, lot) -> int:
        if isinstance(lot, Company):
            return lot.value
        return 2 * min(c.price for c in self.game.par_prices(lot))

    def cheapest_lot(self):
        return min(self.lots, key=self.lot_price)

    def cheapest_price(self) -> int:
        return self.lot_price(self.cheapest_lot())

    def highest_bid(self) -> int:
        return max(self.turn_bids.values()) if self.turn_bids else 0

    def min_player_bid(self) -> int:
        return max(self.highest_bid(), 0) + self.MIN_RAISE

    def max_player_bid(self, player: Player) -> int:
        return player.cash - self.cheapest_price()

    def affordable(self, player: Player, lot) -> bool:
        """The winner may always take the cheapest lot (and, when that is a certificate, any certificate)."""
        cheapest = self.cheapest_lot()
        if lot is cheapest or (isinstance(lot, Corporation) and isinstance(cheapest, Corporation)):
            return True
        return player.cash >= self.lot_price(lot)

    def par_cells(self, player: Player, corp: Corporation) -> list:
        cells = [c for c in self.game.par_prices(corp) if 2 * c.price <= player.cash]
        if not cells and isinstance(self.cheapest_lot(), Corporation):
            return [min(self.game.par_prices(corp), key=lambda c: c.price)]
        return cells

    def turn_facts(self, entity) -> dict:
        lots = [{"lot": lot.sym, "kind": "private" if isinstance(lot, Company) else "president",
                 "price": self.lot_price(lot)} for lot in self.lots]
        bids = {p.id: price for p, price in self.turn_bids.items() if price > 0}
        return {"lots": lots, "auction": {"bids": bids, "min": self.min_player_bid(), "winner_chooses": not self.turn_bids}}

    # --- processing -----------------------------------------------------------------------------------
    def process_bid(self, action, player: Player) -> None:
        if not self.turn_bids:
            self.buy_lot(player, action)
            return
        if action.company or action.corporation:
            raise GameError("the lot is chosen once the auction is won: bid without naming one")
        if action.price > self.max_player_bid(player):
            raise GameError("{player} can bid at most {most}: the cheapest lot ({cheapest_price}) must stay "
                            "affordable", player=player.name, most=self.game.fmt(self.max_player_bid(player)),
                            cheapest_price=self.game.fmt(self.cheapest_price()))
        if action.price < self.min_player_bid():
            raise GameError("a bid must be at least {least}", least=self.game.fmt(self.min_player_bid()))
        self.turn_bids[player] = action.price
        self.resolve_auction()

    def process_pass(self, action, player: Player) -> None:
        del self.turn_bids[player]
        self.resolve_auction()

    def resolve_auction(self) -> None:
        if len(self.turn_bids) > 1 or (len(self.turn_bids) == 1 and self.highest_bid() < 0):
            return
        if self.turn_bids:
            (winner, price), = self.turn_bids.items()
            if price > 0:
                self.game.transfer(winner, self.game.bank, price)
        else:
            winner = self.first_player
        self.turn_bids = {}
        self.round.entity_index = self.round.entities.index(winner)

    def buy_lot(self, player: Player, action) -> None:
        game = self.game
        company = game.company_by_sym.get(action.company or "")
        if company is None or company not in self.lots:
            raise GameError("{company} is not a lot of this auction", company=quoted(action.company))
        if not self.affordable(player, company):
            raise GameError("{player} can't pay {value} for {company}", player=player.name,
                            value=game.fmt(company.value), company=company.sym)
        if action.price != company.value:
            raise GameError("{company} costs {value}, not {price}", company=company.sym,
                            value=game.fmt(company.value), price=game.fmt(action.price))
        price = min(company.value, player.cash)
        company.owner = player
        player.companies.append(company)
        if price:
            game.transfer(player, game.bank, price)
        self.lots.remove(company)
        self.next_auction()

    def process_par(self, action, player: Player) -> None:
        game = self.game
        if self.turn_bids:
            raise GameError("the auction must be won before a lot is taken")
        corp = game.corporation(action.corporation)
        if corp not in self.lots:
            raise GameError("{corporation} is not a lot of this auction", corporation=corp.sym)
        if not self.affordable(player, corp):
            raise GameError("{player} can't pay for {corporation}'s president's certificate",
                            player=player.name, corporation=corp.sym)
        cell = game.market.cells.get(action.share_price)
        if cell not in self.par_cells(player, corp):
            prices = ", ".join(game.fmt(c.price) for c in self.par_cells(player, corp))
            raise GameError("{corporation} can be started at {prices}", corporation=corp.sym, prices=prices)
        game.set_par(corp, cell)
        price = min(2 * cell.price, player.cash)
        game.buy_shares(player, [corp.presidents_share], price)
        self.lots.remove(corp)
        self.next_auction()

    def next_auction(self) -> None:
        self.round.next_entity_index()
        if self.lots:
            self.setup_auction()

    # --- what can be done -----------------------------------------------------------------------------
    def legal(self, player) -> list[dict]:
        acts = self.actions(player)
        out = []
        if not self.turn_bids and acts:
            for lot in self.lots:
                if not self.affordable(player, lot):
                    continue
                if isinstance(lot, Company):
                    out.append(self.action(player, "bid", company=lot.sym, price=lot.value))
                else:
                    out.extend(self.action(player, "par", corporation=lot.sym, share_price=c.id)
                               for c in self.par_cells(player, lot))
            return out
        if "bid" in acts:
            low, high = self.min_player_bid(), self.max_player_bid(player)
            for price in sorted({low, min(low + 5, high), min(low + 20, high)}):
                if low <= price <= high:
                    out.append(self.action(player, "bid", price=price))
        if "pass" in acts:
            out.append(self.action(player, "pass"))
        return out


# --- the stock round ------------------------------------------------------------------------------------


class HomeTrack(Step):
    """A company that floats in a stock round lays its home tile at once, free of its tile lays."""

    description = Phrase("lay the home tile")

    def pending(self) -> list[Corporation]:
        return self.game.pending_home_tracks

    def active_entities(self) -> list:
        pending = self.pending()
        return pending[:1]

    def home(self, corp: Corporation) -> str:
        return self.game.home_hexes(corp)[0]

    def lays(self, corp: Corporation) -> list[tuple[str, str, int]]:
        game = self.game
        return game.hexmap.legal_lays(corp.sym, colors=game.phase.tiles, hexes=[self.home(corp)])

    def actions(self, entity) -> tuple[str, ...]:
        if entity not in self.active_entities():
            return ()
        return ("lay_tile",) if self.lays(entity) else ("pass", "lay_tile")

    def skip(self) -> None:
        """Waits for a company to float."""

    def turn_facts(self, entity) -> dict:
        return {"home_tile": {"corporation": entity.sym, "hex": self.home(entity)}}

    def process_lay_tile(self, action, corp: Corporation) -> None:
        game = self.game
        if action.hex != self.home(corp):
            raise GameError("{corporation} lays its home tile on {home}", corporation=corp.sym,
                            home=self.home(corp))
        cost = game.hexmap.check_lay(corp.sym, action.hex, action.tile, action.rotation, colors=game.phase.tiles)
        if cost > corp.cash:
            raise GameError("{corporation} has {cash} and can't pay {cost}", corporation=corp.sym,
                            cash=game.fmt(corp.cash, corp), cost=game.fmt(cost, corp))
        game.lay_tile(corp, action.hex, action.tile, action.rotation, cost)
        self.pending().pop(0)

    def process_pass(self, action, corp: Corporation) -> None:
        self.pending().pop(0)

    def legal(self, corp) -> list[dict]:
        out = [self.action(corp, "lay_tile", hex=h, tile=t, rotation=r) for h, t, r in self.lays(corp)]
        return out or [self.action(corp, "pass")]


class Exchange(stock.Exchange):
    """A starting private is exchanged, in a stock round and out of turn too, for the first certificate in
    its company's IPO, once that company has a par price; its certificates may all be bought from then on."""

    def exchangeable(self, company: Company) -> list[Share]:
        ability = self.exchange_ability(company)
        if not ability:
            return []
        corp = self.game.corporation(ability["corporations"][0])
        if not corp.ipoed:
            return []
        share = next((s for s in corp.shares_of(corp) if not s.president), None)
        return [share] if share is not None else []

    def process_buy_shares(self, action, company: Company) -> None:
        game = self.game
        shares = [game.share(sid) for sid in action.shares]
        if len(shares) != 1 or shares[0] not in self.exchangeable(company):
            raise GameError("{company} can't be exchanged for {shares}", company=company.sym,
                            shares=', '.join(action.shares))
        share = shares[0]
        corp = share.corporation
        player = company.owner
        for s in corp.shares:
            s.buyable = True
        game.buy_shares(player, [share], free=True)
        game.close_company(company)


class BuySellParShares(stock.BuySellParShares):
    """Sell, then buy one certificate or private (or start a company of an available layer within its par
    range); one sale of each company a turn; a president's certificate may be sold to the market (the
    company goes into receivership) and bought back from there by a shareholder; privates are sold to the
    bank for face value less a fee, and bought back from it at face value."""

    # --- what the player may do ---------------------------------------------------------------------
    def must_sell(self, player: Player) -> bool:
        return self.can_sell_any(player) and self.game.num_certs(player) > self.game.cert_limit

    def under_limit(self, player: Player) -> bool:
        return self.game.num_certs(player) < self.game.cert_limit

    def keeps_turn_open(self, player: Player) -> bool:
        return self.last_chance_to_exchange(player)

    def last_chance_to_exchange(self, player: Player) -> bool:
        """After starting a company whose private the player holds, or buying a private, once the Fishbourne
        ferry is for sale, the player keeps the turn open to exchange before it is bought."""
        game = self.game
        if PHASE_OF_FISHBOURNE not in game.phase_names_reached:
            return False
        bought = [c for kind, c in self.current_actions if kind == "company"]
        if bought:
            return bought[0] is not None and bought[0].sym != "FFC"
        parred = next((c for kind, c in self.current_actions if kind == "par"), None)
        if parred is None:
            return False
        return any(a["type"] == "exchange" and parred.sym in a["corporations"]
                   for company in player.companies for a in company.abilities)

    # --- buying shares ----------------------------------------------------------------------------------
    def share_price(self, share: Share) -> int:
        corp = share.corporation
        if share.president and share.owner is self.game.pool:
            return corp.share_price.price  # one share's price: the buyer hands a certificate back
        return super().share_price(share)

    def cash_needed(self, share: Share) -> int:
        """What a player must have to buy the certificate: its full price (18xx.games asks that much for the
        president's certificate from the market too, though it takes one share's price)."""
        corp = share.corporation
        return self.game.certificate_price(share, (corp.par_price if share.owner is corp else corp.share_price).price)

    def offered_shares(self, holder, corp: Corporation) -> list[Share]:
        return [s for s in holder.shares_of(corp) if s.buyable and (not s.president or holder is self.game.pool)]

    def can_buy_from(self, player: Player, corp: Corporation, holder) -> bool:
        """18xx.games' test: the smallest buyable certificate there, affordable and within the limit."""
        shares = self.offered_shares(holder, corp)
        if not shares or self.sold_this_round(player, corp) or (self.bought and not self.can_buy_multiple(corp, holder)):
            return False
        smallest = min(shares, key=lambda s: s.percent)
        price = self.game.certificate_price(smallest, (corp.par_price if holder is corp else corp.share_price).price)
        return player.cash >= price and self.under_limit(player)

    def can_buy_any(self, player: Player) -> bool:
        game = self.game
        return any(self.can_buy_from(player, c, game.pool) for c in game.corporations if game.pool.shares_of(c)) or \
            any(self.can_buy_from(player, c, c) for c in game.corporations if c.ipoed)

    def can_buy_share(self, player: Player, share: Share) -> bool:
        game = self.game
        corp = share.corporation
        if not corp.ipoed:  # a bankrupt company's shares wait for its relaunch (a standing order may name it)
            return False
        if share.owner is not corp and share.owner is not game.pool:
            return False
        if not share.buyable or self.sold_this_round(player, corp):
            return False
        if share.president and (share.owner is not game.pool or not player.percent_of(corp)):
            return False
        if self.bought and not self.can_buy_multiple(corp, share.owner):
            return False
        return self.cash_needed(share) <= player.cash and self.under_limit(player)

    def buyable_shares(self, player: Player, corp: Corporation) -> list[tuple[Share, int]]:
        if not corp.ipoed:
            return []
        game = self.game
        offered = stock.certificates_on_offer(game, corp)
        pres = corp.presidents_share
        if pres.owner is game.pool:
            offered.append(pres)
        return [(s, self.share_price(s)) for s in offered if self.can_buy_share(player, s)]

    def check_buy(self, action, player: Player) -> tuple[Share, int]:
        game = self.game
        shares = [game.share(sid) for sid in action.shares]
        if len(shares) != 1:
            raise GameError("buy one certificate at a time")
        share = shares[0]
        corp = share.corporation
        if share.owner is not corp and share.owner is not game.pool:
            raise GameError("{share} is not for sale: {name} holds it", share=share.id,
                            name=game.name_of(share.owner))
        if not corp.ipoed:
            raise GameError("{corporation} has no par price yet: its president's certificate must be bought "
                            "first", corporation=corp.sym)
        if not share.buyable:
            raise GameError("{share} is reserved for the exchange of a private", share=share.id)
        if share.president and share.owner is corp:
            raise GameError("the president's certificate of {corporation} is bought by setting the par price",
                            corporation=corp.sym)
        if share.president and not player.percent_of(corp):
            raise GameError("only a shareholder of {corporation} may buy its president's certificate from "
                            "the market", corporation=corp.sym)
        if self.sold_this_round(player, corp):
            raise GameError("{player} sold {corporation} this round and can't buy it again",
                            player=player.name, corporation=corp.sym)
        if self.bought and not self.can_buy_multiple(corp, share.owner):
            raise GameError("{player} has already bought this turn", player=player.name)
        if not self.under_limit(player):
            raise GameError("{player} is at the certificate limit of {cert_limit}", player=player.name,
                            cert_limit=game.cert_limit)
        price = self.share_price(share)
        if self.cash_needed(share) > player.cash:
            raise GameError("{player} has {cash} and can't pay {price} for {share}", player=player.name,
                            cash=game.fmt(player.cash), price=game.fmt(self.cash_needed(share)),
                            share=share.id)
        return share, price

    def process_buy_shares(self, action, player: Player) -> None:
        share, price = self.check_buy(action, player)
        from_ipo = share.owner is share.corporation
        game = self.game
        if share.president:  # from the market: bought as one share
            corp = share.corporation
            game.transfer(player, game.bank, price)
            game.transfer_shares([share], player, corp.share_percent)
            if not corp.floated and game.floats(corp):  # it has a president again: half sold, it floats
                corp.floated = True
                game.float_corporation(corp)
        else:
            game.buy_shares(player, [share], price)
        player.passed = False
        self.bought_from_ipo = self.bought_from_ipo or from_ipo
        self.track(player, share.corporation, "buy")

    # --- starting companies -----------------------------------------------------------------------------
    def can_ipo_any(self, player: Player) -> bool:
        """As 18xx.games reckons it: a company without a par price whose president's certificate the player
        could pay at the lowest price a share may have (any layer)."""
        if self.bought or not self.under_limit(player):
            return False
        game = self.game
        return any(not c.ipoed and not self.sold_this_round(player, c) and c.presidents_share.owner is c
                   and 2 * game.min_price(c) <= player.cash for c in game.corporations)

    def par_cells(self, player: Player, corp: Corporation) -> list:
        if corp.ipoed or not self.game.layer_available(corp):
            return []
        return [c for c in self.game.par_prices(corp) if 2 * c.price <= player.cash]

    def check_par(self, action, player: Player):
        game = self.game
        corp = game.corporation(action.corporation)
        if corp.ipoed:
            raise GameError("{corporation} already has a par price", corporation=corp.sym)
        if not game.layer_available(corp):
            raise GameError("{corporation} (layer {layer}) is not available yet: companies up to layer "
                            "{current_layer} are", corporation=corp.sym, layer=game.layer(corp),
                            current_layer=game.current_layer())
        if self.bought:
            raise GameError("{player} has already bought this turn", player=player.name)
        if self.sold_this_round(player, corp):
            raise GameError("{player} sold {corporation} this round and can't buy it again",
                            player=player.name, corporation=corp.sym)
        if not self.under_limit(player):
            raise GameError("{player} is at the certificate limit of {cert_limit}", player=player.name,
                            cert_limit=game.cert_limit)
        cell = game.market.cells.get(action.share_price)
        low, high = game.par_range_of(corp)
        if cell not in game.par_prices(corp):
            raise GameError("{corporation} is started at a par price from {low} to {high}",
                            corporation=corp.sym, low=game.fmt(low), high=game.fmt(high))
        price = 2 * cell.price
        if price > player.cash:
            raise GameError("{player} has {cash} and can't pay {price} to start {corporation} at {price2}",
                            player=player.name, cash=game.fmt(player.cash), price=game.fmt(price),
                            corporation=corp.sym, price2=game.fmt(cell.price))
        return corp, cell, price

    # --- selling ----------------------------------------------------------------------------------------
    def sellable_bundles(self, player: Player, corp: Corporation) -> list[tuple[list[Share], int]]:
        game = self.game
        if not self.sale_in_order() or self.sold_in_block(corp):
            return []
        return [(shares, pct) for shares, pct in game.sellable_bundles(player, corp)
                if game.fits_in_pool(corp, pct) and self.can_dump(player, corp, shares, pct)]

    def can_dump(self, player: Player, corp: Corporation, shares: list[Share], percent: int) -> bool:
        """The whole president's certificate may always go to the market (into receivership if nobody holds
        as much); part of it only if another player holds more than one share or the market has a
        certificate to give in change."""
        pres = corp.presidents_share
        if pres not in shares or percent >= pres.percent:
            return True
        others = [v for p, v in self.game.player_percents(corp).items() if p is not player]
        return max(others, default=0) > corp.share_percent or bool(self.game.pool.percent_of(corp))

    def check_sale(self, player: Player, corp: Corporation, shares: list[Share], percent: int) -> None:
        game = self.game
        if not corp.ipoed:
            raise GameError("{corporation} has no par price: its certificates can't be sold",
                            corporation=corp.sym)
        if self.sold_in_block(corp):
            raise GameError("{player} has sold {corporation} this turn: all of a sale goes at once",
                            player=player.name, corporation=corp.sym)
        if percent not in game.sale_percents(corp, shares):
            raise GameError("{player} can't sell {percent}% of {corporation} as {shares}", player=player.name,
                            percent=percent, corporation=corp.sym, shares=', '.join(s.id for s in shares))
        if not game.fits_in_pool(corp, percent):
            raise GameError("the market can't take {percent}% more of {corporation}", percent=percent,
                            corporation=corp.sym)
        if not self.can_dump(player, corp, shares, percent):
            raise GameError("{player} can't sell part of {corporation}'s president's certificate: the market "
                            "has no certificate to give in change and no other player holds two shares",
                            player=player.name, corporation=corp.sym)

    def process_sell_shares(self, action, player: Player) -> None:
        game = self.game
        corp = game.share(action.shares[0]).corporation if action.shares else None
        if corp is not None and corp.share_price is not None and action.share_price is not None and \
                action.share_price != game.share_price_for_sale(corp):
            raise GameError("{corporation}'s shares sell for {price} each", corporation=corp.sym,
                            price=game.fmt(game.share_price_for_sale(corp)))
        super().process_sell_shares(action, player)
        self.game.check_bank_broken()

    # --- privates -----------------------------------------------------------------------------------------
    def can_buy_any_company(self, player: Player) -> bool:
        if self.bought or player.cash <= 0 or not self.under_limit(player):
            return False
        return any(not self.sold_this_round(player, c) for c in self.game.bank_companies())

    def companies_for_sale(self, player: Player) -> list[Company]:
        if not self.can_buy_any_company(player):
            return []
        return [c for c in self.game.bank_companies()
                if not self.sold_this_round(player, c) and c.value <= player.cash]

    def process_buy_company(self, action, player: Player) -> None:
        game = self.game
        company = game.company(action.company)
        if company.owner is not game.bank:
            raise GameError("{company} is not for sale by the bank", company=company.sym)
        if company not in self.companies_for_sale(player):
            raise GameError("{player} can't buy {company} now", player=player.name, company=company.sym)
        if action.price != company.value:
            raise GameError("the bank sells {company} for {value}", company=company.sym,
                            value=game.fmt(company.value))
        company.owner = player
        player.companies.append(company)
        game.transfer(player, game.bank, company.value)
        player.passed = False
        self.current_actions.append(("company", company))
        stock.track_for_programs(self.round, player, company, "buy_company", game.programs.seq)
        if company.sym == "FFC":
            game.close_other_companies(company)

    def can_sell_any_company(self, player: Player) -> bool:
        return not self.bought and self.game.turn > 1 and bool(player.companies)

    def sale_value(self, company: Company) -> int:
        return company.value - self.game.company_sale_fee

    def process_sell_company(self, action, player: Player) -> None:
        game = self.game
        company = game.company(action.company)
        if company.owner is not player:
            raise GameError("{player} doesn't own {company}", player=player.name, company=company.sym)
        if not self.can_sell_any_company(player):
            raise GameError("privates are sold to the bank from the second stock round, before buying")
        if action.price != self.sale_value(company):
            raise GameError("the bank pays {price} for {company}", price=game.fmt(self.sale_value(company)),
                            company=company.sym)
        player.companies.remove(company)
        company.owner = game.bank
        if self.sale_value(company) > 0:
            game.transfer(game.bank, player, self.sale_value(company))
        self.round.players_sold.setdefault(player.id, set()).add(company.sym)
        player.passed = False
        self.current_actions.append(("sell_company", None))
        stock.track_for_programs(self.round, player, company, "sell_company", game.programs.seq)
        game.check_bank_broken()

    # --- what can be done ---------------------------------------------------------------------------------
    def legal(self, player) -> list[dict]:
        acts = self.actions(player)
        game = self.game
        out = [a for a in super().legal(player) if a["type"] not in ("par", "buy_company")]
        for action in out:
            if action["type"] == "sell_shares":
                corp = game.share(action["shares"][0]).corporation
                if game.share_price_for_sale(corp) != corp.share_price.price:
                    action["share_price"] = game.share_price_for_sale(corp)
        if "par" in acts:
            for corp in self.game.corporations:
                out.extend(self.action(player, "par", corporation=corp.sym, share_price=c.id)
                           for c in self.par_cells(player, corp))
        if "buy_company" in acts:
            out.extend(self.action(player, "buy_company", company=c.sym, price=c.value)
                       for c in self.companies_for_sale(player))
        if "sell_company" in acts:
            out.extend(self.action(player, "sell_company", company=c.sym, price=self.sale_value(c))
                       for c in player.companies)
        return out


# --- track -------------------------------------------------------------------------------------------


def biggest_train_distance(game, corp: Corporation) -> tuple[int, int]:
    """(cities, towns) the company's biggest train may count (towns without limit, unless trains must stop
    at every town)."""
    if not corp.trains:
        return 0, 0
    biggest = max(corp.trains, key=lambda t: t.distance[0]["pay"])
    towns = biggest.distance[-1]["pay"] if game.option("no_skip_towns") else 9999
    return biggest.distance[0]["pay"], towns


def reachable_city(d, train) -> bool:
    unused = train[0] - d[0] - 1
    return d[0] < train[0] and d[1] <= train[1] + unused


def reachable_town(d, train) -> bool:
    unused = train[0] - d[0]
    return d[0] <= train[0] and d[1] < train[1] + unused


def reachable_halt(d, train) -> bool:
    unused = train[0] - d[0]
    return d[0] <= train[0] and d[1] <= train[1] + unused


def reachable_node(distances, node, train) -> bool:
    if train[0] == 0:
        return False
    d = distances.node(node)
    if d is None:
        return False
    if node.kind == "city":
        return reachable_city(d, train)
    if node.kind == "town" and not node.halt:
        return reachable_town(d, train)
    return reachable_halt(d, train)


def reachable_hex(distances, hex_, train) -> bool:
    """Some node of the hex (or, without nodes, some of its track) is within the train's reach."""
    tile = hex_.tile
    if not any(distances.path(p) for p in tile.paths):
        return False
    if tile.nodes:
        for node in tile.nodes:
            d = distances.node(node)
            if d is None:
                continue
            if node.kind in ("city", "offboard"):
                if reachable_city(d, train):
                    return True
            elif node.kind == "town" and not node.halt:
                if reachable_town(d, train):
                    return True
            elif reachable_halt(d, train):
                return True
        return False
    return any(distances.path(p) and reachable_halt(distances.path(p), train) for p in tile.paths)


def _end_within(new, old) -> bool:
    if isinstance(new, int) or isinstance(old, int):
        return isinstance(new, int) and isinstance(old, int) and new == old
    if new.kind == "town" and new.halt:
        return old.kind == "town"
    if new.kind == "town":
        return old.kind == "town" and not old.halt
    return new.kind == old.kind


def path_within(new, old_ends) -> bool:
    """Every end of the new path is an end of the old one (18xx.games' Path#<=)."""
    return all(any(_end_within(n, o) for o in old_ends) for n in new.ends)


def upgrade_refusal(game, corp: Corporation, hex_, tile_id: str, rotation: int) -> GameError | None:
    """An upgrade must lie within reach of the company's biggest train, and give it new track it can reach
    or change the revenue of a stop it can reach."""
    hm = game.hexmap
    train = biggest_train_distance(game, corp)
    before = game.distances(corp)
    old = hex_.tile
    saved = sorted(max_revenue(n) for n in old.nodes if reachable_node(before, n, train))
    old_ends = [p.ends for p in old.paths]  # as laid: the trial lay turns the old tile back to rotation 0
    with hm.trial_lay(hex_.coord, tile_id, rotation):
        after = Distances(hm, corp.sym)
        new = hex_.tile
        if not reachable_hex(after, hex_, train):
            return GameError("no train of {corporation} reaches {coord}", corporation=corp.sym,
                             coord=hex_.coord)
        changed = saved != sorted(max_revenue(n) for n in new.nodes if reachable_node(after, n, train))
        walked = hm.connected_paths(corp.sym)
        used_new = False
        for np in new.paths:
            if np not in walked or not after.path(np) or not reachable_path(after.path(np), train):
                continue
            if not any(path_within(np, ends) for ends in old_ends):
                used_new = True
    if not used_new and not changed:
        return GameError("it must give the company new track or change a revenue it can reach")
    return None


def reachable_path(d, train) -> bool:
    return train[0] > 0 and d[0] <= train[0] and d[1] <= train[1]


def max_revenue(node) -> int:
    revenue = node.revenue
    return max(revenue.values()) if isinstance(revenue, dict) else revenue


# --- the operating round --------------------------------------------------------------------------------


class DiscardTrain(operating.DiscardTrain):
    """A company over its train limit discards at the start of its own turn."""

    def active_entities(self) -> list:
        return self.game.crowded[:1]

    def process_discard_train(self, action, corp: Corporation) -> None:
        super().process_discard_train(action, corp)
        self.game.crowded = [corp] if corp in self.game.over_train_limit() else []


class Track(operating.Track):
    """Two yellow tiles or one upgrade (a city tile only as the first and only lay); no track in
    receivership, nor from the stock round after the Southern Railway formed; an insolvent company lays only
    free tiles; an upgrade must be reached by the company's biggest train and bring it new track or a
    changed revenue."""

    def actions(self, entity) -> tuple[str, ...]:
        if not isinstance(entity, Corporation) or entity.receivership or self.game.sr_after_southern:
            return ()
        return super().actions(entity)

    def lay_refusal(self, lay, hex_) -> GameError | None:
        return super().lay_refusal(lay, hex_)

    def tile_refusal(self, corp, hex_, tile_id: str, rotation: int, cost: int) -> GameError | None:
        game = self.game
        tile = game.hexmap.tile(tile_id) if "-" in tile_id else None
        if tile is not None and tile.cities and self.round.num_laid_track > 0:
            return GameError("a city tile can only be the turn's first and only lay")
        if corp in game.insolvent and cost > 0:
            return GameError("an insolvent company may only lay free tiles")
        if hex_.tile.color != "white":
            return upgrade_refusal(game, corp, hex_, tile_id, rotation)
        return None


class Token(operating.Token):
    def actions(self, entity) -> tuple[str, ...]:
        game = self.game
        if not isinstance(entity, Corporation) or entity.receivership or entity in game.insolvent or \
                game.sr_after_southern:
            return ()
        return super().actions(entity)


class Route(operating.Route):
    """A company runs its trains (an insolvent one the bank's cheapest train, leased); routes are checked
    under 1860's rules (engine.titles.g1860.routes) and earn revenue and halt subsidies."""

    def actions(self, entity) -> tuple[str, ...]:
        game = self.game
        if not isinstance(entity, Corporation) or not operating.corp_turn(self, entity):
            return ()
        game.check_insolvency(entity)
        if not entity.trains and entity not in game.insolvent:
            return ()
        if not game.route_available(entity):
            return ()
        return ("run_routes",)

    def process_run_routes(self, action, corp: Corporation) -> None:
        game = self.game
        if not action.routes and not game.may_run_nothing(corp):
            raise GameError("{corporation} must run a route", corporation=corp.sym)
        runnable = {t.id: t for t in game.runnable_trains(corp)}
        seen = {route.train for route in action.routes}
        results = game.run_results(corp, [r.model_dump() for r in action.routes])
        for route, (revenue, subsidy) in zip(action.routes, results, strict=True):
            if route.revenue is not None and route.revenue != revenue:
                raise GameError("train {train}'s route pays {revenue}, not {revenue2}", train=route.train,
                                revenue=game.fmt(revenue, corp), revenue2=game.fmt(route.revenue, corp))
            if route.subsidy is not None and route.subsidy != subsidy:
                raise GameError("train {train}'s route earns a subsidy of {subsidy}, not {subsidy2}",
                                train=route.train, subsidy=game.fmt(subsidy, corp),
                                subsidy2=game.fmt(route.subsidy, corp))
        for train_id in seen:
            if runnable[train_id].owner is corp:  # a leased train goes back to the bank unmarked
                runnable[train_id].operated = True
        self.round.routes = [(r.train, v, r.connections) for r, (v, _) in zip(action.routes, results, strict=True)]
        self.round.revenue = sum(v for v, _ in results)
        self.round.subsidy = sum(s for _, s in results)
        game.last_routes[corp.sym] = self.round.routes
        self.passed = True


class Dividend(operating.Dividend):
    """Pay out or withhold; halt subsidies go to the treasury either way. Insolvent companies and those in
    receivership withhold, and in the British Rail end game companies pay out, without being asked."""

    def forced_kind(self, corp: Corporation) -> str | None:
        game = self.game
        if corp.receivership or corp in game.insolvent:
            return "withhold"
        if game.nationalization:
            return "payout"
        return None

    def actions(self, entity) -> tuple[str, ...]:
        if not operating.corp_turn(self, entity) or self.forced_kind(entity):
            return ()
        return super().actions(entity)

    def process_dividend(self, action, corp: Corporation) -> None:
        if action.kind not in ("payout", "withhold"):
            raise GameError("{corporation} can pay out or withhold, not {kind}", corporation=corp.sym,
                            kind=action.kind)
        self.pay(corp, action.kind)

    def skip(self) -> None:
        corp = self.round.current_entity
        if isinstance(corp, Corporation) and not self.passed:
            self.pay(corp, self.forced_kind(corp) or "withhold")
        self.passed = True

    def pay(self, corp: Corporation, kind: str) -> None:
        game = self.game
        revenue = self.round.revenue if self.round.routes else 0
        game.pay_dividend_1860(corp, revenue, getattr(self.round, "subsidy", 0), kind)
        self.round.routes = []
        self.round.revenue = 0
        self.round.subsidy = 0
        self.passed = True


class BuyTrain(operating.BuyTrain):
    """Trains from the bank at face value, or from another company at any price from 10 credits in tens
    (not another company's last train, unless the buyer has none; not in receivership, nor from a bankrupt
    company or one in receivership, nor in the British Rail end game). A company without trains must buy
    one if it has more than the bank's cheapest costs. Presidents never pay for trains."""

    def actions(self, entity) -> tuple[str, ...]:
        corp = self.round.current_entity
        game = self.game
        if entity is not corp or not isinstance(corp, Corporation):
            return ()
        if corp.receivership and corp.trains:
            return ()
        if not self.buyable_trains(corp) or corp in game.bankrupt:
            return ()
        if self.must_buy(corp):
            return ("buy_train",)
        if self.can_buy(corp):
            return ("buy_train", "pass")
        return ()

    def must_buy(self, corp: Corporation) -> bool:
        price = self.game.min_depot_price()
        return not corp.trains and corp not in self.game.bankrupt and price > 0 and corp.cash > price

    def emergency(self, corp: Corporation) -> bool:
        return False

    def can_buy(self, corp: Corporation) -> bool:
        """Room, and enough for the cheapest train on offer (another company's counts at one credit)."""
        if not self.room(corp):
            return False
        prices = [t.price for t in self.depot_trains()] + [1 for _ in self.all_other_trains(corp)]
        return bool(prices) and min(prices) <= corp.cash

    def all_other_trains(self, corp: Corporation) -> list:
        return [t for c in self.game.corporations if c is not corp for t in c.trains]

    def other_trains(self, corp: Corporation) -> list:
        game = self.game
        if corp.cash < game.rules.train_price_min or game.nationalization or corp.receivership:
            return []
        return [t for t in self.all_other_trains(corp)
                if t.owner not in game.bankrupt and not t.owner.receivership
                and (not corp.trains or len(t.owner.trains) >= 2)]

    def buyable_trains(self, corp: Corporation) -> list:
        depot = self.depot_trains() if corp.cash >= self.game.min_depot_price() else []
        return depot + self.other_trains(corp)

    def price_range(self, corp: Corporation, train) -> tuple[int, int]:
        return self.game.rules.train_price_min, corp.cash

    def process_buy_train(self, action, corp: Corporation) -> None:
        game = self.game
        train = game.train(action.train)
        if train not in self.buyable_trains(corp):
            raise GameError("{corporation} can't buy train {train} now", corporation=corp.sym, train=train.id)
        if action.variant is not None and action.variant != train.name:
            raise GameError("train {train} is a {train2}-train, not {variant}", train=train.id,
                            train2=train.name, variant=action.variant)
        if train.owner is None:
            if action.price != train.price:
                raise GameError("train {train} costs {price}", train=train.id,
                                price=game.fmt(train.price, corp))
        else:
            low, high = self.price_range(corp, train)
            if not low <= action.price <= high:
                raise GameError("{corporation} may pay {low} to {high} for {train}", corporation=corp.sym,
                                low=game.fmt(low, corp), high=game.fmt(high, corp), train=train.id)
            if action.price % game.rules.train_price_multiple:
                raise GameError("a train changes hands for a multiple of {train_price_multiple}",
                                train_price_multiple=game.fmt(game.rules.train_price_multiple, corp))
        if not self.room(corp):
            raise GameError("{corporation} already has {n} trains, the limit in phase {phase}",
                            corporation=corp.sym, n=len(corp.trains), phase=game.phase.name)
        if action.price > corp.cash:
            raise GameError("{corporation} has {cash} and can't pay {price}", corporation=corp.sym,
                            cash=game.fmt(corp.cash, corp), price=game.fmt(action.price, corp))
        game.buy_train(corp, train, action.price)
        self.end_if_nothing_more(corp)

    def process_pass(self, action, corp) -> None:
        if self.must_buy(corp):
            raise GameError("{corporation} has no train and must buy one", corporation=corp.sym)
        self.passed = True

    def legal(self, corp) -> list[dict]:
        if corp is not self.round.current_entity:
            return []
        out = []
        if self.room(corp):
            for train in self.depot_trains():
                if train.price <= corp.cash and train in self.buyable_trains(corp):
                    out.append(self.action(corp, "buy_train", train=train.id, price=train.price, variant=train.name))
            step = self.game.rules.train_price_multiple
            for train in self.other_trains(corp):
                low, high = self.price_range(corp, train)
                high -= high % step
                for price in sorted({low, min(train.price, high) - min(train.price, high) % step, high}):
                    if low <= price <= high:
                        out.append(self.action(corp, "buy_train", train=train.id, price=price))
        if not self.must_buy(corp):
            out.append(self.action(corp, "pass"))
        return out
