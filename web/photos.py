"""Uploaded photos: checked before anything is stored, kept under generated names.

A photo is refused with a reason when it is empty, not an image, truncated, or too
large in bytes or pixels (a decompression bomb). An iPhone's HEIC photo is kept and
read as the JPEG it makes (:func:`as_kept`), since most browsers cannot show a HEIC.
"""

from __future__ import annotations

import io
import secrets
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from vision.photo import TURNED_ORIENTATIONS, is_heif, open_heif_with_pillow
from web.errors import WebError

MAX_PIXELS = 50_000_000  # a 48 MP phone photo fits; a 30000x30000 bomb does not
HEIC_JPEG_QUALITY = 92
"""The JPEG quality a HEIC photo is kept at: about the size of the JPEG the phone itself would
have written for it."""
_FORMATS = {
    "JPEG": ("image/jpeg", ".jpg"),
    "PNG": ("image/png", ".png"),
    "WEBP": ("image/webp", ".webp"),
}


class UnreadablePhotoError(WebError):
    """The upload is not a photo meldcam can read; the message says why."""


@dataclass(frozen=True, slots=True)
class PhotoInfo:
    content_type: str
    suffix: str
    width: int
    height: int
    """Size after the EXIF orientation is applied."""


def inspect_photo(data: bytes, *, decode: bool = True) -> PhotoInfo:
    """Check an upload, as :func:`as_kept` keeps it, and describe it.

    With ``decode`` every pixel is decoded, so a truncated file is refused here; without it
    only the headers are read (format, size, orientation), for a caller that decodes the photo
    anyway and refuses it there: ``/api/scan``, whose scanner's decode is the check.
    """
    if not data:
        raise UnreadablePhotoError("the photo is empty")
    if is_heif(data):
        raise ValueError("inspect_photo takes an upload as as_kept keeps it: a HEIC as JPEG")
    unknown = "this file is not an image meldcam can read (JPEG, PNG, WebP or HEIC)"
    with _opened(data, "photo", unknown) as image:
        kind = image.format or ""
        width, height = image.size
        if decode:
            image.load()  # decode everything: a truncated file fails here
        if image.getexif().get(0x0112, 1) in TURNED_ORIENTATIONS:
            width, height = height, width
    if kind not in _FORMATS:
        raise UnreadablePhotoError(
            f"{kind or 'this'} images are not supported: send JPEG, PNG, WebP or HEIC"
        )
    content_type, suffix = _FORMATS[kind]
    return PhotoInfo(content_type, suffix, width, height)


def as_kept(data: bytes) -> bytes:
    """The upload as it is kept and read: a HEIC photo (an iPhone's) made a JPEG, upright, with
    its colour profile; any other upload as sent. A damaged HEIC, or one too large in pixels,
    is refused with the reason."""
    if not is_heif(data):
        return data
    open_heif_with_pillow()
    # Pillow cannot tell a HEIC it cannot read from no image: the file type box says HEIC
    with _opened(data, "HEIC photo", "the HEIC photo is damaged or truncated") as image:
        profile = image.info.get("icc_profile")
        rgb = image.convert("RGB")  # decoded upright: its EXIF orientation is 1
    out = io.BytesIO()
    rgb.save(out, "JPEG", quality=HEIC_JPEG_QUALITY, icc_profile=profile)
    return out.getvalue()


@contextmanager
def _opened(data: bytes, what: str, unknown: str) -> Iterator[Image.Image]:
    """The upload opened by Pillow, at most ``MAX_PIXELS`` large; a decompression bomb, a file
    Pillow cannot identify (refused as ``unknown`` says) or one that fails to decode, here or
    in the caller's block (refused as a damaged ``what``), raise :class:`UnreadablePhotoError`."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                if width * height > MAX_PIXELS:
                    raise UnreadablePhotoError(
                        f"the photo claims {width}x{height} pixels: more than meldcam reads "
                        f"({MAX_PIXELS // 1_000_000} MP)"
                    )
                yield image
    except UnreadablePhotoError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise UnreadablePhotoError(
            "the photo is too large in pixels (a decompression bomb?)"
        ) from None
    except UnidentifiedImageError:
        raise UnreadablePhotoError(unknown) from None
    except (OSError, SyntaxError, ValueError) as error:
        reason = str(error).strip()
        raise UnreadablePhotoError(f"the {what} is damaged or truncated ({reason})") from None


def new_photo_id() -> str:
    return secrets.token_urlsafe(12)


def save_photo(folder: Path, photo_id: str, info: PhotoInfo, data: bytes) -> str:
    """Write the upload under a generated name; returns that name."""
    folder.mkdir(parents=True, exist_ok=True)
    filename = f"{photo_id}{info.suffix}"
    target = folder / filename
    tmp = target.with_suffix(target.suffix + ".part")
    tmp.write_bytes(data)
    tmp.replace(target)
    return filename
