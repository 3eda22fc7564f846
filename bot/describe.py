"""One line of plain English for an applied action, from the action and the summaries before and after.

Summaries are in the 18xx.games trace format (shared/fixtures/TRACES.md). Everything is best effort:
missing fields just make the sentence shorter.
"""

from __future__ import annotations

from typing import Any

from bot.actions import route_revenue, tile_name


def _players(summary: dict) -> dict[Any, dict]:
    return {p.get("id"): p for p in summary.get("players", []) or []}


def _corps(summary: dict) -> dict[str, dict]:
    return summary.get("corporations", {}) or {}


def _cash(summary: dict, entity: Any, entity_type: str | None) -> int | None:
    if entity_type == "player" or isinstance(entity, int):
        p = _players(summary).get(entity)
        return p.get("cash") if p else None
    c = _corps(summary).get(entity)
    return c.get("cash") if c else None


def _price(summary: dict, corp: str) -> int | None:
    c = _corps(summary).get(corp) or {}
    p = c.get("price")
    if isinstance(p, list) and p:
        return p[0]
    return p if isinstance(p, int) else None


def _shares_cost(facts: dict, corp: str, percent: int, price: int | None) -> int | None:
    """What `percent` of `corp` costs at `price` a share. The cash a player had before and after an
    action is no measure of it: the action may end the round, and privates pay their income."""
    unit = (facts.get("share_percent") or {}).get(corp) or 10
    return price * percent // unit if price is not None else None


def entity_name(entity: Any, entity_type: str | None, names: dict[int, str]) -> str:
    if entity_type == "player" or isinstance(entity, int):
        try:
            return names.get(int(entity), f"Player {entity}")
        except (TypeError, ValueError):
            return str(entity)
    return str(entity)


def _money(v: int | None) -> str:
    return f"${v}" if v is not None else "?"


def _price_move(before: dict, after: dict, corp: str, sep: str = "; ") -> str:
    """`; NYC price $67 → $71` (nothing when the price did not move)."""
    b, a = _price(before, corp), _price(after, corp)
    if b is not None and a is not None and a != b:
        return f"{sep}{corp} price ${b} → ${a}"
    return ""


def _floats(before: dict, after: dict, corp: str) -> str:
    b, a = _corps(before).get(corp) or {}, _corps(after).get(corp) or {}
    if a.get("floated") and not b.get("floated"):
        return f"; {corp} floats with ${a.get('cash', 0)}"
    return ""


def phase_text(name: str, phases: dict | None) -> str:
    """`Phase 3: green tiles, train limit 4, privates may be sold to corporations`."""
    ph = (phases or {}).get(str(name)) or {}
    bits = []
    tiles = ph.get("tiles") or []
    if tiles:
        bits.append(f"{tiles[-1]} tiles")
    if ph.get("train_limit"):
        bits.append(f"train limit {ph['train_limit']}")
    status = ph.get("status") or []
    if "can_buy_companies" in status:
        bits.append("privates may be sold to corporations")
    return f"Phase {name}" + (": " + ", ".join(bits) if bits else "")


DIRECTIONS = {"pointy": ("SW", "W", "NW", "NE", "E", "SE"), "flat": ("S", "SW", "NW", "N", "NE", "SE")}


def exits_text(exits: list[int] | None, layout: str | None) -> str:
    """`W–E` for a track between two edges, `SW, W, E` for more."""
    if not exits:
        return ""
    names = DIRECTIONS.get(layout or "pointy", DIRECTIONS["pointy"])
    words = [names[e % 6] for e in exits]
    return "–".join(words) if len(words) == 2 else ", ".join(words)


def hex_text(coord: Any, locations: dict[str, str] | None) -> str:
    """`H12 Altoona` (just `H12` where the map names no place)."""
    name = (locations or {}).get(str(coord))
    return f"{coord} {name}" if name else str(coord)


def _share_moves(before: dict, after: dict, pid: Any) -> dict[str, int]:
    b = (_players(before).get(pid) or {}).get("shares") or {}
    a = (_players(after).get(pid) or {}).get("shares") or {}
    return {c: a.get(c, 0) - b.get(c, 0) for c in set(a) | set(b) if a.get(c, 0) != b.get(c, 0)}


def _won_privates(action: dict, before: dict, after: dict, names: dict[int, str]) -> list[str]:
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
            cb, ca = _cash(before, owner, "player"), _cash(after, owner, "player")
            paid = (cb - ca) if cb is not None and ca is not None and len(syms) == 1 else None
        text = f"{entity_name(owner, 'player', names)} wins {' and '.join(syms)}" + (f" for ${paid}" if paid else "")
        got = [f"{pct}% of {corp}" if not _pres_got(after, corp, owner, pct) else
               f"the {corp} president's certificate" for corp, pct in _share_moves(before, after, owner).items()
               if pct > 0]
        if got and owner != action.get("entity"):
            text += f" (with {' and '.join(got)})"
        out.append(text)
    return out


def _pres_got(after: dict, corp: str, pid: Any, pct: int) -> bool:
    return (_corps(after).get(corp) or {}).get("pres") == pid and pct >= 20


def describe(action: dict, before: dict, after: dict, names: dict[int, str], facts: dict | None = None) -> str:
    """`facts` (optional): `locations` {hex: name}, `layout`, `phases` {name: {train_limit, tiles, status}},
    `exits` (of a laid tile), `revenue` (of the run a dividend is for), `cheapest` ((sym, price) before and
    after: an auction's cheapest private getting cheaper when everyone passed)."""
    facts = facts or {}
    t = action.get("type")
    ent, et = action.get("entity"), action.get("entity_type")
    who = entity_name(ent, et, names)
    cb, ca = _cash(before, ent, et), _cash(after, ent, et)
    paid = (cb - ca) if (cb is not None and ca is not None) else None
    text: str
    if t == "bid":
        target = action.get("company") or action.get("corporation")
        owner = (after.get("companies") or {}).get(target)
        owner_before = (before.get("companies") or {}).get(target)
        if owner is not None and owner != owner_before:
            text = f"{entity_name(owner, None, names)} buys {target} for ${action.get('price')}"
        else:
            text = f"{who} bids ${action.get('price')} on {target}"
    elif t == "par":
        sp = str(action.get("share_price", "")).split(",")[0]
        corp = str(action.get("corporation"))
        text = f"{who} pars {corp} at ${sp}"
        privates = (_players(before).get(ent) or {}).get("privates") or []
        came_with = [sym for sym, c in (facts.get("presidency_with") or {}).items() if c == corp and sym in privates]
        if came_with:
            text += " and takes the president's certificate that came with " + ", ".join(came_with)
        else:
            cost = _shares_cost(facts, corp, 20, int(sp)) if sp.isdigit() else paid
            text += f" and buys the president's certificate (20%) for {_money(cost)}"
        text += _floats(before, after, corp)
    elif t == "buy_shares":
        shares = action.get("shares", [])
        corp = shares[0].rsplit("_", 1)[0] if shares else "?"
        pct = action.get("percent") or 10 * len(shares)
        bc, ac = _corps(before).get(corp, {}), _corps(after).get(corp, {})
        from_market = (bc.get("pool", 0) or 0) > (ac.get("pool", 0) or 0)
        src = "the market" if from_market else "the IPO"
        if et == "company":
            text = f"{entity_name(_owner_of(before, ent), None, names)} exchanges {ent} for {pct}% of {corp}"
        else:
            cost = _shares_cost(facts, corp, pct, _price(before, corp) if from_market else bc.get("par"))
            text = f"{who} buys {pct}% of {corp} from {src}" + (f" for ${cost}" if cost else "")
        text += _pres_change(before, after, corp, names) + _floats(before, after, corp)
    elif t == "sell_shares":
        shares = action.get("shares", [])
        corp = shares[0].rsplit("_", 1)[0] if shares else "?"
        pct = action.get("percent") or 10 * len(shares)
        got = _shares_cost(facts, corp, pct, _price(before, corp))
        text = f"{who} sells {pct}% of {corp} for {_money(got)}" + _price_move(before, after, corp, "; ")
        text += _pres_change(before, after, corp, names)
    elif t == "pass":
        text = f"{who} passes"
        cb_, ca_ = facts.get("cheapest_before"), facts.get("cheapest_after")
        if cb_ and ca_ and cb_[0] == ca_[0] and ca_[1] < cb_[1]:
            text += f"; everyone passed, so {ca_[0]} now costs ${ca_[1]}"
    elif t == "lay_tile":
        cost = f" for ${paid}" if paid else ""
        way = exits_text(facts.get("exits"), facts.get("layout"))
        text = (f"{who} lays tile {tile_name(str(action.get('tile')))} on "
                f"{hex_text(action.get('hex'), facts.get('locations'))}, rotation {action.get('rotation')}"
                f"{f' ({way})' if way else ''}{cost}")
    elif t == "place_token":
        corp = action.get("tokener") or ent
        hexes_b = set((_corps(before).get(corp) or {}).get("tokens", []) or [])
        hexes_a = list((_corps(after).get(corp) or {}).get("tokens", []) or [])
        new = [h for h in hexes_a if h not in hexes_b]
        where = hex_text(new[0], facts.get("locations")) if new else f"city {action.get('city')}"
        text = f"{corp} places a station in {where}" + (f" for ${paid}" if paid else "")
    elif t == "run_routes":
        routes = action.get("routes", []) or []
        rev = route_revenue(routes)
        if routes and rev is not None:
            per = ", ".join(f"{r['train']}: ${r['revenue']}" for r in routes)
            n = len(routes)
            text = f"{who} runs {n} train{'s' if n > 1 else ''} for ${rev} ({per})"
        elif routes:
            text = f"{who} runs {len(routes)} train{'s' if len(routes) > 1 else ''}"
        else:
            text = f"{who} runs no train"
    elif t == "dividend":
        kind = action.get("kind")
        rev = facts.get("revenue")
        if kind == "payout":
            text = f"{who} pays out" + (f" ${rev}: ${rev // 10} a share" if rev else "")
        elif kind == "withhold":
            kept = -paid if paid and paid < 0 else rev
            text = f"{who} withholds" + (f" ${kept} (into its treasury)" if kept else "")
        else:
            text = f"{who} pays {kind}"
        text += _price_move(before, after, str(ent), ", ")
    elif t == "buy_train":
        train = str(action.get("train"))
        name = action.get("variant") or tile_name(train)
        seller = _train_owner(before, train)
        src = f" from {seller}" if seller else ""
        text = f"{who} buys a {name} train{src} for ${action.get('price')}"
        if action.get("exchange"):
            text += f", trading in {action['exchange']}"
    elif t == "discard_train":
        text = f"{who} discards train {action.get('train')} (over its train limit) to the open market"
    elif t == "buy_company":
        owner = _owner_of(before, action.get("company"))
        frm = f" from {entity_name(owner, None, names)}" if owner is not None else ""
        text = f"{who} buys {action.get('company')}{frm} for ${action.get('price')}"
    elif t == "bankrupt":
        text = f"{who} goes bankrupt"
    elif t == "program_share_pass":
        when = "in every stock round" if action.get("indefinite") else "for the rest of this stock round"
        text = f"{who} will pass automatically {when}"
    elif t == "program_buy_shares":
        until = action.get("until_condition")
        goal = "until it floats" if until == "float" else f"until holding {until} shares"
        text = f"{who} will buy a {action.get('corporation')} share each turn {goal}"
    elif t == "program_disable":
        reason = action.get("reason")
        text = f"{who}'s automatic actions stop" + (f" ({reason})" if reason and reason != "user" else "")
    else:
        text = f"{who}: {t}"
    won = _won_privates(action, before, after, names)
    if won:
        text += "; " + "; ".join(won)
    automatic = [describe_auto(a, names) for a in action.get("auto_actions") or []]
    if automatic:
        text += "; automatically: " + ", ".join(automatic)
    skip = {str(ent)} if t == "dividend" else set()
    if t in ("sell_shares",):
        skip |= {s_.rsplit("_", 1)[0] for s_ in action.get("shares", [])}
    return text + _aftermath(before, after, facts, skip, names)


def describe_auto(action: dict, names: dict[int, str]) -> str:
    """Short words for what a standing order did (no before/after state per auto action)."""
    who = entity_name(action.get("entity"), action.get("entity_type"), names)
    t = action.get("type")
    if t == "pass":
        return f"{who} passes"
    if t == "buy_shares":
        return f"{who} buys {'+'.join(action.get('shares', []))}"
    if t == "program_disable":
        return f"{who}'s standing order stops ({action.get('reason')})"
    if t == "program_share_pass":
        return f"{who} will pass automatically"
    return f"{who}: {t}"


def _owner_of(summary: dict, company: Any) -> Any:
    return (summary.get("companies") or {}).get(company)


def _train_owner(summary: dict, train: str) -> str | None:
    for sym, c in _corps(summary).items():
        if train in (c.get("trains") or []):
            return sym
    pool = ((summary.get("depot") or {}).get("pool")) or []
    if train in pool:
        return "the open market"
    return None


def _pres_change(before: dict, after: dict, corp: str, names: dict[int, str]) -> str:
    b = (_corps(before).get(corp) or {}).get("pres")
    a = (_corps(after).get(corp) or {}).get("pres")
    if a is not None and b is not None and a != b:
        return f"; {entity_name(a, 'player', names)} is now president of {corp}"
    return ""


def _aftermath(before: dict, after: dict, facts: dict | None = None, skip: set[str] | None = None,
               names: dict[int, str] | None = None) -> str:
    facts = facts or {}
    notes = []
    if after.get("phase") and after.get("phase") != before.get("phase"):
        notes.append(phase_text(after["phase"], facts.get("phases")))
    rusted: dict[str, list[str]] = {}
    for sym, c in _corps(before).items():
        gone = set(c.get("trains") or []) - set((_corps(after).get(sym) or {}).get("trains") or [])
        for tr in sorted(gone):
            if tr not in ((after.get("depot") or {}).get("pool") or []) and \
                    not any(tr in (x.get("trains") or []) for x in _corps(after).values()):
                rusted.setdefault(tile_name(tr), []).append(f"{sym} loses {tr}")
    for kind, losses in sorted(rusted.items()):
        notes.append(f"{kind} trains rust ({'; '.join(losses)})")
    closed = set(after.get("closed_companies") or []) - set(before.get("closed_companies") or [])
    if closed:
        notes.append(f"private{'s' if len(closed) > 1 else ''} {', '.join(sorted(closed))} "
                     f"close{'' if len(closed) > 1 else 's'}")
    moves = []
    for sym in _corps(after):
        move = _price_move(before, after, sym, "").strip()
        if move and sym not in (skip or set()):
            runs_nothing = not ((_corps(before).get(sym) or {}).get("trains")) and (_corps(after).get(sym) or {}
                                                                                    ).get("operated")
            moves.append(f"{sym} has no train to run, so it withholds: {move}" if runs_nothing else move)
    if moves:
        notes.append(", ".join(moves))
    rb, ra = before.get("round_desc") or before.get("round"), after.get("round_desc") or after.get("round")
    if ra and ra != rb:
        notes.append(f"{ra} begins")
        if str(ra).startswith("Operating Round"):
            income = facts.get("income") or {}
            paid = [f"{sym} ${income[sym]} to {entity_name(owner, None, names or {})}"
                    for sym, owner in (after.get("companies") or {}).items()
                    if owner is not None and income.get(sym)]
            if paid:
                notes.append("privates pay " + ", ".join(paid))
    if after.get("finished") and not before.get("finished"):
        notes.append("the game is over" + (f" ({after['end_reason']})" if after.get("end_reason") else ""))
    return "" if not notes else " — " + "; ".join(notes)


VERBS = {"bid": "bid", "par": "start a corporation", "buy_shares": "buy shares", "sell_shares": "sell shares",
         "lay_tile": "lay track", "place_token": "place a station", "run_routes": "run its trains",
         "dividend": "pay out or withhold", "buy_train": "buy a train", "discard_train": "discard a train",
         "buy_company": "buy a private company", "bankrupt": "declare bankruptcy"}


def _or_list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def next_hint(info: dict, names: dict[int, str], corporation: str | None = None) -> str:
    """What the acting member can do now, from `Engine.turn_info`: `lay track or pass`,
    `bid at least $180 on CA (high bid: Ann $175) or pass`. Empty when nothing is known."""
    types = list(info.get("types") or [])
    if not types:
        return ""
    auction = info.get("auction")
    if auction:
        bids = auction.get("bids") or []
        high = max(bids, key=lambda b: b[1]) if bids else None
        high_txt = f" (high bid: {entity_name(high[0], 'player', names)} ${high[1]})" if high else ""
        return f"bid at least ${auction.get('min')} on {auction.get('company')}{high_txt} or pass"
    if info.get("par"):
        return f"choose {info['par']}'s par price (/par)"
    if info.get("cheapest") and "bid" in types:
        sym, price = info["cheapest"]
        return f"buy {sym} for ${price}, bid on a dearer private, or pass"
    if "discard_train" in types:
        return f"discard a train: {corporation or 'the corporation'} is over its train limit"
    if info.get("emergency") and corporation:
        if "buy_train" not in types:
            return f"sell shares to raise the money for {corporation}'s train"
        extra = ", selling shares if needed" if "sell_shares" in types else ""
        return f"must buy a train: {corporation} is short, so its president pays the rest{extra}"
    if corporation:
        types = [t for t in types if t not in ("buy_shares", "par", "sell_shares")]  # private exchanges etc.
    words = [VERBS[t] for t in types if t in VERBS]
    if info.get("must_buy") and "buy_train" in types:
        words = ["must buy a train" if w == "buy a train" else w for w in words]
    if "pass" in types and not (info.get("must_buy") and "buy_train" in types):
        words.append("pass")
    return _or_list(words) if words else ""
