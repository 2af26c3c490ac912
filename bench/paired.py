"""Two scanners on the same labelled sets, meld by meld: which true melds each reads exactly that
the other does not, and how likely so lopsided a split would be if neither read better.

A new model is kept when it reads more melds than the served one, but totals hide how many
melds changed hands: 2,296 against 2,270 may be 26 gained and none lost, or 90 gained and 64
lost. Each set's line gives the melds both read, each alone, and the two-sided sign test on the
melds one of them alone reads (McNemar's exact test): under 0.05, a split that lopsided comes
by chance less than one time in twenty. Session 52 found the 7-bit copies of one net moving by
10 of the development sets' 2,779 melds with the calibration draw alone (`models/classifier.md`),
so compare folders whose classifiers were quantized alike, or both in fp32 (``--classifier``).
Readings are kept in (and taken from) a ``meldcam eval --cache`` folder::

    python bench/paired.py models /tmp/candidate --set data/dev_cards --set data/dev_decks \\
        --set data/syn_cards:val --classifier fp32 --cache data/cache

``--by-deck`` adds a line for each card deck the scenes were dealt from (over all the sets,
those with most melds changing hands last): a training round that draws some decks more often
(session 63, ``datasets.card_art.round_decks``) is judged on those decks as well as overall.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from vision.truth import Truth

ROOT = Path(__file__).resolve().parents[1]


class Tally(NamedTuple):
    """True melds read exactly by both scanners, by the first alone, by the second alone, by
    neither."""

    both: int = 0
    first: int = 0
    second: int = 0
    neither: int = 0

    @property
    def melds(self) -> int:
        return self.both + self.first + self.second + self.neither

    def add(self, other: Tally) -> Tally:
        return Tally(*(a + b for a, b in zip(self, other, strict=True)))


def tally(pairs: Iterable[tuple[bool, bool]]) -> Tally:
    """Count ``(read by the first, read by the second)`` for each true meld."""
    counts = [0, 0, 0, 0]
    for first, second in pairs:
        counts[0 if first and second else 1 if first else 2 if second else 3] += 1
    return Tally(*counts)


def sign_test(first: int, second: int) -> float:
    """Two-sided exact sign test: the chance, were each meld read by one scanner alone as likely
    the first's as the second's, of a split at least as lopsided as ``first`` to ``second``."""
    n = first + second
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(first, second) + 1)) / 2**n
    return min(1.0, 2.0 * float(tail))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("first", type=Path, help="a models folder (the served one, say)")
    p.add_argument("second", type=Path, help="another models folder (a candidate)")
    p.add_argument(
        "--set", action="append", dest="sets", required=True, metavar="SRC[:SPLIT]",
        help="a labelled set (split 'all' unless named); each photo is read as the kind "
        "its labels are",
    )  # fmt: skip
    p.add_argument("--cache", type=Path, default=ROOT / "runs" / "readings")
    p.add_argument(
        "--classifier", default=None,
        help="the classifier copy both folders serve (fp32, int8, int8w7); default as the CPU "
        "chooses",
    )  # fmt: skip
    p.add_argument(
        "--by-deck", action="store_true",
        help="also a line per card deck the scenes were dealt from, over all the sets",
    )  # fmt: skip
    args = p.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from vision.scanner import CLASSIFIER_ENV, Scanner

    if args.classifier is not None:
        os.environ[CLASSIFIER_ENV] = args.classifier
    from vision.evaluate import ReadingCache, iter_truths, melds_read

    readers = [ReadingCache(args.cache, Scanner.load(f)) for f in (args.first, args.second)]
    total = Tally()
    decks: dict[str, Tally] = {}
    print(f"{'set':<24} melds  first second   both  first alone  second alone  sign test")
    for spec in args.sets:
        src, _, split = spec.partition(":")
        pairs: list[tuple[bool, bool]] = []
        for truth in iter_truths(Path(src), split or "all"):
            if not truth.melds:
                continue
            kind = truth_kind(truth)
            found = [
                melds_read(r.read(truth.image, truth.image, kind).assemble(path=str(truth.image)))
                for r in readers
            ]
            read = [(codes in found[0], codes in found[1]) for codes in truth.melds]
            pairs += read
            if truth.deck:
                decks[truth.deck] = decks.get(truth.deck, Tally()).add(tally(read))
        t = tally(pairs)
        total = total.add(t)
        print(_row(spec, t), flush=True)
    if len(args.sets) > 1:
        print(_row("all", total))
    if args.by_deck:
        print(f"\n{'deck':<24} melds  first second   both  first alone  second alone  sign test")
        for deck, t in sorted(decks.items(), key=lambda kv: (kv[1].first + kv[1].second, kv[0])):
            print(_row(deck, t))
    return 0


def truth_kind(truth: Truth) -> str:
    """The kind a photo is read as: what most of its labelled boxes are (cards on a tie)."""
    tiles = sum(box.is_tile for box in truth.boxes)
    return "tiles" if 2 * tiles > len(truth.boxes) else "cards"


def _row(name: str, t: Tally) -> str:
    return (
        f"{name:<24} {t.melds:5d} {t.both + t.first:6d} {t.both + t.second:6d} {t.both:6d} "
        f"{t.first:12d} {t.second:13d} {sign_test(t.first, t.second):10.3f}"
    )


if __name__ == "__main__":
    sys.exit(main())
