"""The Steam rules engine: settings -> game; apply validated actions; deterministic replay.

Rule references in messages point at the sections of the rules digest (docs/steam-rules.md lists
every choice made where the rulebook is silent).
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass, field
from math import ceil
from typing import Literal

from pydantic import BaseModel, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from engine.core.actions import brief
from engine.core.errors import GameError, Listing, Phrase, first_invalid
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
    from_dict,
    to_dict,
)
from engine.steam.board import BAG, CUBE_COLORS, Board, MapError, load_board, map_names
from engine.steam.hexes import Hex, hex_key, neighbor
from engine.steam.track import Link, Network, Seg, Tile
from i18n import N_, _, ngettext, pgettext

TILE_NAMES = {1: N_("First Player"), 2: N_("First Move"), 3: N_("Engineer"), 4: N_("First Build"),
              5: N_("City Growth"), 6: N_("Locomotive"), 7: N_("Urbanization")}  # shown with i18n's _()
NEW_CITY_TILES = {"red": 1, "blue": 1, "yellow": 1, "purple": 1, "gray": 4}
ROUNDS = {3: 10, 4: 8, 5: 7, 6: 7}
INCOME_MIN = -10
LOCO_MAX = 6
CITY_STUB = "city"  # pseudo tile on a New City hex holding the direct links it kept from its town tile


class PlayerSpec(BaseModel):
    id: int
    name: str


class Settings(BaseModel):
    """`players`: [{"id", "name"}] as in an 18xx.games log; names alone (ids 1, 2, ...) or a count (P1, P2,
    ...) are accepted too."""
    map: str = "rust_belt"
    mode: Literal["basic", "standard"] = "basic"
    players: list[PlayerSpec]
    seed: int = 0
    turn_order: Literal["auction", "draw"] = "auction"  # basic game only: setup auction or first-game draw

    @field_validator("players", mode="before")
    @classmethod
    def _players(cls, v):
        if isinstance(v, int):
            v = [f"P{i + 1}" for i in range(v)]
        if isinstance(v, list | tuple):
            return [{"id": i + 1, "name": p} if isinstance(p, str) else p for i, p in enumerate(v)]
        return v

    @field_validator("players")
    @classmethod
    def _unique_ids(cls, players):
        if len({p.id for p in players}) != len(players):
            raise PydanticCustomError("unique_ids", "player ids must be unique")
        return players

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]


@dataclass
class Player:
    name: str
    id: int = 0
    cash: int = 0
    income: int = 0
    vp: int = 0
    loco: int = 1
    bankrupt: bool = False
    tile: int | None = None  # action tile taken this round
    last_tile: int | None = None
    loans: int = 0  # $5 loans taken in all ("shares issued")


@dataclass
class State:
    players: list[Player]
    rng: random.Random
    round: int = 1
    phase: str = "setup"
    order: list[int] = field(default_factory=list)
    tiles: dict[int, int] = field(default_factory=dict)  # tile -> player, this round
    passed_tiles: set[int] = field(default_factory=set)  # basic: 5/7 taken with a pass
    pending: dict[int, str] = field(default_factory=dict)  # player -> "urbanize"/"grow" to carry out
    pending_must: bool = False  # basic: committed and paid, so it must be carried out
    select_idx: int = 0
    capital_idx: int = 0
    build_queue: list[int] = field(default_factory=list)
    build_idx: int = 0
    placements: int = 0
    move_queue: list[int] = field(default_factory=list)
    move_idx: int = 0
    cycle: int = 1
    loco_upgraded: set[int] = field(default_factory=set)
    score_queue: list[tuple[int, int]] = field(default_factory=list)
    auction: dict | None = None
    free_pass: int | None = None
    city_cubes: dict[Hex, tuple[str, ...]] = field(default_factory=dict)
    reserve: list[tuple[str, ...]] = field(default_factory=list)
    bag: dict[str, int] = field(default_factory=dict)
    track: dict[Hex, Tile] = field(default_factory=dict)
    new_cities: dict[Hex, str] = field(default_factory=dict)
    grown: set[Hex] = field(default_factory=set)
    new_city_supply: dict[str, int] = field(default_factory=dict)
    used_faces: dict[str, int] = field(default_factory=dict)
    delivered: int = 0
    version: int = 0
    finished: bool = False
    result: dict | None = None
    events: list[str] = field(default_factory=list)

    def clone(self) -> State:
        c = copy.copy(self)
        c.players = [copy.copy(p) for p in self.players]
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        c.rng = rng
        for name in ("order", "build_queue", "move_queue", "score_queue", "reserve"):
            setattr(c, name, list(getattr(self, name)))
        for name in ("tiles", "pending", "city_cubes", "bag", "track", "new_cities", "new_city_supply",
                     "used_faces"):
            setattr(c, name, dict(getattr(self, name)))
        for name in ("passed_tiles", "loco_upgraded", "grown"):
            setattr(c, name, set(getattr(self, name)))
        c.auction = copy.deepcopy(self.auction)
        c.result = copy.deepcopy(self.result)
        c.events = list(self.events)
        return c


_VERSION = [0]


def _next_version() -> int:
    _VERSION[0] += 1
    return _VERSION[0]


class Game:
    def __init__(self, settings: Settings | dict, board: Board | None = None):
        self.settings = settings if isinstance(settings, Settings) else Settings.model_validate(settings)
        self.board = board or load_board(self.settings.map)
        n = len(self.settings.players)
        if not self.board.min_players <= n <= self.board.max_players:
            raise GameError("map {board} is for {min_players}-{max_players} players, not {n}",
                            board=self.board.name, min_players=self.board.min_players,
                            max_players=self.board.max_players, n=n)
        self.actions: list[dict] = []
        self.game_id = None
        self._net_cache: tuple[int, Network] | None = None
        self._cities_cache = None
        self._avail_cache = None
        self.s = self._setup()

    # ------------------------------------------------------------------ setup
    @property
    def mode(self) -> str:
        return self.settings.mode

    @property
    def rounds(self) -> int:
        return ROUNDS[len(self.settings.players)]

    def _setup(self) -> State:
        n = len(self.settings.players)
        s = State(players=[Player(p.name, p.id) for p in self.settings.players], rng=random.Random(self.settings.seed))
        s.bag = dict(BAG)
        s.new_city_supply = dict(NEW_CITY_TILES)
        s.version = _next_version()
        cut = 1 if (n == 3 and self.board.three_player_city_reduction) else 0
        for h, city in sorted(self.board.cities.items()):
            s.city_cubes[h] = tuple(sorted(self._draw(s) for _ in range(max(0, city.start_cubes - cut))))
        per_reserve = 2 if n == 3 else 3
        s.reserve = [tuple(sorted(self._draw(s) for _ in range(per_reserve))) for _ in range(self.board.reserve_hexes)]
        if self.mode == "standard":
            draw = s.rng.sample(range(1, 8), n)
            s.order = sorted(range(n), key=lambda p: draw[p])
            s.events.append("initial order by drawn tiles " + ", ".join(f"{s.players[p].name}={draw[p]}" for p in range(n)))
            s.phase = "capital"
        elif self.settings.turn_order == "draw":
            draw = s.rng.sample(range(1, 8), n)
            first = min(range(n), key=lambda p: draw[p])
            s.order = [(first + i) % n for i in range(n)]
            for pos, p in enumerate(s.order):
                s.players[p].cash = pos
            s.phase = "select"
        else:
            start = s.rng.randrange(n)
            s.auction = {"kind": "setup", "in": list(range(n)), "high": None, "high_player": None,
                         "turn": start, "placed": []}
            s.phase = "setup_auction"
        return s

    @staticmethod
    def _draw(s: State) -> str:
        total = sum(s.bag.values())
        k = s.rng.randrange(total)
        for c in CUBE_COLORS:
            if k < s.bag[c]:
                s.bag[c] -= 1
                return c
            k -= s.bag[c]
        raise AssertionError("bag accounting")

    # ------------------------------------------------------------------ the interface a UI needs
    # Outward everything is by player id and plain dicts (actions in their log form, see actions.py);
    # seats (indices into Settings.players) stay inside the engine.
    TITLE = "steam"
    PICTURES = ("map", "players")

    @property
    def finished(self) -> bool:
        return self.s.finished

    @property
    def players(self) -> list[Player]:
        return self.s.players

    @property
    def end_reason(self) -> str | None:
        res = self.s.result
        if res is None:
            return None
        return "rounds" if res["winner"] is not None else "bankruptcy"

    def seat_of(self, player_id) -> int:
        for q, p in enumerate(self.s.players):
            if p.id == player_id or (isinstance(player_id, str) and str(p.id) == player_id):
                return q
        raise GameError("there is no player {player_id} in this game (players: {choices})",
                        player_id=repr(player_id),
                        choices=', '.join(f'{p.id} {p.name}' for p in self.s.players))

    def pid(self, seat: int | None):
        """The player id of a seat (None stays None)."""
        return None if seat is None else self.s.players[seat].id

    def active_seat(self) -> int | None:
        s = self.s
        if s.finished:
            return None
        if s.score_queue:
            return s.score_queue[0][0]
        if s.phase in ("setup_auction", "auction"):
            return s.auction["turn"]
        if s.phase == "capital":
            return s.order[s.capital_idx]
        if s.phase == "select":
            return s.order[s.select_idx]
        if s.phase == "build":
            return s.build_queue[s.build_idx]
        if s.phase == "move":
            return s.move_queue[s.move_idx]
        return None

    def active_players(self) -> list[int]:
        """The ids of the players who must act now (one at a time in Steam; empty when the game is over)."""
        seat = self.active_seat()
        return [] if seat is None else [self.pid(seat)]

    def acting_entity(self) -> dict | None:
        seat = self.active_seat()
        return None if seat is None else {"entity": self.pid(seat), "entity_type": "player"}

    def apply(self, action) -> dict:
        """Validate and apply one action (its log form, or an engine model); returns the stored log form
        with its id.  On any error nothing changes; malformed or illegal actions raise GameError saying why."""
        s = self.s
        if s.finished:
            raise GameError("the game is over")
        if isinstance(action, BaseModel):
            a, action_id = action, None
            if not 0 <= a.player < len(s.players):
                raise GameError("there is no player {player}", player=a.player)
        else:
            a = from_dict(action, self.seat_of)
            action_id = action.get("id")
        last_id = self.actions[-1]["id"] if self.actions else 0
        if action_id is None:
            action_id = last_id + 1
        elif action_id <= last_id:
            raise GameError("action id {action_id} is not after {last_id}", action_id=action_id,
                            last_id=last_id)
        active = self.active_seat()
        if a.player != active:
            raise GameError("it is {name}'s turn, not {name2}'s", name=s.players[active].name,
                            name2=s.players[a.player].name)
        stored = to_dict(a, self.pid(a.player), action_id)
        backup = s.clone()
        try:
            s.events = []
            self._dispatch(a)
            self._advance()
        except BaseException:
            self.s = backup
            self._net_cache = None
            raise
        self.actions.append(stored)
        return dict(stored)

    def last_events(self) -> list[str]:
        """What the last action did besides itself (loans, auction results, bankruptcies...), in words."""
        return list(self.s.events)

    def undo(self) -> None:
        if not self.actions:
            raise GameError("nothing to undo")
        fresh = Game.replay(self.settings, self.actions[:-1], self.board)
        self.s, self.actions, self._net_cache = fresh.s, fresh.actions, None

    @classmethod
    def replay(cls, settings, actions, board: Board | None = None) -> Game:
        g = cls(settings, board)
        for a in actions:
            g.apply(a)
        return g

    def action_log(self) -> list[dict]:
        return [dict(a) for a in self.actions]

    def to_18xx(self) -> dict:
        """The game as a log laid out like an 18xx.games one: title "steam", players with ids, settings
        (map, mode, seed, turn order), the actions, and the result once finished."""
        st = self.settings
        return {"id": self.game_id, "title": self.TITLE,
                "players": [p.model_dump() for p in st.players],
                "settings": {"map": st.map, "mode": st.mode, "seed": st.seed, "turn_order": st.turn_order},
                "actions": self.action_log(), "status": "finished" if self.finished else "active",
                "result": self.result() if self.finished else {}, "game_end_reason": self.end_reason}

    @classmethod
    def from_18xx(cls, log: dict, upto: int | None = None, board: Board | None = None) -> Game:
        """A game from its log (to_18xx's layout), replayed up to action id `upto` if given."""
        if not isinstance(log, dict) or log.get("title", "steam") != "steam":
            raise GameError("not a Steam game log")
        cfg = dict(log.get("settings") or {})
        try:
            settings = Settings(map=cfg.get("map", "rust_belt"), mode=cfg.get("mode", "basic"),
                                players=log.get("players") or cfg.get("players"), seed=cfg.get("seed", 0),
                                turn_order=cfg.get("turn_order", "auction"))
        except ValidationError as e:
            where, reason, given = first_invalid(e.errors())
            if not given:
                raise GameError("the log's settings are not valid: {field} {reason}", field=where or "settings",
                                reason=reason) from None
            raise GameError("the log's settings are not valid: {field} {reason}, not {value}",
                            field=where or "settings", reason=reason, value=brief(repr(e.errors()[0]["input"]))) from None
        if board is None:
            try:
                board = load_board(settings.map)
            except MapError:
                raise GameError("the log's settings are not valid: {field} {reason}, not {value}", field="map",
                                reason=Phrase("must be {expected}", expected=" or ".join(map(repr, map_names()))),
                                value=brief(repr(settings.map))) from None
        g = cls(settings, board)
        g.game_id = log.get("id")
        for action in log.get("actions", []):
            aid = action.get("id") if isinstance(action, dict) else None
            if g.finished or (upto is not None and aid is not None and aid > upto):
                break
            try:
                g.apply(action)
            except GameError as e:
                kind = action.get("type") if isinstance(action, dict) else None
                raise GameError("action {aid} ({kind}): {reason}", aid=aid, kind=kind, reason=e) from None
        return g

    def result(self) -> dict[str, int] | None:
        """Final VP by player id, in ranking order (ties broken by the last round's action tile, bankrupt
        players last with the VP they left with); None before the end.  `scoring()` has the details."""
        if self.s.result is None:
            return None
        return {str(self.pid(r["player"])): r["vp"] for r in self.s.result["ranking"]}

    def scoring(self) -> dict | None:
        """Final scoring in detail: the winner's id, rounds played, and per player (by id) rank, VP before,
        income and its VP, complete links, total VP, last action tile, bankrupt."""
        res = self.s.result
        if res is None:
            return None
        rows = [{"id": self.pid(r["player"]), **{k: v for k, v in r.items() if k != "player"}}
                for r in res["ranking"]]
        return {"winner": self.pid(res["winner"]), "rounds": res["rounds"], "ranking": rows}

    # ------------------------------------------------------------------ network helpers
    def all_cities(self) -> dict[Hex, str]:
        """Every city on the board (starting cities and New City tiles) -> colour.  Do not mutate."""
        key = (id(self.s), self.s.version)
        if self._cities_cache is not None and self._cities_cache[0] == key:
            return self._cities_cache[1]
        out = {h: c.color for h, c in self.board.cities.items()}
        out.update(self.s.new_cities)
        self._cities_cache = (key, out)
        return out

    def _available(self, face: str) -> bool:
        """Is a tile with this face left in the supply (cached per state version)?"""
        key = (id(self.s), self.s.version)
        if self._avail_cache is None or self._avail_cache[0] != key:
            self._avail_cache = (key, {})
        cache = self._avail_cache[1]
        if face not in cache:
            cache[face] = T.can_add(self.s.used_faces, face)
        return cache[face]

    def network(self) -> Network:
        if self._net_cache and self._net_cache[0] == self.s.version:
            return self._net_cache[1]
        net = Network(self.board, self.s.track, set(self.all_cities()))
        self._net_cache = (self.s.version, net)
        return net

    def _touch(self) -> None:
        self.s.version = _next_version()

    def _eligible(self, net: Network, link: Link, player: int) -> bool:
        """May `player` take over / redirect this neutral incomplete link (7.2.8)?"""
        if link.owner is not None or link.complete:
            return False
        cities = self.all_cities()
        for node in link.nodes:
            if node in cities:
                return True
            for i in net.node_links.get(node, []):
                other = net.links[i]
                if other is not link and other.owner == player:
                    return True
        return False

    # ------------------------------------------------------------------ money
    def _loan_plan(self, p: Player, cost: int):
        """Basic game (6): forced $5 loans.  Returns (income_steps, vp_loss, cash_after) or None."""
        if cost <= p.cash:
            return 0, 0, p.cash - cost
        need = cost - p.cash
        loans = ceil(need / 5)
        steps = min(loans, max(0, p.income - INCOME_MIN))
        rest = loans - steps
        if rest * 2 > p.vp:
            return None
        return steps, rest * 2, loans * 5 - need

    def _can_pay(self, player: int, cost: int) -> bool:
        p = self.s.players[player]
        if self.mode == "standard":
            return cost <= p.cash
        return self._loan_plan(p, cost) is not None

    def _pay(self, player: int, cost: int, what: str) -> None:
        p = self.s.players[player]
        if cost <= 0:
            return
        if self.mode == "standard":
            if cost > p.cash:
                raise GameError("{what} costs ${cost} but {player} has ${cash}; in the standard game you "
                                "cannot spend more than your cash (8.6)", what=what, cost=cost, player=p.name,
                                cash=p.cash)
            p.cash -= cost
            return
        plan = self._loan_plan(p, cost)
        if plan is None:
            raise GameError("{what} costs ${cost}: {player} cannot cover it even with loans (income at -10 "
                            "and fewer than 2 VP per $5, rule 6)", what=what, cost=cost, player=p.name)
        steps, vp_loss, cash = plan
        if steps or vp_loss:
            self.s.events.append(f"{p.name} borrows ${5 * (steps + vp_loss // 2)} (income -{steps}, VP -{vp_loss})")
        p.income -= steps
        p.vp -= vp_loss
        p.loans += steps + vp_loss // 2
        p.cash = cash

    def _max_borrow(self, p: Player) -> int:
        """Basic game: the most money cash + loans can raise."""
        return p.cash + 5 * (max(0, p.income - INCOME_MIN) + p.vp // 2)

    # ------------------------------------------------------------------ dispatch
    def _dispatch(self, a) -> None:
        s = self.s
        if isinstance(a, Score):
            if not s.score_queue:
                raise GameError("there is no delivery to score")
            player, pts = s.score_queue.pop(0)
            self._gain(player, pts, a.to)
            return
        if s.score_queue:
            raise GameError("{name} must first choose income or VP for their delivery points (7.3.4)",
                            name=s.players[s.score_queue[0][0]].name)
        if isinstance(a, Pass) and a.free_pass is not None and s.phase != "auction":
            raise GameError("free_pass: only a pass in the standard game's turn-order auction uses or declines the "
                            "First Player free pass (8.4)")
        handler = {
            "setup_auction": self._act_setup_auction,
            "auction": self._act_auction,
            "capital": self._act_capital,
            "select": self._act_select,
            "build": self._act_build,
            "move": self._act_move,
        }[s.phase]
        handler(a)

    def _expect(self, a, *types, phase: str) -> None:
        if not isinstance(a, types):
            allowed = ", ".join(t.model_fields["type"].default for t in types)
            raise GameError("in the {phase} you may only: {allowed} (not {type})", phase=phase,
                            allowed=allowed, type=a.type)

    # ------------------------------------------------------------------ basic setup auction (5.2a)
    def _act_setup_auction(self, a) -> None:
        s = self.s
        self._expect(a, Bid, Pass, phase="turn-order auction")
        au = s.auction
        if isinstance(a, Bid):
            self._check_raise(au, a.amount)
            cap = self._max_borrow(s.players[a.player])
            if a.amount > cap:
                raise GameError("a bid of ${amount} cannot be paid: at most ${cap} can be borrowed (5.2, 6)",
                                amount=a.amount, cap=cap)
            au["high"], au["high_player"] = a.amount, a.player
        else:
            au["in"].remove(a.player)
        if len(au["in"]) == 1:
            winner = au["in"][0]
            price = au["high"] if au["high_player"] == winner else 0
            self._pay(winner, price or 0, Phrase("the bid for turn-order slot {n}", n=len(au["placed"]) + 1))
            au["placed"].append(winner)
            s.events.append(f"{s.players[winner].name} wins slot {len(au['placed'])} for ${price or 0}")
            n = len(s.players)
            left = [p for p in range(n) if p not in au["placed"]]
            if len(left) == 1:
                au["placed"].append(left[0])
                s.order = list(au["placed"])
                s.auction = None
                s.phase = "select"
                return
            start = next((winner + i) % n for i in range(1, n + 1) if (winner + i) % n in left)
            s.auction = {"kind": "setup", "in": left, "high": None, "high_player": None, "turn": start,
                         "placed": au["placed"]}
            return
        au["turn"] = self._next_bidder(au, a.player, seat_order=True)

    @staticmethod
    def _check_raise(au: dict, amount: int) -> None:
        """Both auctions: the opening bid may be $0, every later bid raises the last by at least $1."""
        if au["high"] is None and amount < 0:
            raise GameError("a bid cannot be negative")
        if au["high"] is not None and amount <= au["high"]:
            raise GameError("a bid must be at least ${high} (raise the current ${high2} bid)",
                            high=au['high'] + 1, high2=au['high'])

    def _next_bidder(self, au: dict, current: int, seat_order: bool) -> int:
        seq = list(range(len(self.s.players))) if seat_order else au["order"]
        i = seq.index(current)
        for k in range(1, len(seq) + 1):
            p = seq[(i + k) % len(seq)]
            if p in au["in"] and p != au["high_player"]:
                return p
        raise AssertionError("auction without bidders")

    # ------------------------------------------------------------------ standard phases 1-2 (8.3, 8.4)
    def _act_capital(self, a) -> None:
        s = self.s
        self._expect(a, Capital, phase="buy-capital phase")
        p = s.players[a.player]
        room = p.income - INCOME_MIN
        if a.loans > room:
            raise GameError("{player} can borrow at most {room} x $5: income cannot go below -10, and in the "
                            "standard game VP cannot be borrowed against (8.3, 8.6)", player=p.name,
                            room=room)
        p.income -= a.loans
        p.cash += 5 * a.loans
        p.loans += a.loans
        s.capital_idx += 1
        if s.capital_idx >= len(s.order) and len(s.order) == 1:
            s.phase = "select"
            s.select_idx = 0
        elif s.capital_idx >= len(s.order):
            s.phase = "auction"
            s.auction = {"kind": "standard", "order": list(s.order), "in": list(s.order), "bids": {},
                         "high": None, "high_player": None, "turn": s.order[0], "slots": [None] * len(s.order),
                         "free_pass": s.free_pass if s.free_pass in s.order else None}

    def _act_auction(self, a) -> None:
        s = self.s
        self._expect(a, Bid, Pass, phase="turn-order auction")
        au = s.auction
        if isinstance(a, Bid):
            self._check_raise(au, a.amount)
            if a.amount > s.players[a.player].cash:
                raise GameError("you may not bid more than your cash (${cash}) (8.4)",
                                cash=s.players[a.player].cash)
            au["high"], au["high_player"] = a.amount, a.player
            au["bids"][a.player] = a.amount
        elif a.free_pass is not None and au["free_pass"] != a.player:
            raise GameError("{name} holds no First Player free pass in this auction (only the player who took the "
                            "First Player tile last round has one, for one pass), so this pass cannot use or "
                            "decline one (8.4)", name=s.players[a.player].name)
        elif au["free_pass"] == a.player and a.free_pass is not False:
            au["free_pass"] = None
            s.events.append(f"{s.players[a.player].name} uses the First Player free pass")
        else:
            if au["free_pass"] == a.player:
                au["free_pass"] = None
                s.events.append(f"{s.players[a.player].name} declines the First Player free pass")
            au["in"].remove(a.player)
            slot = max(i for i, q in enumerate(au["slots"]) if q is None)
            au["slots"][slot] = a.player
        if len(au["in"]) == 1:
            au["slots"][0] = au["in"][0]
            n = len(au["slots"])
            for i, q in enumerate(au["slots"]):
                bid = au["bids"].get(q, 0)
                pay = 0 if i == n - 1 else (bid if i < 2 else ceil(bid / 2))
                s.players[q].cash -= pay
                if pay:
                    s.events.append(f"{s.players[q].name} pays ${pay} for slot {i + 1}")
            s.order = list(au["slots"])
            s.auction = None
            s.phase = "select"
            s.select_idx = 0
            return
        au["turn"] = self._next_bidder(au, a.player, seat_order=False)

    # ------------------------------------------------------------------ phase: select action tiles (7.1)
    def _act_select(self, a) -> None:
        s = self.s
        self._expect(a, TakeTile, phase="action-tile selection")
        p = s.players[a.player]
        if a.tile not in TILE_NAMES:
            raise GameError("action tiles are numbered 1-7")
        if a.tile in s.tiles:
            raise GameError("tile {tile} ({tile_name}) was already taken this round by {name} (7.1)",
                            tile=a.tile, tile_name=TILE_NAMES[a.tile], name=s.players[s.tiles[a.tile]].name)
        basic = self.mode == "basic"
        if a.tile == 6:
            if p.loco >= LOCO_MAX:
                raise GameError("Locomotive cannot be taken at locomotive level 6 (7.1)")
            if basic:
                self._pay(a.player, 4 + p.loco + 1, Phrase("the Locomotive tile"))
            p.loco += 1
        elif a.tile in (5, 7):
            kind = "grow" if a.tile == 5 else "urbanize"
            if a.use:
                if not self._performable(kind, a.player):
                    if a.tile == 5:
                        raise GameError("{tile} cannot be carried out now (no reserve hex has cubes or every "
                                        "starting city has grown); take it with a pass instead",
                                        tile=Phrase(TILE_NAMES[a.tile]))
                    raise GameError("{tile} cannot be carried out now (no town can take a New City tile); take it "
                                    "with a pass instead", tile=Phrase(TILE_NAMES[a.tile]))
                if basic:
                    self._pay(a.player, 2 if a.tile == 5 else 6, Phrase(TILE_NAMES[a.tile]))
                s.pending[a.player] = kind
            else:
                s.passed_tiles.add(a.tile)
        elif not a.use:
            raise GameError("only City Growth and Urbanization can be taken with a pass, not {tile_name}",
                            tile_name=TILE_NAMES[a.tile])
        s.tiles[a.tile] = a.player
        p.tile = a.tile
        s.select_idx += 1
        if s.select_idx >= len(s.order):
            self._start_build()

    # ------------------------------------------------------------------ phase: build (7.2)
    def _start_build(self) -> None:
        s = self.s
        s.phase = "build"
        s.build_queue = self._holder_first(4)
        s.build_idx = 0
        s.placements = 0

    def _holder_first(self, tile: int) -> list[int]:
        """Turn order with the holder of action tile `tile` (First Build 4, First Move 2) in front (GAP 13.4.25)."""
        first = self.s.tiles.get(tile)
        return ([first] if first is not None else []) + [p for p in self.s.order if p != first]

    def placement_limit(self, player: int) -> int:
        return 4 if self.s.tiles.get(3) == player else 3

    def _act_build(self, a) -> None:
        self._expect(a, Lay, Upgrade, Redirect, Urbanize, Grow, EndBuild, phase="build phase")
        if isinstance(a, EndBuild):
            self._end_build(a.player)
        elif isinstance(a, Urbanize):
            self._do_urbanize(a)
        elif isinstance(a, Grow):
            self._do_grow(a)
        else:
            if self.s.placements >= self.placement_limit(a.player):
                raise GameError("you have used all {n} tile placements this turn (7.2.1; Engineer allows 4)",
                                n=self.placement_limit(a.player))
            plan = self._plan_track(a)
            self._commit_plan(a.player, plan)

    def _end_build(self, player: int) -> None:
        s = self.s
        kind = s.pending.get(player)
        if kind and self.mode == "basic" and self._performable(kind, player):
            # the tile is chosen outside Phrase(...): a string inside it is taken for a message by some Babel
            # versions and not by others, and the catalogue must not depend on which one is installed
            tile = 7 if kind == "urbanize" else 5
            raise GameError("you committed to {what} and must carry it out before ending your build turn "
                            "(7.1, 7.2.1)", what=Phrase(TILE_NAMES[tile]))
        s.pending.pop(player, None)
        # 7.2.7: incomplete links not continued this round lapse and become neutral.
        net = self.network()
        changed = False
        for link in net.links:
            if link.owner == player and not link.complete and link.rnd < s.round:
                self._set_owner(link, None)
                changed = True
        if changed:
            self._touch()
        s.build_idx += 1
        s.placements = 0
        if s.build_idx >= len(s.build_queue):
            self._start_move()

    def _set_owner(self, link: Link, owner: int | None) -> None:
        track = self.s.track
        by_hex: dict[Hex, set] = {}
        for h, edges in link.segs:
            by_hex.setdefault(h, set()).add(edges)
        for h, keys in by_hex.items():
            t = track[h]
            track[h] = t._replace(segs=tuple(sg._replace(owner=owner) if sg.edges in keys else sg for sg in t.segs))

    # --- track placement planning (no mutation) ---
    def _cost(self, h: Hex, face: str, terrain: bool) -> int:
        f = T.FACES[face]
        info = self.board.hexes[h]
        return f.base_price + (info.surcharge if terrain else 0)

    def _classify(self, net: Network, h: Hex, e: int, player: int, town_tile: bool):
        """Check what a new track end at (h, e) meets.  Returns ("city", hex) | ("join", link) | ("open",)."""
        if not self.board.edge_open(h, e):
            n = self.board.nbr(h, e)
            what = Phrase("off the board") if n is None else (
                Phrase("into water") if self.board.hexes[n].terrain == "water" else Phrase("across a black line"))
            raise GameError("track at {hex} may not run {what} (edge {edge}) (3.1, 7.2.2)", hex=hex_key(h),
                            what=what, edge=e)
        r = net.resolve(h, e)
        if r[0] == "node":
            return ("city", r[1])
        if r[0] == "seg":
            link = net.link_of(r[1], r[2])
            if link.complete:
                raise GameError("track at {hex} would run into the completed link {link}", hex=hex_key(h),
                                link=link.id)
            if link.owner == player:
                return ("join", link)
            if link.owner is None:  # a town tile's spur too: taking over needs eligibility (docs: D2)
                if self._eligible(net, link, player):
                    return ("join", link)
                raise GameError("the neutral incomplete link {link} may be taken over only by a player whose "
                                "link it touches or if it starts from a city (7.2.8)", link=link.id)
            if town_tile:
                return ("join", link)
            raise GameError("the incomplete link {link} belongs to {name}: you may not continue another "
                            "player's incomplete link (7.2.7)", link=link.id,
                            name=self.s.players[link.owner].name)
        return ("open",)

    @staticmethod
    def _far_end(link: Link):
        """The node at the far end of an incomplete link (None if it has no node end)."""
        nodes = link.nodes
        return nodes[0] if nodes else None

    def _check_path_plain(self, net: Network, h: Hex, path: tuple[int, int], player: int) -> list:
        ca = self._classify(net, h, path[0], player, False)
        cb = self._classify(net, h, path[1], player, False)
        if ca[0] == "open" and cb[0] == "open":
            raise GameError("a tile at {hex} must start from a city or continue track that you may extend "
                            "(7.2.2)", hex=hex_key(h))
        ends = []
        for c in (ca, cb):
            if c[0] == "city":
                ends.append(c[1])
            elif c[0] == "join":
                ends.append(self._far_end(c[1]))
        if ca[0] == "join" and cb[0] == "join" and ca[1] is cb[1]:
            raise GameError("a link may not start and end in the same city or town (7.2.2)")
        if len(ends) == 2 and ends[0] is not None and ends[0] == ends[1]:
            raise GameError("a link may not start and end in the same city or town ({hex}) (7.2.2)",
                            hex=hex_key(ends[0]))
        return [ca, cb]

    def _plan_track(self, a) -> dict:
        """Validate a lay/upgrade/redirect and return the plan; raises GameError, mutates nothing."""
        s = self.s
        board = self.board
        h = tuple(a.hex)
        player = a.player
        if h not in board.hexes:
            raise GameError("{hex} is not a hex of this map", hex=hex_key(h))
        info = board.hexes[h]
        if a.tile not in T.FACES:
            raise GameError("there is no track tile {tile} (tiles: {faces})", tile=repr(a.tile),
                            faces=', '.join(T.FACES))
        face = T.FACES[a.tile]
        if info.terrain == "water":
            raise GameError("no track may be built on water ({hex}) (3.1)", hex=hex_key(h))
        if h in self.all_cities():
            raise GameError("{hex} is a city: track tiles are never laid on a city (7.2.2)", hex=hex_key(h))
        is_town = info.town is not None
        if is_town and not face.town:
            raise GameError("{hex} is a town: only town track tiles may be laid there (7.2.2)",
                            hex=hex_key(h))
        if not is_town and face.town:
            raise GameError("town track tile {tile} may only be laid on a town hex (7.2.2)", tile=a.tile)
        net = self.network()
        old = s.track.get(h)
        new_paths = face.rotated(a.rotation)
        if isinstance(a, Lay):
            if old is not None:
                raise GameError("{hex} already has track: upgrade or redirect it instead (7.2.9, 7.2.10)",
                                hex=hex_key(h))
            if not self._available(a.tile):
                raise GameError("no tile {tile} is left in the supply (7.2.1)", tile=a.tile)
            cost = self._cost(h, a.tile, terrain=True)
            added = list(new_paths)
            kept: list[Seg] = []
            remove_face = None
            redirect_from = None
        elif isinstance(a, Upgrade):
            if old is None:
                raise GameError("{hex} has no track to upgrade", hex=hex_key(h))
            old_paths = {sg.edges for sg in old.segs}
            if not old_paths <= set(new_paths):
                raise GameError("tile {tile} rotated {rotation} does not keep all the track already on {hex} "
                                "(7.2.10)", tile=a.tile, rotation=a.rotation, hex=hex_key(h))
            if len(new_paths) <= len(old_paths):
                raise GameError("an upgrade must add track to {hex} (7.2.10)", hex=hex_key(h))
            if not T.can_add(s.used_faces, a.tile, remove=old.face):
                raise GameError("no tile {tile} is left in the supply (7.2.10)", tile=a.tile)
            cost = self._cost(h, a.tile, terrain=False)
            added = [p for p in new_paths if p not in old_paths]
            kept = list(old.segs)
            remove_face = old.face
            redirect_from = None
        else:  # Redirect
            return self._plan_redirect(a, net, old, new_paths)
        # lay / upgrade: check every added segment
        owners: dict[tuple, int | None] = {}
        anchored = isinstance(a, Upgrade)
        for p in added:
            if face.town:
                c = self._classify(net, h, p[0], player, True)
                if c[0] == "join":
                    if self._far_end(c[1]) == h:
                        raise GameError("a link may not start and end in the same town (7.2.2)")
                    anchored = True
                    owners[p] = c[1].owner if c[1].owner not in (None, player) else player
                else:
                    anchored = anchored or c[0] == "city"
                    owners[p] = player
            else:
                cs = self._check_path_plain(net, h, p, player)
                anchored = True
                owners[p] = player
                del cs
        if not anchored:
            raise GameError("a town tile on {hex} must connect to a city or to existing track (7.2.2)",
                            hex=hex_key(h))
        if not self._can_pay(player, cost):
            self._pay_check_message(player, cost, Phrase("tile {tile} on {hex}", tile=a.tile, hex=hex_key(h)))
        segs = tuple(kept) + tuple(Seg(p, owners[p], s.round) for p in added)
        return {"hex": h, "face": a.tile, "rot": a.rotation, "cost": cost, "what": Phrase("tile {tile} on {hex}", tile=a.tile, hex=hex_key(h)),
                "segs": segs, "remove_face": remove_face, "redirect": redirect_from, "owners": owners}

    def _plan_redirect(self, a, net: Network, old: Tile | None, new_paths) -> dict:
        """Rotate or replace the tile at the open end of an incomplete link (7.2.9): one path of the tile (the
        link's last piece) turns to another edge; any other track on the tile stays as it is (docs: D5)."""
        s, h, player = self.s, tuple(a.hex), a.player
        if old is None:
            raise GameError("{hex} has no track to redirect", hex=self.hex_label(h))
        if T.FACES[old.face].town:
            raise GameError("a town tile cannot be redirected, only upgraded (7.2.9)")
        old_paths = {sg.edges for sg in old.segs}
        removed = [sg for sg in old.segs if sg.edges not in new_paths]
        added = [p for p in new_paths if p not in old_paths]
        if not removed:
            raise GameError("redirecting must point the track somewhere else (7.2.9)")
        if len(removed) > 1 or len(added) != 1:
            raise GameError("tile {tile} rotated {rotation} changes more than the end of one link: "
                            "redirecting turns one path and keeps the other track on {hex} (7.2.9)",
                            tile=a.tile, rotation=a.rotation, hex=self.hex_label(h))
        seg, path = removed[0], added[0]
        link = net.link_of(h, seg.edges)
        oe = link.open_end
        if link.complete or oe is None:
            raise GameError("a complete link cannot be redirected (7.2.9)")
        if oe[1] != h or oe[2] not in seg.edges:
            raise GameError("only the last tile of an incomplete link (its open end, at {hex}) can be "
                            "redirected (7.2.9)", hex=self.hex_label(oe[1]))
        if link.owner is not None and link.owner != player:
            raise GameError("the incomplete link belongs to {name}; you may not redirect another player's "
                            "link (7.2.9)", name=s.players[link.owner].name)
        if link.owner is None and not self._eligible(net, link, player):
            raise GameError("you may redirect a neutral link only if it starts from a city or touches one of "
                            "your links (7.2.9)")
        inner = seg.edges[0] if seg.edges[1] == oe[2] else seg.edges[1]
        if inner not in path:
            raise GameError("the redirected track must still connect to the rest of its link (edge {inner})",
                            inner=inner)
        if a.tile != old.face and not T.can_add(s.used_faces, a.tile, remove=old.face):
            raise GameError("no tile {tile} is left in the supply (7.2.9)", tile=a.tile)
        cost = T.FACES[a.tile].base_price  # the base price, no terrain: $2 for a plain tile (7.2.9)
        outer = path[0] if path[1] == inner else path[1]
        c = self._classify(net, h, outer, player, False)
        far = self._far_end(link)
        if c[0] == "city" and c[1] == far or (c[0] == "join" and self._far_end(c[1]) == far and far is not None):
            raise GameError("a link may not start and end in the same city or town (7.2.2)")
        complete = c[0] == "city" or (c[0] == "join" and bool(c[1].nodes))
        joined_own = c[0] == "join" and c[1].owner == player
        if not self._can_pay(player, cost):
            self._pay_check_message(player, cost, "redirecting")
        kept = tuple(sg for sg in old.segs if sg is not seg)
        return {"hex": h, "face": a.tile, "rot": a.rotation, "cost": cost, "what": Phrase("redirecting"),
                "segs": kept + (Seg(path, link.owner, seg.rnd),), "remove_face": old.face,
                "redirect": {"path": path, "link_owner": link.owner, "complete": complete, "joined_own": joined_own},
                "owners": {}}

    def _pay_check_message(self, player: int, cost: int, what: str) -> None:
        p = self.s.players[player]
        if self.mode == "standard":
            raise GameError("{what} costs ${cost} but {player} has ${cash}; in the standard game you cannot "
                            "spend more than your cash (8.6)", what=what, cost=cost, player=p.name,
                            cash=p.cash)
        raise GameError("{what} costs ${cost}: {player} cannot cover it even with loans (6)", what=what,
                        cost=cost, player=p.name)

    def _commit_plan(self, player: int, plan: dict) -> None:
        s = self.s
        h = plan["hex"]
        self._pay(player, plan["cost"], plan["what"])
        if plan["remove_face"]:
            s.used_faces[plan["remove_face"]] -= 1
        s.used_faces[plan["face"]] = s.used_faces.get(plan["face"], 0) + 1
        s.track[h] = Tile(plan["face"], plan["rot"], tuple(sorted(plan["segs"])))
        s.placements += 1
        self._touch()
        net = self.network()
        # Ownership: the merged link of every new/changed segment takes the segment's owner.
        redirect = plan["redirect"]
        new_keys = [(h, redirect["path"])] if redirect else [(h, p) for p in plan["owners"]]
        for key in new_keys:
            link = net.links[net.seg_link[key]]
            if plan["redirect"]:
                r = plan["redirect"]
                owner = player if (link.complete or r["link_owner"] == player or r["joined_own"]) else None
            else:
                owner = plan["owners"][key[1]]
            self._set_owner(link, owner)
            link.owner = owner
        self._touch()
        self._net_cache = (self.s.version, net)  # only owners changed: the traced links still hold

    # --- urbanization and city growth ---
    def _check_urbanize(self, player: int, h: Hex, color: str) -> dict:
        """Validate a New City tile of `color` on town h; returns the track after it (the town tile gone)."""
        s = self.s
        if h not in self.board.hexes or self.board.hexes[h].town is None:
            raise GameError("{hex} is not a town: a New City tile goes on a town hex (7.2.11)",
                            hex=hex_key(h))
        if h in s.new_cities:
            raise GameError("{place} is already a city", place=self.place_name(h))
        if s.new_city_supply.get(color, 0) <= 0:
            left = [c for c, n in s.new_city_supply.items() if n > 0]
            if not left:
                raise GameError("no {color} New City tile is left, nor any other", color=Phrase(color, "colour"))
            raise GameError("no {color} New City tile is left (left: {left})", color=Phrase(color, "colour"),
                            left=Listing(Phrase(c, "colour") for c in left))
        net = self.network()
        old = s.track.get(h)
        if old is None and not any(self.board.nbr(oh, oe) == h for (oh, oe) in net.open_ends):
            return {"track": s.track, "old": None}
        track = dict(s.track)
        track.pop(h, None)
        # A spur straight into a neighbouring city is a whole complete link, and complete links are never
        # lost (7.2.5): the New City keeps it as a direct link to that city (a CITY_STUB pseudo tile).
        kept = tuple(sg for sg in (old.segs if old else ()) if len(net.link_of(h, sg.edges).segs) == 1
                     and net.link_of(h, sg.edges).complete)
        if kept:
            track[h] = Tile(CITY_STUB, 0, kept)
        new_net = Network(self.board, track, set(self.all_cities()) | {h})
        for link in new_net.links:
            if link.complete and link.ends[0][1] == link.ends[1][1]:
                raise GameError("urbanizing {hex} would make link {link} start and end in the same city "
                                "(7.2.2)", hex=hex_key(h), link=link.id)
        return {"track": track, "old": old}

    def _do_urbanize(self, a: Urbanize) -> None:
        s = self.s
        if s.pending.get(a.player) != "urbanize":
            raise GameError("you may lay a New City tile only after taking Urbanization (and not passing) (7.1)")
        h = tuple(a.hex)
        plan = self._check_urbanize(a.player, h, a.color)
        if any(s.reserve) or a.reserve is not None:
            self._check_reserve(a.reserve, "the new city takes the cubes of a reserve hex (7.2.11)")
        # Neutral incomplete links the New City completes become the urbanizer's only where they could be
        # taken over before it was laid (7.2.8); the others complete as neutral links (docs: D3).
        old_net = self.network()
        takeable = {k for link in old_net.links if not link.complete and link.owner is None
                    and self._eligible(old_net, link, a.player) for k in link.segs}
        if plan["old"] is not None:
            s.used_faces[plan["old"].face] -= 1
        s.track = dict(plan["track"])
        s.new_cities[h] = a.color
        s.grown.add(h)
        s.new_city_supply[a.color] -= 1
        s.city_cubes[h] = ()
        if a.reserve is not None:
            s.city_cubes[h] = tuple(sorted(s.reserve[a.reserve]))
            s.reserve[a.reserve] = ()
        s.pending.pop(a.player)
        self._touch()
        for link in self.network().links:
            if link.complete and link.owner is None and h in link.nodes and any(k in takeable for k in link.segs):
                self._set_owner(link, a.player)
        self._touch()
        s.events.append(f"{s.players[a.player].name} urbanizes {self.board.hexes[h].town} as a {a.color} city")

    def _do_grow(self, a: Grow) -> None:
        s = self.s
        if s.pending.get(a.player) != "grow":
            raise GameError("you may place growth cubes only after taking City Growth (and not passing) (7.1)")
        self._check_grow(a.reserve, tuple(a.city))
        h = tuple(a.city)
        s.city_cubes[h] = tuple(sorted(s.city_cubes.get(h, ()) + s.reserve[a.reserve]))
        s.reserve[a.reserve] = ()
        s.grown.add(h)
        s.pending.pop(a.player)

    def _check_reserve(self, reserve: int | None, why: str) -> None:
        s = self.s
        if reserve is None:
            raise GameError("choose a reserve hex: {reason}", reason=why)
        if not 0 <= reserve < len(s.reserve):
            raise GameError("there are reserve hexes 0-{last} only", last=len(s.reserve) - 1)
        if not s.reserve[reserve]:
            raise GameError("reserve hex {reserve} ({reserve_name}) is empty; reserve hexes are never "
                            "refilled (7.2.12)", reserve=reserve, reserve_name=reserve_name(reserve))

    def _check_grow(self, reserve: int, h: Hex) -> None:
        s = self.s
        self._check_reserve(reserve, "City Growth moves the cubes of a reserve hex to a city (7.2.12)")
        if h not in self.board.cities:
            raise GameError("{hex} is not a starting city (7.2.12)", hex=hex_key(h))
        if h in s.grown:
            raise GameError("{name} already has a City Growth marker (7.2.12)",
                            name=self.board.cities[h].name)

    def _performable(self, kind: str, player: int) -> bool:
        s = self.s
        if kind == "grow":
            return any(s.reserve) and any(h not in s.grown for h in self.board.cities)
        if not any(n > 0 for n in s.new_city_supply.values()):
            return False
        color = next(c for c, n in s.new_city_supply.items() if n > 0)
        for h in self.board.towns:
            if h in s.new_cities:
                continue
            try:
                self._check_urbanize(player, h, color)
                return True
            except GameError:
                continue
        return False

    # ------------------------------------------------------------------ phase: move goods (7.3)
    def _start_move(self) -> None:
        s = self.s
        s.phase = "move"
        s.move_queue = self._holder_first(2)
        s.move_idx = 0
        s.cycle = 1
        s.loco_upgraded = set()

    def _act_move(self, a) -> None:
        s = self.s
        self._expect(a, Move, UpgradeLoco, Pass, phase="move-goods phase")
        p = s.players[a.player]
        if isinstance(a, UpgradeLoco):
            if p.loco >= LOCO_MAX:
                raise GameError("your locomotive is already at level 6, the maximum (7.3.2)")
            if a.player in s.loco_upgraded:
                raise GameError("you may upgrade your locomotive only once per move-goods phase (7.3.2)")
            p.loco += 1
            s.loco_upgraded.add(a.player)
        elif isinstance(a, Move):
            self._deliver(a)
        s.move_idx += 1
        if s.move_idx >= len(s.move_queue):
            if s.cycle == 1:
                s.cycle = 2
                s.move_idx = 0
            else:
                s.phase = "income"

    def _check_move(self, a: Move):
        s = self.s
        p = s.players[a.player]
        origin = tuple(a.city)
        cities = self.all_cities()
        if origin not in cities:
            raise GameError("{hex} is not a city", hex=hex_key(origin))
        if a.color not in s.city_cubes.get(origin, ()):
            raise GameError("there is no {color} cube on {place}", color=a.color,
                            place=self.place_name(origin))
        if not a.links:
            raise GameError("a delivery must use at least one link")
        if len(a.links) > p.loco:
            raise GameError("locomotive level {loco} moves a cube at most {loco} link(s), not {n} (7.3.3)",
                            loco=p.loco, n=len(a.links))
        net = self.network()
        node = origin
        visited = [origin]
        counts: dict[int | None, int] = {}
        for i, lid in enumerate(a.links):
            link = net.by_id.get(lid)
            if link is None:
                raise GameError("there is no link {link}", link=repr(lid))
            if not link.complete:
                raise GameError("link {link} is incomplete; goods move only along complete links (7.3.3)",
                                link=lid)
            a_end, b_end = link.nodes
            if node == a_end:
                nxt = b_end
            elif node == b_end:
                nxt = a_end
            else:
                raise GameError("link {link} does not start at {place}", link=lid,
                                place=self.place_name(node))
            if nxt in visited:
                raise GameError("the route visits {place} twice (7.3.3)", place=self.place_name(nxt))
            last = i == len(a.links) - 1
            if cities.get(nxt) == a.color and not last:
                raise GameError("the {color} cube stops at {place}, the first {color} city it reaches (7.3.3)",
                                color=a.color, place=self.place_name(nxt))
            visited.append(nxt)
            counts[link.owner] = counts.get(link.owner, 0) + 1
            node = nxt
        if cities.get(node) != a.color:
            raise GameError("a {color} cube may be delivered only to a {color} city, and {place} is not one "
                            "(7.3.3)", color=a.color, place=self.place_name(node))
        own = counts.get(a.player, 0)
        if own < 1:
            raise GameError("at least one link of the route must be yours (7.3.3)")
        for q, n in counts.items():
            if q is not None and q != a.player and n > own:
                raise GameError("the route uses {n} links of {name} but only {own} of yours; no other "
                                "player's links may outnumber your own (7.3.3)", n=n, name=s.players[q].name,
                                own=own)
        return counts, origin

    def _deliver(self, a: Move) -> None:
        s = self.s
        counts, origin = self._check_move(a)
        cubes = list(s.city_cubes[origin])
        cubes.remove(a.color)
        s.city_cubes[origin] = tuple(cubes)
        s.bag[a.color] += 1
        s.delivered += 1
        self._gain(a.player, counts[a.player], a.to)
        for q in s.order:
            if q != a.player and counts.get(q):
                s.score_queue.append((q, counts[q]))

    def _gain(self, player: int, pts: int, to: str) -> None:
        p = self.s.players[player]
        if to == "income":
            p.income += pts
        else:
            p.vp += pts

    # ------------------------------------------------------------------ income, round end, game end
    def _advance(self) -> None:
        s = self.s
        while not s.finished and not s.score_queue and s.phase == "income":
            self._income_phase()
            if s.finished:
                return
            if s.round >= self.rounds or not s.order:
                self._finish()
                return
            self._new_round()

    def _income_phase(self) -> None:
        s = self.s
        start_income = {p: s.players[p].income for p in s.order}
        for q in list(s.order):
            p = s.players[q]
            amount = start_income[q] - (p.loco if self.mode == "standard" else 0)
            if amount >= 0:
                p.cash += amount
                continue
            owe = -amount
            if p.cash >= owe:
                p.cash -= owe
                continue
            if self.mode == "basic":
                plan = self._loan_plan(p, owe)
                if plan is None:
                    self._bankrupt(q)
                    continue
                self._pay(q, owe, "expenses")
            else:
                missing = owe - p.cash
                p.cash = 0
                steps = ceil(missing / 2)
                change = steps * 2 - missing
                from_vp = min(steps, p.vp)
                p.vp -= from_vp
                steps -= from_vp
                from_income = min(steps, p.income - INCOME_MIN)
                p.income -= from_income
                steps -= from_income
                if steps > 0:
                    self._bankrupt(q)
                    continue
                p.cash = change
        if not s.order:
            self._finish()

    def _bankrupt(self, q: int) -> None:
        s = self.s
        p = s.players[q]
        p.bankrupt = True
        s.order.remove(q)
        s.events.append(f"{p.name} is bankrupt and leaves the game")
        net = self.network()
        for link in net.links:
            if link.owner == q:
                self._set_owner(link, None)
        self._touch()

    def _new_round(self) -> None:
        s = self.s
        if self.mode == "basic":
            s.order = sorted(s.order, key=lambda q: s.players[q].tile)
        s.free_pass = s.tiles.get(1) if self.mode == "standard" else None
        for p in s.players:
            p.last_tile = p.tile
            p.tile = None
        s.tiles = {}
        s.passed_tiles = set()
        s.pending = {}
        s.round += 1
        s.select_idx = 0
        s.capital_idx = 0
        s.phase = "capital" if self.mode == "standard" else "select"

    def _finish(self) -> None:
        s = self.s
        net = self.network()
        for link in net.links:
            if not link.complete and link.owner is not None:
                self._set_owner(link, None)
        self._touch()
        net = self.network()
        links_owned = {q: 0 for q in range(len(s.players))}
        for link in net.links:
            if link.complete and link.owner is not None:
                links_owned[link.owner] += 1
        rows = []
        for q, p in enumerate(s.players):
            if p.bankrupt:
                rows.append({"player": q, "name": p.name, "bankrupt": True, "vp": p.vp, "tile": p.tile})
                continue
            conv = p.income // 2 if p.income > 0 else 2 * p.income
            total = p.vp + conv + links_owned[q]
            rows.append({"player": q, "name": p.name, "bankrupt": False, "vp_before": p.vp, "income": p.income,
                         "income_vp": conv, "links": links_owned[q], "vp": total, "tile": p.tile, "cash": p.cash})
            p.vp = total
        ranked = sorted(rows, key=lambda r: (r["bankrupt"], -r["vp"], r["tile"] or 99))
        for i, r in enumerate(ranked):
            r["rank"] = i + 1
        s.result = {"winner": ranked[0]["player"] if not ranked[0]["bankrupt"] else None,
                    "ranking": ranked, "rounds": s.round}
        s.finished = True
        s.phase = "done"

    # ------------------------------------------------------------------ views
    def place_name(self, h: Hex) -> str:
        info = self.board.hexes.get(h)
        if info is None:
            return hex_key(h)
        if info.city:
            return info.city.name
        if info.town:
            return info.town + (" " + _("(city)") if h in self.s.new_cities else "")
        return hex_key(h)

    def city_color(self, h: Hex) -> str | None:
        return self.all_cities().get(h)

    def hex_label(self, h: Hex) -> str:
        """A hex as players name it: a city or town by its name, any other hex by its coordinates and the
        places beside it ("5,3 between Chicago and Gary") or the nearest one ("0,9, 2 hexes W of Duluth")."""
        h = tuple(h)
        if h not in self.board.hexes:
            return hex_key(h)
        if h in self.board.cities or h in self.board.towns:
            return self.place_name(h)
        near = [self.place_name(n) for d in range(6) if (n := self.board.nbr(h, d)) is not None
                and (n in self.board.cities or n in self.board.towns)]
        if len(near) >= 2:
            return _("{hex} between {places} and {last}", hex=hex_key(h), places=", ".join(near[:-1]), last=near[-1])
        if near:
            return _("{hex} next to {place}", hex=hex_key(h), place=near[0])
        place, steps = nearest_place(self.board, h)
        if place is None:
            return hex_key(h)
        return ngettext("{hex}, {n} hex {direction} of {place}", "{hex}, {n} hexes {direction} of {place}", steps,
                        hex=hex_key(h), direction=pgettext("compass", compass(place, h)), place=self.place_name(place))

    PHASE_NAMES = {"setup_auction": N_("turn-order auction"), "capital": N_("buy capital"),
                   "auction": N_("turn-order auction"), "select": N_("select action tiles"),
                   "build": N_("build track"), "move": N_("move goods"), "income": N_("income"),
                   "done": N_("game over")}  # shown with i18n's _()

    def _auction_view(self) -> dict | None:
        au = self.s.auction
        if au is None:
            return None
        out = {"kind": au["kind"], "high": au["high"], "high_player": self.pid(au["high_player"]),
               "turn": self.pid(au["turn"]), "in": [self.pid(q) for q in au["in"]]}
        if au["kind"] == "setup":
            out["slot"] = len(au["placed"]) + 1
            out["placed"] = [self.pid(q) for q in au["placed"]]
        else:
            out["bids"] = {str(self.pid(q)): b for q, b in au["bids"].items()}
            out["slots"] = [self.pid(q) for q in au["slots"]]
            out["free_pass"] = self.pid(au["free_pass"])
        return out

    def summary(self) -> dict:
        """The state as one JSON-ready dict, players by id: round and phase, who acts next, each player's
        cash, income, VP, locomotive, loans ("shares"), action tile and complete links, the turn order, the
        action tiles taken, the auction, goods on cities and reserve hexes, and the final scoring."""
        s = self.s
        net = self.network()
        links: dict[int, int] = {}
        for lk in net.links:
            if lk.complete and lk.owner is not None:
                links[lk.owner] = links.get(lk.owner, 0) + 1
        return {
            "title": self.TITLE, "map": self.board.id, "map_name": self.board.name, "mode": self.mode,
            "round": s.round, "rounds": self.rounds, "phase": s.phase, "phase_name": self.PHASE_NAMES[s.phase],
            "cycle": s.cycle if s.phase == "move" else None, "next": self.pid(self.active_seat()),
            "turn_order": [self.pid(q) for q in s.order],
            "players": [{"id": p.id, "name": p.name, "cash": p.cash, "income": p.income, "vp": p.vp,
                         "vp_track": vp_track(p.vp), "loco": p.loco, "shares": p.loans, "bankrupt": p.bankrupt,
                         "tile": p.tile, "links": links.get(q, 0),
                         "placements_left": (self.placement_limit(q) - s.placements)
                         if s.phase == "build" and self.active_seat() == q else None}
                        for q, p in enumerate(s.players)],
            "action_tiles": {str(t): {"player": self.pid(q), "name": TILE_NAMES[t], "passed": t in s.passed_tiles,
                                      "pending": s.pending.get(q) if t in (5, 7) else None}
                             for t, q in sorted(s.tiles.items())},
            "auction": self._auction_view(),
            "pending_scores": [[self.pid(q), pts] for q, pts in s.score_queue],
            "cities": {hex_key(h): {"name": self.place_name(h), "color": c, "cubes": list(s.city_cubes.get(h, ())),
                                    "grown": h in s.grown, "new_city": h in s.new_cities}
                       for h, c in sorted(self.all_cities().items())},
            "reserve": [list(r) for r in s.reserve],
            "bag": dict(s.bag),
            "new_city_tiles": dict(s.new_city_supply),
            "delivered": s.delivered,
            "finished": s.finished, "end_reason": self.end_reason, "scoring": self.scoring(),
        }

    def view(self) -> dict:
        """The summary plus what the board picture needs: track per hex (tile, rotation, paths with their
        owners' ids and link ids), links (id, owner id, complete, ends, hexes, open end [hex, edge]) and the
        track tiles left."""
        s = self.s
        net = self.network()
        return {
            **self.summary(),
            "track": {hex_key(h): {"tile": t.face, "rotation": t.rot,
                                   "paths": [{"edges": list(sg.edges), "owner": self.pid(sg.owner),
                                              "link": net.link_of(h, sg.edges).id} for sg in t.segs]}
                      for h, t in sorted(s.track.items())},
            "links": [{"id": lk.id, "owner": self.pid(lk.owner), "complete": lk.complete,
                       "ends": [hex_key(e[1]) for e in lk.ends], "hexes": [hex_key(x) for x in lk.hexes],
                       "open_end": [hex_key(lk.open_end[1]), lk.open_end[2]] if lk.open_end else None}
                      for lk in net.links],
            "tile_supply": {f: n for f, n in T.supply_left(s.used_faces).items()},
        }

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[dict]:
        """Every legal action of the player to act, in its log form (ready for `apply`)."""
        from engine.steam.legal import legal_actions

        seat = self.active_seat()
        return [to_dict(a, self.pid(seat)) for a in legal_actions(self)]

    def choices(self) -> list[dict]:
        """The legal actions for autocomplete: each {"action": log form, "label": one readable line}; a
        delivery also has "path" (its links in order, from and to by name, owner id) and "earns" (points
        by player id)."""
        from engine.steam import labels
        from engine.steam.legal import legal_actions

        seat = self.active_seat()
        out = []
        for a in legal_actions(self):
            item = {"action": to_dict(a, self.pid(seat)), "label": labels.label(self, a)}
            if isinstance(a, Move):
                item["path"] = labels.delivery_path(self, a)
                item["earns"] = {str(k): v for k, v in labels.delivery_earnings(self, a).items()}
            out.append(item)
        return out

    def label(self, action) -> str:
        """One readable line for an action (log form or model) in the current state."""
        from engine.steam import labels

        a = action if isinstance(action, BaseModel) else from_dict(action, self.seat_of)
        return labels.label(self, a)

    def track_parts(self, action) -> dict:
        """What a track action (log form) would build now, in words: place, tile, track, cost, town."""
        from engine.steam import labels

        return labels.track_parts(self, from_dict(action, self.seat_of))

    def action_types(self) -> list[str]:
        """The kinds of action the player to act may take now (no listing of every choice)."""
        from engine.steam.legal import deliverable, track_actions

        s = self.s
        seat = self.active_seat()
        if seat is None:
            return []
        if s.score_queue:
            return ["score"]
        if s.phase in ("setup_auction", "auction"):
            return ["bid", "pass"]
        if s.phase == "capital":
            return ["capital"]
        if s.phase == "select":
            return ["take_tile"]
        if s.phase == "move":
            pl = s.players[seat]
            return (["move"] if deliverable(self, seat) else []) + \
                (["upgrade_loco"] if pl.loco < LOCO_MAX and seat not in s.loco_upgraded else []) + ["pass"]
        kinds = []
        if s.placements < self.placement_limit(seat):
            kinds += list(dict.fromkeys(a.type for a in track_actions(self, seat)))
        pending = s.pending.get(seat)
        if pending:
            kinds.append(pending)
        if not (pending and self.mode == "basic" and self._performable(pending, seat)):
            kinds.append("end_build")
        return kinds

    def legal_models(self) -> list:
        """legal_actions as the engine's models (seat-indexed), for the engine's own agents and tests."""
        from engine.steam.legal import legal_actions

        return legal_actions(self)


def replay_log(log: dict, trace: list | None = None) -> tuple[Game, int]:
    """Replay a Steam log (Game.to_18xx's layout): the game and the number of actions applied.  With `trace`,
    one line per applied action is appended: seq, id, type, entity, then the game's summary."""
    if trace is None:
        g = Game.from_18xx(log)
        return g, len(g.actions)
    g = Game.from_18xx({**log, "actions": []})
    trace.append({"seq": 0, "id": 0, "type": "_setup", **g.summary()})
    for action in log.get("actions", []):
        if g.finished:
            break
        try:
            stored = g.apply(action)
        except GameError as e:
            aid = action.get("id") if isinstance(action, dict) else None
            kind = action.get("type") if isinstance(action, dict) else None
            raise GameError("action {aid} ({kind}): {reason}", aid=aid, kind=kind, reason=e) from None
        trace.append({"seq": len(trace), "id": stored["id"], "type": stored["type"], "entity": stored["entity"],
                      "entity_type": "player", **g.summary()})
    return g, len(g.actions)


def nearest_place(board: Board, h: Hex) -> tuple[Hex | None, int]:
    """The nearest city or town to a hex and how many hexes away (ties: the first found)."""
    places = set(board.cities) | set(board.towns)
    seen, ring, steps = {h}, [h], 0
    while ring and steps < 12:
        for x in sorted(ring):
            if x in places:
                return x, steps
        steps += 1
        ring = [n for x in ring for d in range(6) if (n := neighbor(x, d)) in board.hexes and n not in seen
                and not seen.add(n)]
    return None, 0


def compass(origin: Hex, h: Hex) -> str:
    """The direction from one hex to another on the map, as one of 8 compass points."""
    dx = 1.5 * (h[0] - origin[0])
    dy = 3 ** 0.5 * ((h[1] - origin[1]) + (h[0] - origin[0]) / 2)
    angle = (math.degrees(math.atan2(dx, -dy)) + 360) % 360  # 0 = north, clockwise
    return ("N", "NE", "E", "SE", "S", "SW", "W", "NW")[int((angle + 22.5) // 45) % 8]


def reserve_name(i: int) -> str:
    """Reserve hexes are shown lettered A, B, C... (the action field is the 0-based index)."""
    return chr(65 + i)


def vp_track(vp: int) -> dict:
    """Position on the printed 0-50 VP track plus the "+50"/"+100" marker (3.4)."""
    bonus = 100 if vp > 100 else 50 if vp > 50 else 0
    return {"space": vp - bonus, "marker": bonus}
