"""Looking for the card corners a meld says the detector missed (vision.gaps)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.classes import PIECES
from vision.detections import NUM_FACES, Detections
from vision.gaps import GAP_LOOKS, candidate_boxes, fill_gaps

W, H = 12.0, 26.0  # a corner index box
STEP = 30.0  # the fan step of a column meld


def _column(x: float, ys: list[float], codes: list[str]) -> Detections:
    """Read card corners of a column meld, one per y (centres), with their codes."""
    xyxy = np.array([[x - W / 2, y - H / 2, x + W / 2, y + H / 2] for y in ys], np.float32)
    dets = Detections.from_boxes(xyxy, np.full(len(ys), 0.8), np.zeros(len(ys), np.int64))
    faces = np.full((len(ys), NUM_FACES), 1e-4, np.float32)
    for row, code in enumerate(codes):
        faces[row, PIECES.names.index(code)] = 0.95
    return dets.with_faces(faces)


def _centres(boxes: np.ndarray) -> list[tuple[float, float]]:
    return sorted(
        (round(float(x), 1), round(float(y), 1)) for x, y in (boxes[:, :2] + boxes[:, 2:]) / 2
    )


def test_a_corner_missing_inside_a_meld_and_one_past_each_end_are_looked_for() -> None:
    # 5H 6H _ 8H 9H: the detector missed 7H, two steps lie between 6H and 8H
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    boxes = candidate_boxes(dets, 400, 400)
    assert _centres(boxes) == [(100.0, 70.0), (100.0, 160.0), (100.0, 250.0)]
    assert np.allclose(boxes[:, 2:] - boxes[:, :2], [W, H])  # the neighbours' size


def test_a_longer_gap_is_looked_for_from_both_sides_within_the_photo() -> None:
    # 7H and 8H missing: the column breaks into two melds, each looked past at both ends
    dets = _column(100, [20, 50, 140, 170], ["5H", "6H", "9H", "10H"])
    centres = _centres(candidate_boxes(dets, 400, 190))
    # one step before 5H (y -10) and one after 10H (y 200) lie outside the photo
    assert centres == [(100.0, 80.0), (100.0, 110.0)]


def test_nothing_is_looked_for_without_a_meld() -> None:
    lone = _column(100, [100], ["5H"])
    assert len(candidate_boxes(lone, 400, 400)) == 0
    tiles = Detections.from_boxes(
        np.array([[0, 0, 20, 30], [21, 0, 41, 30]], np.float32), np.ones(2), np.full(2, 2)
    )
    assert len(candidate_boxes(tiles, 400, 400)) == 0  # tiles: cards only


class _Reader:
    """A classifier stand-in: reads a box as class ``code``, present with the probability its y
    says."""

    def __init__(self, presence_at: dict[float, float], code: str = "7H") -> None:
        self.presence_at = presence_at
        self.code = code
        self.seen = 0
        self.looks = 0

    def read(
        self, image: np.ndarray, detections: Detections, presence: bool = False, looks: int = 0
    ) -> Detections:
        assert presence  # looked-for boxes have no detector score
        self.seen += len(detections)
        self.looks = looks
        y = detections.centres[:, 1]
        p = np.array([self.presence_at.get(round(float(v)), 0.0) for v in y], np.float32)
        faces = np.full((len(detections), NUM_FACES), 0.0, np.float32)
        faces[:, PIECES.names.index(self.code)] = 1.0
        read = Detections(detections.xyxy, p, detections.coarse, faces, detections.up)
        return read[p >= 0.5]  # what reads as no piece is dropped, as the classifier does


def test_a_looked_for_corner_read_surely_joins_the_detections() -> None:
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    image = np.zeros((400, 400, 3), np.uint8)
    reader = _Reader({160: 0.9, 250: 0.55})  # the gap reads 7H surely, past 9H weakly
    out = fill_gaps(image, dets, reader, floor=0.6)
    assert reader.seen == 3
    assert reader.looks == GAP_LOOKS  # passed on (the stand-in's default, 0, is none)
    assert len(out) == 5 and out.codes()[4] == "7H"
    assert out.centres[4].tolist() == [100.0, 160.0]
    assert out.confidence[4] == pytest.approx(0.9)  # its presence
    assert np.array_equal(out.xyxy[:4], dets.xyxy)  # what the detector found is kept as it was


def test_nothing_read_surely_leaves_the_detections_as_they_were() -> None:
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    out = fill_gaps(np.zeros((400, 400, 3), np.uint8), dets, _Reader({}), floor=0.5)
    assert out is dets


def test_a_looked_for_place_read_as_a_joker_is_not_taken() -> None:
    """One fan step past a meld's end lies that card's face, whose picture reads as a joker
    more often than a true joker lies there (session 15: 10 of 46 such reads were right)."""
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    out = fill_gaps(np.zeros((400, 400, 3), np.uint8), dets, _Reader({160: 0.95}, "JK-card"), 0.5)
    assert out is dets
