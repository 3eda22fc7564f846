"""Errors whose message is meant for the member (sent ephemerally; nothing changed), and how member input
is shown back in them: short, on one line, so a refusal never echoes a wall of text."""

from __future__ import annotations

import re
from typing import Any

from i18n import refusal

QUOTE_LIMIT = 40
MESSAGE_LIMIT = 400


class UserError(Exception):
    """A command that cannot be done: wrong game, not your turn, illegal action, bad input."""


class PreviewClosed(UserError):
    """A preview answered too late (already answered, shown before the game moved on, refused after all): its
    buttons no longer do anything, so they go. `answered`: it had been answered already (its message says
    how), as stored with it."""

    def __init__(self, message: Any, answered: bool = False) -> None:
        super().__init__(message)
        self.answered = answered


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """Member input as `code`, on one line and at most `limit` characters."""
    text = " ".join(str(value).split()).replace("`", "'")
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"`{text}`"


def clip(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """A message that may carry input (e.g. the engine naming a certificate it does not know): long words
    shortened, the whole kept under `limit` characters."""
    text = re.sub(rf"\S{{{QUOTE_LIMIT + 1},}}", lambda m: m.group(0)[: QUOTE_LIMIT - 1] + "…", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Refusal:
    """Why the engine refused an action (its GameError), worded in the reader's language and clipped where
    it is shown: a value of a `lazy` message."""

    __slots__ = ("reason",)

    def __init__(self, reason: BaseException):
        self.reason = reason

    def __str__(self) -> str:
        return clip(str(refusal(self.reason)) if hasattr(self.reason, "msgid") else str(self.reason))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)
