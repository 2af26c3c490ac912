"""Grouping: physical pieces and ordered melds from boxes, on synthetic truth and by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import grouping
from vision.truth import read_synth_truth, truth_arrays

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.json"))


def _meld_hits(path: Path) -> tuple[int, int]:
    truth = read_synth_truth(path)
    centres, sizes, codes, is_tile = truth_arrays(truth)
    g = grouping.group(centres, sizes, codes, is_tile)
    uids = [b.uid for b in truth.boxes]
    found = set()
    for meld in g.melds:
        u = tuple(uids[g.pieces[i][0]] for i in meld)
        found |= {u, u[::-1]}
    return sum(m in found for m in truth.meld_uids), len(truth.meld_uids)


@pytest.mark.parametrize("kind", ["cards", "tiles"])
def test_melds_of_synthetic_truth_boxes_match_exactly(kind: str) -> None:
    hits = [_meld_hits(p) for p in FIXTURES if p.name.startswith(kind)]
    exact, total = map(sum, zip(*hits, strict=True))
    assert total >= 10
    assert exact / total >= 0.9


def test_physical_pieces_of_synthetic_truth_are_one_per_card() -> None:
    wrong = total = 0
    for path in FIXTURES:
        truth = read_synth_truth(path)
        centres, sizes, codes, is_tile = truth_arrays(truth)
        pieces = grouping.merge_corners(centres, sizes, codes, is_tile)
        uids = [b.uid for b in truth.boxes]
        wrong += sum(len({uids[i] for i in p}) != 1 for p in pieces)
        wrong += abs(len(pieces) - len(set(uids)))
        total += len(set(uids))
    assert wrong / total <= 0.05


def _column(x: float, y0: float, codes: list[str], step: float = 30.0) -> list[tuple]:
    """Corner boxes (12x26) of a column meld: each card's index one step below the last."""
    return [(code, x, y0 + i * step, 12.0, 26.0) for i, code in enumerate(codes)]


def _arrays(boxes: list[tuple]) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    centres = np.array([[b[1], b[2]] for b in boxes], np.float32)
    sizes = np.array([[b[3], b[4]] for b in boxes], np.float32)
    return centres, sizes, [b[0] for b in boxes], np.zeros(len(boxes), bool)


def test_a_card_seen_by_both_corners_is_one_piece() -> None:
    # a column 5H 6H 7H: the last card also shows its far corner (same code), 5 sizes away
    boxes = [*_column(100, 100, ["5H", "6H", "7H"]), ("7H", 190.0, 270.0, 12.0, 26.0)]
    g = grouping.group(*_arrays(boxes))
    assert len(g.pieces) == 3
    assert sorted(g.pieces[2]) == [2, 3]
    assert g.melds == ((0, 1, 2),)


def test_two_identical_cards_of_two_decks_stay_two() -> None:
    boxes = _column(100, 100, ["7S", "7S", "7H", "7D"])
    g = grouping.group(*_arrays(boxes))
    assert len(g.pieces) == 4
    assert g.melds == ((0, 1, 2, 3),)


def test_neighbouring_columns_are_separate_melds_in_order() -> None:
    boxes = [*_column(100, 100, ["3C", "4C", "5C"]), *_column(190, 100, ["9D", "9S", "9H"])]
    g = grouping.group(*_arrays(boxes))
    melds = {tuple(g.pieces[i][0] for i in m) for m in g.melds}
    assert melds in ({(0, 1, 2), (3, 4, 5)}, {(2, 1, 0), (3, 4, 5)}, {(0, 1, 2), (5, 4, 3)},
                     {(2, 1, 0), (5, 4, 3)})  # fmt: skip
    assert g.unassigned == ()


def test_a_lone_card_is_unassigned() -> None:
    boxes = [*_column(100, 100, ["3C", "4C", "5C"]), ("KD", 400.0, 400.0, 12.0, 26.0)]
    g = grouping.group(*_arrays(boxes))
    assert g.unassigned == (3,)


def test_two_rows_of_tiles_on_a_rack_are_two_melds() -> None:
    w, h = 40.0, 54.0
    row1 = [(f"R{n}", 100 + i * w, 100.0, w, h) for i, n in enumerate((3, 4, 5, 6))]
    row2 = [(f"K{n}", 100 + i * w, 100.0 + h, w, h) for i, n in enumerate((9, 9, 9))]
    boxes = row1 + row2
    centres, sizes, codes, _ = _arrays(boxes)
    g = grouping.group(centres, sizes, codes, np.ones(len(boxes), bool))
    assert sorted(len(m) for m in g.melds) == [3, 4]


def test_no_boxes_no_melds() -> None:
    g = grouping.group(np.zeros((0, 2)), np.zeros((0, 2)), [], np.zeros(0, bool))
    assert g == grouping.Grouping((), (), ())
