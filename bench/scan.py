"""Milliseconds per photo for ``meldcam scan``: a 12 MP JPEG in, melds out.

Prints the split (decode, detect, recognise, group, score), the peak memory of the process,
and, when ultralytics is installed and ``models/detector.pt`` exists, the time of ultralytics'
own ``predict`` on the same photo at the same size for comparison.

    .venv/bin/python bench/scan.py [--photos N] [--models models]
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "realdata"


def twelve_mp_jpeg() -> bytes:
    """A real card-fan photo (or a tile photo) upscaled to 4000x3000, as a phone JPEG."""
    from PIL import Image

    candidates = sorted((REAL / "card-fans" / "images").glob("*.jpg")) or sorted(
        (REAL / "rummikub-tiles" / "images").glob("*.jpg")
    )
    if not candidates:
        raise SystemExit(f"no real photo under {REAL}")
    with Image.open(candidates[0]) as image:
        big = image.convert("RGB").resize((4000, 3000), Image.Resampling.BICUBIC)
    out = io.BytesIO()
    big.save(out, "JPEG", quality=90)
    return out.getvalue()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--photos", type=int, default=10)
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args()
    sys.path.insert(0, str(ROOT))
    from vision.scanner import Scanner

    data = twelve_mp_jpeg()
    t0 = time.perf_counter()
    scanner = Scanner.load(args.models)
    load_ms = (time.perf_counter() - t0) * 1000
    scanner.scan(data)  # warm-up
    parts: dict[str, list[float]] = {}
    walls = []
    for _ in range(args.photos):
        t = time.perf_counter()
        result = scanner.scan(data)
        walls.append((time.perf_counter() - t) * 1000)
        for k, v in result.timing_ms.items():
            parts.setdefault(k, []).append(v)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"12 MP JPEG ({len(data) / 1e6:.1f} MB), {args.photos} scans, models loaded in "
          f"{load_ms:.0f} ms; {len(result.pieces)} pieces, {len(result.melds)} melds")  # fmt: skip
    print("onnxruntime path, median ms: " + ", ".join(
        f"{k} {statistics.median(v):.0f}" for k, v in parts.items()
    ) + f"; wall {statistics.median(walls):.0f}")  # fmt: skip
    print(f"peak memory (RSS): {peak_mb:.0f} MB")
    weights = args.models / "detector.pt"
    if importlib.util.find_spec("ultralytics") and weights.exists():
        compare_ultralytics(weights, data, scanner.config.imgsz, args.photos)
    else:
        print("ultralytics predict: skipped (ultralytics or models/detector.pt missing)")
    return 0


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
