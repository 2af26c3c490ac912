"""Which side of the table a meld faces, from its pieces' up angles.

A meld is laid facing the player who owns it: its cards' corner indexes (a tile's number) read
upright for that player. In a photo of a whole table the near side's melds read upright, the far
side's upside down, the left and right players' turned a quarter. The classifier reads each
piece's up angle (:attr:`vision.detections.Detections.up`: 0 upright, pi upside down, y pointing
down); a meld faces the side its pieces' mean up direction points away from.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

FACINGS = ("near", "left", "far", "right")
"""Quarter turns 0..3 of the up angle: upright for the photographer (near the photo's bottom
edge), for a player at the left edge, the far edge, the right edge."""
MIN_AGREEMENT = 0.5
"""Length of the mean unit vector below which the pieces disagree too much to say."""


def mean_angle(angles: Iterable[float]) -> tuple[float, float]:
    """(circular mean, agreement 0..1) of the finite ``angles``; (nan, 0) when there are none."""
    a = np.array([v for v in angles if math.isfinite(v)], np.float64)
    if not len(a):
        return math.nan, 0.0
    mean = np.exp(1j * a).mean()
    return float(np.angle(mean)), float(abs(mean))


def facing(angles: Iterable[float]) -> str | None:
    """The side a meld whose pieces have these up angles faces, or None if unknown or mixed."""
    mean, agreement = mean_angle(angles)
    if not math.isfinite(mean) or agreement < MIN_AGREEMENT:
        return None
    return FACINGS[round(mean / (math.pi / 2)) % 4]
