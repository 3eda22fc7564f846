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
import re
from typing import Any

from bot.commands import Button, Command, Option, clean, number, or_list
from bot.errors import UserError, quote
from bot.session import Change, Session, Setting, Title, player_name
from i18n import N_, NP_, _, language, lazy, ngettext, pgettext

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
    raise UserError(lazy("A reserve hex is a letter (A, B, ...), not {value}.", value=quote(text)))


def cubes_text(cubes: list[str]) -> str:
    from engine.steam.labels import cubes_text as words

    return words(cubes)


def color_word(color: Any) -> str:
    return pgettext("colour", str(color))


def tile_name(tile: Any) -> str:
    from engine.steam.game import TILE_NAMES

    try:
        return _(TILE_NAMES[int(tile)])
    except (KeyError, TypeError, ValueError):
        return ""


def phase_word(name: Any) -> str:
    """A phase's name (the engine's `phase_name`) in the language in force."""
    return _(str(name)) if name else ""


# the engine's events (`Game.last_events`) are English sentences; their words in the language in force
EVENTS = tuple((re.compile(pattern), msgid) for pattern, msgid in (
    (r"^initial order by drawn tiles (?P<draws>.+)$", N_("initial order by drawn tiles {draws}")),
    (r"^(?P<name>.+) borrows \$(?P<amount>\d+) \(income -(?P<income>\d+), VP -(?P<vp>\d+)\)$",
     N_("{name} borrows ${amount} (income -{income}, VP -{vp})")),
    (r"^(?P<name>.+) wins slot (?P<slot>\d+) for \$(?P<price>\d+)$", N_("{name} wins slot {slot} for ${price}")),
    (r"^(?P<name>.+) pays \$(?P<price>\d+) for slot (?P<slot>\d+)$", N_("{name} pays ${price} for slot {slot}")),
    (r"^(?P<name>.+) is bankrupt and leaves the game$", N_("{name} is bankrupt and leaves the game")),
))


def event_text(event: str) -> str:
    for pattern, msgid in EVENTS:
        m = pattern.match(event)
        if m:
            return _(msgid, **m.groupdict())
    return event


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
    name, help, types = "bid", N_("Bid for the turn order"), ("bid",)
    options = (Option("amount", N_("your bid in dollars"), int, True),)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "bid", **self.me(player), "amount": number(opts["amount"], "amount")}

    def choices(self, s, option, filled, legal):
        return [(f"${a['amount']}", a["amount"]) for a in self.legal_of(legal)]

    def describe(self, s, change, names):
        return _("{name} bids ${amount}", name=self.who(s, change, names), amount=change.action.get("amount"))

    def label(self, s, a):
        return _("bid ${amount}", amount=a.get("amount"))

    def options_for(self, a):
        return {"amount": a["amount"]}


class Shares(SteamCommand):
    name, help, types = "shares", N_("Issue shares: $5 each, income -1 each"), ("capital",)
    options = (Option("count", N_("how many shares to issue (0 for none)"), int, True),)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        count = number(opts["count"], "count")
        if count < 0:
            raise UserError(lazy("count: how many shares to issue, 0 or more."))
        return {"type": "capital", **self.me(player), "loans": count}

    def choices(self, s, option, filled, legal):
        summary = s.summary()
        income = s.player(summary, summary.get("next")).get("income", 0)
        return [(_("{shares}: +${amount}, income {before} → {after}", shares=self.label(s, a), amount=5 * a["loans"],
                   before=income, after=income - a["loans"]), a["loans"]) for a in self.legal_of(legal)]

    def describe(self, s, change, names):
        n = int(change.action.get("loans") or 0)
        who = self.who(s, change, names)
        if not n:
            return _("{name} issues no shares", name=who)
        b, a = s.player(change.before, change.action["entity"]), s.player(change.after, change.action["entity"])
        return ngettext("{name} issues {n} share for ${amount}: income {before} → {after}",
                        "{name} issues {n} shares for ${amount}: income {before} → {after}", n, name=who,
                        amount=5 * n, before=b.get("income"), after=a.get("income"))

    def label(self, s, a):
        return ngettext("issue {n} share", "issue {n} shares", int(a.get("loans") or 0))

    def options_for(self, a):
        return {"count": a["loans"]}


class Tile(SteamCommand):
    name, help, types = "tile", N_("Take an action tile"), ("take_tile",)
    options = (Option("tile", N_("action tile (autocomplete names them)"), required=True),)

    @staticmethod
    def key(a: dict) -> str:
        return str(a["tile"]) + ("" if a.get("use", True) else "-skip")

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        raw = str(opts["tile"]).strip().lower()
        digits = "".join(ch for ch in (raw.split("-")[0].split() or [""])[0] if ch.isdigit())
        if not digits:
            raise UserError(lazy("tile: an action tile number 1-7, not {value}.", value=quote(opts["tile"])))
        return {"type": "take_tile", **self.me(player), "tile": int(digits), "use": not raw.endswith("skip")}

    def choices(self, s, option, filled, legal):
        return [(c["label"], self.key(c["action"])) for c in self.labelled(s)]

    def describe(self, s, change, names):
        a = change.action
        tile = f"{a.get('tile')} {tile_name(a.get('tile'))}".rstrip()
        if a.get("use", True):
            return _("{name} takes action tile {tile}", name=self.who(s, change, names), tile=tile)
        return _("{name} takes action tile {tile}, passing on its action", name=self.who(s, change, names), tile=tile)

    def label(self, s, a):
        return _("tile {tile}", tile=self.key(a))

    def options_for(self, a):
        return {"tile": self.key(a)}


# ---------------------------------------------------------------------------- building
class Build(SteamCommand):
    name, help, types = "build", N_("Build track: lay a tile (town tiles too), upgrade or redirect"), \
        ("lay", "upgrade", "redirect")
    options = (Option("hex", N_("where (autocomplete names the places)"), required=True),
               Option("track", N_("what to build there (autocomplete lists the ways)"), required=True))
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
            raise UserError(lazy("track: choose it from the list (e.g. `lay:22:0`), not {value}.",
                                 value=quote(opts["track"])))
        kind, tile, rotation = parts[0], parts[1], number(parts[2], "rotation")
        h = s.find_hex(opts["hex"], self.legal_of(legal))
        if where is not None and s.find_hex(where, self.legal_of(legal)) != h:
            raise UserError(lazy("That track is for {place}, not {other}.", place=s.hex_label(where),
                                 other=s.hex_label(h)))
        return {"type": kind, **self.me(player), "hex": h, "tile": tile, "rotation": rotation}

    def choices(self, s, option, filled, legal):
        builds = self.labelled(s)
        if option == "hex":
            ways: dict[str, list[str]] = {}
            for c in builds:
                ways.setdefault(c["action"]["hex"], []).append(c["action"]["type"])
            out = []
            for h, kinds in ways.items():
                counts = ", ".join(self.ways(kinds.count(k), k) for k in self.types if k in kinds)
                out.append((f"{s.hex_label(h)} — {counts}", h))
            return out
        h = s.find_hex(filled["hex"], self.legal_of(legal), strict=False) if filled.get("hex") else None
        return [(c["label"], self.key(c["action"], with_hex=h is None)) for c in builds
                if h is None or c["action"]["hex"] == h]

    KINDS = (NP_("track", "lay"), NP_("track", "upgrade"), NP_("track", "redirect"))  # shown with pgettext

    @staticmethod
    def ways(n: int, kind: str) -> str:
        if kind == "lay":
            return ngettext("{n} lay", "{n} lays", n)
        if kind == "upgrade":
            return ngettext("{n} upgrade", "{n} upgrades", n)
        return ngettext("{n} redirect", "{n} redirects", n)

    def describe(self, s, change, names):
        who, kind = self.who(s, change, names), change.action.get("type")
        p = change.notes.get("track")
        if not p:
            return _("{name}: {what}", name=who, what=self.label(s, change.action))
        if kind == "lay" and p.get("town"):
            return _("{who} lays town tile {tile} on {place}: {track}{cost}", who=who, **p)
        if kind == "lay":
            return _("{who} lays {tile} on {place}: {track}{cost}", who=who, **p)
        if kind == "upgrade":
            return _("{who} upgrades {place} to {tile}: adds {track}{cost}", who=who, **p)
        return _("{who} redirects {place} ({tile}): now {track}{cost}", who=who, **p)

    def label(self, s, a):
        return _("{kind} {tile} on {place}, rotation {rotation}", kind=pgettext("track", str(a.get("type"))),
                 tile=a.get("tile"), place=s.hex_label(a.get("hex")), rotation=a.get("rotation"))

    def options_for(self, a):
        return {"hex": a["hex"], "track": self.key(a)}


class Urbanize(SteamCommand):
    name, help, types = "urbanize", N_("Urbanization: turn a town into a New City"), ("urbanize",)
    options = (Option("town", N_("the town to urbanize"), required=True),
               Option("city", N_("the New City: its colour and the reserve hex whose cubes it takes"), required=True))
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
        who, place, color = self.who(s, change, names), s.hex_label(a.get("hex")), color_word(a.get("color"))
        if a.get("reserve") is not None:
            return _("{name} urbanizes {place}: a {color} New City with reserve hex {reserve}'s cubes ({cubes})",
                     name=who, place=place, color=color, reserve=reserve_letter(a["reserve"]), cubes=cubes_text(cubes))
        return _("{name} urbanizes {place}: a {color} New City", name=who, place=place, color=color)

    def label(self, s, a):
        return _("New City ({color}) on {place}", color=color_word(a.get("color")), place=s.hex_label(a.get("hex")))

    def options_for(self, a):
        return {"town": a["hex"], "city": self.key(a)}


class Grow(SteamCommand):
    name, help, types = "grow", N_("City Growth: move a reserve hex's cubes to a city"), ("grow",)
    options = (Option("reserve", N_("reserve hex (A, B, ...)"), required=True),
               Option("city", N_("the city that grows"), required=True))
    pictures = frozenset({"map"})

    def build(self, s, opts, player, legal):
        idx = reserve_index(opts["reserve"])
        if idx is None:
            raise UserError(lazy("reserve: the letter of a reserve hex with cubes."))
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
        return _("{name} grows {place} with reserve hex {reserve}'s cubes ({cubes})", name=self.who(s, change, names),
                 place=s.hex_label(a.get("city")), reserve=reserve_letter(a.get("reserve")), cubes=cubes_text(cubes))

    def label(self, s, a):
        return _("City Growth: reserve {reserve} to {place}", reserve=reserve_letter(a.get("reserve")),
                 place=s.hex_label(a.get("city")))

    def options_for(self, a):
        return {"reserve": reserve_letter(a["reserve"]), "city": a["city"]}


class Done(SteamCommand):
    name, help, types = "done", N_("End your build turn"), ("end_build",)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "end_build", **self.me(player)}

    def describe(self, s, change, names):
        who, without = self.who(s, change, names), change.notes.get("without")
        if without == "urbanize":
            return _("{name} ends building (without the New City)", name=who)
        if without:
            return _("{name} ends building (without the City Growth)", name=who)
        return _("{name} ends building", name=who)

    def label(self, s, a):
        return _("end building")


# ---------------------------------------------------------------------------- moving goods
def path_text(s: Steam, path: list[dict], earns: dict, mover: Any) -> str:
    """`Chicago→Gary (you)→Toledo (Bob): you 1, Bob 1`."""
    if not path:
        return "?"
    names = s.player_names()
    you, nobody = _("you"), _("nobody")
    hops = path[0]["from"] + "".join(
        f"→{p['to']} ({you if p['owner'] == mover else names.get(p['owner'], nobody) if p['owner'] is not None else nobody})"
        for p in path)
    pts = [_("you {n}", n=earns.get(str(mover), 0))] + [f"{names.get(int(k), k)} {v}" for k, v in earns.items()
                                                         if str(k) != str(mover)]
    return f"{hops}: {', '.join(pts)}"


class Deliver(SteamCommand):
    name, help, types = "deliver", N_("Move goods: deliver a cube along a path of links"), ("move",)
    options = (Option("cube", N_("the cube to move and the city it starts in"), required=True),
               Option("path", N_("the links it travels, and who earns each one"), required=True),
               Option("points", N_("your points: income (default) or vp")))
    pictures = frozenset({"map"})

    @staticmethod
    def cube_key(a: dict) -> str:
        return f"{a['city']}:{a['color']}"

    def build(self, s, opts, player, legal):
        city, _, color = str(opts["cube"]).strip().rpartition(":")
        if not city or not color:
            raise UserError(lazy("cube: choose it from the list (e.g. `3,4:red`), not {value}.",
                                 value=quote(opts["cube"])))
        links = [x.strip() for x in str(opts["path"]).split("+") if x.strip()]
        to = str(opts.get("points") or "income").strip().lower()
        if to not in ("income", "vp"):
            raise UserError(lazy("points: `income` or `vp`, not {value}.", value=quote(opts.get("points"))))
        h = s.find_hex(city, self.legal_of(legal), field="city")
        wanted = {"city": h, "color": color.strip().lower(), "links": links, "to": to}
        return self.find(legal, wanted) or {"type": "move", **self.me(player), **wanted}

    def choices(self, s, option, filled, legal):
        moves = [c for c in self.labelled(s) if c["action"].get("to") == "income"]
        if option == "points":
            return [(_("income"), "income"), (_("VP"), "vp")]
        if option == "cube":
            paths: dict[str, int] = {}
            for c in moves:
                k = self.cube_key(c["action"])
                paths[k] = paths.get(k, 0) + 1
            return [(ngettext("{color} cube in {place} ({n} path)", "{color} cube in {place} ({n} paths)", n,
                              color=color_word(k.split(":")[1]), place=s.hex_label(k.split(":")[0])), k)
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
        who, color, start = self.who(s, change, names), color_word(a.get("color")), s.hex_label(a.get("city"))
        if path:
            via = ", ".join(f"{p['from']}–{p['to']} ({player_name(p['owner'], names) if p['owner'] is not None else _('nobody')})"
                            for p in path)
            text = _("{name} delivers a {color} cube from {start} to {end} via {links}", name=who, color=color,
                     start=start, end=dest, links=via)
        else:
            text = _("{name} delivers a {color} cube from {start} to {end}", name=who, color=color, start=start,
                     end=dest)
        mine = earns.get(str(mover), 0)
        where = _("income") if a.get("to") == "income" else _("VP")
        points = [f"{player_name(mover, names)} +{mine} {where}"] if mine else []
        points += [ngettext("{name} {n} point", "{name} {n} points", v, name=player_name(int(k), names))
                   for k, v in earns.items() if str(k) != str(mover)]
        return text + (f": {', '.join(points)}" if points else "")

    def label(self, s, a):
        return ngettext("{color} cube from {place} ({n} link)", "{color} cube from {place} ({n} links)",
                        len(a.get("links") or []), color=color_word(a.get("color")), place=s.hex_label(a.get("city")))

    def options_for(self, a):
        return {"cube": self.cube_key(a), "path": "+".join(a["links"]), "points": a.get("to", "income")}


class Loco(SteamCommand):
    name, help, types = "loco", N_("Upgrade your locomotive (instead of moving a cube)"), ("upgrade_loco",)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        return {"type": "upgrade_loco", **self.me(player)}

    def describe(self, s, change, names):
        pid = change.action["entity"]
        b, a = s.player(change.before, pid).get("loco"), s.player(change.after, pid).get("loco")
        return _("{name} upgrades the locomotive: {before} → {after}", name=self.who(s, change, names), before=b, after=a)

    def label(self, s, a):
        return _("upgrade the locomotive")


class Score(SteamCommand):
    name, help, types = "score", N_("Put your points from another player's delivery on income or VP"), ("score",)
    options = (Option("to", N_("income or vp"), required=True),)

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        to = str(opts["to"]).strip().lower()
        if to not in ("income", "vp"):
            raise UserError(lazy("to: `income` or `vp`, not {value}.", value=quote(opts["to"])))
        return {"type": "score", **self.me(player), "to": to}

    def choices(self, s, option, filled, legal):
        return [(c["label"], c["action"]["to"]) for c in self.labelled(s)]

    def describe(self, s, change, names):
        pending = change.before.get("pending_scores") or [[None, 0]]
        pts = pending[0][1]
        where = _("income") if change.action.get("to") == "income" else _("VP")
        return ngettext("{name} puts {n} point on {where}", "{name} puts {n} points on {where}", pts,
                        name=self.who(s, change, names), where=where)

    def label(self, s, a):
        return _("points on {where}", where=_("income") if a.get("to") == "income" else _("VP"))

    def options_for(self, a):
        return {"to": a["to"]}


class Pass(SteamCommand):
    name, help, types = "pass", N_("Pass (in an auction: drop out; in moving goods: move nothing)"), ("pass",)
    options = (Option("free_pass", N_("the First Player's free pass: use (stay in) or decline (drop out); used "
                                      "if left out")),)
    FREE_PASS = {"use": True, "decline": False}  # the option's values -> the engine's `free_pass`

    def needs_legal(self, options):
        return False

    def build(self, s, opts, player, legal):
        action = {"type": "pass", **self.me(player)}
        if "free_pass" in opts:
            said = str(opts["free_pass"]).strip().lower()
            if said not in self.FREE_PASS:
                raise UserError(lazy("free_pass: `use` or `decline`, not {value}.", value=quote(opts["free_pass"])))
            action["free_pass"] = self.FREE_PASS[said]
        return action

    def choices(self, s, option, filled, legal):
        return [(c["label"], self.key(c["action"])) for c in self.labelled(s) if "free_pass" in c["action"]]

    def key(self, a: dict) -> str:
        return next(k for k, v in self.FREE_PASS.items() if v == a["free_pass"])

    def describe(self, s, change, names):
        how = change.notes.get("pass")
        who = self.who(s, change, names)
        if how == "free":
            return _("{name} uses the First Player free pass and stays in", name=who)
        if how == "decline":
            return _("{name} declines the First Player free pass and drops out of the auction", name=who)
        if how == "drop":
            return _("{name} drops out of the auction", name=who)
        return _("{name} passes", name=who)

    def label(self, s, a):
        if a.get("free_pass") is True:
            return _("pass with the First Player free pass")
        if a.get("free_pass") is False:
            return _("pass and drop out, declining the First Player free pass")
        return _("pass")

    def options_for(self, a):
        return {"free_pass": self.key(a)} if a.get("free_pass") is not None else {}


COMMANDS: tuple[Command, ...] = (Bid(), Pass(), Shares(), Tile(), Build(), Urbanize(), Grow(), Done(), Deliver(),
                                 Loco(), Score())

MODE_WORDS = {"basic": N_("basic game"), "standard": N_("standard game")}  # the game's mode, as players call it
HINTS = {"bid": N_("bid"), "capital": N_("issue shares (/steam shares)"),
         "take_tile": N_("take an action tile (/steam tile)"), "urbanize": N_("place your New City (/steam urbanize)"),
         "grow": N_("grow a city (/steam grow)"), "move": N_("deliver a cube (/steam deliver)"),
         "upgrade_loco": N_("upgrade your locomotive (/steam loco)"), "end_build": N_("end building (/steam done)")}


class Steam(Session):
    family = "steam"
    group = "steam"
    commands = {c.name: c for c in COMMANDS}
    buttons = {
        "income": Button(N_("Points on income"), "success", "score", (("to", "income"),), when="score"),
        "vp": Button(N_("Points on VP"), "secondary", "score", (("to", "vp"),), when="score"),
        "done": Button(N_("Done building"), "primary", "done", when="end_build"),
        "pass": Button(N_("Pass"), "secondary", "pass", when="pass"),
        # instead of "pass" for the holder of the First Player free pass (buttons_for)
        "free_pass": Button(N_("Pass: use the free pass"), "primary", "pass", (("free_pass", "use"),)),
        "drop_out": Button(N_("Pass and drop out"), "secondary", "pass", (("free_pass", "decline"),)),
    }
    picture_kinds = ("map", "players")
    start_pictures = ("map", "players")

    def __init__(self, title: str, game: Any):
        super().__init__(title, game)
        self._choices: tuple[tuple[int, str], list[dict]] | None = None

    # ---------------------------------------------------------------- making games
    @classmethod
    def titles(cls) -> list[Title]:
        from engine.steam import Game, Settings, load_board, map_names

        boards = [load_board(m) for m in map_names()]
        maps = tuple((b.name, b.id) for b in boards)
        modes = tuple((MODE_WORDS[m], m) for m in Settings.model_fields["mode"].annotation.__args__)
        low = min(b.min_players for b in boards)
        high = max(b.max_players for b in boards)
        return [Title(Game.TITLE, "Steam", cls, (low, high),
                      (Setting("map", N_("Steam map"), maps, Settings.model_fields["map"].default),
                       Setting("mode", N_("basic or standard game"), modes, Settings.model_fields["mode"].default)))]

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

    def has_out_of_turn(self) -> bool:
        """Nothing in Steam is used out of its owner's turn."""
        return False

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
        key = (len(self.actions), language())  # labelled in the language in force
        if self._choices is None or self._choices[0] != key:
            self._choices = (key, self.game.choices())
        return self._choices[1]

    def legal(self) -> list[dict]:
        return [c["action"] for c in self.choices()]

    def line(self, action: dict, names: dict[int, str]) -> str:
        return f"{self.actor_name(action, names)}: {self.label(action)}"

    def legal_labels(self) -> list[tuple[dict, str]]:
        return [(c["action"], c["label"]) for c in self.choices()]

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
            raise UserError(lazy("{value} is not a hex you can use now: write `q,r` or choose from the list.",
                                 value=quote(raw)))
        return raw

    # ---------------------------------------------------------------- applying
    def notes_before(self, action: dict) -> dict:
        notes: dict = {}
        try:
            notes["label"] = self.game.label(action)
        except Exception:  # an action the engine will refuse: it says why
            return notes
        kind = action.get("type")
        if kind in ("lay", "upgrade", "redirect"):
            notes["track"] = self.game.track_parts(action)
        elif kind == "pass" and self.game.s.phase in ("setup_auction", "auction"):
            holder = (self.game.s.auction or {}).get("free_pass") == self.game.seat_of(action.get("entity"))
            notes["pass"] = "drop" if not holder else "decline" if action.get("free_pass") is False else "free"
        elif kind == "end_build":
            notes["without"] = self.game.s.pending.get(self.game.seat_of(action.get("entity"))) \
                if self.game.mode != "basic" else None
        if kind == "move":
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
            text += "; " + "; ".join(event_text(e) for e in events)
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
                notes.append(_("income and expenses: {moves}", moves=", ".join(moved)))
            if not after.get("finished"):
                notes.append(_("round {round} of {rounds} begins", round=after.get("round"), rounds=after.get("rounds")))
        if after.get("turn_order") != before.get("turn_order") and after.get("turn_order"):
            notes.append(_("turn order {names}", names=", ".join(player_name(p, names) for p in after["turn_order"])))
        if after.get("phase") != before.get("phase") and not after.get("finished"):
            notes.append(_("now: {phase}", phase=phase_word(after.get("phase_name"))))
        elif after.get("cycle") and after.get("cycle") != before.get("cycle"):
            notes.append(_("move goods, cycle {cycle}", cycle=after["cycle"]))
        if after.get("finished") and not before.get("finished"):
            reason = self.reason_text(after.get("end_reason"))
            notes.append(_("the game is over ({why})", why=reason) if reason else _("the game is over"))
        return "" if not notes else " — " + "; ".join(notes)

    def hint(self, names: dict[int, str]) -> str:
        types = self.action_types()
        s = self.summary()
        me = self.player(s, s.get("next"))
        if "score" in types:
            pts = (s.get("pending_scores") or [[None, 0]])[0][1]
            return ngettext("put your {n} point from that delivery on income or VP (/steam score)",
                            "put your {n} points from that delivery on income or VP (/steam score)", pts)
        if "bid" in types:
            au = s.get("auction") or {}
            high = au.get("high")
            least = 0 if high is None else high + 1
            if au.get("free_pass") is not None and au.get("free_pass") == s.get("next"):
                if high is not None:
                    return _("bid at least ${least} (high bid: {name} ${high}) (/steam bid), use your First Player "
                             "free pass, or pass and drop out", least=least, name=player_name(au.get("high_player"),
                                                                                          names), high=high)
                return _("bid at least ${least} (/steam bid), use your First Player free pass, or pass and drop out",
                         least=least)
            if high is not None:
                return _("bid at least ${least} (high bid: {name} ${high}) (/steam bid) or pass", least=least,
                         name=player_name(au.get("high_player"), names), high=high)
            return _("bid at least ${least} (/steam bid) or pass", least=least)
        words = []
        if any(t in types for t in ("lay", "upgrade", "redirect")):
            left = me.get("placements_left")
            if left:
                words.append(ngettext("build track ({n} tile left: /steam build)",
                                      "build track ({n} tiles left: /steam build)", left))
            else:
                words.append(_("build track (/steam build)"))
        words += [_(HINTS[t]) for t in types if t in HINTS and t != "bid"]
        if "pass" in types:
            words.append(_("pass"))
        return or_list(words) if words else ""

    def status_lines(self, names: dict[int, str]) -> list[str]:
        s = self.summary()
        mode = _(MODE_WORDS[s.get("mode") or "standard"])
        phase = phase_word(s.get("phase_name"))
        if s.get("cycle"):
            phase = _("{phase} (cycle {cycle})", phase=phase, cycle=s["cycle"])
        lines = [_("{map}, {mode} — round {round} of {rounds}, {phase}.", map=s.get("map_name"), mode=mode,
                   round=s.get("round"), rounds=s.get("rounds"), phase=phase)]
        if s.get("turn_order"):
            lines.append(_("Turn order: {names}.", names=", ".join(player_name(p, names) for p in s["turn_order"])))
        tiles = {t["player"]: f"{k} {tile_name(k)}" for k, t in (s.get("action_tiles") or {}).items()}
        for p in s.get("players") or []:
            bits = [f"${p.get('cash')}", _("income {n}", n=p.get("income")), _("{n} VP", n=p.get("vp")),
                    _("locomotive {n}", n=p.get("loco"))]
            if p.get("shares"):
                bits.append(ngettext("{n} share issued", "{n} shares issued", p["shares"]))
            if p.get("id") in tiles:
                bits.append(_("tile {tile}", tile=tiles[p["id"]]))
            if p.get("links"):
                bits.append(ngettext("{n} link", "{n} links", p["links"]))
            if p.get("bankrupt"):
                bits.append(_("bankrupt"))
            lines.append(f"• {player_name(p.get('id'), names)}: {', '.join(bits)}")
        reserve = [f"{reserve_letter(i)} ({cubes_text(c)})" for i, c in enumerate(s.get("reserve") or []) if c]
        if reserve:
            lines.append(_("• goods display: {reserve}", reserve=", ".join(reserve)))
        au = s.get("auction")
        if au and au.get("high") is not None:
            lines.append(_("• high bid: {name} ${amount}", name=player_name(au.get("high_player"), names),
                           amount=au["high"]))
        return lines

    @staticmethod
    def reason_text(reason: Any) -> str:
        """Why the game ended (the engine's `end_reason`) in words."""
        return {"rounds": _("the last round was played"), "bankruptcy": _("bankruptcy")}.get(reason, reason or "")

    def result_text(self, names: dict[int, str]) -> str:
        scoring = self.game.scoring() or {}
        rows = scoring.get("ranking") or []
        return ", ".join((_("{name} {n} VP (bankrupt)", name=player_name(r["id"], names), n=r["vp"]) if r.get("bankrupt")
                          else _("{name} {n} VP", name=player_name(r["id"], names), n=r["vp"])) for r in rows)

    # ---------------------------------------------------------------- pictures and buttons
    def buttons_for(self, change: Change | None) -> list[str]:
        """The holder of the First Player free pass chooses with two buttons: use it, or drop out at once."""
        keys = super().buttons_for(change)
        s = self.summary()
        holder = (s.get("auction") or {}).get("free_pass")
        if "pass" in keys and holder is not None and holder == s.get("next"):
            i = keys.index("pass")
            keys[i:i + 1] = ["free_pass", "drop_out"]
        return keys

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

    def area(self, place: str, names: dict[int, str] | None = None) -> bytes | None:
        """The board around a city or town (its name, or the start of one) or a hex `q,r`."""
        h = self.place_hex(place)
        try:
            import render.steam.board as pictures

            return pictures.draw_area(self._named(self.game.view(), names), h)
        except Exception:  # not installed, or failed: a picture never fails the command
            log.exception("drawing the board around %s failed", h)
            return None

    def place_hex(self, text: Any) -> tuple[int, int]:
        """A hex of the board from member input: `q,r`, or a city's or town's name (its start will do when only
        one place begins so)."""
        from engine.steam.hexes import parse_hex

        board = self.game.board
        raw = str(text).strip()
        try:
            h = parse_hex(raw)
        except Exception:
            h = None
        if h in board.hexes:
            return h
        places = {h: self.game.hex_label(h) for h in (*board.cities, *board.towns)}
        wanted = raw.lower()
        found = [h for h, name in places.items() if name.lower() == wanted] or \
            [h for h, name in places.items() if name.lower().startswith(wanted)]
        if len(found) > 1 and wanted:
            raise UserError(lazy("{value} names several places: {hexes}; write one's hex `q,r`.", value=quote(raw),
                                 hexes=", ".join(f"{h[0]},{h[1]}" for h in sorted(found))))
        if not found or not wanted:
            raise UserError(lazy("{value} is not a city, town or hex `q,r` of this board.", value=quote(raw)))
        return found[0]

    @staticmethod
    def _named(state: dict, names: dict[int, str] | None) -> dict:
        if names:
            state["players"] = [{**p, "name": names.get(p.get("id"), p.get("name"))} for p in state.get("players") or []]
        return state
