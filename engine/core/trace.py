"""The game state as one JSON-ready dict, in the 18xx.games trace format (docs/formats/traces.md)."""

from __future__ import annotations

from engine.core.entities import Company


def _clean(d: dict, keep=("cash", "ipo", "pool")) -> dict:
    """Leave out null, false and empty fields, and a zero count of loans or unplaced tokens, as 18xx.games'
    traces do (a price or a par of 0 stays: 1817's acquisition and liquidation zones)."""
    return {k: v for k, v in d.items()
            if k in keep or (v is not None and v is not False and v != [] and v != {}
                             and not (v == 0 and k in ("loans", "tokens_left")))}


def _open_bids(game) -> dict | None:
    """Bids waiting on privates in the opening sale (not in 18xx.games traces; for players' views)."""
    for step in getattr(game.round, "steps", ()):
        bids = getattr(step, "bids", None)
        if isinstance(bids, dict) and bids:
            auctioning = getattr(step, "auctioning", None)
            return {"bids": {sym: [[p.id, price] for p, price in entries] for sym, entries in bids.items() if entries},
                    "auctioning": auctioning.sym if auctioning else None}
    return None


def summary(game) -> dict:
    rnd = game.round
    out = {
        "round": rnd.name, "turn": game.turn, "round_num": rnd.round_num, "round_desc": rnd.description,
        "phase": game.phase.name, "bank": game.bank.cash, **game.trace_fields(),
    }
    if not game.finished:
        active = game.acting_entities()
        if active:
            e = active[0]
            out["next"] = e.sym if isinstance(e, Company) else e.key
    # the first player in the order still in the game (18xx.games passes over bankrupt ones)
    priority = next((p for p in game.players if not p.bankrupt), None)
    if priority is not None:
        out["priority"] = priority.id
    players = []
    for p in game.players:
        shares = {}
        for sym, certs in p.shares_by_corp.items():
            if certs:
                shares[sym] = sum(s.percent for s in certs)
        players.append(_clean({"id": p.id, "cash": p.cash, "shares": shares,
                               "privates": [c.sym for c in p.companies if not c.closed],
                               "value": game.player_value(p), "bankrupt": p.bankrupt}, keep=("cash", "id")))
    out["players"] = players
    corps = {}
    for c in game.corporations:
        price = c.share_price
        corps[c.sym] = _clean({
            "cash": c.cash,
            "price": [price.price, price.row, price.column] if price else None,
            "par": c.par_price.price if c.par_price else None,
            "pres": c.owner.id if c.owner else None,
            "trains": [t.id for t in c.trains],
            "tokens": game.hexmap.tokened_hexes(c.sym),
            "tokens_left": c.tokens_left,
            "ipoed": c.ipoed, "floated": c.floated, "operated": c.operated, "closed": c.closed,
            "ipo": c.ipo_percent, "pool": game.pool.percent_of(c),
            "companies": [x.sym for x in c.companies if not x.closed],
            **game.corporation_trace_fields(c),
        })
    out["corporations"] = corps
    if game.minors:
        out["minors"] = {m.sym: _clean({
            "cash": m.cash, "owner": m.owner.id if m.owner else None, "trains": [t.id for t in m.trains],
            "tokens": game.minor_tokens(m), "floated": m.floated, "operated": m.operated, "closed": m.closed,
        }) for m in game.minors}
    out["companies"] = {c.sym: (None if c.owner is None else getattr(c.owner, "key", None))
                        for c in game.companies if not c.closed}
    closed = [c.sym for c in game.companies if c.closed]
    if closed:
        out["closed_companies"] = closed
    upcoming: dict[str, int] = {}
    for t in game.depot.upcoming:
        upcoming[t.name] = upcoming.get(t.name, 0) + 1
    out["depot"] = {"upcoming": upcoming, "pool": [t.id for t in game.depot.discarded]}
    auction = _open_bids(game)
    if auction:
        out["auction"] = auction
    if game.finished:
        out["finished"] = True
        out["end_reason"] = game.end_reason
    return out
