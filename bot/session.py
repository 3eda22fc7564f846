"""The one interface through which the bot plays any game, and the bot's door to the rules engines.

A *game family* (`bot/families/`: the 18xx titles, Steam) implements `Session` over its engine's game
object and lists its commands (`bot.commands.Command`, one class per kind of action). The service, the
cogs and the console only ever talk to a `Session`; nothing in bot/ outside a family knows a title's rules,
and the titles come from the families' engines (their registries), never from a list in bot/.

A session offers: the game's log and state (actions, whose turn, the legal moves, a summary, the result, the
log as exported), `apply` returning what changed (`Change`), the words for it all (an action's sentence,
what the next member may do, the status lines, the final score), the pictures it has, and its commands and
buttons. `Engine` creates sessions (a new game, a log imported, a stored log replayed) and draws their
pictures; tests hand the service an `Engine` subclass (quick pictures, a failing engine).
"""

from __future__ import annotations

import copy
import logging
import pickle
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from discord.utils import escape_markdown, escape_mentions

from bot.commands import Button, Command
from bot.errors import UserError, quote
from i18n import _, lazy

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Setting:
    """Something `/game new` (or the console's `new`) may set for a title, e.g. Steam's map."""

    name: str
    help: str
    choices: tuple[tuple[str, str], ...] = ()   # (name shown, value); empty: free text
    default: str | None = None
    label: str | None = None   # the word before its values in a game's description; none where they speak alone

    def described(self, value: str | list[str]) -> str:
        """The setting as a game was set up with it, in the current language: its values by the names
        shown for them (after the label, if any)."""
        shown = {v: n for n, v in self.choices}
        values = value if isinstance(value, list) else [value]
        words = ", ".join(_(shown[v]) if v in shown else str(v) for v in values)
        return f"{_(self.label)}: {words}" if self.label else words


@dataclass(frozen=True)
class Title:
    name: str                              # as stored and in logs: "1830", "18MEX", "steam"
    display_name: str
    family: type[Session]
    player_range: tuple[int, int]
    settings: tuple[Setting, ...] = ()
    multiple: tuple[str, ...] = ()         # settings that take several values (comma-separated)


@dataclass
class Change:
    """What an applied action changed: the action as the engine stored it, the summaries before and after,
    and what the family noted around it (e.g. the auction's cheapest private before a pass)."""

    action: dict
    before: dict
    after: dict
    notes: dict = field(default_factory=dict)


def written_name(name: str) -> str:
    """A member's name as the bot writes it in a message: Discord shows the Markdown in it as typed (`**x**`,
    `__x__`, backticks, a masked link), and a mention in it (`@everyone`, `<@id>`) is no mention."""
    return escape_markdown(escape_mentions(name), ignore_links=False)


# what `written_name` writes for a character it escapes: a backslash before it, or a mention broken by a zero-width
# space
_ESCAPES = re.compile(r"\\[\\*_~|`>\[#-]|\u200b")


def written_text(stored: str, version: int | None) -> str:
    """Stored sentences naming members (an undo's `told`) as a message writes them. A record of the current
    version (`bot.db.UNDO_RECORD_VERSION`) holds the names written already. One stored before records had a version
    (None) holds them as typed if it was stored before names were written escaped, which tells by its text: it
    holds no escape (no backslash, no broken mention), or a backslash before a character `written_name` never
    escapes (a name typed with a backslash); it is then escaped whole (the sentences have no Markdown of their
    own, and Discord shows an escaped character as is)."""
    if version is not None:
        return stored
    typed = not _ESCAPES.search(stored) or "\\" in _ESCAPES.sub("", stored)
    return written_name(stored) if typed else stored


def player_name(entity: Any, names: dict[int, str]) -> str:
    try:
        return names.get(int(entity), f"Player {entity}")
    except (TypeError, ValueError):
        return str(entity)


class Session:
    """One game in play, as the bot sees it (see the module docstring). A family subclasses it."""

    family: ClassVar[str]                         # "18xx", "steam"
    group: ClassVar[str | None] = None            # slash-command group of its commands (None: top level)
    commands: ClassVar[dict[str, Command]] = {}   # by command name
    buttons: ClassVar[dict[str, Button]] = {}     # by button key
    picture_kinds: ClassVar[tuple[str, ...]] = ()  # every picture it draws, in posting order
    start_pictures: ClassVar[tuple[str, ...]] = ()  # posted when the game starts
    names: dict[int, str] | None = None  # the players' names its words use (None: as messages write them)

    def __init__(self, title: str, game: Any):
        self.title = title
        self.game = game
        self._legal: tuple[int, list[dict]] | None = None

    # ---------------------------------------------------------------- making games (the family's engine)
    @classmethod
    def titles(cls) -> list[Title]:
        """The titles this family's engine plays (its registry)."""
        raise NotImplementedError

    @classmethod
    def new_game(cls, title: str, players: list[dict], seed: int, setup: dict, game_id: Any = None) -> Any:
        raise NotImplementedError

    @classmethod
    def load_game(cls, log_dict: dict) -> Any:
        """The engine's game from an exported log (an 18xx.games log for 18xx titles)."""
        raise NotImplementedError

    @classmethod
    def loaded(cls, title: str, log_dict: dict) -> Session:
        """A session of the game of an exported log (a family keeping what it sees as the log is loaded
        overrides it)."""
        return cls(title, cls.load_game(log_dict))

    @classmethod
    def numbered(cls, log_dict: dict) -> dict:
        """An exported log with its players numbered, as seats are (a format whose players may go unnumbered
        renumbers them here, and the actions naming them)."""
        return log_dict

    @classmethod
    def log(cls, title: str, players: list[dict], seed: int, setup: dict, actions: list[dict],
            game_id: Any = None) -> dict:
        """A log of this family's format with these players, settings and actions."""
        raise NotImplementedError

    @classmethod
    def check_setup(cls, title: Title, given: dict[str, str]) -> dict:
        """The set-up of a new game from what the host gave (`/game new map:...`), checked: `optional_rules`
        (a list) and the family's own settings. UserError for anything this title does not take."""
        setup: dict[str, Any] = {"optional_rules": []}
        known = {s.name: s for s in title.settings}
        for name, value in given.items():
            if value in (None, ""):
                continue
            setting = known.get(name)
            if setting is None:
                if not known:
                    raise UserError(lazy("{title} takes no settings, not {value}.", title=title.display_name,
                                         value=quote(name)))
                raise UserError(lazy("{title} takes {settings}, not {value}.", title=title.display_name,
                                     settings=", ".join(known), value=quote(name)))
            values = [v.strip() for v in str(value).replace(" ", ",").split(",") if v.strip()] \
                if name in title.multiple else [str(value).strip()]
            allowed = {k.lower(): v for name, v in setting.choices for k in (name, v)}
            if allowed:
                bad = [v for v in values if v.lower() not in allowed]
                if bad:
                    raise UserError(lazy("{setting} {value} is not one of {values}.", setting=setting.name,
                                         value=quote(bad[0]), values=", ".join(v for _n, v in setting.choices)))
                values = [allowed[v.lower()] for v in values]
            setup[name] = values if name in title.multiple else values[0]
        for setting in title.settings:
            if setting.default is not None:
                setup.setdefault(setting.name, setting.default)
        return setup

    @classmethod
    def setting_values(cls, setup: dict) -> dict[str, Any]:
        """The values of the title's settings (by `Setting.name`) in a stored set-up."""
        return setup

    @classmethod
    def setup_words(cls, title: Title, setup: dict) -> list[str]:
        """The settings a game was set up with, each in words of the current language (its lobby line)."""
        values = cls.setting_values(setup)
        return [s.described(values[s.name]) for s in title.settings if values.get(s.name)]

    def setup(self) -> dict:
        """What this game was set up with (stored with it): `optional_rules` and the family's settings."""
        return {"optional_rules": []}

    @property
    def seed(self) -> int:
        return int(getattr(self.game, "seed", 0) or 0)

    @classmethod
    def warm(cls, title: str) -> None:
        """Prepare a title's first pictures so the first move of the day isn't slow to show."""

    # ---------------------------------------------------------------- the game
    @property
    def actions(self) -> list[dict]:
        return self.game.actions

    @property
    def finished(self) -> bool:
        return bool(self.game.finished)

    @property
    def end_reason(self) -> str | None:
        return self.game.end_reason

    def active_players(self) -> list[int]:
        """Player ids of the seats that must act now (empty when the game is over)."""
        return [int(p) for p in self.game.active_players()]

    def acting(self) -> dict:
        """The entity to act: {"entity", "entity_type"}."""
        return self.game.acting_entity() or {}

    def legal(self) -> list[dict]:
        """Every legal action now (cached until the log changes)."""
        n = len(self.actions)
        if self._legal is None or self._legal[0] != n:
            self._legal = (n, self.game.legal_actions())
        return self._legal[1]

    def take_legal(self, twin: Session) -> None:
        """Take the legal actions `twin` found already, if this session has none now: `twin` must be a copy of
        this game as it is now (the read copy of its version), so they are this game's. A copy of them is taken
        (the two share nothing): not searched for again (an 18xx best run is a search of routes)."""
        n, found = len(self.actions), twin._legal
        if (self._legal is None or self._legal[0] != n) and found is not None and found[0] == n:
            self._legal = (n, pickle.loads(pickle.dumps(found[1], protocol=pickle.HIGHEST_PROTOCOL)))

    def legal_for(self, player: int) -> list[dict]:
        """The legal moves offered to the member holding seat `player` (autocomplete): the acting seat's moves,
        and whatever this seat may do out of its turn (a private's ability). The family says which; by default
        every legal move now."""
        return self.legal()

    def out_of_turn(self, player: int) -> list[dict]:
        """What the seat `player` may do now though it is not its turn (a private's ability: the family says,
        `may_act_out_of_turn`); nothing while it is its turn (its moves are then the usual ones)."""
        if player in self.active_players():
            return []
        return self.usable_out_of_turn(player)

    def usable_out_of_turn(self, player: int) -> list[dict]:
        """The moves of the seat `player` that may be used out of turn, usable now, whether or not it is its turn
        (the seats holding some are told when they change)."""
        return [a for a in self.legal_for(player) if self.may_act_out_of_turn(player, a)]

    def has_out_of_turn(self) -> bool:
        """Whether any seat may ever have moves out of its turn in this game (cheap, no search): False and
        `out_of_turn` is always empty, so nothing need look for them. By default True (looked for)."""
        return True

    def summary(self) -> dict:
        return self.game.summary()

    def result(self) -> dict[str, int]:
        return self.game.result()

    def export(self) -> dict:
        return self.game.to_18xx()

    def frozen(self) -> bytes:
        """The game now, as bytes `thawed` makes a session of (a copy sharing nothing with this one)."""
        return pickle.dumps(self.game, protocol=pickle.HIGHEST_PROTOCOL)

    def thawed(self, frozen: bytes) -> Session:
        """A session of this family over the game `frozen` gave."""
        return type(self)(self.title, self.unpickled(frozen))

    def game_of(self, frozen: bytes) -> Any:
        """The engine's game in the bytes `frozen` gave (a copy sharing nothing with this session's)."""
        return self.unpickled(frozen)

    @staticmethod
    def unpickled(frozen: bytes) -> Any:
        """`pickle.loads(frozen)` with the cyclic collector paused: a game is tens of thousands of new objects,
        which would otherwise set off a full collection of everything the process holds about once per copy."""
        from engine.core.game import paused_gc

        with paused_gc():
            return pickle.loads(frozen)

    def apply(self, action: dict) -> Change:
        """Apply an action (all or nothing: the engine's GameError leaves the game as it was)."""
        before = self.summary()
        notes = self.notes_before(action)
        stored = self.game.apply(action)
        change = Change(stored, before, self.summary(), notes)
        self.notes_after(change)
        return change

    def notes_before(self, action: dict) -> dict:
        return {}

    def notes_after(self, change: Change) -> None:
        pass

    # ---------------------------------------------------------------- commands
    @classmethod
    def command(cls, name: str) -> Command:
        cmd = cls.commands.get(name)
        if cmd is None:
            raise UserError(lazy("Unknown action {action} for this game; actions: {actions}.", action=quote(name),
                                 actions=", ".join(cls.commands)))
        return cmd

    @classmethod
    def command_of(cls, action: dict) -> Command | None:
        return next((c for c in cls.commands.values() if c.handles(action)), None)

    @classmethod
    def command_for(cls, action: dict) -> tuple[str, dict[str, Any]]:
        """The command and options that submit a given action (tests, bench, the console's `legal`)."""
        cmd = cls.command_of(action)
        if cmd is None:
            raise ValueError(f"no command for action type {action.get('type')}")
        return cmd.name, cmd.options_for(action)

    def needs_consent(self, player: int, action: dict) -> int | None:
        """The seat (player id) that must agree before `player` may make this action (a trade with another
        player's company), None when nobody else must."""
        return None

    def confirmation(self, action: dict, names: dict[int, str], frozen: bytes | None = None) -> str | None:
        """What the member is shown, to confirm or cancel, before this action is sent (what a loan costs,
        what a merger does to each holder); None: it is sent at once. Slow (the engine may try it on a copy
        of the game): called off the event loop. `frozen`: the game as it is now, as `frozen()` gives it, when
        made already (the read copy's bytes): a copy tried on is thawed from them, not pickled again."""
        return None

    def offer_text(self, action: dict, names: dict[int, str]) -> str:
        """The words for an action waiting for another seat's consent (`needs_consent`)."""
        return f"{self.actor_name(action, names)}: {self.label(action)}"

    def may_act_out_of_turn(self, player: int, action: dict) -> bool:
        """Whether a member whose seat is not to act may still send this action (e.g. a private's ability)."""
        return False

    def decider(self, action: dict) -> int | None:
        """The seat (player id) that decides for the entity this action is for, whoever's turn it is: a player's
        actions are their own; the family says who decides for its other entities (a corporation's or minor's
        president, a private's owner or the president of the corporation owning it). None: no seat does (a
        corporation in receivership). KeyError: the game has no such entity (the engine says so when it is
        sent)."""
        if action.get("entity_type", "player") != "player":
            return None
        try:
            return int(action["entity"])
        except (TypeError, ValueError):
            raise KeyError(action.get("entity")) from None

    def not_theirs(self, player: int, action: dict, names: dict[int, str]) -> Any | None:
        """Why the seat `player` may not send this action, at its turn or out of it: it is for an entity another
        seat (or no seat) decides for (`decider`), e.g. another player's corporation while several may act, or
        another's private. A refusal (`i18n.lazy`); None if the seat may send it. The one check of whose an
        action is, for every family: the engine takes an action from any entity that may act now."""
        try:
            decider = self.decider(action)
        except KeyError:
            return None  # no such entity: the engine's refusal says what is wrong with it
        if decider == player or (decider is None and player in self.active_players()):
            return None  # (an entity no seat decides for: any seat to act may act for it, as for 1860's receivership)
        kind, entity = action.get("entity_type", "player"), action.get("entity")
        if kind == "player":
            return lazy("You act only for your own seat, not for {name}: nothing was done.",
                        name=player_name(entity, names))
        if kind == "company":
            return lazy("{company} is not yours to use: only its owner (or the president of the corporation owning "
                        "it) may.", company=quote(entity))
        if decider is None:
            return lazy("{entity} is not yours to act for: no player decides for it now, so nothing was done.",
                        entity=quote(entity))
        return lazy("{entity} is not yours to act for: {name} decides for it, so nothing was done.",
                    entity=quote(entity), name=player_name(decider, names))

    @classmethod
    def button_action(cls, key: str) -> tuple[str, dict[str, Any]]:
        button = cls.buttons.get(key)
        if button is None:
            raise UserError(lazy("That button does not belong to this game."))
        return button.command, dict(button.options)

    # ---------------------------------------------------------------- words
    def player_names(self) -> dict[int, str]:
        """The players' names as given (the pictures draw them so)."""
        return {p.id: p.name for p in self.game.players}

    def naming(self, names: dict[int, str]) -> Session:
        """This game, its words naming the players `names` (autocomplete's choices name them as given: Discord
        shows no Markdown there, so an escape would show as a backslash): a view sharing the game, to read."""
        view = copy.copy(self)
        view.names = names
        return view

    def actor_name(self, action: dict, names: dict[int, str]) -> str:
        if action.get("entity_type", "player") == "player":
            return player_name(action.get("entity"), names)
        return str(action.get("entity"))

    def label(self, action: dict) -> str:
        cmd = self.command_of(action)
        return cmd.label(self, action) if cmd else str(action.get("type"))

    def line(self, action: dict, names: dict[int, str]) -> str:
        """`Ann: bid CA: $175 or more` — an action in a few words (history, fallbacks)."""
        label = self.label(action) if action.get("type") != "pass" else ""
        return f"{self.actor_name(action, names)}: {action.get('type')} {label}".rstrip()

    def legal_labels(self) -> list[tuple[dict, str]]:
        """Every legal action now with words for it (the console's `legal`)."""
        return [(a, self.label(a)) for a in self.legal()]

    def describe(self, change: Change, names: dict[int, str]) -> str:
        """The sentence for an applied action, with what else it caused."""
        cmd = self.command_of(change.action)
        if cmd is None:
            return f"{self.actor_name(change.action, names)}: {change.action.get('type')}"
        return cmd.describe(self, change, names)

    def describe_all(self, changes: list[Change], names: dict[int, str]) -> str:
        """The sentence for the actions one command sent (most commands send one)."""
        return "; ".join(self.describe(c, names) for c in changes)

    def acting_for(self) -> str:
        """Who the acting member acts for, if not themselves (` for NYC`)."""
        return ""

    def hint(self, names: dict[int, str]) -> str:
        """What the acting member may do now, in a few words."""
        return ""

    def status_lines(self, names: dict[int, str]) -> list[str]:
        """Where the game stands, a line per player and company (after a heading line)."""
        return []

    @staticmethod
    def reason_text(reason: Any) -> str:
        """Why the game ended (the engine's `end_reason`), in words."""
        return str(reason or "")

    def result_text(self, names: dict[int, str]) -> str:
        res = self.result() or {}
        ranking = sorted(res.items(), key=lambda kv: -kv[1])
        return ", ".join(f"{player_name(k, names)} {v}" for k, v in ranking)

    # ---------------------------------------------------------------- pictures and buttons
    def pictures_for(self, change: Change) -> set[str]:
        """The pictures an applied action changed."""
        cmd = self.command_of(change.action)
        return set(cmd.pictures) if cmd else set()

    def draw(self, kind: str, change: Change | None = None, names: dict[int, str] | None = None) -> bytes | None:
        """A picture of the game now as PNG bytes (None if this family has no such picture)."""
        return None

    def area(self, place: str, names: dict[int, str] | None = None) -> bytes | None:
        """The board around `place` (a name a member typed), legible on a phone, as PNG bytes (None if it
        cannot be drawn); a UserError when this family's boards have no such picture or there is no such place."""
        raise UserError(lazy("{title} has no picture of the board around a place.", title=self.title))

    def action_types(self) -> list[str]:
        """The kinds of action the member to act may take now."""
        return list(self.game.action_types())

    def buttons_for(self, change: Change | None) -> list[str]:
        """The buttons for what may be done now, in the family's order."""
        if self.finished:
            return []
        types = self.action_types()
        return [key for key, b in self.buttons.items() if b.when is not None and b.when in types]


class Engine:
    """The bot's door to the rules engines: the titles it can host (from the families' engines), sessions
    for games created, imported or rebuilt from a stored log, and their pictures. Methods are synchronous
    and may be slow: call them off the event loop."""

    def __init__(self, families: tuple[type[Session], ...] | None = None) -> None:
        if families is None:
            from bot.families import FAMILIES
            families = FAMILIES
        self.families = families
        self._titles: dict[str, Title] | None = None
        self.GameError: type[Exception] = _game_error_class()

    @property
    def titles(self) -> dict[str, Title]:
        if self._titles is None:
            self._titles = {t.name: t for fam in self.families for t in fam.titles()}
        return self._titles

    def title(self, name: str) -> Title:
        found = self.titles.get(name) or next((t for t in self.titles.values() if t.name.lower() == str(name).lower()),
                                              None)
        if found is None:
            raise UserError(lazy("Unknown title {title}. Available: {titles}.", title=quote(name),
                                 titles=", ".join(self.titles)))
        return found

    # ------------------------------------------------------------------ sessions
    # Every session these return is ready for live play (its family decides what that means, e.g. 18xx
    # standing orders acting after each new action), whether just created, rebuilt or imported.
    def _live(self, session: Session) -> Session:
        return session

    def create(self, title: str, players: list[dict], seed: int, setup: dict, game_id: Any = None) -> Session:
        t = self.title(title)
        return self._live(t.family(t.name, t.family.new_game(t.name, players, seed, setup, game_id)))

    def load(self, log_dict: dict) -> Session:
        """A session from an exported log (undo/redo resolved by the engine)."""
        t = self.title(str(log_dict.get("title")))
        return self._live(t.family.loaded(t.name, log_dict))

    def log_dict(self, title: str, players: list[dict], seed: int, setup: dict, actions: list[dict],
                 game_id: Any = None) -> dict:
        t = self.title(title)
        return t.family.log(t.name, players, seed, setup, actions, game_id)

    def replay(self, title: str, players: list[dict], seed: int, setup: dict, actions: list[dict],
               game_id: Any = None) -> Session:
        if not actions:
            return self.create(title, players, seed, setup, game_id)
        return self.load(self.log_dict(title, players, seed, setup, actions, game_id))

    def is_game_error(self, exc: BaseException) -> bool:
        return isinstance(exc, self.GameError)

    # ------------------------------------------------------------------ pictures
    def picture(self, session: Session, kind: str, change: Change | None = None,
                names: dict[int, str] | None = None) -> bytes | None:
        """A picture as PNG bytes; None when the renderer is missing or drawing fails (a picture must never
        block a move)."""
        try:
            return session.draw(kind, change, names)
        except Exception:
            log.exception("drawing the %s of a %s game failed", kind, session.title)
            return None

    def warm_pictures(self, title: str) -> None:
        try:
            t = self.title(title)
            t.family.warm(t.name)
        except Exception:
            log.exception("warming the pictures of %s failed", title)


def _game_error_class() -> type[Exception]:
    try:
        from engine import GameError
        return GameError
    except ImportError:  # pragma: no cover
        return type("MissingGameError", (Exception,), {})


def engine_available() -> bool:
    try:
        import engine.titles  # noqa: F401
        from engine.titles import create_game, load_18xx  # noqa: F401
    except Exception:
        return False
    return True
