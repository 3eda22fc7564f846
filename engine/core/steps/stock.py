"""Stock-round steps: sell, buy one certificate (or par a corporation), sell; and private exchanges."""

from __future__ import annotations

from engine.core.entities import Company, Corporation, Player, Share
from engine.core.errors import GameError, Phrase
from engine.core.steps import Step


class BuySellParShares(Step):
    description = Phrase("buy, sell or pass")
    secure_percent = 50  # programs: a president holding this much can't be unseated by another player's buy

    def setup(self) -> None:
        # this turn's (kind, corporation): kind is buy, par, sell or company (a private bought)
        self.current_actions: list[tuple[str, Corporation | None]] = []
        self.bought_from_ipo = False
        player = self.round.current_entity
        if isinstance(player, Player):
            # what other players' programs look at: each player's latest turn
            self.round.players_history.setdefault(player.id, {}).clear()

    # --- state of the turn -------------------------------------------------------------------
    @property
    def bought(self) -> bool:
        return any(kind in ("buy", "par", "company") for kind, _ in self.current_actions)

    def normal_pass(self) -> bool:
        """A pass now would end the turn (programs pass only then; 1817: not a drop out of an auction)."""
        return True

    def track(self, player: Player, corp: Corporation, kind: str) -> None:
        self.current_actions.append((kind, corp))
        track_for_programs(self.round, player, corp, kind, self.game.programs.seq)

    def sold_this_round(self, player: Player, corp: Corporation) -> bool:
        return corp.sym in self.round.players_sold.get(player.id, ())

    def sold_in_block(self, corp: Corporation) -> bool:
        """Where a title sells in blocks, a corporation sold this turn can't be sold again in the turn."""
        return self.game.rules.must_sell_in_blocks and any(
            kind == "sell" and c is corp for kind, c in self.current_actions)

    def actions(self, entity) -> tuple[str, ...]:
        if entity is not self.round.current_entity:
            return ()
        if self.must_sell(entity):
            return ("sell_shares",)
        acts = []
        if self.can_buy_any(entity):
            acts.append("buy_shares")
        if self.can_ipo_any(entity):
            acts.append("par")
        if self.can_buy_any_company(entity):
            acts.append("buy_company")
        if self.can_sell_any(entity):
            acts.append("sell_shares")
        if self.can_sell_any_company(entity):
            acts.append("sell_company")
        if acts or self.keeps_turn_open(entity):
            acts.append("pass")
        return tuple(acts)

    def can_buy_any_company(self, player: Player) -> bool:
        return bool(self.companies_for_sale(player))

    def can_sell_any_company(self, player: Player) -> bool:
        """Whether the player may sell a private to the bank now (1860)."""
        return False

    def keeps_turn_open(self, player: Player) -> bool:
        """A turn with nothing left to do but still open (1860: a private to exchange before the ferry sells)."""
        return False

    def must_sell(self, player: Player) -> bool:
        game = self.game
        over = game.num_certs(player) > game.cert_limit or \
            any(not game.holding_ok(player, c, 0) for c in game.corporations if player.shares_of(c))
        return over and self.can_sell_any(player)

    # --- buying ------------------------------------------------------------------------------
    def buyable_shares(self, player: Player, corp: Corporation) -> list[tuple[Share, int]]:
        """(certificate, price) the player may buy now, one of each size per source (IPO, market)."""
        return [(s, self.share_price(s)) for s in certificates_on_offer(self.game, corp)
                if self.can_buy_share(player, s)]

    def share_price(self, share: Share) -> int:
        corp = share.corporation
        return self.game.certificate_price(share, corp.par_price.price if share.owner is corp
                                           else corp.share_price.price)

    def can_buy_share(self, player: Player, share: Share) -> bool:
        """The player may buy this certificate now: cash, no sale of it this round, one buy a turn (or
        more in the brown zone), certificate and holding limits."""
        game = self.game
        corp = share.corporation
        if not corp.ipoed or (share.owner is not corp and share.owner is not game.pool):
            return False
        if not share.buyable or not self.may_trade(corp) or self.sold_this_round(player, corp):
            return False
        if self.bought and not self.can_buy_multiple(corp, share.owner):
            return False
        if self.share_price(share) > player.cash:
            return False
        if not game.has_room_for(player, share):
            return False
        return game.holding_ok(player, corp, share.percent)

    def may_trade(self, corp: Corporation) -> bool:
        """Whether a corporation's certificates are traded in stock rounds now (18MEX NdM: from phase 3½)."""
        return True

    def can_buy_multiple(self, corp: Corporation, owner) -> bool:
        """Brown-zone shares may be bought several a turn (only from the market, and not after an IPO buy,
        unless the title allows more)."""
        if not self.multiple_from_ipo_allowed(corp) and (owner is not self.game.pool or self.bought_from_ipo):
            return False
        if "multiple_buy" not in corp.share_price.types:
            return False
        return not any(kind == "par" or (kind == "buy" and c is not corp) for kind, c in self.current_actions)

    def multiple_from_ipo_allowed(self, corp: Corporation) -> bool:
        return False

    def can_buy_any(self, player: Player) -> bool:
        return any(self.buyable_shares(player, c) for c in self.game.corporations)

    def process_buy_shares(self, action, player: Player) -> None:
        share, price = self.check_buy(action, player)
        from_ipo = share.owner is share.corporation
        self.game.buy_shares(player, [share], price)
        player.passed = False
        self.bought_from_ipo = self.bought_from_ipo or from_ipo
        self.track(player, share.corporation, "buy")

    def check_buy(self, action, player: Player) -> tuple[Share, int]:
        game = self.game
        shares = [game.share(sid) for sid in action.shares]
        corp = shares[0].corporation
        owner = shares[0].owner
        if any(s.corporation is not corp or s.owner is not owner for s in shares):
            raise GameError("buy certificates of one corporation from one place at a time")
        if len(shares) != 1:
            raise GameError("buy one certificate at a time")
        share = shares[0]
        if action.percent is not None and action.percent != share.percent:
            raise GameError("{share} is a {percent}% certificate, not {percent2}%", share=share.id,
                            percent=share.percent, percent2=action.percent)
        if owner is not corp and owner is not game.pool:
            raise GameError("{share} is not for sale: {name} holds it", share=share.id,
                            name=game.name_of(owner))
        if not share.buyable:
            raise GameError("{share} is reserved: it can't be bought", share=share.id)
        if not self.may_trade(corp):
            raise GameError("{corporation}'s certificates can't be bought or sold now", corporation=corp.sym)
        if not corp.ipoed:
            raise GameError("{corporation} has no par price yet: its president's certificate must be bought "
                            "first", corporation=corp.sym)
        if share.president:
            raise GameError("the president's certificate of {corporation} is bought by setting the par price",
                            corporation=corp.sym)
        if self.sold_this_round(player, corp):
            raise GameError("{player} sold {corporation} this round and can't buy it again",
                            player=player.name, corporation=corp.sym)
        if self.bought and not self.can_buy_multiple(corp, owner):
            raise GameError("{player} has already bought this turn", player=player.name)
        if not game.has_room_for(player, share):
            raise GameError("{player} is at the certificate limit of {cert_limit}", player=player.name,
                            cert_limit=game.cert_limit)
        if not game.holding_ok(player, corp, share.percent):
            raise GameError("{player} may not hold more than {percent_limit}% of {corporation}",
                            player=player.name, percent_limit=corp.max_ownership_percent,
                            corporation=corp.sym)
        price = game.certificate_price(share, corp.par_price.price if owner is corp else corp.share_price.price)
        if price > player.cash:
            raise GameError("{player} has {cash} and can't pay {price} for {share}", player=player.name,
                            cash=game.fmt(player.cash), price=game.fmt(price), share=share.id)
        return share, price

    # --- par ---------------------------------------------------------------------------------
    def can_ipo_any(self, player: Player) -> bool:
        if self.bought:
            return False
        game = self.game
        if game.num_certs(player) + 1 > game.cert_limit:
            return False
        low = min(c.price for c in game.market.par_prices)
        # the first certificate in the IPO at the lowest par price, as 18xx.games reckons it; a closed
        # corporation counts as one that could start (which keeps its turn order), though none is ever
        # offered or accepted
        for corp in game.corporations:
            ipo = corp.shares_of(corp)
            if corp.ipoed or not ipo or not ipo[0].buyable or self.sold_this_round(player, corp):
                continue
            if game.certificate_price(ipo[0], low) <= player.cash and game.holding_ok(player, corp, ipo[0].percent):
                return True
        return False

    def process_par(self, action, player: Player) -> None:
        corp, cell, price = self.check_par(action, player)
        self.game.set_par(corp, cell)
        self.game.buy_shares(player, [corp.presidents_share], price)
        player.passed = False
        self.track(player, corp, "par")

    def check_par(self, action, player: Player):
        game = self.game
        corp = game.corporation(action.corporation)
        if corp.ipoed:
            raise GameError("{corporation} already has a par price", corporation=corp.sym)
        if corp.closed:
            raise GameError("{corporation} has closed", corporation=corp.sym)
        if corp.presidents_share.owner is not corp:
            raise GameError("the president's certificate of {corporation} is not for sale",
                            corporation=corp.sym)
        if self.bought:
            raise GameError("{player} has already bought this turn", player=player.name)
        cell = game.par_cell(action.share_price)
        price = cell.price * corp.presidents_share.num_shares
        if price > player.cash:
            raise GameError("{player} has {cash} and can't pay {price} to start {corporation} at {price2}",
                            player=player.name, cash=game.fmt(player.cash), price=game.fmt(price),
                            corporation=corp.sym, price2=game.fmt(cell.price))
        if game.num_certs(player) + 1 > game.cert_limit:
            raise GameError("{player} is at the certificate limit of {cert_limit}", player=player.name,
                            cert_limit=game.cert_limit)
        return corp, cell, price

    # --- selling -----------------------------------------------------------------------------
    def sale_allowed_now(self) -> bool:
        return self.sale_refusal() is None

    def sale_timing_ok(self, corp: Corporation) -> bool:
        """Whether the corporation's shares could be sold at this point of the game (programs: a newly started
        corporation is a move to answer when it could be sold at once)."""
        return self.sale_allowed_now()

    def sale_refusal(self) -> GameError | None:
        if not (self.game.rules.sells_in_first_stock_round() or self.game.turn > 1):
            return GameError("no certificates may be sold in the first stock round")
        if not self.sale_in_order():
            return GameError("no more certificates may be sold this turn after buying")
        return None

    def sale_in_order(self) -> bool:
        """Whether the title's order of sales and purchases in a turn allows a sale now."""
        order = self.game.rules.sell_buy_order
        if order == "sell_buy":
            return not self.bought
        if order == "sell_buy_or_buy_sell":
            kinds = {"sell" if kind == "sell" else "buy" for kind, _ in self.current_actions}
            return not (len(kinds) == 2 and self.current_actions[-1][0] != "sell")
        return True

    def sellable_bundles(self, player: Player, corp: Corporation) -> list[tuple[list[Share], int]]:
        game = self.game
        if not self.sale_allowed_now() or not self.may_trade(corp) or self.sold_in_block(corp):
            return []
        return [(shares, pct) for shares, pct in game.sellable_bundles(player, corp)
                if game.fits_in_pool(corp, pct) and game.can_dump(player, corp, shares)]

    def can_sell_any(self, player: Player) -> bool:
        return any(self.sellable_bundles(player, c) for c in self.game.corporations if player.shares_of(c))

    def process_sell_shares(self, action, player: Player) -> None:
        game = self.game
        shares, corp, percent = self.parse_sale(action, player)
        if not self.sale_allowed_now():
            raise self.sale_refusal()
        self.check_sale(player, corp, shares, percent)
        game.sell_shares(player, shares, percent)
        self.round.players_sold.setdefault(player.id, set()).add(corp.sym)
        player.passed = False
        self.track(player, corp, "sell")

    def parse_sale(self, action, player: Player) -> tuple[list[Share], Corporation, int]:
        game = self.game
        shares = [game.share(sid) for sid in action.shares]
        if not shares:
            raise GameError("name the certificates to sell")
        corp = shares[0].corporation
        for s in shares:
            if s.corporation is not corp:
                raise GameError("sell certificates of one corporation at a time")
            if s.owner is not player:
                raise GameError("{player} doesn't hold {share}", player=player.name, share=s.id)
        percent = action.percent if action.percent is not None else sum(s.percent for s in shares)
        return shares, corp, percent

    def check_sale(self, player: Player, corp: Corporation, shares: list[Share], percent: int) -> None:
        game = self.game
        if not corp.ipoed:
            raise GameError("{corporation} has no par price yet: its certificates can't be sold",
                            corporation=corp.sym)
        if not self.may_trade(corp):
            raise GameError("{corporation}'s certificates can't be bought or sold now", corporation=corp.sym)
        if self.sold_in_block(corp):
            raise GameError("{player} has sold {corporation} this turn: all of a sale goes at once",
                            player=player.name, corporation=corp.sym)
        game.check_presidents_certificate_last(player, corp, shares)
        if percent not in game.sale_percents(corp, shares):
            raise GameError("{player} can't sell {percent}% of {corporation} as {action_ids}",
                            player=player.name, percent=percent, corporation=corp.sym,
                            action_ids=', '.join(action_ids(shares)))
        if not game.fits_in_pool(corp, percent):
            room = game.rules.market_share_limit - game.pool.percent_of(corp)
            raise GameError("the market may hold at most {percent_limit}% of {corporation}: only {room}% "
                            "more can be sold", percent_limit=game.rules.market_share_limit,
                            corporation=corp.sym, room=room)
        if not game.can_dump(player, corp, shares):
            raise GameError("{player} can't give up the presidency of {corporation}: no other player holds "
                            "{percent}%", player=player.name, corporation=corp.sym,
                            percent=corp.presidents_share.percent)
        if game.keeps_presidency_without_certificate(player, corp, shares, percent):
            raise GameError("{player} may sell the president's certificate of {corporation} only in a sale "
                            "that hands over the presidency", player=player.name, corporation=corp.sym)

    def why_not(self, player, action) -> GameError | None:
        if player is not self.round.current_entity:
            return None
        checks = {"buy_shares": self.check_buy, "par": self.check_par, "sell_shares": self.check_sell}
        check = checks.get(action.type)
        if check is None:
            return None
        try:
            check(action, player)
        except GameError as e:
            return e
        return None

    def check_sell(self, action, player: Player) -> None:
        if not self.sale_allowed_now():
            raise self.sale_refusal()
        shares, corp, percent = self.parse_sale(action, player)
        self.check_sale(player, corp, shares, percent)

    # --- privates between players -------------------------------------------------------------
    def companies_for_sale(self, player: Player) -> list[Company]:
        """Privates other players may sell to this one now, instead of a share, at any price they agree
        (when the phase allows). One that brings a certificate (1830 CA) takes it along from where it
        lies, unless a player holds it: then the sale is refused (company_sale_refusal)."""
        game = self.game
        if self.bought or player.cash <= 0 or not self.interplayer_sales_open():
            return []
        return game.purchasable_companies(player)

    def company_sale_refusal(self, company: Company) -> GameError | None:
        """A private whose certificate (1830 CA, 18MEX MIR) is with a player can't change hands: buying it
        would move that certificate again (18xx.games refuses the purchase)."""
        ability = company.ability("shares")
        if ability and isinstance(self.game.share(ability["shares"]).owner, Player):
            return GameError("{company} can't be sold: the certificate it came with would have to change "
                             "hands", company=company.sym)
        return None

    def interplayer_sales_open(self) -> bool:
        return "can_buy_companies_from_other_players" in self.game.phase.status

    def process_buy_company(self, action, player: Player) -> None:
        game = self.game
        company = game.company(action.company)
        if company not in self.companies_for_sale(player) or company.owner is player:
            raise GameError("{player} can't buy {company} now", player=player.name, company=company.sym)
        refusal = self.company_sale_refusal(company)
        if refusal:
            raise refusal
        if action.price < 1 or action.price > player.cash:
            raise GameError("{player} may pay {value} to {cash} for {company}", player=player.name,
                            value=game.fmt(1), cash=game.fmt(player.cash), company=company.sym)
        game.sell_company(company, player, action.price)
        game.after_buy_company(player, company, action.price)
        player.passed = False
        self.current_actions.append(("company", None))

    # --- passing -----------------------------------------------------------------------------
    def process_pass(self, action, player: Player) -> None:
        player.passed = not self.current_actions
        self.passed = True

    def skip(self) -> None:
        player = self.round.current_entity
        if player is not None:
            player.passed = not self.current_actions
        self.passed = True

    # --- what can be done --------------------------------------------------------------------
    def legal(self, player) -> list[dict]:
        game = self.game
        acts = self.actions(player)
        out = []
        if "sell_shares" in acts:
            for corp in game.corporations:
                if player.shares_of(corp):
                    for shares, pct in self.sellable_bundles(player, corp):
                        if not game.keeps_presidency_without_certificate(player, corp, shares, pct):
                            out.append(self.action(player, "sell_shares", shares=action_ids(shares), percent=pct))
        if "buy_shares" in acts:
            for corp in game.corporations:
                for share, _price in self.buyable_shares(player, corp):
                    out.append(self.action(player, "buy_shares", shares=[share.id], percent=share.percent))
        if "par" in acts:
            for corp in game.corporations:
                if corp.ipoed or corp.closed or corp.presidents_share.owner is not corp:
                    continue
                for cell in game.market.par_prices:
                    if cell.price * corp.presidents_share.num_shares <= player.cash:
                        out.append(self.action(player, "par", corporation=corp.sym, share_price=cell.id))
        if "buy_company" in acts:
            for company in self.companies_for_sale(player):
                if company.owner is player or self.company_sale_refusal(company):
                    continue
                for price in sorted({1, min(company.value, player.cash), player.cash}):
                    out.append(self.action(player, "buy_company", company=company.sym, price=price))
        if "pass" in acts:
            out.append(self.action(player, "pass"))
        return out


def action_ids(shares: list[Share]) -> list[str]:
    return [s.id for s in shares]


def track_for_programs(round_, player: Player, corp: Corporation | Company, kind: str, seq: int) -> None:
    """Note a stock-round deal in the player's latest turn, for other players' programs to look at."""
    history = getattr(round_, "players_history", None)
    if history is not None:
        history.setdefault(player.id, {}).setdefault(corp.sym, []).append((seq, kind))


def certificates_on_offer(game, corp: Corporation) -> list[Share]:
    """The certificates of a corporation with a par price that may be bought: one of each size from its IPO
    and one of each size from the market."""
    if not corp.ipoed:
        return []
    return first_of_each_size(corp, corp) + first_of_each_size(game.pool, corp)


def first_of_each_size(holder, corp: Corporation) -> list[Share]:
    """The buyable certificates of a corporation a holder (its IPO, the market) offers: one of each size."""
    out: dict[int, Share] = {}
    for share in holder.shares_of(corp):
        if share.buyable and not share.president:
            out.setdefault(share.percent, share)
    return list(out.values())


class Exchange(Step):
    """A private traded for a share (1830 MH for a 10% NYC certificate), at any time."""

    blocks = False
    for_companies = True

    def exchange_ability(self, entity):
        if isinstance(entity, Company) and not entity.closed and isinstance(entity.owner, Player):
            return entity.ability("exchange")
        return None

    def exchangeable(self, company: Company) -> list[Share]:
        game = self.game
        ability = self.exchange_ability(company)
        if not ability:
            return []
        player = company.owner
        out = []
        for sym in ability["corporations"]:
            corp = game.corporation(sym)
            if not game.holding_ok(player, corp, corp.share_percent):
                continue
            sources = []
            if "ipo" in ability.get("from", []):
                sources.append(corp)
            if "market" in ability.get("from", []):
                sources.append(game.pool)
            for source in sources:
                shares = [s for s in source.shares_of(corp) if not s.president]
                if shares:
                    out.append(shares[0])
        return out

    def actions(self, entity) -> tuple[str, ...]:
        return ("buy_shares",) if self.exchangeable(entity) else ()

    def why_not(self, entity, action) -> GameError | None:
        if isinstance(entity, Company) and entity.ability("exchange"):
            if entity.closed:
                return GameError("{entity} has closed", entity=entity.sym)
            if not isinstance(entity.owner, Player):
                owner = self.game.name_of(entity.owner) if entity.owner else "the bank"
                return GameError("{entity} belongs to {owner}: only a player who owns it can exchange it",
                                 entity=entity.sym, owner=owner)
        return None

    def process_buy_shares(self, action, company: Company) -> None:
        game = self.game
        shares = [game.share(sid) for sid in action.shares]
        allowed = self.exchangeable(company)
        allowed_sources = {(s.corporation.sym, id(s.owner)) for s in allowed}
        if len(shares) != 1 or (shares[0].corporation.sym, id(shares[0].owner)) not in allowed_sources \
                or shares[0].president:
            raise GameError("{company} can't be exchanged for {shares}", company=company.sym,
                            shares=', '.join(action.shares))
        player = company.owner
        game.close_company(company)
        game.buy_shares(player, shares, free=True)
        track_for_programs(self.round, player, shares[0].corporation, "buy", game.programs.seq)

    def legal(self, entity) -> list[dict]:
        out = []
        player = self.game.player_of(entity)
        for company in self.game.companies:
            if company.owner is player:
                for share in self.exchangeable(company):
                    out.append(self.action(company, "buy_shares", shares=[share.id], percent=share.percent))
        return out
