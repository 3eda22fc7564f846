"""What a game family says about each of its actions, in one place: the command that submits it (options,
help), how the options become an engine action, the autocomplete choices for each option (from the legal
moves), the sentence posted once it happened, a short label, the pictures it changes, and the options
that would submit a given action (tests, bench, the console's `legal`).

Options are plain strings and numbers, so the same command serves a slash command, a button and a
console line. Values offered by autocomplete are compact keys the command's `build` reads back; typed
values are accepted too, and the engine has the last word on legality.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from bot.errors import UserError, quote
from i18n import _, lazy

if TYPE_CHECKING:
    from bot.session import Change, Session

CHOICES_LIMIT = 25   # Discord: autocomplete choices per answer
CHOICE_TEXT_LIMIT = 100  # Discord: characters of a choice's name or string value
NUMBER_LIMIT = 10**9  # larger numbers are never a price, count or rotation


@dataclass(frozen=True)
class Option:
    name: str
    help: str
    kind: type = str          # str or int
    required: bool = False
    default: Any = None       # offered when the member leaves it out (e.g. `run routes:best`)


@dataclass(frozen=True)
class Button:
    """A button under a game message: pressing it sends `command` with `options` for the presser."""

    label: str
    style: str                # primary | secondary | success | danger
    command: str
    options: tuple[tuple[str, Any], ...] = ()
    when: str | None = None   # shown under a message while this kind of action is open (None: on request)


class Command:
    """One command of a family (see the module docstring). Subclasses set the class attributes and
    override what their action needs; `types` are the engine action types the command submits."""

    name: ClassVar[str]
    help: ClassVar[str]
    options: ClassVar[tuple[Option, ...]] = ()
    types: ClassVar[tuple[str, ...]] = ()
    pictures: ClassVar[frozenset[str]] = frozenset()   # pictures an action of this kind always changes
    any_time: ClassVar[bool] = False     # sent at any time, not only at the member's turn (standing orders)
    confirm: ClassVar[tuple[str, str] | None] = None   # (question, button) asked before sending it

    def handles(self, action: dict) -> bool:
        """Whether this command submits `action` (by its type; a command sharing a type with another narrows
        it, e.g. an offer for sale among the assignments)."""
        return action.get("type") in self.types

    # ---------------------------------------------------------------- options
    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)

    def given(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options that were filled in, of their kinds (text or whole numbers), checked for the required
        ones."""
        opts: dict[str, Any] = {}
        for o in self.options:
            v = options.get(o.name)
            if v is None or v == "":
                continue
            opts[o.name] = number(v, o.name) if o.kind is int else str(v)
        missing = [o.name for o in self.options if o.required and o.name not in opts]
        if missing:
            raise UserError(lazy("{command} needs {options}.", command=self.name, options=", ".join(missing)))
        return opts

    def out_of_turn(self, options: dict[str, Any]) -> bool:
        """Whether these options may act out of turn (the session still checks who owns what acts)."""
        return self.any_time

    def follow_up(self, session: Session, first: Change, last: Change) -> dict | None:
        """The next action this command sends once `last` was applied (`first`: the one it sent first), None
        when it is done. Most commands send one action; an end of turn passes each step that is left."""
        return None

    def needs_legal(self, options: dict[str, Any]) -> bool:
        """Whether building the action needs the legal moves (which may be slow, e.g. a route search)."""
        return True

    # ---------------------------------------------------------------- the action
    def build(self, session: Session, options: dict[str, Any], player: int, legal: list[dict] | None) -> dict:
        """The engine action for these options, sent by the member holding seat `player`. Raises UserError
        for input that cannot be an action at all."""
        raise NotImplementedError

    def choices(self, session: Session, option: str, filled: dict[str, Any], legal: list[dict]
                ) -> list[tuple[str, Any]]:
        """Autocomplete (name, value) pairs for `option`, given the options filled in so far."""
        return []

    def describe(self, session: Session, change: Change, names: dict[int, str]) -> str:
        """The sentence posted in the game's thread once the action was applied."""
        return f"{session.actor_name(change.action, names)}: {self.label(session, change.action)}"

    def caption(self, session: Session, change: Change) -> str | None:
        """A line under the map drawn after the action, when the map alone does not say what happened."""
        return None

    def label(self, session: Session, action: dict) -> str:
        """A few words for the action (history, undo requests, the console's `legal`)."""
        return str(action.get("type"))

    def options_for(self, action: dict) -> dict[str, Any]:
        """The options that submit `action` with this command."""
        return {}


def fit(choices: list[tuple[str, Any]], current: str) -> list[tuple[str, Any]]:
    """Choices matching what the member typed so far (in the name or the value), each value once, as many
    and as long as Discord takes."""
    cur = (current or "").strip().lower()
    seen: set = set()
    out = []
    for name, value in choices:
        if value in seen:
            continue
        if cur and cur not in name.lower() and cur not in str(value).lower():
            continue
        seen.add(value)
        out.append((name[:CHOICE_TEXT_LIMIT], value if not isinstance(value, str) else value[:CHOICE_TEXT_LIMIT]))
        if len(out) >= CHOICES_LIMIT:
            break
    return out


def number(v: Any, name: str) -> int:
    """A whole number from member input (`$` allowed), or a UserError naming the option."""
    try:
        n = int(str(v).strip().lstrip("$"))
    except ValueError:
        raise UserError(lazy("{option} must be a number, not {value}.", option=name, value=quote(v))) from None
    if abs(n) > NUMBER_LIMIT:
        raise UserError(lazy("{option} {value} is out of range.", option=name, value=quote(v)))
    return n


def clean(action: dict) -> dict:
    """A legal action as the engine listed it, ready to submit (no id or time of its own)."""
    return {k: v for k, v in action.items() if k not in ("id", "created_at")}


def or_list(words: list[str]) -> str:
    """`a, b or c`; `a, or b or c` where the last choice has an "or" of its own."""
    if len(words) == 1:
        return words[0]
    word = _("or")
    if f" {word} " in words[-1]:
        return _("{items}, or {last}", items=", ".join(words[:-1]), last=words[-1])
    return _("{items} or {last}", items=", ".join(words[:-1]), last=words[-1])
