"""Shake: motion blur told from the edges of the pieces, not from lens blur or their number;
colour: a black and white photo told from a colour one."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.quality import (
    COLOURLESS,
    MIN_SMEAR,
    SHAKEN,
    colour_level,
    colourless,
    deconvolve,
    line_kernel,
    shake,
    shaken,
    smear,
)


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


@pytest.mark.parametrize(("length", "angle"), [(8, 0.0), (12, 35.0), (10, 90.0), (9, 150.0)])
def test_the_smear_is_measured_along_its_own_direction(length: int, angle: float) -> None:
    image, boxes = _table()
    measured, direction = smear(_smear(image, length, angle), boxes)
    # the length a little short rather than long (too long a smear taken out rings)
    assert 0.7 * length <= measured <= 1.15 * length, measured
    turned = (direction - math.radians(angle) + math.pi / 2) % math.pi - math.pi / 2
    assert abs(turned) < math.radians(8), math.degrees(direction)  # a line has no sign


def test_sharp_indexes_show_no_smear_to_take_out() -> None:
    image, boxes = _table()
    assert smear(image, boxes)[0] < MIN_SMEAR
    assert smear(image, boxes[:2]) == (0.0, 0.0)  # too few pieces to say


def test_a_line_kernel_is_a_line_of_its_length() -> None:
    kernel = line_kernel(8.0, 0.0)
    assert kernel.sum() == pytest.approx(1.0)
    row = kernel[kernel.shape[0] // 2]
    assert row.sum() == pytest.approx(1.0)  # all of it on the middle row
    assert (row > 0).sum() in (8, 9) and row.max() / row[row > 0].min() <= 2  # ends anti-aliased
    upright = line_kernel(8.0, math.pi / 2)
    assert np.allclose(upright, kernel.T, atol=1e-6)


def test_deconvolving_by_the_smear_gives_back_the_sharp_edges() -> None:
    image, boxes = _table()
    kernel = line_kernel(9.0, math.radians(20))
    smeared = cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_REFLECT)
    sharp = deconvolve(smeared, kernel, 0.01)
    assert sharp.shape == image.shape and sharp.dtype == np.uint8

    pieces = np.zeros(image.shape[:2], bool)
    for x1, y1, x2, y2 in boxes.astype(int):
        pieces[y1:y2, x1:x2] = True

    def error(x: np.ndarray) -> float:  # on the pieces, where the edges are
        return float(np.abs(x.astype(np.float32) - image)[pieces].mean())

    assert error(sharp) < 0.6 * error(smeared)  # measured 6.0 against 10.7
    assert abs(float(sharp.mean()) - float(image.mean())) < 0.5  # as bright as it was
    assert shake(sharp, boxes) < 1.3 < shake(smeared, boxes)  # no preferred direction left
    grey = deconvolve(cv2.cvtColor(smeared, cv2.COLOR_RGB2GRAY), kernel, 0.01)
    assert grey.shape == image.shape[:2]


def test_a_black_and_white_photo_holds_no_colour_and_a_colour_one_does() -> None:
    rng = np.random.default_rng(4)
    grey = np.repeat(rng.integers(0, 256, (1512, 2016, 1), dtype=np.uint8), 3, axis=2)
    assert colour_level(grey) == 0.0 and colourless(colour_level(grey))
    # a grey table with a few red indexes, a small share of its pixels: colour still told
    table = np.full((1512, 2016, 3), 128, np.uint8)
    for k in range(12):
        table[600:640, 100 + 150 * k : 124 + 150 * k] = (200, 30, 40)  # 0.4 % of the photo
    assert colour_level(table) > 4 * COLOURLESS and not colourless(colour_level(table))
    # a grey JPEG decodes with no colour either, and NaN (not measured) is never colourless
    ok, data = cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, 60])
    assert ok and colourless(colour_level(cv2.imdecode(data, cv2.IMREAD_COLOR)))
    assert not colourless(math.nan)
