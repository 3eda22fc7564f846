"""Game terms as the Russian rulebooks name them, one file per game family (`common`, `18xx`, `steam`).

Where the 18xx rulebooks name a thing differently, a term's `ru` is 1830's word and `titles` gives another
title's own: a message only that title shows (written in its engine, or naming it alone, "(1817)") says it
the title's way, every message the titles share says it 1830's way. `python -m i18n update` writes the terms
a message uses next to it in the .po file (`#. glossary: ...`), for whoever translates it; tests/test_i18n.py
checks that each Russian message uses them, and never another rulebook's word for the same thing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAMILIES = ("common", "18xx", "steam")


TITLES = ("1817", "1860", "18MEX")  # the 18xx titles whose rulebooks may name a term their own way (else 1830's)


@dataclass(frozen=True)
class Word:
    ru: str                      # the rulebook's word
    match: tuple[str, ...]       # stems (regular expressions) one of which a Russian message using it contains

    def found_in(self, russian: str) -> bool:
        return any(re.search(stem, russian, re.IGNORECASE) for stem in self.match)


@dataclass(frozen=True)
class Term:
    en: str                      # a regular expression over the English message (whole words)
    ru: str                      # the rulebook's word (1830's, for the 18xx titles)
    match: tuple[str, ...]       # stems (regular expressions) one of which a Russian message using it contains
    titles: tuple[tuple[str, Word], ...] = ()  # a title's own word where its rulebook differs

    def used_in(self, english: str) -> bool:
        # a word joined by a hyphen or a dot names something else ("6-train", "18xx.games")
        return re.search(rf"(?<![\w{{.-]){self.en}(?![\w}}])", english, re.IGNORECASE) is not None

    def word(self, title: str | None = None) -> Word:
        """The word a message of `title` (None: one the titles share) says."""
        return dict(self.titles).get(title, Word(self.ru, self.match))

    def kept_in(self, russian: str, title: str | None = None) -> bool:
        return self.word(title).found_in(russian)

    def said_otherwise(self, russian: str, title: str | None = None) -> list[str]:
        """The other rulebooks' words for this term that a message of `title` uses: one thing said two ways."""
        own = self.word(title).ru
        others = {w.ru: w for w in (Word(self.ru, self.match), *(w for _t, w in self.titles)) if w.ru != own}
        return [ru for ru, w in others.items() if w.found_in(russian)]


@dataclass(frozen=True)
class Glossary:
    family: str
    terms: tuple[Term, ...]
    keep_latin: frozenset[str] = field(default_factory=frozenset)


@cache
def load(family: str) -> Glossary:
    data = json.loads((HERE / f"{family}.json").read_text(encoding="utf-8"))
    terms = tuple(Term(t["en"], t["ru"], tuple(t["match"]),
                       tuple((title, Word(w["ru"], tuple(w["match"]))) for title, w in t.get("titles", {}).items()))
                  for t in data["terms"])
    return Glossary(family, terms, frozenset(data.get("keep_latin", ())))


def families_of(location: str) -> tuple[str, ...]:
    """The glossaries that apply to a message written in `location` (a source path)."""
    if "steam" in location:
        return ("common", "steam")
    if "g18xx" in location or location.startswith(("render/", "bot/families/", "i18n/engine_words", "engine/")):
        return ("common", "18xx")
    return ("common",)


TITLE_FOLDERS = {"g1817": "1817", "g1860": "1860", "g18mex": "18MEX"}
NAMED_TITLE = re.compile(r"(?<![\w.])(1817|1860|18MEX|1830)(?!\w)")


def title_of(english: str, locations: list[str]) -> str | None:
    """The one 18xx title (other than 1830) a message is shown in, if it is only that title's: every place
    it is written is that title's engine, or the message names that title alone ("Take a loan (1817)").
    None: a message the titles share, or 1830's."""
    folders = {next((t for f, t in TITLE_FOLDERS.items() if f"/{f}/" in loc), None) for loc in locations}
    if len(folders) == 1 and None not in folders:
        return folders.pop()
    named = set(NAMED_TITLE.findall(english))
    return named.pop() if len(named) == 1 and named <= set(TITLES) else None


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
