"""Melds read exactly on the photos whose cards are smaller and larger than a bound: how the
scanner's "taken from afar" notice (:data:`vision.afar.AFAR`) was chosen.

For each labelled photo with melds, the median piece's size as a share of the photo's long side
(:func:`vision.afar.piece_size`, from the scanner's own boxes) and how many of its true melds
were read exactly; then, per bound, the photos under it and over it with their melds. Readings
are taken from (and kept in) a ``meldcam eval --cache`` folder, so a second run costs seconds::

    python bench/piece_size.py data/dev_cards data/dev_cards_12mp data/syn_cards:val \\
        --cache data/cache --bounds 0.012,0.014,0.015,0.016
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vision.evaluate import ReadingCache, Report, iter_truths
from vision.scanner import Scanner

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("sets", nargs="+", help="SRC or SRC:SPLIT (default split: all)")
    p.add_argument("--kind", choices=("cards", "tiles"), default="cards")
    p.add_argument("--bounds", default="0.012,0.014,0.015,0.016,0.018,0.020")
    p.add_argument("--cache", type=Path, default=ROOT / "runs" / "readings")
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args(argv)

    scanner = Scanner.load(args.models)
    cache = ReadingCache(args.cache, scanner)
    photos: list[tuple[float, int, int]] = []  # (piece size, true melds, read exactly)
    for spec in args.sets:
        src, _, split = spec.partition(":")
        for truth in iter_truths(Path(src), split or "all"):
            if not truth.melds:
                continue
            result = cache.read(truth.image, truth.image, args.kind).assemble(path=str(truth.image))
            report = Report(args.kind)  # melds read exactly as meldcam eval counts them
            report.add(truth, result)
            photos.append((result.piece_size, report.melds_true, report.melds_exact))
    if not photos:
        raise SystemExit("no labelled photo with melds")
    print(f"{len(photos)} photos with melds")
    for bound in (float(b) for b in args.bounds.split(",")):
        under = [(n, e) for size, n, e in photos if size < bound]  # NaN (no piece) is over
        over = [(n, e) for size, n, e in photos if not size < bound]
        cells = []
        for name, group in (("under", under), ("over", over)):
            melds, exact = sum(n for n, _ in group), sum(e for _, e in group)
            share = f"{exact / melds:.3f}" if melds else "-"
            cells.append(f"{name}: {len(group)} photos, melds {exact}/{melds} = {share}")
        print(f"bound {bound:.3f}  " + "; ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
