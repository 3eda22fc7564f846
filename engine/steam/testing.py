"""Helpers for Steam tests: small boards built in code and shortcuts into a phase.

Not used by the engine at run time.
"""

from __future__ import annotations

from engine.steam.board import Board, parse_board
from engine.steam.game import Game, Settings
from engine.steam.hexes import Hex
from engine.steam.track import Seg, Tile


def make_board(special: dict[Hex, dict], q_range=(-3, 8), r_range=(-5, 8), name: str = "test",
               steam: dict | None = None) -> Board:
    hexes = []
    for q in range(q_range[0], q_range[1] + 1):
        for r in range(r_range[0], r_range[1] + 1):
            rec = {"q": q, "r": r, "terrain": "plain", "town": None, "city": None, "blocked_edges": []}
            rec.update(special.get((q, r), {}))
            hexes.append(rec)
    meta = {"id": name, "name": name, "players": {"min": 3, "max": 6}}
    if steam:
        meta["steam"] = steam
    return parse_board({"meta": meta, "hexes": hexes}, source=name)


def city(name: str, color: str, cubes: int = 2) -> dict:
    return {"city": {"name": name, "color": color, "start_cubes": cubes, "growth": None, "tags": []}}


def ne_board() -> Board:
    """The corner of the NE USA map used by the rulebook's building examples (positions are ours)."""
    return make_board({
        (0, 0): city("Albany", "blue"),
        (0, 1): {"terrain": "river"},
        (0, 2): {"terrain": "river", "town": "Poughkeepsie"},
        (0, 3): {"terrain": "river"},
        (0, 4): city("New York", "yellow"),
        (-1, 1): {"terrain": "mountain"},
        (2, 0): {"terrain": "mountain"},
        (3, -1): city("Hartford", "purple"),
        (4, 0): {"town": "New Haven"},
        (4, -1): {"terrain": "river"},
        (5, -2): {"terrain": "river"},
        (6, -3): city("Boston", "red"),
        (7, 5): {"terrain": "water"},
        (6, 6): {"town": "Lakeside"},
    }, name="ne_example")


def line_board(colors: list[str], cubes: int = 0) -> Board:
    """Cities down column 0 at r = 0, 2, 4, ... (colours given); plain hexes between them."""
    special = {(0, 2 * i): city(f"C{i}", c, cubes) for i, c in enumerate(colors)}
    return make_board(special, q_range=(-2, 2), r_range=(-1, 2 * len(colors)), name="line")


def new_game(board: Board, players=3, mode: str = "basic", seed: int = 1, turn_order: str = "draw") -> Game:
    if isinstance(players, int):
        players = [f"P{i + 1}" for i in range(players)]
    g = Game(Settings(map="test", mode=mode, players=players, seed=seed, turn_order=turn_order), board=board)
    return g


def ne_game(cash: int | None = None, players: int = 3) -> Game:
    """A game on the NE example board, seats in turn order 0, 1, 2, ... (every player's cash set if given)."""
    g = new_game(ne_board(), players)
    g.s.order = list(range(players))
    if cash is not None:
        for p in g.s.players:
            p.cash = cash
    return g


def build_game(player: int = 0, tiles: dict[int, int] | None = None, cash: int = 20) -> Game:
    """An NE example game in `player`'s build turn, everybody holding `cash`."""
    g = ne_game(cash)
    start_build(g, player, tiles)
    return g


def delivery_game(colors: list[str], owners: list[int | None], loco: int = 3, cubes=("red",),
                  players: int = 3) -> tuple[Game, list[str]]:
    """A line board whose consecutive cities are joined by links of `owners`, `cubes` on the first city,
    seat 0 with locomotive `loco` and the move-goods phase begun.  Returns the game and the link ids."""
    g = new_game(line_board(colors), players)
    g.s.order = list(range(players))
    ids = line_links(g, owners)
    set_cubes(g, (0, 0), list(cubes))
    g.s.players[0].loco = loco
    start_move(g, list(range(players)))
    return g, ids


def play_selfplay(settings: Settings, steps: int, seed: int) -> Game:
    """A game with up to `steps` actions of the self-play agent (seeded)."""
    import random

    from engine.steam.selfplay import choose

    g = Game(settings)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.finished:
            break
        g.apply(choose(g, rng))
    return g


def put(g: Game, h: Hex, face: str, rot: int, owner: int | None, rnd: int | None = None) -> None:
    """Place a tile directly (test setup), every path owned by `owner`."""
    from engine.steam import tiles as T

    rnd = g.s.round if rnd is None else rnd
    segs = tuple(Seg(p, owner, rnd) for p in T.FACES[face].rotated(rot))
    g.s.track[h] = Tile(face, rot, segs)
    g.s.used_faces[face] = g.s.used_faces.get(face, 0) + 1
    g._touch()


def line_links(g: Game, owners: list[int | None]) -> list[str]:
    """Straight tiles between consecutive cities of a line board; returns the link ids in order."""
    for i, o in enumerate(owners):
        put(g, (0, 2 * i + 1), "21", 0, o)
    net = g.network()
    return [net.link_of((0, 2 * i + 1), (0, 3)).id for i in range(len(owners))]


def set_cubes(g: Game, h: Hex, cubes: list[str]) -> None:
    """Put these cubes on a city, taking them from (or returning the old ones to) the bag."""
    s = g.s
    for c in s.city_cubes.get(h, ()):
        s.bag[c] += 1
    for c in cubes:
        s.bag[c] -= 1
    s.city_cubes[h] = tuple(sorted(cubes))


def start_build(g: Game, player: int, tiles: dict[int, int] | None = None) -> None:
    s = g.s
    s.phase = "build"
    s.tiles = dict(tiles or {})
    for t, q in s.tiles.items():
        s.players[q].tile = t
    s.build_queue = [player] + [q for q in s.order if q != player]
    s.build_idx = 0
    s.placements = 0


def start_move(g: Game, order: list[int] | None = None, cycle: int = 1) -> None:
    s = g.s
    s.phase = "move"
    s.move_queue = list(order if order is not None else s.order)
    s.move_idx = 0
    s.cycle = cycle
    s.loco_upgraded = set()


def fingerprint(g: Game) -> str:
    import json

    return json.dumps({"view": g.view(), "rng": g.s.rng.getstate()[1][:5], "n": len(g.actions)},
                      sort_keys=True, default=str)
