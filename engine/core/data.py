"""Static title data (map, tiles, privates, corporations, minors, trains, phases, market) as shipped JSON.

The JSON files were dumped from the 18xx.games engine, so coordinates, tile names and ids match its game
logs. Every title keeps its data in its own folder, `engine/titles/g<title>/data/`; a folder with a
`meta.json` there is a title (engine.titles builds its registry from these folders).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

TITLES_DIR = Path(__file__).resolve().parent.parent / "titles"
FILES = ("meta", "constants", "map", "tiles", "companies", "corporations", "minors", "trains", "phases",
         "market", "players")


@cache
def title_dirs() -> dict[str, Path]:
    """Title name (as in meta.json and game logs) -> its data folder, for every title folder."""
    out = {}
    for meta in sorted(TITLES_DIR.glob("g*/data/meta.json")):
        out[_load_file(meta)["title"]] = meta.parent
    return out


def title_dir(title: str) -> Path:
    try:
        return title_dirs()[title]
    except KeyError:
        raise ValueError(f"unknown title {title!r}; known: {', '.join(title_dirs())}") from None


@cache
def _load_file(path: Path):
    with path.open(encoding="utf-8") as f:
        return json.load(f)


@cache
def load(title: str, optional_rules: tuple[str, ...] = ()) -> dict:
    """All data files of a title as {file stem: parsed JSON}, with optional-rule overrides applied.

    The returned objects are shared and cached: treat them as read-only.
    """
    base = title_dir(title)
    out = {name: _load_file(base / f"{name}.json") for name in FILES if (base / f"{name}.json").exists()}
    for rule in optional_rules:
        variant = base / "variants" / rule
        if variant.is_dir():
            for path in sorted(variant.glob("*.json")):
                out[path.stem] = _load_file(path)
    return out


def map_rules(title: str, optional_rules) -> tuple[str, ...]:
    """The optional rules among `optional_rules` that change the title's map (their data has a map or tiles of
    its own), in the order given: pictures of the map load the title's data with them."""
    base = title_dir(title) / "variants"
    return tuple(r for r in optional_rules
                 if any((base / r / f"{name}.json").exists() for name in ("map", "tiles")))
