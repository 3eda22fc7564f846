"""Steam maps: loading and validating the JSON map format (see docs/steam-rules.md, "Map format")."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from engine.steam.hexes import Hex, neighbor, opposite

MAPS_DIR = Path(__file__).parent / "maps" / "maps"

TERRAINS = {"plain", "river", "mountain", "hill", "water"}
CITY_COLORS = ("red", "blue", "yellow", "purple")
CUBE_COLORS = ("red", "blue", "yellow", "purple", "gray")
BAG = {"red": 20, "blue": 20, "yellow": 20, "purple": 20, "gray": 16}
HILLS = ("mountain", "hill")  # the rulebook: "горы и холмы ... одинаковы и называются просто холмами"
HILL_SURCHARGE, RIVER_SURCHARGE = 2, 1  # "+1 $, если на гексе река. +2 $, если на гексе холмы."


class MapError(ValueError):
    """The map file breaks the documented format."""


@dataclass(frozen=True)
class City:
    name: str
    color: str
    start_cubes: int


@dataclass(frozen=True)
class HexInfo:
    terrain: str
    town: str | None
    city: City | None
    blocked: frozenset[int]
    river: bool = False  # terrain "river", or a hill (or plain) hex whose record says "river": true

    @property
    def surcharge(self) -> int:
        """What the terrain adds to a new tile's cost: hills and a river each, both on a hill with a river."""
        return (HILL_SURCHARGE if self.terrain in HILLS else 0) + (RIVER_SURCHARGE if self.river else 0)


@dataclass
class Board:
    id: str
    name: str
    hexes: dict[Hex, HexInfo]
    min_players: int
    max_players: int
    reserve_hexes: int
    three_player_city_reduction: bool
    credits: str = ""
    _nbr: dict[tuple[Hex, int], Hex | None] = field(default_factory=dict, repr=False)
    _cities: dict = field(default_factory=dict, repr=False)
    _towns: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._cities = {h: i.city for h, i in self.hexes.items() if i.city}
        self._towns = {h: i.town for h, i in self.hexes.items() if i.town}
        for h in self.hexes:
            for d in range(6):
                n = neighbor(h, d)
                self._nbr[(h, d)] = n if n in self.hexes else None

    def nbr(self, h: Hex, d: int) -> Hex | None:
        return self._nbr[(h, d)]

    @property
    def cities(self) -> dict[Hex, City]:
        return self._cities

    @property
    def towns(self) -> dict[Hex, str]:
        return self._towns

    def edge_open(self, h: Hex, d: int) -> bool:
        """May track leave hex h across edge d (not off the board, into water, or over a black line)?"""
        if d in self.hexes[h].blocked:
            return False
        n = self._nbr[(h, d)]
        return n is not None and self.hexes[n].terrain != "water"

    def city_cubes(self, players: int) -> int:
        cut = 1 if (players == 3 and self.three_player_city_reduction) else 0
        return sum(max(0, c.start_cubes - cut) for c in self.cities.values())


def map_names() -> list[str]:
    return sorted(p.stem for p in MAPS_DIR.glob("*.json"))


def map_name(name: str) -> str:
    """The shipped map a user means: case, spaces, hyphens and underscores do not matter
    ("Rust Belt", "rust-belt", "rustbelt" -> "rust_belt").  Unknown names raise MapError listing the maps."""
    def squash(x: str) -> str:
        return "".join(ch for ch in x.lower() if ch not in " -_")

    names = map_names()
    if name in names:
        return name
    for known in names:
        if squash(known) == squash(name):
            return known
    raise MapError(f"unknown Steam map {name!r}; shipped maps: {', '.join(names)}")


def load_board(name: str) -> Board:
    path = MAPS_DIR / f"{map_name(name)}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise MapError(f"{path.name}: not valid JSON: {e}") from e
    return parse_board(data, source=path.name)


def _fail(source: str, msg: str) -> MapError:
    return MapError(f"{source}: {msg}")


def parse_board(data: dict, source: str = "map") -> Board:
    """Build a Board from the JSON object, checking every documented constraint."""
    if not isinstance(data, dict) or "hexes" not in data or "meta" not in data:
        raise _fail(source, 'expected an object {"meta": {...}, "hexes": [...]}')
    meta = data["meta"]
    if not isinstance(meta, dict):
        raise _fail(source, "meta must be an object")
    if not isinstance(data["hexes"], list) or not data["hexes"]:
        raise _fail(source, "hexes must be a non-empty list")
    hexes: dict[Hex, HexInfo] = {}
    for i, rec in enumerate(data["hexes"]):
        where = f"hexes[{i}]"
        if not isinstance(rec, dict):
            raise _fail(source, f"{where} must be an object")
        try:
            h = (int(rec["q"]), int(rec["r"]))
        except (KeyError, TypeError, ValueError) as e:
            raise _fail(source, f"{where} needs integer q and r") from e
        where = f"hex ({h[0]}, {h[1]})"
        if h in hexes:
            raise _fail(source, f"{where} appears twice")
        terrain = rec.get("terrain")
        if terrain not in TERRAINS:
            raise _fail(source, f"{where}: terrain {terrain!r} is not one of {sorted(TERRAINS)}")
        town = rec.get("town")
        if town is not None and (not isinstance(town, str) or not town):
            raise _fail(source, f"{where}: town must be a name or null")
        city = None
        c = rec.get("city")
        if c is not None:
            if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                raise _fail(source, f"{where}: city must be an object with a name")
            if c.get("color") not in CITY_COLORS:
                raise _fail(source, f"{where}: city {c.get('name')!r} colour {c.get('color')!r} "
                                    f"is not one of {list(CITY_COLORS)} (no starting city is gray)")
            n = c.get("start_cubes")
            if not isinstance(n, int) or n < 0:
                raise _fail(source, f"{where}: city {c['name']!r} start_cubes must be an integer >= 0")
            if town is not None:
                raise _fail(source, f"{where}: a hex cannot be both a town and a city")
            if terrain == "water":
                raise _fail(source, f"{where}: a city cannot be on water")
            city = City(c["name"], c["color"], n)
        if town is not None and terrain == "water":
            raise _fail(source, f"{where}: a town cannot be on water")
        blocked = rec.get("blocked_edges", [])
        if not isinstance(blocked, list) or any(not isinstance(e, int) or not 0 <= e <= 5 for e in blocked):
            raise _fail(source, f"{where}: blocked_edges must be a list of edge numbers 0-5")
        river = rec.get("river", terrain == "river")
        if not isinstance(river, bool):
            raise _fail(source, f"{where}: river must be true or false, not {river!r}")
        if river and terrain == "water":
            raise _fail(source, f"{where}: a water hex cannot also have a river")
        if terrain == "river" and not river:
            raise _fail(source, f"{where}: terrain \"river\" has a river; \"river\": false contradicts it")
        hexes[h] = HexInfo(terrain, town, city, frozenset(blocked), river)
    for h, info in hexes.items():
        for d in info.blocked:
            n = neighbor(h, d)
            if n in hexes and opposite(d) not in hexes[n].blocked:
                raise _fail(source, f"hex {h}: edge {d} is blocked but its neighbour {n} does not "
                                    f"block edge {opposite(d)}")
    if not any(i.city for i in hexes.values()):
        raise _fail(source, "the map has no city")
    players = meta.get("players", {})
    steam = meta.get("steam", {}) or {}
    lo = int(steam.get("min_players", players.get("min", 3)))
    hi = int(steam.get("max_players", players.get("max", 6)))
    if not 3 <= lo <= hi <= 6:
        raise _fail(source, f"player range {lo}-{hi} must lie within Steam's 3-6")
    city_cubes = sum(i.city.start_cubes for i in hexes.values() if i.city)
    default_reserve = max(0, min(10, (sum(BAG.values()) - city_cubes) // 3))
    reserve = steam.get("reserve_hexes", default_reserve)
    if not isinstance(reserve, int) or reserve < 0:
        raise _fail(source, "meta.steam.reserve_hexes must be an integer >= 0")
    if city_cubes + 3 * reserve > sum(BAG.values()):
        raise _fail(source, f"setup needs {city_cubes} city cubes + 3 x {reserve} reserve cubes, "
                            f"more than the {sum(BAG.values())} cubes in the game")
    credits = meta.get("credits", "")
    return Board(
        id=str(meta.get("id", source)), name=str(meta.get("name", source)), hexes=hexes,
        min_players=lo, max_players=hi, reserve_hexes=reserve,
        three_player_city_reduction=bool(steam.get("three_player_city_reduction", False)),
        credits=credits if isinstance(credits, str) else json.dumps(credits),
    )
