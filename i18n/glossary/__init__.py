"""Game terms as the Russian rulebooks name them, one file per game family (`common`, `18xx`, `steam`).

`python -m i18n update` writes the terms a message uses next to it in the .po file (`#. glossary: ...`), for
whoever translates it; tests/test_i18n.py checks that each Russian message uses them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAMILIES = ("common", "18xx", "steam")


@dataclass(frozen=True)
class Term:
    en: str                      # a regular expression over the English message (whole words)
    ru: str                      # the rulebook's word
    match: tuple[str, ...]       # stems (regular expressions) one of which a Russian message using it contains
    also: tuple[str, ...] = ()   # other rulebooks' words for the same thing

    def used_in(self, english: str) -> bool:
        # a word joined by a hyphen or a dot names something else ("6-train", "18xx.games")
        return re.search(rf"(?<![\w{{.-]){self.en}(?![\w}}])", english, re.IGNORECASE) is not None

    def kept_in(self, russian: str) -> bool:
        return any(re.search(stem, russian, re.IGNORECASE) for stem in self.match)


@dataclass(frozen=True)
class Glossary:
    family: str
    terms: tuple[Term, ...]
    keep_latin: frozenset[str] = field(default_factory=frozenset)


@cache
def load(family: str) -> Glossary:
    data = json.loads((HERE / f"{family}.json").read_text(encoding="utf-8"))
    terms = tuple(Term(t["en"], t["ru"], tuple(t["match"]), tuple(t.get("also", ()))) for t in data["terms"])
    return Glossary(family, terms, frozenset(data.get("keep_latin", ())))


def families_of(location: str) -> tuple[str, ...]:
    """The glossaries that apply to a message written in `location` (a source path)."""
    if "steam" in location:
        return ("common", "steam")
    if "g18xx" in location or location.startswith(("render/", "bot/families/", "i18n/engine_words", "engine/")):
        return ("common", "18xx")
    return ("common",)


CODE = re.compile(r"`[^`]*`|\{[^{}]*\}|(?<![\w/])/[a-z_]+(?: [a-z_]+)?(?=[),])|(?<![\w/])/[a-z_]+")


def prose(text: str) -> str:
    """A message without what is typed as it is (`code`, a slash command) and its placeholders."""
    return CODE.sub(" ", text)


def terms_for(english: str, locations: list[str]) -> list[Term]:
    english = prose(english)
    families = {f for loc in locations for f in families_of(loc)} or {"common"}
    return [t for f in FAMILIES if f in families for t in load(f).terms if t.used_in(english)]


def keep_latin() -> frozenset[str]:
    return frozenset().union(*(load(f).keep_latin for f in FAMILIES))


LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z_'’]*")
MARKUP = re.compile(r"<[@#][!&]?\d+>|https?://\S+|\*\*|__|~~")


def foreign_words(text: str, names: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The Latin words a Russian text keeps outside `code`, placeholders, mentions, links, the words that
    stay as typed (the glossaries' `keep_latin`), ALL-CAPS ids (PRR, SEAT) and the given names (players,
    places): English left in a Russian message."""
    text = MARKUP.sub(" ", prose(text))
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    keep = keep_latin()
    return [w for w in LATIN_WORD.findall(text) if w not in keep and not w.isupper() and w.lower() not in keep]
