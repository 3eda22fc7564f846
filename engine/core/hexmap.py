"""The map half of the rules core: hexes, tile lays/upgrades, station tokens, connectivity, routes.

Title-independent and modelled on the 18xx.games engine (Tracker#legal_tile_rotation?,
Game#upgrades_to?, Graph#compute, City#tokenable?, Route checks). Title quirks come in as
constructor parameters (see HexMap.__init__).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from operator import attrgetter

from engine.core.errors import GameError, Phrase
from engine.core.tiles import COLOR_ORDER, City, Node, Path, Tile, path_contained

UNLIMITED = 10**6


def _inv(e: int) -> int:
    return (e + 3) % 6


class Hex:
    __slots__ = ("coord", "x", "y", "color", "tile", "printed", "neighbors", "all_neighbors", "location_name",
                 "blockers", "reservations", "borders", "record", "future_label")

    def __init__(self, rec: dict, printed: Tile):
        self.coord: str = rec["coord"]
        self.x: int = rec["x"]
        self.y: int = rec["y"]
        self.color: str = rec["color"]
        self.record = rec
        self.printed = printed
        self.tile: Tile = printed
        self.neighbors: dict[int, Hex] = {}  # connectable neighbours by edge
        self.all_neighbors: dict[int, Hex] = {}
        self.location_name: str | None = rec.get("location_name")
        self.blockers: list[str] = list(rec.get("blockers", ()))
        self.reservations: list[str] = list(rec.get("reservations", ()))  # hex-level (any city)
        self.borders: list[dict] = [dict(b) for b in rec.get("borders", ())]
        # a label the hex takes with its tile of one colour (18MEX Los Mochis: "L" in green): (label, colour)
        self.future_label: tuple[str | None, str] | None = _future_label(rec.get("code", ""))

    def targeting(self, other: Hex) -> bool:
        for e, h in self.neighbors.items():
            if h is other and e in self.tile.exits:
                return True
        return False

    def __repr__(self):
        return f"<Hex {self.coord} {self.tile.id}>"


class _Graph:
    """Walk result for one corporation: the hexes (and their edges) it may build on, the nodes it
    reaches, the paths it walked, and whether one of its stations alone reaches two revenue nodes."""

    __slots__ = ("hexes", "nodes", "paths", "route", "entries")

    def __init__(self):
        self.hexes: dict[str, set[int]] = defaultdict(set)
        self.nodes: set[Node] = set()
        self.paths: dict[Path, None] = {}  # in walk order
        self.route = False
        # path -> every end (edge, node) the track may be entered by from a station, in any order of
        # walking; made when first asked for (HexMap._entries)
        self.entries: dict[Path, set] | None = None


def _future_label(code: str) -> tuple[str | None, str] | None:
    for part in code.split(";"):
        kind, _, params = part.partition("=")
        if kind == "future_label":
            fields = dict(kv.partition(":")[::2] for kv in params.split(","))
            return fields.get("label") or None, fields.get("color", "")
    return None


def _lane_match(lane: tuple[int, int], other: tuple[int, int]) -> bool:
    """Facing exits of neighbouring tiles join, lanes taken into account (a wider side centred)."""
    if lane[0] == other[0]:
        return other[1] == lane[0] - 1 - lane[1]
    narrow, wide = sorted((lane, other))
    return narrow[1] + (wide[0] - narrow[0]) // 2 == wide[0] - 1 - wide[1]


def _tracks_match(p: Path, q: Path) -> bool:
    return p.track == q.track or "dual" in (p.track, q.track)


def _saved_fields(cls) -> tuple[str, ...]:
    """The fields of a slotted map piece that change in play: all but HexMap.FIXED_FIELDS."""
    fields = _SAVED_FIELDS.get(cls)
    if fields is None:
        fixed = next(HexMap.FIXED_FIELDS[k] for k in cls.__mro__ if k in HexMap.FIXED_FIELDS)
        slots = [f for k in reversed(cls.__mro__) for f in getattr(k, "__slots__", ())]
        fields = _SAVED_FIELDS[cls] = tuple(f for f in slots if f not in fixed)
    return fields


_SAVED_FIELDS: dict[type, tuple[str, ...]] = {}
_READERS: dict[tuple[str, ...], Callable] = {}
_USUAL_TILE: list[tuple[frozenset, tuple[str, ...]]] = []  # a tile's attributes and the saved ones


def _tile_fields(attributes: dict) -> tuple[str, ...]:
    """The attributes of a tile that change in play (tiles share one set of attributes, so this is worked out
    once; a tile with attributes of its own gets its own list)."""
    if _USUAL_TILE and attributes.keys() == _USUAL_TILE[0][0]:
        return _USUAL_TILE[0][1]
    names = tuple(k for k in attributes if k not in HexMap.FIXED_FIELDS[Tile])
    if not _USUAL_TILE:
        _USUAL_TILE.append((frozenset(attributes), names))
    return names


def _reader(names: tuple[str, ...]) -> Callable:
    """piece -> the current values of these fields, as a tuple."""
    read = _READERS.get(names)
    if read is None:
        if len(names) > 1:
            read = attrgetter(*names)
        else:
            read = (lambda piece: (getattr(piece, names[0]),)) if names else (lambda piece: ())
        _READERS[names] = read
    return read


def _kept(values: tuple) -> tuple:
    """Values to keep: lists and dicts copied (the pieces change them in place)."""
    return tuple([v.copy() if type(v) is list or type(v) is dict else v for v in values])


def _tile_pieces(t: Tile):
    """(piece, its saved fields) of a tile, its cities and (where they change) its paths."""
    yield t, _tile_fields(t.__dict__)
    for n in t.nodes:
        if _saved_fields(type(n)):
            yield n, _saved_fields(type(n))
    if _saved_fields(Path):
        for p in t.paths:
            yield p, _saved_fields(Path)


def _restore(state: list) -> None:
    """Put pieces back to kept values ((piece, fields, values) entries), a tile turned back to its rotation."""
    for piece, names, values in state:
        if isinstance(piece, Tile):
            rotation = piece.rotation
            for field, value in zip(names, values, strict=True):
                setattr(piece, field, value.copy() if type(value) is list or type(value) is dict else value)
            if piece.rotation != rotation:
                piece.rotate(piece.rotation)
        else:
            for field, value in zip(names, values, strict=True):
                setattr(piece, field, value.copy() if type(value) is list or type(value) is dict else value)


class HexMap:
    """Map state of one game.

    Parameters beyond ``data`` carry title rules:
      home_as_token: home hexes count as connected before the home token is down (Graph option).
      no_rotation_tiles: tile names that may only be laid with rotation 0 (default from constants
        ``NO_ROTATION_TILES``).
      lay_hook(hexmap, corp, hex, old_tile, new_tile, rotation) -> str | None: extra title check,
        returns an error message or None.
      route_hook(hexmap, corp, route_info, revenue) -> int: title bonuses on a checked route
        (route_info: {"train_name", "stops": [Node], "paths": [Path], "hexes": [coord], "nodes": [sig]}).
      pass_full_cities: how many routes of one run may pass through a city full of other
        corporations' tokens (1860: 1; default 0).
    """

    def __init__(self, data: dict, *, home_as_token: bool = False, no_rotation_tiles: Iterable[str] | None = None,
                 lay_hook: Callable | None = None, route_hook: Callable | None = None, pass_full_cities: int = 0):
        meta = data.get("meta", {})
        mp = data["map"]
        self.title: str = meta.get("title", "")
        self.layout: str = mp.get("layout", meta.get("layout", "pointy"))
        self.home_as_token = home_as_token
        consts = data.get("constants", {}) or {}
        self.no_rotation_tiles = set(no_rotation_tiles if no_rotation_tiles is not None
                                     else consts.get("NO_ROTATION_TILES", ()) or ())
        # when a hex-level home reservation (a home on a hex of several cities, not yet placed) keeps other
        # corporations' stations off the hex: "always", "single_slot_cities" (if a city has one slot), or
        # "never" (only while the free slots are needed for it)
        self.reservation_blocks: str = consts.get("TILE_RESERVATION_BLOCKS_OTHERS") or "never"
        self.lay_hook = lay_hook
        # 18xx.games TRACK_RESTRICTION: what an upgrade must add ("permissive": anything; "city_permissive":
        # a city, or new track connected to the corporation; "restrictive": connected new track)
        self.track_restriction: str = consts.get("TRACK_RESTRICTION") or "permissive"
        self.route_hook = route_hook
        self.pass_full_cities = pass_full_cities
        self.hexes: dict[str, Hex] = {}
        self._tiles_by_id: dict[str, Tile] = {}
        group_index: dict[tuple, int] = {}
        by_xy: dict[tuple[int, int], Hex] = {}
        for rec in mp["hexes"]:
            key = (rec["color"], rec.get("code", ""))
            idx = group_index.get(key, 0)
            group_index[key] = idx + 1
            name = rec.get("tile", rec["coord"])
            tile = Tile(rec, name=name, index=idx, color=rec["color"], preprinted=True)
            h = Hex(rec, tile)
            tile.hex = h
            self.hexes[h.coord] = h
            self._tiles_by_id[tile.id] = tile
            by_xy[(h.x, h.y)] = h
        for rec in mp["hexes"]:
            h = self.hexes[rec["coord"]]
            h.neighbors = {int(e): self.hexes[c] for e, c in rec.get("neighbors", {}).items()}
            h.all_neighbors = {int(e): self.hexes[c] for e, c in rec.get("all_neighbors", {}).items()}
        # manifest
        self._manifest: dict[str, dict] = {}
        self._copies: dict[str, list[Tile]] = {}
        for rec in data.get("tiles", ()):
            name = rec["name"]
            self._manifest[name] = rec
            count = rec.get("count", 0)
            if count == "unlimited":
                count = None  # copies are made on demand
            else:
                count = rec.get("in_game_count", count)
            self._copies[name] = []  # made when first needed: most tiles of a game never are
            self._manifest[name] = dict(rec, _unlimited=count is None, _count=count)
        # homes
        self.homes: dict[str, tuple[list[str], int | None]] = {}
        for rec in list(data.get("corporations", ())) + list(data.get("minors", ())):
            coords = rec.get("coordinates")
            if coords:
                self.homes[rec["sym"]] = ([coords] if isinstance(coords, str) else list(coords), rec.get("city"))
        self._token_order: dict[str, list[str]] = {}
        self._graphs: dict[str, _Graph] = {}
        self._version = 0  # bumped on every change of tiles or tokens
        self._segment_cache: dict[tuple, tuple] = {}  # routes: segment -> (tiles, rotations, chains)
        self.pending_tokens: list[tuple[str, str]] = []  # (corp, coord) tokens displaced by a lay
        self.assignments: dict[str, set[str]] = {}  # coord -> markers a title puts on hexes (1817 mines, bridges)
        # tokens printed on the map (18MEX minors)
        for rec in mp["hexes"]:
            for i, c in enumerate(rec.get("cities", ())):
                for slot, corp in enumerate(c.get("tokens", ()) or ()):
                    if corp:
                        city = self.hexes[rec["coord"]].tile.cities[i]
                        city.tokens[slot] = corp
                        self._token_order.setdefault(corp, []).append(rec["coord"])

    # -- tiles ---------------------------------------------------------------------------------

    def _new_copy(self, name: str) -> Tile:
        rec = self._manifest[name]
        copies = self._copies[name]
        t = Tile(rec, name=name, index=len(copies), color=rec["color"])
        copies.append(t)
        self._tiles_by_id[t.id] = t
        return t

    def tile(self, copy_id: str) -> Tile:
        t = self._tiles_by_id.get(copy_id)
        if t is not None:
            return t
        name, _, idx = copy_id.rpartition("-")
        if name in self._manifest and idx.isdigit():
            rec = self._manifest[name]
            if rec["_unlimited"]:
                while len(self._copies[name]) <= int(idx):
                    self._new_copy(name)
            else:
                self._copies_of(name)
            if copy_id in self._tiles_by_id:
                return self._tiles_by_id[copy_id]
        if name in self.hexes and self.hexes[name].printed.name == name:
            return self.hexes[name].printed
        raise GameError("there is no tile {tile} in this game", tile=copy_id)

    def _copies_of(self, name: str) -> list[Tile]:
        """Every copy of a limited tile (made on first use)."""
        copies = self._copies[name]
        while len(copies) < self._manifest[name]["_count"]:
            self._new_copy(name)
        return copies

    def available(self, name: str) -> int:
        if name not in self._manifest:
            return 0
        if self._manifest[name]["_unlimited"]:
            return UNLIMITED
        return sum(1 for t in self._copies_of(name) if t.hex is None)

    def _free_copy(self, name: str) -> Tile | None:
        if name not in self._manifest:
            return None
        if not self._manifest[name]["_unlimited"]:
            self._copies_of(name)
        for t in self._copies[name]:
            if t.hex is None:
                return t
        if name in self._manifest and self._manifest[name]["_unlimited"]:
            return self._new_copy(name)
        return None

    def _resolve_tile(self, tile_id: str) -> Tile:
        """A copy id ('57-0') or a tile name ('57' -> lowest free copy)."""
        if tile_id in self._manifest:
            t = self._free_copy(tile_id)
            if t is None:
                raise GameError("no copy of tile {tile} left", tile=tile_id)
            return t
        t = self.tile(tile_id)
        if t.preprinted:
            raise GameError("{tile} is a printed map tile, not one from the supply", tile=tile_id)
        if t.hex is not None:
            if self.available(t.name):
                raise GameError("tile {tile} is already on the map at {coord}; use another copy of {tile2}",
                                tile=t.id, coord=t.hex.coord, tile2=t.name)
            raise GameError("no copy of tile {tile} left", tile=t.name)
        return t

    def city(self, city_id: str) -> City:
        tile_id, _, part = city_id.rpartition("-")
        if not part.isdigit():
            raise GameError("there is no city {city}", city=city_id)
        try:
            tile = self.tile(tile_id)
        except GameError:
            raise GameError("there is no city {city}", city=city_id) from None
        node = tile.node_by_part(int(part))
        if not isinstance(node, City):
            raise GameError("there is no city {city}", city=city_id)
        return node

    def hex(self, coord: str) -> Hex:
        h = self.hexes.get(coord)
        if h is None:
            raise GameError("there is no hex {coord} on this map", coord=coord)
        return h

    # -- lays ----------------------------------------------------------------------------------

    @staticmethod
    def _old_name(t: Tile) -> str:
        return Phrase("the printed tile") if t.preprinted else t.name

    def _upgrade_error(self, h: Hex, new: Tile, special: bool = False) -> GameError | None:
        """Rotation-independent: may `new` replace the hex's tile at all? A private's special lay needs only
        the next colour and the old track kept (labels and city counts aside)."""
        old = h.tile
        label = old.label or None
        if h.future_label is not None and new.color == h.future_label[1]:
            label = h.future_label[0]  # the hex's label in this colour decides, not the tile's
            if (new.label or None) == label and old.color in COLOR_ORDER and new.color in COLOR_ORDER and \
                    COLOR_ORDER.index(new.color) == COLOR_ORDER.index(old.color) + 1 and \
                    any(self._keeps_track(old, new, r) for r in range(6)):
                return None
        elif new.name in old.upgrades_to:
            return None
        if special and old.color in COLOR_ORDER and new.color in COLOR_ORDER and \
                COLOR_ORDER.index(new.color) == COLOR_ORDER.index(old.color) + 1 and \
                any(self._keeps_track(old, new, r) for r in range(6)):
            return None
        if old.color in ("gray", "red", "blue") or (not old.upgrades_to and old.color not in COLOR_ORDER[:-1]):
            return GameError("{hex} can't be upgraded", hex=h.coord)
        if old.color in COLOR_ORDER and new.color in COLOR_ORDER:
            want = COLOR_ORDER.index(old.color) + 1
            if COLOR_ORDER.index(new.color) != want:
                nxt = COLOR_ORDER[want] if want < len(COLOR_ORDER) else None
                if nxt is None:
                    return GameError("{hex} can't be upgraded", hex=h.coord)
                return GameError("tile {tile} is {colour} but {hex} holds {old} ({old_colour}): it needs a "
                                 "{next_colour} tile", tile=new.name, colour=Phrase(new.color, "tile colour"),
                                 hex=h.coord, old=self._old_name(old), old_colour=Phrase(old.color, "tile colour"),
                                 next_colour=Phrase(nxt, "tile colour"))
        what = GameError("tile {tile} can't replace {old} on {hex}", tile=new.name, old=self._old_name(old),
                         hex=h.coord)
        if label != (new.label or None):
            none = Phrase("none")
            return GameError("{what}: its label ({label}) doesn't match the hex ({hex_label})", what=what,
                             label=new.label or none, hex_label=label or none)
        if len(old.towns) != len(new.towns):
            return GameError("{what}: it has {n} town(s), the hex has {m}", what=what, n=len(new.towns),
                             m=len(old.towns))
        if len(old.cities) != len(new.cities):
            return GameError("{what}: it has {n} cities, the hex has {m}", what=what, n=len(new.cities),
                             m=len(old.cities))
        if not any(self._keeps_track(old, new, r) for r in range(6)):
            return GameError("{what}: it doesn't keep the existing track", what=what)
        return what

    def _adds_connected_track(self, corp: str, h: Hex, new: Tile, rotation: int) -> bool:
        """Whether the new tile has track, not on the old tile, that the corporation's stations reach once
        it is laid (18xx.games' `used_new_track`)."""
        old_keys = h.tile.shape().path_keys
        if not old_keys:
            return True
        entries = self._entries(corp)
        keys = new.shape(rotation).path_keys
        # where the corporation's walk arrives from outside: a neighbour's path entered by its other end
        # (edge, lane of that path)
        arrivals = {(e, q.edge_lanes[_inv(e)]) for e in new.shape(rotation).exits
                    if (nb := h.neighbors.get(e)) is not None
                    for q in nb.tile.paths_at_edge.get(_inv(e), ())
                    if any(end != _inv(e) for end in entries.get(q, ()))}

        def reached(end) -> bool:
            if end[0] != "e":
                return end[0] in reached_nodes
            return any(e == end[1] and (lane == (1, 0) == end[2] or _lane_match(lane, end[2])) for e, lane in arrivals)

        reached_nodes: set[str] = set()
        connected = [False] * len(keys)
        grew = True
        while grew:
            grew = False
            for i, ends in enumerate(keys):
                if connected[i] or not any(reached(end) for end in ends):
                    continue
                connected[i] = grew = True
                reached_nodes.update(end[0] for end in ends if end[0] != "e")
        if not any(connected[i] and not any(path_contained(key, old) for old in old_keys)
                   for i, key in enumerate(keys)):
            return False
        return bool(new.cities) or self._walks_new_track(corp, h, new, rotation)

    def _walks_new_track(self, corp: str, h: Hex, new: Tile, rotation: int) -> bool:
        """The exact answer for a tile without cities: lay it for a moment and walk from the stations as
        18xx.games does once it is laid (its walk order decides which way a path is entered)."""
        old, rotation_before = h.tile, new.rotation
        old_keys = old.shape().path_keys
        new.rotate(rotation)
        new.hex, h.tile = h, new
        try:
            keys = new.shape(rotation).path_keys
            added = {p for i, p in enumerate(new.paths) if not any(path_contained(keys[i], o) for o in old_keys)}
            try:
                self._compute(corp, added)
            except _Reached:
                return True
            return False
        finally:
            h.tile, new.hex = old, None
            new.rotate(rotation_before)

    @staticmethod
    def _keeps_track(old: Tile, new: Tile, r: int) -> bool:
        new_keys = new.shape(r).path_keys
        return all(any(path_contained(o, n) for n in new_keys) for o in old.shape().path_keys)

    def _lay_check(self, corp: str | None, h: Hex, new: Tile, rotation: int, colors, blocked, need_connection: bool,
                   tiles_allowed, special: bool = False) -> tuple[GameError | None, int]:
        coord = h.coord
        if blocked:
            if coord in blocked:
                return GameError("{hex} is blocked", hex=coord), 0
            for b in h.blockers:
                if b in blocked:
                    return GameError("{hex} is blocked by the private {company}", hex=coord, company=b), 0
        if tiles_allowed is not None and new.name not in tiles_allowed:
            return GameError("tile {tile} can't be laid here (allowed: {tiles})", tile=new.name,
                             tiles=", ".join(sorted(tiles_allowed))), 0
        if colors is not None and new.color not in colors:
            return GameError("{colour} tiles aren't available in this phase",
                             colour=Phrase(new.color, "tile colour")), 0
        err = self._upgrade_error(h, new, special)
        if err:
            return err, 0
        if not isinstance(rotation, int) or not 0 <= rotation <= 5:
            return GameError("rotation must be 0 to 5, not {rotation}", rotation=rotation), 0
        if rotation and new.name in self.no_rotation_tiles:
            return GameError("tile {tile} may not be rotated", tile=new.name), 0
        old = h.tile
        shape = new.shape(rotation)
        for e in sorted(shape.exits):
            if e not in h.neighbors:
                if e not in h.all_neighbors:
                    return GameError("rotation {rotation} of tile {tile} runs off the map at {hex}", rotation=rotation,
                                     tile=new.name, hex=coord), 0
                if any(b.get("type") == "impassable" and b["edge"] == e for b in h.borders):
                    return GameError("rotation {rotation} of tile {tile} runs into an impassable border on {hex}",
                                     rotation=rotation, tile=new.name, hex=coord), 0
                return GameError("rotation {rotation} of tile {tile} on {hex} runs into {neighbour}, which has no "
                                 "track there", rotation=rotation, tile=new.name, hex=coord,
                                 neighbour=h.all_neighbors[e].coord), 0
        if not self._keeps_track(old, new, rotation):
            return GameError("tile {tile} can't replace {old} on {hex} with rotation {rotation}: it doesn't keep "
                             "the existing track", tile=new.name, old=self._old_name(old), hex=coord,
                             rotation=rotation), 0
        old_ct = old.shape().ct_edges
        new_ct = shape.ct_edges
        extra = max(0, len(new_ct) - len(old_ct))
        if extra < sum(1 for n in new_ct if all(not (n & o) for o in old_ct)):
            return GameError("tile {tile} can't replace {old} on {hex} with rotation {rotation}: its stations "
                             "don't line up with the existing ones", tile=new.name, old=self._old_name(old), hex=coord,
                             rotation=rotation), 0
        if len(new_ct) > 1 and len(old_ct) > 1 and \
                not all(sum(1 for n in new_ct if o <= n) == 1 for o in old_ct):
            return GameError("tile {tile} can't replace {old} on {hex} with rotation {rotation}: its cities don't "
                             "line up with the existing ones", tile=new.name, old=self._old_name(old), hex=coord,
                             rotation=rotation), 0
        if need_connection:
            conn = self._graph(corp).hexes.get(coord)
            if not conn:
                return GameError("{corporation} can't lay on {hex}: no route from its stations", corporation=corp,
                                 hex=coord), 0
            if not (shape.exits & conn):
                return GameError("{corporation} can't lay tile {tile} on {hex} with rotation {rotation}: none of "
                                 "its track connects to a route from its stations", corporation=corp, tile=new.name,
                                 hex=coord, rotation=rotation), 0
            restriction = self.track_restriction
            if (restriction == "restrictive" or (restriction == "city_permissive" and not new.cities)) \
                    and not self._adds_connected_track(corp, h, new, rotation):
                if restriction == "restrictive":
                    return GameError("tile {tile} on {hex} with rotation {rotation} adds no track connected to "
                                     "{corporation}'s stations", tile=new.name, hex=coord, rotation=rotation,
                                     corporation=corp), 0
                return GameError("tile {tile} on {hex} with rotation {rotation} adds no track connected to "
                                 "{corporation}'s stations and has no city", tile=new.name, hex=coord,
                                 rotation=rotation, corporation=corp), 0
        if self.lay_hook is not None:
            err = self.lay_hook(self, corp, h, old, new, rotation)
            if err:
                return err, 0
        return None, self._lay_cost(h, old, shape.exits)

    @staticmethod
    def _lay_cost(h: Hex, old: Tile, new_exits) -> int:
        cost = sum(u.get("cost", 0) for u in old.upgrades)
        for b in h.borders:
            if not b.get("cost"):
                continue
            e = b["edge"]
            nb = h.neighbors.get(e)
            if nb is not None and e in new_exits and _inv(e) in nb.tile.exits:
                cost += b["cost"]
        return cost

    def check_lay(self, corp: str, coord: str, tile_id: str, rotation: int, *, colors: list[str],
                  blocked: set[str] = frozenset(), need_connection: bool = True,
                  tiles_allowed: set[str] | None = None, special: bool = False) -> int:
        h = self.hex(coord)
        new = self._resolve_tile(tile_id)
        err, cost = self._lay_check(corp, h, new, rotation, colors, blocked, need_connection, tiles_allowed, special)
        if err:
            raise err
        return cost

    def lay(self, coord: str, tile_id: str, rotation: int) -> list[tuple[str, str]]:
        """Apply a lay. Returns tokens displaced (corp, coord) that their owners must place again on that hex
        (an old tile whose cities had no track, e.g. 1830 E11, upgraded to a multi-city tile); they are also
        appended to ``pending_tokens``."""
        h = self.hex(coord)
        new = self._resolve_tile(tile_id)
        old = h.tile
        new.rotate(rotation)
        # pay/remove borders crossed
        for b in list(h.borders):
            if not b.get("cost"):
                continue
            e = b["edge"]
            nb = h.neighbors.get(e)
            if nb is not None and e in new.exits and _inv(e) in nb.tile.exits:
                h.borders.remove(b)
                nb.borders = [x for x in nb.borders if x["edge"] != _inv(e)]
        # move reservations, then tokens, city by city. A token goes, in the order of its old slots, to its
        # corporation's reserved slot or else the first slot neither taken nor reserved, as 18xx.games moves
        # them: a token alone in a second slot moves to the first (1817 C14, tile 592 to 593)
        displaced: list[tuple[str, str]] = []
        new_edges = new.shape().city_edges
        old_edges = old.shape().city_edges
        targets: list[City | None] = []
        for oi, oc in enumerate(old.cities):
            target: City | None = None
            if len(new.cities) == 1:
                target = new.cities[0]
            elif old_edges[oi]:
                for ni, nc in enumerate(new.cities):
                    if old_edges[oi] <= new_edges[ni]:
                        target = nc
                        break
            elif len(old.cities) == 1 and new.cities:
                target = new.cities[0]
            targets.append(target)
            if target is not None:
                for slot, r in enumerate(oc.reservations):
                    if r is None or r in target.reservations:
                        continue
                    if slot < len(target.reservations) and target.reservations[slot] is None:
                        target.reservations[slot] = r
                    else:
                        target.reservations.append(r)
        for oc, target in zip(old.cities, targets, strict=True):
            for corp in oc.tokens:
                if corp is None:
                    continue
                if target is None:
                    displaced.append((corp, coord))
                    continue
                dest = self._arrival_slot(target, corp)
                if dest is None:
                    target.tokens.append(corp)
                else:
                    target.tokens[dest] = corp
        for corp, _ in displaced:
            # the token leaves its place in the corporation's token order open: the next one placed takes it
            # (18xx.games keeps a corporation's tokens in a fixed order and places the first unused one)
            order = self._token_order.get(corp, [])
            if coord in order:
                order[order.index(coord)] = None
        if old.preprinted:
            old.hex = None
        else:
            old.reset()
        new.hex = h
        h.tile = new
        if h.future_label is not None and new.color == h.future_label[1]:
            h.future_label = None
        self.pending_tokens.extend(displaced)
        self._after_lay(h)
        return displaced

    @staticmethod
    def _arrival_slot(city: City, corp: str) -> int | None:
        """Where a token moved onto an upgraded city goes: its corporation's reserved slot, else the first slot
        neither taken nor reserved (None: no room, the token takes an extra slot)."""
        reserved = [i for i, r in enumerate(city.reservations) if r == corp and i < city.slots and city.tokens[i] is None]
        if reserved:
            return reserved[0]
        return next((i for i, t in enumerate(city.tokens)
                     if t is None and (i >= len(city.reservations) or city.reservations[i] is None)), None)

    @contextmanager
    def trial_lay(self, coord: str, tile_id: str, rotation: int):
        """The map as it would be with this tile laid (a title weighing a lay by what it makes reachable):
        laid for the `with` block, then everything put back as it was."""
        h = self.hex(coord)
        new = self._resolve_tile(tile_id)
        kept = [(piece, names, _kept(_reader(names)(piece))) for piece, names in self._pieces_of(h, new)]
        saved = (list(self.pending_tokens), {k: list(v) for k, v in self._token_order.items()}, self._version,
                 {cache: getattr(self, cache) for cache in self.CACHES})
        for cache in self.CACHES:
            setattr(self, cache, {})
        try:
            self.lay(coord, tile_id, rotation)
            yield
        finally:
            _restore(kept)
            self.pending_tokens, self._token_order, self._version, caches = saved
            for cache, value in caches.items():
                setattr(self, cache, value)

    def _pieces_of(self, h: Hex, new: Tile):
        """(piece, its saved fields) of what laying `new` on `h` can change: the hex, its neighbours, the
        tile there and the new one, with their cities and paths."""
        for piece in (h, *h.neighbors.values()):
            yield piece, _saved_fields(type(piece))
        for t in (h.tile, new):
            yield from _tile_pieces(t)

    def legal_lays(self, corp: str, *, colors: list[str], blocked: set[str] = frozenset(),
                   need_connection: bool = True, tiles_allowed: set[str] | None = None, special: bool = False,
                   hexes: Iterable[str] | None = None, priced: bool = False) -> list[tuple]:
        """(hex, tile copy, rotation) of every legal lay; `special`: a private's lay of its own tiles
        (`tiles_allowed`) wherever they fit; `hexes`: only these hexes; `priced`: (hex, tile copy, rotation,
        terrain cost)."""
        out = []
        coords = self._graph(corp).hexes.keys() if need_connection else self.hexes.keys()
        if hexes is not None:
            coords = [c for c in hexes if c in coords]
        for coord in sorted(coords, key=lambda c: (self.hexes[c].y, self.hexes[c].x)):
            h = self.hexes[coord]
            names = sorted(tiles_allowed) if special and tiles_allowed else self._upgrade_names(h)
            for name in names:
                if tiles_allowed is not None and name not in tiles_allowed:
                    continue
                rec = self._manifest.get(name)
                if rec is None or (colors is not None and rec["color"] not in colors):
                    continue
                new = self._free_copy(name)
                if new is None:
                    continue
                for r in range(6):
                    err, cost = self._lay_check(corp, h, new, r, colors, blocked, need_connection, tiles_allowed,
                                                special)
                    if err is None:
                        out.append((coord, new.id, r, cost) if priced else (coord, new.id, r))
        return out

    def _upgrade_names(self, h: Hex) -> list[str]:
        """Tile names that may replace the hex's tile (the hex's future label picks its own tiles)."""
        old = h.tile
        fl = h.future_label
        if fl is not None and old.color in COLOR_ORDER[:-1] and COLOR_ORDER[COLOR_ORDER.index(old.color) + 1] == fl[1]:
            return [name for name, rec in self._manifest.items()
                    if rec["color"] == fl[1] and (list(rec.get("labels") or ()) or [None])[0] == fl[0]]
        return old.upgrades_to

    # -- tokens --------------------------------------------------------------------------------

    def _hex_reservation_blocks(self, h: Hex, corp: str) -> str | None:
        others = [r for r in h.reservations if r != corp]
        if not others:
            return None
        if self.reservation_blocks == "always" and corp not in h.reservations:
            return others[0]
        if self.reservation_blocks == "single_slot_cities" and corp not in h.reservations \
                and any(c.slots == 1 for c in h.tile.cities):
            return others[0]
        free = sum(1 for c in h.tile.cities for i, t in enumerate(c.tokens)
                   if t is None and (i >= len(c.reservations) or c.reservations[i] is None))
        if free <= len(others):
            return others[0]
        return None

    @staticmethod
    def token_slot(corp: str, city: City) -> int | None:
        """Where a station goes in a city: the slot reserved for the corporation, else the first slot free
        and reserved for nobody (as 18xx.games places it, whatever slot an action names)."""
        for i, r in enumerate(city.reservations):
            if r == corp and i < len(city.tokens) and city.tokens[i] is None:
                return i
        return next((i for i, t in enumerate(city.tokens)
                     if t is None and (i >= len(city.reservations) or city.reservations[i] is None)), None)

    def check_token(self, corp: str, city_id: str, slot: int, *, need_connection: bool = True) -> int:
        """Raise GameError if the corporation can't put a station in the city now; else the slot it takes."""
        city = self.city(city_id)
        h = city.tile.hex
        if h is None:
            raise GameError("city {city} isn't on the map", city=city_id)
        named = f"{h.coord} ({h.location_name})" if h.location_name else h.coord
        where = f"the city on {named}" if len(h.tile.cities) == 1 else f"city {city_id} on {named}"
        if not isinstance(slot, int) or not 0 <= slot < len(city.tokens):
            raise GameError("{where} has no slot {slot}", where=where, slot=slot)
        if any(c.tokened_by(corp) for c in h.tile.cities):
            raise GameError("{corp} already has a token on {coord}", corp=corp, coord=h.coord)
        free = self.token_slot(corp, city)
        if free is None:
            if None not in city.tokens:
                raise GameError("{where} is full: its slots are taken by {tokens}", where=where,
                                tokens=', '.join(t for t in city.tokens if t))
            if city.tokens[slot] is not None:
                raise GameError("slot {slot} of {where} is taken by {token}", slot=slot, where=where,
                                token=city.tokens[slot])
            res = city.reservations[slot] if slot < len(city.reservations) else None
            raise GameError("slot {slot} of {where} is reserved for {reserved}", slot=slot, where=where,
                            reserved=res)
        other = self._hex_reservation_blocks(h, corp) if corp not in city.reservations else None
        if other is not None:
            raise GameError("{coord} is reserved for {other}'s home station", coord=h.coord, other=other)
        if need_connection and city not in self._graph(corp).nodes:
            raise GameError("{corp} can't reach {where} from its stations", corp=corp, where=where)
        return free

    def _put_token(self, corp: str, city: City, slot: int, *, home: bool = False, place: int | None = None) -> None:
        """`place`: the token's place in the corporation's token order (its charter's order), else the first
        place open."""
        city.tokens[slot] = corp
        city.reservations = [None if r == corp else r for r in city.reservations]
        h = city.tile.hex
        if corp in h.reservations:
            h.reservations.remove(corp)
        self.pending_tokens = [p for p in self.pending_tokens if p != (corp, h.coord)]
        order = self._token_order.setdefault(corp, [])
        if place is not None:
            order.extend([None] * (place + 1 - len(order)))
            order[place] = h.coord
        elif None in order:
            order[order.index(None)] = h.coord
        elif home:
            order.insert(0, h.coord)
        else:
            order.append(h.coord)
        self._invalidate(h.coord, corp)

    def place_token(self, corp: str, city_id: str, slot: int) -> None:
        city = self.city(city_id)
        free = self.token_slot(corp, city)
        self._put_token(corp, city, slot if free is None else free)

    def place_free_token(self, corp: str, city: City, place: int | None = None) -> None:
        """A station put straight into a city (18MEX: the NdM's exchange stations at a merger): the slot
        reserved for the corporation, else the first slot free and reserved for nobody, else any free one;
        `place` as for `_put_token`."""
        free = [i for i, t in enumerate(city.tokens) if t is None]
        if not free:
            raise GameError("no free slot for {corp} on {city}", corp=corp, city=city.id)
        reserved = [i for i in free if i < len(city.reservations) and city.reservations[i] == corp]
        open_ = [i for i in free if i >= len(city.reservations) or city.reservations[i] is None]
        self._put_token(corp, city, (reserved or open_ or free)[0], place=place)

    def place_home_token(self, corp: str, coord: str | None = None, city_index: int | None = None) -> str:
        """Place the home token in the slot reserved for `corp` (home hex from corporations.json by default).
        With several cities and no choice given, the reserved city is used, else the first one (as the
        engine does while the tile has no track); if the hex has track and only a hex-level reservation,
        `city_index` is required."""
        if coord is None:
            if corp not in self.homes:
                raise GameError("{corp} has no home hex", corp=corp)
            coords, idx = self.homes[corp]
            coord = coords[0]
            if city_index is None:
                city_index = idx
        h = self.hex(coord)
        cities = h.tile.cities
        if not cities:
            raise GameError("{coord} has no city for {corp}'s home token", coord=coord, corp=corp)
        if city_index is None:
            city = next((c for c in cities if corp in c.reservations), None)
            if city is None:
                if len(cities) > 1 and h.tile.paths and corp in h.reservations:
                    raise GameError("{corp} must choose which city of {coord} gets its home token", corp=corp,
                                    coord=coord)
                city = cities[0]
        else:
            if not 0 <= city_index < len(cities):
                raise GameError("{coord} has no city {city_index}", coord=coord, city_index=city_index)
            city = cities[city_index]
        if any(c.tokened_by(corp) for c in cities):
            raise GameError("{corp} already has a token on {coord}", corp=corp, coord=coord)
        slot = next((i for i, r in enumerate(city.reservations) if r == corp and city.tokens[i] is None), None)
        if slot is None:
            slot = next((i for i, t in enumerate(city.tokens)
                         if t is None and (i >= len(city.reservations) or city.reservations[i] is None)), None)
        if slot is None:
            raise GameError("no free slot for {corp}'s home token on {coord}", corp=corp, coord=coord)
        self._put_token(corp, city, slot, home=True)
        return city.id

    def replace_token(self, old: str, new: str, coord: str, first_free_slot: bool = False,
                      place: int | None = None) -> None:
        """A station changes hands where it stands (18MEX: the NdM's exchange stations at a merger); with
        `first_free_slot`, in the city's first slot free once it is taken off (1817, as 18xx.games swaps them);
        `place` as for `_put_token`."""
        city = next(c for c in self.hex(coord).tile.cities if old in c.tokens)
        slot = city.tokens.index(old)
        self.remove_token(old, coord)
        if first_free_slot:
            slot = next(i for i, (t, r) in enumerate(zip(city.tokens, city.reservations, strict=False))
                        if t is None and r is None)
        self._put_token(new, city, slot, place=place)

    def remove_token(self, corp: str, coord: str) -> None:
        """Take corp's token off a hex (e.g. a corporation closing)."""
        for c in self.hex(coord).tile.cities:
            c.tokens = [None if t == corp else t for t in c.tokens]
        order = self._token_order.get(corp, [])
        if coord in order:
            order.remove(coord)
        self._invalidate(coord, corp)

    def legal_tokens(self, corp: str) -> list[tuple[str, int]]:
        out = []
        for node in sorted(self._graph(corp).nodes, key=lambda n: (n.tile.hex.y, n.tile.hex.x, n.part_index)):
            if not isinstance(node, City):
                continue
            try:
                out.append((node.id, self.check_token(corp, node.id, 0)))
            except GameError:
                continue
        return out

    def hold_token_places(self, corp: str, count: int) -> None:
        """The corporation's token order gets open places up to `count` (its charter's tokens), so that a token
        placed at a later place of the charter is listed after them."""
        order = self._token_order.setdefault(corp, [])
        order.extend([None] * (count - len(order)))

    def tokened_hexes(self, corp: str) -> list[str]:
        return [coord for coord in self._token_order.get(corp, ()) if coord is not None]

    def token_cities(self, corp: str) -> list[City]:
        out = []
        for coord in dict.fromkeys(self.tokened_hexes(corp)):
            out.extend(c for c in self.hexes[coord].tile.cities if corp in c.tokens)
        return out

    # -- connectivity --------------------------------------------------------------------------

    def _graph(self, corp: str) -> _Graph:
        g = self._graphs.get(corp)
        if g is None:
            g = self._graphs[corp] = self._compute(corp)
        return g

    def _compute(self, corp: str, targets: set | None = None) -> _Graph:
        """Graph#compute of 18xx.games: from each station in turn (in map order; the other stations
        count as visited), a depth-first walk over track. A path is walked once, except that paths
        reached through an exit several paths of a tile share may be walked again by another way; a walk
        never crosses an edge it is already on; a node full of other corporations' tokens (or an
        offboard) is reached but not passed, and a terminal path ends the walk. The order decides what
        is reached where track loops, as it does there. `targets`: paths whose reaching ends the walk at
        once (raising _Reached)."""
        g = _Graph()
        hexes = g.hexes
        starts = [c for h in self.hexes.values() for c in h.tile.cities if corp in c.tokens]
        for c in starts:
            h = c.tile.hex
            hexes[h.coord].update(h.neighbors)
        if self.home_as_token and corp in self.homes:
            coords, index = self.homes[corp]
            for coord in coords:
                h = self.hexes[coord]
                hexes[coord].update(h.neighbors)
                cities = h.tile.cities if index is None else h.tile.cities[index:index + 1]
                starts.extend(c for c in (cities or h.tile.towns) if c not in starts)
        g.nodes.update(starts)
        for start in starts:
            local: set[Node] = set()
            _Walk(self, g, corp, local, targets).node(start, {c for c in starts if c is not start}, defaultdict(int), set(),
                                             False)
            mandatory = sum(1 for n in local if not n.halt and n.kind != "junction")
            if mandatory > 1:
                g.route = True
        return g

    def _entries(self, corp: str) -> dict[Path, set]:
        """For each path the stations reach, the ends it may be entered by (every way of walking, not one
        walk's order): where track comes from towards a hex."""
        g = self._graph(corp)
        if g.entries is None:
            entries: dict[Path, set] = {}
            stack = [(p, c) for c in g.nodes if c in self.token_cities(corp) for p in c.paths]
            while stack:
                p, entry = stack.pop()
                ents = entries.setdefault(p, set())
                if entry in ents:
                    continue
                ents.add(entry)
                h = p.tile.hex
                for end in p.ends:
                    if end.__class__ is int:
                        nb = h.neighbors.get(end)
                        if nb is None or end == entry:
                            continue
                        ie = (end + 3) % 6
                        stack.extend((q, ie) for q in nb.tile.paths_at_edge.get(ie, ())
                                     if _lane_match(p.edge_lanes[end], q.edge_lanes[ie]))
                    elif end.kind == "junction" or not (p.terminal or end is entry or end.blocks(corp)):
                        if end is not entry:
                            stack.extend((q, end) for q in end.paths if q is not p)
            g.entries = entries
        return g.entries

    def _invalidate(self, coord: str, corp: str | None = None) -> None:
        """Drop cached graphs that a change on `coord` can affect (those that reach that hex)."""
        self._version += 1
        if corp is not None:
            self._graphs.pop(corp, None)
        for c in [c for c, g in self._graphs.items() if coord in g.hexes]:
            del self._graphs[c]

    @contextmanager
    def walks_kept(self, corps):
        """The walks of these corporations stay as they were before the block (found now if not yet), whatever
        it changes on the map (18xx.games keeps what a corporation reaches while stations are taken off)."""
        kept = {c: self._graph(c) for c in corps}
        try:
            yield
        finally:
            self._graphs.update(kept)

    def forget_walks(self, corps) -> None:
        """Drop these corporations' walks: each is found afresh when next asked."""
        self._version += 1
        for c in corps:
            self._graphs.pop(c, None)

    def _after_lay(self, h: Hex) -> None:
        """A new tile changes the walks of the corporations that reach its hex (and no other)."""
        self._version += 1
        for corp in [c for c, g in self._graphs.items() if h.coord in g.hexes]:
            del self._graphs[corp]

    def connected_hexes(self, corp: str) -> dict[str, set[int]]:
        return {k: set(v) for k, v in self._graph(corp).hexes.items() if v}

    def connected_paths(self, corp: str) -> set[Path]:
        """The track the corporation's stations reach (18xx.games' Graph#connected_paths)."""
        return set(self._graph(corp).paths)

    def reachable_cities(self, corp: str) -> set[str]:
        return {n.id for n in self._graph(corp).nodes if isinstance(n, City)}

    def reachable_nodes(self, corp: str) -> set[Node]:
        return set(self._graph(corp).nodes)

    def route_available(self, corp: str, stations: list[tuple[City, int, str]] = ()) -> bool:
        """One of the corporation's stations alone reaches two revenue nodes over track: a train could
        run. `stations` (city, slot, corporation): tokens to count as standing there for this answer."""
        if not stations:
            return self._graph(corp).route
        saved = [(city, list(city.tokens)) for city, _, _ in stations]
        for city, slot, sym in stations:
            city.tokens[slot] = sym
        try:
            return self._compute(corp).route
        finally:
            for city, tokens in saved:
                city.tokens = tokens

    # -- routes --------------------------------------------------------------------------------

    def route_revenue(self, corp: str, routes: list[dict], phase_colors: list[str]) -> list[int]:
        from engine.core.routes import route_revenue
        return route_revenue(self, corp, routes, phase_colors)

    # -- saving and restoring -------------------------------------------------------------------
    # Checkpoints of a game leave the map in place: it saves the fields of its pieces that change in play,
    # and the checkpoint pickles the map's own attributes but FIXED and CACHES. Every field of a piece that
    # is not named in FIXED_FIELDS is saved, so a new field is saved unless it is declared fixed there.
    FIXED = frozenset({"hexes", "_tiles_by_id", "_copies", "_manifest"})
    CACHES = frozenset({"_graphs", "_segment_cache"})
    _NODE_FIXED = frozenset({"kind", "index", "part_index", "revenue", "groups", "hide", "tile", "paths", "halt",
                             "visit_cost"})
    FIXED_FIELDS: dict[type, frozenset[str]] = {
        Hex: frozenset({"coord", "x", "y", "color", "printed", "neighbors", "all_neighbors", "location_name",
                        "record"}),
        # paths_at_edge and the paths' exits, ends and edge lanes follow from the rotation; _shapes is a cache
        Tile: frozenset({"name", "index", "id", "color", "code", "preprinted", "record", "upgrades_to", "cities",
                         "towns", "offboards", "junction", "nodes", "paths", "paths_at_edge", "_shapes"}),
        Node: _NODE_FIXED,
        City: _NODE_FIXED | {"slots"},
        Path: frozenset({"tile", "a", "b", "lanes", "terminal", "track", "nodes", "junction", "index", "exits",
                         "edge_lanes", "ends"}),
    }

    def pieces(self):
        """(piece, its saved fields) for every hex, tile, city and path of the map, in a fixed order."""
        for h in self.hexes.values():
            yield h, _saved_fields(Hex)
        for t in self._tiles_by_id.values():
            yield from _tile_pieces(t)

    def state(self, previous: list | None = None) -> list:
        """The changing fields of every piece, to give back to `set_state`. Pieces unchanged since `previous`
        (an earlier state) share its entries."""
        out = []
        for i, (piece, names) in enumerate(self.pieces()):
            values = _reader(names)(piece)
            old = previous[i] if previous is not None and i < len(previous) else None
            if old is not None and old[0] is piece and old[1] == names and old[2] == values:
                out.append(old)
            else:
                out.append((piece, names, _kept(values)))
        return out

    def set_state(self, state: list) -> None:
        """Put the pieces back as they were when `state` was taken (the state stays usable again) and drop
        what was worked out from them."""
        _restore(state)
        saved = {piece.id for piece, _names, _values in state if isinstance(piece, Tile)}
        for t in self._tiles_by_id.values():
            if t.id not in saved:  # a copy made since: back to the supply
                t.reset()
        for cache in self.CACHES:
            setattr(self, cache, {})

    # -- view ----------------------------------------------------------------------------------

    def view(self, blocked: set[str] | None = None) -> dict:
        """Plain data for the map picture. `blocked`: privates currently blocking (None = every blocker
        printed on the map)."""
        out = {}
        for coord, h in self.hexes.items():
            t = h.tile
            cities = []
            for c in t.cities:
                res = list(c.reservations) + [None] * (len(c.tokens) - len(c.reservations))
                free = [i for i, (tok, r) in enumerate(zip(c.tokens, res, strict=False)) if tok is None and r is None]
                for r in h.reservations:  # hex-level reservations shown in the first free slots
                    if free:
                        res[free.pop(0)] = r
                cities.append({"revenue": c.revenue, "slots": c.slots, "tokens": list(c.tokens),
                               "reserved": res[:len(c.tokens)]})
            out[coord] = {
                "tile": t.name, "tile_id": t.id, "rotation": t.rotation, "color": t.color, "cities": cities,
                "blocked_by": [b for b in h.blockers if blocked is None or b in blocked],
            }
            if self.assignments.get(coord):  # a title's markers on the hex (1817: mine, bridge)
                out[coord]["markers"] = sorted(self.assignments[coord])
        return {"title": self.title, "layout": self.layout, "hexes": out}


class _Reached(Exception):
    """A walk reached one of the paths it was looking for."""


class _Walk:
    """One station's depth-first walk of 18xx.games' Graph#compute (Node#walk and Path#walk)."""

    __slots__ = ("hexmap", "g", "corp", "local", "targets")

    def __init__(self, hexmap: HexMap, g: _Graph, corp: str, local: set[Node], targets: set | None = None):
        self.hexmap, self.g, self.corp, self.local, self.targets = hexmap, g, corp, local, targets

    def node(self, node: Node, visited: set, counter, visited_paths: set, converging_path: bool) -> None:
        if node in visited:
            return
        visited.add(node)
        for path in node.paths:
            self.path(path, None, None, visited_paths, counter, converging_path, node, visited, converging_path)
        if converging_path:
            visited.discard(node)

    def reached(self, path: Path, from_node: Node, visited: set, counter, visited_paths: set,
                converging: bool, converging_path: bool) -> None:
        g = self.g
        if path not in g.paths:
            if self.targets and path in self.targets:
                raise _Reached
            g.paths[path] = None
            g.nodes.update(path.nodes)
            self.local.update(path.nodes)
            h = path.tile.hex
            hx = g.hexes[h.coord]
            for e in path.exits:
                hx.add(e)
                nb = h.neighbors.get(e)
                if nb is not None:
                    g.hexes[nb.coord].add((e + 3) % 6)
        if path.terminal:
            return
        for nxt in path.nodes:
            if nxt is from_node or nxt.blocks(self.corp):
                continue
            self.node(nxt, visited, counter, visited_paths, converging_path or converging)

    def path(self, p: Path, skip, jskip, visited_paths: set, counter, converging: bool, from_node: Node,
             visited: set, converging_path: bool) -> None:
        if p in visited_paths:
            return
        j = p.junction
        if j is not None and counter[j] > 1:
            return
        coord = p.tile.hex.coord
        if any(counter[(coord, e, p.edge_lanes[e][1])] for e in p.exits):
            return
        visited_paths.add(p)
        if j is not None:
            counter[j] += 1
        self.reached(p, from_node, visited, counter, visited_paths, converging, converging_path)
        if j is not None and j is not jskip:
            for jp in j.paths:
                self.path(jp, None, j, visited_paths, counter, converging, from_node, visited, converging_path)
        h = p.tile.hex
        for e in p.exits:
            if e == skip:
                continue
            nb = h.neighbors.get(e)
            if nb is None:
                continue
            edge_id = (coord, e, p.edge_lanes[e][1])
            counter[edge_id] += 1
            ie = (e + 3) % 6
            lane = p.edge_lanes[e]
            further = converging or len(p.tile.paths_at_edge.get(e, ())) > 1
            for q in nb.tile.paths_at_edge.get(ie, ()):
                if _lane_match(lane, q.edge_lanes[ie]) and _tracks_match(p, q):
                    self.path(q, ie, None, visited_paths, counter, further, from_node, visited, converging_path)
            counter[edge_id] -= 1
        if converging:
            visited_paths.discard(p)
        if j is not None:
            counter[j] -= 1
