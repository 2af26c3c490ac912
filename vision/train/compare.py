"""Classifier checkpoints compared crop by crop on the true boxes of labelled sets.

``python -m vision.train.compare CHECKPOINT... [--set dev_decks --set dev_cards]`` reads every
labelled box of each set (both splits; cut once into the crop folder, as training cuts its
sets) with the served net (``models/classifier.pt``) and with each checkpoint, one view at the
served margin, and prints per set: the share read right, how many crops the checkpoint gets
right that the served net got wrong and the reverse, the two-sided sign test on those two counts
(McNemar's exact test), what the lost and the gained crops were read as, and how many of the
card jokers' corners each net reads right (since session 49) and, since session 57, the share
each reads right by the size of the crops' true boxes (:data:`SIZE_BINS`) and, since session 59,
on the drawn decks apart from the others (:data:`DECK_FAMILIES`); then the same for
the "not a piece" crops mined from `syn_cards` val (:data:`NEGATIVES`), where right is "not a
piece".

Why: whether a fine-tuned net is kept is decided on the whole scanner (melds read exactly), but
a set of 500-700 melds moves by 5-9 melds from a small change of weights; the scanner's rules
repair mend many misreads. Paired on 6,000 crops the same change is seen plainly. Session 47:
the runs of sessions 46 and 47 that taught the three pip decks read `dev_decks` (the decks no
model trains on) 2-9 melds worse, which session 46 had taken for that set's noise; crop by crop
four of them read 46-82 fewer of its 5,851 corners (p < 0.001 each), 33-38 of the lost ones
clubs read as spades against 7-12 gained that way, and the held-out decks' jokers called "not a
piece" (`models/classifier.md`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from vision.classes import CARD_JOKER as CARD_JOKER_FACE
from vision.classes import PIECES, face_name
from vision.detections import NUM_FACES
from vision.recogniser import CARD_MASK, DROP, NOT_A_PIECE, piece_probabilities

if TYPE_CHECKING:
    from torch.nn import Module

SETS = ("dev_decks", "dev_cards")
"""The development card sets compared by default: the decks no model trains on, and the tables
dealt from the decks models train on; no model trains on either set."""
CARD_JOKER = face_name(CARD_JOKER_FACE)
"""A card joker's class name (:data:`vision.classes.PIECES`): ``JK-card``."""
NEGATIVES = ("syn_cards", "val")
"""The "not a piece" crops compared as well (mined by ``make train`` with the served detector):
a net can read more true corners right and keep more false pieces, which true boxes alone
never show (session 47: a checkpoint 25 corners up on `dev_decks` read 16 of its melds fewer,
its "not a piece" on these crops 0.846 -> 0.735)."""


def sign_test(gained: int, lost: int) -> float:
    """Two-sided exact sign test: the chance of a split of ``gained + lost`` discordant crops at
    least this uneven if either net were as likely to be the right one."""
    n = gained + lost
    if n == 0:
        return 1.0
    k = min(gained, lost)
    tail = sum(math.comb(n, i) for i in range(k + 1))  # exact integers: n may be thousands
    return min(1.0, 2 * tail / (1 << n))


def read_as(faces: np.ndarray, none: np.ndarray, drop: float) -> list[str]:
    """What each crop was read as: its likeliest face's class name, or ``NAP`` where "not a
    piece" is over ``drop``."""
    return [
        "NAP" if n > drop else PIECES.class_name(int(f))
        for f, n in zip(faces.argmax(1), none, strict=True)
    ]


def suit_of(name: str) -> str:
    """A card face's suit letter (``10C``: C), a tile's colour letter (``R12``: R), ``JK`` for
    a joker of either kind, ``NAP`` as is."""
    if name == "NAP" or name.startswith("JK"):
        return name.split("-")[0]
    return name[-1] if name[-1] in "CDHS" else name[0]


@dataclass(frozen=True, slots=True)
class Paired:
    """One candidate against the served net on one set's crops."""

    crops: int
    served_right: int
    right: int
    gained: list[tuple[str, str]]
    """(truth, what the served net read) of the crops only the candidate reads right."""
    lost: list[tuple[str, str]]
    """(truth, what the candidate reads) of the crops only the served net read right."""
    jokers: tuple[int, int, int] = (0, 0, 0)
    """The card jokers' corners among the crops: (how many, read right by the served net, by
    the candidate). Session 48: the served net, trained before session 44 labelled a joker by
    the top of its mark, reads 227 of `dev_cards`' 282 and every fine-tune since far more."""

    @property
    def p_value(self) -> float:
        return sign_test(len(self.gained), len(self.lost))

    def describe(self, top: int = 8) -> str:
        lines = [
            f"right {self.served_right / self.crops:.4f} -> {self.right / self.crops:.4f} of "
            f"{self.crops} crops: +{len(self.gained)} -{len(self.lost)} (sign test p "
            f"{self.p_value:.2g})"
        ]
        if self.jokers[0]:
            n, before, after = self.jokers
            lines.append(f"  card jokers right {before} -> {after} of {n}")
        for label, pairs in (("lost", self.lost), ("gained", self.gained)):
            faces = Counter(pairs).most_common(top)
            suits = Counter((suit_of(t), suit_of(r)) for t, r in pairs).most_common(top)
            lines.append(f"  {label}: " + ", ".join(f"{t} as {r} {n}" for (t, r), n in faces))
            lines.append("    by suit: " + ", ".join(f"{t} as {r} {n}" for (t, r), n in suits))
        return "\n".join(lines)


def pair(truth: Sequence[str], served: Sequence[str], candidate: Sequence[str]) -> Paired:
    """The crops ``truth`` (class names) as the served net and a candidate read them."""
    if not len(truth) == len(served) == len(candidate):
        raise ValueError(
            f"{len(truth)} truths, {len(served)} served readings, {len(candidate)} candidate ones"
        )
    gained, lost = [], []
    for t, s, c in zip(truth, served, candidate, strict=True):
        if c == t and s != t:
            gained.append((t, s))
        elif s == t and c != t:
            lost.append((t, c))
    jokers = [i for i, t in enumerate(truth) if t == CARD_JOKER]
    return Paired(
        len(truth),
        sum(s == t for t, s in zip(truth, served, strict=True)),
        sum(c == t for t, c in zip(truth, candidate, strict=True)),
        gained,
        lost,
        (
            len(jokers),
            sum(served[i] == CARD_JOKER for i in jokers),
            sum(candidate[i] == CARD_JOKER for i in jokers),
        ),
    )


def readings(net: Module, x: np.ndarray, is_tile: np.ndarray) -> list[str]:
    """What ``net`` reads each crop of ``x`` as (one view), within each crop's kind."""
    from vision.train import classifier as C

    out = C.net_outputs(net, x)
    faces, none = piece_probabilities(out[:, :NUM_FACES], out[:, NOT_A_PIECE], is_tile)
    return read_as(faces, none, DROP)


def tiles_of(y: np.ndarray) -> np.ndarray:
    """Which of the faces ``y`` are tiles."""
    return np.asarray(~CARD_MASK[np.minimum(y, NUM_FACES - 1)])


def as_served(data: Mapping[str, np.ndarray], tile: np.ndarray) -> np.ndarray:
    """A crop set's stored crops cut as the scanner cuts them: card corners at the served card
    margin, tiles (``tile``) at the tile margin (``scanner.json``)."""
    from vision.scanner import CONFIG_FILE, ScannerConfig
    from vision.train import classifier as C
    from vision.train import pipeline as P

    config = ScannerConfig.read(P.MODELS / CONFIG_FILE)
    cards = np.asarray(C.val_crops(data, config.crop_margin)["x"])
    if not tile.any():
        return cards
    tiles = C.val_crops(data, config.tile_crop_margin)["x"]
    return np.where(tile[:, None, None, None], tiles, cards)


def true_crops(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Every labelled box of ``data/<name>`` (train and val splits) cut as the scanner cuts it
    (:func:`as_served`): (crops, face ids)."""
    from vision.train import pipeline as P

    xs, ys = [], []
    for split in ("train", "val"):
        if not (P.DATA / name / "images" / split).is_dir():
            continue
        data = np.load(P.crop_set(name, split))
        y = np.asarray(data["y"])
        xs.append(as_served(data, tiles_of(y)))
        ys.append(y)
    if not xs:
        raise FileNotFoundError(f"no labelled photos in {P.DATA / name}")
    return np.concatenate(xs), np.concatenate(ys)


SIZE_BINS = (12.0, 16.0, 20.0, 26.0, 35.0)
"""Upper bounds (px) of the true boxes' sides by which the crops are also compared, as
`bench/corner_sizes.py` bins the scanner's corners. Session 57: a net fine-tuned on the card
corners under 20 px alone read `dev_cards`' under 12 px 0.623 -> 0.642 and 12-16 px 0.798 ->
0.819, but `dev_decks`' 0.763 -> 0.727 and 0.792 -> 0.774: the set's overall share hides where
a net gains and where it loses."""


def _labelled(name: str) -> Iterator[tuple[Path, np.ndarray]]:
    """Each photo of ``data/<name>`` that holds labels, with its label rows, in
    :func:`true_crops`' order: train split, then val, photo by photo."""
    from vision.train import pipeline as P
    from vision.train.data import labelled_photos, read_labels

    for split in ("train", "val"):
        for image, label in labelled_photos(P.DATA / name, split):
            rows = read_labels(label)
            if len(rows):  # no crop is cut from a photo without labels
                yield image, rows


def true_sides(name: str) -> np.ndarray:
    """The side of each labelled box of ``data/<name>`` (the square root of its area in the
    photo's pixels), in :func:`true_crops`' order."""
    from PIL import Image

    sides = []
    for image, rows in _labelled(name):
        with Image.open(image) as photo:  # the header alone: its size
            w, h = photo.size
        sides.append(np.sqrt(rows[:, 3] * w * rows[:, 4] * h))
    return np.concatenate(sides) if sides else np.zeros(0)


def true_decks(name: str) -> list[str]:
    """The deck each labelled box of ``data/<name>`` was dealt from (its photo's truth
    ``style.deck``: ``drawn/3``, ``gnome/bellot``...; empty where a photo has no truth, as the
    real ones, or no deck, as a tile table), in :func:`true_crops`' order."""
    decks: list[str] = []
    for image, rows in _labelled(name):
        truth = image.parents[2] / "truth" / f"{image.stem}.json"
        style = json.loads(truth.read_text()).get("style", {}) if truth.exists() else {}
        decks += [str(style.get("deck", ""))] * len(rows)
    return decks


DECK_FAMILIES = ("drawn decks", "other decks")
"""How :func:`by_deck` groups the crops: the decks :mod:`datasets.drawn_cards` draws, the rest.
Session 59: short fine-tunes taught drawn decks whose suits are printed in other faces read the
measured sets' drawn decks (their suits in DejaVu Sans) worse and the other decks alike."""


def by_deck(
    truth: Sequence[str], served: Sequence[str], candidate: Sequence[str], decks: Sequence[str]
) -> str:
    """The share of crops each net reads right, drawn decks apart from the rest
    (:data:`DECK_FAMILIES`); crops of no known deck left out."""
    if len(decks) != len(truth):
        raise ValueError(f"{len(truth)} truths, {len(decks)} decks")
    keep = [i for i, d in enumerate(decks) if d]
    family = np.array([0 if decks[i].startswith("drawn/") else 1 for i in keep], np.int64)
    return _by_group(
        "deck",
        [truth[i] for i in keep],
        [served[i] for i in keep],
        [candidate[i] for i in keep],
        family,
        DECK_FAMILIES,
    )


def bin_names(bins: Sequence[float]) -> list[str]:
    """The names of the size bins that the bounds ``bins`` make: ``under 12``, ``12-16``, ...,
    ``35 and over`` (shared with `bench/corner_sizes.py`)."""
    names = [f"under {bins[0]:g}"]
    names += [f"{a:g}-{b:g}" for a, b in itertools.pairwise(bins)]
    return [*names, f"{bins[-1]:g} and over"]


def size_bin(sides: ArrayLike, bins: Sequence[float] = SIZE_BINS) -> np.ndarray:
    """The bin of each side (px) among the bounds ``bins``: the index of the first bound it is
    under, ``len(bins)`` where it is under none (a side equal to a bound falls in the bin above
    it). Shared with `bench/corner_sizes.py`."""
    return np.searchsorted(np.asarray(bins, np.float64), sides, side="right")


def by_size(
    truth: Sequence[str],
    served: Sequence[str],
    candidate: Sequence[str],
    sides: np.ndarray,
    bins: Sequence[float] = SIZE_BINS,
) -> str:
    """The share of crops each net reads right, by the side of the crop's true box (``sides``,
    px; a side equal to a bound falls in the bin above it): one line, empty bins left out."""
    if len(sides) != len(truth):
        raise ValueError(f"{len(truth)} truths, {len(sides)} sides")
    where = size_bin(np.asarray(sides), bins)
    return _by_group("true box side (px)", truth, served, candidate, where, bin_names(bins))


def _by_group(
    title: str,
    truth: Sequence[str],
    served: Sequence[str],
    candidate: Sequence[str],
    group: np.ndarray,
    names: Sequence[str],
) -> str:
    """One line: the share each net reads right in each group (``group``: each crop's index
    into ``names``), empty groups left out."""
    if not len(truth) == len(served) == len(candidate) == len(group):
        raise ValueError(
            f"{len(truth)} truths, {len(served)} served readings, {len(candidate)} candidate "
            f"ones, {len(group)} groups"
        )
    t = np.asarray(truth)
    before, after = np.asarray(served) == t, np.asarray(candidate) == t
    parts = []
    for k, label in enumerate(names):
        m = group == k
        if m.any():
            parts.append(f"{label} {before[m].mean():.3f} -> {after[m].mean():.3f} ({m.sum()})")
    return f"  by {title}: " + ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoints", nargs="+", type=Path, help="classifier .pt files")
    p.add_argument("--set", action="append", dest="sets", help=f"data/ sets (default {SETS})")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    import torch

    from vision.train import pipeline as P
    from vision.train.classifier import load_net

    torch.set_num_threads(args.threads)
    sets: dict[str, tuple[np.ndarray, list[str], np.ndarray]] = {}  # crops, truth, tile or not
    sides: dict[str, np.ndarray] = {}
    decks: dict[str, list[str]] = {}
    for name in args.sets or SETS:
        try:
            x, y = true_crops(name)
        except FileNotFoundError as e:  # the development sets are made by `make train`
            print(f"{e}: make the set first (`make train`)", file=sys.stderr)
            return 2
        sets[name] = (x, [PIECES.class_name(int(f)) for f in y], tiles_of(y))
        sides[name] = true_sides(name)
        decks[name] = true_decks(name)
    negatives = P.negatives_file(*NEGATIVES)
    if negatives.exists():  # what the detector finds on a card set's photos where no piece lies
        data = np.load(negatives)
        card = np.zeros(len(data["y"]), bool)
        sets[negatives.stem] = (as_served(data, card), ["NAP"] * len(card), card)
    served = load_net(P.MODELS / "classifier.pt")
    nets = {checkpoint: load_net(checkpoint) for checkpoint in args.checkpoints}
    for name, (x, truth, tile) in sets.items():
        before = readings(served, x, tile)
        for checkpoint, net in nets.items():
            after = readings(net, x, tile)
            result = pair(truth, before, after)
            print(f"{name} {checkpoint}: {result.describe()}", flush=True)
            if name in sides:  # (the mined "not a piece" crops have no true box)
                print(by_size(truth, before, after, sides[name]), flush=True)
            if any(decks.get(name, ())):  # (generated photos name their deck)
                print(by_deck(truth, before, after, decks[name]), flush=True)
    if not negatives.exists():
        print(f"no {negatives.name}: false pieces not compared (`make train` mines it)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
