"""Slash-command and option names in each member's Discord language (Russian from the glossaries): Discord
shows a member the names of their own language and sends the interaction with the names the commands have
here, so the bot dispatches on those whatever the member reads. The Russian messages name the commands as
a Russian member sees them (`/купить`); the console takes either name.

Discord's rules for a name: lowercase, 1-32 characters, letters, digits, `-` and `_`; unique among the
commands of one level and the options of one command (tests/test_i18n.py checks every name)."""

from __future__ import annotations

from i18n import LANGUAGES, NP_, catalogue, pgettext

COMMAND, OPTION = "command name", "option name"

# the names of commands and groups (`/game join`, `/steam build`, `/buy`)
COMMANDS = (
    NP_("command name", "game"), NP_("command name", "new"), NP_("command name", "join"),
    NP_("command name", "leave"), NP_("command name", "start"), NP_("command name", "abort"),
    NP_("command name", "kick"), NP_("command name", "replace"), NP_("command name", "claim"),
    NP_("command name", "list"), NP_("command name", "status"), NP_("command name", "history"),
    NP_("command name", "undo"), NP_("command name", "export"), NP_("command name", "import"),
    NP_("command name", "remind"), NP_("command name", "notify"),
    NP_("command name", "steam"), NP_("command name", "bid"), NP_("command name", "pass"),
    NP_("command name", "shares"), NP_("command name", "tile"), NP_("command name", "build"),
    NP_("command name", "urbanize"), NP_("command name", "grow"), NP_("command name", "done"),
    NP_("command name", "deliver"), NP_("command name", "loco"), NP_("command name", "score"),
    NP_("command name", "par"), NP_("command name", "buy"), NP_("command name", "sell"),
    NP_("command name", "lay"), NP_("command name", "token"), NP_("command name", "run"),
    NP_("command name", "dividend"), NP_("command name", "train"), NP_("command name", "discard"),
    NP_("command name", "private"), NP_("command name", "merge"), NP_("command name", "assign"),
    NP_("command name", "bankrupt"), NP_("command name", "auto"), NP_("command name", "loan"),
    NP_("command name", "repay"), NP_("command name", "short"), NP_("command name", "convert"),
    NP_("command name", "choose"), NP_("command name", "offer"),
)

# the names of options, the same in every command that has them ...
OPTIONS = (
    NP_("option name", "title"), NP_("option name", "language"), NP_("option name", "rules"),
    NP_("option name", "map"), NP_("option name", "mode"), NP_("option name", "game"),
    NP_("option name", "member"), NP_("option name", "old"), NP_("option name", "new"),
    NP_("option name", "seat"), NP_("option name", "count"), NP_("option name", "page"),
    NP_("option name", "steps"), NP_("option name", "file"), NP_("option name", "player1"),
    NP_("option name", "player2"), NP_("option name", "player3"), NP_("option name", "player4"),
    NP_("option name", "player5"), NP_("option name", "player6"), NP_("option name", "hours"),
    NP_("option name", "every"), NP_("option name", "on"), NP_("option name", "amount"),
    NP_("option name", "tile"), NP_("option name", "hex"), NP_("option name", "track"),
    NP_("option name", "town"), NP_("option name", "city"), NP_("option name", "reserve"),
    NP_("option name", "cube"), NP_("option name", "path"), NP_("option name", "points"),
    NP_("option name", "to"), NP_("option name", "company"), NP_("option name", "price"),
    NP_("option name", "corporation"), NP_("option name", "share"), NP_("option name", "using"),
    NP_("option name", "shares"), NP_("option name", "rotation"), NP_("option name", "routes"),
    NP_("option name", "kind"), NP_("option name", "train"), NP_("option name", "variant"),
    NP_("option name", "exchange"), NP_("option name", "target"), NP_("option name", "until"),
    NP_("option name", "then_pass"), NP_("option name", "choice"), NP_("option name", "acquisition"),
    NP_("option name", "private"), NP_("option name", "max"), NP_("option name", "buy_at"),
    NP_("option name", "free_pass"), NP_("option name", "place"),
)
# ... but where one command's option means something else (Steam's action tiles are not 18xx tiles)
OPTION_IN = {("steam tile", "tile"): NP_("option name", "action tile")}


def localized(name: str, lang: str, kind: str = COMMAND, command: str | None = None) -> str | None:
    """The name of a command (`kind` COMMAND) or of an option of `command` (its qualified name) in `lang`,
    or None where it has none."""
    msgid = OPTION_IN.get((command, name), name) if kind == OPTION else name
    out = catalogue(lang).pgettext(kind, msgid)
    return out if out != msgid else None


def base_name(name: str) -> str:
    """The command as the bot knows it (`buy`), typed in any language (`купить`)."""
    name = name.lower()
    return next((en for en in COMMANDS for lang in LANGUAGES if localized(en, lang) == name), name)


def option_names(names: list[str], command: str) -> dict[str, str]:
    """The options of `command` (its qualified name) by what may be typed for them in any language."""
    return {typed: n for n in names for typed in (n, *(localized(n, lang, OPTION, command) for lang in LANGUAGES))
            if typed}


class CommandName:
    """`/game join` as the member reading it types it: worded in the language in force when shown (a value
    of a `lazy` message)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __str__(self) -> str:
        return "/" + " ".join(pgettext(COMMAND, word) for word in self.name.lstrip("/").split())

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)
