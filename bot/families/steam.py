"""Steam (engine.steam) in the bot: its session, and its commands in the `/steam` group.

The engine speaks the same outward language as the 18xx core (actions by player id in a log form, legal
moves, a summary, the log as exported), and names things as players do: `game.choices()` labels every
legal move (hexes by their places, a delivery as its path of links with who earns each one), which
the autocomplete offers as it is. Values offered are compact keys the commands read back: a hex `q,r`,
track `lay:22:0`, a cube `q,r:red`, a path of link ids joined by `+`, a reserve hex by its letter.
Pictures: the board and the players (render.steam).
"""

from __future__ import annotations

import logging
from typing import Any

from bot.commands import Button, Command, Option, clean, number, or_list
from bot.errors import UserError, quote
from bot.session import Change, Session, Setting, Title, player_name

log = logging.getLogger(__name__)


def reserve_letter(i: int | None) -> str:
    from engine.steam.game import reserve_name

    return reserve_name(i) if i is not None else ""


def reserve_index(text: Any) -> int | None:
    t = str(text).strip().upper()
    if t in ("", "-", "NONE"):
        return None
    if t.isdigit():
        return int(t)
    if len(t) == 1 and "A" <= t <= "Z":
        return ord(t) - 65
    raise UserError(f"A reserve hex is a letter (A, B, ...), not {quote(text)}.")


def cubes_text(cubes: list[str]) -> str:
    return ", ".join(cubes) if cubes else "no cubes"


class SteamCommand(Command):
    def me(self, player: int) -> dict:
        return {"entity": player, "entity_type": "player"}

    def legal_of(self, legal: list[dict] | None) -> list[dict]:
        return [a for a in legal or [] if a.get("type") in self.types]

    def find(self, legal: list[dict] | None, wanted: dict) -> dict | None:
        """The legal action agreeing with every field of `wanted`."""
        for a in self.legal_of(legal):
            if all(a.get(k) == v for k, v in wanted.items()):
                return clean(a)
        return None

    def labelled(self, s: Steam) -> list[dict]:
        return [c for c in s.choices() if c["action"]["type"] in self.types]

    def who(self, s: Steam, change: Change, names: dict[int, str]) -> str:
        return player_name(change.action.get("entity"), names)


# ---------------------------------------------------------------------------- auctions, shares, tiles
class Bid(SteamCommand):
    name, help, types = "bid", "Bid for the turn order", ("bid",)
    options = (Option("amount", "your bid in dollars", int, True),)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "bid", **self.me(player), "amount": number(opts["amount"], "amount")}

    def choices(self, s, option, filled, legal):
        return [(f"${a['amount']}", a["amount"]) for a in self.legal_of(legal)]

    def describe(self, s, change, names):
        return f"{self.who(s, change, names)} bids ${change.action.get('amount')}"

    def label(self, s, a):
        return f"bid ${a.get('amount')}"

    def options_for(self, a):
        return {"amount": a["amount"]}


class Shares(SteamCommand):
    name, help, types = "shares", "Issue shares: $5 each, income -1 each", ("capital",)
    options = (Option("count", "how many shares to issue (0 for none)", int, True),)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        count = number(opts["count"], "count")
        if count < 0:
            raise UserError("count: how many shares to issue, 0 or more.")
        return {"type": "capital", **self.me(player), "loans": count}

    def choices(self, s, option, filled, legal):
        summary = s.summary()
        income = s.player(summary, summary.get("next")).get("income", 0)
        return [(f"{self.label(s, a)}: +${5 * a['loans']}, income {income} → {income - a['loans']}", a["loans"])
                for a in self.legal_of(legal)]

    def describe(self, s, change, names):
        n = int(change.action.get("loans") or 0)
        who = self.who(s, change, names)
        if not n:
            return f"{who} issues no shares"
        b, a = s.player(change.before, change.action["entity"]), s.player(change.after, change.action["entity"])
        return f"{who} issues {n} share{'s' if n > 1 else ''} for ${5 * n}: income {b.get('income')} → {a.get('income')}"

    def label(self, s, a):
        n = a.get("loans")
        return f"issue {n} share{'' if n == 1 else 's'}"

    def options_for(self, a):
        return {"count": a["loans"]}


class Tile(SteamCommand):
    name, help, types = "tile", "Take an action tile", ("take_tile",)
    options = (Option("tile", "action tile (autocomplete names them)", required=True),)

    @staticmethod
    def key(a: dict) -> str:
        return str(a["tile"]) + ("" if a.get("use", True) else "-skip")

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        raw = str(opts["tile"]).strip().lower()
        digits = "".join(ch for ch in raw.split("-")[0].split()[0] if ch.isdigit()) if raw else ""
        if not digits:
            raise UserError(f"tile: an action tile number 1-7, not {quote(opts['tile'])}.")
        return {"type": "take_tile", **self.me(player), "tile": int(digits), "use": not raw.endswith("skip")}

    def choices(self, s, option, filled, legal):
        return [(c["label"], self.key(c["action"])) for c in self.labelled(s)]

    def describe(self, s, change, names):
        a = change.action
        tile = (change.after.get("action_tiles") or {}).get(str(a.get("tile"))) or {}
        text = f"{self.who(s, change, names)} takes action tile {a.get('tile')} {tile.get('name', '')}".rstrip()
        return text + ("" if a.get("use", True) else ", passing on its action")

    def label(self, s, a):
        return f"tile {self.key(a)}"

    def options_for(self, a):
        return {"tile": self.key(a)}


# ---------------------------------------------------------------------------- building
class Build(SteamCommand):
    name, help, types = "build", "Build track: lay a tile (town tiles too), upgrade or redirect", \
        ("lay", "upgrade", "redirect")
    options = (Option("hex", "where (autocomplete names the places)", required=True),
               Option("track", "what to build there (autocomplete lists the ways)", required=True))
    pictures = frozenset({"map"})

    @staticmethod
    def key(a: dict, with_hex: bool = False) -> str:
        return f"{a['type']}:{a['tile']}:{a['rotation']}" + (f"@{a['hex']}" if with_hex else "")

    def needs_legal(self, options):
        return "," not in str(options.get("hex", "")) or "@" in str(options.get("track", ""))

    def build(self, s, opts, player, legal):
        text = str(opts["track"]).strip()
        where = None
        if "@" in text:
            text, where = (x.strip() for x in text.split("@", 1))
        parts = text.split(":")
        if len(parts) != 3 or parts[0] not in self.types:
            raise UserError(f"track: choose it from the list (e.g. `lay:22:0`), not {quote(opts['track'])}.")
        kind, tile, rotation = parts[0], parts[1], number(parts[2], "rotation")
        h = s.find_hex(opts["hex"], self.legal_of(legal))
        if where is not None and s.find_hex(where, self.legal_of(legal)) != h:
            raise UserError(f"That track is for {s.hex_label(where)}, not {s.hex_label(h)}.")
        return {"type": kind, **self.me(player), "hex": h, "tile": tile, "rotation": rotation}

    def choices(self, s, option, filled, legal):
        builds = self.labelled(s)
        if option == "hex":
            ways: dict[str, list[str]] = {}
            for c in builds:
                ways.setdefault(c["action"]["hex"], []).append(c["action"]["type"])
            out = []
            for h, kinds in ways.items():
                counts = ", ".join(f"{kinds.count(k)} {k}" for k in self.types if k in kinds)
                out.append((f"{s.hex_label(h)} — {counts}", h))
            return out
        h = s.find_hex(filled["hex"], self.legal_of(legal), strict=False) if filled.get("hex") else None
        return [(c["label"], self.key(c["action"], with_hex=h is None)) for c in builds
                if h is None or c["action"]["hex"] == h]

    def describe(self, s, change, names):
        said = change.notes.get("label") or self.label(s, change.action)
        verb, _, rest = said.partition(" ")
        return f"{self.who(s, change, names)} {verb}s {rest}"

    def label(self, s, a):
        return f"{a.get('type')} {a.get('tile')} on {s.hex_label(a.get('hex'))}, rotation {a.get('rotation')}"

    def options_for(self, a):
        return {"hex": a["hex"], "track": self.key(a)}


class Urbanize(SteamCommand):
    name, help, types = "urbanize", "Urbanization: turn a town into a New City", ("urbanize",)
    options = (Option("town", "the town to urbanize", required=True),
               Option("city", "the New City: its colour and the reserve hex whose cubes it takes", required=True))
    pictures = frozenset({"map"})

    @staticmethod
    def key(a: dict) -> str:
        return str(a["color"]) + (f"@{reserve_letter(a['reserve'])}" if a.get("reserve") is not None else "")

    def build(self, s, opts, player, legal):
        h = s.find_hex(opts["town"], self.legal_of(legal))
        color, _, reserve = str(opts["city"]).strip().lower().partition("@")
        return {"type": "urbanize", **self.me(player), "hex": h, "color": color.strip(),
                "reserve": reserve_index(reserve)}

    def choices(self, s, option, filled, legal):
        acts = self.labelled(s)
        if option == "town":
            return [(s.hex_label(h), h) for h in dict.fromkeys(c["action"]["hex"] for c in acts)]
        h = s.find_hex(filled["town"], self.legal_of(legal), strict=False) if filled.get("town") else None
        return [(c["label"], self.key(c["action"])) for c in acts if h is None or c["action"]["hex"] == h]

    def describe(self, s, change, names):
        a = change.action
        cubes = s.reserve_cubes(change.before, a.get("reserve"))
        text = f"{self.who(s, change, names)} urbanizes {s.hex_label(a.get('hex'))}: a {a.get('color')} New City"
        if a.get("reserve") is not None:
            text += f" with reserve hex {reserve_letter(a['reserve'])}'s cubes ({cubes_text(cubes)})"
        return text

    def label(self, s, a):
        return f"New City ({a.get('color')}) on {s.hex_label(a.get('hex'))}"

    def options_for(self, a):
        return {"town": a["hex"], "city": self.key(a)}


class Grow(SteamCommand):
    name, help, types = "grow", "City Growth: move a reserve hex's cubes to a city", ("grow",)
    options = (Option("reserve", "reserve hex (A, B, ...)", required=True),
               Option("city", "the city that grows", required=True))
    pictures = frozenset({"map"})

    def build(self, s, opts, player, legal):
        idx = reserve_index(opts["reserve"])
        if idx is None:
            raise UserError("reserve: the letter of a reserve hex with cubes.")
        return {"type": "grow", **self.me(player), "reserve": idx,
                "city": s.find_hex(opts["city"], self.legal_of(legal), field="city")}

    def choices(self, s, option, filled, legal):
        acts = [c["action"] for c in self.labelled(s)]
        cubes = s.summary().get("reserve") or []
        if option == "reserve":
            return [(f"{reserve_letter(i)}: {cubes_text(cubes[i] if i < len(cubes) else [])}", reserve_letter(i))
                    for i in dict.fromkeys(a["reserve"] for a in acts)]
        want = reserve_index(filled["reserve"]) if filled.get("reserve") else None
        return [(s.hex_label(a["city"]), a["city"]) for a in acts if want is None or a["reserve"] == want]

    def describe(self, s, change, names):
        a = change.action
        cubes = s.reserve_cubes(change.before, a.get("reserve"))
        return (f"{self.who(s, change, names)} grows {s.hex_label(a.get('city'))} with reserve hex "
                f"{reserve_letter(a.get('reserve'))}'s cubes ({cubes_text(cubes)})")

    def label(self, s, a):
        return f"City Growth: reserve {reserve_letter(a.get('reserve'))} to {s.hex_label(a.get('city'))}"

    def options_for(self, a):
        return {"reserve": reserve_letter(a["reserve"]), "city": a["city"]}


class Done(SteamCommand):
    name, help, types = "done", "End your build turn", ("end_build",)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "end_build", **self.me(player)}

    def describe(self, s, change, names):
        said = change.notes.get("label") or "end building"
        return f"{self.who(s, change, names)} ends building" + (said[len('end building'):] if said.startswith(
            "end building") else "")

    def label(self, s, a):
        return "end building"


# ---------------------------------------------------------------------------- moving goods
def path_text(s: Steam, path: list[dict], earns: dict, mover: Any) -> str:
    """`Chicago→Gary (you)→Toledo (Bob): you 1, Bob 1`."""
    if not path:
        return "?"
    names = s.player_names()
    hops = path[0]["from"] + "".join(
        f"→{p['to']} ({'you' if p['owner'] == mover else names.get(p['owner'], 'nobody') if p['owner'] is not None else 'nobody'})"
        for p in path)
    pts = [f"you {earns.get(str(mover), 0)}"] + [f"{names.get(int(k), k)} {v}" for k, v in earns.items()
                                                  if str(k) != str(mover)]
    return f"{hops}: {', '.join(pts)}"


class Deliver(SteamCommand):
    name, help, types = "deliver", "Move goods: deliver a cube along a path of links", ("move",)
    options = (Option("cube", "the cube to move and the city it starts in", required=True),
               Option("path", "the links it travels, and who earns each one", required=True),
               Option("points", "your points: income (default) or vp"))
    pictures = frozenset({"map"})

    @staticmethod
    def cube_key(a: dict) -> str:
        return f"{a['city']}:{a['color']}"

    def build(self, s, opts, player, legal):
        city, _, color = str(opts["cube"]).strip().rpartition(":")
        if not city or not color:
            raise UserError(f"cube: choose it from the list (e.g. `3,4:red`), not {quote(opts['cube'])}.")
        links = [x.strip() for x in str(opts["path"]).split("+") if x.strip()]
        to = str(opts.get("points") or "income").strip().lower()
        if to not in ("income", "vp"):
            raise UserError(f"points: `income` or `vp`, not {quote(opts.get('points'))}.")
        h = s.find_hex(city, self.legal_of(legal), field="city")
        wanted = {"city": h, "color": color.strip().lower(), "links": links, "to": to}
        return self.find(legal, wanted) or {"type": "move", **self.me(player), **wanted}

    def choices(self, s, option, filled, legal):
        moves = [c for c in self.labelled(s) if c["action"].get("to") == "income"]
        if option == "points":
            return [("income", "income"), ("vp", "vp")]
        if option == "cube":
            paths: dict[str, int] = {}
            for c in moves:
                k = self.cube_key(c["action"])
                paths[k] = paths.get(k, 0) + 1
            return [(f"{k.split(':')[1]} cube in {s.hex_label(k.split(':')[0])} ({n} path{'s' if n > 1 else ''})", k)
                    for k, n in paths.items()]
        cube = str(filled.get("cube") or "")
        mover = s.acting().get("entity")
        return [(path_text(s, c.get("path") or [], c.get("earns") or {}, mover), "+".join(c["action"]["links"]))
                for c in moves if not cube or self.cube_key(c["action"]) == cube]

    def describe(self, s, change, names):
        a = change.action
        path, earns = change.notes.get("path") or [], change.notes.get("earns") or {}
        mover = a.get("entity")
        dest = path[-1]["to"] if path else "?"
        text = f"{self.who(s, change, names)} delivers a {a.get('color')} cube from {s.hex_label(a.get('city'))} to {dest}"
        if path:
            text += " via " + ", ".join(f"{p['from']}–{p['to']} ({player_name(p['owner'], names) if p['owner'] is not None else 'nobody'})"
                                         for p in path)
        mine = earns.get(str(mover), 0)
        points = [f"{player_name(mover, names)} +{mine} {'income' if a.get('to') == 'income' else 'VP'}"] if mine else []
        points += [f"{player_name(int(k), names)} {v} point{'s' if v > 1 else ''}" for k, v in earns.items()
                   if str(k) != str(mover)]
        return text + (f": {', '.join(points)}" if points else "")

    def label(self, s, a):
        return f"{a.get('color')} cube from {s.hex_label(a.get('city'))} ({len(a.get('links') or [])} links)"

    def options_for(self, a):
        return {"cube": self.cube_key(a), "path": "+".join(a["links"]), "points": a.get("to", "income")}


class Loco(SteamCommand):
    name, help, types = "loco", "Upgrade your locomotive (instead of moving a cube)", ("upgrade_loco",)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "upgrade_loco", **self.me(player)}

    def describe(self, s, change, names):
        pid = change.action["entity"]
        b, a = s.player(change.before, pid).get("loco"), s.player(change.after, pid).get("loco")
        return f"{self.who(s, change, names)} upgrades the locomotive: {b} → {a}"

    def label(self, s, a):
        return "upgrade the locomotive"


class Score(SteamCommand):
    name, help, types = "score", "Put your points from another player's delivery on income or VP", ("score",)
    options = (Option("to", "income or vp", required=True),)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        to = str(opts["to"]).strip().lower()
        if to not in ("income", "vp"):
            raise UserError(f"to: `income` or `vp`, not {quote(opts['to'])}.")
        return {"type": "score", **self.me(player), "to": to}

    def choices(self, s, option, filled, legal):
        return [(c["label"], c["action"]["to"]) for c in self.labelled(s)]

    def describe(self, s, change, names):
        pending = change.before.get("pending_scores") or [[None, 0]]
        pts = pending[0][1]
        to = "income" if change.action.get("to") == "income" else "VP"
        return f"{self.who(s, change, names)} puts {pts} point{'s' if pts != 1 else ''} on {to}"

    def label(self, s, a):
        return f"points on {a.get('to')}"

    def options_for(self, a):
        return {"to": a["to"]}


class Pass(SteamCommand):
    name, help, types = "pass", "Pass (in an auction: drop out; in moving goods: move nothing)", ("pass",)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "pass", **self.me(player)}

    def describe(self, s, change, names):
        said = change.notes.get("label") or ""
        who = self.who(s, change, names)
        if "free pass" in said:
            return f"{who} uses the First Player free pass and stays in"
        if "drop out" in said:
            return f"{who} drops out of the auction"
        return f"{who} passes"

    def label(self, s, a):
        return "pass"


COMMANDS: tuple[Command, ...] = (Bid(), Pass(), Shares(), Tile(), Build(), Urbanize(), Grow(), Done(), Deliver(),
                                 Loco(), Score())

HINTS = {"bid": "bid", "capital": "issue shares (/steam shares)", "take_tile": "take an action tile (/steam tile)",
         "urbanize": "place your New City (/steam urbanize)", "grow": "grow a city (/steam grow)",
         "move": "deliver a cube (/steam deliver)", "upgrade_loco": "upgrade your locomotive (/steam loco)",
         "end_build": "end building (/steam done)"}


class Steam(Session):
    family = "steam"
    group = "steam"
    commands = {c.name: c for c in COMMANDS}
    buttons = {
        "income": Button("Points on income", "success", "score", (("to", "income"),), when="score"),
        "vp": Button("Points on VP", "secondary", "score", (("to", "vp"),), when="score"),
        "done": Button("Done building", "primary", "done", when="end_build"),
        "pass": Button("Pass", "secondary", "pass", when="pass"),
    }
    picture_kinds = ("map", "players")
    start_pictures = ("map", "players")

    def __init__(self, title: str, game: Any):
        super().__init__(title, game)
        self._choices: tuple[int, list[dict]] | None = None

    # ---------------------------------------------------------------- making games
    @classmethod
    def titles(cls) -> list[Title]:
        from engine.steam import Game, Settings, load_board, map_names

        boards = [load_board(m) for m in map_names()]
        maps = tuple((b.name, b.id) for b in boards)
        modes = tuple((m, m) for m in Settings.model_fields["mode"].annotation.__args__)
        low = min(b.min_players for b in boards)
        high = max(b.max_players for b in boards)
        return [Title(Game.TITLE, "Steam", cls, (low, high),
                      (Setting("map", "Steam map", maps, Settings.model_fields["map"].default),
                       Setting("mode", "basic or standard game", modes, Settings.model_fields["mode"].default)))]

    @classmethod
    def new_game(cls, title, players, seed, setup, game_id=None):
        from engine.steam import Game, Settings

        game = Game(Settings(map=setup.get("map") or Settings.model_fields["map"].default,
                             mode=setup.get("mode") or Settings.model_fields["mode"].default,
                             turn_order=setup.get("turn_order") or Settings.model_fields["turn_order"].default,
                             players=players, seed=seed))
        game.game_id = game_id
        return game

    @classmethod
    def load_game(cls, log_dict):
        from engine.steam import Game

        return Game.from_18xx(log_dict)

    @classmethod
    def log(cls, title, players, seed, setup, actions, game_id=None):
        settings = {k: setup[k] for k in ("map", "mode", "turn_order") if setup.get(k)}
        return {"id": game_id if game_id is not None else seed, "title": title, "players": players,
                "settings": {**settings, "seed": seed}, "actions": actions}

    def setup(self) -> dict:
        st = self.game.settings
        return {"optional_rules": [], "map": st.map, "mode": st.mode, "turn_order": st.turn_order}

    @property
    def seed(self) -> int:
        return int(self.game.settings.seed)

    @classmethod
    def warm(cls, title: str) -> None:
        from engine.steam import Settings

        try:
            import render.steam as pictures
        except ImportError:
            return
        pictures.warm(Settings.model_fields["map"].default)

    # ---------------------------------------------------------------- what the engine tells
    def choices(self) -> list[dict]:
        """The legal moves with their labels (and a delivery's path and earnings), per state."""
        n = len(self.actions)
        if self._choices is None or self._choices[0] != n:
            self._choices = (n, self.game.choices())
        return self._choices[1]

    def legal(self) -> list[dict]:
        return [c["action"] for c in self.choices()]

    def line(self, action: dict, names: dict[int, str]) -> str:
        return f"{self.actor_name(action, names)}: {self.label(action)}"

    def legal_labels(self) -> list[tuple[dict, str]]:
        return [(c["action"], c["label"]) for c in self.choices()]

    def player_names(self) -> dict[int, str]:
        return {p.id: p.name for p in self.game.players}

    @staticmethod
    def player(summary: dict, pid: Any) -> dict:
        return next((p for p in summary.get("players") or [] if p.get("id") == pid), {})

    @staticmethod
    def reserve_cubes(summary: dict, i: int | None) -> list[str]:
        reserve = summary.get("reserve") or []
        return list(reserve[i]) if i is not None and 0 <= i < len(reserve) else []

    def hex_label(self, h: Any) -> str:
        """A hex as players name it (a city's or town's name, else where it lies)."""
        try:
            from engine.steam.hexes import parse_hex

            return self.game.hex_label(parse_hex(h))
        except Exception:
            return str(h)

    def find_hex(self, text: Any, legal: list[dict], field: str = "hex", strict: bool = True) -> str:
        """A hex `q,r` from member input: coordinates, or the name of a place among the legal moves'."""
        raw = str(text).strip()
        if "," in raw and raw.replace(",", "").replace("-", "").replace(" ", "").isdigit():
            return raw.replace(" ", "")
        hexes = list(dict.fromkeys(a.get(field) for a in legal if a.get(field)))
        lowered = raw.lower()
        for h in hexes:
            if self.hex_label(h).lower() == lowered:
                return h
        found = [h for h in hexes if self.hex_label(h).lower().startswith(lowered)]
        if len(found) == 1 or (found and not strict):
            return found[0]
        if strict:
            raise UserError(f"{quote(raw)} is not a hex you can use now: write `q,r` or choose from the list.")
        return raw

    # ---------------------------------------------------------------- applying
    def notes_before(self, action: dict) -> dict:
        notes: dict = {}
        try:
            notes["label"] = self.game.label(action)
        except Exception:  # an action the engine will refuse: it says why
            return notes
        if action.get("type") == "move":
            same = {k: v for k, v in action.items() if k not in ("id", "created_at")}
            match = next((c for c in self.choices() if c["action"] == same), None)
            if match:
                notes["path"], notes["earns"] = match.get("path"), match.get("earns")
        return notes

    def notes_after(self, change: Change) -> None:
        change.notes["events"] = self.game.last_events()

    # ---------------------------------------------------------------- words
    def describe(self, change: Change, names: dict[int, str]) -> str:
        text = super().describe(change, names)
        events = [e for e in change.notes.get("events") or [] if " urbanizes " not in e and "free pass" not in e]
        if events:
            text += "; " + "; ".join(events)
        return text + self.aftermath(change, names)

    def aftermath(self, change: Change, names: dict[int, str]) -> str:
        before, after = change.before, change.after
        notes = []
        if after.get("round") != before.get("round"):
            moved = []
            for p in after.get("players") or []:
                b = self.player(before, p["id"]).get("cash")
                if b is not None and p.get("cash") != b:
                    moved.append(f"{player_name(p['id'], names)} {'+' if p['cash'] > b else '-'}${abs(p['cash'] - b)}")
            if moved:
                notes.append("income and expenses: " + ", ".join(moved))
            if not after.get("finished"):
                notes.append(f"round {after.get('round')} of {after.get('rounds')} begins")
        if after.get("turn_order") != before.get("turn_order") and after.get("turn_order"):
            notes.append("turn order " + ", ".join(player_name(p, names) for p in after["turn_order"]))
        if after.get("phase") != before.get("phase") and not after.get("finished"):
            notes.append(f"now: {after.get('phase_name')}")
        elif after.get("cycle") and after.get("cycle") != before.get("cycle"):
            notes.append(f"move goods, cycle {after['cycle']}")
        if after.get("finished") and not before.get("finished"):
            notes.append("the game is over" + (f" ({after['end_reason']})" if after.get("end_reason") else ""))
        return "" if not notes else " — " + "; ".join(notes)

    def hint(self, names: dict[int, str]) -> str:
        types = self.action_types()
        s = self.summary()
        me = self.player(s, s.get("next"))
        if "score" in types:
            pts = (s.get("pending_scores") or [[None, 0]])[0][1]
            return f"put your {pts} point{'s' if pts != 1 else ''} from that delivery on income or VP (/steam score)"
        if "bid" in types:
            au = s.get("auction") or {}
            high = au.get("high")
            least = 0 if high is None else high + 1
            high_txt = f" (high bid: {player_name(au.get('high_player'), names)} ${high})" if high is not None else ""
            return f"bid at least ${least}{high_txt} (/steam bid) or pass"
        words = []
        if any(t in types for t in ("lay", "upgrade", "redirect")):
            left = me.get("placements_left")
            tiles = f"{left} tile{'s' if left != 1 else ''} left: " if left else ""
            words.append(f"build track ({tiles}/steam build)")
        words += [HINTS[t] for t in types if t in HINTS and t != "bid"]
        if "pass" in types:
            words.append("pass")
        return or_list(words) if words else ""

    def status_lines(self, names: dict[int, str]) -> list[str]:
        s = self.summary()
        head = f"{s.get('map_name')}, {s.get('mode')} game — round {s.get('round')} of {s.get('rounds')}, " \
               f"{s.get('phase_name')}" + (f" (cycle {s['cycle']})" if s.get("cycle") else "") + "."
        lines = [head]
        if s.get("turn_order"):
            lines.append("Turn order: " + ", ".join(player_name(p, names) for p in s["turn_order"]) + ".")
        tiles = {t["player"]: f"{k} {t['name']}" for k, t in (s.get("action_tiles") or {}).items()}
        for p in s.get("players") or []:
            bits = [f"${p.get('cash')}", f"income {p.get('income')}", f"{p.get('vp')} VP", f"locomotive {p.get('loco')}"]
            if p.get("shares"):
                bits.append(f"{p['shares']} share{'s' if p['shares'] > 1 else ''} issued")
            if p.get("id") in tiles:
                bits.append(f"tile {tiles[p['id']]}")
            if p.get("links"):
                bits.append(f"{p['links']} link{'s' if p['links'] > 1 else ''}")
            if p.get("bankrupt"):
                bits.append("bankrupt")
            lines.append(f"• {player_name(p.get('id'), names)}: {', '.join(bits)}")
        reserve = [f"{reserve_letter(i)} ({cubes_text(c)})" for i, c in enumerate(s.get("reserve") or []) if c]
        if reserve:
            lines.append("• goods display: " + ", ".join(reserve))
        au = s.get("auction")
        if au and au.get("high") is not None:
            lines.append(f"• high bid: {player_name(au.get('high_player'), names)} ${au['high']}")
        return lines

    def result_text(self, names: dict[int, str]) -> str:
        scoring = self.game.scoring() or {}
        rows = scoring.get("ranking") or []
        return ", ".join(f"{player_name(r['id'], names)} {r['vp']} VP" + (" (bankrupt)" if r.get("bankrupt") else "")
                         for r in rows)

    # ---------------------------------------------------------------- pictures and buttons
    PLAYER_FIELDS = ("cash", "income", "vp", "loco", "shares", "tile", "bankrupt", "links")

    def pictures_for(self, change: Change) -> set[str]:
        kinds = super().pictures_for(change)
        before, after = change.before, change.after
        for p in after.get("players") or []:
            b = self.player(before, p.get("id"))
            if any(p.get(k) != b.get(k) for k in self.PLAYER_FIELDS):
                kinds.add("players")
        if before.get("turn_order") != after.get("turn_order") or before.get("action_tiles") != after.get("action_tiles"):
            kinds.add("players")
        if before.get("cities") != after.get("cities") or before.get("reserve") != after.get("reserve"):
            kinds.add("map")
        if after.get("finished"):
            kinds |= {"map", "players"}
        return kinds

    def draw(self, kind: str, change: Change | None = None, names: dict[int, str] | None = None) -> bytes | None:
        try:
            import render.steam as pictures
        except ImportError:  # the Steam pictures are not installed
            return None
        if kind == "map":
            return pictures.draw_board(self._named(self.game.view(), names))
        if kind == "players":
            return pictures.draw_players(self._named(self.summary(), names))
        return None

    @staticmethod
    def _named(state: dict, names: dict[int, str] | None) -> dict:
        if names:
            state["players"] = [{**p, "name": names.get(p.get("id"), p.get("name"))} for p in state.get("players") or []]
        return state
