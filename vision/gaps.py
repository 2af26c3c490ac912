"""Card corners the detector missed, looked for where a meld says they must lie.

A meld is a straight fan: its corner indexes lie one fan step apart. One step beyond each end
of a meld a corner may hide; where two neighbours of a meld lie k steps apart, k - 1 corners
are missing between them. (The grouping links corners up to 1.8 steps apart, so a meld with a
missing corner mostly comes out as two melds, and the corner is found past the end of one.)
Those places are cut like detections and read by the classifier, and what it reads as a card
surely enough (``floor``: presence times face probability) joins the detections. The
classifier's "not a piece" is what turns a guess down: one step past a meld's last card lies
that card's own face (pips, a picture), which it was trained to reject.

Measured (session 6, session 5's models, served settings; synthetic card val scenes, melds read
exactly): `syn_cards` 118 -> 123 of 207, `syn_cards3` 203 -> 221 of 477 at floor 0.5 (0.3:
122 on `syn_cards`; 0.7: 122 and 218); the real card fans 0.912 -> 0.925 (2 cards added, both
right). Looking a little around each place (shifts of 30 % of the box) found more, but more of
them wrong (119 and 115-121 on `syn_cards`); taking a box the detector scored under its floor
near the place instead of the place itself was no better (121, 217); a second round found 3 more
melds on `syn_cards3` and none elsewhere.

A place read as a joker is not taken (session 15): of the 46 gap places read as jokers on the
card val and test scenes (`syn_cards`, `syn_cards3` val, `test_cards`), 10 lay on a true joker
and 36 on no piece or another (other codes: 17 of 39 right). Without them: melds read exactly
125 / 325 / 431 (of 215 / 477 / 626; with them 126 / 326 / 428), F1 0.8104 -> 0.8115, 0.8631 ->
0.8636, 0.8605 -> 0.8614; the real fans framed as phone photos (`bench/framings.py`) 84 -> 74
false cards, one right card fewer (F1 0.9554 -> 0.9571), the fans as taken and turned the same.
(Without any gap filling: 124 / 324 / 429 melds, real fans upright 0.983 -> 0.971.)
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from vision import grouping
from vision.detections import Detections

GAP_STEP = 1.6
"""A link at least this many fan steps long (the meld's median step) hides a corner."""
MAX_MISSING = 3
"""At most this many corners are looked for in one gap."""
COVERED = 0.8
"""A place closer than this many box sizes to a detection is already covered."""
CARD_CORNER = 0
"""The coarse class given to a looked-for box (a card corner; the classifier reads jokers)."""


GAP_LOOKS = 3
"""How many of the classifier's looks (:data:`vision.recogniser.LOOKS`) a looked-for place is
read at: all three, as every detection. Fewer were measured in session 28 for speed (uncached,
melds read exactly, F1; three looks / two / one):

* `dev_cards` 526 / 527 / 528 of 632 (0.9323 / 0.9323 / 0.9320), `dev_cards_12mp` 558 / 558 /
  557 of 638 (0.9443 / 0.9443 / 0.9438);
* val `syn_cards` 164 / 165 / 164 of 215 (0.9095 / 0.9086 / 0.9068), `syn_cards3` 401 / 402 /
  399 of 477 (0.9345 / 0.9351 / 0.9341);
* held out `test_cards` 528 / 529 / 528 of 626 (0.9357 / 0.9359 / 0.9353), `test_cards_12mp`
  557 / 556 / 557 of 645 (0.9439 / 0.9435 / 0.9430);
* the real fans half turned 0.9831 / 0.9775 / 0.9831 (a card lost at two looks), as taken and
  turned a quarter either way the same.

One look read lower card F1 on every set; two lost a real card. What they save (`bench/scan.py`'s
photos, median of 8, interleaved with three looks): fan 25 / 19 ms of about 500, tiled fan 93 /
69 ms of about 1,140, which leaves the tiled fan over 1 s either way: not taken."""


class Reader(Protocol):
    def read(
        self, image: np.ndarray, detections: Detections, presence: bool = False, looks: int = 3
    ) -> Detections: ...


def candidate_boxes(dets: Detections, width: int, height: int) -> np.ndarray:
    """(K, 4) boxes where a card corner is missing from the melds of the read ``dets``."""
    cards = np.flatnonzero(~dets.kind)
    if len(cards) < 2:
        return np.zeros((0, 4), np.float32)
    sub = dets[cards]
    g = grouping.group(sub.centres, sub.sizes, sub.codes(), sub.kind, sub.up, sub.faces)
    centres, sizes = sub.centres, sub.sizes
    found: list[tuple[np.ndarray, np.ndarray]] = []  # (centre, size)
    for meld in g.melds:
        shown = [g.pieces[i][0] for i in meld]
        c, s = centres[shown], sizes[shown]
        steps = np.diff(c, axis=0)
        lengths = np.linalg.norm(steps, axis=1)
        step = float(np.median(lengths))
        if step <= 0:
            continue
        for k, length in enumerate(lengths):
            missing = min(round(float(length) / step) - 1, MAX_MISSING)
            if length < GAP_STEP * step or missing < 1:
                continue
            for j in range(1, missing + 1):
                t = j / (missing + 1)
                found.append((c[k] + t * steps[k], (1 - t) * s[k] + t * s[k + 1]))
        for end, inner, size in ((0, 1, s[0]), (-1, -2, s[-1])):
            out = c[end] - c[inner]
            found.append((c[end] + out / (np.linalg.norm(out) + 1e-9) * step, size))
    if not found:
        return np.zeros((0, 4), np.float32)
    side = np.sqrt(np.maximum(dets.sizes.prod(axis=1), 1e-9))
    keep: list[tuple[np.ndarray, np.ndarray]] = []
    every = dets.centres
    for centre, size in found:
        own = float(np.sqrt(max(size[0] * size[1], 1e-9)))
        if not (0 <= centre[0] < width and 0 <= centre[1] < height):
            continue
        near = np.linalg.norm(every - centre, axis=1) < COVERED * np.sqrt(side * own)
        if near.any():
            continue
        if keep and bool(
            (np.linalg.norm(np.array([k[0] for k in keep]) - centre, axis=1) < COVERED * own).any()
        ):
            continue  # the same place, found from both sides of a gap
        keep.append((centre, size))
    return np.array(
        [[x - w / 2, y - h / 2, x + w / 2, y + h / 2] for (x, y), (w, h) in keep], np.float32
    )


def fill_gaps(
    image: np.ndarray,
    dets: Detections,
    reader: Reader,
    floor: float,
) -> Detections:
    """``dets`` and the missing card corners found in their melds: the looked-for boxes that
    the classifier reads as a card with presence times face probability of at least ``floor``
    (their confidence is that presence: no detector scored them)."""
    h, w = image.shape[:2]
    boxes = candidate_boxes(dets, w, h)
    if not len(boxes):
        return dets
    looked = Detections.from_boxes(boxes, np.ones(len(boxes)), np.full(len(boxes), CARD_CORNER))
    read = reader.read(image, looked, presence=True, looks=GAP_LOOKS)
    # never a joker: one reads where a card's face shows more often than a joker lies there
    read = read[(read.read_confidence >= floor) & (np.array(read.codes()) != grouping.JOKER_CODE)]
    if not len(read):
        return dets
    return Detections(
        np.concatenate([dets.xyxy, read.xyxy]),
        np.concatenate([dets.confidence, read.confidence]),
        np.concatenate([dets.coarse, read.coarse]),
        np.concatenate([dets.faces, read.faces]),
        np.concatenate([dets.up, read.up]),
    )
