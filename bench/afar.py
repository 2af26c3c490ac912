"""Right cards on the real card fans seen from afar, by how large the scanner may enlarge a photo
of small pieces for its second detector reading (``max_imgsz``).

No real photo here shows a whole table, so each bidly fan is tiled n x n into a 4000x3000
phone JPEG (:func:`datasets.realdata.table_from_afar`; its cards n times smaller), turned four
ways. Such a photo is decoded at 2000x1500, and a photo of small pieces is read a second time
enlarged, up to ``max_imgsz`` (up to ``afar_imgsz`` where its pieces are under
:data:`vision.afar.AFAR` of its long side). Prints, per setting and
tiling, right, false and missed cards (multiset match per photo, as ``meldcam eval`` counts
them), F1 and milliseconds per photo.

    .venv/bin/python bench/afar.py [--settings 1280,1920] [--tiles 2,3,4] [--afar-imgsz 0]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from datasets.realdata import fan_cards, table_from_afar
from vision.scanner import Scanner

ROOT = Path(__file__).resolve().parents[1]
FANS = ROOT.parent / "shared" / "realdata" / "card-fans"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--settings", default="1280,1920")
    p.add_argument("--tiles", default="2,3,4")
    p.add_argument("--turns", type=int, default=4, help="how many of the four ways up")
    p.add_argument(
        "--afar-imgsz", type=int, default=None, help="the scanner's afar_imgsz (default: served)"
    )
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args()
    fans = fan_cards(FANS)
    if not fans:
        raise SystemExit(f"no card fans under {FANS}")
    for n in (int(t) for t in args.tiles.split(",")):
        photos = []
        for image, cards in fans:
            truth = Counter({code: k * n * n for code, k in cards.items()})
            turned = (table_from_afar(image, n, (4000, 3000), t) for t in range(args.turns))
            photos += [(jpeg, truth) for jpeg in turned]
        for setting in (int(s) for s in args.settings.split(",")):
            # n x n copies of each card: more than two decks hold, so copies are not counted
            more = {} if args.afar_imgsz is None else {"afar_imgsz": args.afar_imgsz}
            scanner = Scanner.load(args.models, count_copies=False, max_imgsz=setting, **more)
            right = false = missed = 0
            start = time.perf_counter()
            for jpeg, truth in photos:
                read = Counter(p.code for p in scanner.scan(jpeg, kind="cards").pieces)
                hit = sum((read & truth).values())
                right += hit
                false += sum(read.values()) - hit
                missed += sum(truth.values()) - hit
            ms = (time.perf_counter() - start) * 1000 / len(photos)
            f1 = 2 * right / max(2 * right + false + missed, 1)
            print(
                f"tiled {n}x{n}, max_imgsz {setting}, afar_imgsz {scanner.config.afar_imgsz}: "
                f"right {right}, false {false}, "
                f"missed {missed}, F1 {f1:.3f}, {ms:.0f} ms per photo",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
