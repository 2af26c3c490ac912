"""Decoding a photo, whatever Pillow mode it opens in, to the 8-bit RGB the scanner reads."""

from __future__ import annotations

import io

import numpy as np
import pytest
from photo_files import heic
from PIL import Image

from vision.photo import load_photo


def _scene() -> np.ndarray:
    """A 64x48 RGB picture with every grey level and three saturated patches."""
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 256, (48, 64, 3), dtype=np.uint8)
    rgb[:8, :32] = (255, 0, 0)
    rgb[8:16, :32] = (0, 0, 255)
    rgb[16:24, :32] = np.linspace(0, 255, 32, dtype=np.uint8)[None, :, None]
    return rgb


def _encoded(image: Image.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


def test_a_16_bit_grey_png_reads_as_its_8_bit_grey_not_white() -> None:
    grey = np.asarray(Image.fromarray(_scene()).convert("L"))
    wide = Image.fromarray((grey.astype(np.uint16) * 257).astype(np.uint16))  # 0..65535
    data = _encoded(wide, "PNG")
    assert Image.open(io.BytesIO(data)).mode.startswith("I")  # opened as 16-bit grey
    pixels = load_photo(data)
    assert pixels.shape == (48, 64, 3) and pixels.dtype == np.uint8
    assert np.abs(pixels[:, :, 0].astype(int) - grey).max() <= 1
    assert (pixels[:, :, 0] == pixels[:, :, 2]).all()


def test_a_32_bit_grey_image_of_8_bit_values_keeps_them() -> None:
    grey = np.asarray(Image.fromarray(_scene()).convert("L"))
    data = _encoded(Image.fromarray(grey.astype(np.int32), mode="I"), "TIFF")
    assert (load_photo(data)[:, :, 1] == grey).all()


@pytest.mark.parametrize(
    ("mode", "fmt"),
    [("RGBA", "PNG"), ("P", "PNG"), ("CMYK", "JPEG"), ("RGB", "WEBP"), ("RGB", "TIFF"),
     ("L", "PNG"), ("LA", "PNG")],
)  # fmt: skip
def test_photos_in_other_modes_read_as_pillows_rgb_of_them(mode: str, fmt: str) -> None:
    data = _encoded(Image.fromarray(_scene()).convert(mode), fmt)
    pixels = load_photo(data)
    assert (pixels == np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))).all()
    red = pixels[2:6, 4:28].reshape(-1, 3).mean(axis=0)  # the red patch, inside its edges
    if mode in ("L", "LA"):
        assert abs(red[0] - red[2]) < 1
    else:
        assert red[0] > 200 and red[1] < 60 and red[2] < 60


def _jpeg(image: Image.Image, orientation: int = 1) -> bytes:
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif.tobytes(), quality=95)
    return out.getvalue()


@pytest.mark.parametrize("orientation", [1, 6, 3, 8])
def test_a_heic_photo_reads_as_the_jpeg_of_the_same_photo(orientation: int) -> None:
    """An iPhone's HEIC, held any way up, reads upright as its JPEG does: turned once, not
    twice (pillow-heif turns it and leaves the EXIF orientation at 1)."""
    from vision.photo import is_heif, read_photo

    scene = Image.fromarray(_scene())
    data = heic(scene, orientation)
    assert is_heif(data) and not is_heif(_jpeg(scene))
    got, want = read_photo(data), read_photo(_jpeg(scene, orientation))
    assert (got.width, got.height) == (want.width, want.height)
    assert got.pixels.shape == want.pixels.shape
    assert (got.width, got.height) == ((48, 64) if orientation in (6, 8) else (64, 48))
    assert np.abs(got.pixels[..., 0].astype(int) - want.pixels[..., 0]).mean() < 12


def test_a_heic_photo_is_read_at_the_scale_a_jpeg_of_it_is_drafted_at() -> None:
    """A 12 MP HEIC is shrunk as its JPEG would be decoded (``min_side``), so that both read
    the same pixels; the boxes still come out in the full photo's pixels (``scale``)."""
    from vision.photo import read_photo

    scene = Image.fromarray(_scene()).resize((256, 192))
    got, want = read_photo(heic(scene), min_side=48), read_photo(_jpeg(scene), min_side=48)
    assert got.pixels.shape == want.pixels.shape == (48, 64, 3)
    assert got.scale == want.scale == (4.0, 4.0)
    assert read_photo(heic(scene), min_side=100).pixels.shape == (192, 256, 3)


def test_a_damaged_heic_is_refused_with_a_reason() -> None:
    from vision.errors import UnreadablePhotoError
    from vision.photo import read_photo

    data = heic(Image.fromarray(_scene()))
    for broken in (data[: len(data) // 2], b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"):
        with pytest.raises(UnreadablePhotoError, match="damaged or truncated"):
            read_photo(broken, "x.heic")
