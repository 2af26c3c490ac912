"""Cutting crops: served margins, per-box margins, wide training crops cut again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.crops import STORE_MARGIN, STORE_SIZE, cut_crops, recut, square_boxes


def _photo() -> np.ndarray:
    rng = np.random.default_rng(3)
    small = rng.integers(0, 256, (60, 80, 3)).astype(np.uint8)
    import cv2

    return cv2.resize(small, (800, 600), interpolation=cv2.INTER_CUBIC)  # smooth, not flat


def test_each_box_can_take_its_own_margin() -> None:
    boxes = np.array([[100, 100, 140, 160], [100, 100, 140, 160]], np.float32)
    squares = square_boxes(boxes, np.array([0.12, 0.3], np.float32))
    sides = squares[:, 2] - squares[:, 0]
    np.testing.assert_allclose(sides, [60 * 1.24, 60 * 1.6], rtol=1e-5)
    np.testing.assert_allclose((squares[:, 0] + squares[:, 2]) / 2, [120, 120])


@pytest.mark.parametrize("margin", [0.12, 0.25])
def test_a_wide_stored_crop_cut_again_matches_a_crop_cut_from_the_photo(margin: float) -> None:
    photo = _photo()
    boxes = np.array([[300, 200, 380, 320], [500, 250, 560, 300]], np.float32)
    wide = cut_crops(photo, boxes, STORE_SIZE, STORE_MARGIN)
    again = recut(wide, STORE_MARGIN, margin).astype(np.float32)
    direct = cut_crops(photo, boxes, 48, margin).astype(np.float32)
    # two resamplings against one: close, and far closer than the crop at another margin
    other = cut_crops(photo, boxes, 48, margin + 0.1).astype(np.float32)
    assert np.abs(again - direct).mean() < 4
    assert np.abs(other - direct).mean() > 3 * np.abs(again - direct).mean()


def test_a_margin_wider_than_the_stored_one_is_refused() -> None:
    wide = np.zeros((1, STORE_SIZE, STORE_SIZE, 3), np.uint8)
    with pytest.raises(ValueError, match="cannot cut"):
        recut(wide, 0.2, 0.3)


def test_the_scanner_cuts_crops_at_the_margins_its_config_names(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import shutil

    from vision.crops import MARGIN
    from vision.scanner import CONFIG_FILE, Scanner, ScannerConfig

    models = Path(__file__).resolve().parents[2] / "models"
    for name in ("detector.onnx", "classifier.onnx"):
        shutil.copy(models / name, tmp_path / name)
    assert ScannerConfig.read(tmp_path / CONFIG_FILE).crop_margin == MARGIN  # no config: 0.12
    (tmp_path / CONFIG_FILE).write_text(json.dumps({"crop_margin": 0.3}))
    scanner = Scanner.load(tmp_path)
    assert (scanner.classifier.margin, scanner.classifier.tile_margin) == (0.3, 0.3)
    (tmp_path / CONFIG_FILE).write_text(json.dumps({"crop_margin": 0.3, "crop_margin_tiles": 0.1}))
    scanner = Scanner.load(tmp_path, crop_margin=0.2)
    assert (scanner.classifier.margin, scanner.classifier.tile_margin) == (0.2, 0.1)
