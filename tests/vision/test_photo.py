"""Decoding a photo, whatever Pillow mode it opens in, to the 8-bit RGB the scanner reads."""

from __future__ import annotations

import io

import numpy as np
import pytest
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
