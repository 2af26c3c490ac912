"""Balancing a photo taken under tinted light (vision.light)."""

from __future__ import annotations

import numpy as np

from vision.light import CAST, balance, cast


def _table(white: tuple[int, int, int], rows: int = 20) -> np.ndarray:
    """Green felt with a few white pieces on it (``rows`` x 100 of 200 x 200 pixels), lit so
    that white reads ``white``."""
    image = np.zeros((200, 200, 3), np.uint8)
    image[:] = (40, 120, 50)
    image[90 : 90 + rows, 60:160] = white
    return image


def test_a_photo_within_the_learnt_cast_is_read_as_it_is() -> None:
    image = _table((240, 230, 215))  # ivory tiles in a slightly warm room: 1.12
    assert balance(image) is image


def test_a_strong_cast_is_brought_down_to_the_learnt_one() -> None:
    image = _table((240, 197, 132))  # a tungsten lamp: blue at 0.55 of red
    assert cast(image).max() > CAST
    out = balance(image)
    assert out is not image
    assert abs(float(cast(out).max()) - CAST) < 0.02  # the whites now within the learnt cast
    assert (out.astype(int) >= image.astype(int)).all()  # no channel lowered
    assert (out[..., 0] == image[..., 0]).all()  # the brightest channel untouched


def test_the_whites_are_the_pieces_not_the_table_around_them() -> None:
    # a few neutral white tiles (under 1 % of the photo) on bright green felt: the felt, though
    # 99 % of the pixels and greener than any white, is no white to balance by
    image = _table((235, 235, 235), rows=3)
    image[:] = np.where(image == 235, image, np.array([60, 200, 70], np.uint8))
    assert float(np.percentile(image[..., 0], 99)) == 60  # the felt's, not the tiles' red
    assert float(cast(image).max()) < 1.05
    assert balance(image) is image
