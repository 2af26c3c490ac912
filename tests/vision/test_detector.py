"""The detector's second readings: a close-up read again smaller, small pieces enlarged."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from vision.detector import OnnxDetector

Rows = list[list[float]]


def big_pieces(width: int) -> Rows:
    """Three 144 px tiles (boxes 160 px apart) at inputs over 352 px; fitted smaller, five
    36 px ones (the close-up reading finds more)."""
    side = 160.0 if width > 352 else 40.0
    count = 3 if width > 352 else 5
    return [[side * (i + 0.5), side / 2, side * 0.9, side * 0.9, 0.0, 0.0, 0.9, 0.0]
            for i in range(count)]  # fmt: skip


def small_pieces(width: int) -> Rows:
    """Card corners 1/80 of the input wide (8 px in a 640 px photo), in a row: at 640 px corners
    0-2 and corner 10, at any larger input corners 0-5 (the smallest are found only enlarged,
    and corner 10 only at 640)."""
    side = width / 80
    found = (0, 1, 2, 10) if width <= 640 else range(6)
    return [[side * (2 * i + 1), side, side, side, 0.9, 0.0, 0.0, 0.0] for i in found]


class FakeSession:
    """A YOLO-shaped model whose boxes at each input width are ``rows(width)`` (cx, cy, w, h,
    then the four class scores); it records the widths it was run at."""

    def __init__(self, rows: Callable[[int], Rows] = big_pieces) -> None:
        self.rows = rows
        self.widths: list[int] = []

    def run(self, _outputs: object, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        (tensor,) = feeds.values()
        width = tensor.shape[3]
        self.widths.append(width)
        return [np.array(self.rows(width), np.float32).T[None]]


def _detector(piece_px: float) -> tuple[OnnxDetector, FakeSession]:
    det = OnnxDetector.__new__(OnnxDetector)
    session = FakeSession()
    det.session, det.input_name, det.metadata = session, "images", {}
    det.imgsz, det.conf, det.iou, det.piece_px = 640, 0.2, 0.3, piece_px
    det.small_px, det.max_imgsz, det.afar_imgsz = 0.0, 640, 0
    return det, session


def test_a_close_up_is_read_again_smaller_and_the_better_reading_kept() -> None:
    det, session = _detector(piece_px=32)
    found = det.detect(np.zeros((640, 640, 3), np.uint8))
    assert session.widths == [640, 320]  # 144 px median -> fitted to 320 (the smallest)
    assert len(found) == 5


def test_without_piece_px_one_pass() -> None:
    det, session = _detector(piece_px=0)
    assert len(det.detect(np.zeros((640, 640, 3), np.uint8))) == 3
    assert session.widths == [640]


def _small_detector(small_px: float, max_imgsz: int) -> tuple[OnnxDetector, FakeSession]:
    det, _ = _detector(piece_px=32)
    session = FakeSession(small_pieces)
    det.session, det.small_px, det.max_imgsz = session, small_px, max_imgsz
    return det, session


def test_small_pieces_are_read_again_enlarged_up_to_the_cap() -> None:
    det, session = _small_detector(small_px=16, max_imgsz=1280)
    found = det.detect(np.zeros((640, 640, 3), np.uint8))
    assert session.widths == [640, 1280]  # 8 px median -> enlarged twice to reach 16 px
    # the readings merged: pieces 0-5 once each (found in both, or enlarged only) and piece 10
    assert sorted(np.round(found.centres[:, 0] / 16 - 0.5).astype(int).tolist()) == [
        0, 1, 2, 3, 4, 5, 10
    ]  # fmt: skip
    assert float(np.median(found.sizes.max(axis=1))) == pytest.approx(8.0)  # photo pixels

    det, session = _small_detector(small_px=16, max_imgsz=960)
    det.detect(np.zeros((640, 640, 3), np.uint8))
    assert session.widths == [640, 960]


def corners(share: float) -> Callable[[int], Rows]:
    """Six card corners in a row, each ``share`` of the input wide, at any input width."""

    def rows(width: int) -> Rows:
        side = width * share
        return [[side * (2 * i + 1), side, side, side, 0.9, 0.0, 0.0, 0.0] for i in range(6)]

    return rows


@pytest.mark.parametrize(
    ("share", "photo", "widths"),
    [
        (1 / 80, 2000, [640, 1920]),  # 1.25 % of the long side: afar, with the detail for 1920
        (1 / 80, 1280, [640, 1280]),  # afar, but decoded 1,280 long: no detail to gain beyond
        (1 / 60, 2000, [640, 1280]),  # 1.67 %: small, not afar
    ],
)
def test_a_table_from_afar_is_enlarged_further_where_the_photo_holds_the_detail(
    share: float, photo: int, widths: list[int]
) -> None:
    det, _ = _detector(piece_px=32)
    session = FakeSession(corners(share))
    det.session, det.small_px, det.max_imgsz, det.afar_imgsz = session, 28.0, 1280, 1920
    det.detect(np.zeros((photo, photo, 3), np.uint8))
    assert session.widths == widths


def test_pieces_big_enough_no_cap_or_too_little_to_gain_are_read_once() -> None:
    det, session = _small_detector(small_px=8, max_imgsz=1280)  # median 8 px is not below 8
    assert len(det.detect(np.zeros((640, 640, 3), np.uint8))) == 4
    assert session.widths == [640]
    det, session = _small_detector(small_px=16, max_imgsz=640)
    det.detect(np.zeros((640, 640, 3), np.uint8))
    assert session.widths == [640]
    # 8 -> 8.2 px asks for 656 px, which rounds to the stride at 640: nothing to gain
    det, session = _small_detector(small_px=8.2, max_imgsz=1280)
    det.detect(np.zeros((640, 640, 3), np.uint8))
    assert session.widths == [640]


def test_a_small_enlargement_is_read_when_it_gains_a_stride() -> None:
    det, session = _small_detector(small_px=8.4, max_imgsz=1280)  # 8 -> 8.4 px: 672 px
    det.detect(np.zeros((640, 640, 3), np.uint8))
    assert session.widths == [640, 672]


def test_an_enlargement_under_the_minimum_is_not_worth_a_second_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("vision.detector.MIN_ENLARGE", 1.3)
    # 8 -> 10 px is 800 px (1.25 times 640): under the minimum, read once
    det, session = _small_detector(small_px=10, max_imgsz=1280)
    det.detect(np.zeros((640, 640, 3), np.uint8))
    assert session.widths == [640]
    # 8 -> 10.5 px is 840 px, fitted to the stride: 832 px (1.3 times), read again
    det, session = _small_detector(small_px=10.5, max_imgsz=1280)
    det.detect(np.zeros((640, 640, 3), np.uint8))
    assert session.widths == [640, 832]


def test_tiles_can_have_their_own_confidence_floor() -> None:
    from vision.detector import decode_yolo

    # two far-apart boxes scored 0.25: a card corner (class 0) and a tile (class 2)
    rows = [[50, 50, 20, 20, 0.25, 0.0, 0.0, 0.0], [300, 300, 40, 50, 0.0, 0.0, 0.25, 0.0]]
    output = np.array(rows, np.float32).T[None]
    _, _, classes = decode_yolo(output, np.array([0.2, 0.2, 0.3, 0.3], np.float32), 0.3)
    assert classes.tolist() == [0]
    _, _, classes = decode_yolo(output, 0.2, 0.3)
    assert sorted(classes.tolist()) == [0, 2]


def test_the_scanner_gives_its_detector_the_enlarge_settings_of_its_config(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import shutil
    from pathlib import Path

    from vision.scanner import CONFIG_FILE, Scanner

    models = Path(__file__).resolve().parents[2] / "models"
    for name in ("detector.onnx", "classifier.onnx"):
        shutil.copy(models / name, tmp_path / name)
    (tmp_path / CONFIG_FILE).write_text(json.dumps({"small_px": 28, "max_imgsz": 1280}))
    detector = Scanner.load(tmp_path).detector
    assert (detector.small_px, detector.max_imgsz) == (28, 1280)
    (tmp_path / CONFIG_FILE).write_text(json.dumps({"imgsz": 640}))
    detector = Scanner.load(tmp_path).detector
    assert (detector.small_px, detector.max_imgsz) == (0, 640)  # off: no second, bigger pass


def digits_as_corners(width: int) -> Rows:
    """Three 144 px tiles at inputs over 352 px; fitted smaller, their numbers (and more) read as
    eight 8 px card corners: more boxes, but far smaller than the pieces fitted."""
    if width > 352:
        return big_pieces(width)
    return [[10.0 * (i + 1), 10.0, 8.0, 8.0, 0.9, 0.0, 0.0, 0.0] for i in range(8)]


def test_a_smaller_reading_of_details_far_smaller_than_the_pieces_is_not_kept() -> None:
    det, _ = _detector(piece_px=32)
    session = FakeSession(digits_as_corners)
    det.session = session
    found = det.detect(np.zeros((640, 640, 3), np.uint8))
    assert session.widths == [640, 320]
    assert len(found) == 3 and set(found.coarse.tolist()) == {2}  # the three tiles
