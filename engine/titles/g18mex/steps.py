"""18MEX steps: the core's steps with the title's differences (see engine.titles.g18mex.game)."""

from __future__ import annotations

from engine.core.entities import Company, Corporation, Minor, Player, Share
from engine.core.errors import GameError, Phrase
from engine.core.steps import Step, operating, stock

KCMO = "KCMO"


class BuySellParShares(stock.BuySellParShares):
    """NdM certificates are traded only from phase 3½. Change is made with 5% certificates: a player
    with a 5% may buy a 10% from the market handing the 5% in (paying half), and one may sell a 10% taking a
    5% back from the market (receiving half)."""

    def may_trade(self, corp: Corporation) -> bool:
        return not (corp.sym == "NdM" and "ndm_unavailable" in self.game.phase.status)

    # --- buying with change ------------------------------------------------------------------
    def swap_for_buy(self, player: Player, share: Share) -> Share | None:
        """The player's 5% certificate to hand in for this market 10% one, if such a buy is allowed: when the
        buy of a 5% certificate would be."""
        game = self.game
        corp = share.corporation
        if corp.sym != "NdM" or share.percent != 10 or share.owner is not game.pool or \
                game.num_certs(player) >= game.cert_limit:
            return None
        half = next((s for s in player.shares_of(corp) if s.percent == 5), None)
        if half is None or self.sold_this_round(player, corp) or (self.bought and not self.can_buy_multiple(corp, share.owner)):
            return None
        # as on 18xx.games, the player must be able to pay for the 5% buy, a dollar more than the swap
        # costs when half the price is rounded up
        if game.certificate_price(half, corp.share_price.price) > player.cash or not self.may_trade(corp) or \
                not game.holding_ok(player, corp, 5):
            return None
        return half

    def can_buy_any(self, player: Player) -> bool:
        if super().can_buy_any(player):
            return True
        ndm = self.game.corporation_by_sym["NdM"]
        tens = [s for s in self.game.pool.shares_of(ndm) if s.percent == 10]
        return bool(tens) and self.swap_for_buy(player, tens[0]) is not None

    def swap_price(self, bought: Share, given: Share) -> int:
        per = bought.corporation.share_price.price
        return self.game.certificate_price(bought, per) - self.game.certificate_price(given, per)

    def check_buy(self, action, player: Player):
        if not action.swap:
            return super().check_buy(action, player)
        share, half = self.swap_buy(action, player)
        return share, self.swap_price(share, half)

    def swap_buy(self, action, player: Player) -> tuple[Share, Share]:
        """(the 10% certificate, the 5% one handed in) of a buy with change; GameError if it isn't allowed."""
        game = self.game
        share = game.share(action.shares[0]) if len(action.shares) == 1 else None
        half = self.swap_for_buy(player, share) if share is not None else None
        if half is None or half.id != action.swap:
            given = game.share(action.swap)
            if share is not None and given.owner is player and given.percent == 5 and \
                    game.certificate_price(given, share.corporation.share_price.price) > player.cash:
                raise GameError("{player} has {cash}: handing in a 5% certificate for a 10% one takes the price of a "
                                "5% certificate ({price}) in hand", player=player.name, cash=game.fmt(player.cash),
                                price=game.fmt(game.certificate_price(given, share.corporation.share_price.price)))
            raise GameError("{player} can't buy {shares} handing in {swap}", player=player.name,
                            shares=', '.join(action.shares), swap=action.swap)
        return share, half

    def process_buy_shares(self, action, player) -> None:
        if not action.swap:
            super().process_buy_shares(action, player)
            return
        game = self.game
        share, half = self.swap_buy(action, player)
        price = self.swap_price(share, half)
        game.give_share(half, game.pool)
        game.buy_shares(player, [share], price)
        player.passed = False
        self.track(player, share.corporation, "buy")

    # --- selling with change -----------------------------------------------------------------
    def swap_for_sale(self, player: Player, shares: list[Share], percent: int) -> Share | None:
        """A market 5% certificate to take back for these NdM certificates, if selling 5% less is allowed."""
        game = self.game
        corp = shares[0].corporation
        if corp.sym != "NdM" or percent == 5 or any(s.president for s in shares):
            return None
        half = next((s for s in game.pool.shares_of(corp) if s.percent == 5), None)
        if half is None or not self.sale_allowed_now() or not self.may_trade(corp):
            return None
        if percent - 5 not in [p - 5 for p in game.sale_percents(corp, shares)] or \
                not game.fits_in_pool(corp, percent - 5) or not game.can_dump(player, corp, shares):
            return None
        return half

    def process_sell_shares(self, action, player) -> None:
        if not action.swap:
            super().process_sell_shares(action, player)
            return
        game = self.game
        shares, corp, percent = self.parse_sale(action, player)
        half = self.swap_for_sale(player, shares, percent)
        if half is None or half.id != action.swap:
            raise GameError("{player} can't sell {shares} taking {swap} in change", player=player.name,
                            shares=', '.join(action.shares), swap=action.swap)
        was_president = corp.owner is player
        price = -(-corp.share_price.price * percent // corp.share_percent) - \
            game.certificate_price(half, corp.share_price.price)
        game.give_share(half, player)
        game.transfer_shares(shares, game.pool, percent)
        game.transfer(game.bank, player, price)
        game.move_after_sale(corp, percent - half.percent, was_president)
        self.round.players_sold.setdefault(player.id, set()).add(corp.sym)
        player.passed = False
        self.track(player, corp, "sell")

    def legal(self, player) -> list[dict]:
        out = super().legal(player)
        game = self.game
        ndm = game.corporation_by_sym["NdM"]
        acts = self.actions(player)
        if "buy_shares" in acts:
            for share in stock.first_of_each_size(game.pool, ndm):
                half = self.swap_for_buy(player, share)
                if half is not None:
                    out.append(self.action(player, "buy_shares", shares=[share.id], percent=share.percent,
                                           swap=half.id))
        if "sell_shares" in acts:
            for shares, percent in self.sellable_bundles(player, ndm):
                half = self.swap_for_sale(player, shares, percent)
                if half is not None:
                    out.append(self.action(player, "sell_shares", shares=stock.action_ids(shares), percent=percent,
                                           swap=half.id))
        return out


class BlockingBuyCompany(operating.BlockingBuyCompany):
    """The purchase of privates after buying trains opens only with phase 3, the optional early
    KCM&O purchase aside (as on 18xx.games)."""

    def purchasable(self, corp: Corporation) -> list[Company]:
        return super().purchasable(corp) if "can_buy_companies" in self.game.phase.status else []


class Track(operating.Track):
    """Two yellow lays or one upgrade (minors: one yellow); the KCMO's Copper Canyon lay keeps the step
    open; a tile on either half of Mexico City is laid on both."""

    def kcmo_lay_left(self, operator) -> bool:
        kcmo = self.game.company_by_sym.get(KCMO)
        return kcmo is not None and kcmo.owner is operator and bool(self.game.abilities(kcmo, "tile_lay"))

    def can_lay(self, operator) -> bool:
        if isinstance(operator, Minor):
            home = self.game.hexmap.hex(operator.home)
            if home.tile.color == "white":  # a minor's first lay is on its home hex, terrain paid
                return self.tile_lay(operator) is not None and \
                    sum(u.get("cost", 0) for u in home.tile.upgrades) <= operator.cash
        return super().can_lay(operator)

    def actions(self, entity) -> tuple[str, ...]:
        if operating.corp_turn(self, entity) and (self.can_lay(entity) or self.kcmo_lay_left(entity)):
            return "lay_tile", "pass"
        return ()

    def process_lay_tile(self, action, operator) -> None:
        if not self.can_lay(operator):
            raise GameError("{operator} has no tile lay left this turn", operator=operator.sym)
        super().process_lay_tile(action, operator)
        if self.kcmo_lay_left(operator):
            self.passed = False

    def follow_up_cost(self, hex_) -> int:
        return self.game.partner_lay_cost(hex_.coord)

    def after_lay(self, action, operator) -> None:
        self.game.after_lay(operator, action.hex)


class SpecialTrack(operating.SpecialTrack):
    """The KCMO's Copper Canyon tile, laid during the owner's track step."""

    def abilities(self, company) -> dict | None:
        ability = super().abilities(company)
        if ability is None:
            return None
        track = self.round.active_step()
        return ability if isinstance(track, (operating.Track, operating.SpecialTrack)) else None

    def process_lay_tile(self, action, company: Company) -> None:
        super().process_lay_tile(action, company)
        self.game.after_lay(company.owner, action.hex, by=company)


class Dividend(operating.Dividend):
    """A minor's revenue is shared half and half with its owner (its share of an odd sum is the smaller)."""

    def actions(self, entity) -> tuple[str, ...]:
        if isinstance(entity, Minor):
            return ()
        return super().actions(entity)

    def skip(self) -> None:
        operator = self.round.current_entity
        if isinstance(operator, Minor):
            self.game.pay_minor(operator, self.round.revenue)
            self.passed = True
            return
        super().skip()


class SingleDepotTrainBuy(operating.BuyTrain):
    """Before the first 4-train (phase status "limited_train_buy") a corporation buys at most one train
    from the bank per turn."""

    def setup(self) -> None:
        super().setup()
        self.bought_from_depot = False

    def depot_offer(self) -> list:
        if self.bought_from_depot and "limited_train_buy" in self.game.phase.status:
            return []
        return super().depot_offer()

    def turn_facts(self, entity) -> dict:
        facts = super().turn_facts(entity)
        if "limited_train_buy" in self.game.phase.status:
            facts["bank_trains_left"] = 0 if self.bought_from_depot else 1
        return facts

    def process_buy_train(self, action, corp: Corporation) -> None:
        game = self.game
        train = game.train(action.train)
        from_depot = train.owner is None
        if train.id == "5-0" and game.merge_trigger is None:
            game.merge_trigger = corp.owner  # merger offers start at this player's left
        super().process_buy_train(action, corp)
        if from_depot:
            self.bought_from_depot = True
            # the step ends when nothing more can be bought (18xx.games' "buyable trains": once the president
            # has sold and the corporation can't pay for a bank train, no other corporation's train counts)
            others = [] if self.last_sale_price and corp.cash < self.cheapest_depot_price() \
                else self.offered_other_trains(corp)
            if not self.depot_offer() and not any(low <= high for low, high in
                                                  (self.price_range(corp, t) for t in others)):
                self.passed = True


class Bankrupt(operating.Bankrupt):
    """Bankruptcy only where 18xx.games can weigh the president's shares: while buying trains (it fails
    on any other step of the turn when the president holds shares)."""

    def can_go_bankrupt(self, corp: Corporation) -> bool:
        if self.sale_rule() is None and any(corp.owner.shares_of(c) for c in self.game.corporations):
            return False
        return super().can_go_bankrupt(corp)


class Merge(Step):
    """At the first 5-train: majors are offered in turn to merge into the NdM (floated ones decide for
    themselves; among majors not floated, the NdM's president chooses)."""

    description = Phrase("merge into the NdM, or decline")

    def active_entities(self) -> list:
        return [self.game.merge_decider()] if self.game.merge_candidates else []

    def actions(self, entity) -> tuple[str, ...]:
        return ("merge", "pass") if entity in self.active_entities() else ()

    def skip(self) -> None:
        """Waits for the merger offer."""

    def turn_facts(self, entity) -> dict:
        game = self.game
        return {"merge": {"into": game.ndm.sym, "offered": game.merge_candidates[0].sym,
                          "candidates": [c.sym for c in game.merge_candidates], "decider": game.merge_decider().sym}}

    def process_merge(self, action, corp: Corporation) -> None:
        game = self.game
        major = game.corporation(action.corporation)
        candidates = game.merge_candidates
        if candidates[0].floated and major is not candidates[0]:
            raise GameError("{sym} decides first whether to merge into the NdM", sym=candidates[0].sym)
        if major not in candidates or (major.floated and major is not corp):
            raise GameError("{major} can't merge into the NdM now", major=major.sym)
        game.merge_major(major)

    def process_pass(self, action, corp: Corporation) -> None:
        self.game.decline_merge(self.game.merge_candidates[0])

    def legal(self, entity) -> list[dict]:
        game = self.game
        first = game.merge_candidates[0]
        majors = [first] if first.floated else [c for c in game.merge_candidates if not c.floated]
        out = [self.action(entity, "merge", corporation=c.sym) for c in majors]
        return out + [self.action(entity, "pass")]


class Assign(Step):
    """After a merger: the NdM's president picks which of the merged major's stations becomes the NdM's."""

    description = Phrase("choose the station the NdM keeps")

    def active_entities(self) -> list:
        return [self.game.ndm] if self.game.merged_cities_to_select else []

    def actions(self, entity) -> tuple[str, ...]:
        return ("assign",) if entity in self.active_entities() else ()

    def skip(self) -> None:
        """Waits for a merger."""

    def turn_facts(self, entity) -> dict:
        return {"assign": {"hexes": list(self.game.merged_cities_to_select), "from": self.game.merged_major.sym}}

    def process_assign(self, action, corp: Corporation) -> None:
        target = getattr(action, "target", None)
        if target not in self.game.merged_cities_to_select:
            raise GameError("the NdM keeps a station on one of {cities}",
                            cities=', '.join(self.game.merged_cities_to_select))
        with self.game.findings_kept():
            self.game.select_ndm_city(target)

    def legal(self, entity) -> list[dict]:
        return [self.action(entity, "assign", target=coord, target_type="hex")
                for coord in self.game.merged_cities_to_select]


__all__ = ["Assign", "Bankrupt", "BlockingBuyCompany", "BuySellParShares", "Dividend", "Merge", "SingleDepotTrainBuy",
           "SpecialTrack", "Track"]
