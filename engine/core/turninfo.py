"""What a user interface needs to tell players, owned by the engine so that no UI reads rule internals.

`turn_info(game)`: who acts and what they must do now (action kinds, the step's words, and the facts of
that step: an auction's bids, the par to set, a forced train purchase, tile lays left, a merger offer...).
Each step reports its own facts (`Step.turn_facts`), so a title's steps extend it. `passed_over`: whose turn
the last action skipped, and why (`Round.pass_over_reason`: a stock round's player at the certificate limit,
or without the cash for any certificate on offer).

`facts(game)`: the per-entity facts that don't change with every action but that a player looks up:
place names, phases, privates' income, each operator's kind, owner, certificates, trains (obsolete ones
marked), train limit and stations; titles add theirs with `game.operator_facts` and `game.title_facts`.
"""

from __future__ import annotations

from engine.core.entities import Company, Corporation, Minor, Operator, Player


def turn_info(game) -> dict:
    """What the acting entity may do now, cheaply (no legal-action search). Empty when nobody acts."""
    if game.finished:
        return {}
    rnd = game.round
    step = rnd.active_step()
    if step is None or not step.active_entities():
        return {}
    entities = step.active_entities()
    info: dict = {
        "types": game.action_types(), "step": step.description, "round": rnd.name,
        "round_desc": rnd.description, "actor": _ref(entities[0]), "players": game.active_players(),
    }
    if len(entities) > 1:  # several act at once (corporations over their train limit), the actor first of them
        info["acting"] = [_ref(e) for e in entities]
    # 1817's merger, acquisition and operating rounds; any pass in a stock round, which may end it (prices
    # move, the priority deal goes round, privates pay...) or the auction of a corporation (1817): whether it
    # does, with everyone's standing orders and the players passed over, only trying it tells
    if rnd.passes_set_off or (rnd.stock and "pass" in info["types"]):
        info["pass_sets_off"] = True
    info.update(step.turn_facts(entities[0]))
    if game.passed_over:
        info["passed_over"] = [dict(p) for p in game.passed_over]
    return info


def facts(game) -> dict:
    """Facts about the game's entities for players' views (see the module docstring)."""
    hm = game.hexmap
    presidency_with = {}  # private -> corporation whose president's certificate it brings (1830 BO, 18MEX MNR)
    for c in game.companies:
        ability = c.ability("shares")
        if ability and game.share(ability["shares"]).president:
            presidency_with[c.sym] = game.share(ability["shares"]).corporation.sym
    out = {
        "title": game.TITLE,
        "optional_rules": list(game.optional_rules),
        "locations": {c: h.location_name for c, h in hm.hexes.items() if h.location_name},
        "layout": hm.layout,
        "currency": game.rules.currency_format_str,
        "company_currency": game.rules.company_currency_format_str or game.rules.currency_format_str,
        "cert_limit": game.cert_limit,
        "phases": {p.name: {"train_limit": p.train_limit, "tiles": list(p.tiles), "status": list(p.status),
                            "operating_rounds": p.operating_rounds} for p in game.phases},
        "income": {c.sym: c.revenue for c in game.companies},
        "company_owners": {c.sym: game.name_of(c.owner) if isinstance(c.owner, Operator) else getattr(c.owner, "id", None)
                           for c in game.companies},
        "presidency_with": presidency_with,
        "operator_states": list(game.OPERATOR_STATES),
        "share_percent": {c.sym: c.share_percent for c in game.corporations},
        "operators": {op.sym: operator_facts(game, op) for op in game.minors + game.corporations},
        "players": {p.id: {"certificates": game.num_certs(p), "cert_limit": game.cert_limit} for p in game.players},
    }
    out.update(game.title_facts())
    return out


def operator_facts(game, op: Operator) -> dict:
    out: dict = {
        "kind": op.kind, "name": op.name, "owner": op.owner.id if isinstance(op.owner, Player) else None,
        "home": op.home, "closed": op.closed, "floated": op.floated,
        "trains": [{"id": t.id, "name": t.name, "obsolete": t.obsolete} for t in op.trains],
        "train_limit": game.train_limit(op), "tokens_left": op.tokens_left, "next_token_price": op.next_token_price,
    }
    if isinstance(op, Corporation):
        out["share_percent"] = op.share_percent
        out["total_shares"] = op.total_shares
        cell = op.share_price
        # place in its market space's stack: of two at one price, the one placed first operates first
        out["stack_position"] = cell.corporations.index(op) if cell is not None and op in cell.corporations else None
        out["certificates"] = [{"id": s.id, "percent": s.percent, "president": s.president,
                                "owner": _owner(game, s.owner), "reserved": not s.buyable} for s in op.shares]
    if isinstance(op, Minor):
        out["revenue_split"] = "half to the minor, half to its owner"
    out["states"] = game.operator_states(op)
    out.update(game.operator_facts(op))
    return out


def _ref(entity) -> dict:
    if isinstance(entity, Company):
        return {"entity": entity.sym, "entity_type": "company"}
    return {"entity": entity.key, "entity_type": entity.kind}


def _owner(game, holder):
    if isinstance(holder, Player):
        return holder.id
    if holder is game.pool:
        return "market"
    return "ipo"
