"""Cutting detections into the small squares the piece classifier reads.

Training and serving cut crops with this one function, so the classifier sees at run time
exactly what it learnt from: the axis-aligned box, grown by a margin, made square around its
centre (padding with edge pixels outside the photo), resized to ``size`` x ``size``.
"""

from __future__ import annotations

import numpy as np

CROP_SIZE = 48
MARGIN = 0.12


def square_boxes(boxes: np.ndarray, margin: float = MARGIN) -> np.ndarray:
    """Each (x1, y1, x2, y2) box grown by ``margin`` and made square around its centre."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    cx = (boxes[:, 0] + boxes[:, 2]) / 2
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    side = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) * (1 + 2 * margin)
    side = np.maximum(side, 2.0)
    return np.stack([cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2], axis=1)


def cut_crops(image: np.ndarray, boxes: np.ndarray, size: int = CROP_SIZE) -> np.ndarray:
    """(N, size, size, 3) uint8 crops of an RGB ``image`` for the (N, 4) pixel ``boxes``."""
    import cv2

    h, w = image.shape[:2]
    squares = np.round(square_boxes(boxes)).astype(np.int64)
    out = np.zeros((len(squares), size, size, 3), np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(squares):
        cx1, cy1, cx2, cy2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
        if cx2 <= cx1 or cy2 <= cy1:
            continue
        patch = image[cy1:cy2, cx1:cx2]
        pads = ((cy1 - y1, y2 - cy2), (cx1 - x1, x2 - cx2), (0, 0))
        if any(a or b for a, b in pads[:2]):
            patch = np.pad(patch, pads, mode="edge")
        inter = cv2.INTER_AREA if patch.shape[0] > size else cv2.INTER_LINEAR
        out[i] = cv2.resize(patch, (size, size), interpolation=inter)
    return out
