"""Game knowledge: a meld that reads invalid may hold a misread piece.

Each piece comes with its classifier's probabilities. When a meld's most likely reading is not
a valid meld, the doubtful pieces (second choice at least as likely as the kind's
:data:`REACH` says) are tried with their next likeliest faces, up to ``MAX_CHANGES`` at once;
the valid reading of highest joint probability wins if it costs no more than the reach allows in
log-probability. A run 5H 6H ?H 8H whose third piece reads 7D (0.55) or 7H (0.40) thus reads
7H. A run read half in one suit and half in its twin (clubs and spades) may need more changes:
it is also read in one suit (:func:`_one_suit`). Pieces whose final reading stays below
``SURE`` are reported as uncertain, never silently guessed.

Two melds laid end to end in one row can come out of grouping as one chain. A chain that reads
invalid is split where its pieces lie at least ``SPLIT_GAP`` times further apart than its
median step, if every part then reads valid (:func:`read_chain`); an evenly laid invalid meld,
the kind a player photographs to settle a dispute, is not split. Session 8, synthetic tile val
scenes, melds read exactly (`syn_tiles`, `syn_tiles2`): never split 81, 66 of 93, 81; 1.2 and
1.15: 82, 66; 1.1: 84, 65 (a joker out of place, R6 R7 JK R8 R9 R10, laid 1.12 steps apart,
split into two valid melds); 1.25 and above: 81, 66. Steps within one scanned row vary by about a
tenth, so a gap a fifth wider is the least that says two melds. Card melds did not move. Session
22 took the gap to 1.15 and, in a row of tiles, splits a valid meld off a flawed one laid end to
end (``SPLIT_OFF_MIN``), and parts that could never be one meld at a narrower step
(``UNRELATED_GAP``).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scorer import (
    Colour,
    MeldcamError,
    MeldKind,
    PieceKind,
    Rules,
    Tile,
    Verdict,
    parse_piece,
    validate_meld,
)
from vision.classes import ALL_FACES, NUMBERS
from vision.classes import PieceKind as FaceKind

MAX_CHANGES = 3
"""Session 15 (``MAX_CHANGES`` 2 -> 3, on the same readings): melds read exactly, val scenes
607 -> 609 of 860, test scenes 862 -> 865 of 1,100 (cards 425 -> 428, tiles unchanged), real
tiles unchanged; invalid melds made by swapping one piece of a read meld for a piece read
elsewhere and called valid after repair: 40 -> 40 of 1,756 (cards), 13 -> 13 of 664 (tiles).
Reading the 4th and 5th likeliest faces too (``TOP_K`` 5) read 4 more test card melds and one
tile meld fewer, and called 65 and 17 of those invalid melds valid: not taken (cards read five
since session 50, measured on the melds the generator lays flawed: :data:`REACH`)."""
THREE_AMONG = 8
"""Three pieces are changed together only among the meld's 8 most doubtful ones (by their
second choice's probability): a row of 20 doubtful pieces took 4.5 s with every triple tried,
0.6 s so (0.4 s with two changes at most). On the 777 val and test scenes grouping and judging
took 8.6 -> 9.1 ms a photo on average, 105 -> 190 ms at worst."""


@dataclass(frozen=True, slots=True)
class Reach:
    """How far a repair reaches into a piece's less likely faces, for one kind of piece."""

    doubt: float
    """A piece whose second face is at least this likely is doubtful: it may be read again."""
    faces: int
    """A doubtful piece may be read as any of its likeliest ``faces`` faces (the first too)..."""
    cost: float
    """...where the reading costs at most this in log-probability, all changes together."""


REACH = {PieceKind.CARDS: Reach(0.02, 5, 5.0), PieceKind.TILES: Reach(0.03, 3, 4.0)}
"""How far a repair reaches, by kind. Cards since session 50: the changed faces at least e^-5,
about 1/150, times as likely as those read, from a piece's five likeliest faces (0.03, three
and e^-4, 1/55, before, as tiles still are).

Chosen on cached readings of the five development card sets (`dev_cards`, `dev_cards_12mp`,
`dev_decks`, `syn_cards` and `syn_cards3` val; `runs/repsweep50.py`, gitignored). The card
classifier's misread small corners often hold the true face fourth or fifth, or second at
0.02-0.03 (4H 5H 6H 7H 8H 9H with the 8H read KH 0.64, 8H 0.02). Melds read exactly 2,238 ->
2,257 of 2,779 (22 gained, every one a misread mended; 2 lost, both laid flawed: JD QD AD read
AD QD KD), `dev_decks` 423 -> 426; of the 2,019 melds laid valid, those a scanned meld on them
calls invalid 145 -> 122; of the 760 laid flawed, those called valid 45 -> 49. Other settings
(melds; flawed called valid): five faces alone 2,246 (46); the cost 5 alone 2,245 (47); ten
faces 2,250 (51); cost 6, 2,243-2,245 (65-69), the flawed melds' pieces read as they were laid
giving way. Held out (read after the choice): `test_cards` 569 -> 570 of 696, `test_cards_12mp`
611 -> 618 of 707, `test_decks` 452 -> 455 of 600, `test_decks_12mp` 499 -> 498 of 620; flawed
melds called valid 48 -> 53 of 737, valid melds called invalid 134 -> 116 of 1,886.

Tiles read near enough surely that the bolder reach gains them nothing: `dev_tiles` and
`dev_tiles_12mp` read the same melds at 0.02 and five faces (1,494 of 1,519) and one fewer at
cost 5 (B7 B8 B9 B10 B11 JK B12, a joker laid out of place, read B13 JK B11 ... as a valid
run); held out at 0.02 and five faces, `test_tiles_12mp` one meld more and `test_tile_fonts`
one fewer, and 3 more flawed melds called valid. They keep the reach they had."""
TOP_K = max(reach.faces for reach in REACH.values())
"""How many of its likeliest faces a piece's reading keeps (:class:`Choice`)."""
THREE_FACES = 3
"""Where three pieces change at once, each is read only as its second or third face: with five
each, a row of doubtful cards took up to 0.9 s to judge (on the development card sets, photos
whose judging took over 0.1 s 17 -> 25, and one meld more)."""
SURE = 0.6
JOKER_GAPS_KEPT = True
"""A row of cards is never split at a step beside a card joker (session 39): the joker's box,
its "JOKER" strip down the card's edge, centres off the line of the meld's indexes, so the steps
on either side of it read wide where no gap lies, and a meld with a joker laid inside, out of
its place (8D 7D 2D JK 4D 3D), had come apart into two valid melds. Cached readings, melds read
exactly, with :func:`vision.grouping.join_at_jokers`: `dev_cards_12mp` 568 -> 569 of 649, the
other development sets the same; 300 card tables made for the check 770 -> 772 of 934 (771 with
this alone); held out `test_cards`, `test_decks` and `test_decks_12mp` one more each, no set
fewer."""
SPLIT_GAP = 1.15
SPLIT_OFF_MIN = 3
"""Where no split makes every part of a row of tiles valid, a valid meld is split off one end
at the widest gap if what is left is at least this many tiles, judged invalid on its own
(:func:`_split_off`): a set of 5s laid end to end with a flawed row R9 R3 Y9 had made one
invalid chain of six, and both melds were lost. Session 22, cached readings, melds read exactly,
chosen on 300 tile scenes made for the analysis (`dev_tiles`, seed 1212): ``SPLIT_GAP`` 1.2 ->
1.15 alone 717 -> 719 of 758, with this split 724 (with parts of two tiles allowed 723: a run
missing its middle tile, Y7 Y8 Y9 _ Y11 Y12, came apart); the held-out `test_tiles` 442 -> 443
of 474, `test_tiles_12mp` 455 -> 461 of 488, the tile val sets unchanged. Card fans' steps vary
more than rows of tiles: split so, card melds fell (`test_cards` 456 -> 453 with the split off
at 1.15, 446 at 1.1), and the card gap at 1.15-1.3 reads the same melds."""
UNRELATED_GAP = 1.05
"""A row of tiles that reads invalid and splits at no gap of ``SPLIT_GAP`` is split in two at a
step at least this much wider than its median where both halves read valid and could never be
one meld (a set and a run, sets of two numbers, runs of two colours): B3 R3 Y3 laid 1.11 steps
from B4 B5 B6 B7 (:func:`_split_unrelated`). Steps within one meld vary by a tenth or more, so
the gap alone cannot tell two melds; a joker out of place (R6 R7 JK R8 R9 R10) splits into two
runs of one colour, which are not split so. Session 22, cached readings, melds read exactly
(`dev_tiles`, `dev_tiles_12mp`: the 300 analysis scenes at 1280 px and as a 12 MP phone takes
them): 726 / 726 -> 726 / 731 (1.1: 726 / 728; 1.0: 726 / 729; 0.9: 726 / 728); held out,
`test_tiles` 444 -> 446 of 474, `test_tiles_12mp` unchanged; tile melds the generator broke
on purpose called valid 135 of 707 -> 135 of 708. A valid half is split off a flawed one at
such a step too where the flawed half holds no tile of its colour (a run) or number (a set):
B5 B4 B3 beside Y5 Y4 Y3 Y6 Y2 Y1, a set of 8s beside Y7 Y9 R7 (`dev_tiles`, `dev_tiles_12mp`
726 / 731 -> 727 / 733, the held-out sets and the broken melds called valid unchanged)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One piece's candidate faces, likeliest first: ((code, probability), ...)."""

    options: tuple[tuple[str, float], ...]
    suits: tuple[tuple[str, float], ...] = ()
    """A card's likeliest rank in each of the four suits, with its probability (empty for a
    joker or a tile): what the piece reads if its meld says which suit it must have."""

    @property
    def best(self) -> str:
        return self.options[0][0]


@dataclass(frozen=True, slots=True)
class MeldReading:
    codes: tuple[str, ...]
    probabilities: tuple[float, ...]
    verdict: Verdict
    repaired: tuple[int, ...]
    """Positions (in the meld) whose reading was changed from the likeliest face."""


JUDGED = 4096
"""How many verdicts :func:`_verdict` keeps, by codes, rules and order. A scan judges the same
trial readings again and again (each chain read, then read again once the photo is grouped
again without a weak joker; a meld's changes tried from both of its readings): `bench/scan.py`'s
fan judged 86 distinct trials in 120 calls, the fan tiled 2x2 151 in 298 (session 52). A
verdict is immutable and depends on nothing else, so a kept one is the one judging would give:
the 1,110 photos of the five development card sets and `dev_tiles` (cached readings) assemble
to the same scans with verdicts kept or not. Assembling the two photos' readings 30 times each,
alternately, the kept verdicts dropped before each (as a new photo finds none of its own kept):
the fan 29.7 -> 27.4 ms, the tiled fan 39.8 -> 32.7 ms (medians)."""


def _verdict(codes: Sequence[str], rules: Rules, ordered: bool = True) -> Verdict | None:
    """The verdict on ``codes`` under ``rules`` (judged ``ordered`` as laid out, or in the best
    order), or None where a code is not a piece."""
    return _judged(tuple(codes), rules, ordered)


def forget_verdicts() -> None:
    """Drop the verdicts :func:`_verdict` keeps (a benchmark times judging afresh)."""
    _judged.cache_clear()


@functools.lru_cache(maxsize=JUDGED)
def _judged(codes: tuple[str, ...], rules: Rules, ordered: bool) -> Verdict | None:
    try:
        return validate_meld(list(codes), rules, ordered=ordered)
    except MeldcamError:
        return None


def read_meld(choices: Sequence[Choice], rules: Rules) -> MeldReading:
    """The best reading of a meld's pieces under ``rules``."""
    codes = [c.best for c in choices]
    probs = [c.options[0][1] for c in choices]
    first = _verdict(codes, rules)
    if first is not None and first.valid:
        return _natural(choices, MeldReading(tuple(codes), tuple(probs), first, ()), rules)
    best = _changes(choices, codes, probs, rules, ordered=True)
    if best is not None:
        _cost, trial, trial_p, verdict, where = best
        return _natural(
            choices, MeldReading(tuple(trial), tuple(trial_p), verdict, tuple(where)), rules
        )
    unordered = _unordered_reading(choices, codes, probs, rules)
    if unordered is not None:
        return unordered
    if first is None:
        first = validate_meld([], rules)
    return MeldReading(tuple(codes), tuple(probs), first, ())


UNORDERED_CHANGES = 2
"""A meld that no change of its doubtful pieces makes valid as laid out is read with the changes
(up to this many at once; 0: never) that make it valid in some order, if any, and judged as
laid out: JS 10S 2C 9S 8S 7C 6S 5S, the 7C read at 0.56 and 7S at 0.16, reads 7S and is called
out of order, where it had kept the 7C and been called a run of two suits. A player who lays a
run out of order still lays one suit. A meld that reads valid in some order as it is keeps its
reading, and no meld is called valid that was not: the verdict is still taken as laid out.

Session 26, cached readings of session 25's models, melds read exactly: chosen on `dev_cards`
516 -> 520 of 632 and `dev_tiles` 738 -> 738 of 758 (`dev_tiles_12mp` 737 -> 736). Costs of 2-4
read the same (1: a meld fewer), so the cost bound (4) is kept; 1, 2 or 3 changes at once read the
same. Grouping `dev_cards`' photos, timed while another evaluation shared the cores: 25 ms on
average and 0.5 s at worst before this search; with it, 21 ms and 0.6 s at 2 changes, 35 ms and
1.4 s at 3. Held out: `test_cards` 494 -> 495 of 626, `test_cards_12mp` 538 -> 543 of 645,
`test_tiles` 447 -> 449 of 474, `test_tiles_12mp` 471 -> 472 of 488, `dev_cards_12mp` 549 of 638
either way; val `syn_cards3` 376 -> 377, the other val sets' melds and the real photos the
same."""


def _unordered_reading(
    choices: Sequence[Choice], codes: list[str], probs: list[float], rules: Rules
) -> MeldReading | None:
    """The meld read with the changes (up to :data:`UNORDERED_CHANGES`) that make it valid in
    some order, judged as laid out; None where it is off, where the meld is valid in some order
    as read, or where no such change exists."""
    if UNORDERED_CHANGES <= 0:
        return None
    consistent = _verdict(codes, rules, ordered=False)
    if consistent is not None and consistent.valid:
        return None
    best = _changes(choices, codes, probs, rules, ordered=False, max_changes=UNORDERED_CHANGES)
    if best is None:
        return None
    _cost, trial, trial_p, _unordered, where = best
    laid = _verdict(trial, rules)  # judged as laid out: out of order
    return None if laid is None else MeldReading(tuple(trial), tuple(trial_p), laid, tuple(where))


def _changes(
    choices: Sequence[Choice],
    codes: list[str],
    probs: list[float],
    rules: Rules,
    ordered: bool,
    max_changes: int = MAX_CHANGES,
) -> tuple[float, list[str], list[float], Verdict, tuple[int, ...]] | None:
    """The likeliest reading valid under ``rules`` (as laid out, or in some order) that changes
    up to ``max_changes`` doubtful pieces, or reads the meld in one suit, within the kind's
    :data:`REACH`."""
    reach = REACH[rules.pieces]
    doubtful = [
        i for i, c in enumerate(choices) if len(c.options) > 1 and c.options[1][1] >= reach.doubt
    ]
    best: tuple[float, list[str], list[float], Verdict, tuple[int, ...]] | None = None
    for n in range(1, min(max_changes, len(doubtful)) + 1):
        if n >= 3:
            doubtful = sorted(doubtful, key=lambda i: -choices[i].options[1][1])[:THREE_AMONG]
            doubtful.sort()
        for where in itertools.combinations(doubtful, n):
            faces = reach.faces if n < 3 else min(reach.faces, THREE_FACES)
            alternatives = [choices[i].options[1:faces] for i in where]
            for picks in itertools.product(*alternatives):
                cost = sum(
                    math.log(max(choices[i].options[0][1], 1e-9)) - math.log(max(p, 1e-9))
                    for i, (_code, p) in zip(where, picks, strict=True)
                )
                if cost > reach.cost or (best is not None and cost >= best[0]):
                    continue
                trial = list(codes)
                trial_p = list(probs)
                for i, (code, p) in zip(where, picks, strict=True):
                    trial[i], trial_p[i] = code, p
                verdict = _verdict(trial, rules, ordered)
                if verdict is None or not verdict.valid:
                    continue
                # the changed pieces the meld takes as wilds (the verdict lists them in its order)
                taken = zip(verdict.pieces, verdict.wild, strict=True)
                wilds = Counter(str(q) for q, wild in taken if wild)
                made = wilds & Counter(trial[i] for i in where)
                cost += WILD_PENALTY * sum(made.values())
                if cost <= reach.cost and (best is None or cost < best[0]):
                    best = (cost, trial, trial_p, verdict, where)
        if best is not None:
            break
    one_suit = _one_suit(choices, codes, probs, rules, ordered)
    if one_suit is not None and (best is None or one_suit[0] < best[0]):
        best = one_suit
    return best


NATURAL_COST = 2.0
"""A meld that reads valid with a wild (a joker, or a 2 out of its place) is read with that piece
as its next likeliest face where that makes the meld valid with fewer wilds and costs at most
this in log-probability (the face at least e^-2, about 0.14, times as likely): a B4 R4 K4 of
`dev_tiles` read B4 R2 K4, the R2 standing for a 4 and R4 its next face at 0.32, now reads
B4 R4 K4; a 2C standing as the wild in AS 2C 3S with 2S next nearly as likely reads 2S.
Players lay natural pieces far more often than wilds, and a misread piece that happens to make
a valid meld as a wild had gone unquestioned.
Session 22, cached readings, melds read exactly (`dev_tiles`, `syn_cards`, `syn_cards3`): 724 /
136 / 349 -> 725 / 138 / 351 at costs 1-3 (0.5: 724 / 136 / 351); held out, `test_cards` 456 ->
459 of 626 and `test_tiles` 443 -> 444 of 474 (`test_cards_12mp`, `test_tiles_12mp` and the tile
val sets unchanged); card F1 up by about 0.001; the generator's broken melds called valid
unchanged (104 of 616 card, 98 of 496 tile); the real fans and tiles read the same."""


def _natural(choices: Sequence[Choice], reading: MeldReading, rules: Rules) -> MeldReading:
    """``reading`` with a piece that stands as a wild read as its next likeliest face instead,
    where that makes the meld valid with fewer wilds at a cost of at most ``NATURAL_COST``."""
    wilds = sum(reading.verdict.wild)
    if not wilds or NATURAL_COST <= 0:
        return reading
    best: tuple[float, int, str, float, Verdict] | None = None
    for i, choice in enumerate(choices):
        code = reading.codes[i]
        if code != "JK" and "2" not in _marks(code, rules.pieces is PieceKind.TILES):
            continue
        for alt, p in choice.options[: REACH[rules.pieces].faces]:
            if alt == code:
                continue
            cost = math.log(max(reading.probabilities[i], 1e-9)) - math.log(max(p, 1e-9))
            if cost > NATURAL_COST or (best is not None and cost >= best[0]):
                continue
            trial = list(reading.codes)
            trial[i] = alt
            verdict = _verdict(trial, rules)
            if verdict is not None and verdict.valid and sum(verdict.wild) < wilds:
                best = (cost, i, alt, p, verdict)
    if best is None:
        return reading
    _cost, i, alt, p, verdict = best
    codes, probs = list(reading.codes), list(reading.probabilities)
    codes[i], probs[i] = alt, p
    return MeldReading(tuple(codes), tuple(probs), verdict, tuple(sorted({*reading.repaired, i})))


WILD_PENALTY = 3.0
"""What a repair pays in log-probability for each piece it changes into a wild (a joker, or a 2
out of its place), beside the faces' own cost: a misread that happens to make a valid meld as a
wild had been taken too readily. R3 B1 Y3, a set with a mistake laid, read B1 at 0.62 and B2 at
0.09, had read R3 B2 Y3 (the 2 standing for a 3) and was called valid; now it stays as read,
invalid. A piece read as a 2 almost as surely as as itself is still read so. Session 22, cached
readings, melds read exactly (`dev_tiles`, `syn_tiles`): 727 / 85 -> 728 / 86 at 3 (1-2: 727 /
86; 5: 728 / 86); held out, `test_tiles` 446 -> 448 of 474 and `test_tiles_12mp` 461 -> 462 of
488; card melds unchanged everywhere; the generator's broken melds called valid, tiles 135 ->
131 of 708 and cards 104 -> 100 of 616; the real photos read the same."""


SUIT_FLOOR = 0.02
SUIT_COST = 2.0
"""A run read in two suits of one colour (clubs taken for spades on small or blurred indexes) is
read in one suit when that makes it valid: every card that changes must give the new suit at
least ``SUIT_FLOOR`` and cost at most ``SUIT_COST`` on average, and the one-suit reading wins
over the changes of at most three pieces above only where its joint probability is higher.
Session 21, cached readings, melds read exactly (`syn_cards`, `syn_cards3`, `test_cards`,
`test_cards_12mp`): 136 / 349 / 452 / 511 -> 136 / 349 / 454 / 512; melds the generator broke on
purpose called valid: 105 of 628 before and after; the real fans as taken and turned read the
same. Floors 0.002-0.05 and costs 1-5 read the same melds: most clubs read as spades are read so
on the whole run (6S 7S 8S 9S for 6C 7C 8C 9C), a valid meld that no rule can question."""


def _one_suit(
    choices: Sequence[Choice],
    codes: list[str],
    probs: list[float],
    rules: Rules,
    ordered: bool = True,
) -> tuple[float, list[str], list[float], Verdict, tuple[int, ...]] | None:
    """The meld read as a run of one suit, the likeliest such reading that is valid: each card
    of another suit (or each but the 2s, which may stand as the wild) read as its rank in that
    suit."""
    best: tuple[float, list[str], list[float], Verdict, tuple[int, ...]] | None = None
    for suit in "SHDC":
        for keep_twos in (False, True):
            trial, trial_p, where, cost = list(codes), list(probs), [], 0.0
            for i, c in enumerate(choices):
                code = codes[i]
                if not c.suits or code.endswith(suit) or (keep_twos and code[:-1] == "2"):
                    continue
                p = dict(c.suits).get(code[:-1] + suit, 0.0)
                if p < SUIT_FLOOR:
                    break
                cost += math.log(max(probs[i], 1e-9)) - math.log(p)
                trial[i], trial_p[i] = code[:-1] + suit, p
                where.append(i)
            else:
                if not where or cost > SUIT_COST * len(where):
                    continue
                if best is not None and cost >= best[0]:
                    continue
                verdict = _verdict(trial, rules, ordered)
                if verdict is not None and verdict.valid:
                    best = (cost, trial, trial_p, verdict, tuple(where))
    return best


def read_chain(
    choices: Sequence[Choice], centres: Sequence[tuple[float, float]], rules: Rules
) -> list[tuple[range, MeldReading]]:
    """A chain of pieces (in order, with their centres) read as one meld, or, when that reads
    invalid, as the melds it splits into at wide gaps, each with its positions in the chain."""
    whole = range(len(choices))
    readings: dict[tuple[int, int], MeldReading] = {}

    def reading(start: int, stop: int) -> MeldReading:
        """``choices[start:stop]`` read as one meld (each part read once)."""
        if (start, stop) not in readings:
            readings[start, stop] = read_meld(choices[start:stop], rules)
        return readings[start, stop]

    if reading(0, len(choices)).verdict.valid or len(choices) < 2:
        return [(whole, reading(0, len(choices)))]
    steps = [math.dist(a, b) for a, b in itertools.pairwise(centres)]
    median = sorted(steps)[len(steps) // 2]
    # step k lies between pieces k and k + 1; the widest is tried first
    gaps = sorted(
        (
            k
            for k in range(len(steps))
            if steps[k] >= SPLIT_GAP * median
            and not (
                JOKER_GAPS_KEPT
                and rules.pieces is PieceKind.CARDS
                and "JK" in (choices[k].best, choices[k + 1].best)
            )
        ),
        key=lambda k: -steps[k],
    )

    def split(start: int, stop: int) -> list[tuple[range, MeldReading]] | None:
        """``start:stop`` read valid as a whole or split at gaps into parts that all read valid;
        None when no split does."""
        if reading(start, stop).verdict.valid:
            return [(range(start, stop), reading(start, stop))]
        for k in gaps:
            if start <= k < stop - 1:
                left = split(start, k + 1)
                right = left and split(k + 1, stop)
                if left and right:
                    return left + right
        return None

    parts = split(0, len(choices))
    if parts is None and rules.pieces is PieceKind.TILES:
        parts = _split_off(len(choices), gaps, split, reading)
    if parts is None and rules.pieces is PieceKind.TILES:
        parts = _split_unrelated(steps, median, reading)
    return parts or [(whole, reading(0, len(choices)))]


def _split_unrelated(
    steps: Sequence[float], median: float, reading: Callable[[int, int], MeldReading]
) -> list[tuple[range, MeldReading]] | None:
    """A row of tiles split in two at its widest step of at least ``UNRELATED_GAP`` times the
    median where one half reads valid and the other could never join it: the other reads valid
    too and the two could never be one meld (:func:`_unrelated`), or it reads invalid and holds
    no tile of the valid half's colour (a run) or number (a set) (:func:`_foreign`).
    ``reading(start, stop)`` reads the row's pieces ``start:stop`` as one meld."""
    n = len(steps) + 1
    for k in sorted(range(len(steps)), key=lambda k: -steps[k]):
        if steps[k] < UNRELATED_GAP * median:
            break
        if min(k + 1, n - k - 1) < SPLIT_OFF_MIN:
            continue
        left, right = reading(0, k + 1), reading(k + 1, n)
        if left.verdict.valid and right.verdict.valid:
            apart = _unrelated(left.verdict, right.verdict)
        elif left.verdict.valid or right.verdict.valid:
            good, other = (left, right) if left.verdict.valid else (right, left)
            apart = _foreign(good.verdict, other.codes)
        else:
            apart = False
        if apart:
            return [(range(k + 1), left), (range(k + 1, n), right)]
    return None


def _unrelated(a: Verdict, b: Verdict) -> bool:
    """Whether two valid melds could never be parts of one: a set and a run, sets of two
    numbers, runs of two colours (two runs of one colour may be one with a piece out of place)."""
    if a.kind != b.kind:
        return True
    if a.kind is MeldKind.SET:
        return a.stands[0] != b.stands[0]
    return not _natural_colours(a) & _natural_colours(b)


def _foreign(meld: Verdict, codes: Sequence[str]) -> bool:
    """Whether none of the tiles ``codes`` (jokers aside) could belong to the valid ``meld``:
    none of its number (a set) or of its colour (a run)."""
    tiles = [t for t in (parse_piece(c, PieceKind.TILES) for c in codes) if isinstance(t, Tile)]
    if meld.kind is MeldKind.SET:
        return all(t.number != meld.stands[0] for t in tiles)
    colours = _natural_colours(meld)
    return all(t.colour not in colours for t in tiles)


def _natural_colours(meld: Verdict) -> set[Colour]:
    """The colours of a meld's natural (not wild) tiles."""
    natural = zip(meld.pieces, meld.wild, strict=True)
    return {p.colour for p, wild in natural if not wild and isinstance(p, Tile)}


def _split_off(
    n: int,
    gaps: Sequence[int],
    split: Callable[[int, int], list[tuple[range, MeldReading]] | None],
    reading: Callable[[int, int], MeldReading],
) -> list[tuple[range, MeldReading]] | None:
    """A row of ``n`` tiles split at its widest gap where one side reads valid (as a whole or
    split at gaps) and the other, of at least ``SPLIT_OFF_MIN`` tiles, does not: a valid meld
    laid end to end with a flawed one, each then judged on its own."""
    for k in gaps:
        left, right = split(0, k + 1), split(k + 1, n)
        if (left is None) == (right is None):
            continue
        if left is None and k + 1 >= SPLIT_OFF_MIN:
            return [(range(0, k + 1), reading(0, k + 1)), *(right or ())]
        if right is None and n - k - 1 >= SPLIT_OFF_MIN:
            return [*(left or ()), (range(k + 1, n), reading(k + 1, n))]
    return None


def could_meld(codes: Sequence[str], rules: Rules) -> bool:
    """Whether one more piece of the same kind would make ``codes`` a valid meld under
    ``rules``, in any order: 7D 8D (with 6D, 9D or a wild) and 7D 7S can, 7D KS cannot.

    The scanner keeps a chain of two pieces as a meld only if one more could make it one: a
    meld one of whose pieces the photo hides is shown, judged invalid, for the player to mend;
    two cards of a discard pile or a hand lying side by side are not. Session 21, cached
    readings: meld precision `syn_cards`, `syn_cards3`, `test_cards`, `test_cards_12mp` 0.584 /
    0.649 / 0.643 / 0.683 -> 0.654 / 0.690 / 0.685 / 0.728, tiles 0.867 / 0.828 / 0.816 / 0.830
    -> 0.876 / 0.846 / 0.842 / 0.855; discard pieces put in melds on `test_cards_12mp` 102 -> 44
    of 184; melds read exactly and piece F1 unchanged everywhere."""
    tiles = rules.pieces is PieceKind.TILES
    kind = FaceKind.TILE if tiles else FaceKind.CARD
    # a meld is a run (one suit or colour) or a set (one rank or number): a third piece that
    # shares neither with any piece here, and is no wild, cannot help (saves most trials)
    marks = {m for c in codes for m in _marks(c, tiles)}
    for face in (f.code for f in ALL_FACES if f.kind is kind):
        wild = face == "JK" or (not tiles and face.startswith("2"))
        if marks and not wild and not marks & _marks(face, tiles):
            continue
        verdict = _verdict([*codes, face], rules, ordered=False)
        if verdict is not None and verdict.valid:
            return True
    return False


def _suit_and_rank(code: str, tiles: bool) -> tuple[str, str]:
    """A piece's suit and rank as its code spells them (a tile's colour and number)."""
    return (code[:1], code[1:]) if tiles else (code[-1:], code[:-1])


def _marks(code: str, tiles: bool) -> set[str]:
    """A piece's suit and rank (a tile's colour and number); none for a joker."""
    if code == "JK":
        return set()
    return set(_suit_and_rank(code, tiles))


def tile_changes(codes: Sequence[str], ordered: bool = True) -> int:
    """How many of a row of tiles (codes such as ``R5``, ``JK``) would have to be other tiles for
    the row to be a run (either way along it) or a group. A meld laid with one mistake needs
    one; the tiles a player keeps on a rack, in no order, need most of them changed. Not
    ``ordered``, the tiles may lie in any order: a run laid with two tiles swapped needs none
    changed, as a group always did (R6 R8 R7 needs one ordered, none unordered)."""
    pieces = [parse_piece(c, PieceKind.TILES) for c in codes]
    tiles = [(p.colour, p.number) if isinstance(p, Tile) else None for p in pieces]
    n = len(tiles)
    best = n
    for i, tile in enumerate(tiles):
        if tile is None:
            continue
        colour, number = tile
        if ordered:
            for step in (1, -1):
                first = number - step * i
                wanted = [first + step * k for k in range(n)]
                cost = sum(
                    w not in NUMBERS or (t is not None and t != (colour, w))
                    for t, w in zip(tiles, wanted, strict=True)
                )
                best = min(best, cost)
        else:  # the run's n numbers from first on, the wilds standing for those it lacks
            mine = {t[1] for t in tiles if t is not None and t[0] == colour}
            wilds = tiles.count(None)
            for first in range(NUMBERS[0], NUMBERS[-1] - n + 2):
                best = min(best, n - wilds - len(mine.intersection(range(first, first + n))))
        seen = set()
        fit = cost = 0
        for t in tiles:  # a group: this number, each colour once, four tiles at most
            if t is None or (t[1] == number and t[0] not in seen):
                fit += 1
                seen |= {t[0]} if t else set()
            else:
                cost += 1
        cost += max(0, fit - 4)
        best = min(best, cost)
    return best


def strays(codes: Sequence[str], rules: Rules) -> int:
    """How many of a row of pieces belong to no one run or set, wherever they lie along it: the
    pieces left when the most that share a suit or colour (one of each rank or number) or a rank
    or number (a set as ``rules`` allow it: its suits or colours distinct or not, so many at
    most) are taken out. Wilds fit anywhere: jokers, and 2s where they are wild (a 2 may also be
    a natural 2 in a run). A meld laid with one mistake, out of order or with a gap has none or
    one; a rack's tiers or a hand, in no order, many. Unlike :func:`tile_changes` it does not
    count a piece out of its place, so a run with a gap or two pieces swapped reads as laid by a
    player."""
    tiles = rules.pieces is PieceKind.TILES
    runs: dict[str, set[str]] = {}  # suit or colour -> its ranks or numbers
    sets: dict[str, list[str]] = {}  # rank or number -> its suits or colours
    counted = 0
    for code in codes:
        kind, rank = _suit_and_rank(code, tiles)
        if code == "JK" or (rules.twos_wild and rank == "2"):
            continue
        counted += 1
        runs.setdefault(kind, set()).add(rank)
        sets.setdefault(rank, []).append(kind)
    if not counted:
        return 0
    caps = [c for c in (rules.set_max_size, rules.set_max_naturals) if c is not None]
    in_set = max(len(set(k)) if rules.set_distinct else len(k) for k in sets.values())
    fit = max(min([in_set, *caps]), max(len(ranks) for ranks in runs.values()))
    return counted - fit
