"""Where the card melds that hold a joker are lost, set by set.

A fifth of the development card melds hold a card joker and they read exactly far less often
than the rest (session 48, ``docs/measurements.md``, "Jokers"). This prints, per set and over
all the sets given, from the readings of a ``meldcam eval --cache`` folder (a second run costs
seconds)::

    python bench/jokers.py data/dev_cards data/dev_cards_12mp data/dev_decks \\
        data/syn_cards:val data/syn_cards3:val --cache data/cache

* melds read exactly, those holding a card joker apart from the rest;
* melds read exactly, those valid as laid (the cards' default rules judge the truth's codes in
  their order) apart from those laid flawed on purpose, whose misread pieces the rules cannot
  mend (the generator lays a quarter of its melds so, and a wild where no card is missing in
  a fifth: ``datasets/melds.py``);
* each card joker of a lost meld, by what the scan holds where it lies (a piece read as a joker
  whose box centres within one label size of the joker's label): none, one in a scanned meld,
  or one left out of every meld; and how many of each lie in a meld laid flawed.

A set is a folder, or ``folder:split`` (default ``all``: both splits). Cards only.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from scorer import PieceKind, Rules, validate_meld
from vision.evaluate import ReadingCache, iter_truths, melds_read
from vision.grouping import JOKER_CODE
from vision.result import ScanResult
from vision.scanner import Scanner
from vision.truth import Truth

ROOT = Path(__file__).resolve().parents[1]
JOKER_WHERE = ("no joker read there", "read, in a scanned meld", "read, in no meld")
"""What the scan holds where a lost meld's card joker lies."""


def joker_where(truth: Truth, result: ScanResult, uid: int) -> str:
    """What the scan holds where the true piece ``uid`` (a card joker) lies: one of
    :data:`JOKER_WHERE`."""
    box = next(b.box for b in truth.boxes if b.uid == uid)
    side = math.sqrt(max((box[2] - box[0]) * (box[3] - box[1]), 1e-9))
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    in_meld = {i for m in result.melds for i in m.pieces}
    near = [
        j
        for j, p in enumerate(result.pieces)
        if p.code == JOKER_CODE
        and p.kind == "card"
        and math.hypot((p.box[0] + p.box[2]) / 2 - cx, (p.box[1] + p.box[3]) / 2 - cy) < side
    ]
    if not near:
        return JOKER_WHERE[0]
    return JOKER_WHERE[1] if any(j in in_meld for j in near) else JOKER_WHERE[2]


def tally(truths: Iterable[Truth], read: Callable[[Truth], ScanResult]) -> Counter[str]:
    """The counts this script prints, over ``truths`` (each scanned by ``read(truth)``)."""
    rules = Rules.default(PieceKind.CARDS)
    out: Counter[str] = Counter()
    for truth in truths:
        if not truth.melds:
            continue
        result = read(truth)
        found = melds_read(result)
        labelled = {b.uid for b in truth.boxes}
        for codes, uids in zip(truth.melds, truth.meld_uids, strict=True):
            right = codes in found
            joker = JOKER_CODE in codes
            valid = validate_meld(list(codes), rules, ordered=True).valid
            for key in ("joker" if joker else "no joker", "valid" if valid else "flawed"):
                out[key] += 1
                out[f"{key} read"] += right
            if right:
                continue
            for code, uid in zip(codes, uids, strict=True):
                if code == JOKER_CODE and uid in labelled:
                    where = joker_where(truth, result, uid)
                    out[where] += 1
                    out[f"{where}, flawed"] += not valid
    return out


def report(name: str, c: Counter[str]) -> str:
    def share(key: str) -> str:
        n = c[key]
        return f"{c[key + ' read']} of {n}" + (f" ({c[key + ' read'] / n:.3f})" if n else "")

    jokers = ", ".join(f"{w} {c[w]} ({c[w + ', flawed']} flawed)" for w in JOKER_WHERE)
    return (
        f"{name}: melds read exactly, holding a card joker {share('joker')}, none "
        f"{share('no joker')}; valid as laid {share('valid')}, flawed {share('flawed')}\n"
        f"    the jokers of lost melds: {jokers}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("sets", nargs="+", help="a labelled card set: FOLDER or FOLDER:SPLIT")
    p.add_argument("--cache", type=Path, default=ROOT / "runs" / "readings")
    p.add_argument("--models", type=Path, default=ROOT / "models")
    args = p.parse_args(argv)

    scanner = Scanner.load(args.models)
    cache = ReadingCache(args.cache, scanner)

    def read(truth: Truth) -> ScanResult:
        return cache.read(truth.image, truth.image, "cards").assemble(path=str(truth.image))

    total: Counter[str] = Counter()
    for spec in args.sets:
        folder, _, split = spec.partition(":")
        counts = tally(iter_truths(Path(folder), split or "all"), read)
        total.update(counts)
        print(report(spec, counts))
    if len(args.sets) > 1:
        print(report("all", total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
