"""The words of a preview shown before an 18xx action is sent, for its member to confirm or cancel: what a
loan or a repayment costs (treasury, loans against the limit, interest at the rate now and the rate the
loans out make, the price move), what a conversion or a merger does to the corporation (size, price,
treasury, loans, trains and stations against their limits, president) and to each holder (shares before →
after, cash paid or received), what an acquisition does to the buyer and pays the holders, what an offer
for sale puts up and what each holder gets if it sells at its opening bid, and what a pass (or a standing
order to pass acting at once) sets off where the engine says a pass may (a stock round it ends, with the
prices moved, the priority deal, the privates' income and who operates first; an auction it ends, a corporation
bought or liquidated and what its holders get and its president pays, the loans a buyer keeps, interest
borrowed for or unpaid, the liquidation zone and why), and what a standing order to buy acting at once
does then (the share bought, the orders it sets off, a pass that ends the round). The facts are the engine's (`engine.core.preview`:
the action tried on a copy of the game, with the events the engine settled as it went); the same event
words tell a move's message what it settled (`settled_text`).
"""

from __future__ import annotations

from typing import Any

from bot.families.g18xx.words import Words, and_list, cash_lines, company_payments, sale_terms
from i18n import _, ngettext
from i18n.engine_words import round_text

# the kinds of action previewed before they are sent (1817's: a game without loans or mergers has none)
PREVIEWED = ("take_loan", "payoff_loan", "convert", "merge", "assign")


def wanted(action: dict, turn: dict) -> bool:
    """Whether this action is previewed: loans, conversions, mergers, naming a buyer, offers for sale, and a
    pass (a stock round's too), or a standing order to pass (stock and merger rounds: acting at once), where the engine says a pass may set something off
    (`turn["pass_sets_off"]`: shown only when it does, see `pass_text`); a standing order to buy set at its
    player's turn (it acts at once: `buy_order_text`); not 18MEX's merger into the NdM
    (`turn["merge"]`), nor a private's or a station's `assign`."""
    kind = action.get("type")
    if kind in ("pass", "program_merger_pass", "program_share_pass"):
        return bool(turn.get("pass_sets_off"))
    if kind == "program_buy_shares":  # acting at once: it is its player's turn
        return action.get("entity") in (turn.get("players") or ())
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
        settled = settled_text(w, said.get("events") or [], False)
        return loan_text(w, corp, corps.get(corp) or {}, said.get("loans") or {}, kind == "take_loan") \
            + ("; " + settled if settled else "")
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
        events = said.get("events") or []
        bought = next((e for e in events if e.get("event") == "acquired"), None)
        if bought is None:
            return None
        sold = bought["corporation"]
        text = acquired_text(w, bought) + ": " + "; ".join(corporation_lines(w, buyer, corps.get(buyer) or {}))
        after = said.get("next") or {}
        if after.get("entity") == buyer and {"take_loan", "payoff_loan"} & set(after.get("types") or ()):
            return text + "; " + _("then {buyer} may take or repay loans before the holders of {corporation} are "
                                   "paid", buyer=buyer, corporation=sold)
        rest = settled_text(w, [e for e in events if e is not bought], False)
        return text + ("; " + rest if rest else "")
    if kind == "assign":
        corp = str(action.get("target"))
        sale = (said.get("next") or {}).get("sale") or {}
        opening = sale.get("opening") if sale.get("corporation") == corp else None
        head = _("{corporation} is offered for sale", corporation=corp)
        if opening is None:
            return head
        text = head + ": " + _("bids from {money}; the price it fetches is paid to its holders per share, shorts "
                               "paying", money=w.money(opening))
        terms = sale_terms(w, sale)
        return text + "; " + terms if terms else text
    if kind == "pass":
        return pass_text(w, action, said, turn)
    if kind in ("program_merger_pass", "program_share_pass"):
        return order_text(w, said)
    if kind == "program_buy_shares":
        return buy_order_text(w, said)
    return None


def pass_text(w: Words, action: dict, said: dict, turn: dict) -> str | None:
    """What a pass sets off besides the turn moving on, None if nothing a player would weigh first: what the
    engine settled as it carried the pass out (`said["events"]`: an auction ended, each corporation then
    acquired or liquidated and what each holder got and its president paid, the loans a buyer keeps,
    interest borrowed for or unpaid, a corporation sent into the liquidation zone and why), then the prices
    and zones that moved and the cash players received or paid besides."""
    lines = consequences(w, said)
    if not lines:
        return None
    return _("If you pass: {consequences}", consequences="; ".join(lines))


def order_text(w: Words, said: dict) -> str | None:
    """A standing order to pass that acts at once: what its passes set off, None if nothing (`pass_text`)."""
    lines = consequences(w, said)
    if not lines:
        return None
    return _("If this order passes now: {consequences}", consequences="; ".join(lines))


def buy_order_text(w: Words, said: dict) -> str | None:
    """A standing order to buy that acts at once: what it and the orders it sets off do now (a share bought,
    the order done and, if told to, passing; the corporation floated), and what that settles (the players' cash
    moved, or the stock round's end: `consequences`). None if it does nothing now."""
    from bot.families.g18xx.commands import describe_auto

    acts = said.get("auto_actions") or []
    if not acts:
        return None
    lines = [", ".join(describe_auto(w, a) for a in acts)]
    for sym, c in (said.get("corporations") or {}).items():
        if c.get("floated") == [False, True]:
            lines.append(_("{corporation} floats with {money}", corporation=sym, money=w.credits(c["cash"][1])))
    lines += consequences(w, said) or cash_lines(w, {pid: p["cash"][1] - p["cash"][0]
                                                     for pid, p in (said.get("players") or {}).items()})
    return _("If this order acts now: {consequences}", consequences="; ".join(lines))


def standing_pass_outlook(w: Words, said: dict, player: Any) -> str | None:
    """What a standing order to pass in a stock round, set by `player` and not passing at once, leads to
    (`engine.core.preview.standing_pass`), for the order's message: what the round's end settles should
    everyone pass from now on, and whose pass ends it then; or that it is not known yet. None when the
    order passed at once (its preview told what that set off)."""
    when = said.get("when")
    if when == "now":
        return None
    lines = consequences(w, said) if when == "if_all_pass" else []
    if not lines:
        return _("whether a pass of it ends the round is not known yet: that depends on the moves before it, and "
                 "is told when it comes")
    others = [pid for pid in said.get("others") or [] if pid != said.get("last")]
    name = w.who(player, "player")
    if said.get("last") == player:
        return ngettext("not known yet whether its pass ends the round: if {names} passes before {name}'s turn, "
                        "it does: {consequences}",
                        "not known yet whether its pass ends the round: if {names} pass before {name}'s turn, "
                        "it does: {consequences}", len(others), names=and_list([w.who(pid, "player") for pid in others]),
                        name=name, consequences="; ".join(lines))
    return _("not known yet what its passes lead to: if everyone passes, the round ends at {last}'s pass: "
             "{consequences}", last=w.who(said.get("last"), "player"), consequences="; ".join(lines))


def consequences(w: Words, said: dict) -> list[str]:
    """The lines of `pass_text`: the engine's events in words (a stock round's end first, with what it
    settles: `stock_round_end_lines`), the prices and zones moved, the cash moved that no event accounts
    for. Empty when the only news is routine (interest paid from the treasury)."""
    events = said.get("events") or []
    lines = stock_round_end_lines(w, said) or [line for e in events for line in event_lines(w, e)]
    if not lines:
        return []
    corps = said.get("corporations") or {}
    zoned = {e["corporation"] for e in events if e["event"] in ("liquidation_zone", "price_moved")}
    for sym, c in corps.items():
        price, zone = c.get("price") or [None, None], c.get("zone") or [None, None]
        if c.get("gone") or sym in zoned or None in price or price[0] == price[1]:
            continue
        money = dict(corporation=sym, before=w.money(price[0]), after=w.money(price[1]))
        if zone[0] != zone[1] and zone[1] == "acquisition":
            lines.append(_("{corporation} moves into the acquisition zone ({before} → {after})", **money))
        else:
            lines.append(_("{corporation} price {before} → {after}", **money))
    told = {str(pid) for e in events for pid in (e.get("paid") or {})} | \
        {str(e.get("president")) for e in events if e.get("president_pays") or e["event"] == "interest_unpaid"}
    income: dict[str, int] = {}  # the privates' income a stock round's end pays: the rest of a player's cash moved
    for e in events:             # is theirs to tell (a buy order's payment for the share it buys first)
        if e["event"] == "income" and e.get("to_type") == "player":
            income[str(e["to"])] = income.get(str(e["to"]), 0) + e["amount"]
    paid = cash_lines(w, {pid: p["cash"][1] - p["cash"][0] - income.get(str(pid), 0)
                          for pid, p in (said.get("players") or {}).items() if str(pid) not in told})
    if paid:
        lines.append(and_list(paid))
    for pid, p in (said.get("players") or {}).items():
        if p["cash"][1] < 0 <= p["cash"][0]:
            lines.append(_("{name} is left {money} short: they must sell shares to pay it, or go bankrupt",
                           name=w.who(pid, "player"), money=w.money(-p["cash"][1])))
    return lines


def stock_round_end_lines(w: Words, said: dict) -> list[str]:
    """What a stock round's end settles, in the order the engine settles it (`said["events"]`), empty if the
    round goes on: `Stock Round 3 ends; NYNH is sold out: price $65 → $67; Bob gets the priority deal;
    Operating Round 3.1 (of 2) begins; privates pay SV $5 to Ann, …; NYNH operates first, then NYC, PRR; NYNH
    places its home station on G19 New York` (a corporation's first turn: 1830, 18MEX),
    with a title's own (1817: a corporation liquidated for want of stations, the Train Station closing,
    the interest rate fixed for the operating round; 18MEX: the mail contract of the first to operate)."""
    events = said.get("events") or []
    ended = next((e for e in events if e["event"] == "round_ended" and e.get("kind") == "stock"), None)
    if ended is None:
        return []
    lines = [_("{round} ends", round=round_text(ended["round"]))]
    income = [e for e in events if e["event"] == "income"]
    for e in events:
        kind = e["event"]
        if kind == "price_moved":
            money = dict(corporation=e["corporation"], before=w.money(e["price"][0]), after=w.money(e["price"][1]))
            lines.append(_("{corporation} is sold out: price {before} → {after}", **money) if e["why"] == "sold_out"
                         else _("{corporation} has shares in the market: price {before} → {after}", **money))
        elif kind == "company_closed":
            lines.append(ngettext("private {names} closes", "privates {names} close", 1, names=e["company"]))
        elif kind == "priority":
            lines.append(_("{name} gets the priority deal", name=w.who(e["player"], "player")))
        elif kind == "interest_rate":
            lines.append(_("interest for this operating round: {rate} a loan", rate=w.money(e["rate"])))
        elif kind == "round_started":
            lines.append(_("{round} begins", round=round_text(e["round"])))
        elif kind == "income" and e is income[0]:
            lines.append(_("privates pay {incomes}", incomes=", ".join(
                _("{company} {money} to {name}", company=x["company"], money=w.money_of(x["to"], x["to_type"], x["amount"]),
                  name=w.who(x["to"], x["to_type"])) for x in income)))
        elif kind == "home_station":
            lines.append(_("{corporation} chooses the city of {place} for its home station", corporation=e["corporation"],
                           place=w.place(e["hex"])) if e.get("chooses") else
                         _("{corporation} places its home station on {place}", corporation=e["corporation"],
                           place=w.place(e["hex"])))
        elif kind == "mail_contract":
            lines.append(_("{corporation} gets {money} from its mail contract", corporation=e["to"],
                           money=w.credits(e["amount"])))
        elif kind == "operating_order":
            first, *rest = e["operators"] or [None]
            if first is None:
                lines.append(_("no corporation operates"))
            elif rest:
                lines.append(_("{operator} operates first, then {others}", operator=first, others=", ".join(rest)))
            else:
                lines.append(_("only {operator} operates", operator=first))
        elif kind != "round_ended":
            lines.extend(event_lines(w, e))
    paid = company_payments(w, said.get("payments") or [])
    if paid:
        lines.append(paid.removeprefix("; "))
    return lines


def settled_text(w: Words, events: list[dict], won_told: bool) -> str:
    """What the engine settled during an applied action (`game.outcomes`), in the words its preview used; an
    auction's winner and buyer left out when the action's own words told them (`won_told`: with the buyer's
    terms, `acquired_terms`)."""
    return "; ".join(line for e in events if not (won_told and e.get("event") in ("auction_won", "acquired"))
                     for line in event_lines(w, e))


def event_lines(w: Words, e: dict) -> list[str]:
    """One event the engine settled (`engine.core.game.outcomes`), in words; none for routine ones."""
    kind, corp = e.get("event"), e.get("corporation")
    if kind == "auction_won":
        return [_("the auction of {corporation} ends: {name} wins it for {money}", corporation=corp,
                  name=w.who(e["player"], "player"), money=w.money(e["price"]))]
    if kind == "acquired":
        return [acquired_text(w, e)]
    if kind == "liquidated":
        return [_("the bank liquidates {corporation}: its stations come off the map", corporation=corp)]
    if kind == "loans_kept":
        out = []
        if e.get("repaid_over_limit"):
            n = e["repaid_over_limit"]
            out.append(ngettext("{corporation} repays {n} loan over its limit", "{corporation} repays {n} loans over "
                                "its limit", n, corporation=corp, n=n))
        if e.get("loans"):
            n = e["loans"]
            out.append(ngettext("{corporation} keeps {n} loan of {acquired}: its price moves {n} step left",
                                "{corporation} keeps {n} loans of {acquired}: its price moves {n} steps left", n,
                                corporation=corp, n=n, acquired=e.get("from")))
        return out
    if kind == "settled":
        return settled_lines(w, e)
    if kind == "interest":
        if e.get("unpaid") or not e.get("borrowed"):
            return []  # told by interest_unpaid, or routine: paid from the treasury
        n = e["borrowed"]
        return [ngettext("{corporation} borrows {n} loan to pay its {money} interest",
                         "{corporation} borrows {n} loans to pay its {money} interest", n, corporation=corp, n=n,
                         money=w.money(e["amount"]))]
    if kind == "interest_unpaid":
        return [_("{corporation} can't pay its {money} interest: {name}, its president, pays it, getting its "
                  "treasury of {treasury}", corporation=corp, money=w.money(e["owed"]),
                  name=w.who(e["president"], "player"), treasury=w.money(e["treasury"]))]
    if kind == "liquidation_zone":
        why = e.get("why")
        if why == "no_train":
            line = _("{corporation} ends its turn without a train: it moves into the liquidation zone", corporation=corp)
        elif why == "stations":
            line = _("{corporation} can't pay for its stations: it moves into the liquidation zone", corporation=corp)
        else:
            line = _("{corporation} moves into the liquidation zone", corporation=corp)
        before, after = e["price"]
        if before == after:  # already at the zone's price: no move to tell
            return [line]
        return [_("{event} ({before} → {after})", event=line, before=w.money(before), after=w.money(after))]
    return []


def acquired_text(w: Words, e: dict) -> str:
    """`WT buys PSNR for $20 (taking over its 3 loans, borrowing 1 loan to pay)`."""
    head = _("{buyer} buys {corporation} for {money}", buyer=e["buyer"], corporation=e["corporation"],
             money=w.money(e["price"]))
    return head + acquired_terms(w, e)


def acquired_terms(w: Words, e: dict) -> str:
    """` (taking over its 3 loans, borrowing 1 loan to pay)`: what a buyer takes over and borrows to pay for a
    corporation it acquires (`acquired` event); "" if nothing."""
    parts = []
    if e.get("cash"):
        parts.append(_("taking over its treasury of {money}", money=w.money(e["cash"])))
    if e.get("treasury_shares"):
        parts.append(_("its treasury shares sold to the market for {money}", money=w.money(e["treasury_shares"])))
    if e.get("loans"):
        parts.append(ngettext("taking over its {n} loan", "taking over its {n} loans", e["loans"], n=e["loans"]))
    if e.get("borrowed"):
        parts.append(ngettext("borrowing {n} loan to pay", "borrowing {n} loans to pay", e["borrowed"],
                              n=e["borrowed"]))
    return " (" + ", ".join(parts) + ")" if parts else ""


def settled_lines(w: Words, e: dict) -> list[str]:
    """What a corporation sold or liquidated leaves: its loans repaid (its president paying the shortfall),
    what each holder receives or, for a short, pays."""
    corp, out = e["corporation"], []
    if e.get("loans_repaid"):
        n = e["loans_repaid"]
        out.append(ngettext("{corporation}'s {n} loan is repaid first", "{corporation}'s {n} loans are repaid first",
                            n, corporation=corp, n=n))
    if e.get("president_pays"):
        out.append(_("{name}, its president, pays the {money} they leave unpaid",
                     name=w.who(e["president"], "player"), money=w.money(e["president_pays"])))
    paid = cash_lines(w, e.get("paid") or {})
    if paid:
        out.append(_("holders of {corporation}: {list}", corporation=corp, list=and_list(paid)))
    elif not e.get("shareholders"):  # (what goes to shares no player holds is nobody's news)
        out.append(_("the holders of {corporation} get nothing", corporation=corp))
    return out


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
