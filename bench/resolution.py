"""How well the real photos read with fewer pixels: how the scanner's "low resolution" notice
(:data:`vision.afar.LOW_RES_PX`) was chosen.

The real card fans are shrunk so that their median corner box measures each of ``--corners``
pixels (48-49 px as taken), and the real tile photos of the val split (``data/real``) to each
of ``--scales`` of their size; each shrunk photo is scanned whole and its pieces matched to the
labels as ``meldcam eval`` does (a multiset per photo). Prints F1 (right / false / missed) per
corner size, and for the tiles pooled by the median tile's box in the shrunk photo::

    python bench/resolution.py --corners 6,8,10,12,14,16 --scales 1,0.5,0.35,0.25,0.18,0.12
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from PIL import Image

from datasets.realdata import fan_cards
from vision.evaluate import Tally, iter_truths
from vision.photo import load_photo
from vision.scanner import Scanner

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "realdata"
TILE_BINS = (8, 10, 12, 14, 16, 20, 24, 32, 48, 64)
"""Upper edges (px) of the bins the tile photos are pooled in by their median tile."""


def shrink(image: np.ndarray, factor: float) -> np.ndarray:
    """``image`` resized by ``factor`` (Lanczos), as a thumbnail or a messenger shrinks it."""
    if factor >= 1:
        return image
    h, w = image.shape[:2]
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    return np.asarray(Image.fromarray(image).resize(size, Image.Resampling.LANCZOS))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--corners", default="6,8,10,12,14,16", help="median corner sizes (px)")
    p.add_argument("--scales", default="1,0.5,0.35,0.25,0.18,0.12", help="tile photo scales")
    p.add_argument("--real", type=Path, default=ROOT / "data" / "real")
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args(argv)
    scanner = Scanner.load(args.models)

    fans = []
    for image, truth in fan_cards(REAL / "card-fans"):
        pixels = load_photo(image)
        taken = scanner.scan(pixels, "cards")
        fans.append((pixels, truth, taken.piece_px))
    print("real card fans, median corner as taken: " + ", ".join(f"{px:.1f} px" for *_, px in fans))
    for corner in (float(c) for c in args.corners.split(",")):
        tally = Tally()
        for pixels, truth, px in fans:
            found = scanner.scan(shrink(pixels, corner / px), "cards")
            tally.add(truth, Counter(q.code for q in found.pieces))
        print(f"  corner {corner:4.1f} px: {tally}", flush=True)

    scales = [float(s) for s in args.scales.split(",")]
    pooled: dict[float, Tally] = defaultdict(Tally)
    photos: Counter[float] = Counter()
    for labelled in iter_truths(args.real, "val"):
        if not any(b.is_tile for b in labelled.boxes):
            continue  # the fans are read above
        pixels = load_photo(labelled.image)
        median = statistics.median(
            max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in (b.box for b in labelled.boxes)
        )
        for scale in scales:
            found = scanner.scan(shrink(pixels, scale), "tiles")
            edge = next((e for e in TILE_BINS if median * scale < e), float("inf"))
            pooled[edge].add(Counter(labelled.pieces), Counter(q.code for q in found.pieces))
            photos[edge] += 1
    print(f"real tile photos (val) at scales {args.scales}, by the median tile's box:")
    low = 0.0
    for edge in sorted(pooled):
        print(f"  {low:3.0f}-{edge:<4} px: {photos[edge]:3d} photos, {pooled[edge]}")
        low = edge
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
