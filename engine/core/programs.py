"""Programmed stock-round actions: a player's standing order to pass, or to buy shares each turn.

As on 18xx.games (docs/formats/log.md, section 4): when it becomes the turn of a player with a
program, the program acts for them, and what it does is recorded as `auto_actions` of the action that
led there. A program switches itself off, with its reason, when its goal is met, when the player must
sell, or when another player did something since the program was set that its owner would want to
answer ("shenanigans"): sold, started a corporation (once sales are allowed, or always for a pass
program), or bought into a corporation whose presidency the owner does not hold securely. What
another player did counts from their latest turn in this round only.

A player has one program at a time. When a round begins that is not a stock round, programs end, an
indefinite pass excepted.

Titles with merger rounds (1817) add a merger-round pass: the president passes for the corporations
named for each kind of merger round (a conversion or merger in the merger round, the offer of a
corporation for sale in the acquisition round), optionally only until another corporation converted,
merged or was acquired; it ends when a round begins that is not a merger round.

Titles whose opening auction is a waterfall (1830, 18MEX) add an auction program for one private: buy it
once it is the cheapest and costs at most a set price, and/or bid on it up to a maximum, and otherwise pass.
Unless told to pass on regardless, it stops once another player bids on a private it would only buy, or
once the price passes its maximum; it always stops when the private is sold or no longer on sale, or
when its owner holds the high bid. It ends with the auction round.
"""

from __future__ import annotations

import re

from engine.core.entities import Corporation, Player
from engine.core.errors import GameError, Phrase

PROGRAM_TYPES = ("program_buy_shares", "program_share_pass", "program_disable")
AUCTION_PROGRAM_TYPES = ("program_auction_bid",)  # for a waterfall auction (engine.core.steps.auction)

# Why a program stops (program_disable's `reason`), in 18xx.games' words: the log keeps the English text, and
# `stop_reason` reads one back as the Phrase it was made from, for a player to read in their language.
OTHERS_ACTED = Phrase("Other players have acted and requested to stop")
OWNED = Phrase("{company} is owned by {player}")
NOT_AVAILABLE = Phrase("{company} is no longer available")
HIGH_BID = Phrase("{player} is already the high bid on {company}")
CANNOT_AFFORD = Phrase("{player} cannot afford {money} for {company}")
BIDS_SUBMITTED = Phrase("Bids submitted for {company}")
OVER_MAXIMUM = Phrase("Price for {company} exceeded maximum bid")
ENDLESS_AUCTION = Phrase("All players pass by program, the auction would not end")
FLOATED = Phrase("{corporation} is floated")
BOUGHT_ENOUGH = Phrase("{n} share(s) bought in {corporation}, end condition met")
# by where the shares are bought: the market, or a title's IPO_NAME (a corporation's unsold shares)
NO_SHARES = {"market": Phrase("Cannot buy {corporation} from market"),
             "IPO": Phrase("Cannot buy {corporation} from IPO"),
             "Treasury": Phrase("Cannot buy {corporation} from Treasury")}
MIXED_SIZES = {"market": Phrase("Shares of different sizes exist, cannot auto buy {corporation} from market"),
               "IPO": Phrase("Shares of different sizes exist, cannot auto buy {corporation} from IPO"),
               "Treasury": Phrase("Shares of different sizes exist, cannot auto buy {corporation} from Treasury")}
MUST_SELL = Phrase("{player} must sell shares")
UNKNOWN_ACTION = Phrase("Unknown action {action} disabling for safety")
PARRED = Phrase("Corporation {corporation} parred")
SOLD = Phrase("Shares were sold")
SHORTED = Phrase("Short bought")
LOAN = Phrase("{corporation} took a loan")
REDEEMED = Phrase("{corporation} redeemed a share.")
UNSECURE = Phrase("{player} bought on corporation {corporation} and is unsecure")
PRESIDENCY_AT_RISK = Phrase("{player} has bought, shares exist that could allow them to gain presidency")
NO_SHARES_BEFORE = Phrase("Cannot buy {corporation}")  # NO_SHARES as games logged before it said where from
STOP_REASONS = (OTHERS_ACTED, OWNED, NOT_AVAILABLE, HIGH_BID, CANNOT_AFFORD, BIDS_SUBMITTED, OVER_MAXIMUM,
                ENDLESS_AUCTION, FLOATED, BOUGHT_ENOUGH, *NO_SHARES.values(), *MIXED_SIZES.values(), MUST_SELL,
                UNKNOWN_ACTION, PARRED, SOLD, SHORTED, LOAN, REDEEMED, UNSECURE, PRESIDENCY_AT_RISK,
                NO_SHARES_BEFORE)  # read back in this order: a reason of NO_SHARES before the shorter one
_STOP_PATTERNS = [(reason, re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", re.escape(reason))))
                  for reason in STOP_REASONS]


def stop_reason(text: str) -> str:
    """A program's stop reason as logged, read back as the Phrase it was made from (its values filled in) so
    that it is worded in the reader's language; a reason of another wording as it is ("user": its owner's)."""
    for reason, pattern in _STOP_PATTERNS:
        found = pattern.fullmatch(str(text or ""))
        if found:
            return Phrase(reason.msgid, **found.groupdict())
    return text


class Programs:
    def __init__(self, game) -> None:
        self.game = game
        self.by_player: dict[int, dict] = {}
        self.seq = 0  # order of the actions processed so far: what "since the program was set" compares
        self.main_seq = 0  # the action whose consequences the programs are playing out
        self.acting = False  # the actions being applied are programs' (an action's auto_actions)
        # auction programs passed everyone round to the privates' payout in this action's auto actions, with no
        # bid since: another such round would change nothing, for ever
        self.auction_round_passed = False

    def tick(self) -> int:
        self.seq += 1
        return self.seq

    def check(self, player: Player, action) -> None:
        """GameError if the program can't be set as given (nothing is changed either way)."""
        if action.type not in self.game.PROGRAM_TYPES:
            raise GameError("{title} has no {action}", title=self.game.TITLE,
                            action=Phrase(action.type.replace('_', ' '), "action"))
        if action.type == "program_buy_shares":
            self.game.corporation(action.corporation)
            until = action.until_condition
            if isinstance(until, int) and until < 1:
                raise GameError("a program buys until at least 1 share is held, not {until}", until=until)
        if action.type == "program_auction_bid":
            self.game.company(action.bid_target)
        if action.type == "program_merger_pass":
            for corporations in action.corporations_by_round.values():
                for sym in corporations:
                    self.game.corporation(sym)

    def set(self, player: Player, action) -> None:
        if action.type == "program_disable":
            self.by_player.pop(player.id, None)
            return
        program = action.model_dump(exclude={"id", "auto_actions", "entity", "entity_type"})
        program["seq"] = self.seq
        self.by_player[player.id] = program

    def round_started(self, round_) -> None:
        """A new round: programs made for another kind of round end."""
        self.by_player = {pid: p for pid, p in self.by_player.items() if self.lasts_into(p, round_)}

    @staticmethod
    def lasts_into(program: dict, round_) -> bool:
        if program["type"] == "program_merger_pass":
            return round_.merger
        if program["type"] == "program_auction_bid":
            return round_.auction
        if program["type"] == "program_share_pass" and program.get("indefinite"):
            return True
        return round_.stock

    def auction_offers(self) -> list[dict]:
        """The privates an auction program may be set for now, each with the lowest bid it takes (the cheapest:
        its price): those on sale in an opening auction that runs such programs; none otherwise."""
        round_ = self.game.round
        if "program_auction_bid" not in self.game.PROGRAM_TYPES or not round_.auction:
            return []
        step = next((s for s in round_.steps if "program_auction_bid" in getattr(s, "PROGRAM_TYPES", ())), None)
        if step is None or not step.companies:
            return []
        return [{"company": c.sym, "price": step.min_bid(c)} for c in step.companies]

    # --- acting --------------------------------------------------------------------------------
    def next_actions(self) -> list[dict]:
        """What the program of the player to act does now (empty when nobody's program acts)."""
        from engine.core.rounds import StockRound
        from engine.core.steps.stock import BuySellParShares

        game = self.game
        if game.finished or not self.by_player:
            return []
        if game.round.merger:
            return self._merger_pass()
        if game.round.auction:
            return self._auction_bid()
        if not isinstance(game.round, StockRound):
            return []
        step = game.round.active_step()
        if not isinstance(step, BuySellParShares):
            return []
        player = next(iter(step.active_entities()), None)  # a bidder, while a corporation is auctioned (1817)
        program = self.by_player.get(getattr(player, "id", None))
        if program is None:
            return []
        available = step.actions(player)
        if not available:
            return []
        if program["type"] == "program_share_pass":
            if "pass" not in available or not step.normal_pass():
                return []
            reason = None if program.get("unconditional") else self.stop_reason(step, player, program, None)
            return [self._disable(player, reason)] if reason else [self._act(player, "pass")]
        if program["type"] == "program_buy_shares":
            return self._buy_shares(step, player, program, available)
        return []

    def _merger_pass(self) -> list[dict]:
        """The merger-round pass of the president to act: it passes when the corporation whose turn it is
        (merger round) or that is on offer (acquisition round) is one of those named for this kind of round."""
        game = self.game
        round_ = game.round
        step = round_.active_step()
        if not hasattr(step, "merger_auto_pass_entity"):
            return []
        actor = next(iter(step.active_entities()), None)
        if actor is None or not step.actions(actor):
            return []
        player = game.player_of(actor)
        program = self.by_player.get(getattr(player, "id", None))
        if program is None or program["type"] != "program_merger_pass":
            return []
        if "disable_others" in (program.get("options") or ()) and program["seq"] != self.main_seq \
                and step.others_acted():
            return [self._disable(player, OTHERS_ACTED)]
        corp = step.merger_auto_pass_entity()
        if corp is None or corp.sym not in (program.get("corporations_by_round") or {}).get(round_.short_name, ()):
            return []
        return [self._act(actor, "pass")]

    def _auction_bid(self) -> list[dict]:
        """The auction program of the player to act (the lowest bidder while a private is auctioned): it
        buys or bids on its private, stops itself, or passes; it bids at the lowest price allowed."""
        step = self.game.round.active_step()
        if "program_auction_bid" not in getattr(step, "PROGRAM_TYPES", ()):
            return []
        player = next(iter(step.active_entities()), None)
        program = self.by_player.get(getattr(player, "id", None))
        if program is None or program["type"] != "program_auction_bid" or not step.actions(player):
            return []
        target = self.game.company(program["bid_target"])
        if target.player is not None:
            return [self._disable(player, OWNED.format(company=target.name, player=target.player.name))]
        if target not in step.companies:
            return [self._disable(player, NOT_AVAILABLE.format(company=target.name))]
        if step.high_bidder(target) is player:
            return [self._disable(player, HIGH_BID.format(player=player.name, company=target.name))]
        price = step.min_bid(target)
        buy_price = program["buy_price"] if program.get("enable_buy_price") else None
        maximum = program["maximum_bid"] if program.get("enable_maximum_bid") else None
        buys = buy_price is not None and price <= buy_price and step.may_purchase(target)
        # with both set, it only ever buys (as on 18xx.games)
        bids = maximum is not None and buy_price is None and price <= maximum
        if buys or bids:
            if price > step.max_bid(player, target):
                return [self._disable(player, CANNOT_AFFORD.format(player=player.name, money=self.game.fmt(price),
                                                                   company=target.name))]
            self.auction_round_passed = False
            return [self._act(player, "bid", company=target.sym, price=price)]
        if not program.get("auto_pass_after"):
            if buy_price is not None and maximum is None and step.bids.get(target.sym):
                return [self._disable(player, BIDS_SUBMITTED.format(company=target.name))]
            if maximum is not None and price > maximum:
                return [self._disable(player, OVER_MAXIMUM.format(company=target.name))]
        if "pass" not in step.actions(player):
            return []
        if not step.auctioning and step.cheapest not in step.companies and \
                all(p.passed for p in self.game.round.entities if p is not player):
            # the last pass of a round of passes, which pays the privates' revenue: a second one by programs
            # alone would be followed by the same round again (18xx.games' programs pass on without end)
            if self.auction_round_passed:
                return [self._disable(player, ENDLESS_AUCTION)]
            self.auction_round_passed = True
        return [self._act(player, "pass")]

    def _buy_shares(self, step, player: Player, program: dict, available) -> list[dict]:
        game = self.game
        corp = game.corporation(program["corporation"])
        until = program.get("until_condition")
        reason = None
        if until == "float":
            if corp.floated:
                reason = FLOATED.format(corporation=corp.sym)
        elif until is not None and player.percent_of(corp) / corp.share_percent >= int(until):
            reason = BOUGHT_ENOUGH.format(n=until, corporation=corp.sym)
        if reason is not None:
            out = [self._disable(player, reason)]
            if program.get("auto_pass_after"):
                out.append(self._act(player, "program_share_pass", unconditional=False, indefinite=False))
            return out
        if "buy_shares" in available:
            from_market = bool(program.get("from_market"))
            source = game.pool if from_market else corp
            # a president's certificate is on offer only from the market (1860: sold there, bought back)
            shares = [s for s in source.shares_of(corp)
                      if (not s.president or s.owner is game.pool) and step.can_buy_share(player, s)]
            where = "market" if from_market else game.IPO_NAME
            if not shares:
                return [self._disable(player, NO_SHARES[where].format(corporation=corp.sym))]
            if len({s.percent for s in shares}) > 1:
                return [self._disable(player, MIXED_SIZES[where].format(corporation=corp.sym))]
            share = shares[0]
            reason = self.stop_reason(step, player, program, share)
            if reason:
                return [self._disable(player, reason)]
            return [self._act(player, "buy_shares", shares=[share.id], percent=share.percent)]
        if step.bought and "pass" in available:
            return [self._act(player, "pass")]
        return []

    def stop_reason(self, step, player: Player, program: dict, share_to_buy) -> str | None:
        """Why the program should stop before acting: the player must sell, or another player's latest
        turn holds something its owner would want to answer (the first such thing, in turn order)."""
        if step.must_sell(player):
            return MUST_SELL.format(player=player.name)
        game = self.game
        for other_id, corps in self.game.round.players_history.items():
            if other_id == player.id:
                continue
            other = game.player(other_id)
            for sym, actions in corps.items():
                # a private bought or sold (1860) is noted under the private: an action programs don't know
                corp = game.corporation_by_sym.get(sym)
                for seq, kind in actions:
                    if seq < program["seq"]:
                        continue
                    reason = self._shenanigan(step, player, other, kind, corp, share_to_buy)
                    if reason:
                        return reason
        return None

    def _shenanigan(self, step, player: Player, other: Player, kind: str, corp: Corporation | None,
                    share_to_buy) -> str | None:
        buying = share_to_buy.corporation if share_to_buy is not None else None
        if corp is None:
            return UNKNOWN_ACTION.format(action=kind)
        if kind == "par":
            if buying is None or step.sale_timing_ok(corp):
                return PARRED.format(corporation=corp.sym)
            return None
        if kind == "sell":
            return str(SOLD)
        if kind == "short":
            return str(SHORTED)
        if kind == "loan":
            return LOAN.format(corporation=corp.sym)
        if kind == "redeem":
            return REDEEMED.format(corporation=corp.sym)
        if kind != "buy":
            return UNKNOWN_ACTION.format(action=kind)
        secure = step.secure_percent
        if corp.owner is not player or player.percent_of(corp) >= secure:
            return None
        if corp is not buying:
            return UNSECURE.format(player=other.name, corporation=corp.sym)
        percent = player.percent_of(corp) + share_to_buy.percent
        if percent > secure:
            return None
        bigger = max((s for s in corp.shares if s.percent > share_to_buy.percent and s.owner is not player),
                     key=lambda s: s.percent, default=None)
        if bigger is not None and percent < other.percent_of(corp) + bigger.percent:
            return PRESIDENCY_AT_RISK.format(player=other.name)
        return None

    def _disable(self, player: Player, reason: str) -> dict:
        return self._act(player, "program_disable", reason=str(reason))

    @staticmethod
    def _act(entity, kind: str, **fields) -> dict:
        if isinstance(entity, Corporation):
            return {"type": kind, "entity": entity.sym, "entity_type": "corporation", **fields}
        return {"type": kind, "entity": entity.id, "entity_type": "player", **fields}
