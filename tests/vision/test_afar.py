"""A photo's cards too small to read reliably: the median piece's share of the long side."""

from __future__ import annotations

import math

import pytest

from vision.afar import AFAR, afar, piece_size


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
