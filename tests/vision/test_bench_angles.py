"""The turned real photos of ``bench/angles.py``: the whole photo is kept, the corners are
filled plain (a mirrored fill would add cards that are not there)."""

from __future__ import annotations

import numpy as np
import pytest
from bench_scripts import load_bench


@pytest.fixture(scope="module")
def turned():  # type: ignore[no-untyped-def]
    return load_bench("angles").turned


def _photo() -> np.ndarray:
    image = np.full((40, 60, 3), 90, np.uint8)
    image[2:8, 2:10] = (250, 20, 20)  # a red mark near the top-left corner
    return image


def test_a_quarter_turn_is_np_rot90(turned) -> None:  # type: ignore[no-untyped-def]
    out = turned(_photo(), 90.0)
    assert out.shape == (60, 40, 3)
    assert np.abs(out.astype(int) - np.rot90(_photo()).astype(int)).max() <= 1


def test_a_slanted_photo_keeps_every_pixel_and_fills_the_corners_plain(turned) -> None:  # type: ignore[no-untyped-def]
    out = turned(_photo(), 45.0)
    assert out.shape[0] == out.shape[1] == round((40 + 60) / np.sqrt(2))
    red = (out[:, :, 0] > 200) & (out[:, :, 1] < 60)
    assert red.sum() == pytest.approx(6 * 8, rel=0.25)  # the mark, once, whole
    assert tuple(out[0, 0]) == (90, 90, 90)  # the border colour, not a mirrored mark
