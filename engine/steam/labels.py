"""Steam actions in words: one line per action for autocomplete choices and messages.

Hexes are named as players name them (a city's or town's name, else the coordinates and the places beside
it), track directions by compass point, money in dollars, and a delivery as its path of links with who
earns each one.
"""

from __future__ import annotations

from engine.core.errors import GameError
from engine.steam import tiles as T
from engine.steam.actions import (
    Bid,
    Capital,
    EndBuild,
    Grow,
    Lay,
    Move,
    Pass,
    Redirect,
    Score,
    TakeTile,
    Upgrade,
    UpgradeLoco,
    Urbanize,
)
from engine.steam.game import TILE_NAMES, reserve_name
from engine.steam.hexes import DIRECTION_NAMES

TILE_COSTS_BASIC = {5: "$2", 7: "$6"}


def _edges(paths) -> str:
    """Track as compass points: "N-S, NE-SW" for plain paths, "N, SE, SW" for town spurs."""
    if paths and len(paths[0]) == 1:
        return ", ".join(DIRECTION_NAMES[p[0]] for p in paths)
    return ", ".join("-".join(DIRECTION_NAMES[e] for e in p) for p in paths)


def _cubes(cubes) -> str:
    return ", ".join(cubes) if cubes else "no cubes"


def delivery_path(g, action: Move) -> list[dict]:
    """The links of a delivery in order: link id, from and to (place names), owner (player id or None)."""
    net = g.network()
    node = tuple(action.city)
    out = []
    for lid in action.links:
        link = net.by_id.get(lid)
        if link is None:
            raise GameError(f"there is no link {lid!r}")
        a, b = link.nodes if len(link.nodes) == 2 else (node, None)
        nxt = b if a == node else a
        out.append({"link": lid, "from": g.place_name(node), "to": g.place_name(nxt) if nxt else "?",
                    "owner": g.pid(link.owner)})
        node = nxt
    return out


def delivery_earnings(g, action: Move) -> dict:
    """Points each player earns from a delivery: player id -> links of theirs on the path (neutral: none)."""
    out: dict = {}
    for step in delivery_path(g, action):
        if step["owner"] is not None:
            out[step["owner"]] = out.get(step["owner"], 0) + 1
    return out


def _owner_name(g, pid) -> str:
    if pid is None:
        return "nobody"
    return g.s.players[g.seat_of(pid)].name


def label(g, action) -> str:
    """One line saying what an action (engine model) does, for the player about to take it."""
    s = g.s
    basic = g.mode == "basic"
    if isinstance(action, Bid):
        return f"bid ${action.amount}"
    if isinstance(action, Pass):
        if s.phase in ("setup_auction", "auction"):
            au = s.auction or {}
            if au.get("free_pass") == action.player:
                return "pass (First Player's free pass: you stay in)"
            return "pass (drop out of this auction)"
        return "pass"
    if isinstance(action, Capital):
        pl = s.players[action.player]
        return f"take ${5 * action.loans} capital (income {pl.income} -> {pl.income - action.loans})"
    if isinstance(action, TakeTile):
        name = f"{action.tile} {TILE_NAMES[action.tile]}"
        if action.tile in (5, 7):
            if not action.use:
                return f"{name}, passing on it (free; counts for turn order)"
            price = f" ({TILE_COSTS_BASIC[action.tile]})" if basic else ""
            what = "move a reserve hex's cubes to a city" if action.tile == 5 else "lay a New City tile on a town"
            return f"{name}{price}: {what} in your build turn"
        if action.tile == 6:
            loco = s.players[action.player].loco
            price = f" (${4 + loco + 1})" if basic else ""
            return f"{name}{price}: locomotive {loco} -> {loco + 1} now"
        return name
    if isinstance(action, Lay | Upgrade | Redirect):
        return _track_label(g, action)
    if isinstance(action, Urbanize):
        where = g.hex_label(action.hex)
        if action.reserve is None:
            return f"New City ({action.color}) on {where}, no cubes (the reserve hexes are empty)"
        cubes = s.reserve[action.reserve] if 0 <= action.reserve < len(s.reserve) else ()
        return (f"New City ({action.color}) on {where} with reserve hex {reserve_name(action.reserve)}'s cubes "
                f"({_cubes(cubes)})")
    if isinstance(action, Grow):
        cubes = s.reserve[action.reserve] if 0 <= action.reserve < len(s.reserve) else ()
        return f"City Growth: reserve hex {reserve_name(action.reserve)} ({_cubes(cubes)}) to {g.hex_label(action.city)}"
    if isinstance(action, EndBuild):
        pending = s.pending.get(action.player)
        if pending and not basic:
            return f"end building (without the {'New City' if pending == 'urbanize' else 'City Growth'})"
        return "end building"
    if isinstance(action, Move):
        return _move_label(g, action)
    if isinstance(action, UpgradeLoco):
        loco = s.players[action.player].loco
        return f"locomotive {loco} -> {loco + 1} (free, instead of moving a cube)"
    if isinstance(action, Score):
        pts = s.score_queue[0][1] if s.score_queue else 0
        return f"put your {pts} delivery point{'s' if pts != 1 else ''} on {'income' if action.to == 'income' else 'VP'}"
    return action.type


def _track_label(g, action) -> str:
    where = g.hex_label(action.hex)
    face = T.FACES.get(action.tile)
    if face is None:
        return f"{action.type} {action.tile} on {where}"
    try:
        cost = f" (${g._plan_track(action)['cost']})"
    except GameError:
        cost = ""
    new = face.rotated(action.rotation)
    old = g.s.track.get(tuple(action.hex))
    if isinstance(action, Lay):
        kind = "town tile " if face.town else ""
        return f"lay {kind}{action.tile} on {where}: {_edges(new)}{cost}"
    old_paths = {sg.edges for sg in old.segs} if old else set()
    changed = [p for p in new if p not in old_paths]
    if isinstance(action, Upgrade):
        return f"upgrade {where} to {action.tile}: adds {_edges(changed)}{cost}"
    return f"redirect {where} ({action.tile}): now {_edges(changed)}{cost}"


def _move_label(g, action: Move) -> str:
    try:
        path = delivery_path(g, action)
    except GameError:
        return f"{action.color} cube from {g.hex_label(action.city)}"
    mover = g.pid(action.player)
    steps = ", ".join(f"{p['from']}-{p['to']} ({'yours' if p['owner'] == mover else _owner_name(g, p['owner'])})"
                      for p in path)
    earns = delivery_earnings(g, action)
    points = [f"you {earns.get(mover, 0)}"] + [f"{_owner_name(g, pid)} {n}" for pid, n in earns.items() if pid != mover]
    dest = path[-1]["to"] if path else "?"
    return (f"{action.color} cube {path[0]['from'] if path else '?'} -> {dest} via {steps}: "
            f"{', '.join(points)} -> your points on {'income' if action.to == 'income' else 'VP'}")
