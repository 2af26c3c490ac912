"""The detector's close-up refit: big pieces are read again at the size the model learnt."""

from __future__ import annotations

import numpy as np

from vision.detector import OnnxDetector


class FakeSession:
    """A YOLO-shaped model that finds one 160 px box per 160 px of input width, but only
    ``extra`` more (small) boxes when its input is at most 352 px wide."""

    def __init__(self) -> None:
        self.widths: list[int] = []

    def run(self, _outputs: object, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        (tensor,) = feeds.values()
        width = tensor.shape[3]
        self.widths.append(width)
        side = 160.0 if width > 352 else 40.0
        count = 3 if width > 352 else 5
        rows = [[side * (i + 0.5), side / 2, side * 0.9, side * 0.9, 0.0, 0.0, 0.9, 0.0]
                for i in range(count)]  # fmt: skip
        return [np.array(rows, np.float32).T[None]]


def _detector(piece_px: float) -> tuple[OnnxDetector, FakeSession]:
    det = OnnxDetector.__new__(OnnxDetector)
    session = FakeSession()
    det.session, det.input_name, det.metadata = session, "images", {}
    det.imgsz, det.conf, det.iou, det.piece_px = 640, 0.2, 0.3, piece_px
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


def test_tiles_can_have_their_own_confidence_floor() -> None:
    from vision.detector import decode_yolo

    # two far-apart boxes scored 0.25: a card corner (class 0) and a tile (class 2)
    rows = [[50, 50, 20, 20, 0.25, 0.0, 0.0, 0.0], [300, 300, 40, 50, 0.0, 0.0, 0.25, 0.0]]
    output = np.array(rows, np.float32).T[None]
    _, _, classes = decode_yolo(output, np.array([0.2, 0.2, 0.3, 0.3], np.float32), 0.3)
    assert classes.tolist() == [0]
    _, _, classes = decode_yolo(output, 0.2, 0.3)
    assert sorted(classes.tolist()) == [0, 2]
