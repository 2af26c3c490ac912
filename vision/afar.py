"""Whether a photo shows its cards too small to be read reliably: a whole table from afar.

A photo of a whole table from afar shows each card's index small, and small indexes are what
the scanner misses and misreads most: the detector sees the photo shrunk to 640 px (enlarged
for a second reading), the classifier a crop cut from the photo as decoded. So a photo of cards
whose median piece (its box's longer side) measures under :data:`AFAR` of the photo's longer
side is reported as taken from afar (``ScanResult.afar``): the player is asked to photograph
each side closer. The detector reads such a photo enlarged further where it holds the detail
(``afar_imgsz``, :meth:`vision.detector.OnnxDetector.enlarge_cap`). Measured (session 29;
`bench/piece_size.py`, the cached readings of session 27's models, before that enlargement),
melds read exactly on the photos under and over the bound. Chosen on the development
and val scenes (`dev_cards`, `dev_cards_12mp`, `syn_cards` and `syn_cards3` val: 441 photos with
melds): under 0.012 / 0.014 / **0.015** / 0.016 of the long side, 38 / 86 / 103 / 126 photos,
their melds 0.589 / 0.698 / **0.694** / 0.717 against 0.863 / 0.882 / **0.895** / 0.905 on the
others (as a 12 MP phone takes them, `dev_cards_12mp` alone: 36 photos of 143, 0.697 against
0.947). Held out: `test_cards` 36 photos of 142, their melds 0.724 against 0.892;
`test_cards_12mp` 35 of 144, 0.814 against 0.882. The real card fans measure 0.040 and 0.041
(not reported); tiled 2x2 into a 4000x3000 frame (`bench/afar.py`) 0.019 and 0.016, 3x3 0.014
and 0.011 (reported: read at F1 0.874 against 0.955 for 2x2). Tiles are never reported: a
tile's box is the whole tile, no tile scene of `dev_tiles` and `dev_tiles_12mp` measured under
0.015, and the 6 under 0.025 read their 22 melds exactly.

A photo with too few pixels shows its pieces small whatever the distance: a thumbnail, a photo
shrunk by a messenger. Its pieces are a fair share of the photo, so it is not afar, but a piece
that measures under :data:`LOW_RES_PX` pixels is read badly, so such a photo is reported
``low_resolution`` (``ScanResult.low_resolution``): the player is asked to send the photo at its
full size. Measured (session 34, `bench/resolution.py`): the real fans shrunk so that their
median corner box measures 16 / 14 / 12 / 10 / 8 / 6 px read at F1 0.960 / 0.949 / 0.914 /
0.804 / 0.812 / 0.507 (0.994 as taken, 48-50 px); the development card scenes
(`dev_cards`, 1280 px: under 19 px they are afar) whose median corner measures 12-14 px read
0.774, 14-16 px 0.863, 16-20 px 0.909. The real tile photos (val) shrunk to 1 / 0.5 / 0.35 /
0.25 / 0.18 / 0.12 of their size, pooled by the median tile's box: 16-20 px 0.981, 14-16 px
0.966, 12-14 px 0.839, 10-12 px 0.613, 8-10 px 0.519, and 1.000 from 20 px up. Enlarging a
shrunk fan twice or three times (cubic, Lanczos) before reading read no better (corners of 10
px: F1 0.79-0.83 against 0.86). A photo whose shorter side is under the smallest bound cannot
hold one piece the scanner can read, and is refused (:data:`MIN_PHOTO_SIDE`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

AFAR = {"cards": 0.015}
"""A photo of cards whose median piece measures less than this share of the photo's longer side
is reported as taken from afar (``ScanResult.afar``); tiles never are."""


LOW_RES_PX = {"cards": 14.0, "tiles": 14.0}
"""A photo whose median piece (its box's longer side) measures less than this many of the
photo's pixels is reported as of low resolution (``ScanResult.low_resolution``) unless it is
afar (a card corner's box holds its index; a tile's box is the whole tile)."""
MIN_PHOTO_SIDE = int(min(LOW_RES_PX.values()))
"""A photo whose shorter side is under this many pixels holds no piece the scanner can read:
it is refused."""


def piece_size(boxes: Sequence[Sequence[float]], width: int, height: int) -> float:
    """The median piece's size as a share of the photo's longer side: the longer side of each
    box ``(x1, y1, x2, y2)`` in photo pixels, their median over ``max(width, height)``; NaN
    when there is no box."""
    if max(width, height) <= 0:
        return math.nan
    return piece_px(boxes) / max(width, height)


def afar(size: float, kind: str) -> bool:
    """Whether a photo of ``kind`` whose median piece measures ``size`` (:func:`piece_size`) is
    reported as taken from afar."""
    bound = AFAR.get(kind)
    return bound is not None and size < bound  # NaN (no piece) never is


def piece_px(boxes: Sequence[Sequence[float]]) -> float:
    """The median piece's size in pixels: the median of each box's longer side; NaN when there
    is no box."""
    if not boxes:
        return math.nan
    return statistics.median(max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in boxes)


def low_resolution(px: float, size: float, kind: str) -> bool:
    """Whether a photo of ``kind`` whose median piece measures ``px`` pixels (:func:`piece_px`)
    and ``size`` of its longer side (:func:`piece_size`) is reported as of low resolution: its
    pieces too few pixels to be read reliably, though not taken from afar (:func:`afar`)."""
    bound = LOW_RES_PX.get(kind)
    return bound is not None and px < bound and not afar(size, kind)  # NaN never is
