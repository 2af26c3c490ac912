"""Pieces -> physical pieces -> melds, from boxes and codes alone.

0. **Twins** (cards): the detector sometimes boxes one index twice, the second box shifted by
   part of its size, and both read the same code. Two card boxes of one code whose centres are
   closer than ``TWIN_NEAR`` x their size are one piece. Measured (session 6) on the pairs of
   neighbours of one code in the scanner's melds (`syn_cards` + `syn_cards3` val): closer than
   0.8 sizes were 80 of the 82 pairs that were one card boxed twice, 73 of the 96 pairs where
   one box lay on no card, and 14 of the 72 pairs of two identical cards. Melds read exactly
   went 94 -> 116 of 207 and 175 -> 196 of 477 (0.6: 108, 187; 1.0: 114, 199). Tiles of a
   row lie about 0.8 sizes apart, so tiles are left alone (merging them cost 3 of 174 melds).
   Since session 20 the two boxes must also overlap (``TWIN_OVERLAP``): two identical cards
   fanned tight show their indexes side by side, not one on the other. Since session 61 two
   overlapping boxes both found surely and lying across their up direction are two such cards
   (``TWIN_SURE``).
   Once the corners are chained, two neighbours of one code closer than ``CHAIN_TWIN_STEP``
   of their fan's step are one index boxed twice too (:func:`chain_twins`, session 17).
1. **Corner merge** (cards): a card can show both of its corner indexes. Two boxes with the same
   code, in different chains (step 2), a card's diagonal apart (1.4 to 7.5 index sizes), one of
   which ends its chain or lies alone, are one card; so are two whose read up angles are half a
   turn apart with each at the other's down-right diagonal (a card's two printed indexes). Two
   identical cards of two decks lying in one meld are in the same chain, so they are never
   merged. Two corners read the same way up (within ``SAME_WAY_DEG``) are never one card's two
   indexes, which are printed half a turn apart (session 20). Where the up angles say so, two
   corners are one card even when they were read as different codes, if their readings agree
   (``MERGE_AGREE``); the scanner reads the card by the product of both. Session 16, on the
   scanner's pieces of the synthetic card scenes (`syn_cards`, `syn_cards3` val, `test_cards`):
   140 cards were shown twice, 91 of them by two corners read as different codes that the angles
   make one card's two indexes; merging those gave melds read exactly 126 -> 127, 330 -> 331,
   431 -> 435 (of 215, 477, 626; agreement 0.03-0.3 all within a meld of this; cached readings,
   so gap filling unchanged). Merging boxes read differently as twins (closer than
   ``TWIN_NEAR``) was measured too and lost melds (429 on `test_cards`): neighbours in a tight
   fan lie that close.
2. **Chains**: melds are straight fans or rows. Candidate links join pieces closer than
   ``LINK`` x their size; links are taken shortest first, each piece keeps at most two and a
   piece's two links must be nearly collinear (no corners), so rows on a rack or neighbouring
   columns do not fuse. Each chain comes out in its physical order, end to end. Tiles are also
   linked when closer than ``TILE_SIZE_LINK`` x their box size: in a steep photo the pieces
   around a near meld can lie closer than its own step (session 6, synthetic tile val scenes,
   melds read exactly: `syn_tiles` 82 -> 82 of 93, `syn_tiles2` 56 -> 61 of 81; 0.75: 83, 60;
   0.85: 83, 63; 0.9: 75, 55, where neighbouring rows fuse; real tiles F1 unchanged).
   A card joker's box (the "JOKER" strip down the card's edge, twice a rank index's length)
   centres off the line of its meld's indexes, so a chain may turn up to ``JOKER_TURN_DEG``
   where a joker is one of the three pieces the turn is measured on. Session 12, grouping
   alone on the truth boxes: card melds exact 660 -> 666 of 692 (`syn_cards` + `syn_cards3`
   val; 55-65 degrees give 666, 70 gives 664) and 2,266 -> 2,284 of 2,405 (`syn_cards2`
   train, which no grouping setting was chosen on; 60: 2,281, 70: 2,285). The scanner's melds
   did not change (612 of 860 before and after, session 7's detector): that detector boxed a
   joker's corner, not its whole strip.
   Two cards whose read up angles lie more than ``LINK_FACING_DEG`` apart are not linked
   (session 16): an upside-down index beside a meld's end (the far corner of its last card,
   another side's meld, a stray card) had been chained on, so that the meld gained a piece, or
   its last card's near corner no longer ended the chain and the card was shown by its far
   corner, out of the meld's line. With the merge above, cached readings: melds read exactly
   127 -> 129, 331 -> 336, 435 -> 439 (60-150 degrees within a meld of these); of the pieces
   of discard piles, 187 -> 203 of 373 were put in melds (a pile breaks into smaller chains
   that can lie neatly), of hand cards 220 -> 212 of 1,592. The whole scanner, both changes
   (gap filling groups too): 126 -> 129, 330 -> 337, 431 -> 439; tiles and the real photos (as
   taken and turned) read the same; framed as phone photos (`bench/framings.py`) one false card
   fewer of 2,492.
3. **Hands**: a hand held or laid as a fan bends (its cards turn about one point), a meld is a
   straight column or row. A chain of at least ``HAND_MIN`` cards whose direction turns by more
   than ``HAND_TURN_DEG`` from end to end while its index boxes change shape (the corners
   rotate) is a hand, not a meld. Measured on 3,426 synthetic melds and 691 hand fans (truth
   boxes): 4 melds taken for hands, 257 hands found; the other hands, nearly straight, stay melds.
   A chain is also a hand when its cards' read up angles turn along it, by more than
   ``HAND_UP_TURN_DEG`` end to end and by ``HAND_UP_STEP_DEG`` per card (a hand's cards turn
   about the hand's pivot even when their indexes lie on a nearly straight line; a meld's all
   lie one way). Session 6, the scanner before gap filling on `syn_cards` + `syn_cards3` val:
   hand cards put in melds 102 + 148 -> 35 + 83 of 239 + 369, melds read exactly 358 -> 356 of
   684 (a step of 3 degrees: 35 + 63; 8 degrees: 38 + 84; 40 degrees end to end: 357 melds).
   This test comes after the pile test, whose trimmed melds it would otherwise take (measured
   at 40 degrees without the per-card step: 348 melds instead of 357).
4. **Piles**: a meld is laid neatly, every piece the same way up; a discard pile or a hand
   thrown down is not. A chain whose pieces' read up angles spread (circular standard
   deviation) more than ``PILE_SPREAD_DEG`` is no meld. Measured on the 804 chains the scanner
   (session 3's detector) made of 160 synthetic card val photos: 0 of 159 true melds spread
   that much, 36 of 157 chains holding hand or discard-pile cards did (and 88 of 488 other
   wrong chains); at 20 degrees 3 true melds would have been lost. A meld's column can run on
   into the discard pile or a stray card at one end: such a chain first loses up to a third of
   its pieces from its ends (the one furthest from the chain's mean angle first) and is a meld
   if at least 3 neat pieces are left (session 6, synthetic card val scenes: melds read exactly
   116 -> 118 of 207 and 196 -> 203 of 477; hand cards put in melds 128 -> 140 on `syn_cards3`).
   A joker's read up angle is left out of these tests (``JOKER_UP_UNKNOWN``): jokers at a
   meld's end had been trimmed off as strays where their angle read wrong (one seen 110
   degrees from its row's). Session 8, whole scanner on cached reads, melds read exactly:
   `syn_tiles` 85 -> 86 of 93, `syn_tiles2` 65 -> 66 of 81, `syn_cards` 129 -> 128 of 207,
   `syn_cards3` 259 -> 263 of 477 (hand cards put in melds 63 -> 56 of 357). A tile 6's or 9's read
   up angle is left out too (``TILE_UP_UNKNOWN``; the two are half turns of each other but for the
   bar under the number): on 200 fresh tile scenes (seed 606, which nothing was trained on; session
   12's models) 18 of 202 tile 6s read more than 40 degrees from the rest of their meld, against
   0-7 of 84-199 for each other number, and whole rows of a 6 group or a run through 6 were lost as
   piles. Melds read exactly 471 -> 476 of 518 there, `syn_tiles` 78 -> 80 of 87, `syn_tiles2` 75
   -> 75 (leaving out the 6s alone: 476, 79, 75); chains kept as melds that are no true meld rose
   on the fresh scenes from 417 to 432, those that read valid fell from 202 to 199 (the rest are
   shown invalid). Two melds laid end
   to end in one line for two sides of the table (a run upright, a group upside down) spread as
   a pile too: a spread chain that parts into two neat melds of at least ``TRIM_MIN`` pieces
   facing ``SPLIT_TURN_DEG`` or more apart is those two melds (:func:`facing_split`; session 9,
   whole scanner: `syn_tiles` melds 88 -> 90 of 93, the other synthetic and real sets
   unchanged).
5. Chains of at least ``MIN_MELD`` pieces are melds; the rest (discard pile, stray pieces,
   pairs) are unassigned.
6. **Racks** (tiles, once the rows are read: :func:`rack_tiers`, called by the scanner): a
   player's tiles stand on a rack's two tiers in no order. Two rows that read invalid, each
   needing more than ``RACK_CHANGES`` of its tiles changed to be a run or a group, lying side
   by side (parallel within ``RACK_PARALLEL_DEG``, overlapping along their direction) closer
   than ``RACK_TIER`` tiles' extents across, are a hand, not melds. A meld laid with a mistake
   needs one or two tiles changed, and a lone row of any kind stays a meld to judge. Session 8,
   synthetic tile val scenes (`syn_tiles` + `syn_tiles2`): rack tiles put in melds 230 -> 28 of
   235, melds read exactly unchanged (82 + 66), meld precision 0.586 -> 0.656 and 0.532 ->
   0.629. Without the changes test, 1.2 tiles apart cost 10 true melds (flawed ones side by
   side); rack tiers lie 0.75-1.17 extents apart, neighbouring meld rows from 0.82 up. A row
   whose tiles make a run or a group in some other order needs none changed, and is a meld
   laid out of order, never a rack's tier (``vision.scanner.rack_like``; session 39, cached
   readings: 1,557 -> 1,559 of 1,590 melds on 600 tables made for the check, no other
   development figure moved, rack tiles put in melds unchanged everywhere).
7. **Rows of strays** (cards and tiles, once the rows are read; the scanner): a row that reads
   invalid and in which at least ``STRAY_ROW_MIN`` pieces, and ``STRAY_ROW_SHARE`` of them,
   belong to no one run or set wherever they lie, sets as the table's rules allow them
   (:func:`vision.repair.strays`), is a hand too: a hand laid down straight (no turning cards to
   tell it by), a rack's tier whose other tier is out of the photo or does not overlap it. A
   meld laid with one mistake holds one stray at most, and so does one out of order or with a
   gap, which step 6's changes count as several. Session 33, cached readings (tiles judged by
   Burako's rules, whose sets may repeat a colour and whose 2s are wild), melds read exactly
   unchanged on every set: rack tiles put in melds `dev_tiles` 240 -> 77 of 1,560,
   `dev_tiles_12mp` 219 -> 79 of 1,607, held out `test_tiles` 106 -> 39 of 758,
   `test_tiles_12mp` 126 -> 20 of 728, `test_tile_fonts` 133 -> 54 of 1,086, meld precision
   0.858 -> 0.884, 0.880 -> 0.904, 0.827 -> 0.843, 0.861 -> 0.884, 0.870 -> 0.887; hand cards
   put in melds `dev_cards` 149 -> 48 of 1,146, `dev_cards_12mp` 164 -> 77 of 1,245, held out
   `test_cards` 86 -> 33 of 919, `test_cards_12mp` 143 -> 51 of 952, `test_decks` 167 -> 63 of
   1,064, meld precision 0.785 -> 0.799, 0.833 -> 0.841, 0.775 -> 0.791, 0.791 -> 0.800, 0.666
   -> 0.678. No exactly read meld holds two strays. What it costs: a row that is mostly one
   meld's pieces, misread or joined to another meld, is shown as loose pieces rather than as an
   invalid meld (on the development scenes 9 of the 57 card rows it takes; 6 of the 63 tile rows
   with the tile val sets). Loose pieces (hand, discard, rack, loose) put in melds on the
   development and val sets, cards / tiles: none taken 525 / 591, this rule 255 / 262; a share of
   0.3 240 / 224 (0.25: tiles 197), 0.5 304 / 340, at least 3 strays 333 / 342. A lower share
   takes longer rows with two misread pieces too, which a player mends more easily as a meld.
8. **Askew pairs** (cards and tiles, once the rows are read; the scanner): two pieces left as a
   chain of their own that read invalid are no meld when no third piece could make them one
   (7D KS), nor when their read ways up differ by more than ``PAIR_TURN_DEG`` (cards) or
   ``PAIR_TURN_DEG_TILES`` (tiles; :func:`askew_pair`): the cards of a discard pile lie
   turned every way, a meld's all one way, and the piles test (step 4) cannot tell a pair by
   its spread. Session 39, cached readings of the development card sets (`dev_cards`,
   `dev_cards_12mp`, `dev_decks`): melds read exactly the same at 12, 15 and 20 degrees (10:
   one fewer on two of them); discard-pile cards put in melds 41 / 34 / 40 -> 25 / 19 / 21
   at 12 degrees (15: 26 / 25 / 24), meld precision 0.782 / 0.849 / 0.697 -> 0.801 / 0.869 /
   0.717. Tiles, whose piles are loose tiles rather than a discard pile, lost a meld of
   `dev_tiles_12mp` at 15 degrees and none at 20 (loose tiles put in melds 49 / 44 -> 46 / 43;
   on 600 tile tables made afterwards, seed 2727, one flawed two-tile meld of 1,474 at 20).
9. **Melds meeting at a joker** (cards, once grouped; the scanner): a card joker's box centres
   off its meld's line, so a meld with a joker inside can chain as two, the joker ending one.
   Two melds whose facing ends, one of them a card joker, lie within ``JOKER_JOIN_STEP`` of
   their step, running one way, are one meld (:func:`join_at_jokers`), and the rules' repair no
   longer splits a row of cards at a step beside a joker (``vision.repair.JOKER_GAPS_KEPT``).
   Session 39, cached readings: `dev_cards_12mp` 568 -> 569 of 649 melds read exactly, the
   other development sets the same whatever the step (1.3-2.0) and cosine (0.7-0.9); 300 card
   tables made for the check 770 -> 772 of 934.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from vision.detections import box_iou
from vision.facing import MIN_AGREEMENT, mean_angle

MIN_MELD = 2
TWIN_NEAR = 0.8
"""Two boxes of one code closer than this many box sizes (centre to centre; a box's size is
the square root of its area) are one index boxed twice."""
TWIN_OVERLAP = 0.06
"""...and whose boxes overlap by at least this much (intersection over union): one index boxed
twice is two overlapping boxes, while two identical cards of two decks fanned tight show two
indexes side by side, however close (session 20). Cached readings, melds read exactly
(`syn_cards`, `syn_cards3` val, `test_cards`, `test_cards_12mp`): 136 / 346 / 451 / 507 ->
136 / 349 / 452 / 511 (0.01: 136 / 347 / 453 / 510; 0.1: 136 / 348 / 454 / 511; 0.2 loses
melds: 134 / 343 / 450 / 503); the real fans as taken and turned read the same cards."""
TWIN_ACROSS_DEG = 60.0
TWIN_SURE = 0.6
"""...except two boxes that lie side by side across the cards' read up direction (their offset at
least ``TWIN_ACROSS_DEG`` from it), each found at a detector confidence of at least
``TWIN_SURE``: two identical cards of two decks fanned tight (session 61). Of the boxes read in
the five development card sets, the pairs that :data:`TWIN_NEAR` and :data:`TWIN_OVERLAP` took
for one index and that the truth places: 30 on one index (20 of them within 36 degrees of its up
direction, a box on the rank beside one on rank and suit; none with both boxes found at 0.6 or
more) and 27 on two cards (26 at 62-89 degrees, 11 of those with both boxes at 0.6 or more). Of
the 261 pairs one of whose boxes is on no labelled index (the one looked at: a weak box astride
two cards' indexes), 229 have a box found under 0.45, and 6 both at 0.6 or more. Cached
readings, melds read exactly: the five development card sets 2,297 -> 2,303 of 2,779 (7 read by
this alone, 1 by the old rule alone; 2,301-2,303 at 45-75 degrees and 0.45-0.7); held out, read
after the choice, `test_cards` 584 -> 585 of 696, `test_cards_12mp` 630 -> 634 of 707,
`test_decks` 462 -> 463 of 600, `test_decks_12mp` 506 of 620 either way (6 against 0); the real
fans read the same cards as taken and turned. Two sure boxes so placed are never joined through
a weak one astride both (:func:`twins` joins the pairs strongest overlap first): joined in any
order, such a box had made one piece of two aces. Card jokers' up angles are not trusted
(:data:`JOKER_UP_UNKNOWN`): two of them keep the old rule. Gap filling groups without
confidences: this rule leaves what it finds as it was."""
CARD_LINK = 1.8
"""Cards: link corner indexes closer than this many local fan steps."""
TILE_LINK = 1.17
"""Tiles: link tiles closer than this many local tile steps (tiles of a meld touch)."""
NEIGHBOURHOOD = 6
CHAIN_TWIN_MIN = 4
"""Chains of at least this many pieces are looked at for twins (:func:`chain_twins`): their
median step is then a step between two cards."""
CHAIN_TWIN_STEP = 0.67
"""Two neighbouring corners of one code in a chain closer than this share of its median step
are one index boxed twice (:func:`chain_twins`)."""
TILE_SIZE_LINK = 0.8
"""Tiles: also link tiles closer than this many box sizes (the longer side of the smaller box):
in a steep photo a meld's tiles can lie further apart than the pieces around them."""
MERGE_NEAR = 2.3
BEYOND_COS = 0.4
MAX_TURN_DEG = 50.0
JOKER_TURN_DEG = 65.0
"""A chain may turn this much at a card joker: its box (the "JOKER" strip down the card's edge)
is longer than a rank index, so its centre lies off the line of its meld's indexes."""
JOKER_CODE = "JK"
JOKER_JOIN_STEP = 1.6
"""Two melds whose ends meet at a card joker, this many of their steps apart at most (and
running one way, :data:`JOKER_JOIN_COS`), are one meld (:func:`join_at_jokers`)..."""
JOKER_JOIN_COS = 0.8
"""...when their directions (first piece to last) agree to this cosine."""
JOKER_ATTACH = 0.5
"""A joker card whose boxes had chained among themselves joins a meld if one of them lies
within this share of the meld's step from where its next index would lie
(:func:`gather_jokers`). Session 21, cached readings, melds read exactly (`syn_cards`,
`syn_cards3`, `test_cards`, `test_cards_12mp`): 136 / 349 / 454 / 512 -> 136 / 349 / 456 / 515
(0.3: 455, 514; 0.75 and 1.0: as 0.5; 0, the card gathered but never joined: melds unchanged,
card F1 up 0.0002-0.0012); false jokers 13 / 39 / 55 / 70 -> 12 / 36 / 49 / 59, true ones
68 / 124 / 143 / 162 -> 68 / 123 / 143 / 161. A joker left alone beside a meld's end joining it
the same way gained no meld."""
MERGE_RANGE = (1.4, 7.5)
"""How far apart, in index sizes (centre to centre, by the geometric mean of the two boxes'
longer sides), a card's two corner indexes may lie. Session 61 lowered the nearer bound from 1.9:
a card seen from a steep angle is foreshortened, and of the 48 true pieces that the five
development card sets' lost melds held as a card's two corners left apart (the far one read as a
card of its own), 25 had their two corners under 1.9 sizes apart (1.55 at the least). Cached
readings, melds read exactly, the five development card sets: 2,303 of 2,779 at 1.9; 2,300 at
2.0, 2,309 at 1.8, 2,311 at 1.7, 2,314 at 1.6, 2,315 at 1.5 and 2,316 at 1.0-1.4 (at 1.4, 14
read by it alone, 1 by 1.9 alone: a card joker merged away from AD 2D 3D JK). Held out, read
after the choice: `test_cards` 585 -> 588 of 696, `test_cards_12mp` 634 -> 635 of 707,
`test_decks` and `test_decks_12mp` the same (4 against 0); the real fans read the same cards as
taken and turned. Read afresh (gap filling groups by these rules too): the five sets 2,317."""
MERGE_AGREE = 0.1
"""Two corners read as different codes may still be one card's two indexes (one of them misread):
when their up angles say so (:func:`_diagonal_pair`) and their readings agree at least this much
(the probability that both show one face: the sum over faces of the product of their face
probabilities). The scanner then reads the card by the product of the two readings."""
LINK_FACING_DEG = 90.0
"""Two card corners whose read up angles lie more than this apart are not linked into one
chain: a meld's cards all face one way, and an upside-down index next to a meld's end is another
card's far corner or another side's meld. Jokers' angles are not trusted here
(``JOKER_UP_UNKNOWN``), nor tiles' (a 6 turned is a 9; tiles are left as they were)."""
HAND_MIN = 4
HAND_TURN_DEG = 45.0
HAND_UP_TURN_DEG = 30.0
"""A chain of cards whose read up angles turn steadily by more than this, end to end, is a hand."""
HAND_UP_MIN = 3
HAND_UP_STEP_DEG = 5.0
"""... and whose median step from card to card turns that way by at least this."""
HAND_SHAPE_CV = 0.12
"""A hand's index boxes vary in aspect (coefficient of variation) above this; a meld's do not."""
PILE_SPREAD_DEG = 30.0
"""A chain whose read up angles spread more than this (circular std) is a pile, not a meld."""
TRIM_SHARE = 0.34
"""A spread chain may lose up to this share of its pieces, from its ends, to lie neatly."""
TRIM_MIN = 3
"""... and keeps at least this many."""
SPLIT_TURN_DEG = 90.0
"""A spread chain is two melds for two sides of the table (:func:`facing_split`) when its two
neat parts face at least this far apart."""
OPPOSITE_TOL_DEG = 40.0
"""A card's two corner indexes are printed half a turn apart: two same-code corners whose read
up angles are within this of opposite may be one card."""
UPRIGHT_TOL_DEG = 45.0
"""A corner read within this of its fan's mean up angle faces with the fan; one within this of
the opposite faces against it (:func:`_upright_in_chain`)."""
JOKER_UP_UNKNOWN = ("JK",)
"""Codes whose read up angle the pile and hand tests ignore."""
TILE_UP_UNKNOWN = ("6", "9")
"""Tile numbers whose read up angle those tests ignore: a 6 turned half round is a 9, told
apart only by the bar under it, and the classifier's up reading of a 6 strays."""
RACK_PARALLEL_DEG = 12.0
"""Two rows of tiles whose directions differ by more than this do not lie side by side."""
RACK_TIER = 1.2
"""Rows closer than this many tiles' extents across their direction can be a rack's two tiers."""
RACK_CHANGES = 0.34
"""... if each needs more than this share of its tiles changed to be a run or a group."""
PAIR_TURN_DEG = 12.0
"""Two cards read more than this apart in their way up are no meld (:func:`askew_pair`)..."""
PAIR_TURN_DEG_TILES = 20.0
"""...nor two tiles this far apart."""
STRAY_ROW_MIN = 2
"""An invalid row holding at least this many pieces that belong to no one meld
(:func:`vision.repair.strays`)..."""
STRAY_ROW_SHARE = 0.4
"""...and at least this share of its pieces is a hand or a rack's tier, not a meld (step 7)."""
DIAGONAL_DEG = (20.0, 80.0)
"""Seen from one corner index (its own right and down axes), the card's other index lies down
and to the right, at a bearing from the right axis in this range (about 50 degrees for a card
of aspect 0.7; the range covers decks' index sizes and the reading's error)."""


@dataclass(frozen=True, slots=True)
class Grouping:
    """The outcome: each physical piece's boxes, the melds (ordered) and the rest."""

    pieces: tuple[tuple[int, ...], ...]
    """Per physical piece, the detection indexes it covers (first: the one shown)."""
    melds: tuple[tuple[int, ...], ...]
    """Per meld, indexes into ``pieces`` in physical order."""
    unassigned: tuple[int, ...]
    """Pieces in no meld (hands included), sorted."""
    hands: tuple[tuple[int, ...], ...] = ()
    """Fanned hands, indexes into ``pieces`` in fan order (their pieces are unassigned)."""


class _Roots:
    """Union-find over 0..n-1: which set each index has joined (path halving)."""

    def __init__(self, n: int) -> None:
        self.root = list(range(n))

    def find(self, a: int) -> int:
        root = self.root
        while root[a] != a:
            root[a] = root[root[a]]
            a = root[a]
        return a

    def union(self, keep: int, join: int) -> None:
        """``join``'s set joins ``keep``'s."""
        self.root[self.find(join)] = self.find(keep)


def twins(
    centres: np.ndarray,
    sizes: np.ndarray,
    codes: Sequence[str],
    is_tile: np.ndarray,
    up: np.ndarray | None = None,
    confidence: np.ndarray | None = None,
) -> list[list[int]]:
    """Group detection indexes into boxes of one card index: two card boxes of one code whose
    centres are closer than ``TWIN_NEAR`` x their size (the geometric mean of the two boxes'
    sizes) and that overlap by ``TWIN_OVERLAP`` fall together, transitively, unless both were
    found surely and lie side by side across their up direction (``up``, radians, NaN where
    unread; ``confidence``, the detector's: :data:`TWIN_SURE`). Each group is sorted, so that
    it starts with the box that came first (the detector lists its boxes by confidence). Tiles
    stay alone: tiles of a row lie one width apart, about 0.85 sizes for a tile's aspect, so a
    row seen at a slant falls under ``TWIN_NEAR``."""
    n = len(codes)
    side = np.sqrt(np.maximum(sizes[:, 0] * sizes[:, 1], 1e-9))
    offset = centres[None] - centres[:, None]
    dist = np.linalg.norm(offset, axis=2)
    near = dist < TWIN_NEAR * np.sqrt(side[:, None] * side[None])
    code = np.asarray(codes)
    cards = ~np.asarray(is_tile, bool)
    boxes = np.concatenate([centres - sizes / 2, centres + sizes / 2], axis=1)
    overlap = box_iou(boxes, boxes)
    near &= overlap >= TWIN_OVERLAP
    pairs = np.triu(near & (code[:, None] == code[None]) & cards[:, None] & cards[None], 1)
    apart = (
        np.zeros((n, n), bool)
        if up is None or confidence is None
        else _side_by_side(offset, dist, codes, is_tile, up, confidence)
    )
    # the pairs by overlap, most first; two sure boxes side by side never fall together, not even
    # through a weak box astride both (a third box of their code overlapping each)
    roots = _Roots(n)
    members = {i: [i] for i in range(n)}
    for i, j in sorted(zip(*np.nonzero(pairs), strict=True), key=lambda p: -overlap[p]):
        a, b = roots.find(int(i)), roots.find(int(j))
        if a == b or apart[np.ix_(members[a], members[b])].any():
            continue
        roots.union(a, b)
        members[a] += members.pop(b)
    return sorted(sorted(group) for group in members.values())


def _side_by_side(
    offset: np.ndarray,
    dist: np.ndarray,
    codes: Sequence[str],
    is_tile: np.ndarray,
    up: np.ndarray,
    confidence: np.ndarray,
) -> np.ndarray:
    """(N, N) which two boxes were both found at :data:`TWIN_SURE` or more and lie across the
    first's read up direction (the second's where the first's is unread, never where both are):
    two cards side by side, not one index boxed twice. Read between boxes of one code alone, so a
    card joker's untrusted angle (:data:`JOKER_UP_UNKNOWN`) leaves both of a pair unread."""
    known = ~np.isnan(up) & ~card_jokers(codes, is_tile)
    angle = np.where(known[:, None], up[:, None], up[None])
    along = np.abs(offset[..., 0] * np.sin(angle) - offset[..., 1] * np.cos(angle))
    across = along <= math.cos(math.radians(TWIN_ACROSS_DEG)) * dist
    sure = np.asarray(confidence) >= TWIN_SURE
    apart = (known[:, None] | known[None]) & across & sure[:, None] & sure[None]
    return np.asarray(apart, bool)


def merge_corners(
    centres: np.ndarray,
    sizes: np.ndarray,
    codes: Sequence[str],
    is_tile: np.ndarray,
    up: np.ndarray | None = None,
    faces: np.ndarray | None = None,
) -> list[tuple[int, ...]]:
    """Group detection indexes into physical pieces (card corners two by two, tiles alone).

    The corners are chained first; two corners of one code are one card when they lie in
    different chains, at a card's diagonal apart, and either one of them ends its chain or is
    alone, or their up angles (``up``, radians, NaN where unread) say so: half a turn apart,
    each lying at the other's down-right diagonal. (Up angles that are merely not opposite do not
    veto a merge: that cost 0.009 F1 on synthetic two-deck tables, where a misread angle then
    splits a card; merging by them gained 0.009 on the real card fans. Two corners read the
    same way up, within ``SAME_WAY_DEG``, are two cards.) Where the up angles
    say so, two corners are also one card when they lie in one chain, or when their codes differ
    but their readings (``faces``, probabilities per face) agree by ``MERGE_AGREE``.
    """
    n = len(codes)
    if n == 0:
        return []
    size = sizes.max(axis=1)
    dist = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    scale = np.sqrt(size[:, None] * size[None])
    chain_of = np.full(n, -1)
    degree = np.zeros(n, int)
    outward = np.zeros((n, 2))
    for k, chain in enumerate(chains(centres, sizes, is_tile, card_jokers(codes, is_tile), up)):
        chain_of[chain] = k
        if len(chain) > 1:
            degree[chain] = 2
            degree[[chain[0], chain[-1]]] = 1
            for end, inner in ((chain[0], chain[1]), (chain[-1], chain[-2])):
                v = centres[end] - centres[inner]
                outward[end] = v / (np.linalg.norm(v) + 1e-9)
    chain_len = np.bincount(chain_of, minlength=n)[chain_of]
    near = (dist < MERGE_NEAR * scale) & ~np.eye(n, dtype=bool)
    alone = ~near.any(axis=1)
    lo, hi = MERGE_RANGE
    # the pairs of card corners a card's diagonal apart, of like sizes, read alike (filtered
    # for all pairs at once; the tests below that need the corners' places pair by pair)
    ratios = dist / scale
    card = ~np.asarray(is_tile, bool)
    code_ids = np.unique(np.asarray(codes), return_inverse=True)[1]
    alike = code_ids[:, None] == code_ids[None]
    if faces is not None:
        alike |= faces @ faces.T >= MERGE_AGREE
    pairs = (
        np.triu(card[:, None] & card[None], 1)
        & (ratios >= lo)
        & (ratios <= hi)
        & (np.maximum(size[:, None], size[None]) <= 1.6 * np.minimum(size[:, None], size[None]))
        & alike
    )
    candidates: list[tuple[float, int, int]] = []
    for i, j in zip(*np.nonzero(pairs), strict=True):
        i, j = int(i), int(j)
        same = codes[j] == codes[i]
        oriented = _diagonal_pair(centres, up, i, j)
        if not oriented and _same_way(up, codes, i, j):
            continue
        if (chain_of[i] == chain_of[j] or not same) and not oriented:
            # two identical cards of two decks in one meld face one way, in one chain
            continue
        one_alone = bool(alone[i] or alone[j])
        ends = max(degree[i], degree[j]) <= 1 and _beyond_end(centres, outward, degree, i, j)
        if not (one_alone or ends or oriented):
            continue
        candidates.append((float(ratios[i, j]), i, j))
    partner = [-1] * n
    for _ratio, i, j in sorted(candidates):
        if partner[i] < 0 and partner[j] < 0:
            partner[i], partner[j] = j, i
    pieces: list[tuple[int, ...]] = []
    for i in range(n):
        j = partner[i]
        if j < 0:
            pieces.append((i,))
        elif j > i:
            # show the corner whose fan points at the other (the far corner), else the one
            # of the longer chain
            i_points = _points_at(centres, outward, degree, i, j)
            j_points = _points_at(centres, outward, degree, j, i)
            if i_points != j_points:
                first, second = (i, j) if i_points else (j, i)
            elif (upright := _upright_in_chain(up, chain_of, i, j)) is not None:
                first, second = (i, j) if upright == i else (j, i)
            else:
                first, second = (j, i) if chain_len[j] > chain_len[i] else (i, j)
            pieces.append((first, second))
    return pieces


def _upright_in_chain(up: np.ndarray | None, chain_of: np.ndarray, i: int, j: int) -> int | None:
    """Of a card's two corners ``i`` and ``j``, each ending a fan, the one read the same way up
    as the rest of its fan, when the other is read about half a turn from the rest of its own:
    a meld's corners all face one way, and a card's far corner, printed upside down, can
    continue the next meld's fan. None when the angles do not say. (Before session 15 the longer
    fan took the card. Measured with gap places no longer read as jokers, `vision/gaps.py`: card
    melds read exactly `syn_cards` 125 -> 126 of 215, `syn_cards3` 325 -> 330 of 477, `test_cards`
    431 -> 431 of 626; the real fans, as taken, turned and framed, read the same.)"""
    if up is None:
        return None
    off = []
    for k in (i, j):
        others = [float(up[m]) for m in np.flatnonzero(chain_of == chain_of[k]) if m != k]
        mean, agreement = mean_angle(others)
        if not (math.isfinite(mean) and math.isfinite(float(up[k]))) or agreement < MIN_AGREEMENT:
            return None
        turn = (float(up[k]) - mean + math.pi) % (2 * math.pi) - math.pi
        off.append(abs(math.degrees(turn)))
    if off[0] <= UPRIGHT_TOL_DEG < 180 - UPRIGHT_TOL_DEG <= off[1]:
        return i
    if off[1] <= UPRIGHT_TOL_DEG < 180 - UPRIGHT_TOL_DEG <= off[0]:
        return j
    return None


SAME_WAY_DEG = 30.0
"""Two same-code corners read within this of the same way up are two cards, never one card's
two indexes (printed half a turn apart), whatever their places say (session 20). Two decks put
two identical cards in neighbouring melds, where one may lie at the other's diagonal and end its
fan, as a card's far corner would. Cached readings, melds read exactly (`syn_cards`,
`syn_cards3` val, `test_cards`, `test_cards_12mp`): 135 / 343 / 447 / 500 -> 135 / 345 / 451 /
504 at 30 degrees (60 and 90: the same melds, card F1 0.0001-0.0004 lower); the real fans as
taken and turned read the same cards."""


def _same_way(up: np.ndarray | None, codes: Sequence[str], i: int, j: int) -> bool:
    """Whether corners ``i`` and ``j`` are read the same way up (:data:`SAME_WAY_DEG`); a
    joker's read way up is not trusted."""
    if up is None or codes[i] in JOKER_UP_UNKNOWN:
        return False
    a, b = float(up[i]), float(up[j])
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    turn = (a - b + math.pi) % (2 * math.pi) - math.pi
    return abs(math.degrees(turn)) < SAME_WAY_DEG


def _diagonal_pair(centres: np.ndarray, up: np.ndarray | None, i: int, j: int) -> bool:
    """Whether the up angles make corners ``i`` and ``j`` one card's two indexes."""
    if up is None or not (math.isfinite(float(up[i])) and math.isfinite(float(up[j]))):
        return False
    turn = (float(up[i]) - float(up[j]) - math.pi + math.pi) % (2 * math.pi) - math.pi
    if abs(math.degrees(turn)) > OPPOSITE_TOL_DEG:
        return False
    lo, hi = DIAGONAL_DEG
    for a, b in ((i, j), (j, i)):
        vx, vy = (centres[b] - centres[a]).tolist()
        c, s = math.cos(float(up[a])), math.sin(float(up[a]))
        bearing = math.degrees(math.atan2(-s * vx + c * vy, c * vx + s * vy))
        if not lo <= bearing <= hi:
            return False
    return True


def _beyond_end(
    centres: np.ndarray, outward: np.ndarray, degree: np.ndarray, i: int, j: int
) -> bool:
    """Whether one corner lies beyond the end of the other's fan (where a card's far corner
    lies), rather than beside it (where the same card of another meld would lie)."""
    if degree[i] == 0 and degree[j] == 0:
        return True
    return _points_at(centres, outward, degree, i, j) or _points_at(centres, outward, degree, j, i)


def _points_at(
    centres: np.ndarray, outward: np.ndarray, degree: np.ndarray, a: int, b: int
) -> bool:
    """Whether ``a`` ends a fan that continues towards ``b``."""
    if degree[a] != 1:
        return False
    v = centres[b] - centres[a]
    return float(v @ outward[a]) >= BEYOND_COS * float(np.linalg.norm(v))


def up_unknown(code: str, is_tile: bool) -> bool:
    """Whether a piece's read up angle is left out of the pile and hand tests."""
    return code in JOKER_UP_UNKNOWN or (bool(is_tile) and code[1:] in TILE_UP_UNKNOWN)


def card_jokers(codes: Sequence[str], is_tile: np.ndarray) -> np.ndarray:
    """Which pieces are card jokers (their boxes centre off their meld's line)."""
    jokers = np.array([c == JOKER_CODE for c in codes], bool)
    return np.asarray(jokers & ~np.asarray(is_tile, bool), bool)


def chains(
    centres: np.ndarray,
    sizes: np.ndarray,
    is_tile: np.ndarray,
    off_line: np.ndarray | None = None,
    up: np.ndarray | None = None,
) -> list[list[int]]:
    """Ordered chains of nearly collinear neighbours (every index in exactly one chain); a chain
    may turn up to ``JOKER_TURN_DEG`` where an ``off_line`` piece (a card joker) is one of the
    three pieces the turn is measured on. Two cards whose read ``up`` angles (radians, NaN where
    unknown) lie more than ``LINK_FACING_DEG`` apart are not linked, unless one is ``off_line``."""
    n = len(centres)
    if n == 0:
        return []
    dist = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    same_kind = is_tile[:, None] == is_tile[None]
    local = local_spacing(dist, same_kind, sizes)
    scale = np.minimum(local[:, None], local[None])
    link = np.where(is_tile[:, None] & is_tile[None], TILE_LINK, CARD_LINK)
    close = dist < link * scale
    both_tiles = is_tile[:, None] & is_tile[None]
    side = sizes.max(axis=1)
    close |= both_tiles & (dist < TILE_SIZE_LINK * np.minimum(side[:, None], side[None]))
    ii, jj = np.nonzero(np.triu(close & same_kind, 1))
    order = np.argsort(dist[ii, jj] / scale[ii, jj], kind="stable")
    neighbours: list[list[int]] = [[] for _ in range(n)]
    roots = _Roots(n)

    strict = float(np.cos(np.radians(180 - MAX_TURN_DEG)))
    lenient = float(np.cos(np.radians(180 - JOKER_TURN_DEG)))
    off_line = np.zeros(n, bool) if off_line is None else np.asarray(off_line, bool)
    facing_apart = np.zeros((n, n), bool)
    if up is not None:
        angle = np.where(off_line | is_tile, np.nan, up)
        apart = np.abs(np.remainder(angle[:, None] - angle[None] + np.pi, 2 * np.pi) - np.pi)
        facing_apart = np.nan_to_num(apart, nan=0.0) > np.radians(LINK_FACING_DEG)

    joker = off_line.tolist()  # (plain lists: read once per candidate link below)
    points = centres.tolist()

    def cos_max(at: int, to: int) -> float:
        """The turn allowed at ``at`` between ``to`` and its link so far: lenient when a joker
        is one of the three (its centre skews the angle wherever it stands)."""
        if joker[at] or joker[to] or any(joker[m] for m in neighbours[at]):
            return lenient
        return strict

    for i, j, apart_ij in zip(
        ii[order].tolist(), jj[order].tolist(), facing_apart[ii, jj][order].tolist(), strict=True
    ):
        if len(neighbours[i]) >= 2 or len(neighbours[j]) >= 2 or roots.find(i) == roots.find(j):
            continue
        if apart_ij:
            continue
        if not (_straight(points, i, j, neighbours[i], cos_max(i, j))):
            continue
        if not (_straight(points, j, i, neighbours[j], cos_max(j, i))):
            continue
        neighbours[i].append(j)
        neighbours[j].append(i)
        roots.union(j, i)
    seen = [False] * n
    out: list[list[int]] = []
    for start in range(n):
        if seen[start] or len(neighbours[start]) == 2:
            continue
        chain, prev, cur = [], -1, start
        while cur >= 0 and not seen[cur]:
            seen[cur] = True
            chain.append(cur)
            nxt = [m for m in neighbours[cur] if m != prev]
            prev, cur = cur, (nxt[0] if nxt else -1)
        out.append(chain)
    return out


def local_spacing(dist: np.ndarray, same_kind: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Per piece, the typical distance between neighbours around it: the median, over its
    ``NEIGHBOURHOOD`` nearest pieces of its kind, of their nearest-neighbour distance (pieces in
    a meld touch or overlap by a fixed step, so this is the step of the melds there)."""
    n = len(dist)
    d = np.where(same_kind & ~np.eye(n, dtype=bool), dist, np.inf)
    nearest = d.min(axis=1)
    fallback = sizes.max(axis=1)
    nearest = np.where(np.isfinite(nearest), nearest, fallback)
    k = min(NEIGHBOURHOOD, n)
    around = np.argsort(np.where(same_kind, dist, np.inf), axis=1)[:, :k]
    return np.asarray(np.median(nearest[around], axis=1))


def _straight(
    points: Sequence[Sequence[float]], at: int, to: int, others: list[int], cos_max: float
) -> bool:
    """Whether the link at->to continues the link others[0]->at without a sharp turn
    (``points``: each piece's centre)."""
    if not others:
        return True
    x, y = points[at]
    ax, ay = points[to]
    bx, by = points[others[0]]
    ax, ay, bx, by = ax - x, ay - y, bx - x, by - y
    cos: float = (ax * bx + ay * by) / (math.hypot(ax, ay) * math.hypot(bx, by) + 1e-9)
    return cos <= cos_max


def group(
    centres: np.ndarray,
    sizes: np.ndarray,
    codes: Sequence[str],
    is_tile: np.ndarray,
    up: np.ndarray | None = None,
    faces: np.ndarray | None = None,
    confidence: np.ndarray | None = None,
) -> Grouping:
    """Physical pieces and ordered melds of one photo's detections (``up``: each box's read
    up angle in radians, NaN where unknown; it helps tell a card's two corners from two cards,
    and keeps apart cards facing opposite ways; ``faces``: each box's face probabilities, by
    which a card's two corners read differently may still be merged; ``confidence``: each box's
    detector confidence, by which two identical cards side by side are told from one index boxed
    twice, :func:`twins`)."""
    if len(codes) == 0:
        return Grouping((), (), ())
    boxes_of = twins(centres, sizes, codes, is_tile, up, confidence)
    first = np.array([b[0] for b in boxes_of])
    pieces = [
        tuple(i for k in piece for i in boxes_of[k])  # shown box first, then its twins
        for piece in merge_corners(
            centres[first],
            sizes[first],
            [codes[i] for i in first],
            is_tile[first],
            None if up is None else up[first],
            None if faces is None else faces[first],
        )
    ]
    if not pieces:
        return Grouping((), (), ())
    pieces = chain_twins(pieces, centres, sizes, codes, is_tile, up)
    shown = np.array([p[0] for p in pieces])
    if up is not None:
        # a joker's or a tile 6's read way up is too often wrong to make its chain a pile
        unknown = [up_unknown(c, t) for c, t in zip(codes, is_tile, strict=True)]
        up = np.where(unknown, np.nan, up)
    melds: list[tuple[int, ...]] = []
    hands: list[tuple[int, ...]] = []
    unassigned: list[int] = []
    jokers = card_jokers([codes[i] for i in shown], is_tile[shown])
    shown_up = None if up is None else up[shown]
    for chain in chains(centres[shown], sizes[shown], is_tile[shown], jokers, shown_up):
        cards = not is_tile[shown[chain[0]]]
        if cards and is_hand(centres[shown[chain]], sizes[shown[chain]]):
            hands.append(tuple(chain))
            unassigned.extend(chain)
        elif up is not None and angle_spread(up[shown[chain]]) > PILE_SPREAD_DEG:
            if (k := facing_split(up[shown[chain]])) is not None:
                melds.extend((tuple(chain[:k]), tuple(chain[k:])))
                continue
            kept = trim_to_neat(chain, up[shown[chain]])
            if kept is None:
                unassigned.extend(chain)
            else:
                melds.append(tuple(chain[kept]))
                unassigned.extend(chain[: kept.start] + chain[kept.stop :])
        elif cards and up is not None and turns_like_a_hand(up[shown[chain]]):
            hands.append(tuple(chain))
            unassigned.extend(chain)
        elif len(chain) >= MIN_MELD:
            melds.append(tuple(chain))
        else:
            unassigned.extend(chain)
    pieces, melds, unassigned, hands = gather_jokers(
        pieces, melds, unassigned, hands, centres, jokers
    )
    shown = np.array([p[0] for p in pieces])
    melds.sort(key=lambda m: (centres[shown[m[0]], 1], centres[shown[m[0]], 0]))
    return Grouping(tuple(pieces), tuple(melds), tuple(sorted(unassigned)), tuple(hands))


def gather_jokers(
    pieces: list[tuple[int, ...]],
    melds: list[tuple[int, ...]],
    unassigned: list[int],
    hands: list[tuple[int, ...]],
    centres: np.ndarray,
    jokers: np.ndarray,
) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[int], list[tuple[int, ...]]]:
    """One joker card boxed several times: a card joker shows its mark in several places (a
    star or a face in each corner, "JOKER" down its edge) and the detector may box each. Such
    boxes lie closer to one another than to any meld and chain among themselves into a "meld" of
    jokers alone, which no meld is (one wild at most, ``RULES.md``): such a chain is one card.
    That card joins a meld when one of its boxes lies where the meld's next card would show its
    index, one step past an end (within ``JOKER_ATTACH`` of a step; nearest first), and is
    unassigned otherwise.

    ``pieces`` (detection indexes, shown first), ``melds``, ``unassigned`` and ``hands`` index
    as :func:`group` returns them; ``jokers`` says which pieces are card jokers. Returns the
    four anew."""
    gathered = [m for m in melds if len(m) > 1 and all(jokers[i] for i in m)]
    if not gathered:
        return pieces, melds, unassigned, hands
    melds = [m for m in melds if m not in gathered]
    loose = [tuple(b for i in m for b in pieces[i]) for m in gathered]
    dropped = {i for m in gathered for i in m}
    # where each meld's next index would lie, one step past each end
    ends = []
    for k, m in enumerate(melds):
        if len(m) < 2 or any(jokers[i] for i in m[:1] + m[-1:]):
            continue
        for end, inner in ((0, 1), (-1, -2)):
            at = centres[pieces[m[end]][0]]
            step = at - centres[pieces[m[inner]][0]]
            if (length := float(np.hypot(*step))) > 0:
                ends.append((k, end, at + step, length))
    offers = []
    for j, boxes in enumerate(loose):
        for k, end, want, step in ends:
            for b in boxes:
                d = float(np.hypot(*(centres[b] - want))) / step
                if d < JOKER_ATTACH:
                    offers.append((d, j, k, end, b))
    taken_piece: dict[int, tuple[int, int, int]] = {}
    taken_end: set[tuple[int, int]] = set()
    for _d, j, k, end, b in sorted(offers):
        if j in taken_piece or (k, end) in taken_end:
            continue
        taken_piece[j] = (k, end, b)
        taken_end.add((k, end))
    keep = [i for i in range(len(pieces)) if i not in dropped]
    new_index = {old: new for new, old in enumerate(keep)}
    out_pieces = [pieces[i] for i in keep]
    out_melds = [tuple(new_index[i] for i in m) for m in melds]
    out_unassigned = [new_index[i] for i in unassigned if i not in dropped]
    out_hands = [tuple(new_index[i] for i in h) for h in hands]
    for j, boxes in enumerate(loose):
        new = len(out_pieces)
        if j not in taken_piece:
            out_pieces.append(boxes)
            out_unassigned.append(new)
            continue
        k, end, b = taken_piece[j]
        out_pieces.append((b, *(x for x in boxes if x != b)))  # shown where its index lies
        out_melds[k] = (new, *out_melds[k]) if end == 0 else (*out_melds[k], new)
    return out_pieces, out_melds, out_unassigned, out_hands


def join_at_jokers(
    g: Grouping, centres: np.ndarray, codes: Sequence[str], is_tile: np.ndarray
) -> Grouping:
    """``g``'s melds joined where two meet at a card joker (step 9): the joker's box, its
    "JOKER" strip down the card's edge, centres off the line of its meld's indexes, so a meld
    with a joker inside can chain as two, the joker ending one of them. Two melds (of two
    pieces or more) are one when the piece ending one and the piece beginning the other, one of
    them a card joker, lie at most ``JOKER_JOIN_STEP`` of the melds' median step apart, the two
    run the same way (``JOKER_JOIN_COS``) and the second lies beyond the first's start; a meld
    so joined may join another. Whether the whole reads valid is not asked: a joker
    laid where no card is missing makes one meld laid wrong, which is the player's to hear.
    ``centres`` are the detections'; ``codes`` and ``is_tile`` theirs too."""
    if len(g.melds) < 2:
        return g
    shown = np.array([p[0] for p in g.pieces], np.int64)
    jokers = card_jokers([codes[i] for i in shown], is_tile[shown])
    at = centres[shown].astype(np.float64)
    melds = list(g.melds)

    def longest(m: tuple[int, ...]) -> float:
        """The longest step between neighbours of meld ``m``."""
        return max(math.dist(at[i], at[j]) for i, j in itertools.pairwise(m))

    def joined(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
        """``a`` then ``b`` as one meld, in either's direction, if they meet at a joker."""
        reach = JOKER_JOIN_STEP * max(longest(a), longest(b))
        for first in (a, a[::-1]):
            for second in (b, b[::-1]):
                if not (jokers[first[-1]] or jokers[second[0]]):
                    continue
                gap = math.dist(at[second[0]], at[first[-1]])
                if gap > reach:
                    continue  # the median of their steps and the gap is no longer than that
                pts = at[list(first + second)]
                steps = np.linalg.norm(np.diff(pts, axis=0), axis=1)
                if gap > JOKER_JOIN_STEP * float(np.median(steps)):
                    continue
                da, db = at[first[-1]] - at[first[0]], at[second[-1]] - at[second[0]]
                cos = float(da @ db) / (float(np.linalg.norm(da) * np.linalg.norm(db)) + 1e-9)
                if cos >= JOKER_JOIN_COS and float((at[second[0]] - at[first[0]]) @ (da + db)) > 0:
                    return first + second
        return None

    found = True
    while found:
        found = False
        ends = [k for k, m in enumerate(melds) if len(m) >= 2 and (jokers[m[0]] or jokers[m[-1]])]
        pairs = ((k, o) for k in ends for o in range(len(melds)) if o != k and len(melds[o]) >= 2)
        for a, b in (sorted(pair) for pair in pairs):
            if (whole := joined(melds[a], melds[b]) or joined(melds[b], melds[a])) is not None:
                melds[a] = whole
                del melds[b]
                found = True
                break
    return replace(g, melds=tuple(melds))


JOKER_MARKS_TURN = 40.0
"""Two card jokers ending a meld are one card seen by two of its marks when the step between
them turns more than this many degrees off the step before (:func:`joker_marks_at_ends`)."""


def joker_marks_at_ends(
    g: Grouping, centres: np.ndarray, codes: Sequence[str], is_tile: np.ndarray
) -> Grouping:
    """``g`` with the two card jokers that end a meld taken for one card where the last step
    turns off the meld's line (more than :data:`JOKER_MARKS_TURN` degrees): a joker under the
    meld's other cards shows the top of its corner mark and the top of the mark down its far
    edge, which the detector boxes apart and the grouping had chained on as a second joker
    (`syn_cards3` val 000569: 2C QD KD JK JK, the last step 42 degrees off the column). A meld's
    indexes lie in a line, and a second joker laid after the first would carry it on. The end
    piece's boxes join its neighbour's, which stays the piece shown.

    Session 51, cached readings, melds read exactly: the five development card sets 2,272 ->
    2,274 (the two such melds there; 30 degrees 2,273, 60 none), held out `test_cards` 571 ->
    572 and `test_cards_12mp` 622 -> 623, the held-out decks the same. Of the 53 pairs of
    jokers side by side in those scanned melds, 2 were one card by the truth, at 42 and 47
    degrees; of the other 51, one turns more (49 degrees, on no labelled joker).
    ``centres``, ``codes`` and ``is_tile`` are the detections'."""
    shown = np.array([p[0] for p in g.pieces], np.int64)
    if not len(shown):
        return g
    jokers = card_jokers([codes[i] for i in shown], is_tile[shown])
    at = centres[shown].astype(np.float64)
    least = math.cos(math.radians(JOKER_MARKS_TURN))
    into: dict[int, int] = {}  # an end joker -> the joker it is one card with
    melds = []
    for meld in g.melds:
        m = list(meld)
        for first in (True, False):
            if len(m) < 3:  # the turn wants a step before the two jokers'
                break
            a, b, c = m[:3] if first else m[:-4:-1]
            if not (jokers[a] and jokers[b]):
                continue
            last, before = at[a] - at[b], at[b] - at[c]
            norms = float(np.linalg.norm(last) * np.linalg.norm(before))
            if norms > 0 and float(last @ before) / norms < least:
                into[a] = b
                m.remove(a)
        melds.append(tuple(m))
    if not into:
        return g
    pieces = list(g.pieces)
    for a, b in into.items():
        pieces[b] = (*pieces[b], *pieces[a])
    keep = [i for i in range(len(pieces)) if i not in into]
    new = {old: k for k, old in enumerate(keep)}
    return Grouping(
        tuple(pieces[i] for i in keep),
        tuple(tuple(new[i] for i in m) for m in melds),
        tuple(new[i] for i in g.unassigned),
        tuple(tuple(new[i] for i in h) for h in g.hands),
    )


def chain_twins(
    pieces: Sequence[tuple[int, ...]],
    centres: np.ndarray,
    sizes: np.ndarray,
    codes: Sequence[str],
    is_tile: np.ndarray,
    up: np.ndarray | None = None,
) -> list[tuple[int, ...]]:
    """``pieces`` (detection indexes, shown box first) with the twins that :func:`twins` left
    apart merged: two neighbouring card corners in a chain of at least ``CHAIN_TWIN_MIN``
    pieces, read as one code, that lie closer than ``CHAIN_TWIN_STEP`` of the chain's median
    step are one index boxed twice; two identical cards of two decks side by side in one meld
    lie a whole step apart like any other two. The merged piece keeps the boxes of both, the
    first piece's shown. Tiles are left alone (:func:`twins`).

    Session 17, on the scanner's melds of the card scenes (`chk_cards`, 200 scenes of seed 707
    made for choosing; `syn_cards`, `syn_cards3` val; cached readings): of 171 pairs of one code
    side by side in a chain of 3 or more, the 9 closer than 0.67 steps were all one corner boxed
    twice (0.49-0.65 steps, 0.77-0.96 box sizes apart: :data:`TWIN_NEAR` is 0.8); the closest
    two cards lay 0.71 steps apart. Melds read exactly `chk_cards` 397 -> 399 of 575 (0.55:
    398, 0.75: 399, 0.85: 397); tiles, where such pairs are few, gained nothing at 0.67-0.9."""
    if len(pieces) < CHAIN_TWIN_MIN:
        return list(pieces)
    shown = np.array([p[0] for p in pieces])
    jokers = card_jokers([codes[i] for i in shown], is_tile[shown])
    shown_up = None if up is None else up[shown]
    joined = _Roots(len(pieces))
    for chain in chains(centres[shown], sizes[shown], is_tile[shown], jokers, shown_up):
        if len(chain) < CHAIN_TWIN_MIN or is_tile[shown[chain[0]]]:
            continue
        steps = np.linalg.norm(np.diff(centres[shown[chain]], axis=0), axis=1)
        short = np.flatnonzero(steps < CHAIN_TWIN_STEP * float(np.median(steps)))
        taken: set[int] = set()
        for k in sorted(short.tolist(), key=lambda k: steps[k]):  # the closest pair first
            a, b = chain[k], chain[k + 1]
            if codes[shown[a]] == codes[shown[b]] and not taken & {a, b}:
                # once each: a twin box between two identical cards lies half a step from both
                taken |= {a, b}
                joined.union(min(a, b), max(a, b))
    merged: dict[int, list[int]] = {}
    for k in range(len(pieces)):
        merged.setdefault(joined.find(k), []).extend(pieces[k])
    return [tuple(boxes) for _, boxes in sorted(merged.items())]


def facing_split(angles: np.ndarray) -> int | None:
    """Two melds laid end to end in one line for two sides of the table: where a chain whose
    read up angles spread parts into two neat melds (each at least ``TRIM_MIN`` pieces, spread
    at most ``PILE_SPREAD_DEG``) whose mean angles lie ``SPLIT_TURN_DEG`` or more apart; the
    position ``k`` (parts ``[:k]``, ``[k:]``), or None."""
    for k in range(TRIM_MIN, len(angles) - TRIM_MIN + 1):
        parts = (angles[:k], angles[k:])
        if any(angle_spread(part) > PILE_SPREAD_DEG for part in parts):
            continue
        means = [mean_angle(part.tolist())[0] for part in parts]
        if _off(means[0], means[1]) >= math.radians(SPLIT_TURN_DEG):
            return k
    return None


def trim_to_neat(chain: list[int], angles: np.ndarray) -> slice | None:
    """A chain that spreads as a pile may be a meld that ran on into a pile or a stray piece at
    one end: take pieces off its ends (the one further from the chain's mean angle first), at
    most ``TRIM_SHARE`` of them, until what is left lies neatly. The slice of ``chain`` left,
    if it holds at least ``TRIM_MIN`` pieces; None for a pile."""
    lo, hi = 0, len(chain)
    most = int(len(chain) * TRIM_SHARE)
    while hi - lo >= TRIM_MIN and len(chain) - (hi - lo) < most:
        mean, _ = mean_angle(angles[lo:hi].tolist())
        off = [_off(float(angles[k]), mean) for k in (lo, hi - 1)]
        if off[0] >= off[1]:
            lo += 1
        else:
            hi -= 1
        if hi - lo >= TRIM_MIN and angle_spread(angles[lo:hi]) <= PILE_SPREAD_DEG:
            return slice(lo, hi)
    return None


def _off(angle: float, mean: float) -> float:
    """How far ``angle`` lies from ``mean`` (radians, 0..pi; 0 when either is unknown)."""
    if not (math.isfinite(angle) and math.isfinite(mean)):
        return 0.0
    return abs(math.remainder(angle - mean, 2 * math.pi))


def turns_like_a_hand(angles: np.ndarray) -> bool:
    """Whether the read up angles of a chain's cards (in chain order; unread ones skipped) turn
    from one end to the other by more than ``HAND_UP_TURN_DEG`` (a straight line fitted to
    them) and card by card (the median step turns that way by at least ``HAND_UP_STEP_DEG``),
    as the cards of a hand held in a fan do; a meld's cards all lie one way, and one misread
    angle at a meld's end does not make its steps turn."""
    a = angles[np.isfinite(angles)].astype(np.float64)
    if len(a) < HAND_UP_MIN:
        return False
    a = np.unwrap(a)
    slope = float(np.polyfit(np.arange(len(a)), a, 1)[0])
    if abs(math.degrees(slope * (len(a) - 1))) <= HAND_UP_TURN_DEG:
        return False
    return bool(math.degrees(float(np.median(np.diff(a) * np.sign(slope)))) >= HAND_UP_STEP_DEG)


def angle_spread(angles: np.ndarray) -> float:
    """Circular standard deviation in degrees of the finite ``angles`` (radians); 0 if < 2."""
    if int(np.isfinite(angles).sum()) < 2:
        return 0.0
    _, agreement = mean_angle(angles.tolist())
    return math.degrees(math.sqrt(max(0.0, -2.0 * math.log(max(agreement, 1e-12)))))


def askew_pair(up: np.ndarray, codes: Sequence[str], is_tile: np.ndarray) -> bool:
    """Whether two pieces (``up``: their read up angles in radians) lie more than
    ``PAIR_TURN_DEG`` (tiles: ``PAIR_TURN_DEG_TILES``) apart in their way up: two cards of a
    discard pile, not a meld's (step 8). A piece whose read way up is not trusted
    (:func:`up_unknown`) tells nothing."""
    known = [
        float(a)
        for a, code, tile in zip(up, codes, is_tile, strict=True)
        if math.isfinite(float(a)) and not up_unknown(code, bool(tile))
    ]
    if len(known) != 2:
        return False
    turn = math.degrees(_off(*known))
    return turn > (PAIR_TURN_DEG_TILES if all(is_tile) else PAIR_TURN_DEG)


def is_hand(centres: np.ndarray, sizes: np.ndarray) -> bool:
    """Whether a chain of card corners (in chain order) is a fanned hand rather than a meld."""
    if len(centres) < HAND_MIN:
        return False
    first, last = centres[1] - centres[0], centres[-1] - centres[-2]
    cos = float(first @ last) / (float(np.linalg.norm(first) * np.linalg.norm(last)) + 1e-9)
    turn = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    aspect = sizes[:, 0] / np.maximum(sizes[:, 1], 1e-6)
    shape_cv = float(aspect.std() / max(float(aspect.mean()), 1e-6))
    return bool(turn > HAND_TURN_DEG and shape_cv > HAND_SHAPE_CV)


def _row_axis(centres: np.ndarray) -> np.ndarray:
    """The unit direction a row of piece centres runs along (its principal axis)."""
    _, _, vt = np.linalg.svd(centres - centres.mean(axis=0), full_matrices=False)
    axis: np.ndarray = vt[0]
    return axis


def tier_gap(centres: np.ndarray, sizes: np.ndarray, a: Sequence[int], b: Sequence[int]) -> float:
    """How far apart rows ``a`` and ``b`` (indexes into ``centres``, ``sizes``: box width and
    height) lie across their direction, in their pieces' extent across it; infinite unless they
    run side by side: parallel, and overlapping along their direction."""
    if len(a) < 2 or len(b) < 2:
        return math.inf
    ca, cb = centres[list(a)], centres[list(b)]
    ua, ub = _row_axis(ca), _row_axis(cb)
    cos = float(ua @ ub)
    if abs(cos) < math.cos(math.radians(RACK_PARALLEL_DEG)):
        return math.inf
    u = ua + math.copysign(1.0, cos) * ub
    u = u / np.linalg.norm(u)
    normal = np.array([-u[1], u[0]])
    along_a, along_b = ca @ u, cb @ u
    if min(along_a.max(), along_b.max()) <= max(along_a.min(), along_b.min()):
        return math.inf
    extent = float(np.median(sizes[[*a, *b]] @ np.abs(normal)))
    return abs(float((ca.mean(axis=0) - cb.mean(axis=0)) @ normal)) / max(extent, 1e-9)


def rack_tiers(
    centres: np.ndarray, sizes: np.ndarray, rows: Sequence[Sequence[int]]
) -> list[tuple[int, ...]]:
    """The ``rows`` (invalid melds) that lie as the two tiers of a rack: each beside another of
    them, closer than ``RACK_TIER`` pieces' extents across their direction."""
    tiers: set[int] = set()
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            if tier_gap(centres, sizes, rows[i], rows[j]) < RACK_TIER:
                tiers |= {i, j}
    return [tuple(rows[i]) for i in sorted(tiers)]
