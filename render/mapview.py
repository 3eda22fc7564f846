"""Map views as plain data: the shape the engine's HexMap.view() returns, built without any engine.

View: {"title", "layout", "hexes": {coord: {"tile", "tile_id", "rotation", "color",
"cities": [{"revenue", "slots", "tokens": [sym|None per slot], "reserved": [sym|None per slot]}],
(a hex-level reservation, e.g. ERIE on 1830's E11, is reserved in a free slot of every city of the hex)
"blocked_by": [private syms]}}}

`starting_view(title)` reads map.json alone (`title` may name a map changed by optional rules: see map_data); `view_from_trace(title, lines)` replays the `tile` and
`token` fields of 18xx.games trace lines (docs/formats/traces.md) on top of it (for tests, the CLI
fallback and development; the bot uses the engine's view).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache

from engine.core import data

from .tiledef import TileDef, parse


def map_data(map_id: str) -> dict:
    """The data a map is drawn from. `map_id`: the title ("1830"), or the title joined by "+" to the optional
    rules that change its map ("18MEX+baja_variant"), as a view names it in "map"."""
    title, *rules = map_id.split("+")
    return data.load(title, tuple(rules))


def map_of(view: dict) -> str:
    """The map a view shows (its "map", else its title's map)."""
    return view.get("map") or view["title"]


@cache
def _title(title: str) -> tuple[dict, dict, dict]:
    d = map_data(title)
    hexes = {h["coord"]: h for h in d["map"]["hexes"]}
    tiles = {t["name"]: t for t in d["tiles"]}
    return d, hexes, tiles


def printed_code(hex_data: dict) -> str:
    return hex_data["tile_code"] if "tile_code" in hex_data else hex_data["code"]


def tile_def(title: str, coord: str, tile_name: str) -> tuple[TileDef, bool]:
    """Definition of the tile on `coord` (printed or laid) and whether it is the printed one."""
    _, hexes, tiles = _title(title)
    h = hexes[coord]
    if tile_name == h["tile"] or tile_name not in tiles:
        return parse(printed_code(h)), True
    return parse(tiles[tile_name]["code"]), False


def tile_color(title: str, tile_name: str) -> str | None:
    t = _title(title)[2].get(tile_name)
    return t["color"] if t else None


def _empty_cities(tdef: TileDef) -> list[dict]:
    return [{"revenue": c.revenue, "slots": c.slots, "tokens": [None] * c.slots, "reserved": [None] * c.slots}
            for c in tdef.cities()]


def _place(cities: list[dict], key: str, sym: str, city: int | None = None, slot: int | None = None) -> bool:
    order = [city] if city is not None and city < len(cities) else range(len(cities))
    for ci in order:
        slots = cities[ci][key]
        if slot is not None and slot < len(slots) and slots[slot] is None:
            slots[slot] = sym
            return True
        for si, v in enumerate(slots):
            if v is None and (key == "reserved" or cities[ci]["reserved"][si] in (None, sym)):
                slots[si] = sym
                return True
    return False


def starting_view(title: str) -> dict:
    d, hexes, _ = _title(title)
    groups: dict[tuple[str, str], int] = {}
    out: dict[str, dict] = {}
    for coord, h in hexes.items():
        tdef = parse(printed_code(h))
        n = groups.get((h["color"], h["code"]), 0)
        groups[(h["color"], h["code"])] = n + 1
        cities = _empty_cities(tdef)
        for ci, c in enumerate(h.get("cities", [])):
            for sym in c.get("reservations", []):
                _place(cities, "reserved", sym, ci)
            for sym in c.get("tokens", []):
                _place(cities, "tokens", sym, ci)
        for sym in h.get("reservations", []):  # hex-level: any city may take it (as HexMap.view shows it)
            for c in cities:
                _place([c], "reserved", sym)
        out[coord] = {"tile": h["tile"], "tile_id": f"{h['tile']}-{n}", "rotation": 0, "color": h["color"],
                      "cities": cities, "blocked_by": list(h.get("blockers", []))}
    # home reservations not written on the city (corporations' coordinates)
    for corp in d["corporations"]:
        homes = corp.get("coordinates")
        for coord in [homes] if isinstance(homes, str) else homes or []:
            hv = out.get(coord)
            if hv and hv["cities"] and not any(corp["sym"] in c["reserved"] for c in hv["cities"]):
                _place(hv["cities"], "reserved", corp["sym"], corp.get("city"))
    view = {"title": title.split("+")[0], "layout": d["map"]["layout"], "hexes": out}
    if "+" in title:
        view["map"] = title
    return view


def _city_exits(tdef: TileDef, rotation: int) -> list[set[int]]:
    """Map edges reached by each city of a tile (through paths straight to it)."""
    city_nodes = [i for i, n in enumerate(tdef.nodes) if n.kind == "city"]
    exits: list[set[int]] = [set() for _ in city_nodes]
    for p in tdef.paths:
        for end, other in ((p.a, p.b), (p.b, p.a)):
            if end[0] == "node" and other[0] == "edge" and end[1] in city_nodes:
                exits[city_nodes.index(end[1])].add((other[1] + rotation) % 6)
    return exits


def lay_tile(view: dict, coord: str, tile_name: str, rotation: int, tile_id: str | None = None) -> None:
    """Replace the tile of a hex in `view`, moving tokens/reservations with their cities."""
    title = map_of(view)
    hv = view["hexes"][coord]
    old_def, _ = tile_def(title, coord, hv["tile"])
    new_def, _ = tile_def(title, coord, tile_name)
    old_exits = _city_exits(old_def, hv.get("rotation", 0))
    new_exits = _city_exits(new_def, rotation)
    new_cities = _empty_cities(new_def)
    used: set[int] = set()
    for oi, old in enumerate(hv["cities"]):
        target = None
        for ni, ex in enumerate(new_exits):
            if ni not in used and old_exits[oi] and old_exits[oi] <= ex:
                target = ni
                break
        if target is None:
            free = [ni for ni in range(len(new_cities)) if ni not in used]
            target = oi if oi in free else (free[0] if free else None)
        if target is None:
            continue
        used.add(target)
        for key in ("tokens", "reserved"):
            for sym in old[key]:
                if sym:
                    _place(new_cities, key, sym, target)
    hv.update(tile=tile_name, tile_id=tile_id or f"{tile_name}-?", rotation=rotation,
              color=tile_color(title, tile_name) or hv["color"], cities=new_cities)


def view_from_trace(title: str, trace_lines: Iterable[dict | str]) -> dict:
    """Map view after the given trace lines (dicts or JSON strings), applied in order."""
    view = starting_view(title)
    placed: dict[str, list[str]] = {}
    last = None
    for line in trace_lines:
        if isinstance(line, str):
            if not line.strip():
                continue
            line = json.loads(line)
        last = line
        if tile := line.get("tile"):
            lay_tile(view, tile["hex"], tile["name"], tile["rotation"], tile.get("tile"))
        if token := line.get("token"):
            hv = view["hexes"][token["hex"]]
            tdef, _ = tile_def(title, token["hex"], hv["tile"])
            part = int(token["city"].rsplit("-", 1)[1])
            cities = [n.part_index for n in tdef.cities()]
            ci = cities.index(part) if part in cities else 0
            if line.get("entity"):
                _place(hv["cities"], "tokens", line["entity"], ci, token.get("slot"))
        now = {sym: corp.get("tokens", []) for sym, corp in
               {**line.get("corporations", {}), **line.get("minors", {})}.items()}
        if now != placed:
            _sync_tokens(view, placed, now)
            placed = now
    if last is not None:
        companies = last.get("companies", {})
        for hv in view["hexes"].values():
            hv["blocked_by"] = [s for s in hv["blocked_by"]
                                if s in companies and not isinstance(companies[s], str)]
    return view


def _sync_tokens(view: dict, before: dict[str, list[str]], now: dict[str, list[str]]) -> None:
    """Place tokens that appeared without a `token` field (home tokens) and drop removed ones."""
    for sym in set(before) | set(now):
        old, new = set(before.get(sym, [])), set(now.get(sym, []))
        for coord in old - new:
            for c in view["hexes"][coord]["cities"]:
                c["tokens"] = [None if s == sym else s for s in c["tokens"]]
        for coord in new:
            cities = view["hexes"][coord]["cities"]
            if any(sym in c["tokens"] for c in cities):
                continue
            ci = next((i for i, c in enumerate(cities) if sym in c["reserved"]), None)
            slot = cities[ci]["reserved"].index(sym) if ci is not None else None
            _place(cities, "tokens", sym, ci, slot)
