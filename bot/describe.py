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


def entity_name(entity: Any, entity_type: str | None, names: dict[int, str]) -> str:
    if entity_type == "player" or isinstance(entity, int):
        try:
            return names.get(int(entity), f"Player {entity}")
        except (TypeError, ValueError):
            return str(entity)
    return str(entity)


def _money(v: int | None) -> str:
    return f"${v}" if v is not None else "?"


def _price_move(before: dict, after: dict, corp: str) -> str:
    b, a = _price(before, corp), _price(after, corp)
    if b is not None and a is not None and a != b:
        return f"; {corp} {'rises' if a > b else 'drops'} to ${a}"
    return ""


def describe(action: dict, before: dict, after: dict, names: dict[int, str]) -> str:
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
        text = f"{who} pars {action.get('corporation')} at ${sp}"
    elif t == "buy_shares":
        shares = action.get("shares", [])
        corp = shares[0].rsplit("_", 1)[0] if shares else "?"
        pct = action.get("percent") or 10 * len(shares)
        bc, ac = _corps(before).get(corp, {}), _corps(after).get(corp, {})
        src = "the market" if (bc.get("pool", 0) or 0) > (ac.get("pool", 0) or 0) else "the IPO"
        if et == "company":
            text = f"{entity_name(_owner_of(before, ent), None, names)} exchanges {ent} for {pct}% of {corp}"
        else:
            text = f"{who} buys {pct}% of {corp} from {src}" + (f" for ${paid}" if paid else "")
        text += _pres_change(before, after, corp, names)
    elif t == "sell_shares":
        shares = action.get("shares", [])
        corp = shares[0].rsplit("_", 1)[0] if shares else "?"
        pct = action.get("percent") or 10 * len(shares)
        got = -paid if paid is not None else None
        text = f"{who} sells {pct}% of {corp} for {_money(got)}" + _price_move(before, after, corp)
        text += _pres_change(before, after, corp, names)
    elif t == "pass":
        text = f"{who} passes"
    elif t == "lay_tile":
        cost = f" for ${paid}" if paid else ""
        text = (f"{who} lays tile {tile_name(str(action.get('tile')))} on {action.get('hex')}"
                f" (rotation {action.get('rotation')}){cost}")
    elif t == "place_token":
        corp = action.get("tokener") or ent
        hexes_b = set((_corps(before).get(corp) or {}).get("tokens", []) or [])
        hexes_a = list((_corps(after).get(corp) or {}).get("tokens", []) or [])
        new = [h for h in hexes_a if h not in hexes_b]
        where = new[0] if new else f"city {action.get('city')}"
        text = f"{corp} places a station in {where}" + (f" for ${paid}" if paid else "")
    elif t == "run_routes":
        routes = action.get("routes", []) or []
        rev = route_revenue(routes)
        if routes and rev is not None:
            per = ", ".join(f"{r['train']}: ${r['revenue']}" for r in routes)
            text = f"{who} runs for ${rev} ({per})"
        elif routes:
            text = f"{who} runs {len(routes)} train{'s' if len(routes) > 1 else ''}"
        else:
            text = f"{who} runs no train"
    elif t == "dividend":
        kind = action.get("kind")
        if kind == "payout":
            text = f"{who} pays out"
        elif kind == "withhold":
            text = f"{who} withholds" + (f" ${-paid}" if paid and paid < 0 else "")
        else:
            text = f"{who} pays {kind}"
        text += _price_move(before, after, str(ent))
    elif t == "buy_train":
        train = str(action.get("train"))
        name = action.get("variant") or tile_name(train)
        seller = _train_owner(before, train)
        src = f" from {seller}" if seller else ""
        text = f"{who} buys a {name} train{src} for ${action.get('price')}"
        if action.get("exchange"):
            text += f", trading in {action['exchange']}"
    elif t == "discard_train":
        text = f"{who} discards train {action.get('train')}"
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
    automatic = [describe_auto(a, names) for a in action.get("auto_actions") or []]
    if automatic:
        text += "; automatically: " + ", ".join(automatic)
    return text + _aftermath(before, after)


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


def _aftermath(before: dict, after: dict) -> str:
    notes = []
    if after.get("phase") and after.get("phase") != before.get("phase"):
        notes.append(f"phase {after['phase']} begins")
    rusted = []
    for sym, c in _corps(before).items():
        gone = set(c.get("trains") or []) - set((_corps(after).get(sym) or {}).get("trains") or [])
        rusted += [t for t in gone if t not in ((after.get("depot") or {}).get("pool") or [])
                   and not any(t in (x.get("trains") or []) for x in _corps(after).values())]
    if rusted:
        notes.append("rusted: " + ", ".join(sorted(rusted)))
    closed = set(after.get("closed_companies") or []) - set(before.get("closed_companies") or [])
    if closed:
        notes.append("closed: " + ", ".join(sorted(closed)))
    rb, ra = before.get("round_desc") or before.get("round"), after.get("round_desc") or after.get("round")
    if ra and ra != rb:
        notes.append(f"{ra} begins")
    if after.get("finished") and not before.get("finished"):
        notes.append("the game is over" + (f" ({after['end_reason']})" if after.get("end_reason") else ""))
    return "" if not notes else " — " + "; ".join(notes)
