"""Every refusal the engine raises has its Russian: its key (the English text) and every key inside it (a
reason within a reason, the engine's words: engine/core/errors.py) are translated in the Russian catalogue.
The illegal-move, fuzz and Steam tests check each refusal they provoke (docs/i18n.md)."""

from __future__ import annotations

from engine.core.errors import GameError, Listing, Phrase
from i18n import catalogue, refusal, speaking


def keys_of(value) -> list[tuple[str | None, str]]:
    """The (context, key) of a refusal and of everything worded inside it."""
    if isinstance(value, Listing):
        return [k for v in value for k in keys_of(v)]
    if isinstance(value, GameError):
        return [(None, value.msgid), *(k for v in value.params.values() for k in keys_of(v))]
    if isinstance(value, Phrase):
        return [(value.context, value.msgid), *(k for v in value.params.values() for k in keys_of(v))]
    return []


def untranslated(reason: GameError) -> list[str]:
    ru = catalogue("ru")
    return [key for context, key in keys_of(reason)
            if (ru.pgettext(context, key) if context else ru.gettext(key)) == key]


def assert_russian(reason: GameError) -> str:
    """The refusal in Russian (after checking it has its Russian throughout)."""
    missing = untranslated(reason)
    assert not missing, f"a refusal without its Russian (python -m i18n update; docs/i18n.md): {missing}"
    with speaking("ru"):
        return str(refusal(reason))
