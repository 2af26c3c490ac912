"""Milliseconds per photo for ``meldcam scan``: a 12 MP JPEG in, melds out.

Two photos: a real card fan (big pieces) and the same fan tiled 2x2 into the frame, a table seen
from afar whose small pieces the detector reads a second time enlarged (``small_px``; timed
also with that second reading off). Prints each one's split (decode, detect, recognise, group,
score), the peak memory of the process, and, when ultralytics is installed and
``models/detector.pt`` exists, the time of ultralytics' own ``predict`` on the fan photo at the
same size for comparison; and the two photos read with each classifier not served (the 8-bit
one is served on a CPU with VNNI, the one with 7-bit weights on a CPU with AVX2 alone, the fp32
one elsewhere: ``vision.scanner.classifier_file``).

    .venv/bin/python bench/scan.py [--photos N] [--models models]
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vision.scanner import Scanner

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "realdata"


def twelve_mp_jpeg(tiled: int = 1) -> bytes:
    """A real card-fan photo (or a tile photo) upscaled to 4000x3000, as a phone JPEG; with
    ``tiled`` n, n x n copies of it fill the frame (pieces n times smaller)."""
    from datasets.realdata import table_from_afar

    candidates = sorted((REAL / "card-fans" / "images").glob("*.jpg")) or sorted(
        (REAL / "rummikub-tiles" / "images").glob("*.jpg")
    )
    if not candidates:
        raise SystemExit(f"no real photo under {REAL}")
    return table_from_afar(candidates[0], tiled, (4000, 3000))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--photos", type=int, default=10)
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args()
    sys.path.insert(0, str(ROOT))
    from vision.recogniser import OnnxClassifier
    from vision.scanner import CLASSIFIER_CHOICES, Scanner

    data = twelve_mp_jpeg()
    t0 = time.perf_counter()
    scanner = Scanner.load(args.models)
    load_ms = (time.perf_counter() - t0) * 1000
    print(f"models loaded in {load_ms:.0f} ms; classifier served: {scanner.classifier.path.name}")
    afar = twelve_mp_jpeg(2)
    measure(scanner, data, args.photos, "card fan")
    scanner.count_copies = False  # four copies of each card: more than two decks hold
    measure(scanner, afar, args.photos, "fan tiled 2x2 (table from afar)")
    if scanner.config.small_px > 0:
        plain = Scanner.load(args.models, count_copies=False, small_px=0)
        measure(plain, afar, args.photos, "the same, not enlarged (small_px 0)")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (RSS): {peak_mb:.0f} MB")
    served = scanner.classifier.path.name
    for other in CLASSIFIER_CHOICES.values():
        if other == served or not (args.models / other).exists():
            continue
        # the same photos read with a classifier not served on this CPU, for comparison
        config = scanner.config
        scanner.classifier = OnnxClassifier(
            args.models / other, config.crop_margin, config.tile_crop_margin
        )
        scanner.count_copies = True
        measure(scanner, data, args.photos, f"card fan, read with {other} (not served here)")
        scanner.count_copies = False
        measure(scanner, afar, args.photos, f"fan tiled 2x2, read with {other} (not served here)")
    weights = args.models / "detector.pt"
    if importlib.util.find_spec("ultralytics") and weights.exists():
        compare_ultralytics(weights, data, scanner.config.imgsz, args.photos)
    else:
        print("ultralytics predict: skipped (ultralytics or models/detector.pt missing)")
    return 0


def measure(scanner: Scanner, data: bytes, n: int, label: str) -> None:
    """Print the median split of ``n`` scans of one photo (after a warm-up scan), each judging
    its melds afresh: the verdicts the repair keeps (``vision.repair.JUDGED``) would otherwise
    all come from the scan before, which a new photo's do not."""
    from vision.repair import forget_verdicts

    scanner.scan(data)  # warm-up
    parts: dict[str, list[float]] = {}
    walls = []
    for _ in range(n):
        forget_verdicts()
        t = time.perf_counter()
        result = scanner.scan(data)
        walls.append((time.perf_counter() - t) * 1000)
        for k, v in result.timing_ms.items():
            parts.setdefault(k, []).append(v)
    print(f"{label}: 12 MP JPEG ({len(data) / 1e6:.1f} MB), {n} scans; "
          f"{len(result.pieces)} pieces, {len(result.melds)} melds")  # fmt: skip
    print("  onnxruntime path, median ms: " + ", ".join(
        f"{k} {statistics.median(v):.0f}" for k, v in parts.items()
    ) + f"; wall {statistics.median(walls):.0f}")  # fmt: skip


def compare_ultralytics(weights: Path, data: bytes, imgsz: int, n: int) -> None:
    """ultralytics' own predict on the decoded photo (detect only) for comparison."""
    import os

    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(ROOT / ".yolo"))
    from ultralytics import YOLO

    from vision.photo import read_photo
    from vision.scanner import DECODE_MIN_SIDE

    image = read_photo(data, min_side=DECODE_MIN_SIDE).pixels[:, :, ::-1]
    model = YOLO(str(weights))
    model.predict(image, imgsz=imgsz, device="cpu", verbose=False)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        model.predict(image, imgsz=imgsz, device="cpu", verbose=False)
        times.append((time.perf_counter() - t) * 1000)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"ultralytics predict (torch) detect only: median {statistics.median(times):.0f} ms; "
          f"peak memory now {peak_mb:.0f} MB")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
