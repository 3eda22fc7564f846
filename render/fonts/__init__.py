"""DejaVu Sans fonts shipped with the package (licence: DejaVu-LICENSE.md); never use system fonts."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).resolve().parent
_FILES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf", "condensed": "DejaVuSansCondensed-Bold.ttf"}


@cache
def font(size: int, style: str = "regular") -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / _FILES[style]), max(6, int(size)))
