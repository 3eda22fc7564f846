"""Enumerate the legal actions of the active player as concrete action models (for bots and autocomplete).

Track builds are enumerated from the anchors the player may build from (cities, open ends of links
they may extend, towns): every single-path tile that continues from an anchor, every town tile that
touches one, upgrades that add a path at an anchor, and every redirection.  Each candidate is checked
with the same validator that `apply` uses, so the list contains only legal actions.
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
from engine.steam.hexes import opposite

MAX_MOVES = 300


def _unique_rotations(face: str) -> list[tuple[int, tuple]]:
    seen, out = set(), []
    for r in range(6):
        geo = T.FACES[face].rotated(r)
        if geo not in seen:
            seen.add(geo)
            out.append((r, geo))
    return out


ROTATIONS = {f: _unique_rotations(f) for f in T.FACES}
# plain track geometry (sorted paths) -> the (face, rotation) that lays it
PATHS_FACE: dict[tuple, tuple[str, int]] = {}
for _f in T.PLAIN_FACES:
    for _r, _geo in ROTATIONS[_f]:
        PATHS_FACE.setdefault(_geo, (_f, _r))
PAIR_FACE: dict[tuple[int, int], tuple[str, int]] = {geo[0]: fr for geo, fr in PATHS_FACE.items() if len(geo) == 1}
FOUR_EDGE = [f for f in T.PLAIN_FACES if len(T.FACES[f].paths) == 2]


_KINDS = {"lay": Lay, "upgrade": Upgrade, "redirect": Redirect}


def to_action(p: int, cand: tuple):
    kind, h, face, rot = cand
    return _KINDS[kind](player=p, hex=h, tile=face, rotation=rot)


def is_legal_track(g, action) -> bool:
    try:
        g._plan_track(action)
    except GameError:
        return False
    return True


def legal_actions(g) -> list:
    s = g.s
    if s.finished:
        return []
    p = g.active_seat()
    if s.score_queue:
        return [Score(player=p, to="income"), Score(player=p, to="vp")]
    phase = s.phase
    if phase in ("setup_auction", "auction"):
        au = s.auction
        low = 0 if au["high"] is None else au["high"] + 1
        cap = g._max_borrow(s.players[p]) if phase == "setup_auction" else s.players[p].cash
        if au.get("free_pass") == p:  # the First Player free pass may be used or declined (8.4: "можете")
            out = [Pass(player=p, free_pass=True), Pass(player=p, free_pass=False)]
        else:
            out = [Pass(player=p)]
        out += [Bid(player=p, amount=x) for x in range(low, cap + 1)]
        return out
    if phase == "capital":
        room = s.players[p].income + 10
        return [Capital(player=p, loans=k) for k in range(0, room + 1)]
    if phase == "select":
        return _select(g, p)
    if phase == "build":
        return build_actions(g, p)
    if phase == "move":
        return move_actions(g, p)
    return []


def _select(g, p) -> list:
    s = g.s
    pl = s.players[p]
    basic = g.mode == "basic"
    out = []
    for t in range(1, 8):
        if t in s.tiles:
            continue
        if t == 6:
            if pl.loco < 6 and (not basic or g._can_pay(p, 4 + pl.loco + 1)):
                out.append(TakeTile(player=p, tile=6))
        elif t in (5, 7):
            kind = "grow" if t == 5 else "urbanize"
            if (not basic or g._can_pay(p, 2 if t == 5 else 6)) and g._performable(kind, p):
                out.append(TakeTile(player=p, tile=t, use=True))
            out.append(TakeTile(player=p, tile=t, use=False))
        else:
            out.append(TakeTile(player=p, tile=t))
    return out


def build_actions(g, p, include_end: bool = True, track: bool = True) -> list:
    s = g.s
    board = g.board
    out: list = []
    if track and s.placements < g.placement_limit(p):
        out += track_actions(g, p)
    kind = s.pending.get(p)
    reserves = distinct_reserves(g)
    if kind == "urbanize":
        colors = [c for c, n in sorted(s.new_city_supply.items()) if n > 0]
        for h in sorted(board.towns):
            if h in s.new_cities or not colors:
                continue
            try:
                g._check_urbanize(p, h, colors[0])
            except GameError:
                continue
            out += [Urbanize(player=p, hex=h, color=c, reserve=i) for c in colors for i in reserves or [None]]
    elif kind == "grow":
        for i in reserves:
            for h in sorted(board.cities):
                if h not in s.grown:
                    out.append(Grow(player=p, reserve=i, city=h))
    if include_end and not (kind and g.mode == "basic" and g._performable(kind, p)):
        out.append(EndBuild(player=p))
    return out


def distinct_reserves(g) -> list[int]:
    """The reserve hexes with cubes, one per distinct set of cubes (taking either of two alike is the same)."""
    seen, out = set(), []
    for i, cubes in enumerate(g.s.reserve):
        if cubes and cubes not in seen:
            seen.add(cubes)
            out.append(i)
    return out


def track_actions(g, p) -> list:
    """Every legal lay / upgrade / redirect for player p (see module docstring)."""
    out = []
    for cand in track_candidates(g, p):
        a = to_action(p, cand)
        if is_legal_track(g, a):
            out.append(a)
    return out


def track_candidates(g, p) -> list:
    """Plausible (kind, hex, face, rotation) lays / upgrades / redirects, not yet validated."""
    s = g.s
    board = g.board
    net = g.network()
    cities = g.all_cities()
    track = s.track
    plain_anchor: dict = {}
    town_anchor: dict = {}

    def free(n):
        return n is not None and n not in cities and n not in track and board.hexes[n].terrain != "water"

    for c in cities:
        for d in range(6):
            n = board.nbr(c, d)
            if free(n) and board.edge_open(n, opposite(d)):
                target = town_anchor if board.hexes[n].town else plain_anchor
                target.setdefault(n, set()).add(opposite(d))
    upgrade_anchor: dict = {}
    for (h, e), li in net.open_ends.items():
        link = net.links[li]
        n = board.nbr(h, e)
        if n is None or n in cities:
            continue
        ok = link.owner == p or (link.owner is None and g._eligible(net, link, p))
        if n in track:
            if ok and not board.hexes[n].town:
                upgrade_anchor.setdefault(n, set()).add(opposite(e))
            continue
        if not free(n):
            continue
        if board.hexes[n].town:
            town_anchor.setdefault(n, set()).add(opposite(e))
        elif ok:
            plain_anchor.setdefault(n, set()).add(opposite(e))
    seen = set()
    out: list = []
    for n in sorted(plain_anchor):
        for a in sorted(plain_anchor[n]):
            for b in range(6):
                if b == a:
                    continue
                face, rot = PAIR_FACE[(min(a, b), max(a, b))]
                if (n, face, rot) in seen:
                    continue
                seen.add((n, face, rot))
                out.append(("lay", n, face, rot))
    for n in sorted(town_anchor):
        for face in T.TOWN_FACES:
            for rot, geo in ROTATIONS[face]:
                if {x[0] for x in geo} & town_anchor[n]:
                    out.append(("lay", n, face, rot))
    # upgrades
    for h, t in sorted(track.items()):
        if h in cities:  # a New City's direct links (CITY_STUB): no tile to upgrade
            continue
        old = {sg.edges for sg in t.segs}
        if T.FACES[t.face].town:
            for face in T.TOWN_FACES:
                if len(T.FACES[face].paths) <= len(old):
                    continue
                for rot, geo in ROTATIONS[face]:
                    if old <= set(geo):
                        out.append(("upgrade", h, face, rot))
            continue
        if len(t.segs) != 1:
            continue
        anchors = set(upgrade_anchor.get(h, ()))
        for d in range(6):
            if board.nbr(h, d) in cities:
                anchors.add(d)
        if not anchors:
            continue
        for face in FOUR_EDGE:
            for rot, geo in ROTATIONS[face]:
                if old <= set(geo):
                    added = [x for x in geo if x not in old][0]
                    if set(added) & anchors:
                        out.append(("upgrade", h, face, rot))
    # redirects: the path at an open end turns to another free edge, other track on the tile stays
    for (h, e), li in net.open_ends.items():
        link = net.links[li]
        t = track.get(h)
        if t is None or T.FACES[t.face].town:
            continue
        if not (link.owner == p or (link.owner is None and g._eligible(net, link, p))):
            continue
        sg = next(x for x in t.segs if e in x.edges)
        kept = [x.edges for x in t.segs if x is not sg]
        taken = {d for k in kept for d in k}
        inner = sg.edges[0] if sg.edges[1] == e else sg.edges[1]
        for b in range(6):
            if b in (inner, e) or b in taken:
                continue
            fr = PATHS_FACE.get(tuple(sorted(kept + [(min(inner, b), max(inner, b))])))
            if fr is not None:
                out.append(("redirect", h, fr[0], fr[1]))
    return out


def move_actions(g, p, limit: int = MAX_MOVES) -> list:
    s = g.s
    pl = s.players[p]
    out: list = [Pass(player=p)]
    if pl.loco < 6 and p not in s.loco_upgraded:
        out.append(UpgradeLoco(player=p))
    out += [m for m in deliveries(g, p, limit)]
    return out


def deliveries(g, p, limit: int = MAX_MOVES) -> list:
    """Every legal delivery (each with to="income" and to="vp"), at most `limit` routes."""
    out = []
    for origin, color, links in routes(g, p, limit):
        out.append(Move(player=p, city=origin, color=color, links=links, to="income"))
        out.append(Move(player=p, city=origin, color=color, links=links, to="vp"))
    return out


def deliverable(g, p) -> set:
    """The (city, colour) pairs of cubes that player p could deliver now (one route is enough)."""
    return {(origin, color) for origin, color, _ in routes(g, p, MAX_MOVES, first_only=True)}


def routes(g, p, limit: int = MAX_MOVES, first_only: bool = False) -> list:
    """Legal delivery routes (city, colour, link ids), at most `limit`; with `first_only`, only the
    first route found for each cube colour on each city."""
    s = g.s
    net = g.network()
    cities = g.all_cities()
    loco = s.players[p].loco
    adj: dict = {}
    for link in net.links:
        if link.complete:
            x, y = link.nodes
            adj.setdefault(x, []).append((link, y))
            adj.setdefault(y, []).append((link, x))
    found: list = []

    def ok(path_links) -> bool:
        counts: dict = {}
        for lk in path_links:
            counts[lk.owner] = counts.get(lk.owner, 0) + 1
        own = counts.get(p, 0)
        return own >= 1 and all(n <= own for q, n in counts.items() if q is not None and q != p)

    def dfs(origin, color, node, visited, path) -> bool:
        """Collect routes onwards from node; True once the first route is found with first_only."""
        if len(found) >= limit:
            return False
        for link, nxt in adj.get(node, ()):
            if nxt in visited:
                continue
            path.append(link)
            if cities.get(nxt) == color:
                if ok(path):
                    found.append((origin, color, tuple(lk.id for lk in path)))
                    if first_only:
                        path.pop()
                        return True
            elif len(path) < loco:
                visited.add(nxt)
                done = dfs(origin, color, nxt, visited, path)
                visited.discard(nxt)
                if done:
                    path.pop()
                    return True
            path.pop()
        return False

    for origin in sorted(s.city_cubes):
        cubes = s.city_cubes[origin]
        if not cubes or origin not in adj:
            continue
        for color in sorted(set(cubes)):
            dfs(origin, color, origin, {origin}, [])
    return found
