"""Right cards on the real card fans turned by any angle, not only by quarter turns.

Run: ``.venv/bin/python bench/angles.py [--angles 0,15,30]``. A phone held over a table is
seldom square to it: each bidly fan photo is turned about its centre by each angle (the canvas
grown to hold it, the corners filled with the photo's median border colour, not mirrored,
which would add cards) and scanned as cards. Prints, per angle, right, false and missed cards
(multiset match per photo, each card once, as ``meldcam eval`` counts them) and F1.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from pathlib import Path

import numpy as np

from datasets.realdata import fan_cards
from vision.evaluate import Tally
from vision.photo import load_photo
from vision.scanner import Scanner

ROOT = Path(__file__).resolve().parents[1]
FANS = ROOT.parent / "shared" / "realdata" / "card-fans"
ANGLES = "0,15,30,45,60,75,90,135,180"


def turned(image: np.ndarray, degrees: float) -> np.ndarray:
    """``image`` turned ``degrees`` counter-clockwise on a canvas that holds all of it."""
    import cv2

    h, w = image.shape[:2]
    matrix = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), degrees, 1.0)  # pixel centres
    c, s = abs(math.cos(math.radians(degrees))), abs(math.sin(math.radians(degrees)))
    nw, nh = round(w * c + h * s), round(w * s + h * c)
    matrix[:, 2] += ((nw - w) / 2, (nh - h) / 2)
    border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    fill = tuple(float(v) for v in np.median(border, axis=0))
    return cv2.warpAffine(
        image, matrix, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
        borderValue=fill,
    )  # fmt: skip


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--angles", default=ANGLES, help="degrees, counter-clockwise")
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args()
    fans = [(load_photo(image), truth) for image, truth in fan_cards(FANS)]
    if not fans:
        raise SystemExit(f"no fan photos under {FANS}")
    scanner = Scanner.load(args.models)
    print(f"{len(fans)} photos, {sum(t.total() for _, t in fans)} cards")
    for angle in (float(a) for a in args.angles.split(",")):
        tally = Tally()
        for image, truth in fans:
            tally.add(
                truth, Counter(p.code for p in scanner.scan(turned(image, angle), "cards").pieces)
            )
        print(f"turned {angle:5.1f} degrees: {tally}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
