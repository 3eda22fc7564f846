"""Phrases the 18xx commands share: money in the title's currency, places, track directions, certificates
and what else an action caused (phase changes, rusting and obsolete trains, closures, price moves, a new
round, the end).

`Words` reads the summaries (18xx.games trace format, docs/formats/traces.md) and the engine's facts
(`game.facts()`: places, phases, operators with their certificates and trains). Everything is best
effort: a missing field just makes the sentence shorter.
"""

from __future__ import annotations

from typing import Any

from bot.commands import or_list
from bot.session import player_name
from i18n import N_, _, ngettext, pgettext
from i18n.engine_words import end_reason_text, round_text

DIRECTIONS = {"pointy": ("SW", "W", "NW", "NE", "E", "SE"), "flat": ("S", "SW", "NW", "N", "NE", "SE")}
OPEN_MARKET = "the open market"  # train_owner's word for the pool (data: shown with owner_word)


def owner_word(owner: Any) -> str:
    return _("the open market") if owner == OPEN_MARKET else str(owner)


def tile_name(tile_id: str) -> str:
    return tile_id.rsplit("-", 1)[0] if "-" in tile_id else tile_id


def price_of(share_price: str) -> str:
    return share_price.split(",", 1)[0]


def exits_text(exits: list[int] | None, layout: str | None) -> str:
    """`W–E` for a track between two edges, `SW, W, E` for more."""
    if not exits:
        return ""
    names = DIRECTIONS.get(layout or "pointy", DIRECTIONS["pointy"])
    words = [pgettext("compass", names[e % 6]) for e in exits]
    return "–".join(words) if len(words) == 2 else ", ".join(words)


def phase_text(name: str, phases: dict | None) -> str:
    """`Phase 3: green tiles, train limit 4, privates may be sold to corporations`."""
    ph = (phases or {}).get(str(name)) or {}
    bits = []
    tiles = ph.get("tiles") or []
    if tiles:
        bits.append(_("{colour} tiles", colour=pgettext("tiles", tiles[-1])))
    if ph.get("train_limit"):
        bits.append(_("train limit {n}", n=ph["train_limit"]))
    status = ph.get("status") or []
    if "can_buy_companies" in status:
        bits.append(_("privates may be sold to corporations"))
    if bits:
        return _("Phase {phase}: {what}", phase=name, what=", ".join(bits))
    return _("Phase {phase}", phase=name)


def route_revenue(routes: list[dict]) -> int | None:
    try:
        return sum(int(r["revenue"]) for r in routes)
    except (KeyError, TypeError, ValueError):
        return None


def corp_of(share_id: str) -> str:
    return share_id.rsplit("_", 1)[0]


class Words:
    """Phrases for one game state: `facts` (the engine's, see the module docstring) and the seats' names."""

    def __init__(self, facts: dict | None, names: dict[int, str]):
        self.facts = facts or {}
        self.names = names
        self.currency = self.facts.get("currency") or "$%s"
        self.company_currency = self.facts.get("company_currency") or self.currency

    # ---------------------------------------------------------------- plain words
    def money(self, v: Any) -> str:
        """Players' money (and share prices)."""
        return self.currency.replace("%s", str(v)) if v is not None else "?"

    def credits(self, v: Any) -> str:
        """A corporation's or a minor's money, in the title's company currency (1860: credits)."""
        return self.company_currency.replace("%s", str(v)) if v is not None else "?"

    def money_of(self, entity: Any, entity_type: str | None, v: Any) -> str:
        """`entity`'s money: a player's, or an operator's (a private's ability spends its owner's)."""
        if entity_type == "player" or isinstance(entity, int):
            return self.money(v)
        if entity_type == "company":
            owner = (self.facts.get("company_owners") or {}).get(str(entity))
            if owner is None or isinstance(owner, int):
                return self.money(v)
        return self.credits(v)

    def who(self, entity: Any, entity_type: str | None = None) -> str:
        if entity_type == "player" or isinstance(entity, int):
            return player_name(entity, self.names)
        return str(entity)

    def place(self, coord: Any) -> str:
        """`H12 Altoona` (just `H12` where the map names no place)."""
        name = (self.facts.get("locations") or {}).get(str(coord))
        return f"{coord} {name}" if name else str(coord)  # a hex and a place name: the same in every language

    def exits(self, exits: list[int] | None) -> str:
        return exits_text(exits, self.facts.get("layout"))

    def operator(self, sym: Any) -> dict:
        return (self.facts.get("operators") or {}).get(str(sym)) or {}

    def is_minor(self, sym: Any) -> bool:
        return self.operator(sym).get("kind") == "minor"

    def company(self, sym: Any) -> str:
        """A private company's name, `minor A` where it is a minor's charter."""
        return _("minor {name}", name=sym) if self.is_minor(sym) else str(sym)

    # ---------------------------------------------------------------- certificates
    def certificate(self, share_id: str) -> dict:
        for c in self.operator(corp_of(share_id)).get("certificates") or []:
            if c.get("id") == share_id:
                return c
        return {}

    def percent(self, shares: list[str]) -> int:
        """What the certificates are worth in percent (a president's certificate 20%, an NdM 5% 5%...)."""
        total = 0
        for s in shares:
            cert = self.certificate(s)
            total += cert.get("percent") or (20 if s.endswith("_0") else 10)
        return total

    def is_president(self, share_id: str) -> bool:
        cert = self.certificate(share_id)
        return bool(cert.get("president")) if cert else share_id.endswith("_0")

    def unit(self, corp: str) -> int:
        """The percent of one share of `corp` (10 for a 10-share corporation)."""
        return (self.facts.get("share_percent") or {}).get(corp) or 10

    def certificates_text(self, shares: list[str]) -> str:
        """`10% of PRR`, or `a 5% NdM certificate` where the size of the certificates is the news."""
        corp = corp_of(shares[0]) if shares else "?"
        sizes = {self.percent([s]) for s in shares}
        pct = self.percent(shares)
        if len(shares) == 1 and sizes and min(sizes) < self.unit(corp):
            return _("a {percent}% {corporation} certificate", percent=pct, corporation=corp)
        return _("{percent}% of {corporation}", percent=pct, corporation=corp)


# ---------------------------------------------------------------- summaries
def players_of(summary: dict) -> dict[Any, dict]:
    return {p.get("id"): p for p in summary.get("players", []) or []}


def corps_of(summary: dict) -> dict[str, dict]:
    return summary.get("corporations", {}) or {}


def minors_of(summary: dict) -> dict[str, dict]:
    return summary.get("minors", {}) or {}


def operators_of(summary: dict) -> dict[str, dict]:
    return {**minors_of(summary), **corps_of(summary)}


def cash_of(summary: dict, entity: Any, entity_type: str | None) -> int | None:
    if entity_type == "player" or isinstance(entity, int):
        p = players_of(summary).get(entity)
        return p.get("cash") if p else None
    c = operators_of(summary).get(entity)
    return c.get("cash") if c else None


def market_price(summary: dict, corp: str) -> int | None:
    p = (corps_of(summary).get(corp) or {}).get("price")
    if isinstance(p, list) and p:
        return p[0]
    return p if isinstance(p, int) else None


def owner_of(summary: dict, company: Any) -> Any:
    return (summary.get("companies") or {}).get(company)


def price_move(w: Words, before: dict, after: dict, corp: str, sep: str = "; ") -> str:
    """`; NYC price $67 → $71` (nothing when the price did not move)."""
    b, a = market_price(before, corp), market_price(after, corp)
    if b is not None and a is not None and a != b:
        return sep + _("{corporation} price {before} → {after}", corporation=corp, before=w.money(b), after=w.money(a))
    return ""


def floats(w: Words, before: dict, after: dict, corp: str) -> str:
    b, a = corps_of(before).get(corp) or {}, corps_of(after).get(corp) or {}
    if a.get("floated") and not b.get("floated"):
        return "; " + _("{corporation} floats with {money}", corporation=corp, money=w.credits(a.get("cash", 0)))
    return ""


def president_change(w: Words, before: dict, after: dict, corp: str) -> str:
    b = (corps_of(before).get(corp) or {}).get("pres")
    a = (corps_of(after).get(corp) or {}).get("pres")
    if a is not None and b is not None and a != b:
        return "; " + _("{name} is now president of {corporation}", name=w.who(a, "player"), corporation=corp)
    return ""


def share_moves(before: dict, after: dict, pid: Any) -> dict[str, int]:
    b = (players_of(before).get(pid) or {}).get("shares") or {}
    a = (players_of(after).get(pid) or {}).get("shares") or {}
    return {c: a.get(c, 0) - b.get(c, 0) for c in set(a) | set(b) if a.get(c, 0) != b.get(c, 0)}


def holdings(summary: dict, facts: dict, corps: list[str]) -> dict[Any, dict[str, int]]:
    """Who holds how many shares of each of `corps` (a short counting -1): players by id, "treasury" and
    "market"."""
    percent = facts.get("share_percent") or {}
    out: dict[Any, dict[str, int]] = {}

    def add(holder: Any, corp: str, pct: int) -> None:
        if pct:
            out.setdefault(holder, {})[corp] = pct // (percent.get(corp) or 10)

    for corp in corps:
        for pid, p in players_of(summary).items():
            add(pid, corp, (p.get("shares") or {}).get(corp, 0))
        for where, key in (("treasury", "ipo"), ("market", "pool")):
            add(where, corp, (corps_of(summary).get(corp) or {}).get(key) or 0)
    return out


def holdings_change(w: Words, before: dict, after: dict, corps: list[str], into: str,
                    facts_before: dict | None, facts_after: dict | None) -> str:
    """`Ann 2 WT + 2 J → 2 of 5 (40%), treasury 0 → 3 of 5`: what a conversion or a merger does to each
    holder of `corps` (before), now holding shares of `into`."""
    b = holdings(before, facts_before or {}, corps)
    a = holdings(after, facts_after or w.facts, [into])
    size = (((facts_after or w.facts).get("operators") or {}).get(into) or {}).get("total_shares")
    unit = ((facts_after or w.facts).get("share_percent") or {}).get(into) or 10
    size_before = (((facts_before or {}).get("operators") or {}).get(corps[0]) or {}).get("total_shares", "?")
    out = []
    places = {"treasury": _("treasury"), "market": _("market")}
    for holder in list(b) + [h for h in a if h not in b]:
        name = places[holder] if holder in places else w.who(holder, "player")
        held = b.get(holder) or {}
        was = " + ".join(f"{n} {c}" for c, n in held.items()) if len(corps) > 1 else \
            _("{n} of {size}", n=sum(held.values()), size=size_before)
        now = a.get(holder, {}).get(into, 0)
        if size:
            out.append(_("{name} {before} → {n} of {size} ({percent}%)", name=name, before=was or 0, n=now, size=size,
                         percent=now * unit))
        else:
            out.append(f"{name} {was or 0} → {now}")
    return ", ".join(out)


def loan_terms(w: Words, corp: str, before: dict, after: dict, facts_after: dict) -> str:
    """`4 of 10 loans, interest $10 a loan ($40 a round); A&S price $80 → $75`: a corporation's loans after
    a loan taken or repaid, and what they cost at the rate then."""
    loans = facts_after.get("loans") or {}
    op = (facts_after.get("operators") or {}).get(corp) or {}
    n = op.get("loans", (corps_of(after).get(corp) or {}).get("loans", 0))
    rate = loans.get("rate")
    text = _("{n} of {most} loans", n=n, most=op.get("max_loans", "?"))
    if rate is not None:
        text += ", " + _("interest {rate} a loan ({total} a round)", rate=w.money(rate),
                         total=w.credits(op.get("interest", rate * n)))
        if loans.get("rate_after_next") not in (None, rate) and not loans.get("fixed"):
            text += "; " + _("the next loan makes it {rate}", rate=w.money(loans["rate_after_next"]))
    return text + price_move(w, before, after, corp, "; ")


def won_privates(w: Words, action: dict, before: dict, after: dict) -> list[str]:
    """Privates that changed hands as a side effect (an auction won when the others passed, or resolved
    when a cheaper private sold), with their price and the shares that came with them."""
    out = []
    bc, ac = before.get("companies") or {}, after.get("companies") or {}
    direct = action.get("company") if action.get("type") in ("bid", "buy_company") else None
    winners: dict[Any, list[str]] = {}
    for sym, owner in ac.items():
        if owner is not None and bc.get(sym) is None and sym != direct and isinstance(owner, int):
            winners.setdefault(owner, []).append(sym)
    for owner, syms in winners.items():
        paid = None
        if owner != action.get("entity"):
            cb, ca = cash_of(before, owner, "player"), cash_of(after, owner, "player")
            paid = (cb - ca) if cb is not None and ca is not None and len(syms) == 1 else None
        won = and_list([w.company(x) for x in syms])
        if paid:
            text = _("{name} wins {companies} for {money}", name=w.who(owner, "player"), companies=won,
                     money=w.money(paid))
        else:
            text = _("{name} wins {companies}", name=w.who(owner, "player"), companies=won)
        got = [_("{percent}% of {corporation}", percent=pct, corporation=corp)
               if not ((corps_of(after).get(corp) or {}).get("pres") == owner and pct >= 20)
               else _("the {corporation} president's certificate", corporation=corp)
               for corp, pct in share_moves(before, after, owner).items() if pct > 0]
        if got and owner != action.get("entity"):
            text += " " + _("(with {what})", what=and_list(got))
        out.append(text)
    return out


def train_owner(summary: dict, train: str) -> str | None:
    for sym, c in operators_of(summary).items():
        if train in (c.get("trains") or []):
            return sym
    if train in (((summary.get("depot") or {}).get("pool")) or []):
        return OPEN_MARKET
    return None


def and_list(words: list[str]) -> str:
    """`a and b`, `a, b and c`."""
    if len(words) <= 1:
        return "".join(words)
    return _("{items} and {last}", items=", ".join(words[:-1]), last=words[-1])


def aftermath(w: Words, before: dict, after: dict, facts_before: dict | None = None, skip: set[str] | None = None,
              ran: str | None = None) -> str:
    """` — Phase 3: …; 2 trains rust (…); privates … close; …` (nothing when the action caused nothing else).
    `ran`: the operator whose run this was (one that must withhold, e.g. 1860's insolvent company running a
    leased train, withholds at once)."""
    facts = w.facts
    notes = []
    if after.get("phase") and after.get("phase") != before.get("phase"):
        notes.append(phase_text(after["phase"], facts.get("phases")))
    rusted: dict[str, list[tuple[str, str]]] = {}
    for sym, c in operators_of(before).items():
        gone = set(c.get("trains") or []) - set((operators_of(after).get(sym) or {}).get("trains") or [])
        for tr in sorted(gone):
            if tr not in ((after.get("depot") or {}).get("pool") or []) and \
                    not any(tr in (x.get("trains") or []) for x in operators_of(after).values()):
                rusted.setdefault(tile_name(tr), []).append((sym, tr))
    for kind, losses in sorted(rusted.items()):
        lost = "; ".join(_("{operator} loses {train}", operator=sym, train=tr) for sym, tr in losses)
        if _were_obsolete(facts_before, [tr for _sym, tr in losses]):
            notes.append(_("{kind} trains are gone ({losses})", kind=kind, losses=lost))
        else:
            notes.append(_("{kind} trains rust ({losses})", kind=kind, losses=lost))
    obsolete = _newly_obsolete(facts_before, facts)
    if obsolete:
        notes.append(_("{kinds} trains are obsolete: they run once more, then go ({operators})",
                       kinds=and_list(sorted(obsolete)),
                       operators=", ".join(sorted({o for ops in obsolete.values() for o in ops}))))
    notes += _state_changes(facts_before, facts)
    closed = set(after.get("closed_companies") or []) - set(before.get("closed_companies") or [])
    minors = sorted(c for c in closed if w.is_minor(c))
    for sym in minors:
        notes.append(_minor_closes(w, sym, facts_before))
    privates = sorted(closed - set(minors))
    if privates:
        notes.append(ngettext("private {names} closes", "privates {names} close", len(privates),
                              names=", ".join(privates)))
    moves = []
    for sym in corps_of(after):
        move = price_move(w, before, after, sym, "").strip()
        if move and sym not in (skip or set()):
            runs_nothing = not ((corps_of(before).get(sym) or {}).get("trains")) and \
                (corps_of(after).get(sym) or {}).get("operated")
            if sym == ran:
                moves.append(_("{corporation} withholds: {move}", corporation=sym, move=move))
            elif runs_nothing:
                moves.append(_("{corporation} has no train to run, so it withholds: {move}", corporation=sym, move=move))
            else:
                moves.append(move)
    if moves:
        notes.append(", ".join(moves))
    rb, ra = before.get("round_desc") or before.get("round"), after.get("round_desc") or after.get("round")
    if ra and ra != rb:
        if str(ra).startswith("Operating Round"):
            notes.append(_("{round} begins", round=round_text(ra)))
            paid = private_income(w, after)
            if paid:
                notes.append(_("privates pay {incomes}", incomes=", ".join(paid)))
        else:
            paid = private_income(w, after, before)
            if paid and not str(rb).startswith("Operating Round"):  # an operating round without operators
                notes.append(_("no corporation operates, so the operating round is only the privates' income: "
                               "{incomes}", incomes=", ".join(paid)))
            notes.append(_("{round} begins", round=round_text(ra)))
    elif ra:
        paid = private_income(w, after, before)
        if paid:  # everyone passed in the auction: the privates pay and the auction goes on
            notes.append(_("everyone passed, so the privates pay {incomes}", incomes=", ".join(paid)))
    if after.get("finished") and not before.get("finished"):
        reason = end_reason_text(after.get("end_reason"))
        notes.append(_("the game is over ({why})", why=reason) if reason else _("the game is over"))
    return "" if not notes else " — " + "; ".join(notes)


STATE_WORDS = {  # (entering, leaving) the states of the engine's operator_states, shown with _()
    "receivership": (N_("{operator} goes into receivership"), N_("{operator} leaves receivership")),
    "insolvent": (N_("{operator} is insolvent"), N_("{operator} is no longer insolvent")),
    "bankrupt": (N_("{operator} goes bankrupt: its certificates go back to its IPO"), None),
    "relaunched": (N_("{operator} is relaunched"), None),
    "nationalised": (N_("{operator} is nationalised"), None),
}


def _state_changes(facts_before: dict | None, facts_after: dict) -> list[str]:
    """`IOW is insolvent`, `BHI&R goes into receivership`... (operators entering or leaving a state)."""
    if facts_before is None:
        return []
    out = []
    before = facts_before.get("operators") or {}
    for sym, op in (facts_after.get("operators") or {}).items():
        now, was = set(op.get("states") or []), set((before.get(sym) or {}).get("states") or [])
        for state in sorted(now - was):
            entering = STATE_WORDS.get(state, (None, None))[0]
            out.append(_(entering, operator=sym) if entering else f"{sym} {state}")
        for state in sorted(was - now):
            leaving = STATE_WORDS.get(state, (None, None))[1] if "bankrupt" not in now else None
            if leaving:
                out.append(_(leaving, operator=sym))
    return out


def private_income(w: Words, after: dict, before: dict | None = None) -> list[str]:
    """`SV $5 to Ann`, for each private paying its owner. With `before`: only where each owner's cash rose
    by exactly its privates' income (they paid between the two states), else nothing."""
    income = w.facts.get("income") or {}
    owned: dict[Any, list[str]] = {}
    for sym, owner in (after.get("companies") or {}).items():
        if owner is not None and income.get(sym) and sym not in (after.get("closed_companies") or []):
            owned.setdefault(owner, []).append(sym)
    if before is not None:
        for owner, syms in owned.items():
            cb = cash_of(before, owner, None)
            ca = cash_of(after, owner, None)
            if cb is None or ca is None or ca - cb != sum(income[x] for x in syms):
                return []
    return [_("{company} {money} to {name}", company=sym, money=w.money_of(owner, None, income[sym]), name=w.who(owner))
            for owner, syms in owned.items() for sym in syms]


# what the 1817 Volatility expansion's privates do, in a few words (autocomplete labels of the auction)
PRIVATE_POWERS = {
    "P12": N_("its corporation gets $60 and pays $10 interest every operating round"),
    "P13": N_("does nothing, and closes when its corporation starts"),
    "P14": N_("the bank pays its corporation for the first train of each kind"),
    "P15": N_("its corporation is paid for its trains that rust"),
    "P16": N_("lays the B city on Buffalo, without a connection"),
    "P17": N_("lays the B city on Toledo, without a connection"),
    "P18": N_("first tile lay $10, the second free"),
    "P19": N_("second tile lay $10"),
    "P20": N_("$100 to the president when its corporation is sold or liquidated"),
    "P21": N_("pays $50 of a conversion's stations"),
    "P22": N_("one ranch: $10 more to routes through it"),
    "P23": N_("two ranches: $10 more to routes through each"),
    "P24": N_("lays the B city on Indianapolis, without a connection"),
}


def company_payments(w: Words, payments: list[dict]) -> str:
    """`; P14 pays $30 to NYSW`: what privates' powers paid during the action (turn_info's
    `company_payments`: 1817's Loan Shark, Inventor, Scrapper, Golden Parachute, Station Subsidy)."""
    paid = [_("{company} pays {money} to {name}", company=p.get("company"),
              money=w.money_of(p.get("to"), p.get("to_type"), p.get("amount")), name=w.who(p.get("to"), p.get("to_type")))
            for p in payments]
    return "; " + ", ".join(paid) if paid else ""


def passed_over(w: Words, skipped: list[dict]) -> str:
    """`; Bob (nothing to buy or sell with $12) is passed over`: the players whose turn the action skipped,
    with the engine's reason (turn_info's `passed_over`); they are asked nothing and no action of theirs is
    logged."""
    whys = []
    for p in skipped:
        if p.get("entity_type") != "player":
            continue
        if p.get("why") == "cert_limit":
            why = _("at the certificate limit of {limit}", limit=p.get("cert_limit"))
        elif p.get("why") == "cash":
            why = _("nothing to buy or sell with {money}", money=w.money(p.get("cash")))
        else:
            why = _("nothing to do")
        whys.append(f"{w.who(p.get('entity'), 'player')} ({why})")
    if not whys:
        return ""
    return "; " + ngettext("{names} is passed over", "{names} are passed over", len(whys), names=and_list(whys))


def _trains(facts: dict | None) -> dict[str, dict]:
    """Train id -> {name, obsolete, owner} of every operator's trains in `facts`."""
    out = {}
    for sym, op in ((facts or {}).get("operators") or {}).items():
        for t in op.get("trains") or []:
            out[t["id"]] = {**t, "owner": sym}
    return out


def _newly_obsolete(facts_before: dict | None, facts_after: dict) -> dict[str, set[str]]:
    if facts_before is None:
        return {}
    before = _trains(facts_before)
    out: dict[str, set[str]] = {}
    for tid, t in _trains(facts_after).items():
        if t.get("obsolete") and not (before.get(tid) or {}).get("obsolete"):
            out.setdefault(str(t["name"]), set()).add(t["owner"])
    return out


def _were_obsolete(facts_before: dict | None, lost: list[str]) -> bool:
    trains = _trains(facts_before)
    return bool(lost) and all(trains.get(tr, {}).get("obsolete") for tr in lost)


def _minor_closes(w: Words, sym: str, facts_before: dict | None) -> str:
    """`minor A closes: Ann receives a 5% NdM certificate`."""
    op = ((facts_before or {}).get("operators") or {}).get(sym) or w.operator(sym)
    into = op.get("closes_into") or {}
    owner = op.get("owner")
    if into and owner is not None:
        return _("minor {name} closes: {owner} receives a {percent}% {corporation} certificate", name=sym,
                 owner=w.who(owner, "player"), percent=into.get("percent"), corporation=into.get("corporation"))
    if into:
        return _("minor {name} closes into {corporation}", name=sym, corporation=into.get("corporation"))
    return _("minor {name} closes", name=sym)


VERBS = {"bid": N_("bid"), "par": N_("start a corporation"), "buy_shares": N_("buy shares"),
         "sell_shares": N_("sell shares"), "lay_tile": N_("lay track"), "place_token": N_("place a station"),
         "run_routes": N_("run its trains"), "dividend": N_("pay out or withhold"), "buy_train": N_("buy a train"),
         "discard_train": N_("discard a train"), "buy_company": N_("buy a private company"),
         "sell_company": N_("sell a private to the bank"), "bankrupt": N_("declare bankruptcy"),
         "merge": N_("merge"), "assign": N_("choose a station"), "take_loan": N_("take a loan (/loan)"),
         "payoff_loan": N_("repay a loan (/repay)"), "short": N_("sell a share short (/short)"),
         "convert": N_("convert to more shares (/convert)"), "choose": N_("choose (/choose)")}  # shown with _()


def cash_lines(w: Words, deltas: dict) -> list[str]:
    """`Ann receives $150`, `Bob pays $50`: each player's cash moved (by player id), those unmoved left out."""
    return [_("{name} receives {money}", name=w.who(pid, "player"), money=w.money(delta)) if delta > 0 else
            _("{name} pays {money}", name=w.who(pid, "player"), money=w.money(-delta))
            for pid, delta in deltas.items() if delta]


def sale_terms(w: Words, sale: dict) -> str:
    """`sold at $70: Ann receives $24 and Bob receives $72`: what the corporation on sale pays each holder at
    the price bid now (`turn_info()["acquisition"]`, as the engine will pay them), and what a liquidated
    one's president pays of its loans; empty when the engine tells nothing."""
    if sale.get("at") is None or "proceeds" not in sale:
        return ""
    lines = []
    if sale.get("president_pays"):
        lines.append(_("{name}, its president, pays the {money} its loans leave unpaid",
                       name=w.who(sale.get("president"), "player"), money=w.money(sale["president_pays"])))
    paid = cash_lines(w, sale.get("proceeds") or {})
    if paid:
        lines.append(and_list(paid))
    elif not sale.get("shareholders"):  # (what goes to shares no player holds is nobody's news)
        lines.append(_("the holders of {corporation} get nothing", corporation=sale.get("corporation")))
    if not lines:
        return ""
    terms = []  # a liquidated corporation's treasury and loans count too
    if sale.get("treasury"):
        terms.append(_("with its treasury of {money}", money=w.money(sale["treasury"])))
    if sale.get("loans"):
        terms.append(ngettext("less its {n} loan", "less its {n} loans", sale["loans"], n=sale["loans"]))
    if terms:
        return _("sold at {money} ({terms}): {list}", money=w.money(sale["at"]), terms=", ".join(terms),
                 list="; ".join(lines))
    return _("sold at {money}: {list}", money=w.money(sale["at"]), list="; ".join(lines))


def next_hint(info: dict, w: Words, operator: str | None = None) -> str:
    """What the acting member can do now, from the engine's `turn_info`: `lay track or pass`,
    `bid at least $180 on CA (high bid: Ann $175) or pass`. Empty when nothing is known."""
    types = list(info.get("types") or [])
    if not types:
        return ""
    auction = info.get("auction")
    if auction:
        bids = auction.get("bids") or []
        if isinstance(bids, dict):  # 1860's turn auction: player -> bid
            bids = [(int(pid), price) for pid, price in bids.items()]
        high = max(bids, key=lambda b: b[1]) if bids else None
        high_txt = " " + _("(high bid: {name} {money})", name=w.who(high[0], "player"), money=w.money(high[1])) \
            if high else ""
        if auction.get("winner_chooses"):
            return _("choose a lot: buy a private (/bid) or a president's certificate (/par)")
        if auction.get("company") is None and info.get("lots") is not None:
            return _("bid at least {money} for the first choice of the lots{high} or pass",
                     money=w.money(auction.get("min")), high=high_txt)
        hint = _("bid at least {money} on {item}{high} or pass", money=w.money(auction.get("min")),
                 item=auction.get("company") or auction.get("item"), high=high_txt)
        sale = info.get("acquisition") or {}  # 1817's acquisition round: what the high bid pays each holder
        terms = sale_terms(w, sale) if high and sale.get("corporation") == auction.get("item") else ""
        return hint + "; " + terms if terms else hint
    forming = info.get("forming")
    if forming and "choose" in types:
        return _("choose how many shares {corporation} has (/choose)", corporation=forming)
    if forming and "assign" in types:
        return _("put privates into {corporation} at their face value (/assign), or pass to finish starting it",
                 corporation=forming)
    sale = info.get("acquisition")
    if sale and "assign" in types:
        return _("offer {corporation} for sale (/offer, from {money}) or pass", corporation=sale["corporation"],
                 money=w.money(sale.get("opening")))
    if sale and "merge" in types:
        return _("name which of your corporations buys {corporation} (/merge)", corporation=sale["corporation"])
    if info.get("par"):
        return _("choose {corporation}'s par price (/par)", corporation=info["par"])
    tiers = info.get("tiers")  # 1817's Volatility auction: only the pyramid's bottom row is for sale
    if tiers and "bid" in types:
        return _("nominate a private of the bottom row with a bid from {money} (/bid): {companies}",
                 money=w.money(0), companies=", ".join(c for c in tiers[-1] if c))
    if info.get("cheapest") and "bid" in types:
        sym, price = info["cheapest"]
        return _("buy {company} for {money}, bid on a dearer private, or pass", company=sym, money=w.money(price))
    merge = info.get("merge")
    if merge:
        offered = merge.get("offered")
        if merge.get("decider") == offered:
            return _("merge {minor} into the {into} (/merge) or decline (pass)", minor=offered, into=merge.get("into"))
        return _("choose a major to merge into the {into}: {candidates} (/merge), or pass", into=merge.get("into"),
                 candidates=", ".join(merge.get("candidates") or []))
    assign = info.get("assign")
    if assign:
        hexes = ", ".join(w.place(h) for h in assign.get("hexes") or [])
        return _("choose which of {minor}'s stations the NdM keeps: {hexes} (/assign)", minor=assign.get("from"),
                 hexes=hexes)
    if info.get("owes") and "bankrupt" in types:  # 1817's cash crisis
        if "sell_shares" in types:
            return _("sell shares to pay the {money} owed (/sell), or go bankrupt (/bankrupt)",
                     money=w.money(info["owes"]))
        return _("{money} owed and nothing may be sold: go bankrupt (/bankrupt)", money=w.money(info["owes"]))
    if "discard_train" in types:
        several = [a["entity"] for a in info.get("acting") or []]
        if len(several) > 1:
            return _("discard a train: {operators} are over their train limits", operators=", ".join(several))
        if operator:
            return _("discard a train: {operator} is over its train limit", operator=operator)
        return _("discard a train: the corporation is over its train limit")
    if info.get("emergency") and operator:
        if "buy_train" not in types:
            return _("sell shares to raise the money for {operator}'s train", operator=operator)
        if "sell_shares" in types:
            return _("must buy a train: {operator} is short, so its president pays the rest, selling shares if needed",
                     operator=operator)
        return _("must buy a train: {operator} is short, so its president pays the rest", operator=operator)
    if operator:
        types = [t for t in types if t not in ("buy_shares", "par", "sell_shares")]  # private exchanges etc.
    if not info.get("emergency"):  # bankruptcy is only news when the president can't pay for a train
        types = [t for t in types if t != "bankrupt"]
    must = info.get("must_buy") and "buy_train" in types
    words = [_("must buy a train") if must and t == "buy_train" else _(VERBS[t]) for t in types if t in VERBS]
    corporate = info.get("corporate") or {}  # 1817's stock round: acting for a corporation one presides
    if corporate:
        commands = {"take_loan": "/loan", "buy_shares": "/buy"}
        words.append(_("act for {corporations} ({commands})", corporations=", ".join(corporate),
                       commands=", ".join(dict.fromkeys(commands[t] for acts in corporate.values() for t in acts
                                                        if t in commands))))
    if "pass" in types and not must:
        words.append(_("pass"))
    return or_list(words) if words else ""
