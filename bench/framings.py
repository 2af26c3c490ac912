"""Right cards on the real card fans framed as phone photos, by the least enlargement for which
the scanner reads a photo of small pieces a second time (``MIN_ENLARGE``).

Run: ``.venv/bin/python bench/framings.py [--settings 1.0,1.2]``. Each bidly fan (a square
photo) fills the height of a 3000 px high frame whose width is 1.0-1.33 times its height
(:func:`datasets.realdata.in_phone_frame`), each frame a JPEG turned four ways. The wider the
frame, the smaller the cards in the detector's 640 px input and the more enlargement the
scanner asks for: from about 1.05 times (square) to about 1.45 (4:3). Prints, per setting,
right, false and missed cards (multiset match per photo, each card once, as ``meldcam eval``
counts them), F1, right cards per frame, and milliseconds per photo.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import vision.detector
from datasets.realdata import fan_cards, in_phone_frame
from vision.evaluate import Tally
from vision.scanner import Scanner

ROOT = Path(__file__).resolve().parents[1]
FANS = ROOT.parent / "shared" / "realdata" / "card-fans"
ASPECTS = (1.0, 1.05, 1.1, 1.15, 1.2, 1.25, 4 / 3)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--settings", default="1.0,1.1,1.2,1.3")
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args()
    photos = [
        (aspect, in_phone_frame(image, aspect, turns=turns), truth)
        for image, truth in fan_cards(FANS)
        for aspect in ASPECTS
        for turns in range(4)
    ]
    if not photos:
        raise SystemExit(f"no fan photos under {FANS}")
    scanner = Scanner.load(args.models)
    print(f"{len(photos)} photos, {sum(t.total() for _, _, t in photos)} cards; served minimum "
          f"{vision.detector.MIN_ENLARGE}")  # fmt: skip
    for setting in (float(s) for s in args.settings.split(",")):
        vision.detector.MIN_ENLARGE = setting
        tally = Tally()
        by_frame: Counter[str] = Counter()
        start = time.perf_counter()
        for aspect, data, truth in photos:
            found = Counter(p.code for p in scanner.scan(data, "cards").pieces)
            by_frame[f"{aspect:.2f}"] += tally.add(truth, found)
        ms = (time.perf_counter() - start) * 1000 / len(photos)
        frames = " ".join(f"{a}:{n}" for a, n in by_frame.items())
        print(f"MIN_ENLARGE {setting}: {tally}; "
              f"right by frame {frames}; {ms:.0f} ms per photo")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
