"""How well the scanner tells a photo taken by a moving hand (``ScanResult.shaken``).

For each labelled set: how many photos the generator smeared (its truth's ``motion_px``), how
many the scanner reports shaken and how many of those were smeared, the highest shake of a photo
that was not smeared, and the melds read exactly on the reported photos against the others.
Readings are taken from (and kept in) a ``meldcam eval --cache`` folder::

    python bench/shake.py data/syn_cards:val:cards data/test_tiles:all:tiles --cache data/cache
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from vision.evaluate import ReadingCache, Report, iter_truths
from vision.quality import SHAKEN
from vision.scanner import Scanner

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("sets", nargs="+", help="SRC:SPLIT:KIND, e.g. data/test_cards:all:cards")
    p.add_argument("--cache", type=Path, default=ROOT / "runs" / "readings")
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args(argv)
    cache = ReadingCache(args.cache, Scanner.load(args.models))
    print(f"reported shaken from: {SHAKEN}")
    for spec in args.sets:
        src, split, kind = spec.split(":")
        report = Report(kind)
        smeared = flagged_smeared = unmeasured = 0
        still_max = 0.0
        for truth in iter_truths(Path(src), split):
            if not any(b.is_tile == (kind == "tiles") for b in truth.boxes):
                continue
            meta = Path(src) / "truth" / f"{truth.image.stem}.json"
            moved = meta.exists() and json.loads(meta.read_text())["photo"]["motion_px"] > 0
            result = cache.read(truth.image, truth.image, kind).assemble(path=str(truth.image))
            report.add(truth, result)
            smeared += moved
            flagged_smeared += result.shaken and moved
            unmeasured += math.isnan(result.shake)
            if not moved and not math.isnan(result.shake):
                still_max = max(still_max, result.shake)
        others = (
            report.melds_exact - report.shaken.melds_exact,
            report.melds_true - report.shaken.melds,
        )
        print(
            f"{src} ({split}, {kind}): {report.photos} photos ({unmeasured} too few pieces to "
            f"tell), {smeared} smeared; reported shaken {report.shaken.photos} ({flagged_smeared} "
            f"smeared); highest shake not smeared {still_max:.2f}; melds read exactly on the "
            f"reported {report.shaken.melds_exact}/{report.shaken.melds}, on the others "
            f"{others[0]}/{others[1]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
