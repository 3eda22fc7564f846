"""From command options to 18xx.games action dicts, and autocomplete choices from `legal_actions()`.

One command per action kind. Options are plain strings/ints so the same code serves slash commands and
the console. Values offered by autocomplete are the compact keys built here (e.g. share ids joined by
"+", a city id and slot as "57-1-0#0", routes as text); typed values are accepted too, and the engine
has the last word on legality.
"""

from __future__ import annotations

import re
from typing import Any

from bot.errors import UserError, quote

# command name -> 18xx.games action type
KINDS: dict[str, str] = {
    "bid": "bid",
    "par": "par",
    "buy": "buy_shares",
    "sell": "sell_shares",
    "pass": "pass",
    "lay": "lay_tile",
    "token": "place_token",
    "run": "run_routes",
    "dividend": "dividend",
    "train": "buy_train",
    "discard": "discard_train",
    "private": "buy_company",
    "bankrupt": "bankrupt",
    "auto": "program_share_pass",  # standing orders for stock rounds; the mode picks the program
}
TYPE_TO_KIND = {v: k for k, v in KINDS.items()} | {"program_buy_shares": "auto", "program_disable": "auto"}
AUTO_MODES = ("pass", "pass-always", "buy", "off")

# options per command (name, type, help) -- the console and the slash commands are generated from this
OPTIONS: dict[str, list[tuple[str, type, str]]] = {
    "bid": [("company", str, "private company"), ("price", int, "your bid")],
    "par": [("corporation", str, "corporation to start"), ("price", str, "par price")],
    "buy": [("share", str, "certificate(s) to buy"), ("using", str, "private company exchanged (e.g. MH)")],
    "sell": [("shares", str, "certificates to sell")],
    "pass": [],
    "lay": [("hex", str, "hex, e.g. E19"), ("tile", str, "tile"), ("rotation", int, "rotation 0-5"),
            ("using", str, "private company whose ability lays the tile")],
    "token": [("city", str, "city and slot"), ("using", str, "private company whose ability places it")],
    "run": [("routes", str, "'best' or routes as text: 3-0: E19,F20 | F20,G19; 4-1: ...")],
    "dividend": [("kind", str, "payout or withhold")],
    "train": [("train", str, "train id, e.g. 3-0"), ("price", int, "price (trains from other corporations)"),
              ("variant", str, "variant (e.g. D)"), ("exchange", str, "train traded in (e.g. a 4 for a D)")],
    "discard": [("train", str, "train to discard")],
    "private": [("company", str, "private company"), ("price", int, "price")],
    "bankrupt": [],
    "auto": [("mode", str, "pass (this stock round, until shares are sold) | pass-always | buy | off"),
             ("corporation", str, "mode buy: corporation to buy a share of each turn"),
             ("until", str, "mode buy: float, or how many shares to hold"),
             ("then_pass", str, "mode buy: yes to pass automatically once done")],
}
REQUIRED: dict[str, set[str]] = {
    "bid": {"company", "price"}, "par": {"corporation", "price"}, "buy": {"share"}, "sell": {"shares"},
    "lay": {"hex", "tile", "rotation"}, "token": {"city"}, "run": set(), "dividend": {"kind"},
    "train": {"train"}, "discard": {"train"}, "private": {"company"}, "auto": {"mode"},
}


# ---------------------------------------------------------------------------- routes as text
def format_routes(routes: list[dict]) -> str:
    """`3-0: G19,F20 | F20,E19; 4-1: ...` (train: segments separated by |, hexes of a segment by ,)."""
    parts = []
    for r in routes:
        segs = " | ".join(",".join(seg) for seg in r.get("connections", []))
        parts.append(f"{r['train']}: {segs}")
    return "; ".join(parts)


def parse_routes(text: str) -> list[dict]:
    routes = []
    for chunk in text.split(";"):
        chunk = chunk.strip()
        if not chunk:
            continue
        if ":" not in chunk:
            raise UserError(f"Route {quote(chunk)}: write it as `TRAIN: HEX,HEX | HEX,HEX`.")
        train, body = chunk.split(":", 1)
        segs = []
        for seg in body.split("|"):
            hexes = [h.strip() for h in seg.split(",") if h.strip()]
            if hexes:
                segs.append(hexes)
        if not segs:
            raise UserError(f"Route for train {quote(train.strip())} has no track.")
        routes.append({"train": train.strip(), "connections": segs})
    return routes


def route_revenue(routes: list[dict]) -> int | None:
    try:
        return sum(int(r["revenue"]) for r in routes)
    except (KeyError, TypeError, ValueError):
        return None


# ---------------------------------------------------------------------------- keys and labels
def shares_key(action: dict) -> str:
    """`PRR_1+PRR_2@20`: certificate ids and the percent (selling a president's certificate swaps)."""
    key = "+".join(action.get("shares", []))
    if action.get("percent") is not None:
        key += f"@{action['percent']}"
    if action.get("entity_type") == "company":
        key = f"{action['entity']}>{key}"
    return key


def city_key(action: dict) -> str:
    return f"{action['city']}#{action.get('slot', 0)}"


def tile_name(tile_id: str) -> str:
    return tile_id.rsplit("-", 1)[0] if "-" in tile_id else tile_id


def _price_of(share_price: str) -> str:
    return share_price.split(",", 1)[0]


def sell_label(action: dict) -> str:
    """`sell 20% of B&O: B&O_3+B&O_0 (president's certificate swapped)`. The same certificates may be offered
    at two percents: the president's certificate sold whole, or swapped for shares (sold for part of it)."""
    shares = action.get("shares", [])
    corps = sorted({s.rsplit("_", 1)[0] for s in shares})
    pct = action.get("percent")
    nominal = _percent_guess(shares)
    txt = f"sell {pct if pct is not None else nominal}% of {'/'.join(corps)}: {'+'.join(shares)}"
    if any(s.endswith("_0") for s in shares):
        txt += " (president's certificate swapped)" if pct is not None and pct < nominal else \
            " (president's certificate sold)"
    return txt


def label(action: dict) -> str:
    t = action.get("type")
    if t == "bid":
        return f"{action.get('company') or action.get('corporation')}: ${action.get('price')} or more"
    if t == "par":
        sp = str(action.get("share_price", ""))
        return f"{action.get('corporation')} at ${_price_of(sp)}"
    if t == "sell_shares":
        return sell_label(action)
    if t == "buy_shares":
        pct = action.get("percent")
        txt = "+".join(action.get("shares", []))
        if action.get("entity_type") == "company":
            txt = f"{action['entity']} for {txt}"
        if pct:
            txt += f" ({pct}%)"
        if action.get("share_price"):
            txt += f" at ${action['share_price']}"
        return txt
    if t == "lay_tile":
        who = f" [{action['entity']}]" if action.get("entity_type") == "company" else ""
        return f"{action.get('hex')}: tile {tile_name(str(action.get('tile')))} rotation {action.get('rotation')}{who}"
    if t == "place_token":
        who = f" [{action['entity']}]" if action.get("entity_type") == "company" else ""
        cost = f" ${action['cost']}" if action.get("cost") else ""
        return f"city {action.get('city')} slot {action.get('slot', 0)}{cost}{who}"
    if t == "run_routes":
        rev = route_revenue(action.get("routes", []))
        trains = ", ".join(r["train"] for r in action.get("routes", []))
        return f"best routes: {trains or 'no train'}" + (f" for ${rev}" if rev is not None else "")
    if t == "dividend":
        return str(action.get("kind"))
    if t == "buy_train":
        txt = f"{action.get('train')}"
        if action.get("variant") and action["variant"] != tile_name(str(action.get("train"))):
            txt += f" ({action['variant']})"
        if action.get("exchange"):
            txt += f" trading in {action['exchange']}"
        return txt + f" for ${action.get('price')}"
    if t == "discard_train":
        return str(action.get("train"))
    if t == "buy_company":
        return f"{action.get('company')} for ${action.get('price')}"
    return t or "?"


def _of_type(legal: list[dict], kind: str) -> list[dict]:
    t = KINDS[kind]
    return [a for a in legal if a.get("type") == t]


def _fit(choices: list[tuple[str, Any]], current: str) -> list[tuple[str, Any]]:
    cur = (current or "").strip().lower()
    seen: set = set()
    out = []
    for name, value in choices:
        if value in seen:
            continue
        if cur and cur not in name.lower() and cur not in str(value).lower():
            continue
        seen.add(value)
        out.append((name[:100], value if not isinstance(value, str) else value[:100]))
        if len(out) >= 25:
            break
    return out


def _matching(acts: list[dict], key: str, filled: dict[str, Any]) -> list[dict]:
    """The actions agreeing with the option `key` if it is filled in already."""
    return [a for a in acts if not filled.get(key) or a.get(key) == filled[key]]


def _prices(acts: list[dict], key: str) -> list[tuple[str, Any]]:
    return [(f"${a['price']} ({a.get(key)})", int(a["price"])) for a in acts]


def _place(coord: Any, facts: dict) -> str:
    name = (facts.get("locations") or {}).get(str(coord))
    return f"{coord} {name}" if name else str(coord)


def _way(a: dict, facts: dict) -> str:
    """` (W–E)`: the directions a tile's track leaves by at the action's rotation."""
    from bot.describe import exits_text  # describe imports this module

    fn = facts.get("exits")
    way = exits_text(fn(str(a["tile"]), int(a["rotation"])), facts.get("layout")) if fn else ""
    return f" ({way})" if way else ""


def autocomplete(kind: str, option: str, current: str, filled: dict[str, Any], legal: list[dict],
                 facts: dict | None = None) -> list[tuple[str, Any]]:
    """Choices (name, value) for one option of a command, given the options filled in so far. `facts`
    (optional): `locations` {hex: place name}, `layout`, `exits(tile, rotation)`, `city_hex(city id)`,
    `cheapest` ((sym, price) of the private sold at face value in the auction)."""
    facts = facts or {}
    if kind == "auto":
        fixed = {"mode": AUTO_MODES, "until": ("float", "2", "3", "4", "5", "6"), "then_pass": ("yes", "no")}
        if option in fixed:
            return _fit([(v, v) for v in fixed[option]], current)
        corps = sorted({a["shares"][0].rsplit("_", 1)[0] for a in _of_type(legal, "buy")} |
                       {a["corporation"] for a in _of_type(legal, "par")})
        return _fit([(c, c) for c in corps], current)
    acts = _of_type(legal, kind)
    using = filled.get("using")
    if option == "using":
        return _fit([(f"{a['entity']}", a["entity"]) for a in acts if a.get("entity_type") == "company"], current)
    if using:
        acts = [a for a in acts if a.get("entity") == using]
    ch: list[tuple[str, Any]] = []
    if kind == "bid":
        cheapest = (facts.get("cheapest") or (None,))[0]
        if option == "company":
            ch = [(f"{a.get('company')}: buy it for ${a.get('price')}" if a.get("company") == cheapest
                   else label(a), a.get("company") or a.get("corporation")) for a in acts]
        elif option == "price":
            ch = _prices([a for a in acts if a.get("company") == filled.get("company")] or acts, "company")
    elif kind == "par":
        if option == "corporation":
            ch = [(a["corporation"], a["corporation"]) for a in acts]
        elif option == "price":
            sel = [a for a in acts if a.get("corporation") == filled.get("corporation")] or acts
            ch = [(f"${_price_of(str(a['share_price']))}" + (
                "" if filled.get("corporation") else f" ({a['corporation']})"), str(a["share_price"]))
                for a in sel]
    elif kind in ("buy", "sell"):
        ch = [(label(a), shares_key(a)) for a in acts]
    elif kind == "lay":
        if option == "hex":
            tiles: dict[str, list[str]] = {}
            for a in acts:
                names = tiles.setdefault(a["hex"], [])
                if tile_name(str(a["tile"])) not in names:
                    names.append(tile_name(str(a["tile"])))
            ch = [(f"{_place(h, facts)}: tile {', '.join(n)}", h) for h, n in tiles.items()]
        else:
            sel = _matching(acts, "hex", {"hex": str(filled.get("hex") or "").upper()})
            if option == "tile":
                ways: dict[tuple[str, str], list[str]] = {}
                for a in sel:
                    w = ways.setdefault((str(a["tile"]), a["hex"]), [])
                    if _way(a, facts).strip(" ()") not in w:
                        w.append(_way(a, facts).strip(" ()"))
                ch = [(f"{tile_name(t)} on {_place(h, facts)}: {'; '.join(w for w in ws if w) or 'any way'}", t)
                      for (t, h), ws in ways.items()]
            elif option == "rotation":
                sel = _matching(sel, "tile", filled)
                same: set[tuple[str, str, str]] = set()  # a straight track at rotations 1 and 4 is one lay
                for a in list(sel):
                    key = (a["hex"], str(a["tile"]), _way(a, facts))
                    if key[2] and key in same:
                        sel.remove(a)
                    same.add(key)
                ch = [(f"{a['rotation']}{_way(a, facts)} — tile {tile_name(str(a['tile']))} on "
                       f"{_place(a['hex'], facts)}", int(a["rotation"])) for a in sel]
    elif kind == "token":
        where = facts.get("city_hex")
        ch = [((f"{_place(where(a['city']), facts)} ({label(a)})" if where and where(a["city"]) else label(a)),
               city_key(a)) for a in acts]
    elif kind == "run":
        ch = [(label(a), "best") for a in acts[:1]]
    elif kind == "dividend":
        ch = [(a["kind"], a["kind"]) for a in acts]
    elif kind == "train":
        if option == "train":
            ch = [(label(a), a["train"]) for a in acts]
        elif option == "price":
            ch = _prices(_matching(acts, "train", filled), "train")
        elif option == "variant":
            ch = [(a["variant"], a["variant"]) for a in _matching(acts, "train", filled) if a.get("variant")]
        elif option == "exchange":
            ch = [(a["exchange"], a["exchange"]) for a in acts if a.get("exchange")]
    elif kind == "discard":
        ch = [(a["train"], a["train"]) for a in acts]
    elif kind == "private":
        if option == "company":
            ch = [(label(a), a["company"]) for a in acts]
        elif option == "price":
            ch = _prices(_matching(acts, "company", filled), "company")
    return _fit(ch, str(current) if current is not None else "")


# ---------------------------------------------------------------------------- building actions
def _percent_guess(shares: list[str]) -> int:
    return sum(20 if s.endswith("_0") else 10 for s in shares)


PLAYER_KINDS = {"bid", "par", "buy", "sell"}  # always a player's own action (e.g. selling to raise train cash)


def _entity(acting: dict, using: str | None, kind: str = "") -> dict:
    if using:
        return {"entity": using.strip().upper(), "entity_type": "company"}
    if kind in PLAYER_KINDS and acting.get("entity_type") != "player":
        return {"entity": None, "entity_type": "player"}  # the service fills in the member's player id
    return {"entity": acting["entity"], "entity_type": acting["entity_type"]}


def _same_entity(a: dict, base: dict) -> bool:
    if base.get("entity") is None:
        return a.get("entity_type") == base.get("entity_type")
    return a.get("entity") == base["entity"] and a.get("entity_type") == base.get("entity_type")


def _clean(a: dict) -> dict:
    return {k: v for k, v in a.items() if k not in ("id", "created_at")}


def needs_legal(kind: str, options: dict[str, Any]) -> bool:
    """Whether building the action needs `legal_actions()` (which may be slow, e.g. route search)."""
    if kind in ("buy", "sell", "train"):
        return True
    if kind == "run":
        return not options.get("routes") or str(options["routes"]).strip().lower() == "best"
    if kind == "par":
        return "," not in str(options.get("price", ""))
    if kind == "private":
        return options.get("price") is None
    return False


def build(kind: str, options: dict[str, Any], acting: dict, legal: list[dict] | None,
          corporations: set[str] | None = None) -> dict:
    """The action dict for a command. Raises UserError for input that cannot be an action at all.
    `corporations`: the game's corporations (standing orders may only name one of them)."""
    if kind not in KINDS:
        raise UserError(f"Unknown action {quote(kind)}.")
    opts = {k: v for k, v in options.items() if v is not None and v != ""}
    missing = REQUIRED.get(kind, set()) - set(opts)
    if missing:
        raise UserError(f"/{kind} needs {', '.join(sorted(missing))}.")
    if kind == "auto":
        return build_program(opts, corporations)
    legal = legal or []
    acts = _of_type(legal, kind)
    using = opts.get("using")
    base = {"type": KINDS[kind], **_entity(acting, using, kind)}
    if kind in ("pass", "bankrupt"):
        return base
    if kind == "bid":
        return {**base, "company": str(opts["company"]).strip().upper(), "price": _int(opts["price"], "price")}
    if kind == "par":
        corp = str(opts["corporation"]).strip().upper()
        price = str(opts["price"]).strip().lstrip("$")
        if "," not in price:
            match = [a for a in acts if a.get("corporation") == corp and _price_of(str(a["share_price"])) == price]
            if not match:
                raise UserError(f"{quote(corp)} cannot be parred at {quote('$' + price)} now.")
            price = str(match[0]["share_price"])
        return {**base, "corporation": corp, "share_price": price}
    if kind in ("buy", "sell"):
        raw = str(opts["share" if kind == "buy" else "shares"]).strip()
        if ">" in raw:
            company, raw = raw.split(">", 1)
            base = {**base, "entity": company.strip().upper(), "entity_type": "company"}
        pct: int | None = None
        if "@" in raw:
            raw, _, p = raw.rpartition("@")
            pct = _int(p.rstrip("%"), "percent")
        shares = [s.strip() for s in re.split(r"[+\s]+", raw) if s.strip()]
        if not shares:
            raise UserError(f"/{kind}: name the certificate(s), e.g. `PRR_1` or `PRR_1+PRR_2` "
                            "(autocomplete lists them).")
        guess = pct if pct is not None else _percent_guess(shares)
        same = [a for a in acts if sorted(a.get("shares", [])) == sorted(shares) and _same_entity(a, base)
                and (pct is None or a.get("percent") in (None, pct))]
        if same:  # without a percent: the certificates' face value (no president's certificate swap)
            return _clean(next((a for a in same if a.get("percent") == guess), same[0]))
        if len(shares) == 1 and "_" not in shares[0]:  # just a corporation: the first offer of it
            corp = shares[0].upper()
            for a in acts:
                if _same_entity(a, base) and all(s.rsplit("_", 1)[0] == corp for s in a.get("shares", [])):
                    return _clean(a)
            offered = sorted({s.rsplit("_", 1)[0] for a in acts if _same_entity(a, base) for s in a.get("shares", [])})
            verb = "bought" if kind == "buy" else "sold"
            raise UserError(f"No {quote(corp)} share can be {verb} by you now (certificate limit, 60% holding limit, "
                            f"a sale this round, or none left). "
                            + (f"You can {kind}: {', '.join(offered)}." if offered else f"You can't {kind} any."))
        return {**base, "shares": shares, "percent": guess}
    if kind == "lay":
        return {**base, "hex": str(opts["hex"]).strip().upper(), "tile": str(opts["tile"]).strip(),
                "rotation": _int(opts["rotation"], "rotation")}
    if kind == "token":
        raw = str(opts["city"]).strip()
        city, _, slot = raw.partition("#")
        for a in acts:
            if a.get("city") == city and (not slot or int(a.get("slot", 0)) == _int(slot, "slot")) and \
                    _same_entity(a, base):
                return _clean(a)
        return {**base, "city": city, "slot": _int(slot or 0, "slot")}
    if kind == "run":
        text = str(opts.get("routes") or "best").strip()
        if text.lower() == "best":
            if not acts:
                raise UserError("There is nothing to run now.")
            return _clean(acts[0])
        return {**base, "routes": parse_routes(text)}
    if kind == "dividend":
        k = str(opts["kind"]).strip().lower()
        return {**base, "kind": k}
    if kind == "train":
        train = str(opts["train"]).strip()
        sel = [a for a in acts if a.get("train") == train]
        variant = str(opts.get("variant") or "").strip()
        if variant and sel:
            named = [a for a in sel if a.get("variant") == variant]
            if not named and variant != tile_name(train):  # naming the train's own kind is no variant
                offered = sorted({a["variant"] for a in sel if a.get("variant")})
                raise UserError(f"Train {quote(train)} has no variant {quote(variant)}"
                                + (f": choose {', '.join(offered)}." if offered else "."))
            sel = named or sel
        if opts.get("exchange"):
            sel = [a for a in sel if a.get("exchange") == opts["exchange"]]
        else:
            sel = [a for a in sel if not a.get("exchange")] or sel
        if sel:
            a = _clean(sel[0])
            if opts.get("price") is not None:
                a["price"] = _int(opts["price"], "price")
            if opts.get("exchange"):
                a["exchange"] = opts["exchange"]
            return a
        a = {**base, "train": train}
        if opts.get("price") is None:
            raise UserError(f"Train {quote(train)} cannot be bought now.")
        a["price"] = _int(opts["price"], "price")
        if opts.get("variant"):
            a["variant"] = opts["variant"]
        if opts.get("exchange"):
            a["exchange"] = opts["exchange"]
        return a
    if kind == "discard":
        return {**base, "train": str(opts["train"]).strip()}
    if kind == "private":
        company = str(opts["company"]).strip().upper()
        if opts.get("price") is None:
            match = [a for a in acts if a.get("company") == company]
            if not match:
                raise UserError(f"{quote(company)} cannot be bought now.")
            return _clean(match[0])
        return {**base, "company": company, "price": _int(opts["price"], "price")}
    raise UserError(f"Unknown action `{kind}`.")  # pragma: no cover


def build_program(opts: dict[str, Any], corporations: set[str] | None = None) -> dict:
    """A stock-round standing order for the member's own seat (the service fills in the player).
    `corporations`: the game's corporations, when known (an order to buy another is refused)."""
    mode = str(opts["mode"]).strip().lower()
    base = {"entity_type": "player", "entity": None}
    if mode in ("pass", "pass-always"):
        always = mode == "pass-always"
        return {**base, "type": "program_share_pass", "unconditional": always, "indefinite": always}
    if mode == "off":
        return {**base, "type": "program_disable", "reason": "user"}
    if mode == "buy":
        if not opts.get("corporation"):
            raise UserError("/auto buy needs the corporation to buy.")
        corp = str(opts["corporation"]).strip().upper()
        if corporations is not None and corp not in corporations:
            raise UserError(f"There is no corporation {quote(corp)}: "
                            f"choose one of {', '.join(sorted(corporations))}.")
        until = str(opts.get("until") or "float").strip().lower()
        if until != "float":
            until = _int(until, "until")
            if until < 1:
                raise UserError("/auto until: a number of shares (1 or more), or `float`.")
        return {**base, "type": "program_buy_shares", "corporation": corp,
                "until_condition": until, "from_market": False,
                "auto_pass_after": str(opts.get("then_pass") or "").strip().lower() in ("yes", "y", "true", "1")}
    raise UserError(f"/auto mode is one of {', '.join(AUTO_MODES)}, not {quote(mode)}.")


NUMBER_LIMIT = 10**9  # larger numbers are never a price, count or rotation


def _int(v: Any, name: str) -> int:
    try:
        n = int(str(v).strip().lstrip("$"))
    except ValueError:
        raise UserError(f"{name} must be a number, not {quote(v)}.") from None
    if abs(n) > NUMBER_LIMIT:
        raise UserError(f"{name} {quote(v)} is out of range.")
    return n


def command_for(action: dict) -> tuple[str, dict[str, Any]]:
    """The command and options that submit a given 18xx.games action (tests, bench, console help)."""
    t = action["type"]
    kind = TYPE_TO_KIND.get(t)
    if kind is None:
        raise ValueError(f"no command for action type {t}")
    company = action["entity"] if action.get("entity_type") == "company" else None
    o: dict[str, Any] = {}
    if kind == "bid":
        o = {"company": action.get("company"), "price": action["price"]}
    elif kind == "par":
        o = {"corporation": action["corporation"], "price": action["share_price"]}
    elif kind == "buy":
        o = {"share": shares_key({k: v for k, v in action.items() if k != "entity_type"})}
        if company:
            o["using"] = company
    elif kind == "sell":
        o = {"shares": shares_key({k: v for k, v in action.items() if k != "entity_type"})}
    elif kind == "lay":
        o = {"hex": action["hex"], "tile": action["tile"], "rotation": action["rotation"]}
        if company:
            o["using"] = company
    elif kind == "token":
        o = {"city": f"{action['city']}#{action.get('slot', 0)}"}
        if company:
            o["using"] = company
    elif kind == "run":
        o = {"routes": format_routes(action["routes"])}
    elif kind == "dividend":
        o = {"kind": action["kind"]}
    elif kind == "train":
        o = {"train": action["train"], "price": action["price"]}
        if action.get("variant"):
            o["variant"] = action["variant"]
        if action.get("exchange"):
            o["exchange"] = action["exchange"]
    elif kind == "discard":
        o = {"train": action["train"]}
    elif kind == "private":
        o = {"company": action["company"], "price": action["price"]}
    elif t == "program_share_pass":
        o = {"mode": "pass-always" if action.get("indefinite") else "pass"}
    elif t == "program_buy_shares":
        o = {"mode": "buy", "corporation": action["corporation"], "until": str(action["until_condition"]),
             "then_pass": "yes" if action.get("auto_pass_after") else "no"}
    elif t == "program_disable":
        o = {"mode": "off"}
    return kind, o
