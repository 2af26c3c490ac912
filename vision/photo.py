"""Decoding a photo: bytes, a path or an array in; an upright RGB array out.

The EXIF orientation is applied, so every box the scanner reports is in pixels of the photo as
a person sees it. Anything that cannot be decoded raises :class:`UnreadablePhotoError`.

JPEG, PNG, WebP and whatever else Pillow opens are read, and HEIC, the format an iPhone keeps
its photos in, through pillow-heif (whose decoder turns the photo upright itself and leaves
its EXIF orientation at 1, so nothing is turned twice).
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vision.errors import UnreadablePhotoError

if TYPE_CHECKING:
    from PIL import Image

PhotoInput = bytes | bytearray | memoryview | str | Path | np.ndarray
MAX_PIXELS = 80_000_000
TURNED_ORIENTATIONS = (5, 6, 7, 8)
"""EXIF orientations that swap a photo's width and height."""
HEIF_BRANDS = frozenset({b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"})
"""The ISO base media file brands (bytes 8-12, after ``ftyp``) of HEIF photos: an iPhone's HEIC
says ``heic`` (``mif1`` among its compatible brands), some cameras ``mif1`` alone."""


def is_heif(data: bytes) -> bool:
    """Whether encoded bytes are a HEIF photo (HEIC), by their file type box."""
    return data[4:8] == b"ftyp" and data[8:12] in HEIF_BRANDS


@functools.cache
def open_heif_with_pillow() -> None:
    """Teach Pillow to open HEIF photos (pillow-heif's opener, registered once)."""
    from pillow_heif import register_heif_opener

    register_heif_opener()


@dataclass(frozen=True, slots=True)
class Photo:
    """An upright photo: ``pixels`` (maybe decoded at a reduced JPEG scale) and its full size.

    A box in ``pixels`` times ``scale`` is a box in the full upright photo.
    """

    pixels: np.ndarray
    width: int
    height: int

    @property
    def scale(self) -> tuple[float, float]:
        return self.width / self.pixels.shape[1], self.height / self.pixels.shape[0]


def read_photo(photo: PhotoInput, source: str | None = None, min_side: int = 0) -> Photo:
    """Decode, upright; a JPEG may be decoded at 1/2, 1/4 or 1/8 while both sides stay
    at least ``min_side`` pixels (0: full size), which is much faster for 12 MP photos."""
    if isinstance(photo, np.ndarray):
        pixels = _from_array(photo, source)
        return Photo(pixels, pixels.shape[1], pixels.shape[0])
    return _decode(_read_bytes(photo, source), source, min_side)


def load_photo(photo: PhotoInput, source: str | None = None) -> np.ndarray:
    """An (H, W, 3) uint8 RGB array, upright by the photo's EXIF orientation.

    Arrays are taken as RGB (grey and RGBA are converted) and are not rotated.
    """
    return read_photo(photo, source).pixels


def _read_bytes(photo: PhotoInput, source: str | None) -> bytes:
    if isinstance(photo, str | Path):
        source = source or str(photo)
        try:
            return Path(photo).read_bytes()
        except OSError as error:
            raise UnreadablePhotoError(error.strerror or str(error), source) from None
    if isinstance(photo, np.ndarray):
        raise UnreadablePhotoError("an array is not encoded bytes", source)
    return bytes(photo)


def _decode(data: bytes, source: str | None, min_side: int) -> Photo:
    from PIL import Image, ImageOps, UnidentifiedImageError

    if not data:
        raise UnreadablePhotoError("empty file", source)
    if is_heif(data):
        open_heif_with_pillow()
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > MAX_PIXELS:
                raise UnreadablePhotoError(
                    f"{image.width}x{image.height} is larger than {MAX_PIXELS} pixels", source
                )
            orientation = image.getexif().get(0x0112, 1)
            full = (image.width, image.height)
            if orientation in TURNED_ORIENTATIONS:
                full = (image.height, image.width)
            shown: Image.Image = image
            if min_side and image.format == "JPEG":
                image.draft("RGB", (min_side, min_side))
            elif min_side and image.format == "HEIF":
                # decoded whole, then shrunk as a JPEG's draft would be: the same pixels to read
                factor = _draft_factor(image.size, min_side)
                shown = image.reduce(factor) if factor > 1 else image
            upright = ImageOps.exif_transpose(shown)
            rgb = _as_rgb(upright)
    except UnidentifiedImageError:
        if is_heif(data):  # a HEIC's file type box, and nothing libheif can read after it
            raise UnreadablePhotoError("the HEIC photo is damaged or truncated", source) from None
        raise UnreadablePhotoError("not an image (unknown format)", source) from None
    except (OSError, SyntaxError, ValueError) as error:
        if isinstance(error, UnreadablePhotoError):
            raise
        reason = f"the photo is damaged or truncated ({str(error).strip()})"
        raise UnreadablePhotoError(reason, source) from None
    if rgb.ndim != 3 or rgb.shape[0] < 8 or rgb.shape[1] < 8:
        raise UnreadablePhotoError(f"image too small: {rgb.shape[1]}x{rgb.shape[0]}", source)
    return Photo(np.ascontiguousarray(rgb), full[0], full[1])


def _draft_factor(size: tuple[int, int], min_side: int) -> int:
    """The largest of 1, 2, 4 and 8 that keeps both sides of ``size`` at least ``min_side``
    long, as Pillow's JPEG draft picks its scale."""
    factor = 1
    while factor < 8 and min(size) // (factor * 2) >= min_side:
        factor *= 2
    return factor


WIDE_MODES = frozenset({"I;16", "I;16L", "I;16B", "I;16N", "I"})
"""Pillow's modes for 16-bit (and 32-bit integer) grey images, such as a 16-bit PNG: converted
to RGB as they are, every value above 255 would turn white."""


def _as_rgb(image: Image.Image) -> np.ndarray:
    """The image's pixels as 8-bit RGB; 16-bit grey scaled down to 8 bits, not clipped."""
    if image.mode in WIDE_MODES:
        grey = np.asarray(image, dtype=np.int64)
        top = 65535 if image.mode != "I" or int(grey.max(initial=0)) > 255 else 255
        grey = np.clip(grey * 255 // top, 0, 255).astype(np.uint8)
        return np.repeat(grey[:, :, None], 3, axis=2)
    return np.asarray(image.convert("RGB"))


def _from_array(array: np.ndarray, source: str | None) -> np.ndarray:
    if array.dtype != np.uint8:
        raise UnreadablePhotoError(f"array dtype {array.dtype}, expected uint8", source)
    if array.ndim == 2:
        array = np.repeat(array[:, :, None], 3, axis=2)
    if array.ndim != 3 or array.shape[2] not in (3, 4):
        raise UnreadablePhotoError(f"array shape {array.shape}, expected (H, W, 3)", source)
    if array.shape[0] < 8 or array.shape[1] < 8:
        raise UnreadablePhotoError(f"image too small: {array.shape[1]}x{array.shape[0]}", source)
    return np.ascontiguousarray(array[:, :, :3])
