"""The bad-photo catalogue: each is read correctly or refused with a reason, never stored half."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from photo_files import heic
from PIL import Image

from web.photos import UnreadablePhotoError, as_kept, inspect_photo


def encode(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def with_orientation(orientation: int) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    return encode(Image.new("RGB", (80, 40), "white"), "JPEG", exif=exif)


@pytest.mark.parametrize(
    ("orientation", "size"),
    [
        (1, (80, 40)),
        (2, (80, 40)),
        (3, (80, 40)),
        (4, (80, 40)),
        (5, (40, 80)),
        (6, (40, 80)),
        (7, (40, 80)),
        (8, (40, 80)),
    ],
)
def test_every_exif_orientation_is_applied(orientation: int, size: tuple[int, int]) -> None:
    info = inspect_photo(with_orientation(orientation))
    assert (info.width, info.height) == size


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (encode(Image.new("RGBA", (30, 20), (10, 20, 30, 128)), "PNG"), "image/png"),
        (encode(Image.new("L", (30, 20), 128), "JPEG"), "image/jpeg"),
        (encode(Image.new("CMYK", (30, 20), (0, 50, 100, 0)), "JPEG"), "image/jpeg"),
        (encode(Image.new("RGB", (30, 20)), "WEBP"), "image/webp"),
        (encode(Image.new("P", (30, 20)), "PNG"), "image/png"),
    ],
    ids=["png-alpha", "greyscale", "cmyk-jpeg", "webp", "palette-png"],
)
def test_unusual_but_valid_photos_are_read(data: bytes, kind: str) -> None:
    info = inspect_photo(data)
    assert info.content_type == kind and (info.width, info.height) == (30, 20)


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims a huge size (a decompression bomb)."""
    real = encode(Image.new("L", (1, 1)), "PNG")
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    patched = struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return real[:8] + patched + real[8 + 25 :]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"GIF89a not really", "not an image"),
        (b"%PDF-1.4 a document", "not an image"),
        (encode(Image.new("RGB", (200, 200), "red"), "JPEG")[:300], "damaged or truncated"),
        (png_claiming(30000, 30000), "too large in pixels"),
        (encode(Image.new("RGB", (20, 20)), "GIF"), "GIF images are not supported"),
    ],
    ids=["empty", "garbage", "pdf", "truncated", "bomb", "gif"],
)
def test_bad_photos_are_refused_with_a_reason(data: bytes, reason: str) -> None:
    with pytest.raises(UnreadablePhotoError, match=reason):
        inspect_photo(data)


def test_a_heic_photo_is_kept_as_an_upright_jpeg_every_browser_shows() -> None:
    """Held turned (EXIF 6), a HEIC is kept as the JPEG of what the phone shows, with nothing
    left to turn; other uploads are kept as sent, byte for byte."""
    picture = Image.new("RGB", (80, 40), "white")
    picture.paste((200, 0, 0), (0, 0, 40, 40))  # left half red: after turning, the top half
    kept = as_kept(heic(picture, orientation=6))
    info = inspect_photo(kept)
    assert (info.content_type, info.width, info.height) == ("image/jpeg", 40, 80)
    with Image.open(io.BytesIO(kept)) as image:
        assert image.getexif().get(0x0112, 1) == 1
        rgb = image.convert("RGB")
        top, bottom = rgb.getpixel((20, 10)), rgb.getpixel((20, 70))
    assert top[0] > 150 and top[1] < 60 and min(bottom) > 200
    jpeg = encode(picture, "JPEG")
    assert as_kept(jpeg) is jpeg


@pytest.mark.parametrize("keep", [0.5, 40], ids=["half", "file-type-box-alone"])
def test_a_damaged_heic_is_refused_with_a_reason(keep: float) -> None:
    data = heic(Image.new("RGB", (64, 48), "white"))
    cut = data[: int(len(data) * keep) if keep < 1 else int(keep)]
    with pytest.raises(UnreadablePhotoError, match=r"^the HEIC photo is damaged or truncated"):
        as_kept(cut)
