"""The players' languages: English (the messages' source text) and Russian.

Every message is written in English in the code, wrapped in one of the functions below, and translated by
a gettext catalogue (`i18n/locale/<lang>/LC_MESSAGES/roundhouse.po`, read with Babel at start-up, so
nothing is compiled at install time). Placeholders are named (`{name}`), plurals go through `ngettext`, and
the language in force is a context variable: a game's thread speaks the game's language, a member's
private replies the member's Discord locale (`speaking`). Game terms come from the families' glossaries
(`i18n/glossary/*.json`), checked against the Russian catalogue by the tests. How a new message gets both
languages: docs/i18n.md.
"""

from __future__ import annotations

import gettext as _gettext
import io
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "ru")
DEFAULT = "en"
DOMAIN = "roundhouse"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
NAMES = {"en": "English", "ru": "Русский"}

_current: ContextVar[str] = ContextVar("language", default=DEFAULT)


def normalize(locale: Any) -> str:
    """One of LANGUAGES for a Discord locale (`ru`, `en-US`, discord.Locale) or a typed name; English
    for anything else."""
    text = str(getattr(locale, "value", locale) or "").strip().lower().replace("_", "-")
    text = {"russian": "ru", "русский": "ru", "english": "en"}.get(text, text)
    code = text.split("-")[0]
    return code if code in LANGUAGES else DEFAULT


def language() -> str:
    """The language messages are written in now."""
    return _current.get()


@contextmanager
def speaking(lang: Any) -> Iterator[str]:
    """Messages within this block are in `lang` (restored after, also in asyncio tasks and threads
    started meanwhile, which copy the context)."""
    token = _current.set(normalize(lang))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def use(lang: Any) -> None:
    """Messages speak `lang` from now until the current task (or `speaking` block) ends."""
    _current.set(normalize(lang))


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def catalogue(lang: str) -> _gettext.NullTranslations:
    """The translations of `lang`, compiled in memory from its .po file (English: the source text)."""
    path = po_path(lang)
    if lang == DEFAULT or not path.exists():
        return _gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        cat = read_po(f, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, cat, use_fuzzy=False)
    buf.seek(0)
    return _gettext.GNUTranslations(buf)


def _fill(text: str, params: dict[str, Any]) -> str:
    return text.format(**{k: _shown(v) for k, v in params.items()}) if params else text


def _shown(value: Any) -> Any:
    """A value inside a message: an engine's refusal or its words are worded in the language in force."""
    from engine.core.errors import Either, GameError, Listing, Phrase

    if isinstance(value, Listing):
        shown = [str(_shown(v)) for v in value]
        if isinstance(value, Either) and len(shown) > 1:
            return _("{choices} or {last}", choices=", ".join(shown[:-1]), last=shown[-1])
        return ", ".join(shown)
    if isinstance(value, GameError):
        return refusal(value)
    if isinstance(value, Phrase):
        if value.context:
            return pgettext(value.context, value.msgid, **value.params)
        return _(value.msgid, **value.params)
    return value


def refusal(reason: Any) -> Msg:
    """An engine's refusal (a GameError: its English key and values) as a message worded when shown."""
    message = Msg(reason.msgid)
    message.params = dict(reason.params)  # a value may be called `n`, which Msg's own arguments take
    return message


def _(msgid: str, /, **params: Any) -> str:
    """`msgid` in the language in force, its `{placeholders}` filled from `params`."""
    if not msgid:  # gettext("") is the catalogue's header
        return ""
    return _fill(catalogue(language()).gettext(msgid), params)


def ngettext(singular: str, plural: str, n: int, /, **params: Any) -> str:
    """The plural form for `n` in the language in force (`{n}` is filled with n unless given)."""
    params.setdefault("n", n)
    return _fill(catalogue(language()).ngettext(singular, plural, n), params)


def pgettext(context: str, msgid: str, /, **params: Any) -> str:
    """`msgid` in a context that tells apart two uses of the same English word (e.g. a command name)."""
    return _fill(catalogue(language()).pgettext(context, msgid), params)


def N_(msgid: str) -> str:
    """Marks a message written where it cannot be translated yet (a class attribute, a table): it is
    extracted to the catalogue and translated where it is shown, with `_(value)`."""
    return msgid


def NP_(context: str, msgid: str) -> str:
    """`N_` for a message with a context: shown with `pgettext(context, value)`."""
    return msgid


class Msg:
    """A message translated when it is shown, not when it is made: a refusal raised while a game's
    language is in force reaches the member in their own."""

    __slots__ = ("msgid", "plural", "n", "params")

    def __init__(self, msgid: str, plural: str | None = None, n: int | None = None, **params: Any):
        self.msgid, self.plural, self.n, self.params = msgid, plural, n, params

    def __str__(self) -> str:
        if self.plural is not None:
            return ngettext(self.msgid, self.plural, int(self.n or 0), **self.params)
        return _(self.msgid, **self.params)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Msg({self.msgid!r}, {self.params!r})"

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def lazy(msgid: str, /, **params: Any) -> Msg:
    return Msg(msgid, **params)


def lazy_n(singular: str, plural: str, n: int, /, **params: Any) -> Msg:
    return Msg(singular, plural, n, **params)


# gettext keywords for extraction (Babel's `extract`): name -> positions of the singular (and plural)
KEYWORDS: dict[str, Any] = {"_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2), "N_": None,
                            "lazy": None, "lazy_n": (1, 2), "locale_str": None, "NP_": ((1, "c"), 2),
                            # the engines' refusals and the words inside them (engine/core/errors.py)
                            "GameError": None, "FullCityError": None, "Phrase": None}

__all__ = ["DEFAULT", "LANGUAGES", "Msg", "NP_", "N_", "_", "catalogue", "language", "lazy", "lazy_n", "ngettext",
           "normalize", "pgettext", "refusal", "speaking", "use"]
