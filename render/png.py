"""PNG encoding: an adaptive 256-colour palette keeps files small and encoding fast."""

from __future__ import annotations

import io

from PIL import Image


def to_png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(
        buf, format="PNG", compress_level=3)
    return buf.getvalue()
