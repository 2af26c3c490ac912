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
Measured again in session 43 with today's models: of the 25 melds that `dev_cards`' photos
with no warning still lose, 6 lack a joker the detector missed (in the three looked at, a joker
on top of its meld, its corner mark legible). Gap places read as a joker at least 0.8 surely
(presence times face probability) taken, 21 of 170 such places on `dev_cards`, found one more
true joker and 16 more false ones (joker precision / recall 0.821 / 0.860 -> 0.755 /
0.866), and melds read exactly fell 524 -> 514 of 643 (`dev_decks` 397 -> 393 of 533); at 0.5,
97 taken, 478 and 373 (`runs/gapjk.py`, gitignored). Still not taken.

**Jokers with no mark in their corners** (session 35, :func:`flanked_jokers`). Some decks
print nothing in a joker's corners (Adrian Kennard's, held out from training: a jester in the
middle only), so neither the detector nor the classifier, which read corners, ever finds one,
and a meld breaks where its joker lies: 5H 6H [joker] 8H 9H reads as 5H 6H and 8H 9H, two
steps apart. A place one fan step from a card corner on each side, in line (a chain's link two
steps long, or a chain's end with a corner two steps on whose own line runs on the same way at
the same step: :func:`flanked_places`), where the classifier then finds no index at all ("not
a piece"), holds a card that shows no index; in a meld every card shows one but such a joker.
It joins the detections as a joker at confidence :data:`UNMARKED_JOKER_CONFIDENCE`, is
reported uncertain, and one the grouping leaves in no meld is dropped. A place the classifier
reads as a card is gap filling's (above); jokers and the cards of hands (a hand's cards need
not show their index) make no line. Measured on the whole scanner (`models/metrics.json`;
without: the same readings with these jokers taken out, `runs/without.py`, gitignored), melds
read exactly and joker precision / recall: `dev_decks` (a development set made for this: the
held-out decks, seed 2121) 377 -> 388 of 533, 0.330 / 0.208 -> 0.429 / 0.322; held out
`test_decks` 406 -> 421 of 561 (0.312 / 0.203 -> 0.432 / 0.345), `test_decks_12mp` 446 -> 462 of
582. On decks whose jokers are marked, a few corners lost otherwise are taken for such jokers:
`dev_cards` 522 -> 525 of 643 (0.796 / 0.842 -> 0.799 / 0.860), `test_cards` 533 -> 534 (0.815 /
0.870 -> 0.803 / 0.876), `dev_cards_12mp` and `test_cards_12mp` the same melds (joker precision
0.847 -> 0.843, 0.839 -> 0.835), the val sets the same melds and jokers. A joker at a meld's
end was left unread: 44 of the 94 Kennard jokers in `dev_decks`' melds (20 under the meld's
other cards, 24 on top of them). The real fans read the same as taken and turned
every way; a weak joker that the judging leaves in no meld (its row set aside as a hand) is
dropped for that (:func:`vision.scanner.assemble`): one had been added on a hand's straight run
of the fans turned three quarters.

**... and at a meld's open end** (session 37, :func:`open_end_jokers`). A meld's cards lie each
on the one before, so one end's card lies under the others with its index by the table (the
open end: the way out points away from that card's face, which its read up angle tells), and
the other end's card lies on top with its own face beyond its index. A joker that shows no
index, laid at the open end, shows a strip of paper one fan step beyond it, the table beyond
that; nothing else there does unless something white lies beside the meld. So a place one step
beyond an open end is taken for a joker when the end card's paper fills it
(:data:`BLANK_SHARE`, :data:`BLANK_TONE`), two steps out the table shows (:data:`TABLE_SHARE`,
:data:`TABLE_APART`), paper runs from the corner's box on to the place without the table
between (:data:`STRIP_RUN`: a checked cloth's white square lies past a band of table) and the
classifier finds no index there. A photo whose jokers are read from their corners is not
looked at: both decks of a game are alike (:data:`MARKED_JOKER_SURE`). Chosen on cached
readings with the step applied (`runs/post.py`, `runs/sweep_open.py`, gitignored), melds read
exactly and points right: `dev_decks` 388 -> 397 of 533 and 76 -> 81 of 142 photos (joker
precision / recall 0.429 / 0.322 -> 0.480 / 0.403), `dev_cards` 525 -> 526 (110 -> 110),
`dev_cards_12mp` 570 -> 569 (113 -> 112); without the marked-joker test `dev_cards` 524 and
`dev_cards_12mp` 567; ``STRIP_RUN`` 0.5-0.8 and ``BLANK_SHARE`` 0.5-0.7 read within a meld of
these. Held out (`models/metrics.json`, read anew): `test_decks` 421 -> 426 of 561 (joker
precision / recall 0.432 / 0.345 -> 0.464 / 0.392), `test_decks_12mp` 462 -> 470 of 582 and
points right 79 -> 82 of 142, `test_cards` 534 and `test_cards_12mp` 573 of 658 unchanged (joker
precision 0.835 -> 0.831 on the latter), the real fans read the same as taken and turned. The
held-out sets had been read once before ``STRIP_RUN`` was added (chosen on the development
sets' false jokers, on checked cloths): 431 and 472 then, so the run test costs them 5 and 2
melds. The other 24 Kennard end jokers lie on
top of their meld: one step beyond that end lies the joker's blank corner where, without it,
the last card's own face would lie, and telling the two apart needs the joker's edge; they
stay unread.

**A joker read between two corners** (session 49, :func:`flanked_jokers`). Gap filling takes
no joker (above): past a meld's end a card's own face reads as one. A place flanked in line on
both sides (:func:`flanked_places`) holds a card, and the classifier reads it there, as it reads
every such place for the blank jokers; where it reads a joker, and a joker between the two
flanking corners could make a meld with them (:func:`could_hold_joker`), the joker is taken as
read. Of the 228 card jokers in the development card melds lost (`bench/jokers.py`), 167 had no
joker read near their label (154 with this step). Chosen on the development
card sets (melds read exactly, served -> this): `dev_cards` 558 -> 563 of 705, `dev_cards_12mp`
624 -> 627 of 713, `dev_decks` 422 -> 423 of 555, `syn_cards` val 178 -> 181 of 260, `syn_cards3`
val 444 -> 444 of 546 (2,226 -> 2,238 of 2,779); joker recall 0.814 -> 0.841 on `dev_cards`,
precision 0.893 -> 0.892; the real fans as taken and turned read the same. Any joker read
there, or one read at least 0.3 surely, read the same; 0.6, one meld fewer. Without the meld
test the same melds, but the real fans framed as phone photos (`bench/framings.py`) read two
false jokers more, each between a court card and a card no joker could join (KD _ 2H, JD _
7D): with it, they read as served (2,438 right, 47 false of 2,492). Held out (`models/metrics.json`,
read anew): `test_cards` 567 -> 569 of 696, `test_cards_12mp` 609 -> 611 of 707, `test_decks`
451 -> 452 of 600, `test_decks_12mp` 498 -> 499 of 620 (500 without the meld test), joker
recall up on each (0.833 -> 0.842 on `test_cards`) and precision not down; no tile set moved
(cards only). Every meld gained holds a joker (`bench/jokers.py`: the development joker melds
389 -> 401 of 577, the others 1,837 as before). The two corners judged were guessed until
session 50 (the ranked corner nearest the place, and the nearest on its other side), which
another meld's corner lying nearer could stand in for; they are now the two that flank the
place in its line (:func:`flanked`). Read afresh, the five development card sets read the same
(2,238 melds, 401 of the joker melds), and the framed fans too (2,438 right, 47 false).

**Places the flanking step never looked at** (sessions 54 and 55, :func:`flanked`). Of
`dev_decks`' 75 melds lost to a piece missed alone, 49 lacked only a joker: 54 of Kennard's
blank-cornered jokers, 25 inside their meld. Traced photo by photo, four causes: a line of two
links measured its step by their mean, which the gap makes 1.5 steps, so the gap read as one
(000126); the card beyond a gap was looked for along the line's last link, whose few degrees of
turn put the look a third of a step off two steps on (000030, 000114); the top card of a fan,
seen by both corners, is shown by its far corner, so its corner in line made no line (000019);
and where indexes outsize the fan step a neighbour's box lay within 0.8 box sizes of the place,
which counted as covered (000126). The looser look mends all four (:func:`fan_step`, the shorter
of two links, a gap there at least ``GAP_STEP``; the way on along the whole line; both corners
of a card as lines; covered within 0.8 times the smaller of box and step). Session 54 measured
it alone: the five development card sets 2,287 -> 2,297 melds read exactly, but the real card
fans, which are hands, read a false joker more turned half round (between 8C and 3H of a bridge
hand the grouping takes for a line) and a false card more under motion; it was not kept. Session
55 keeps it with what a read joker is held to (session 49): a blank place that only the looser
look finds (not :func:`flanked`'s plain mask: the median step, the last link's way, the shown
corners, the box-size cover, as up to session 54) is a joker only where a joker could make a
meld with its two neighbours (:func:`could_hold_joker`). A plainly found one is taken as before:
a meld laid wrong (8H 9H _ 3S) is the players' mistake, which the verdict reports, and the meld
test on every blank place lost five such melds on `dev_decks` that the served scanner read (427
of 555). Judging the two neighbours in their order (``validate_meld(..., ordered=True)``: no
joker between QC and KC) read the same melds less one and plus one (2,297). Measured
(`runs/exact54.py`, gitignored; the plain places checked to be the served ones on 200
`dev_decks` and 120 `dev_cards` photos): the five development card sets 2,287 -> **2,297** (11
gained, 1 lost): `dev_decks` 424 -> 432, `dev_cards_12mp` 635 -> 637, the others the same; the
real fans as taken and turned three ways as before, under motion 82 right and 2 false -> 83 and
2, framed as phone photos (`bench/framings.py`) the same (2,436 right, 48 false). Held out
(`models/metrics.json`, read anew): `test_decks` 458 -> 462 of 600 (joker recall 0.487 -> 0.518,
precision 0.866 -> 0.866), `test_decks_12mp` 501 -> 506 of 620 (0.555 -> 0.579), `test_cards`
and `test_cards_12mp` the same (584 and 630), every tile set and real photo the same.

Also measured in session 55, not kept: a joker read one fan step beyond a line's open end (where
the end card lies under the others, so no card's own face shows there; :func:`open_end_places`)
taken where a joker could make a meld with the end card and its neighbour. Of the 36 `dev_cards`
melds lost to a piece missed alone, 15 lack a marked joker, most at a meld's end. Taken at any
certainty, `dev_cards` fell 581 -> 568 of 705 and `dev_decks` 432 -> 427; at 0.6, 580; at 0.8,
582 (one meld gained): what reads as a joker there is mostly no joker.
And a sign for the blank jokers that lie on top of a meld's other end (its top card then shows
one corner only, its far one covered): at the top ends of `dev_decks`' and `dev_cards`' lines
(`runs/top55.py`, gitignored) the end card showed one corner at 45 of Kennard's jokers lying
one step on, but also at 96 Kennard ends and 291 others where no joker lay (far corners cut by
the frame, under another meld, or missed): no sign alone. With the place one step on blank too
(nine tenths of it within ``PAPER_NEAR`` of the end card's paper, as the open end's test asks),
16 such jokers on `dev_decks` against 15 ends with none: still no sign without the joker's edge.
Nor did the edge show as a dip of brightness across the way out, averaged along a box-wide strip
between the end corner and the place (medians 26 and 22 grey levels, the two spreads overlapping
from 6 to 73).
"""

from __future__ import annotations

import math
from typing import NamedTuple, Protocol

import numpy as np

from scorer import PieceKind, Rules, validate_meld
from vision import grouping
from vision.classes import PIECES
from vision.detections import Detections, box_iou

GAP_STEP = 1.6
"""A link at least this many fan steps long (the meld's median step) hides a corner."""
MAX_MISSING = 3
"""At most this many corners are looked for in one gap."""
COVERED = 0.8
"""A place closer than this many box sizes to a detection is already covered."""
CARD_CORNER = 0
"""The coarse class given to a looked-for box (a card corner; the classifier reads jokers)."""
CARD_JOKER = 1
"""The coarse class of a card joker found where no index is (:func:`flanked_jokers`)."""


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
    return _uncovered(found, dets, width, height)


def _read_places(image: np.ndarray, boxes: np.ndarray, reader: Reader) -> Detections:
    """What the classifier reads at the looked-for places ``boxes`` (as card corners, at
    :data:`GAP_LOOKS` looks; their confidence is the presence it reads, no detector scored them);
    a place it reads as no piece is left out."""
    looked = Detections.from_boxes(boxes, np.ones(len(boxes)), np.full(len(boxes), CARD_CORNER))
    return reader.read(image, looked, presence=True, looks=GAP_LOOKS)


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
    read = _read_places(image, boxes, reader)
    # never a joker: one reads where a card's face shows more often than a joker lies there
    read = read[(read.read_confidence >= floor) & (np.array(read.codes()) != grouping.JOKER_CODE)]
    if not len(read):
        return dets
    return dets.joined(read)


def take_weak(
    dets: Detections, weak: Detections, width: int, height: int, overlap: float
) -> Detections:
    """``dets`` and the card detections of ``weak`` (those the read floor dropped: read too
    unsurely to stand alone) that lie where a meld lacks a corner, overlapping one of
    :func:`candidate_boxes`' places by at least ``overlap`` (IoU): the detector's own box, read
    weakly, where the meld says a corner is missing. What face each holds is then the repair's
    to choose, from its likeliest faces and its meld's (:mod:`vision.repair`).

    Session 63, where the development card sets' true pieces missed in lost melds were lost
    (`runs/s63/stages.py`, gitignored; `syn_cards` val, 99 such pieces): 61 were boxed by the
    detector, read by the classifier and left out before grouping, 55 of them under the read
    floor (median detector confidence 0.39, read confidence 0.09); 16 boxed under the detector's
    floor, 7 not boxed at all, 4 called no piece, 11 kept and lost in grouping. Of those 61, 16
    overlapped a place gap filling reads by 0.3 or more, 3 by 0.1-0.3; 40 lay near none, most in
    melds of which one or two pieces were read surely, which make no line. Taking every weak
    card back lowers the read floor, which costs melds (`models/classifier.md`, "Read floor").
    Taken where a place is, after gap filling and the blank jokers, chosen on the weak readings
    cached: the five development card sets 2,317 -> 2,324 of 2,779 melds read exactly (at IoU
    0.2 / 0.4, 2,324 / 2,325; only at places inside a meld, no meld moved: a missing corner
    splits its meld in two, so it lies past an end; jokers left out, 2,322). Read afresh as
    served (`models/metrics.json`): 2,326 (13 gained, 4 lost); held out, read after the choice,
    `test_cards` 588 -> 591, `test_decks_12mp` 506 -> 507, `test_cards_12mp` and `test_decks`
    the same (5 gained, 1 lost); card F1 within 0.0013 either way; no tile set or real photo
    moved (`docs/measurements.md`, "Weak corners where a meld lacks one").

    Session 64 measured the weak corners this leaves out (on the same cached readings, after
    this step): taken where, grouped with the rest, they make a valid meld with one or two
    sure pieces (too few for a meld of their own), at most two or three weak ones a meld, or
    with two sure ones only: 2,324 -> 2,325 each (2 or 3 gained, 1 or 2 lost; 23-50 taken); with
    any number of sure pieces, 2,321 (5 gained, 8 lost). Not taken."""
    weak = weak[~weak.kind]
    if overlap <= 0 or not len(weak):
        return dets
    places = candidate_boxes(dets, width, height)
    if not len(places):
        return dets
    taken = box_iou(weak.xyxy, places).max(axis=1) >= overlap
    return dets.joined(weak[taken]) if taken.any() else dets


FLANK_TOLERANCE = 0.35
"""A card corner flanks a place from the far side when it lies within this many fan steps of
where the next card's corner would (one step past the place, along the chain's line)."""
FLANK_TURN_DEG = 35.0
FLANK_STEP = 0.3
"""The line of cards beyond a gap runs on within ``FLANK_TURN_DEG`` of the near line's direction,
its step within ``FLANK_STEP`` of the near line's (as a share of it). Session 37 (25 -> 35
degrees; the blank jokers of cached readings taken out and found again, `runs/sweep_blank.py`,
gitignored): `dev_decks` melds 397 -> 399 of 533, points right 81 -> 83, a fan that bends at
its joker (2S 3S 4S _ 6S 7S, its parts 31 degrees apart); 45 degrees read the same; `dev_cards`
and `dev_cards_12mp` the same melds and jokers. ``FLANK_STEP`` 0.45 read the same as 0.3;
``FLANK_TOLERANCE`` 0.5 one `dev_decks` meld more, and `dev_cards_12mp`'s joker precision
0.834 -> 0.826."""
UNMARKED_JOKER_CONFIDENCE = 0.29
"""The confidence given to a card with no index read in a meld's gap (:func:`flanked_jokers`):
under :data:`vision.scanner.LONE_JOKER_FLOOR`, so that one left in no meld is dropped (the
scanner cannot be imported here; `tests/vision/test_gaps.py` holds the two together)."""


class Lines(NamedTuple):
    """Lines of card corners (:func:`lines_of_cards`): the physical cards' shown corners' centres,
    box sizes, up angles and codes read, and the lines as chains of their indexes."""

    centres: np.ndarray
    sizes: np.ndarray
    up: np.ndarray
    chains: list[list[int]]
    codes: list[str]
    shown: int
    """How many of the corners are the cards' shown corners; the rest are the second corners
    of cards seen by both, each a line of its own."""


def _ranked_cards(dets: Detections) -> np.ndarray:
    """Mask of the card corners read as a rank and suit (not as a joker): a joker read weakly
    is often a picture or a pip (vision.scanner.drop_jokers_beside_corners), which would make a
    line of cards where none is."""
    return np.asarray(~dets.kind & (np.array(dets.codes()) != grouping.JOKER_CODE))


def lines_of_cards(dets: Detections) -> Lines:
    """The lines of card corners read as a rank and suit (:func:`_ranked_cards`), hands left
    out. Jokers are left out, so the jokers found where no index is (:func:`blank_jokers`) do
    not move them."""
    cards = np.flatnonzero(_ranked_cards(dets))
    if len(cards) < 2:
        return Lines(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0), [], [], 0)
    sub = dets[cards]
    g = grouping.group(sub.centres, sub.sizes, sub.codes(), sub.kind, sub.up, sub.faces)
    shown = np.array([p[0] for p in g.pieces])
    centres, sizes, up = sub.centres[shown], sub.sizes[shown], sub.up[shown]
    in_hand = np.zeros(len(shown), bool)
    in_hand[[i for hand in g.hands for i in hand]] = True
    lines = [
        chain
        for chain in grouping.chains(centres, sizes, np.zeros(len(shown), bool), None, up)
        if not in_hand[chain].any()  # a hand's cards need not each show an index
    ]
    # a card seen by both corners is shown by one; its other corner may be the one in line with
    # a meld (the top card of a fan broken by a blank joker): a line of its own, one card long
    other = np.array(
        [p[1] for k, p in enumerate(g.pieces) if len(p) > 1 and not in_hand[k]], np.int64
    )
    lines += [[len(shown) + k] for k in range(len(other))]
    codes = sub.codes()
    return Lines(
        np.concatenate([centres, sub.centres[other]]),
        np.concatenate([sizes, sub.sizes[other]]),
        np.concatenate([up, sub.up[other]]),
        lines,
        [codes[i] for i in (*shown, *other)],
        len(shown),
    )


def flanked_places(
    dets: Detections, width: int, height: int, lines: Lines | None = None
) -> np.ndarray:
    """(K, 4) boxes of the places one fan step from a card corner on each side, in line, where
    no corner was found: a chain's link two steps long, or a chain's end with a card corner two
    steps further on (the two parts a meld breaks into where one corner is not found)."""
    return flanked(dets, width, height, lines)[0]


def flanked(
    dets: Detections, width: int, height: int, lines: Lines | None = None
) -> tuple[np.ndarray, list[tuple[str, str]], np.ndarray]:
    """The places of :func:`flanked_places`, the codes of the two corners that flank each, and
    a mask of those found plainly (:func:`_beyond`, :func:`_uncovered_at`): by the line's median
    step, the way of its last link, its shown corners and the box-size cover, as up to session
    54. The others are found only by the looser look, which finds places in hands too."""
    if int(_ranked_cards(dets).sum()) < 3:
        return np.zeros((0, 4), np.float32), [], np.zeros(0, bool)
    lines = lines if lines is not None else lines_of_cards(dets)
    centres, sizes, _up, chains, codes, shown = lines
    line_of = {i: k for k, chain in enumerate(chains) for i in chain}
    # (plainly found, (centre, size), the flanking codes, the line's fan step) of each place
    places: list[tuple[bool, tuple[np.ndarray, np.ndarray], tuple[str, str], float]] = []
    for chain in chains:
        if len(chain) < 2:
            continue
        c, s = centres[chain], sizes[chain]
        lengths = np.linalg.norm(np.diff(c, axis=0), axis=1)
        step, median = fan_step(lengths), float(np.median(lengths))
        if step <= 0:
            continue
        # a line of two links measures its step by one of them: a gap must be plainer there
        least = GAP_STEP if len(lengths) == 2 else 1.5
        for k, length in enumerate(lengths):
            was = round(float(length) / median) == 2
            if was or least <= float(length) / step < 2.5:
                place = ((c[k] + c[k + 1]) / 2, (s[k] + s[k + 1]) / 2)
                places.append((was, place, (codes[chain[k]], codes[chain[k + 1]]), step))
        for end, other, inner in ((0, -1, 1), (-1, 0, -2)):
            q = _beyond(lines, line_of, chain, end, c[end] - c[inner], median)
            was = q is not None and max(chain[end], q) < shown
            if not was:
                # the way on along the whole line, not its last link: a fan's links turn by a
                # few degrees each, and two steps on that is a third of a step off
                q = _beyond(lines, line_of, chain, end, c[end] - c[other], step)
            if q is None:
                continue
            place = ((c[end] + centres[q]) / 2, (s[end] + sizes[q]) / 2)
            places.append((was, place, (codes[chain[end]], codes[q]), step))
    # the plain places first (a stable sort): a place found both ways is kept as plainly found
    places.sort(key=lambda p: not p[0])
    found = [p[1] for p in places]
    kept, crowded = _uncovered_at(found, dets, width, height, [p[3] for p in places])
    plainly = np.array([places[k][0] and not crowded[j] for j, k in enumerate(kept)], bool)
    return _boxes([found[k] for k in kept]), [places[k][2] for k in kept], plainly


def _beyond(
    lines: Lines, line_of: dict[int, int], chain: list[int], end: int, way: np.ndarray, step: float
) -> int | None:
    """The corner two fan steps ``step`` on along ``way`` from the ``end`` of the line ``chain``
    (within :data:`FLANK_TOLERANCE`) that starts another line running on the same way at the same
    step (:func:`_continues`) and faces as the end corner does; None if there is none."""
    centres, up, chains = lines.centres, lines.up, lines.chains
    start = centres[chain[end]]
    out = way / (np.linalg.norm(way) + 1e-9) * step
    far = np.linalg.norm(centres - (start + 2 * out), axis=1)
    q = int(far.argmin())
    if far[q] > FLANK_TOLERANCE * step or q not in line_of or q in chain:
        return None
    if not _continues(centres[chains[line_of[q]]], q, chains[line_of[q]], out):
        return None
    a, b = up[chain[end]], up[q]
    if not (np.isnan(a) or np.isnan(b)) and abs(
        np.remainder(a - b + np.pi, 2 * np.pi) - np.pi
    ) > np.radians(grouping.LINK_FACING_DEG):
        return None
    return q


def fan_step(lengths: np.ndarray) -> float:
    """The fan step of a line of cards whose links are ``lengths`` long: their median, but the
    shorter of two. The median of two links is their mean, which a gap between them makes one
    and a half steps (9H _ JH QH), so that the gap read as one step and no place was looked at
    (`dev_decks` 000126, session 54); the median of three or more is one of the steps however
    long a gap among them is. Measured from the shortest link of a longer line instead, one
    short link (a corner boxed twice, a card laid askew) halved the step and every link read
    as a gap: false jokers between the cards of whole melds (`syn_cards3` val 001389,
    `dev_cards_12mp` 000175)."""
    if not len(lengths):
        return 0.0
    return float(lengths.min() if len(lengths) == 2 else np.median(lengths))


def _continues(c: np.ndarray, q: int, chain: list[int], out: np.ndarray) -> bool:
    """Whether the line of cards ``chain`` (centres ``c``), whose end ``q`` lies one step
    ``out`` past a gap, runs on along ``out`` from ``q`` at about the same step (a lone card
    does)."""
    if len(chain) < 2:
        return True
    if q not in (chain[0], chain[-1]):
        return False
    near, nxt = (c[0], c[1]) if q == chain[0] else (c[-1], c[-2])
    on = nxt - near
    step = float(np.linalg.norm(out))
    length = float(np.linalg.norm(on))
    cos = float(on @ out) / (length * step + 1e-9)
    return cos >= np.cos(np.radians(FLANK_TURN_DEG)) and abs(length / step - 1) <= FLANK_STEP


def _uncovered(
    found: list[tuple[np.ndarray, np.ndarray]], dets: Detections, width: int, height: int
) -> np.ndarray:
    """The boxes (centre, size) of ``found`` inside the photo that no detection covers, each
    place once."""
    return _boxes([found[k] for k in _uncovered_at(found, dets, width, height)[0]])


def _boxes(places: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """(K, 4) boxes of ``places`` (centre, size)."""
    return np.array(
        [[x - w / 2, y - h / 2, x + w / 2, y + h / 2] for (x, y), (w, h) in places], np.float32
    ).reshape(-1, 4)


def _uncovered_at(
    found: list[tuple[np.ndarray, np.ndarray]],
    dets: Detections,
    width: int,
    height: int,
    steps: list[float] | None = None,
) -> tuple[list[int], list[bool]]:
    """The indexes of the places (centre, size) of ``found`` inside the photo that no detection
    covers, each place once (the first of those found from both sides of a gap), and whether
    each is crowded. A detection covers a place within :data:`COVERED` times its box size (the
    geometric mean of its and the place's); with ``steps`` (each place's fan step), within
    that many times the step where the step is shorter: where indexes outsize the fan step, a
    neighbour's box lies nearer a place than its box size. Such a place is crowded."""
    if not found:
        return [], []
    side = np.sqrt(np.maximum(dets.sizes.prod(axis=1), 1e-9))
    keep: list[tuple[np.ndarray, np.ndarray]] = []
    kept: list[int] = []
    crowded: list[bool] = []
    every = dets.centres
    for k, (centre, size) in enumerate(found):
        own = float(np.sqrt(max(size[0] * size[1], 1e-9)))
        if not (0 <= centre[0] < width and 0 <= centre[1] < height):
            continue
        apart = np.linalg.norm(every - centre, axis=1)
        reach = np.sqrt(side * own)
        tight = np.minimum(reach, steps[k]) if steps is not None else reach
        if (apart < COVERED * tight).any():
            continue
        if keep and bool(
            (np.linalg.norm(np.array([k[0] for k in keep]) - centre, axis=1) < COVERED * own).any()
        ):
            continue  # the same place, found from both sides of a gap
        keep.append((centre, size))
        kept.append(k)
        crowded.append(bool((apart < COVERED * reach).any()))
    return kept, crowded


def flanked_jokers(
    image: np.ndarray, dets: Detections, reader: Reader, lines: Lines | None = None
) -> Detections:
    """``dets`` and a card joker at each place between two corners of a line of cards
    (:func:`flanked_places`) where the classifier finds no index at all, or reads a joker.

    No index: in a meld every card shows its index there, but a joker of a deck that prints no
    mark in its corners (a jester's picture in the middle only) shows none (session 35); it
    joins at :data:`UNMARKED_JOKER_CONFIDENCE`. A joker read: gap filling (:func:`fill_gaps`)
    takes no joker wherever it looks, one step past a meld's end too, where a card's own face
    shows and reads as one more often than a joker lies there; flanked on both sides in line, a
    place holds a card, and a joker read there is taken as read (session 49, below)."""
    h, w = image.shape[:2]
    boxes, pairs, plainly = flanked(dets, w, h, lines)
    if not len(boxes):
        return dets
    read = _read_places(image, boxes, reader)
    blank = ~_read_at(boxes, read)
    at = [_box_at(boxes, box) for box in read.xyxy]  # the place each reading is of
    joker = np.array(read.codes(), dtype=object) == grouping.JOKER_CODE
    holds = np.array([could_hold_joker(pair) for pair in pairs], bool)
    marked = read[joker & holds[at]]
    # a place only the looser look finds may lie in a hand: a joker only where one makes a meld
    blank &= plainly | holds
    out = dets.joined(_jokers(boxes[blank], dets.faces.shape[1])) if blank.any() else dets
    return out.joined(marked) if len(marked) else out


def could_hold_joker(pair: tuple[str, str]) -> bool:
    """Whether a joker between the two card corners ``pair`` makes a valid meld with them, in
    any order (7S 9S, 7S 8S, 7S 7H do; KD 2H, a second wild, and JD 7D do not)."""
    return validate_meld([*pair, grouping.JOKER_CODE], FLANK_RULES).valid


def _box_at(boxes: np.ndarray, box: np.ndarray) -> int:
    """The index of ``box`` among the looked-for places ``boxes`` (read boxes keep theirs)."""
    return int(np.flatnonzero((boxes == box[None]).all(axis=1))[0])


FLANK_RULES = Rules.default(PieceKind.CARDS)
"""The rules a joker read between two card corners is judged plausible by (the scan's own
rules are not known while it is read): Burraco's, whose wilds are jokers and 2s."""


def _read_at(boxes: np.ndarray, read: Detections) -> np.ndarray:
    """Mask of the looked-for places ``boxes`` that the classifier's reading ``read`` of them
    keeps (it drops what it calls no piece)."""
    return np.asarray((boxes[:, None] == read.xyxy[None]).all(axis=2).any(axis=1))


def _no_index(image: np.ndarray, boxes: np.ndarray, reader: Reader) -> np.ndarray:
    """Mask of the looked-for places ``boxes`` where the classifier finds no index at all."""
    return ~_read_at(boxes, _read_places(image, boxes, reader))


def _jokers(boxes: np.ndarray, faces: int) -> Detections:
    """Card jokers at ``boxes`` where a card shows no index, at
    :data:`UNMARKED_JOKER_CONFIDENCE`."""
    probs = np.zeros((len(boxes), faces), np.float32)
    probs[:, PIECES.names.index(grouping.JOKER_CODE + "-card")] = 1.0
    return Detections.from_boxes(
        boxes, np.full(len(boxes), UNMARKED_JOKER_CONFIDENCE), np.full(len(boxes), CARD_JOKER)
    ).with_faces(probs)


OPEN_END_COS = -0.3
"""A line's end is open (its card lies under the others, its index by the table) when the way
out of the line points away from that card's face: the cosine between the way out and the
face's diagonal (the card's right and down from its index, by its read up angle) is below this.
At the other end lies the top card, whose own face is what one step beyond shows."""
PAPER_NEAR = 40.0
"""A pixel within this colour distance (RGB, 0-255) of a card's paper shows paper."""
BLANK_SHARE = 0.6
"""One step beyond an open end, at least this share of the place shows the end card's paper..."""
BLANK_TONE = 20.0
"""...and the place's median colour lies within this distance of it..."""
TABLE_SHARE = 0.35
"""...while two steps beyond, at most this share does (the table past the hidden card)..."""
TABLE_APART = 50.0
"""...and the median colours one and two steps beyond lie at least this far apart..."""
STRIP_RUN = 0.6
"""...and paper runs on from the end corner's box for at least this many fan steps (the
median of five rays across the box): a card's own margin ends sooner."""
MARKED_JOKER_SURE = 0.5
"""A photo in which a card joker is read from its corner at least this surely plays with
jokers that print a mark there: no blank place is taken for a joker (:func:`open_end_jokers`)."""


class OpenEnd(NamedTuple):
    """One fan step beyond the open end of a line of card corners (:func:`open_end_places`)."""

    place: np.ndarray
    """The box looked at (x1, y1, x2, y2)."""
    centre: np.ndarray
    """The end corner's centre..."""
    size: np.ndarray
    """...and its box's width and height."""
    way: np.ndarray
    """The unit direction out of the line."""
    step: float
    """The line's fan step."""


def open_end_places(
    dets: Detections, width: int, height: int, lines: Lines | None = None
) -> list[OpenEnd]:
    """The places one fan step beyond the open end of each line of card corners
    (:data:`OPEN_END_COS`) that no detection covers."""
    centres, sizes, up, chains, _codes, _shown = (
        lines if lines is not None else lines_of_cards(dets)
    )
    out: list[OpenEnd] = []
    for chain in chains:
        if len(chain) < 2:
            continue
        c, s = centres[chain], sizes[chain]
        step = float(np.median(np.linalg.norm(np.diff(c, axis=0), axis=1)))
        for end, inner in ((0, 1), (-1, -2)):
            angle = float(up[chain[end]])
            if step <= 0 or np.isnan(angle):
                continue
            way = c[end] - c[inner]
            way = way / (np.linalg.norm(way) + 1e-9)
            face = np.array([np.cos(angle) - np.sin(angle), np.sin(angle) + np.cos(angle)])
            if float(way @ face) / np.sqrt(2) >= OPEN_END_COS:
                continue
            place = _uncovered([(c[end] + way * step, s[end])], dets, width, height)
            if len(place):
                out.append(OpenEnd(place[0], c[end], s[end], way, step))
    return out


def _pixels(image: np.ndarray, centre: np.ndarray, size: np.ndarray) -> np.ndarray:
    """(N, 3) float colours of the box of ``size`` at ``centre``, clipped to the photo."""
    h, w = image.shape[:2]
    x0, y0 = (max(int(v), 0) for v in centre - size / 2)
    x1, y1 = int(min(centre[0] + size[0] / 2, w)), int(min(centre[1] + size[1] / 2, h))
    return image[y0:y1, x0:x1].reshape(-1, 3).astype(np.float32)


def _paper_run(
    image: np.ndarray, start: np.ndarray, way: np.ndarray, paper: np.ndarray, reach: int
) -> int:
    """How many pixels from ``start`` along ``way`` show ``paper`` before three in a row do not
    (looked at up to ``reach`` pixels, and inside the photo)."""
    h, w = image.shape[:2]
    points = start + np.arange(0, reach)[:, None] * way
    inside = (points >= 0).all(axis=1) & (points[:, 0] < w) & (points[:, 1] < h)
    points = points[: int(np.argmin(inside)) if not inside.all() else len(points)].astype(int)
    if len(points) < 3:
        return 0
    off = np.linalg.norm(image[points[:, 1], points[:, 0]] - paper, axis=1) >= PAPER_NEAR
    stops = np.flatnonzero(np.convolve(off, np.ones(3), "valid") >= 3)
    return int(stops[0]) if len(stops) else len(points)


def shows_hidden_card(
    image: np.ndarray, centre: np.ndarray, size: np.ndarray, way: np.ndarray, step: float
) -> bool:
    """Whether one fan step beyond an open end (the corner at ``centre``, its box ``size``, the
    way out ``way``) shows the paper of a card lying under the line, the table beyond it: the
    strip of a card whose corner shows no index."""
    own = _pixels(image, centre, size)
    if len(own) < 4:
        return False
    bright = own.mean(axis=1)
    paper = np.median(own[bright >= np.percentile(bright, 70)], axis=0)
    one = _pixels(image, centre + way * step, size)
    two = _pixels(image, centre + 2 * way * step, size)
    if not len(one) or not len(two):
        return False
    tone_one, tone_two = np.median(one, axis=0), np.median(two, axis=0)
    if not (
        float((np.linalg.norm(one - paper, axis=1) < PAPER_NEAR).mean()) >= BLANK_SHARE
        and float(np.linalg.norm(tone_one - paper)) < BLANK_TONE
        and float((np.linalg.norm(two - paper, axis=1) < PAPER_NEAR).mean()) <= TABLE_SHARE
        and float(np.linalg.norm(tone_one - tone_two)) >= TABLE_APART
    ):
        return False
    across = np.array([-way[1], way[0]])
    reach = float(np.abs(way) @ size)  # the box's extent along the way out
    width = float(np.abs(across) @ size)
    starts = [centre + way * reach / 2 + across * f * width for f in np.linspace(-0.3, 0.3, 5)]
    need = STRIP_RUN * step
    runs = [_paper_run(image, start, way, paper, math.ceil(need) + 3) for start in starts]
    return float(np.median(runs)) >= need


def open_end_jokers(
    image: np.ndarray, dets: Detections, reader: Reader, lines: Lines | None = None
) -> Detections:
    """``dets`` and a card joker at each open end of a line of cards (:func:`open_end_places`)
    beyond which the photo shows a card under the line, no index on it (:func:`shows_hidden_card`
    and the classifier's "not a piece"): the joker of a deck that prints no mark in its corners,
    laid at the meld's end. Not looked for in a photo whose jokers are read from their marks
    (:data:`MARKED_JOKER_SURE`)."""
    jokers = ~dets.kind & (np.array(dets.codes()) == grouping.JOKER_CODE)
    if (jokers & (dets.read_confidence >= MARKED_JOKER_SURE)).any():
        return dets
    h, w = image.shape[:2]
    places = [
        end.place
        for end in open_end_places(dets, w, h, lines)
        if shows_hidden_card(image, end.centre, end.size, end.way, end.step)
    ]
    if not places:
        return dets
    boxes = np.array(places, np.float32).reshape(-1, 4)
    blank = _no_index(image, boxes, reader)
    return dets.joined(_jokers(boxes[blank], dets.faces.shape[1])) if blank.any() else dets


def blank_jokers(image: np.ndarray, dets: Detections, reader: Reader) -> Detections:
    """``dets`` and the card jokers found where a meld says a card lies: in a meld's gap, where
    no index shows or a joker's mark is read (:func:`flanked_jokers`), and beyond its open end
    where no index shows (:func:`open_end_jokers`), the lines of
    cards grouped once for both. On `bench/scan.py`'s tiled fan (158 pieces) the open-end step
    took 44-56 ms on its own, about 35 of them grouping (under cProfile); both steps together
    now take 46-81 ms there, 18-26 ms on the fan (five scans each, session 37)."""
    lines = lines_of_cards(dets)
    return open_end_jokers(image, flanked_jokers(image, dets, reader, lines), reader, lines)
