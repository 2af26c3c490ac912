"""Cutting detections into the small squares the piece classifier reads.

Training and serving cut crops with this one function: the axis-aligned box, grown by a
margin, made square around its centre (padding with edge pixels outside the photo), resized to
``size`` x ``size``.

The training sets are cut wider than any crop is served (:data:`STORE_MARGIN`, at
:data:`STORE_SIZE`) so that training can draw each crop's margin at random
(:func:`vision.train.classifier.train_classifier`): a detector's box on a card's index often
holds the rank and only part of the suit, and a classifier that has only seen tight crops has
to guess the suit from what is left. The scanner then cuts at the margin the model card names
(``crop_margin`` in ``models/scanner.json``).
"""

from __future__ import annotations

import numpy as np

CROP_SIZE = 48
MARGIN = 0.12
"""The margin served when ``scanner.json`` names none: the one models before session 5 were
trained at (one margin for every crop)."""
STORE_MARGIN = 0.45
"""The margin training crops are stored at; any margin up to it can be cut from them."""
STORE_SIZE = 72
"""The side training crops are stored at: cut again at a 12 % margin their square is still 47
px, about :data:`CROP_SIZE`, so cutting them again hardly ever enlarges."""


def square_boxes(boxes: np.ndarray, margin: float | np.ndarray = MARGIN) -> np.ndarray:
    """Each (x1, y1, x2, y2) box grown by ``margin`` (one for all or one per box) and made
    square around its centre."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    margin = np.asarray(margin, np.float32)
    cx = (boxes[:, 0] + boxes[:, 2]) / 2
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    side = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) * (1 + 2 * margin)
    side = np.maximum(side, 2.0)
    return np.stack([cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2], axis=1)


def cut_crops(
    image: np.ndarray,
    boxes: np.ndarray,
    size: int = CROP_SIZE,
    margin: float | np.ndarray = MARGIN,
) -> np.ndarray:
    """(N, size, size, 3) uint8 crops of an RGB ``image`` for the (N, 4) pixel ``boxes``."""
    import cv2

    h, w = image.shape[:2]
    squares = np.round(square_boxes(boxes, margin)).astype(np.int64)
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


def recut(crops: np.ndarray, stored: float, margin: float, size: int = CROP_SIZE) -> np.ndarray:
    """Crops stored at margin ``stored`` cut again at the smaller ``margin``, at ``size``."""
    import cv2

    if margin > stored + 1e-6:
        raise ValueError(f"cannot cut a {margin} margin from crops stored at {stored}")
    side = crops.shape[1]
    keep = side * (1 + 2 * margin) / (1 + 2 * stored)
    lo = (side - keep) / 2
    out = np.empty((len(crops), size, size, 3), np.uint8)
    # an affine warp samples the centre square exactly, without rounding it to whole pixels
    scale = size / keep
    matrix = np.array([[scale, 0, -lo * scale], [0, scale, -lo * scale]], np.float32)
    for i, crop in enumerate(crops):
        out[i] = cv2.warpAffine(
            crop, matrix, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
    return out
