"""Why the true melds of a labelled set were not read exactly, meld by meld.

``meldcam eval`` counts the losses (missed, misread, both, grouped); this lists them, with what
the scanner made of each lost meld's pieces: the code read on each piece (``-`` where none was
found) with its probability, its box's size in photo pixels, and the scanned melds those pieces
went into. Readings are taken from (and kept in) a ``meldcam eval --cache`` folder, so a second
run costs seconds::

    python bench/losses.py data/chk_tiles --kind tiles --split all --cache runs/readings
    python bench/losses.py data/syn_cards3 --kind cards --only grouped --cache runs/readings
    python bench/losses.py data/dev_cards --kind cards --split all --unwarned --cache data/cache
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path

from vision.evaluate import LOSSES, ReadingCache, _losses, _match_uids, iter_truths, melds_read
from vision.scanner import Scanner

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("src", type=Path)
    p.add_argument("--kind", choices=("cards", "tiles"), required=True)
    p.add_argument("--split", default="val")
    p.add_argument("--cache", type=Path, default=ROOT / "runs" / "readings")
    p.add_argument("--only", choices=LOSSES, default=None, help="list only melds lost so")
    p.add_argument(
        "--unwarned",
        action="store_true",
        help="only the photos the scanner gives no warning about (not shaken, afar, coarse nor "
        "black and white): what a player who takes the warned ones again still loses",
    )
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args(argv)

    scanner = Scanner.load(args.models)
    cache = ReadingCache(args.cache, scanner)
    tally: Counter[str] = Counter()
    misread: Counter[tuple[str, str]] = Counter()
    sizes: dict[str, list[float]] = {"right": [], "misread": []}
    lost = total = 0
    for truth in iter_truths(args.src, args.split):
        if not truth.melds:
            continue
        result = cache.read(truth.image, truth.image, args.kind).assemble(path=str(truth.image))
        if args.unwarned and result.warned:
            continue
        on = _match_uids(truth, result)
        found = melds_read(result)
        reasons = iter(_losses(truth, result, on, found))
        by_uid: dict[int, list[int]] = {}
        for j, uid in on.items():
            by_uid.setdefault(uid, []).append(j)
        meld_of = {i: k for k, m in enumerate(result.melds) for i in m.pieces}
        code_of = {b.uid: b.code for b in truth.boxes}
        for codes, uids in zip(truth.melds, truth.meld_uids, strict=True):
            total += 1
            for u in uids:
                for j in by_uid.get(u, []):
                    box = result.pieces[j].box
                    size = math.sqrt((box[2] - box[0]) * (box[3] - box[1]))
                    right = result.pieces[j].code == code_of[u]
                    sizes["right" if right else "misread"].append(size)
                    if not right:
                        misread[(code_of[u], result.pieces[j].code)] += 1
            if codes in found:
                continue
            reason = next(reasons)
            tally[reason] += 1
            lost += 1
            if args.only and reason != args.only:
                continue
            cells = []
            for u in uids:
                js = by_uid.get(u, [])
                if not js:
                    cells.append(f"{code_of[u]}:-")
                    continue
                piece = result.pieces[js[0]]
                mark = ""
                if piece.code != code_of[u]:
                    others = "/".join(f"{c}:{q:.2f}" for c, q in piece.alternatives)
                    mark = f">{piece.code}[{others}]"
                where = meld_of.get(js[0])
                cells.append(
                    f"{code_of[u]}{mark}({piece.confidence:.2f},"
                    f"m{where if where is not None else '-'})"
                )
            scanned = sorted({meld_of[j] for u in uids for j in by_uid.get(u, []) if j in meld_of})
            shown = "; ".join(
                f"m{k}=" + " ".join(result.pieces[i].code for i in result.melds[k].pieces)
                for k in scanned
            )
            print(f"{truth.image.stem} {reason:19} {' '.join(cells)}  || {shown}")
    print(f"\n{total - lost} of {total} melds read exactly; lost: {dict(tally)}")
    print("most misread:", ", ".join(f"{t}->{r} x{n}" for (t, r), n in misread.most_common(12)))
    for name, values in sizes.items():
        if values:
            values.sort()
            median = values[len(values) // 2]
            print(f"{name} pieces in melds: {len(values)}, median box {median:.0f} px")
    return 0


if __name__ == "__main__":
    sys.exit(main())
