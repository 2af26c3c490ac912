"""Card corners read right by their size: at the detector's box and at the true box.

Each labelled card corner of the photos is looked for among what the scanner's classifier
first reads (the detector's boxes, cut from the photo as the light steps leave it, at the
classifier's three looks) and read again at its true box in the same pixels. Per size of the
true box (the square root of its area, in the pixels the classifier cuts from: a 12 MP photo's
are halved), it prints how many corners there are, the share the detector found (a box of IoU
0.4 or more on it), the share of those read right, and the share read right at the true box. A
corner read no better at its true box than at the detector's is lost to the pixels it holds,
not to where the detector put its box (session 51, ``docs/measurements.md``)::

    python bench/corner_sizes.py data/dev_cards data/dev_cards_12mp:all
    python bench/corner_sizes.py data/dev_decks --models /tmp/candidate --bins 12,16,20

The photos are read anew (about a minute for 200 photos of 1280 px on 2 cores): no reading
cache holds the detector's boxes before the gaps are filled. The classifier is the one the
scanner serves on this CPU; ``MELDCAM_CLASSIFIER=int8w7`` reads as ``models/metrics.json`` was.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from vision.detections import Detections, box_iou
from vision.evaluate import iter_truths
from vision.scanner import Scanner
from vision.train.compare import SIZE_BINS, bin_names, size_bin

ROOT = Path(__file__).resolve().parents[1]
FOUND_IOU = 0.4
"""A detection on a true corner overlaps it at least this much."""
SAME_BOX = 0.9
"""A true box read again is told among the boxes the classifier kept by this overlap."""


class _FirstRead:
    """The scanner's classifier, keeping the pixels and the reading of its first call for a
    photo (the detector's boxes: gap filling and jokers are read after)."""

    def __init__(self, classifier: object) -> None:
        self.classifier = classifier
        self.first: tuple[np.ndarray, Detections] | None = None

    def read(
        self, image: np.ndarray, detections: Detections, presence: bool = False, looks: int = 3
    ) -> Detections:
        out: Detections = self.classifier.read(image, detections, presence, looks)  # type: ignore[attr-defined]
        if self.first is None:
            self.first = (image, out)
        return out

    def __getattr__(self, name: str) -> object:
        return getattr(self.classifier, name)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("sets", nargs="+", help="SRC or SRC:SPLIT (default split: all)")
    p.add_argument(
        "--bins",
        default=",".join(f"{b:g}" for b in SIZE_BINS),
        help="upper bounds of the sizes, px",
    )
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args(argv)
    bins = [float(b) for b in args.bins.split(",")]

    served = Scanner.load(args.models)
    first = _FirstRead(served.classifier)
    scanner = Scanner(served.detector, first, served.config)  # type: ignore[arg-type]
    # per bin: corners, found by the detector, read right at its box, read right at the true box
    table = np.zeros((len(bins) + 1, 4), np.int64)
    for spec in args.sets:
        src, _, split = spec.partition(":")
        for truth in iter_truths(Path(src), split or "all"):
            corners = [b for b in truth.boxes if not b.is_tile]
            if not corners:
                continue
            first.first = None
            reading = scanner.read(truth.image, "cards")
            # the scanner reads its detections once for every photo (none found: none read)
            assert first.first is not None
            image, found = first.first
            scale = image.shape[1] / reading.width  # the pixels read: a 12 MP photo's halved
            boxes = np.array([b.box for b in corners], np.float32) * scale
            again = served.classifier.read(
                image, Detections.from_boxes(boxes, np.ones(len(boxes)), np.zeros(len(boxes)))
            )
            on_found = box_iou(boxes, found.xyxy) if len(found) else np.zeros((len(boxes), 0))
            on_again = box_iou(boxes, again.xyxy) if len(again) else np.zeros((len(boxes), 0))
            found_codes, again_codes = found.codes(), again.codes()
            for k, corner in enumerate(corners):
                w, h = boxes[k, 2] - boxes[k, 0], boxes[k, 3] - boxes[k, 1]
                row = table[size_bin(math.sqrt(float(w * h)), bins)]
                row[0] += 1
                if on_found.shape[1] and on_found[k].max() >= FOUND_IOU:
                    row[1] += 1
                    row[2] += found_codes[int(on_found[k].argmax())] == corner.code
                if on_again.shape[1] and on_again[k].max() >= SAME_BOX:
                    row[3] += again_codes[int(on_again[k].argmax())] == corner.code
    if not table[:, 0].sum():
        raise SystemExit("no labelled card corner")
    print("true box (px) | corners | found | read right at the detector's box | at the true box")
    for name, (n, found_n, right, true_right) in zip(bin_names(bins), table, strict=True):
        if n:
            print(
                f"{name} | {n} | {found_n / n:.3f} | {right / max(found_n, 1):.3f} | "
                f"{true_right / n:.3f}"
            )
    n, found_n, right, true_right = table.sum(axis=0)
    print(f"all | {n} | {found_n / n:.3f} | {right / max(found_n, 1):.3f} | {true_right / n:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
