"""The words of a preview shown before an 18xx action is sent, for its member to confirm or cancel: what a
loan or a repayment costs (treasury, loans against the limit, interest at the rate now and the rate the
loans out make, the price move), what a conversion or a merger does to the corporation (size, price,
treasury, loans, trains and stations against their limits, president) and to each holder (shares before →
after, cash paid or received), what an acquisition does to the buyer and pays the holders, what an offer
for sale puts up and what each holder gets if it sells at its opening bid, and what a pass in a merger or
acquisition round sets off (an auction it ends, a corporation the bank liquidates, a buyer's price moved by
the loans it keeps, cash paid or owed). The facts are the engine's (`engine.core.preview`: the action tried
on a copy of the game).
"""

from __future__ import annotations

from typing import Any

from bot.families.g18xx.words import Words, and_list
from i18n import _, ngettext

# the kinds of action previewed before they are sent (1817's: a game without loans or mergers has none)
PREVIEWED = ("take_loan", "payoff_loan", "convert", "merge", "assign")


def wanted(action: dict, turn: dict) -> bool:
    """Whether this action is previewed: loans, conversions, mergers, naming a buyer, offers for sale, and a
    pass in a merger or acquisition round (`turn["merger_round"]`: shown only when it sets something off, see
    `pass_text`); not 18MEX's merger into the NdM (`turn["merge"]`), nor a private's or a station's `assign`."""
    kind = action.get("type")
    if kind == "pass":
        return bool(turn.get("merger_round"))
    if kind == "assign":
        return action.get("target_type") == "corporation"
    if kind == "merge":
        return not turn.get("merge")
    return kind in PREVIEWED


def preview_text(w: Words, action: dict, said: dict, turn: dict) -> str | None:
    """The preview of `action` from the engine's preview `said` (`turn`: the game's turn facts before it),
    None when there is nothing to say."""
    kind = action.get("type")
    corps = said.get("corporations") or {}
    if kind in ("take_loan", "payoff_loan"):
        corp = str(action.get("entity"))
        return loan_text(w, corp, corps.get(corp) or {}, said.get("loans") or {}, kind == "take_loan") \
            + holders_paid(w, said, set(corps) - {corp})
    if kind == "convert":
        corp = str(action.get("entity"))
        c = corps.get(corp) or {}
        head = _("{corporation} converts from {before} to {after} shares", corporation=corp, before=c["size"][0],
                 after=c["size"][1])
        return head + ": " + "; ".join(corporation_lines(w, corp, c) + holder_lines(w, said, [corp], corp))
    if kind == "merge" and action.get("entity_type") == "corporation":
        into, merged = str(action.get("entity")), str(action.get("corporation"))
        c = corps.get(into) or {}
        head = _("{corporation} merges into {into}", corporation=merged, into=into)
        return head + ": " + "; ".join(corporation_lines(w, into, c) + holder_lines(w, said, [into, merged], into))
    if kind == "merge":  # the winner of an acquisition names the buyer
        buyer = str(action.get("corporation"))
        sale = turn.get("acquisition") or {}
        sold = str(sale.get("corporation"))
        head = _("{buyer} buys {corporation} for {money}", buyer=buyer, corporation=sold, money=w.money(sale.get("price")))
        text = head + ": " + "; ".join(corporation_lines(w, buyer, corps.get(buyer) or {}))
        after = said.get("next") or {}
        if after.get("entity") == buyer and {"take_loan", "payoff_loan"} & set(after.get("types") or ()):
            return text + "; " + _("then {buyer} may take or repay loans before the holders of {corporation} are "
                                   "paid", buyer=buyer, corporation=sold)
        return text + holders_paid(w, said, {sold})
    if kind == "assign":
        corp = str(action.get("target"))
        sale = (said.get("next") or {}).get("sale") or {}
        opening = sale.get("opening") if sale.get("corporation") == corp else None
        head = _("{corporation} is offered for sale", corporation=corp)
        if opening is None:
            return head
        text = head + ": " + _("bids from {money}; the price it fetches is paid to its holders per share, shorts "
                               "paying", money=w.money(opening))
        paid = cash_lines(w, {pid: amount for pid, amount in (sale.get("proceeds") or {}).items()})
        return text + "; " + _("sold at {money}: {list}", money=w.money(opening), list=and_list(paid)) if paid else text
    if kind == "pass":
        return pass_text(w, action, said, turn)
    return None


def pass_text(w: Words, action: dict, said: dict, turn: dict) -> str | None:
    """What a pass in a merger or acquisition round sets off besides the turn moving on, None if nothing: the
    auction it ends (the highest bid wins), each corporation then sold or liquidated by the bank (its stations
    off the map, its president paying what its loans leave unpaid), a corporation sent into the liquidation or
    acquisition zone (a converted one left without the cash for its stations), the prices it moves (a buyer's
    loans kept), the cash players receive or pay (shorts paying)."""
    corps = said.get("corporations") or {}
    sold = (turn.get("acquisition") or {}).get("corporation")
    gone = [sym for sym, c in corps.items() if c.get("gone")]
    lines = []
    auction = turn.get("auction") or {}
    bids = auction.get("bids") or []
    if bids and len([p for p in auction.get("bidders") or () if p != action.get("entity")]) == 1:
        pid, price = max(bids, key=lambda bid: bid[1])
        lines.append(_("the auction of {corporation} ends: {name} wins it for {money}", corporation=sold,
                       name=w.who(pid, "player"), money=w.money(price)))
    buyer = turn.get("buyer") or next((sym for sym, c in corps.items() if not c.get("gone") and
                                       (c.get("stations") or [0, 0])[1] > ((c.get("stations") or [0, 0])[0] or 0)),
                                      None)
    for sym in gone:
        if sym == sold and (bids or turn.get("buyer")):
            lines.append(_("{buyer} takes {corporation} over", buyer=buyer, corporation=sym) if buyer else
                         _("{corporation} is sold", corporation=sym))
        else:
            lines.append(_("the bank liquidates {corporation}: its stations come off the map", corporation=sym))
    for sym, c in corps.items():
        price, zone = c.get("price") or [None, None], c.get("zone") or [None, None]
        if c.get("gone") or None in price or price[0] == price[1]:
            continue
        money = dict(corporation=sym, before=w.money(price[0]), after=w.money(price[1]))
        if zone[0] != zone[1] and zone[1] == "liquidation":
            lines.append(_("{corporation} moves into the liquidation zone ({before} → {after})", **money))
        elif zone[0] != zone[1] and zone[1] == "acquisition":
            lines.append(_("{corporation} moves into the acquisition zone ({before} → {after})", **money))
        else:
            lines.append(_("{corporation} price {before} → {after}", **money))
    paid = cash_lines(w, {pid: p["cash"][1] - p["cash"][0] for pid, p in (said.get("players") or {}).items()})
    if paid:
        lines.append(and_list(paid))
    if not lines:
        return None
    return _("If you pass: {consequences}", consequences="; ".join(lines))


def loan_text(w: Words, corp: str, c: dict, loans: dict, taking: bool) -> str:
    """`PSNR takes a loan of $100: treasury $40 → $140; 1 of 2 loans; interest $5 a round at $5 a loan; price
    $55 → $50`."""
    value = w.credits(loans.get("value", 100))
    head = _("{corporation} takes a loan of {money}", corporation=corp, money=value) if taking else \
        _("{corporation} repays a loan of {money}", corporation=corp, money=value)
    lines = [_("treasury {before} → {after}", before=w.credits(c["cash"][0]), after=w.credits(c["cash"][1])),
             _("{n} of {most} loans", n=c["loans"][1], most=c["max_loans"][1])]
    rate = (loans.get("rate") or [None, None])[1]
    if rate is not None and c.get("interest") is not None:
        lines.append(_("interest {total} a round at {rate} a loan", total=w.credits(_after(c["interest"])),
                       rate=w.money(rate)))
    rate_before = (loans.get("rate") or [None, None])[0]
    by_loans = (loans.get("rate_by_loans") or [None, None])[1]
    out = (loans.get("out") or [None, None])[1]
    if loans.get("fixed") and by_loans not in (None, rate):
        lines.append(ngettext("with {n} loan out the rate is {rate} a loan from the next operating round ({total} "
                              "a round for {corporation})",
                              "with {n} loans out the rate is {rate} a loan from the next operating round ({total} "
                              "a round for {corporation})", out or 0, n=out, rate=w.money(by_loans),
                              total=w.credits(by_loans * c["loans"][1]), corporation=corp))
    elif not loans.get("fixed") and rate_before not in (None, rate):
        lines.append(_("the rate for every corporation goes {before} → {after} a loan", before=w.money(rate_before),
                       after=w.money(rate)))
    elif rate is not None:
        lines.append(_("the rate stays {rate} a loan", rate=w.money(by_loans if loans.get("fixed") else rate)))
    if c["price"][0] != c["price"][1] and None not in c["price"]:
        lines.append(_("price {before} → {after}", before=w.money(c["price"][0]), after=w.money(c["price"][1])))
    return head + ": " + "; ".join(lines)


def _after(pair: Any) -> Any:
    return pair[1] if isinstance(pair, list) else pair


def corporation_lines(w: Words, corp: str, c: dict) -> list[str]:
    """The corporation after a conversion, merger or acquisition: size and price, treasury, loans, trains and
    stations (over a limit: what it must do next), president."""
    lines = [_("{n} shares at {price}", n=c["size"][1], price=w.money(c["price"][1]))]
    if c["cash"][0] != c["cash"][1]:
        lines.append(_("treasury {before} → {after}", before=w.credits(c["cash"][0]), after=w.credits(c["cash"][1])))
    if c["loans"][1] or c["loans"][0]:
        lines.append(_("{n} of {most} loans", n=c["loans"][1], most=c["max_loans"][1]))
    if "trains" in c:
        trains, limit = c["trains"][1] or [], c["train_limit"][1]
        text = _("trains {trains} (limit {n})", trains=", ".join(trains) or "—", n=limit)
        if len(trains) > limit:
            text += ": " + ngettext("{n} to discard", "{n} to discard", len(trains) - limit, n=len(trains) - limit)
        lines.append(text)
    if "stations" in c:
        lines.append(_("stations {before} → {after}", before=c["stations"][0], after=c["stations"][1]))
    if "president" in c and c["president"][1] is not None:
        lines.append(_("{name} presides", name=w.who(c["president"][1], "player")))
    return lines


def holder_lines(w: Words, said: dict, corps: list[str], into: str) -> list[str]:
    """`Ann: 2 of 2 WT + 2 of 2 J → 4 of 5 WT (80%), pays $150`: each player's shares of the corporations before
    and after, and the cash paid or received; then the shares left in the treasury."""
    info = {sym: said["corporations"].get(sym) or {} for sym in corps}
    before = {sym: (c.get("holders") or [{}])[0] for sym, c in info.items()}
    after = (info[into].get("holders") or [None, {}])[1] or {}
    size_before = {sym: (c.get("size") or [None])[0] for sym, c in info.items()}
    size_after = (info[into].get("size") or [None, None])[1]
    holders = list(dict.fromkeys(k for h in (*before.values(), after) for k in h if k not in ("treasury", "market")))
    out = []
    for pid in holders:
        was = [_shares(h[pid], size_before[sym], sym) for sym, h in before.items() if h.get(pid)]
        now = after.get(pid, 0)
        text = _("{name}: {before} → {after}", name=w.who(pid, "player"), before=" + ".join(was) or "—",
                 after=(_shares(now, size_after, into) + (f" ({now}%)" if now > 0 else "")) if now else "—")
        cash = (said.get("players", {}).get(pid) or {}).get("cash") or [0, 0]
        if cash[1] != cash[0]:
            text += ", " + (_("receives {money}", money=w.money(cash[1] - cash[0])) if cash[1] > cash[0] else
                            _("pays {money}", money=w.money(cash[0] - cash[1])))
        out.append(text)
    if after.get("treasury"):
        out.append(_("{shares} in its treasury", shares=_shares(after["treasury"], size_after, into)))
    return out


def _shares(percent: int, size: int | None, corp: str) -> str:
    if not size:
        return f"{percent}% {corp}"
    n = percent * size // 100
    if n < 0:
        return ngettext("{n} short of {corporation}", "{n} shorts of {corporation}", -n, n=-n, corporation=corp)
    return _("{n} of {size} {corporation}", n=n, size=size, corporation=corp)


def holders_paid(w: Words, said: dict, corps: set[str]) -> str:
    """`; paid to the holders: Ann $150, Bob pays $50`: the cash players receive (or pay, for a short) as the
    corporations named are sold or liquidated."""
    paid = cash_lines(w, {pid: p["cash"][1] - p["cash"][0] for pid, p in said.get("players", {}).items()
                          if set(p["shares"]) & corps or not corps})
    return "; " + _("holders: {list}", list=and_list(paid)) if paid else ""


def cash_lines(w: Words, deltas: dict) -> list[str]:
    """`Ann receives $150`, `Bob pays $50`: each player's cash moved (by player id), those unmoved left out."""
    return [_("{name} receives {money}", name=w.who(pid, "player"), money=w.money(delta)) if delta > 0 else
            _("{name} pays {money}", name=w.who(pid, "player"), money=w.money(-delta))
            for pid, delta in deltas.items() if delta]
