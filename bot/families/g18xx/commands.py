"""The 18xx family's commands, one class per kind of action (see bot/commands.py): the same verbs for every
18xx title, whose options and autocomplete come from the game's legal moves, so a title's own actions
(18MEX's merger offer, the NdM's station choice) are one more class here and the others serve it as they
are. Actions are 18xx.games action dicts.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from bot.commands import Command, Option, clean, number
from bot.errors import UserError, quote
from bot.families.g18xx.words import (
    PRIVATE_POWERS,
    Words,
    and_list,
    cash_of,
    corp_of,
    corps_of,
    floats,
    holdings_change,
    loan_terms,
    market_price,
    owner_of,
    owner_word,
    players_of,
    president_change,
    price_move,
    price_of,
    route_revenue,
    share_moves,
    tile_name,
    train_owner,
)
from bot.names import CommandName
from engine.core.programs import stop_reason
from i18n import N_, _, lazy, ngettext
from i18n.engine_words import round_text

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from bot.families.g18xx import G18xx
    from bot.session import Change

PLAYER = {"entity": None, "entity_type": "player"}  # the member's own seat (the service's player id)


def of_type(legal: list[dict], *types: str) -> list[dict]:
    return [a for a in legal if a.get("type") in types]


def matching(acts: list[dict], key: str, filled: dict[str, Any]) -> list[dict]:
    """The actions agreeing with the option `key` if it is filled in already."""
    return [a for a in acts if not filled.get(key) or a.get(key) == filled[key]]


def same_entity(a: dict, base: dict) -> bool:
    if base.get("entity") is None:
        return a.get("entity_type") == base.get("entity_type")
    return a.get("entity") == base["entity"] and a.get("entity_type") == base.get("entity_type")


def prices(w: Words, acts: list[dict], key: str) -> list[tuple[str, Any]]:
    return [(f"{w.money_of(a.get('entity'), a.get('entity_type'), a['price'])} ({a.get(key)})", int(a["price"]))
            for a in acts]  # money and a name: the same in every language


def actor(s: G18xx, player: int | None, using: str | None = None, own: bool = False) -> dict:
    """The entity an action is for: a private company used for its ability, the member's own seat (`own`:
    a player's action even while a corporation operates, e.g. selling to raise train cash), or the acting
    entity the seat `player` decides for (several may act at once: corporations over their train limit), else
    the first to act."""
    if using:
        return {"entity": s.company_sym(using), "entity_type": "company"}
    acting = s.acting(player)
    if own and acting.get("entity_type") != "player":
        return dict(PLAYER)
    return {"entity": acting.get("entity"), "entity_type": acting.get("entity_type")}


def using_option(help_text: str) -> Option:
    return Option("using", help_text)


class G18xxCommand(Command):
    """A command whose action may be a private company's ability (`using`): its owner may send it out of
    turn."""

    def out_of_turn(self, options: dict[str, Any]) -> bool:
        return self.any_time or bool(options.get("using"))

    def company_choices(self, legal: list[dict]) -> list[tuple[str, Any]]:
        return [(a["entity"], a["entity"]) for a in of_type(legal, *self.types) if a.get("entity_type") == "company"]

    def paid(self, change: Change) -> int | None:
        a = change.action
        cb = cash_of(change.before, a.get("entity"), a.get("entity_type"))
        ca = cash_of(change.after, a.get("entity"), a.get("entity_type"))
        return (cb - ca) if (cb is not None and ca is not None) else None


# ---------------------------------------------------------------------------- auctions and privates
class Bid(G18xxCommand):
    name, help, types = "bid", N_("Bid on a private, or a corporation to start or acquire (1817); 1860: bid for "
                                  "the first choice"), ("bid",)
    # both optional: 1860's turn auction bids on no company, and a private sold at its set price needs no price
    options = (Option("company", N_("private company, or corporation (1817); none: the first choice of the lots (1860)")),
               Option("price", N_("your bid"), int))
    pictures = frozenset({"companies"})

    def needs_legal(self, options):
        return options.get("price") is None or bool(options.get("company"))

    @staticmethod
    def target(s: G18xx, name: str | None, legal: list[dict] | None) -> tuple[str, str | None]:
        """("company" or "corporation", the name as the game spells it): what a bid is on. A name may be both
        (1817's ME): the legal bids decide, else the round (privates are sold in the opening auction)."""
        if name is None:
            return "company", None
        for a in of_type(legal or [], "bid"):
            for key in ("company", "corporation"):
                if str(a.get(key) or "").upper() == name:
                    return key, a[key]
        corps = {c.upper(): c for c in s.corporations()}
        private_sale = name in (s.summary().get("companies") or {}) and s.summary().get("round") == "Auction Round"
        if name in corps and not private_sale:
            return "corporation", corps[name]
        return "company", s.company_sym(name)

    def build(self, s, opts, player, legal):
        company = str(opts.get("company") or "").strip().upper() or None
        if opts.get("price") is None and company is not None and company.isdigit():  # `bid 55`: a price alone
            opts, company = {**opts, "price": int(company)}, None
        key, company = self.target(s, company, legal)
        if opts.get("price") is None:
            # a purchase at the set price (the cheapest private, a lot of 1860's auction)
            match = [a for a in of_type(legal or [], "bid") if a.get(key) == company and company]
            if not match:
                raise UserError(lazy("Give your bid: `/bid company price`.") if company
                                else lazy("Give your bid: `/bid price`."))
            return clean(match[0])
        action = {"type": "bid", **actor(s, player, own=key == "corporation"), "price": number(opts["price"], "price")}
        if company:
            action[key] = company
        return action

    def choices(self, s, option, filled, legal):
        w = s.words()
        acts = of_type(legal, "bid")
        if option == "company":
            cheapest = (s.turn_info().get("cheapest") or (None,))[0]
            return [(_("{company}: buy it for {money}", company=a.get("company"), money=w.money(a.get("price")))
                     if a.get("company") == cheapest else self.label(s, a), a.get("company") or a.get("corporation"))
                    for a in acts
                    if a.get("company") or a.get("corporation")]
        if not filled.get("company"):
            return [(f"{w.money(a['price'])}", int(a["price"])) for a in acts
                    if not a.get("company") and not a.get("corporation")] or prices(w, acts, "company")
        return prices(w, [a for a in acts if filled.get("company") in (a.get("company"), a.get("corporation"))]
                      or acts, "company")

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        target = a.get("company") or a.get("corporation")
        owner = owner_of(change.after, target)
        if owner is not None and owner != owner_of(change.before, target):
            return _("{name} buys {company} for {money}", name=w.who(owner), company=w.company(target),
                     money=w.money(a.get("price")))
        who = w.who(a.get("entity"), a.get("entity_type"))
        if target is None:
            return _("{name} bids {money} for the first choice of the lots", name=who, money=w.money(a.get("price")))
        before = change.notes.get("turn_before") or {}
        if a.get("corporation") and not before.get("auction") and not before.get("acquisition"):
            return _("{name} opens an auction to start {corporation} with {money}", name=who, corporation=target,
                     money=w.money(a.get("price")))
        return _("{name} bids {money} on {company}", name=who, money=w.money(a.get("price")), company=w.company(target))

    def label(self, s, a):
        target = a.get("company") or a.get("corporation")
        if target is None:
            return _("the first choice of the lots: {money}", money=s.words().money(a.get("price")))
        if (s.turn_info().get("auction") or {}).get("winner_chooses") or \
                target == (s.turn_info().get("cheapest") or (None,))[0]:  # 1860: the lot at its price
            return _("{company}: buy it for {money}", company=target, money=s.words().money(a.get("price")))
        if s.title == "1817" and target in PRIVATE_POWERS:  # the Volatility privates: what each does
            return _("{company} ({power}): {money} or more", company=target, power=_(PRIVATE_POWERS[target]),
                     money=s.words().money(a.get("price")))
        return _("{company}: {money} or more", company=target, money=s.words().money(a.get("price")))

    def options_for(self, a):
        target = a.get("company") or a.get("corporation")
        return {"company": target, "price": a["price"]} if target else {"price": a["price"]}


class Private(G18xxCommand):
    name, help, types = "private", N_("Buy a private company (a corporation from a player, or from the bank), or "
                                      "sell one to the bank"), ("buy_company", "sell_company")
    options = (Option("company", N_("private company"), required=True), Option("price", N_("price"), int))
    pictures = frozenset({"companies"})

    def needs_legal(self, options):
        return True

    def build(self, s, opts, player, legal):
        company = s.company_sym(str(opts["company"]))
        match = [a for a in of_type(legal or [], *self.types) if a.get("company") == company]
        if opts.get("price") is None or (match and match[0]["type"] == "sell_company"):
            # a sale to the bank (at its set price) or a purchase at the one price offered
            if not match:
                raise UserError(lazy("{company} cannot be bought or sold now.", company=quote(company)))
            return clean(match[0])
        return {"type": "buy_company", **actor(s, player), "company": company, "price": number(opts["price"], "price")}

    def choices(self, s, option, filled, legal):
        acts = of_type(legal, *self.types)
        if option == "company":
            return [(self.label(s, a), a["company"]) for a in acts]
        return prices(s.words(), matching(acts, "company", filled), "company")

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        who = w.who(a.get("entity"), a.get("entity_type"))
        price = w.money_of(a.get("entity"), a.get("entity_type"), a.get("price"))
        if a.get("type") == "sell_company":
            return _("{name} sells {company} to the bank for {money}", name=who, company=a.get("company"), money=price)
        owner = owner_of(change.before, a.get("company"))
        if owner is not None:
            return _("{name} buys {company} from {owner} for {money}", name=who, company=a.get("company"),
                     owner=w.who(owner), money=price)
        return _("{name} buys {company} for {money}", name=who, company=a.get("company"), money=price)

    def label(self, s, a):
        price = s.words().money_of(a.get("entity"), a.get("entity_type"), a.get("price"))
        if a.get("type") == "sell_company":
            return _("{company}: sell it to the bank for {money}", company=a.get("company"), money=price)
        owner = owner_of(s.summary(), a.get("company"))
        if owner is not None:
            return _("{company} from {owner} for {money}", company=a.get("company"), owner=s.words().who(owner),
                     money=price)
        return _("{company} for {money}", company=a.get("company"), money=price)

    def options_for(self, a):
        return {"company": a["company"], "price": a["price"]}


# ---------------------------------------------------------------------------- shares
class Par(G18xxCommand):
    name, help, types = "par", N_("Start a corporation at a par price"), ("par",)
    options = (Option("corporation", N_("corporation to start"), required=True),
               Option("price", N_("par price"), required=True))
    pictures = frozenset({"market"})

    def needs_legal(self, options):
        return "," not in str(options.get("price", ""))

    def build(self, s, opts, player, legal):
        corp = str(opts["corporation"]).strip()
        corp = next((a["corporation"] for a in of_type(legal or [], "par") if a["corporation"].upper() == corp.upper()),
                    corp.upper() if corp.upper() in s.corporations() else corp)
        price = str(opts["price"]).strip().lstrip("$")
        if "," not in price:
            match = [a for a in of_type(legal or [], "par")
                     if a.get("corporation") == corp and price_of(str(a["share_price"])) == price]
            if not match:
                allowed = sorted({int(price_of(str(a["share_price"]))) for a in of_type(legal or [], "par")
                                  if a.get("corporation") == corp})
                w = s.words()
                name = corp if corp in s.corporations() else quote(corp)
                asked = w.money(price) if price.isdigit() else quote(price)
                if allowed:
                    raise UserError(lazy("{corporation} cannot be parred at {price}: its par price is one of {prices}.",
                                         corporation=name, price=asked, prices=", ".join(w.money(p) for p in allowed)))
                hint = s.hint(s.written_names())
                if hint:
                    raise UserError(lazy("{corporation} cannot be parred at {price} now; you may {hint}.",
                                         corporation=name, price=asked, hint=hint))
                raise UserError(lazy("{corporation} cannot be parred at {price} now.", corporation=name, price=asked))
            price = str(match[0]["share_price"])
        return {"type": "par", **actor(s, player, own=True), "corporation": corp, "share_price": price}

    def choices(self, s, option, filled, legal):
        w = s.words()
        acts = of_type(legal, "par")
        if option == "corporation":
            return [(a["corporation"], a["corporation"]) for a in acts]
        sel = [a for a in acts if a.get("corporation") == filled.get("corporation")] or acts
        return [(w.money(price_of(str(a["share_price"]))) + ("" if filled.get("corporation") else f" ({a['corporation']})"),
                 str(a["share_price"])) for a in sel]

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        sp = price_of(str(a.get("share_price", "")))
        corp = str(a.get("corporation"))
        who = w.who(a.get("entity"), "player")
        privates = (players_of(change.before).get(a.get("entity")) or {}).get("privates") or []
        came_with = [sym for sym, c in (w.facts.get("presidency_with") or {}).items() if c == corp and sym in privates]
        if came_with:
            text = _("{name} pars {corporation} at {price} and takes the president's certificate that came with "
                     "{companies}", name=who, corporation=corp, price=w.money(sp), companies=", ".join(came_with))
        else:
            pres = next((c for c in w.operator(corp).get("certificates") or [] if c.get("president")), {})
            pct = pres.get("percent") or 20
            cost = int(sp) * pct // w.unit(corp) if sp.isdigit() else self.paid(change)
            text = _("{name} pars {corporation} at {price} and buys the president's certificate ({percent}%) for "
                     "{money}", name=who, corporation=corp, price=w.money(sp), percent=pct, money=w.money(cost))
        return text + floats(w, change.before, change.after, corp)

    def label(self, s, a):
        return _("{corporation} at {price}", corporation=a.get("corporation"),
                 price=s.words().money(price_of(str(a.get("share_price", "")))))

    def options_for(self, a):
        return {"corporation": a["corporation"], "price": a["share_price"]}


def shares_key(action: dict) -> str:
    """`PRR_1+PRR_2@20`: certificate ids and the percent (selling a president's certificate swaps); `~NdM_8`:
    the certificate handed in or taken back to make change (18MEX's NdM 5%)."""
    key = "+".join(action.get("shares", []))
    if action.get("percent") is not None:
        key += f"@{action['percent']}"
    if action.get("swap"):
        key += f"~{action['swap']}"
    if action.get("entity_type") in ("company", "corporation"):
        key = f"{action['entity']}>{key}"
    return key


class ShareCommand(G18xxCommand):
    """Buying or selling certificates, given as ids joined by `+` (`PRR_1+PRR_2`), optionally `@percent`, or a
    corporation alone (its first offer). Without a percent the certificates' face value is meant."""

    option_name = "share"
    verb = "buy"
    pictures = frozenset({"companies"})

    def out_of_turn(self, options: dict[str, Any]) -> bool:
        """A private exchanged (`MH>NYC_3`, as autocomplete offers it) may be sent out of turn, as with `using`."""
        return super().out_of_turn(options) or ">" in str(options.get(self.option_name) or "")

    def build(self, s, opts, player, legal):
        w = s.words()
        acts = of_type(legal or [], *self.types)
        base = {"type": self.types[0], **actor(s, player, opts.get("using"), own=not opts.get("using"))}
        raw = str(opts[self.option_name]).strip()
        if ">" in raw:  # a private exchanged for it, or a corporation buying back its own shares (1817)
            company, raw = raw.split(">", 1)
            corps = {c.upper(): c for c in s.corporations()}
            name = company.strip().upper()
            base = {**base, "entity": corps.get(name, name), "entity_type": "corporation" if name in corps else "company"}
        raw, _, swap = raw.partition("~")
        pct: int | None = None
        if "@" in raw:
            raw, _, p = raw.rpartition("@")
            pct = number(p.rstrip("%"), "percent")
        shares = [x.strip() for x in re.split(r"[+\s]+", raw) if x.strip()]
        if not shares:
            raise UserError(lazy("{command}: name the certificate(s), e.g. `PRR_1` or `PRR_1+PRR_2` (autocomplete "
                                 "lists them).", command=CommandName(self.name)))
        face = pct if pct is not None else w.percent(shares)
        same = [a for a in acts if sorted(a.get("shares", [])) == sorted(shares) and same_entity(a, base)
                and (pct is None or a.get("percent") in (None, pct)) and (a.get("swap") or "") == swap.strip()]
        if same:  # without a percent: the certificates' face value (no president's certificate swap)
            return clean(next((a for a in same if a.get("percent") == face), same[0]))
        if len(shares) == 1 and "_" not in shares[0]:  # just a corporation: the first offer of it
            corp = shares[0].upper()
            for a in acts:
                if same_entity(a, base) and all(corp_of(x).upper() == corp for x in a.get("shares", [])):
                    return clean(a)
            offered = sorted({corp_of(x) for a in acts if same_entity(a, base) for x in a.get("shares", [])})
            if self.verb == "buy":
                why = lazy("No {corporation} share can be bought by you now (certificate limit, holding limit, a sale "
                           "this round, or none left).", corporation=quote(corp))
                more = lazy("You can buy: {offered}.", offered=", ".join(offered)) if offered \
                    else lazy("You can't buy any.")
            else:
                why = lazy("No {corporation} share can be sold by you now (certificate limit, holding limit, a sale "
                           "this round, or none left).", corporation=quote(corp))
                more = lazy("You can sell: {offered}.", offered=", ".join(offered)) if offered \
                    else lazy("You can't sell any.")
            raise UserError(lazy("{why} {more}", why=why, more=more))
        return {**base, "shares": shares, "percent": face} | ({"swap": swap.strip()} if swap.strip() else {})

    @staticmethod
    def change_made(w: Words, a: dict, verb: str) -> str:
        """`, handing in NdM_8 (5%)` (verb `in`) or `, taking back …` (`back`) for a trade that makes change
        with a smaller certificate."""
        if not a.get("swap"):
            return ""
        if verb == "in":
            return ", " + _("handing in {certificate} ({percent}%)", certificate=a["swap"], percent=w.percent([a["swap"]]))
        return ", " + _("taking back {certificate} ({percent}%)", certificate=a["swap"], percent=w.percent([a["swap"]]))

    def choices(self, s, option, filled, legal):
        acts = of_type(legal, *self.types)
        if option == "using":
            return self.company_choices(legal)
        using = filled.get("using")
        if using:
            acts = [a for a in acts if a.get("entity") == using]
        return [(self.label(s, a), shares_key(a)) for a in acts]

    def options_for(self, a):
        o = {self.option_name: shares_key({k: v for k, v in a.items() if k != "entity_type" or v == "corporation"})}
        if a.get("entity_type") == "company":
            o["using"] = a["entity"]
        return o


class Buy(ShareCommand):
    name, help, types = "buy", N_("Buy a share"), ("buy_shares",)
    options = (Option("share", N_("certificate(s) to buy"), required=True),
               using_option(N_("private company exchanged (e.g. MH)")))

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        shares = a.get("shares", [])
        corp = corp_of(shares[0]) if shares else "?"
        what = w.certificates_text(shares)
        bc, ac = corps_of(change.before).get(corp, {}), corps_of(change.after).get(corp, {})
        from_market = (bc.get("pool", 0) or 0) > (ac.get("pool", 0) or 0)
        if a.get("entity_type") == "company":
            text = _("{name} exchanges {company} for {what}", name=w.who(owner_of(change.before, a["entity"])),
                     company=a["entity"], what=what)
        elif a.get("entity_type") == "corporation":
            text = _("{corporation} buys back {what} from the market for {money}", corporation=a["entity"], what=what,
                     money=w.credits(self.paid(change)))
        else:
            cost = s.trade_amount(change, w.percent(shares),
                                  market_price(change.before, corp) if from_market else bc.get("par"))
            who = w.who(a.get("entity"), "player")
            if from_market:
                text = _("{name} buys {what} from the market", name=who, what=what)
            else:
                text = _("{name} buys {what} from the IPO", name=who, what=what)
            text += self.change_made(w, a, "in") + (" " + _("for {money}", money=w.money(cost)) if cost else "")
        return text + president_change(w, change.before, change.after, corp) + \
            floats(w, change.before, change.after, corp)

    def label(self, s, a):
        w = s.words()
        txt = "+".join(a.get("shares", []))
        if a.get("entity_type") == "company":
            txt = _("exchange {company} for {shares}", company=a["entity"], shares=txt)
        elif a.get("entity_type") == "corporation":
            txt = _("{corporation} buys back {shares}", corporation=a["entity"], shares=txt)
        pct = a.get("percent") or w.percent(a.get("shares", []))
        if pct:
            txt += f" ({pct}%)"
        if a.get("share_price"):
            txt += " " + _("at {price}", price=w.money(a["share_price"]))
        return txt + self.change_made(w, a, "in")


class Sell(ShareCommand):
    name, help, types = "sell", N_("Sell shares"), ("sell_shares",)
    options = (Option("shares", N_("certificates to sell"), required=True),)
    option_name, verb = "shares", "sell"
    pictures = frozenset({"companies", "market"})

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        shares = a.get("shares", [])
        corp = corp_of(shares[0]) if shares else "?"
        pct = a.get("percent") or w.percent(shares)
        got = s.trade_amount(change, pct, market_price(change.before, corp), sale=True)
        what = w.certificates_text(shares) if a.get("percent") in (None, w.percent(shares)) else \
            _("{percent}% of {corporation}", percent=pct, corporation=corp)
        return (_("{name} sells {what}{change} for {money}", name=w.who(a.get("entity"), "player"), what=what,
                  change=self.change_made(w, a, "back"), money=w.money(got))
                + price_move(w, change.before, change.after, corp, "; ")
                + president_change(w, change.before, change.after, corp))

    def label(self, s, a):
        """`sell 20% of B&O: B&O_3+B&O_0 (president's certificate swapped)`. The same certificates may be
        offered at two percents: the president's certificate sold whole, or swapped for shares."""
        w = s.words()
        shares = a.get("shares", [])
        corps = sorted({corp_of(x) for x in shares})
        pct = a.get("percent")
        face = w.percent(shares)
        txt = _("sell {percent}% of {corporation}: {shares}", percent=pct if pct is not None else face,
                corporation="/".join(corps), shares="+".join(shares))
        if any(w.is_president(x) for x in shares):
            txt += " " + (_("(president's certificate swapped)") if pct is not None and pct < face else
                          _("(president's certificate sold)"))
        return txt + self.change_made(w, a, "back")


# ---------------------------------------------------------------------------- track, stations, trains
class Lay(G18xxCommand):
    name, help, types = "lay", N_("Lay or upgrade a tile"), ("lay_tile",)
    options = (Option("hex", N_("hex, e.g. E19"), required=True), Option("tile", N_("tile"), required=True),
               Option("rotation", N_("rotation 0-5"), int, True),
               using_option(N_("private company whose ability lays the tile")))
    pictures = frozenset({"map"})

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "lay_tile", **actor(s, player, opts.get("using")), "hex": str(opts["hex"]).strip().upper(),
                "tile": str(opts["tile"]).strip(), "rotation": number(opts["rotation"], "rotation")}

    def way(self, s, a: dict) -> str:
        """`W–E`: the directions a tile's track leaves by at the action's rotation."""
        return s.words().exits(s.tile_exits(str(a["tile"]), int(a["rotation"])))

    def choices(self, s, option, filled, legal):
        if option == "using":
            return self.company_choices(legal)
        w = s.words()
        acts = of_type(legal, "lay_tile")
        if filled.get("using"):
            acts = [a for a in acts if a.get("entity") == filled["using"]]
        if option == "hex":
            tiles: dict[str, list[str]] = {}
            for a in acts:
                names = tiles.setdefault(a["hex"], [])
                if tile_name(str(a["tile"])) not in names:
                    names.append(tile_name(str(a["tile"])))
            return [(_("{place}: tile {tiles}", place=w.place(h), tiles=", ".join(n)), h) for h, n in tiles.items()]
        sel = matching(acts, "hex", {"hex": str(filled.get("hex") or "").upper()})
        if option == "tile":
            ways: dict[tuple[str, str], list[str]] = {}
            for a in sel:
                found = ways.setdefault((str(a["tile"]), a["hex"]), [])
                if self.way(s, a) not in found:
                    found.append(self.way(s, a))
            anyway = _("any way")
            return [(_("{tile} on {place}: {ways}", tile=tile_name(t), place=w.place(h),
                       ways="; ".join(x for x in found if x) or anyway), t) for (t, h), found in ways.items()]
        sel = matching(sel, "tile", filled)
        same: set[tuple[str, str, str]] = set()  # a straight track at rotations 1 and 4 is one lay
        out = []
        for a in sel:
            key = (a["hex"], str(a["tile"]), self.way(s, a))
            if key[2] and key in same:
                continue
            same.add(key)
            way = f" ({key[2]})" if key[2] else ""
            out.append((_("{rotation}{way} — tile {tile} on {place}", rotation=a["rotation"], way=way,
                          tile=tile_name(str(a["tile"])), place=w.place(a["hex"])), int(a["rotation"])))
        return out

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        paid = self.paid(change)
        way = self.way(s, a)
        cost = " " + _("for {money}", money=w.money_of(a.get("entity"), a.get("entity_type"), paid)) if paid else ""
        return _("{name} lays tile {tile} on {place}, rotation {rotation}{way}{cost}",
                 name=w.who(a.get("entity"), a.get("entity_type")), tile=tile_name(str(a.get("tile"))),
                 place=w.place(a.get("hex")), rotation=a.get("rotation"), way=f" ({way})" if way else "", cost=cost)

    def label(self, s, a):
        who = f" [{a['entity']}]" if a.get("entity_type") == "company" else ""
        return _("{hex}: tile {tile} rotation {rotation}", hex=a.get("hex"), tile=tile_name(str(a.get("tile"))),
                 rotation=a.get("rotation")) + who

    def options_for(self, a):
        o = {"hex": a["hex"], "tile": a["tile"], "rotation": a["rotation"]}
        if a.get("entity_type") == "company":
            o["using"] = a["entity"]
        return o


def city_key(action: dict) -> str:
    return f"{action['city']}#{action.get('slot', 0)}"


class Token(G18xxCommand):
    name, help, types = "token", N_("Place a station token"), ("place_token",)
    options = (Option("city", N_("city and slot"), required=True),
               using_option(N_("private company whose ability places it")))
    pictures = frozenset({"map"})

    def build(self, s, opts, player, legal):
        base = {"type": "place_token", **actor(s, player, opts.get("using"))}
        raw = str(opts["city"]).strip()
        city, _, slot = raw.partition("#")
        offered = [a for a in of_type(legal or [], "place_token") if same_entity(a, base)]
        in_hex = [a for a in offered if (s.city_hex(a["city"]) or "").upper() == city.upper()]
        if in_hex and not slot:  # a hex named (`token H10`): its city, if only one there may take the token
            cities = {a["city"] for a in in_hex}
            if len(cities) > 1:
                raise UserError(lazy("{place} has {n} cities: name one of {cities}.", place=s.words().place(city.upper()),
                                     n=len(cities), cities=", ".join(sorted(city_key(a) for a in in_hex))))
            return clean(in_hex[0])
        named = s.cities_in(city) if not slot else []
        if named:  # a hex whose city may not take the token now: the engine says why
            city = named[0]
        elif not slot and s.words().place(city.upper()) != city.upper():
            raise UserError(lazy("{place} has no city to take a station.", place=s.words().place(city.upper())))
        for a in offered:
            if a.get("city") == city and (not slot or int(a.get("slot", 0)) == number(slot, "slot")) and \
                    same_entity(a, base):
                return clean(a)
        return {**base, "city": city, "slot": number(slot or 0, "slot")}

    def choices(self, s, option, filled, legal):
        if option == "using":
            return self.company_choices(legal)
        w = s.words()
        acts = of_type(legal, "place_token")
        if filled.get("using"):
            acts = [a for a in acts if a.get("entity") == filled["using"]]
        out = []
        for a in acts:
            where = s.city_hex(a["city"])
            out.append((f"{w.place(where)} ({self.label(s, a)})" if where else self.label(s, a), city_key(a)))
        return out

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        corp = a.get("tokener") or a.get("entity")
        if a.get("entity_type") == "company":  # a private's station is its corporation's
            corp = owner_of(change.before, corp) or corp
        hexes_b = set((corps_of(change.before).get(corp) or {}).get("tokens", []) or [])
        new = [h for h in (corps_of(change.after).get(corp) or {}).get("tokens", []) or [] if h not in hexes_b]
        where = w.place(new[0]) if new else _("city {city}", city=a.get("city"))
        paid = self.paid(change)
        if a.get("entity_type") == "company":  # a private's power placed it (18MEX's Boleo)
            if paid:
                return _("{company} places {operator}'s station in {place} for {money}", company=a.get("entity"),
                         operator=corp, place=where, money=w.credits(paid))
            return _("{company} places {operator}'s station in {place}", company=a.get("entity"), operator=corp,
                     place=where)
        if paid:
            return _("{operator} places a station in {place} for {money}", operator=corp, place=where,
                     money=w.credits(paid))
        return _("{operator} places a station in {place}", operator=corp, place=where)

    def label(self, s, a):
        who = f" [{a['entity']}]" if a.get("entity_type") == "company" else ""
        cost = f" {s.words().credits(a['cost'])}" if a.get("cost") else ""
        return _("city {city} slot {slot}", city=a.get("city"), slot=a.get("slot", 0)) + cost + who

    def options_for(self, a):
        o = {"city": city_key(a)}
        if a.get("entity_type") == "company":
            o["using"] = a["entity"]
        return o


ROUTE_SETTINGS = ("halts",)  # a route's own choices besides its track (1860: how many halts count as stops)


def format_routes(routes: list[dict]) -> str:
    """`3-0: G19,F20 | F20,E19; 4-1: ...` (train: segments separated by |, hexes of a segment by ,); a route's
    own settings follow its train: `3+2-0 halts=1: ...`."""
    out = []
    for r in routes:
        settings = "".join(f" {k}={r[k]}" for k in ROUTE_SETTINGS if r.get(k) is not None)
        out.append(f"{r['train']}{settings}: {' | '.join(','.join(seg) for seg in r.get('connections', []))}")
    return "; ".join(out)


def parse_routes(text: str) -> list[dict]:
    routes = []
    for chunk in text.split(";"):
        chunk = chunk.strip()
        if not chunk:
            continue
        if ":" not in chunk or not chunk.split(":", 1)[0].split():  # a train, then its track
            raise UserError(lazy("Route {route}: write it as `TRAIN: HEX,HEX | HEX,HEX`.", route=quote(chunk)))
        head, body = chunk.split(":", 1)
        train, *settings = head.split()
        route: dict = {"train": train.strip()}
        for setting in settings:
            key, _, value = setting.partition("=")
            if key not in ROUTE_SETTINGS or not value.strip().isdigit():
                raise UserError(lazy("Route for train {train}: {setting} is not a setting of a route ({settings}).",
                                     train=quote(train), setting=quote(setting),
                                     settings=", ".join(f"{k}=N" for k in ROUTE_SETTINGS)))
            route[key] = int(value)
        segs = [hexes for seg in body.split("|") if (hexes := [h.strip() for h in seg.split(",") if h.strip()])]
        if not segs:
            raise UserError(lazy("Route for train {train} has no track.", train=quote(train.strip())))
        route["connections"] = segs
        routes.append(route)
    return routes


class Run(G18xxCommand):
    name, help, types = "run", N_("Run trains: 'best' or routes as text"), ("run_routes",)
    options = (Option("routes", N_("'best' or routes as text: 3-0: E19,F20 | F20,G19; 4-1: ..."), default="best"),)
    pictures = frozenset({"map"})

    def needs_legal(self, options):
        return not options.get("routes") or str(options["routes"]).strip().lower() == "best"

    def build(self, s, opts, player, legal):
        text = str(opts.get("routes") or "best").strip()
        if text.lower() == "best":
            acts = of_type(legal or [], "run_routes")
            if not acts:
                hint = s.hint(s.written_names())
                if hint:
                    raise UserError(lazy("{operator} can't run trains now; it may {hint}.",
                                         operator=s.acting().get("entity"), hint=hint))
                raise UserError(lazy("{operator} can't run trains now.", operator=s.acting().get("entity")))
            return clean(acts[0])
        return {"type": "run_routes", **actor(s, player), "routes": parse_routes(text)}

    def choices(self, s, option, filled, legal):
        return [(self.label(s, a), "best") for a in of_type(legal, "run_routes")[:1]]

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        who = w.who(a.get("entity"), a.get("entity_type"))
        routes = a.get("routes", []) or []
        run = change.notes.get("run") or [(r["train"], r.get("revenue")) for r in routes]
        rev = change.notes.get("revenue") if change.notes.get("run") else route_revenue(routes)
        n = len(routes)
        if not routes:
            return _("{name} runs no train", name=who)
        if rev is None:
            return ngettext("{name} runs {n} train", "{name} runs {n} trains", n, name=who)
        per = ", ".join(f"{train}: {w.credits(revenue)}" for train, revenue in run)
        text = ngettext("{name} runs {n} train for {money} ({each})", "{name} runs {n} trains for {money} ({each})", n,
                        name=who, money=w.credits(rev), each=per)
        subsidy = w.operator(a.get("entity")).get("subsidy")  # 1860's halts: into the treasury
        if subsidy:
            text += " " + _("and a subsidy of {money} for its halts", money=w.credits(subsidy))
        op = ((change.notes.get("facts_before") or {}).get("operators") or {}).get(a.get("entity")) or \
            w.operator(a.get("entity"))
        if op.get("revenue_split") and rev:  # a minor's revenue is shared between the minor and its owner
            kept = self.paid(change)
            if kept is not None and kept <= 0:
                text += ": " + _("{kept} to {minor}, {paid} to {owner}", kept=w.credits(-kept), minor=who,
                                 paid=w.money(rev + kept), owner=w.who(op.get("owner"), "player"))
        return text + self.short_of_best(w, change, rev)

    @staticmethod
    def short_of_best(w: Words, change: Change, revenue: int) -> str:
        """A typed run that left a train idle or earns less than the best one: `; 2-4 stays idle; the best
        run was $110 ($60 more)`."""
        ran = {r.get("train") for r in change.action.get("routes", []) or []}
        idle = [t for t in change.notes.get("trains") or [] if t not in ran]
        text = ""
        if idle:
            text += "; " + ngettext("{trains} stays idle", "{trains} stay idle", len(idle), trains=and_list(idle))
        best = change.notes.get("best_run")
        if best is not None and best > revenue:
            text += "; " + _("the best run was {money} ({more} more)", money=w.credits(best),
                             more=w.credits(best - revenue))
        return text

    def label(self, s, a):
        rev = route_revenue(a.get("routes", []))
        trains = ", ".join(r["train"] for r in a.get("routes", [])) or _("no train")
        if rev is not None:
            return _("best routes: {trains} for {money}", trains=trains, money=s.words().credits(rev))
        return _("best routes: {trains}", trains=trains)

    def options_for(self, a):
        return {"routes": format_routes(a["routes"])}


class Dividend(G18xxCommand):
    name, help, types = "dividend", N_("Pay out or withhold the revenue"), ("dividend",)
    options = (Option("kind", N_("payout or withhold"), required=True),)
    pictures = frozenset({"market"})

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "dividend", **actor(s, player), "kind": str(opts["kind"]).strip().lower()}

    def choices(self, s, option, filled, legal):
        return [(self.label(s, a), a["kind"]) for a in of_type(legal, "dividend")]

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        who, kind, rev = w.who(a.get("entity"), a.get("entity_type")), a.get("kind"), change.notes.get("revenue")
        if kind == "payout":
            if rev:
                text = _("{name} pays out {money}: {share} a share", name=who, money=w.credits(rev),
                         share=w.money(rev * w.unit(str(a.get("entity"))) // 100))
            else:
                text = _("{name} pays out", name=who)
        elif kind == "half" and rev:  # 1817: half kept (and its treasury shares' part), the rest paid out
            gained = -(self.paid(change) or 0)
            text = _("{name} pays half of {money}", name=who, money=w.credits(rev))
            if gained:
                text += ": " + _("{money} into its treasury", money=w.credits(gained))
        elif kind == "withhold":
            paid = self.paid(change)
            kept = -paid if paid and paid < 0 else rev
            text = _("{name} withholds {money} (into its treasury)", name=who, money=w.credits(kept)) if kept \
                else _("{name} withholds", name=who)
        else:
            text = _("{name} pays {kind}", name=who, kind=kind)
        return text + price_move(w, change.before, change.after, str(a.get("entity")), ", ")

    KINDS = {"payout": N_("pay out"), "withhold": N_("withhold"), "half": N_("pay half")}  # shown with _()

    def label(self, s, a):
        kind = str(a.get("kind"))
        return _(self.KINDS[kind]) if kind in self.KINDS else kind

    def options_for(self, a):
        return {"kind": a["kind"]}


class Train(G18xxCommand):
    name, help, types = "train", N_("Buy a train"), ("buy_train",)
    options = (Option("train", N_("train id, e.g. 3-0"), required=True),
               Option("price", N_("price (trains from other corporations)"), int),
               Option("variant", N_("variant (e.g. D)")), Option("exchange", N_("train traded in (e.g. a 4 for a D)")))
    pictures = frozenset({"companies"})

    def build(self, s, opts, player, legal):
        train = str(opts["train"]).strip()
        sel = [a for a in of_type(legal or [], "buy_train") if a.get("train") == train]
        variant = str(opts.get("variant") or "").strip()
        if variant and sel:
            named = [a for a in sel if a.get("variant") == variant]
            if not named and variant != tile_name(train):  # naming the train's own kind is no variant
                offered = sorted({a["variant"] for a in sel if a.get("variant")})
                if offered:
                    raise UserError(lazy("Train {train} has no variant {variant}: choose {variants}.", train=quote(train),
                                         variant=quote(variant), variants=", ".join(offered)))
                raise UserError(lazy("Train {train} has no variant {variant}.", train=quote(train),
                                     variant=quote(variant)))
            sel = named or sel
        if opts.get("exchange"):
            sel = [a for a in sel if a.get("exchange") == opts["exchange"]]
        else:
            sel = [a for a in sel if not a.get("exchange")] or sel
        if sel:
            a = clean(sel[0])
        elif opts.get("price") is None and s.train_price(train) is None:
            raise UserError(lazy("There is no train {train}.", train=quote(train)))
        else:  # the engine says why it can't be bought (the train limit, the money...)
            a = {"type": "buy_train", **actor(s, player), "train": train, "price": s.train_price(train)}
            if opts.get("variant"):
                a["variant"] = opts["variant"]
        if opts.get("price") is not None:
            a["price"] = number(opts["price"], "price")
        if opts.get("exchange"):
            a["exchange"] = opts["exchange"]
        return a

    def choices(self, s, option, filled, legal):
        acts = of_type(legal, "buy_train")
        if option == "train":
            return [(self.label(s, a), a["train"]) for a in acts]
        if option == "price":
            return prices(s.words(), matching(acts, "train", filled), "train")
        if option == "variant":
            return [(a["variant"], a["variant"]) for a in matching(acts, "train", filled) if a.get("variant")]
        return [(a["exchange"], a["exchange"]) for a in acts if a.get("exchange")]

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        train = str(a.get("train"))
        seller = train_owner(change.before, train)
        who, kind, price = w.who(a.get("entity"), a.get("entity_type")), a.get("variant") or tile_name(train), \
            w.credits(a.get("price"))
        if seller:
            text = _("{name} buys a {train} train from {seller} for {money}", name=who, train=kind,
                     seller=owner_word(seller), money=price)
        else:
            text = _("{name} buys a {train} train for {money}", name=who, train=kind, money=price)
        return text + (", " + _("trading in {train}", train=a["exchange"]) if a.get("exchange") else "")

    def label(self, s, a):
        txt = f"{a.get('train')}"
        seller = train_owner(s.summary(), str(a.get("train")))
        if seller and seller != "the open market":
            pres = (corps_of(s.summary()).get(seller) or {}).get("pres")
            txt += " " + _("from {seller}", seller=seller) + (f" ({s.words().who(pres, 'player')})" if pres is not None
                                                             else "")
        elif seller:
            txt += " " + _("from {seller}", seller=owner_word(seller))
        if a.get("variant") and a["variant"] != tile_name(str(a.get("train"))):
            txt += f" ({a['variant']})"
        if a.get("exchange"):
            txt += " " + _("trading in {train}", train=a["exchange"])
        return txt + " " + _("for {money}", money=s.words().credits(a.get("price")))

    def options_for(self, a):
        o = {"train": a["train"], "price": a["price"]}
        for k in ("variant", "exchange"):
            if a.get(k):
                o[k] = a[k]
        return o


class Discard(G18xxCommand):
    name, help, types = "discard", N_("Discard a train over the limit"), ("discard_train",)
    options = (Option("train", N_("train to discard"), required=True),)
    pictures = frozenset({"companies"})

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "discard_train", **actor(s, player), "train": str(opts["train"]).strip()}

    def choices(self, s, option, filled, legal):
        return [(a["train"], a["train"]) for a in of_type(legal, "discard_train")]

    def describe(self, s, change, names):
        a = change.action
        return _("{name} discards train {train} (over its train limit) to the open market",
                 name=s.words(names).who(a.get("entity"), a.get("entity_type")), train=a.get("train"))

    def label(self, s, a):
        return str(a.get("train"))

    def options_for(self, a):
        return {"train": a["train"]}


# ---------------------------------------------------------------------------- 18MEX: the NdM merger
class Merge(G18xxCommand):
    name, help, types = "merge", N_("Merge a corporation (18MEX: a major into the NdM; 1817: one of its size), or "
                                    "name a buyer (1817)"), ("merge",)
    options = (Option("corporation", N_("corporation to merge (1817 acquisition: the buyer)"), required=True),)
    pictures = frozenset({"map", "market", "companies"})

    def build(self, s, opts, player, legal):
        corp = str(opts["corporation"]).strip()
        acts = of_type(legal or [], "merge")
        match = [a for a in acts if str(a.get("corporation")).upper() == corp.upper()]
        if not match:
            offered = ", ".join(str(a.get("corporation")) for a in acts)
            if offered:
                raise UserError(lazy("{corporation} cannot merge now; offered: {offered}.", corporation=quote(corp),
                                     offered=offered))
            raise UserError(lazy("{corporation} cannot merge now.", corporation=quote(corp)))
        return clean(match[0])

    def choices(self, s, option, filled, legal):
        info = s.turn_info()
        if info.get("merge"):  # 18MEX: a major into the NdM
            into = info["merge"].get("into", "the NdM")
            return [(_("merge {corporation} into {into}", corporation=a["corporation"], into=into), a["corporation"])
                    for a in of_type(legal, "merge")]
        return [(self.preview_label(s, a), a["corporation"]) for a in of_type(legal, "merge")]

    def preview_label(self, s, a: dict) -> str:
        """What a merger does, before it is sent: `GT into A&S: 5 shares at $150; Ann 100% → 60%, …`; for the
        winner of an acquisition, which corporation buys."""
        if a.get("entity_type") == "player":
            sale = s.turn_info().get("acquisition") or {}
            return _("{buyer} buys {corporation} for {money}", buyer=a["corporation"],
                     corporation=sale.get("corporation", "?"), money=s.words().money(sale.get("price")))
        change = s.preview(a)
        if change is None:
            return self.label(s, a)
        return _("{corporation} into {into}: {what}", corporation=a["corporation"], into=a["entity"],
                 what=merger_text(s.words(), change, str(a["entity"]), str(a["corporation"])))

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        corp = str(a.get("corporation"))
        merger = change.notes.get("merge_before") or {}
        if not merger and a.get("entity_type") == "player":  # 1817: the acquisition's winner names the buyer
            sale = (change.notes.get("turn_before") or {}).get("acquisition") or {}
            return _("{name} names {buyer} as the buyer of {corporation} for {money}", name=w.who(a.get("entity"), "player"),
                     buyer=corp, corporation=sale.get("corporation"), money=w.money(sale.get("price")))
        if not merger:  # 1817: two corporations of a size become one
            return _("{corporation} merges into {into}: {what}", corporation=corp, into=a.get("entity"),
                     what=merger_text(w, change, str(a.get("entity")), corp))
        into = merger.get("into") or "NdM"
        text = _("{corporation} merges into the {into}", corporation=corp, into=into)
        got = [_("{name} receives {percent}%", name=w.who(pid, "player"), percent=pct) if pct > 0 else
               _("{name} gives {percent}%", name=w.who(pid, "player"), percent=-pct) for pid in players_of(change.after)
               for c, pct in share_moves(change.before, change.after, pid).items() if c == into and pct]
        if got:
            text += "; " + _("{moves} of the {into} in exchange", moves=", ".join(got), into=into)
        return text

    def caption(self, s, change):
        into = (change.notes.get("merge_before") or {}).get("into") or \
            (change.action.get("entity") if change.action.get("entity_type") == "corporation" else None)
        if into is None:
            return None
        if change.notes.get("merge_before"):
            return _("{corporation} merged into the {into}: its stations are the {into}'s",
                     corporation=change.action.get("corporation"), into=into)
        return _("{corporation} merged into {into}: its stations are {into}'s", corporation=change.action.get("corporation"),
                 into=into)

    def label(self, s, a):
        if a.get("entity_type") == "player":
            return _("{corporation} buys", corporation=a.get("corporation"))
        if a.get("entity_type") == "corporation" and not s.turn_info().get("merge"):
            return _("merge {corporation} into {into}", corporation=a.get("corporation"), into=a.get("entity"))
        return _("merge {corporation}", corporation=a.get("corporation"))

    def options_for(self, a):
        return {"corporation": a["corporation"]}


def merger_text(w: Words, change: Change, into: str, merged: str) -> str:
    """`5 shares at $150; Ann 100% → 60%, Bob 100% → 40%`: the merged corporation's size and price, and what
    each holder of the two held before and holds now."""
    facts = change.notes.get("facts_after") or w.facts
    size = ((facts.get("operators") or {}).get(into) or {}).get("total_shares", "?")
    text = _("{n} shares at {price}", n=size, price=w.money(market_price(change.after, into))) + "; "
    return text + holdings_change(w, change.before, change.after, [into, merged], into,
                                  change.notes.get("facts_before"), facts)


class Assign(G18xxCommand):
    name, help, types = "assign", N_("Choose the station the NdM keeps (18MEX); a private to put into a new "
                                     "corporation, a bridge (1817)"), ("assign",)
    options = (Option("target", N_("where (autocomplete lists the choices)"), required=True),)
    pictures = frozenset({"map", "companies"})

    def handles(self, action):
        return action.get("type") == "assign" and action.get("target_type") != "corporation"

    def build(self, s, opts, player, legal):
        target = str(opts["target"]).strip().upper()
        acts = of_type(legal or [], "assign")
        match = [a for a in acts if str(a.get("target")).upper() == target]
        if not match:
            offered = ", ".join(str(a.get("target")) for a in acts)
            if offered:
                raise UserError(lazy("{target} cannot be chosen now; choose {offered}.", target=quote(target),
                                     offered=offered))
            raise UserError(lazy("{target} cannot be chosen now.", target=quote(target)))
        return clean(match[0])

    def choices(self, s, option, filled, legal):
        w = s.words()
        return [(self.label(s, a) if a.get("target_type") == "company" or a.get("entity_type") == "company"
                 else w.place(a["target"]), a["target"]) for a in of_type(legal, "assign") if self.handles(a)]

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        who = w.who(a.get("entity"), a.get("entity_type"))
        if a.get("target_type") == "company":  # 1817: a private put into the corporation being started
            forming = (change.notes.get("turn_before") or {}).get("forming") or _("the corporation")
            cb, ca = cash_of(change.before, a.get("entity"), "player"), cash_of(change.after, a.get("entity"), "player")
            paid = ca - cb if cb is not None and ca is not None and ca > cb else None
            text = _("{name} puts {company} into {corporation}", name=who, company=a.get("target"), corporation=forming)
            return text + (" " + _("for {money}", money=w.money(paid)) if paid else "")
        if a.get("entity_type") == "company":  # a private's token (1817's bridges)
            return _("{company} is placed on {place}", company=who, place=w.place(a.get("target")))
        return _("{operator} keeps its station in {place}", operator=who, place=w.place(a.get("target")))

    def caption(self, s, change):
        return self.describe(s, change, s.player_names()) if change.action.get("target_type") != "company" else None

    def label(self, s, a):
        if a.get("target_type") == "company":
            forming = s.turn_info().get("forming") or _("the corporation")
            return _("put {company} into {corporation}", company=a.get("target"), corporation=forming)
        if a.get("entity_type") == "company":
            return _("{company} on {place}", company=a.get("entity"), place=s.words().place(a.get("target")))
        return _("station in {place}", place=a.get("target"))

    def options_for(self, a):
        return {"target": a["target"]}


# ---------------------------------------------------------------------------- 1817: loans, shorts, sizes, sales
def for_corporation(s: G18xx, acts: list[dict], named: Any, verb: str) -> dict | None:
    """The legal action of the corporation named, or of the one acting, or the only one offered; None when
    there is none (the engine then says why)."""
    name = str(named or "").strip().upper()
    if name:
        return next((a for a in acts if str(a.get("entity")).upper() == name), None)
    acting = s.acting()
    mine = [a for a in acts if a.get("entity") == acting.get("entity")]
    if mine or len(acts) == 1:
        return (mine or acts)[0]
    if len(acts) > 1:
        raise UserError(lazy("Name the corporation that will {verb}: {corporations}.", verb=verb,
                             corporations=", ".join(str(a.get("entity")) for a in acts)))
    return None


def corporation_named(s: G18xx, named: Any) -> dict:
    """The entity of an action for the corporation named, or the acting one."""
    corps = {c.upper(): c for c in s.corporations()}
    name = str(named or "").strip().upper()
    if name:
        if name not in corps:
            raise UserError(lazy("There is no corporation {corporation}.", corporation=quote(name)))
        return {"entity": corps[name], "entity_type": "corporation"}
    return actor(s, None)


class LoanCommand(G18xxCommand):
    """A corporation takes or repays a loan: the one operating, or in a stock round one its president names.
    Autocomplete says what the loan does (loans, interest, price) before it is sent."""

    options = (Option("corporation", N_("corporation (default: the one acting)")),)
    pictures = frozenset({"market", "companies"})
    verb = ""  # an i18n.lazy infinitive ("borrow")

    def build(self, s, opts, player, legal):
        match = for_corporation(s, of_type(legal or [], *self.types), opts.get("corporation"), self.verb)
        if match is not None:
            return clean(match)
        out = (s.facts().get("loans") or {}).get("out", 0)
        loan = out if self.types[0] == "take_loan" else max(out - 1, 0)
        return {"type": self.types[0], **corporation_named(s, opts.get("corporation")), "loan": loan}

    def choices(self, s, option, filled, legal):
        return [(self.preview_label(s, a), a["entity"]) for a in of_type(legal, *self.types)]

    def preview_label(self, s, a: dict) -> str:
        change = s.preview(a)
        if change is None:
            return self.label(s, a)
        return f"{a['entity']}: {self.label(s, a)}, " + \
            loan_terms(s.words(), a["entity"], change.before, change.after, change.notes.get("facts_after") or {})

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        loans = w.facts.get("loans") or {}
        terms = loan_terms(w, str(a.get("entity")), change.before, change.after, w.facts)
        if a.get("type") == "take_loan":
            return _("{corporation} takes a loan of {money}: {terms}", corporation=a.get("entity"),
                     money=w.credits(loans.get("value", 100)), terms=terms)
        return _("{corporation} repays a loan of {money}: {terms}", corporation=a.get("entity"),
                 money=w.credits(loans.get("value", 100)), terms=terms)

    def label(self, s, a):
        value = s.words().credits((s.facts().get("loans") or {}).get("value", 100))
        if a.get("type") == "take_loan":
            return _("borrow {money}", money=value)
        return _("repay {money}", money=value)

    def options_for(self, a):
        return {"corporation": a["entity"]}


class Loan(LoanCommand):
    name, help, types = "loan", N_("Take a loan for a corporation (1817): $100 now, interest each operating round"), \
        ("take_loan",)
    verb = lazy("borrow")


class Repay(LoanCommand):
    name, help, types = "repay", N_("Repay one of a corporation's loans (1817)"), ("payoff_loan",)
    verb = lazy("repay")


class Short(G18xxCommand):
    name, help, types = "short", N_("Sell a share short (1817): the bank pays you its price; buying a share "
                                    "of it closes the short"), ("short",)
    options = (Option("corporation", N_("corporation to sell short"), required=True),)
    pictures = frozenset({"companies"})

    def build(self, s, opts, player, legal):
        corp = str(opts["corporation"]).strip().upper()
        match = [a for a in of_type(legal or [], "short") if str(a.get("corporation")).upper() == corp]
        if match:
            return clean(match[0])
        corps = {c.upper(): c for c in s.corporations()}
        return {"type": "short", **actor(s, player, own=True), "corporation": corps.get(corp, corp)}

    def choices(self, s, option, filled, legal):
        return [(self.label(s, a), a["corporation"]) for a in of_type(legal, "short")]

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        corp = str(a.get("corporation"))
        who = w.who(a.get("entity"), "player")
        got = s.trade_amount(change, 0, market_price(change.before, corp))
        held = sum(1 for c in w.operator(corp).get("certificates") or []
                    if (c.get("percent") or 0) < 0 and c.get("owner") == a.get("entity"))
        return ngettext("{name} sells a share of {corporation} short for {money} (a share goes to the market; {name} "
                        "holds {n} short of {corporation}: buying a share closes one)",
                        "{name} sells a share of {corporation} short for {money} (a share goes to the market; {name} "
                        "holds {n} shorts of {corporation}: buying a share closes one)", held, name=who,
                        corporation=corp, money=w.money(got))

    def label(self, s, a):
        return _("{corporation} at {price}", corporation=a.get("corporation"),
                 price=s.words().money(market_price(s.summary(), str(a.get("corporation")))))

    def options_for(self, a):
        return {"corporation": a["corporation"]}


class Convert(G18xxCommand):
    name, help, types = "convert", N_("Convert a corporation to more shares (1817: 2 to 5, 5 to 10)"), ("convert",)
    options = (Option("corporation", N_("corporation to convert (default: the one acting)")),)
    pictures = frozenset({"companies"})

    def build(self, s, opts, player, legal):
        match = for_corporation(s, of_type(legal or [], "convert"), opts.get("corporation"), lazy("convert"))
        return clean(match) if match is not None else {"type": "convert", **corporation_named(s, opts.get("corporation"))}

    def choices(self, s, option, filled, legal):
        out = []
        for a in of_type(legal, "convert"):
            change = s.preview(a)
            out.append((f"{a['entity']}: " + (self.effect(s.words(), change, change.notes.get("facts_before"))
                                              if change else _("convert")), a["entity"]))
        return out

    @staticmethod
    def effect(w: Words, change: Change, facts_before: dict | None) -> str:
        """`2 → 5 shares: Ann 100% → 40%, treasury 0% → 60%`."""
        corp = str(change.action.get("entity"))
        facts_after = change.notes.get("facts_after") or w.facts
        size = [((f or {}).get("operators") or {}).get(corp, {}).get("total_shares", "?") for f in (facts_before, facts_after)]
        return _("{before} → {after} shares: {holders}", before=size[0], after=size[1],
                 holders=holdings_change(w, change.before, change.after, [corp], corp, facts_before, facts_after))

    def describe(self, s, change, names):
        w = s.words(names)
        return _("{corporation} converts, {what}", corporation=change.action.get("entity"),
                 what=self.effect(w, change, change.notes.get("facts_before")))

    def label(self, s, a):
        return _("convert {corporation}", corporation=a.get("entity"))

    def options_for(self, a):
        return {"corporation": a["entity"]}


class Choose(G18xxCommand):
    name, help, types = "choose", N_("Choose what the game asks (1817: how many shares a new corporation has)"), \
        ("choose",)
    options = (Option("choice", N_("your choice (autocomplete lists them)"), required=True),)
    pictures = frozenset({"market", "companies"})

    def needs_legal(self, options):
        return True

    def build(self, s, opts, player, legal):
        want = str(opts["choice"]).strip().lower().removesuffix("shares").strip()
        acts = of_type(legal or [], "choose")
        match = [a for a in acts if str(a.get("choice")).lower() == want]
        if match:
            return clean(match[0])
        return {"type": "choose", **actor(s, player), "choice": int(want) if want.isdigit() else want}

    def choices(self, s, option, filled, legal):
        forming = s.turn_info().get("forming")
        return [(_("{n} shares for {corporation}", n=a["choice"], corporation=forming) if forming
                 else _("{n} shares", n=a["choice"]), str(a["choice"])) for a in of_type(legal, "choose")]

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        forming = (change.notes.get("turn_before") or {}).get("forming")
        who = w.who(a.get("entity"), a.get("entity_type"))
        if forming is None:
            return _("{name} chooses {choice}", name=who, choice=a.get("choice"))
        return _("{name} makes {corporation} a {n}-share corporation at {price} a share", name=who, corporation=forming,
                 n=a.get("choice"), price=w.money(market_price(change.after, forming)))

    def label(self, s, a):
        return _("{n} shares", n=a.get("choice"))

    def options_for(self, a):
        return {"choice": str(a["choice"])}


class Offer(G18xxCommand):
    name, help, types = "offer", N_("Offer a corporation you preside for sale in the acquisition round (1817)"), \
        ("assign",)
    options = (Option("corporation", N_("corporation to offer (default: the one on offer now)")),)
    pictures = frozenset({"companies"})

    def handles(self, action):
        return action.get("type") == "assign" and action.get("target_type") == "corporation"

    def build(self, s, opts, player, legal):
        acts = [a for a in of_type(legal or [], "assign") if self.handles(a)]
        name = str(opts.get("corporation") or "").strip().upper()
        match = [a for a in acts if not name or str(a.get("target")).upper() == name]
        if match:
            return clean(match[0])
        sale = s.turn_info().get("acquisition") or {}
        return {"type": "assign", **actor(s, player), "target": name or sale.get("corporation"), "target_type": "corporation"}

    def choices(self, s, option, filled, legal):
        return [(self.label(s, a), a["target"]) for a in of_type(legal, "assign") if self.handles(a)]

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        sale = (change.notes.get("turn_before") or {}).get("acquisition") or {}
        who = w.who(a.get("entity"), a.get("entity_type"))
        if sale.get("opening"):
            return _("{name} offers {corporation} for sale (bids from {money})", name=who, corporation=a.get("target"),
                     money=w.money(sale["opening"]))
        return _("{name} offers {corporation} for sale", name=who, corporation=a.get("target"))

    def label(self, s, a):
        return _("offer {corporation} for sale", corporation=a.get("target"))

    def options_for(self, a):
        return {"corporation": a["target"]}


# ---------------------------------------------------------------------------- turn and standing orders
class Pass(G18xxCommand):
    name, help, types = "pass", N_("Pass"), ("pass",)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "pass", **actor(s, player)}

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        who = w.who(a.get("entity"), a.get("entity_type"))
        merger = change.notes.get("merge_before") or {}
        if merger and merger.get("decider") == a.get("entity"):
            if merger.get("decider") == merger.get("offered"):
                return _("{name} declines to merge into the {into}", name=who, into=merger.get("into"))
            return _("{name} merges none of {corporations}", name=who, corporations=", ".join(merger.get("candidates") or []))
        before = change.notes.get("turn_before") or {}
        sale = before.get("acquisition") or {}
        if sale and "assign" in (before.get("types") or []) and a.get("entity_type") == "player":
            return _("{name} does not offer {corporation} for sale", name=who, corporation=sale.get("corporation"))
        if before.get("forming") and "assign" in (before.get("types") or []):
            return _("{name} puts no more privates into {corporation}", name=who, corporation=before["forming"])
        text = _("{name} passes", name=who)
        cb, ca = change.notes.get("cheapest_before"), change.notes.get("cheapest_after")
        if cb and ca and cb[0] == ca[0] and ca[1] < cb[1]:
            text += "; " + _("everyone passed, so {company} now costs {money}", company=ca[0], money=w.money(ca[1]))
        return text

    def label(self, s, a):
        return _("pass")


class EndTurn(Pass):
    """Pass every step left of the turn (no trains, no privates, no more shares): one message, one ping.
    Each pass is its own action in the log, as 18xx.games records them."""

    name, help = "done", N_("End your turn: pass whatever is left of it")

    def follow_up(self, s, first, last):
        acting = s.acting()
        same = acting.get("entity") == first.action.get("entity") and \
            acting.get("entity_type") == first.action.get("entity_type")
        if not same or s.finished or "pass" not in (s.turn_info().get("types") or []):
            return None
        round_now = last.after.get("round_desc") or last.after.get("round")
        if round_now != (first.before.get("round_desc") or first.before.get("round")):
            return None
        return {"type": "pass", "entity": acting.get("entity"), "entity_type": acting.get("entity_type")}

    def label(self, s, a):
        return _("end the turn")


class Bankrupt(G18xxCommand):
    name, help, types = "bankrupt", N_("Declare bankruptcy (asks to confirm)"), ("bankrupt",)
    confirm = (N_("Declare bankruptcy? This cannot be undone by you alone."), "bankrupt")
    pictures = frozenset({"companies"})

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "bankrupt", **actor(s, player)}

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        who = w.who(a.get("entity"), a.get("entity_type"))
        pres = (corps_of(change.before).get(str(a.get("entity"))) or {}).get("pres") \
            if a.get("entity_type") != "player" else None
        if pres is None or not (players_of(change.after).get(pres) or {}).get("bankrupt") or \
                (players_of(change.before).get(pres) or {}).get("bankrupt"):
            owed = (change.notes.get("turn_before") or {}).get("owes")  # 1817's cash crisis
            if owed:  # the aftermath says what follows
                return _("{name} goes bankrupt, owing {money}", name=who, money=w.money(owed))
            return _("{name} goes bankrupt", name=who)  # a company's own bankruptcy (1860): the aftermath says the rest
        return _("{name} goes bankrupt: {operator} can't buy the train it must have", name=w.who(pres, "player"),
                 operator=who)

    def label(self, s, a):
        return _("bankrupt")


AUTO_MODES = ("pass", "pass-always", "buy", "auction", "merger-pass", "off")
MERGER_ROUNDS = ("MR", "AR")  # 1817's merger and acquisition rounds, as 18xx.games' merger pass names them


class Auto(G18xxCommand):
    """Standing orders (18xx.games' programmed actions) for the member's own seat: in stock rounds, and where
    the title has them in the opening auction of the privates (1830, 18MEX) and in merger and acquisition
    rounds (1817). What may be ordered, and for what, the engine says."""

    name, help = "auto", N_("Standing orders: pass or buy in stock rounds and the opening auction, pass in "
                            "merger rounds (1817)")
    types = ("program_share_pass", "program_buy_shares", "program_disable", "program_merger_pass",
             "program_auction_bid")
    options = (Option("mode", N_("pass (this stock round) | pass-always | buy | auction | merger-pass (1817) | off"),
                      required=True),
               Option("corporation", N_("buy: corporation to buy a share of; merger-pass: the one to pass for "
                                        "(default all)")),
               Option("until", N_("mode buy: float, or how many shares to hold")),
               Option("then_pass", N_("buy: yes to pass automatically once done; auction: yes to pass on "
                                      "instead of stopping")),
               Option("acquisition", N_("merger-pass: the ones to pass for in acquisition rounds, if others "
                                        "(none: pass in none)")),
               Option("private", N_("auction: the private to buy or bid on")),
               Option("max", N_("auction: bid on it, the least allowed at each turn, up to this much"), int),
               Option("buy_at", N_("auction: buy it once it is the cheapest private at this price or less"), int))
    any_time = True

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        mode = str(opts["mode"]).strip().lower()
        base = {"entity_type": "player", "entity": None}
        if mode in ("pass", "pass-always"):
            always = mode == "pass-always"
            return {**base, "type": "program_share_pass", "unconditional": always, "indefinite": always}
        if mode == "off":
            return {**base, "type": "program_disable", "reason": "user"}
        if mode == "buy":
            if not opts.get("corporation"):
                raise UserError(lazy("/auto buy needs the corporation to buy."))
            corp = str(opts["corporation"]).strip().upper()
            corporations = {c.upper(): c for c in s.corporations()}
            if corp not in corporations:
                raise UserError(lazy("There is no corporation {corporation}: choose one of {corporations}.",
                                     corporation=quote(corp), corporations=", ".join(sorted(corporations.values()))))
            until = str(opts.get("until") or "float").strip().lower()
            if until != "float":
                until = number(until, "until")
                if until < 1:
                    raise UserError(lazy("/auto until: a number of shares (1 or more), or `float`."))
            return {**base, "type": "program_buy_shares", "corporation": corporations[corp],
                    "until_condition": until, "from_market": False,
                    "auto_pass_after": yes(opts.get("then_pass"))}
        if mode == "merger-pass":
            return {**base, **self.merger_pass(s, opts.get("corporation"), player, opts.get("acquisition"))}
        if mode == "auction":
            return {**base, **self.auction_bid(s, opts)}
        raise UserError(lazy("/auto mode is one of {modes}, not {mode}.", modes=", ".join(AUTO_MODES), mode=quote(mode)))

    @staticmethod
    def auction_bid(s: G18xx, opts: dict) -> dict:
        """Buy or bid on a private of the opening auction, among those the engine offers now."""
        offers = {o["company"]: o["price"] for o in auction_offers(s)}
        if not offers:
            raise UserError(lazy("No private is on sale in an auction now: `auction` orders are for the opening "
                                 "auction of the privates."))
        privates = {sym.upper(): sym for sym in offers}
        name = str(opts.get("private") or "").strip().upper()
        if name not in privates:
            raise UserError(lazy("Name the private to buy or bid on (`private`): one of {privates}.",
                                 privates=", ".join(offers)))
        sym = privates[name]
        maximum = None if opts.get("max") is None else number(opts["max"], "max")
        buy_at = None if opts.get("buy_at") is None else number(opts["buy_at"], "buy_at")
        if (maximum is None) == (buy_at is None):
            raise UserError(lazy("Give `max` (bid on it up to that much) or `buy_at` (buy it once it is the "
                                 "cheapest at that price or less), one of the two."))
        if maximum is not None and maximum < offers[sym]:
            raise UserError(lazy("The lowest bid on {company} is {money} now: a maximum under it would stop at once.",
                                 company=sym, money=s.words().money(offers[sym])))
        return {"type": "program_auction_bid", "bid_target": sym, "enable_maximum_bid": maximum is not None,
                "maximum_bid": maximum or 0, "enable_buy_price": buy_at is not None, "buy_price": buy_at or 0,
                "auto_pass_after": yes(opts.get("then_pass"))}

    @staticmethod
    def merger_pass(s: G18xx, named: Any, player: int, acquisition: Any = None) -> dict:
        """Pass in the merger and acquisition rounds for the corporations named (default: all the member
        presides), where the title has such rounds (the engine's program types say); `acquisition` names
        others for the acquisition round (18xx.games' order keeps a list per kind of round; `none`: none)."""
        if "program_merger_pass" not in (getattr(s.game, "PROGRAM_TYPES", ()) or ()):
            raise UserError(lazy("{title} has no merger rounds to pass in.", title=s.title))
        corps = {c.upper(): c for c in s.corporations()}

        def listed(text: Any) -> list[str]:
            wanted = [x.strip().upper() for x in str(text).split(",") if x.strip() and x.strip().lower() != "none"]
            bad = [x for x in wanted if x not in corps]
            if bad:
                raise UserError(lazy("There is no corporation {corporation}.", corporation=quote(bad[0])))
            return [corps[x] for x in wanted]

        if named:
            chosen = listed(named)
        else:
            chosen = sorted(sym for sym, c in corps_of(s.summary()).items() if c.get("pres") == player)
            if not chosen and not acquisition:
                raise UserError(lazy("You preside no corporation to pass for: name one with `corporation`."))
        by_round = {r: chosen for r in MERGER_ROUNDS}
        if acquisition:
            by_round["AR"] = listed(acquisition)
        return {"type": "program_merger_pass", "corporations_by_round": by_round, "options": []}

    def choices(self, s, option, filled, legal):
        merger = "program_merger_pass" in (getattr(s.game, "PROGRAM_TYPES", ()) or ())
        offers = auction_offers(s)
        modes = tuple(m for m in AUTO_MODES if (merger or m != "merger-pass") and (offers or m != "auction"))
        fixed = {"mode": modes, "until": ("float", "2", "3", "4", "5", "6"), "then_pass": ("yes", "no")}
        if option in fixed:
            return [(v, v) for v in fixed[option]]
        if option in ("private", "max", "buy_at"):
            w = s.words()
            if option == "private":
                return [(_("{company}: lowest bid {money} now", company=o["company"], money=w.money(o["price"])),
                         o["company"]) for o in offers]
            chosen = [o["price"] for o in offers if o["company"].upper() == str(filled.get("private") or "").upper()]
            low = chosen[0] if chosen else min((o["price"] for o in offers), default=0)
            steps = (0, 10, 20, 50, 100) if option == "max" else (0, -5, -10, -20)
            return [(w.money(low + d), low + d) for d in steps if low + d >= 0]
        if filled.get("mode") == "merger-pass":
            return [(sym, sym) for sym, c in corps_of(s.summary()).items() if c.get("pres") is not None] + \
                ([("none", "none")] if option == "acquisition" else [])
        corps = sorted({corp_of(a["shares"][0]) for a in of_type(legal, "buy_shares")} |
                       {a["corporation"] for a in of_type(legal, "par")})
        return [(c, c) for c in corps]

    def describe(self, s, change, names):
        a, w = change.action, s.words(names)
        who = w.who(a.get("entity"), a.get("entity_type"))
        t = a.get("type")
        stock = s.game.round.stock
        if t == "program_share_pass":
            if a.get("indefinite"):
                text = _("{name} will pass automatically in every stock round", name=who) if stock else \
                    _("{name} will pass automatically in every stock round, from the next one on", name=who)
            elif stock:
                text = _("{name} will pass automatically for the rest of this stock round", name=who)
            else:  # as on 18xx.games, kept only into a stock round that comes next
                text = _("{name} will pass automatically in the next stock round if it is the round after {round}; "
                         "otherwise the order ends when the next round begins (`/auto pass-always` passes in every stock "
                         "round)", name=who, round=round_text(s.game.round.description))
            outlook = self.pass_outlook(s, w, a)
            return text + "; " + outlook if outlook else text
        if t == "program_merger_pass":
            by_round = a.get("corporations_by_round") or {}
            merger, acquisition = (sorted(by_round.get(r) or ()) for r in MERGER_ROUNDS)
            if merger != acquisition:
                return _("{name} will pass automatically in merger rounds for {corporations} and in acquisition "
                         "rounds for {others}", name=who, corporations=", ".join(merger) or _("none"),
                         others=", ".join(acquisition) or _("none"))
            return _("{name} will pass automatically in merger and acquisition rounds for {corporations}", name=who,
                     corporations=", ".join(merger) or _("none"))
        if t == "program_auction_bid":
            return self.describe_auction_bid(w, who, a)
        if t == "program_buy_shares":
            until = a.get("until_condition")
            if until == "float":
                text = _("{name} will buy a {corporation} share each turn until it floats", name=who,
                         corporation=a.get("corporation"))
            else:
                text = _("{name} will buy a {corporation} share each turn until holding {n} shares", name=who,
                         corporation=a.get("corporation"), n=until)
            if a.get("auto_pass_after"):
                text += ", " + _("then pass for the rest of that stock round")
            if stock:
                return text
            return text + "; " + _("it acts from the next stock round if it is the round after {round}; otherwise "
                                   "the order ends when the next round begins", round=round_text(s.game.round.description))
        reason = a.get("reason")
        if reason and reason != "user":
            return _("{name}'s automatic actions stop ({why})", name=who, why=stop_reason(reason))
        return _("{name}'s automatic actions stop", name=who)

    @staticmethod
    def pass_outlook(s: G18xx, w: Words, a: dict) -> str | None:
        """In a stock round, where the order did not pass at once: what its pass leads to if everyone passes
        from now on, or that it is not known yet (the engine tries the passes on a copy)."""
        from bot.families.g18xx.previews import standing_pass_outlook
        from engine.core.preview import standing_pass

        if not s.game.round.stock or s.game.finished:
            return None
        try:
            said = standing_pass(s.game, {k: v for k, v in clean(a).items() if k != "auto_actions"})
        except Exception:
            log.debug("the outlook of %s failed", a, exc_info=True)
            return None
        return standing_pass_outlook(w, said, a.get("entity"))

    @staticmethod
    def describe_auction_bid(w: Words, who: str, a: dict) -> str:
        """What an auction order will do, and when it stops (as the engine plays it: engine.core.programs)."""
        company, on = w.company(a.get("bid_target")), bool(a.get("auto_pass_after"))
        from engine.core.actions import whole_number

        # the amounts as the engine reads them: an imported order may give them as text, or empty (0)
        buy_price, maximum = whole_number(a.get("buy_price")), whole_number(a.get("maximum_bid"))
        if a.get("enable_buy_price"):
            money = w.money(buy_price)
            if a.get("enable_maximum_bid") and not on:  # 18xx.games' order with both: it buys only, and stops
                return _("{name} will buy {company} once it is the cheapest private at {money} or less, passing "
                         "until then; the order stops once {company} is sold or its price passes {maximum}",
                         name=who, company=company, money=money, maximum=w.money(maximum))
            if on:
                return _("{name} will buy {company} once it is the cheapest private at {money} or less, passing "
                         "until then; the order stops once {company} is sold", name=who, company=company, money=money)
            return _("{name} will buy {company} once it is the cheapest private at {money} or less, passing until "
                     "then; the order stops once another player bids on {company} or it is sold", name=who,
                     company=company, money=money)
        money = w.money(maximum if a.get("enable_maximum_bid") else 0)
        if on:
            return _("{name} will bid on {company} at each turn, the least allowed, up to {money}, and pass once the "
                     "price passes it; the order stops once {company} is sold or {name} holds the highest bid on it",
                     name=who, company=company, money=money)
        return _("{name} will bid on {company} at each turn, the least allowed, up to {money}; the order stops "
                 "once the price passes {money}, once {company} is sold, or when {name} holds the highest bid on "
                 "it", name=who, company=company, money=money)

    def label(self, s, a):
        return str(a.get("type"))

    def options_for(self, a):
        t = a["type"]
        if t == "program_auction_bid":
            out = {"mode": "auction", "private": a["bid_target"],
                   "then_pass": "yes" if a.get("auto_pass_after") else "no"}
            if a.get("enable_maximum_bid"):
                out["max"] = a["maximum_bid"]
            if a.get("enable_buy_price"):
                out["buy_at"] = a["buy_price"]
            return out
        if t == "program_share_pass":
            return {"mode": "pass-always" if a.get("indefinite") else "pass"}
        if t == "program_merger_pass":
            by_round = a.get("corporations_by_round") or {}
            merger, acquisition = (list(by_round.get(r) or ()) for r in MERGER_ROUNDS)
            out = {"mode": "merger-pass", "corporation": ",".join(merger) or "none"}
            return out if merger == acquisition else {**out, "acquisition": ",".join(acquisition) or "none"}
        if t == "program_buy_shares":
            return {"mode": "buy", "corporation": a["corporation"], "until": str(a["until_condition"]),
                    "then_pass": "yes" if a.get("auto_pass_after") else "no"}
        return {"mode": "off"}


def auction_offers(s: G18xx) -> list[dict]:
    """The privates an auction order may be given for now, with their lowest bids (the engine's list)."""
    offers = getattr(s.game, "auction_program_offers", None)
    return offers() if offers else []


def yes(value: Any) -> bool:
    return str(value or "").strip().lower() in ("yes", "y", "true", "1")


def describe_auto(w: Words, action: dict) -> str:
    """Short words for what a standing order did (no state before and after each auto action)."""
    who = w.who(action.get("entity"), action.get("entity_type"))
    t = action.get("type")
    if t == "pass":
        return _("{name} passes", name=who)
    if t == "buy_shares":
        return _("{name} buys {shares}", name=who, shares=w.certificates_text(action.get("shares") or []))
    if t == "bid":
        return _("{name} bids {money} on {company}", name=who, money=w.money(action.get("price")),
                 company=w.company(action.get("company")))
    if t == "program_disable":
        return _("{name}'s standing order stops ({why})", name=who, why=stop_reason(action.get("reason")))
    if t == "program_share_pass":
        return _("{name} will pass automatically", name=who)
    return f"{who}: {t}"


COMMANDS: tuple[Command, ...] = (Bid(), Par(), Buy(), Sell(), Pass(), Lay(), Token(), Run(), Dividend(), Train(),
                                 Discard(), Private(), Merge(), Assign(), Bankrupt(), Auto(), EndTurn(), Loan(), Repay(),
                                 Short(), Convert(), Choose(), Offer())
