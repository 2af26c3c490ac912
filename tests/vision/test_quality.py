"""Shake: motion blur told from the edges of the pieces, not from lens blur or their number."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.quality import SHAKEN, shake, shaken


def _table(n: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """A light table with ``n`` dark printed indexes (a rank and a pip) turned every way, and
    their boxes."""
    rng = np.random.default_rng(3)
    image = np.full((600, 800, 3), 235, np.uint8)
    boxes = []
    for k in range(n):
        x, y = 60 + (k % 6) * 120, 80 + (k // 6) * 220
        patch = np.full((70, 50, 3), 235, np.uint8)
        cv2.putText(patch, "KQ"[k % 2], (6, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 20, 20), 3)
        cv2.circle(patch, (25, 52), 9, (150, 20, 20), -1)
        turned = cv2.warpAffine(
            patch,
            cv2.getRotationMatrix2D((25, 35), float(rng.uniform(0, 360)), 1.0),
            (50, 70),
            borderValue=(235, 235, 235),
        )
        image[y : y + 70, x : x + 50] = turned
        boxes.append([x, y, x + 50, y + 70])
    return image, np.array(boxes, np.float32)


def _smear(image: np.ndarray, length: int, angle_deg: float) -> np.ndarray:
    kernel = np.zeros((length, length), np.float32)
    c = (length - 1) / 2
    dx, dy = math.cos(math.radians(angle_deg)) * c, math.sin(math.radians(angle_deg)) * c
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def test_sharp_indexes_have_no_preferred_direction() -> None:
    image, boxes = _table()
    assert shake(image, boxes) < 1.3
    assert not shaken(shake(image, boxes), "cards")


@pytest.mark.parametrize("angle", [0.0, 35.0, 90.0])
def test_a_hand_that_moved_smears_one_way_whichever_way(angle: float) -> None:
    image, boxes = _table()
    moved = shake(_smear(image, 13, angle), boxes)
    assert moved >= SHAKEN["cards"]
    assert shaken(moved, "cards")
    # a little smear, a fifth of an index, is not worth taking the photo again
    assert not shaken(shake(_smear(image, 5, angle), boxes), "cards")


def test_lens_blur_widens_every_edge_alike() -> None:
    image, boxes = _table()
    blurred = cv2.GaussianBlur(image, (0, 0), 2.5)
    assert shake(blurred, boxes) < 1.3


def test_too_few_pieces_to_tell_are_never_shaken() -> None:
    image, boxes = _table()
    smeared = _smear(image, 13, 0.0)
    assert math.isnan(shake(smeared, boxes[:2]))
    assert not shaken(shake(smeared, boxes[:2]), "cards")
    # blank boxes (no print in them) are not measured either
    blank = np.full_like(image, 235)
    assert math.isnan(shake(blank, boxes))


def test_tiles_are_reported_only_for_a_worse_smear() -> None:
    assert SHAKEN["tiles"] > SHAKEN["cards"]
    value = (SHAKEN["cards"] + SHAKEN["tiles"]) / 2
    assert shaken(value, "cards") and not shaken(value, "tiles")
