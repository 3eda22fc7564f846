"""Title data for the pictures, cached per title (engine.core.data.load re-checks the files each call)."""

from __future__ import annotations

from functools import cache

from engine.core import data


@cache
def load(title: str) -> dict:
    return data.load(title)
