"""The catalogue tool: `python -m i18n update` extracts every message from the code into each language's
.po file (keeping the translations made, marking new messages untranslated), `python -m i18n check` says
what is missing. Babel does the extraction and the .po reading and writing."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from i18n import DEFAULT, DOMAIN, KEYWORDS, LANGUAGES, po_path
from i18n.glossary import terms_for

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("bot", "render", "i18n", "engine")  # engine: its refusals, and Steam's action labels
PLACEHOLDER = re.compile(r"(?<!\{)\{([a-zA-Z_][a-zA-Z0-9_]*)(?:[.!:][^{}]*)?\}(?!\})")


def extract(root: Path = ROOT) -> Catalog:
    """Every message the code marks, with where it is written."""
    cat = Catalog(domain=DOMAIN, project="Roundhouse", charset="utf-8")
    for folder in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
                root / folder, [("**.py", "python")], keywords=KEYWORDS, comment_tags=("i18n:",),
                strip_comment_tags=True):
            if not message or (isinstance(message, tuple) and not message[0]):
                continue
            where = f"{folder}/{filename}"
            english = message if isinstance(message, str) else " ".join(message)
            glossary = [f"glossary: {t.ru}" for t in terms_for(english, [where])]
            known = cat.get(message, context)
            if known is not None:
                known.locations.append((where, lineno))
                known.auto_comments = list(dict.fromkeys([*known.auto_comments, *comments, *glossary]))
                continue
            cat.add(message, None, [(where, lineno)], auto_comments=[*comments, *glossary], context=context,
                    flags=("python-brace-format",) if _has_placeholders(message) else ())
    return cat


def _has_placeholders(message: str | tuple) -> bool:
    texts = message if isinstance(message, tuple) else (message,)
    return any(PLACEHOLDER.search(t) for t in texts)


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def update(root: Path = ROOT) -> dict[str, int]:
    """Each translated language's .po brought up to the code's messages; returns untranslated counts."""
    template = extract(root)
    out = {}
    for lang in LANGUAGES:
        if lang == DEFAULT:
            continue
        path = po_path(lang)
        if path.exists():
            cat = read(lang)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            cat = Catalog(locale=lang, domain=DOMAIN, project="Roundhouse", charset="utf-8")
        cat.update(template, no_fuzzy_matching=True)
        cat.obsolete.clear()
        cat.fuzzy = False
        cat.project, cat.version = "Roundhouse", ""
        cat.msgid_bugs_address = cat.last_translator = ""
        cat.language_team = cat.locale.english_name
        cat.header_comment = (f"# {cat.locale.english_name} messages of Roundhouse. After changing messages in the "
                              "code: python -m i18n update\n# then translate what it marks (docs/i18n.md).")
        with path.open("wb") as f:
            write_po(f, cat, width=110, omit_header=False, sort_output=False, include_previous=False)
        out[lang] = sum(1 for m in cat if m.id and not _translated(m))
    return out


def _translated(m) -> bool:
    strings = m.string if isinstance(m.string, tuple) else (m.string,)
    return all(strings) and not m.fuzzy


def main(argv: list[str]) -> int:
    what = argv[0] if argv else "check"
    if what == "update":
        for lang, missing in update().items():
            print(f"{lang}: {missing} messages to translate")
        return 0
    template = extract()
    print(f"en: {sum(1 for m in template if m.id)} messages")
    bad = 0
    for lang in LANGUAGES:
        if lang == DEFAULT:
            continue
        cat = read(lang)
        missing = [m.id for m in template if m.id and not (cat.get(m.id, m.context) and
                                                            _translated(cat.get(m.id, m.context)))]
        print(f"{lang}: {sum(1 for m in cat if m.id and _translated(m))} translated, {len(missing)} missing")
        bad += len(missing)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
