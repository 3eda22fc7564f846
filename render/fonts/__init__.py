"""DejaVu Sans fonts shipped with the package (licence: DejaVu-LICENSE.md); never use system fonts.

A font keeps the glyph bitmaps and lengths it has rendered and measured: a picture writes mostly the same
texts as the last one (headings, companies, players, `$0`, `0%`), and rasterising them took a third of the
companies picture's time. What is drawn is the same, bit for bit: it is the font's own result, kept.
"""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).resolve().parent
_FILES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf", "condensed": "DejaVuSansCondensed-Bold.ttf"}
KEPT = 20_000  # texts kept, rendered or measured, over every font (a few KB each at most)


class KeepingFont(ImageFont.FreeTypeFont):
    """A FreeType font that keeps what it renders (`getmask2`, what ImageDraw.text draws with) and measures
    (`getlength`) for the same text, size, anchor, stroke and sub-pixel start."""

    def getmask2(self, text, mode="", *args, **kwargs):
        if mode == "RGBA" or not _hashable(args, kwargs):  # a colour glyph's bitmap is changed by its drawer
            return super().getmask2(text, mode, *args, **kwargs)
        return _rendered(self, text, mode, args, tuple(sorted(kwargs.items())))

    def getlength(self, text, *args, **kwargs):
        if not _hashable(args, kwargs):
            return super().getlength(text, *args, **kwargs)
        return _measured(self, text, args, tuple(sorted(kwargs.items())))


def _hashable(args: tuple, kwargs: dict) -> bool:
    try:
        hash((args, tuple(kwargs.items())))
    except TypeError:  # a list of font features
        return False
    return True


@lru_cache(maxsize=KEPT)
def _rendered(f: KeepingFont, text, mode: str, args: tuple, kwargs: tuple):
    return ImageFont.FreeTypeFont.getmask2(f, text, mode, *args, **dict(kwargs))


@lru_cache(maxsize=KEPT)
def _measured(f: KeepingFont, text, args: tuple, kwargs: tuple) -> float:
    return ImageFont.FreeTypeFont.getlength(f, text, *args, **dict(kwargs))


@cache
def font(size: int, style: str = "regular") -> ImageFont.FreeTypeFont:
    return KeepingFont(str(FONT_DIR / _FILES[style]), max(6, int(size)))
