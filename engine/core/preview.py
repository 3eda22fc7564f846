"""What an action would do, told before it is sent, so a player can confirm it or think again.

`preview(game, action)` applies the action to a copy of the game (the game itself is untouched) and tells
what moved between the two states: the players' cash and certificates, the corporations' size, price,
treasury, loans, trains against the train limit, stations, president and holders, the market zone it is in
(1817), and the bank's loans and interest rate. It is the engine's own rules that run on the copy, so a merger, a conversion, a loan, an
offer or an acquisition is previewed by the same code that will carry it out: there is no second reckoning
to drift from the first. `effect(before, after)` tells the same from two `snapshot`s, so what `apply` then did
can be compared with what was previewed.

Standing orders that act after it (`generate_auto_actions`) act on the copy as they will on the game.
"""

from __future__ import annotations

import pickle
from typing import Any

from engine.core.entities import Corporation
from engine.core.game import paused_gc

# what the confirmation of each kind of action is about (a UI asks before sending these)
PREVIEWED = ("take_loan", "payoff_loan", "convert", "merge")


def copy_of(game):
    """A game that can be played on without touching `game` (nothing shared between them). The cyclic collector
    is paused while the copy is made: its tens of thousands of new objects would otherwise set off a full
    collection of everything the process holds about once per copy."""
    with paused_gc():
        return pickle.loads(pickle.dumps(game))


def preview(game, action: dict, copy=None) -> dict:
    """What `action` would do, as `effect` tells it; `events`: what the rules settled as they carried it
    out (`game.outcomes`: 1817's auction won, corporation acquired or liquidated with what each holder got
    and its president paid, interest, the liquidation zone; a round's end: prices moved between turns, the
    priority deal, the rounds ended and begun, privates' income, the operating order, 1817's interest rate
    for the operating round); `payments`: what privates' powers paid (`game.company_payments`);
    `auto_actions`: what standing orders did after it (a standing order acting at once among them). GameError
    (the game untouched) if it is refused. `copy`: a copy of `game` as it is now, sharing nothing with it, made
    already (the caller's own bytes of the game thawed): played on instead of making another."""
    copy = copy_of(game) if copy is None else copy
    copy.apply({k: v for k, v in action.items() if k not in ("id", "created_at")})
    return {**effect(snapshot(game), snapshot(copy)), "events": [dict(e) for e in copy.outcomes],
            "payments": [dict(p) for p in copy.company_payments],
            "auto_actions": [dict(a) for a in copy.actions[-1].get("auto_actions") or ()]}


def standing_pass(game, action: dict) -> dict:
    """What a standing order to pass in a stock round (`program_share_pass`, set by the player of `action`)
    leads to, where it is known: `{"when": "now", **preview}` when the order passes at once (its pass, and
    the passes of other orders it sets off, tried on a copy: the stock round's end among `events` if they end
    it). Else, as long as everyone passes from now on: `{"when": "if_all_pass", "others": [...], "last": id,
    **preview}`, the players who must pass for the round to end (`others`, in turn order; the order passing
    for its player at their turns among them), the player whose pass ends it (`last`: the order's own player
    when its pass does), and what that pass settles (the round's end); `{"when": "unknown"}` if even then it
    is not known (a player must do something else, or the order stops first). GameError if it is refused."""
    action = {k: v for k, v in action.items() if k not in ("id", "created_at")}
    now = preview(game, action)
    player = action.get("entity")
    if not game.round.stock or any(e["event"] == "round_ended" for e in now["events"]) or \
            game.active_players() == [player]:
        return {"when": "now", **now}
    copy = copy_of(game)
    copy.apply(action)
    round_, others = copy.round, []
    for _ in range(2 * len(copy.players)):
        actor = copy.acting_entity() or {}
        if copy.round is not round_ or actor.get("entity_type") != "player" or actor.get("entity") == player \
                or "pass" not in copy.action_types():
            break
        others.append(actor["entity"])
        before = snapshot(copy)
        copy.apply({"type": "pass", "entity": actor["entity"], "entity_type": "player"})
        if any(e["event"] == "round_ended" for e in copy.outcomes):
            # the pass that ended it: the last of this action's passes (a standing order's, if any)
            last = ([actor] + [a for a in copy.actions[-1].get("auto_actions") or () if a.get("type") == "pass"])[-1]
            return {"when": "if_all_pass", "others": others, "last": last["entity"], **effect(before, snapshot(copy)),
                    "events": [dict(e) for e in copy.outcomes], "payments": [dict(p) for p in copy.company_payments]}
    return {"when": "unknown"}


def snapshot(game) -> dict:
    """The facts a preview compares: players, corporations started, the bank's loans, whose turn it is."""
    out: dict[str, Any] = {
        "players": {p.id: {"cash": p.cash, "shares": {sym: pct for sym, shares in p.shares_by_corp.items()
                                                      if (pct := sum(s.percent for s in shares))}}
                    for p in game.players},
        "corporations": {c.sym: _corporation(game, c) for c in game.corporations if c.ipoed or c.floated},
    }
    bank = getattr(game, "loan_bank", None)
    if bank is not None:
        out["loans"] = {"value": bank.value, "out": bank.taken, "left": bank.left, "rate": bank.rate,
                        "rate_by_loans": bank.rate_for(bank.taken), "fixed": bank.fixed_rate is not None}
    acting = game.acting_entity() or {}
    out["next"] = {"entity": acting.get("entity"), "types": sorted(game.action_types()),
                   "sale": (game.turn_info() or {}).get("acquisition")}
    return out


def _corporation(game, corp: Corporation) -> dict:
    holders: dict[Any, int] = {}
    for share in corp.shares:
        owner = share.owner
        key = owner.id if hasattr(owner, "id") else ("treasury" if owner is corp else "market")
        holders[key] = holders.get(key, 0) + share.percent
    bank = getattr(game, "loan_bank", None)
    max_loans = getattr(game, "max_loans", None)
    return {
        "size": corp.total_shares, "share_percent": corp.share_percent,
        "price": corp.share_price.price if corp.share_price is not None else None, "floated": corp.floated,
        # 1817: the market's zone it is in (normal, acquisition, liquidation)
        "zone": zone(corp) if (zone := getattr(game, "zone", None)) and corp.share_price is not None else None,
        "cash": corp.cash, "loans": corp.loans,
        "max_loans": max_loans(corp) if max_loans is not None and bank is not None else None,
        "interest": bank.interest(corp.loans) if bank is not None else None,
        "president": corp.owner.id if corp.owner is not None and hasattr(corp.owner, "id") else None,
        "trains": [t.id for t in corp.trains], "train_limit": game.train_limit(corp),
        "stations": len(game.hexmap.tokened_hexes(corp.sym)),
        "holders": {k: v for k, v in holders.items() if v},
    }


def effect(before: dict, after: dict) -> dict:
    """What changed from `before` to `after` (two `snapshot`s):

    - `players`: per player id whose cash or certificates moved, `cash` [before, after] and `shares`
      {corporation: [percent before, percent after]};
    - `corporations`: per corporation that changed, started or went (merged away, acquired, liquidated:
      `gone`), each fact that moved [before, after] (president, trains, stations, holders...), and always
      its size, price, cash, loans, holders, train limit and loan limit;
    - `loans`: the bank's loans out and its rate [before, after] when they moved, `rate_by_loans` the rate
      the loans out make (the next operating round's when the rate is fixed for this one);
    - `next`: who acts after it and what they may do (a survivor over its limits discards or removes), and
      the corporation on sale then (1817's acquisition round: how it is sold, its opening bid).
    """
    out: dict[str, Any] = {"players": {}, "corporations": {}}
    for pid, p in after["players"].items():
        b = before["players"].get(pid) or {"cash": 0, "shares": {}}
        moved = {sym: [b["shares"].get(sym, 0), p["shares"].get(sym, 0)]
                 for sym in sorted(set(b["shares"]) | set(p["shares"]))
                 if b["shares"].get(sym, 0) != p["shares"].get(sym, 0)}
        if moved or b["cash"] != p["cash"]:
            out["players"][pid] = {"cash": [b["cash"], p["cash"]], "shares": moved}
    for sym in sorted(set(before["corporations"]) | set(after["corporations"])):
        b, a = before["corporations"].get(sym), after["corporations"].get(sym)
        if b == a:
            continue
        if a is None:
            out["corporations"][sym] = {"gone": True, **{k: [v, None] for k, v in b.items()
                                                         if k in ("size", "price", "cash", "loans", "president",
                                                                  "holders")}}
            continue
        b = b or {}
        moved = {k: [b.get(k), v] for k, v in a.items() if b.get(k) != v}
        always = ("size", "price", "cash", "loans", "holders", "train_limit", "max_loans")
        moved.update({k: [b.get(k), a[k]] for k in always if k not in moved})
        out["corporations"][sym] = moved
    if "loans" in after:
        lb, la = before.get("loans") or {}, after["loans"]
        out["loans"] = {"value": la["value"], "out": [lb.get("out"), la["out"]], "rate": [lb.get("rate"), la["rate"]],
                        "rate_by_loans": [lb.get("rate_by_loans"), la["rate_by_loans"]], "fixed": la["fixed"],
                        "left": la["left"]}
    out["next"] = after["next"]
    return out
