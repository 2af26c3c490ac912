"""A photo's pieces too small to read reliably: the median piece's share of the long side (a table
from afar) or its pixels (a photo with too few of them)."""

from __future__ import annotations

import math

import pytest

from vision.afar import AFAR, LOW_RES_PX, afar, low_resolution, piece_px, piece_size


def test_piece_size_is_the_median_box_over_the_photos_long_side() -> None:
    boxes = [(0, 0, 10, 30), (50, 50, 90, 60), (0, 0, 20, 20), (5, 5, 6, 7), (0, 0, 300, 1)]
    # longer sides 30, 40, 20, 2, 300: the median 30, over the long side 1000
    assert piece_size(boxes, 1000, 600) == pytest.approx(0.03)
    assert piece_size(boxes, 600, 1000) == pytest.approx(0.03)  # the long side either way
    assert math.isnan(piece_size([], 1000, 600))


def test_only_cards_under_the_bound_are_reported_afar() -> None:
    bound = AFAR["cards"]
    assert afar(bound * 0.99, "cards") and not afar(bound, "cards")
    assert not afar(bound * 0.5, "tiles")  # a tile's box is the whole tile
    assert not afar(math.nan, "cards")  # no piece found: nothing to say about their size


def test_piece_px_is_the_median_box_in_pixels() -> None:
    boxes = [(0, 0, 10, 30), (50, 50, 90, 60), (0, 0, 20, 20), (5, 5, 6, 7)]
    assert piece_px(boxes) == pytest.approx(25)  # longer sides 30, 40, 20, 2
    assert math.isnan(piece_px([]))


@pytest.mark.parametrize("kind", ["cards", "tiles"])
def test_pieces_under_the_pixel_bound_are_low_resolution_unless_afar(kind: str) -> None:
    bound = LOW_RES_PX[kind]
    near = 0.04  # the real fans' corners measure 4 % of the long side
    assert low_resolution(bound - 0.5, near, kind) and not low_resolution(bound, near, kind)
    assert not low_resolution(math.nan, math.nan, kind)  # no piece found
    if kind == "cards":  # a table from afar is asked to come closer, not for more pixels
        assert not low_resolution(bound - 0.5, AFAR["cards"] * 0.9, kind)
