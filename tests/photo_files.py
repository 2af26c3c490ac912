"""Photo files as phones write them, for the tests of every package (on pytest's path)."""

from __future__ import annotations

import io

from PIL import Image

from vision.photo import open_heif_with_pillow

ORIENTATION = 0x0112
"""The EXIF tag that says how a photo is shown: 1 as stored, 6 turned a quarter clockwise."""


def heic(image: Image.Image, orientation: int = 1, quality: int = 95) -> bytes:
    """``image`` as an iPhone keeps a photo: HEIC with its EXIF orientation set."""
    open_heif_with_pillow()  # the opener that reads HEIC writes it too
    exif = Image.Exif()
    exif[ORIENTATION] = orientation
    out = io.BytesIO()
    image.save(out, "HEIF", exif=exif.tobytes(), quality=quality)
    return out.getvalue()
