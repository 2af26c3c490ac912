"""A meld's facing from its pieces' up angles."""

from __future__ import annotations

import math

import pytest

from vision.facing import facing, mean_angle


@pytest.mark.parametrize(
    ("angles", "side"),
    [
        ([0.1, -0.2, 0.05], "near"),
        ([math.pi - 0.1, -math.pi + 0.1, math.pi], "far"),  # wraps round pi
        ([math.pi / 2, 1.4, 1.7], "left"),  # up points right: read from the left edge
        ([-math.pi / 2, -1.5], "right"),
        ([0.2, math.nan, 0.1], "near"),  # unknown angles are left out
    ],
)
def test_a_meld_faces_the_side_its_pieces_read_upright_for(angles: list[float], side: str) -> None:
    assert facing(angles) == side


def test_no_facing_without_angles_or_when_the_pieces_disagree() -> None:
    assert facing([]) is None
    assert facing([math.nan, math.nan]) is None
    assert facing([0.0, math.pi]) is None  # half upright, half upside down


def test_the_mean_of_angles_across_the_wrap_is_not_their_average() -> None:
    mean, agreement = mean_angle([3.1, -3.1])
    assert abs(abs(mean) - math.pi) < 0.05 and agreement > 0.99
