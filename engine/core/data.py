"""Static title data (map, tiles, privates, corporations, trains, phases, market) as shipped JSON.

The JSON files were dumped from the 18xx.games engine (shared/data/<TITLE>/), so coordinates,
tile names and ids match its game logs. 1830 lives in its title folder; the titles that have no
engine yet keep their data under engine/titles/data/ so the map pictures can draw them.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

TITLES_DIR = Path(__file__).resolve().parent.parent / "titles"
TITLE_DIRS = {
    "1830": TITLES_DIR / "g1830" / "data",
    "1860": TITLES_DIR / "data" / "1860",
    "1817": TITLES_DIR / "data" / "1817",
    "18MEX": TITLES_DIR / "data" / "18MEX",
}
FILES = ("meta", "constants", "map", "tiles", "companies", "corporations", "minors", "trains", "phases",
         "market", "players")


def title_dir(title: str) -> Path:
    try:
        return TITLE_DIRS[title]
    except KeyError:
        raise ValueError(f"unknown title {title!r}; known: {', '.join(TITLE_DIRS)}") from None


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
