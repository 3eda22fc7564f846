"""Steam actions in words: one line per action for autocomplete choices and messages.

Hexes are named as players name them (a city's or town's name, else the coordinates and the places beside
it), track directions by compass point, money in dollars, and a delivery as its path of links with who
earns each one. The words are in the language in force (`i18n`: English unless the caller speaks another);
the actions and the engine's state never depend on it.
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
from i18n import NP_, _, ngettext, pgettext

TILE_COSTS_BASIC = {5: "$2", 7: "$6"}


COMPASS = (NP_("compass", "N"), NP_("compass", "NE"), NP_("compass", "E"), NP_("compass", "SE"), NP_("compass", "S"),
           NP_("compass", "SW"), NP_("compass", "W"), NP_("compass", "NW"))  # shown with compass_word
COLOURS = (NP_("colour", "red"), NP_("colour", "blue"), NP_("colour", "yellow"), NP_("colour", "purple"),
           NP_("colour", "gray"), NP_("colour", "black"))  # shown with color_word


def compass_word(point: str) -> str:
    """A compass point (N, NE, ...) in the language in force."""
    return pgettext("compass", point)


def color_word(color: str) -> str:
    """A cube's or city's colour in the language in force."""
    return pgettext("colour", color)


def _edges(paths) -> str:
    """Track as compass points: "N-S, NE-SW" for plain paths, "N, SE, SW" for town spurs."""
    if paths and len(paths[0]) == 1:
        return ", ".join(compass_word(DIRECTION_NAMES[p[0]]) for p in paths)
    return ", ".join("-".join(compass_word(DIRECTION_NAMES[e]) for e in p) for p in paths)


def cubes_text(cubes) -> str:
    return ", ".join(color_word(c) for c in cubes) if cubes else _("no cubes")


def tile_name(tile: int) -> str:
    """An action tile's name in the language in force."""
    return _(TILE_NAMES[tile])


def delivery_path(g, action: Move) -> list[dict]:
    """The links of a delivery in order: link id, from and to (place names), owner (player id or None)."""
    net = g.network()
    node = tuple(action.city)
    out = []
    for lid in action.links:
        link = net.by_id.get(lid)
        if link is None:
            raise GameError("there is no link {link}", link=repr(lid))
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
        return _("nobody")
    return g.s.players[g.seat_of(pid)].name


def label(g, action) -> str:
    """One line saying what an action (engine model) does, for the player about to take it."""
    s = g.s
    basic = g.mode == "basic"
    if isinstance(action, Bid):
        return _("bid ${amount}", amount=action.amount)
    if isinstance(action, Pass):
        if s.phase in ("setup_auction", "auction"):
            au = s.auction or {}
            if au.get("free_pass") == action.player and action.free_pass is not False:
                return _("pass (First Player's free pass: you stay in)")
            if au.get("free_pass") == action.player:
                return _("pass and drop out of this auction (not using the First Player free pass)")
            return _("pass (drop out of this auction)")
        return _("pass")
    if isinstance(action, Capital):
        pl = s.players[action.player]
        return _("take ${amount} capital (income {before} -> {after})", amount=5 * action.loans, before=pl.income,
                 after=pl.income - action.loans)
    if isinstance(action, TakeTile):
        name = f"{action.tile} {tile_name(action.tile)}"
        if action.tile in (5, 7):
            if not action.use:
                return _("{tile}, passing on it (free; counts for turn order)", tile=name)
            price = f" ({TILE_COSTS_BASIC[action.tile]})" if basic else ""
            if action.tile == 5:
                return _("{tile}{price}: move a reserve hex's cubes to a city in your build turn", tile=name,
                         price=price)
            return _("{tile}{price}: lay a New City tile on a town in your build turn", tile=name, price=price)
        if action.tile == 6:
            loco = s.players[action.player].loco
            price = f" (${4 + loco + 1})" if basic else ""
            return _("{tile}{price}: locomotive {before} -> {after} now", tile=name, price=price, before=loco,
                     after=loco + 1)
        return name
    if isinstance(action, Lay | Upgrade | Redirect):
        return _track_label(g, action)
    if isinstance(action, Urbanize):
        where = g.hex_label(action.hex)
        if action.reserve is None:
            return _("New City ({color}) on {place}, no cubes (the reserve hexes are empty)",
                     color=color_word(action.color), place=where)
        cubes = s.reserve[action.reserve] if 0 <= action.reserve < len(s.reserve) else ()
        return _("New City ({color}) on {place} with reserve hex {reserve}'s cubes ({cubes})",
                 color=color_word(action.color), place=where, reserve=reserve_name(action.reserve),
                 cubes=cubes_text(cubes))
    if isinstance(action, Grow):
        cubes = s.reserve[action.reserve] if 0 <= action.reserve < len(s.reserve) else ()
        return _("City Growth: reserve hex {reserve} ({cubes}) to {place}", reserve=reserve_name(action.reserve),
                 cubes=cubes_text(cubes), place=g.hex_label(action.city))
    if isinstance(action, EndBuild):
        pending = s.pending.get(action.player)
        if pending and not basic:
            if pending == "urbanize":
                return _("end building (without the New City)")
            return _("end building (without the City Growth)")
        return _("end building")
    if isinstance(action, Move):
        return _move_label(g, action)
    if isinstance(action, UpgradeLoco):
        loco = s.players[action.player].loco
        return _("locomotive {before} -> {after} (free, instead of moving a cube)", before=loco, after=loco + 1)
    if isinstance(action, Score):
        pts = s.score_queue[0][1] if s.score_queue else 0
        if action.to == "income":
            return ngettext("put your {n} delivery point on income", "put your {n} delivery points on income", pts)
        return ngettext("put your {n} delivery point on VP", "put your {n} delivery points on VP", pts)
    return action.type


def track_parts(g, action) -> dict:
    """What a track action builds, in words: the place, the tile, the track it lays or changes (compass
    points) and its cost."""
    where = g.hex_label(action.hex)
    face = T.FACES.get(action.tile)
    if face is None:
        return {"place": where, "tile": action.tile, "track": "", "cost": "", "town": False}
    try:
        cost = f" (${g._plan_track(action)['cost']})"
    except GameError:
        cost = ""
    new = face.rotated(action.rotation)
    old = g.s.track.get(tuple(action.hex))
    if not isinstance(action, Lay):
        old_paths = {sg.edges for sg in old.segs} if old else set()
        new = [p for p in new if p not in old_paths]
    return {"place": where, "tile": action.tile, "track": _edges(new), "cost": cost, "town": bool(face.town)}


def _track_label(g, action) -> str:
    p = track_parts(g, action)
    if T.FACES.get(action.tile) is None:
        return _("{kind} {tile} on {place}", kind=pgettext("track", action.type), tile=action.tile, place=p["place"])
    if isinstance(action, Lay):
        if p["town"]:
            return _("lay town tile {tile} on {place}: {track}{cost}", **p)
        return _("lay {tile} on {place}: {track}{cost}", **p)
    if isinstance(action, Upgrade):
        return _("upgrade {place} to {tile}: adds {track}{cost}", **p)
    return _("redirect {place} ({tile}): now {track}{cost}", **p)


def _move_label(g, action: Move) -> str:
    try:
        path = delivery_path(g, action)
    except GameError:
        return _("{color} cube from {place}", color=color_word(action.color), place=g.hex_label(action.city))
    mover = g.pid(action.player)
    yours = _("yours")
    steps = ", ".join(f"{p['from']}-{p['to']} ({yours if p['owner'] == mover else _owner_name(g, p['owner'])})"
                      for p in path)
    earns = delivery_earnings(g, action)
    points = [_("you {n}", n=earns.get(mover, 0))] + [f"{_owner_name(g, pid)} {n}" for pid, n in earns.items()
                                                       if pid != mover]
    dest = path[-1]["to"] if path else "?"
    where = _("income") if action.to == "income" else _("VP")
    return _("{color} cube {start} -> {end} via {links}: {points} -> your points on {where}",
             color=color_word(action.color), start=path[0]["from"] if path else "?", end=dest, links=steps,
             points=", ".join(points), where=where)
