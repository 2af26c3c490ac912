"""Meld validation: a verdict with every problem, never an exception for a rule.

:func:`validate_meld` reads a meld either in the physical order it was laid out
(``ordered=True``: a photo, left to right or right to left) or as an unordered
multiset, in which case it finds the best valid reading: a natural 2 before a
wild 2, then the purest burraco, then the most points.

>>> fibur = Rules.preset("burraco-fibur")
>>> v = validate_meld("7H 8H 2S", fibur)
>>> v.valid, v.kind, [str(r) for r in v.reading]
(True, <MeldKind.RUN: 'run'>, ['7H', '8H', '2S=9H'])
>>> v = validate_meld("JK 7H 8S 2S", fibur)
>>> v.valid, [p.message for p in v.problems]
(False, ['two wild cards: JK and 2S; a meld holds at most one', 'mixed ranks and suits: 7H 8S'])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise
from typing import Any

from scorer.errors import InvalidPieceError
from scorer.pieces import (
    Card,
    Group,
    Joker,
    Natural,
    Piece,
    PieceKind,
    Rank,
    Suit,
    Tile,
    format_pieces,
    parse_piece,
)
from scorer.rules import Rules, SemiPure


class MeldKind(StrEnum):
    SET = "set"
    RUN = "run"


class BurracoKind(StrEnum):
    """The kind of a burraco (canasta): a meld of ``burraco_size`` pieces or more."""

    PURE = "pure"
    SEMI_PURE = "semi-pure"
    IMPURE = "impure"


class ProblemCode(StrEnum):
    """Why a meld (or a table, or a round) breaks the rules."""

    WRONG_KIND = "wrong-kind"
    TOO_FEW = "too-few"
    ONLY_WILDS = "only-wilds"
    ONLY_TWOS = "only-twos"
    TOO_MANY_WILDS = "too-many-wilds"
    NOT_A_MELD = "not-a-meld"
    MIXED_RANKS = "mixed-ranks"
    MIXED_SUITS = "mixed-suits"
    SET_TOO_BIG = "set-too-big"
    REPEATED_COLOUR = "repeated-colour"
    REPEATED_RANK = "repeated-rank"
    GAP = "gap"
    OUT_OF_ORDER = "out-of-order"
    TOO_LONG = "too-long"
    # Problems of a whole table or round, beyond one meld:
    TOO_MANY_COPIES = "too-many-copies"
    INVALID_MELD = "invalid-meld"
    CANNOT_CLOSE = "cannot-close"
    CLOSED_WITH_HAND = "closed-with-hand"
    TWO_CLOSERS = "two-closers"
    WILD_DISCARD = "wild-discard"
    PLAYERS = "players"
    FIRST_MELD = "first-meld"


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a meld, table or round breaks the rules."""

    code: ProblemCode
    message: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code.value, "message": self.message}


@dataclass(frozen=True, slots=True)
class Reading:
    """What one piece of a meld stands for.

    ``stands_for`` is a piece code in a run (``"5H"``, ``"R5"``) and a rank or
    number in a set (``"7"``); ``wild`` is false for naturals, natural 2s included.
    """

    piece: Piece
    stands_for: str
    wild: bool

    def __str__(self) -> str:
        return f"{self.piece}={self.stands_for}" if self.wild else str(self.piece)

    def to_json(self) -> dict[str, Any]:
        return {"piece": str(self.piece), "as": self.stands_for, "wild": self.wild}


@dataclass(frozen=True, slots=True)
class Verdict:
    """The verdict on one meld.

    ``pieces`` and ``reading`` are in reading order: the physical order when the
    meld was read ordered, else the order of the best reading (runs ascending).
    ``points`` is the sum of the piece values (a wild at its own value, except
    where a joker is worth what it stands for, as in tile Rummy); ``bonus`` is the
    burraco bonus. A verdict is valid exactly when it lists no problem.
    """

    pieces: tuple[Piece, ...]
    kind: MeldKind | None
    burraco: BurracoKind | None
    points: int
    bonus: int
    problems: tuple[Problem, ...]
    stands: tuple[int, ...]
    """The number each piece stands for (in a set, the set's rank; 14 is the high ace)."""
    wild: tuple[bool, ...]
    """Whether each piece is a wild (a natural 2 in its place is not)."""
    piece_kind: PieceKind
    low: int | None = None
    """A run's lowest number (1 for a low ace; may exceed 13 past the corner with wrap)."""
    group: Group | None = None

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def reading(self) -> tuple[Reading, ...]:
        """What each piece stands for, in reading order (made on demand)."""
        valid = not self.problems
        group, kind = self.group, self.piece_kind
        return tuple(
            Reading(p, (_name_number(n, group, kind) if valid else "?") if w else p.code, w)
            for p, n, w in zip(self.pieces, self.stands, self.wild, strict=True)
        )

    @property
    def wilds(self) -> tuple[Piece, ...]:
        return tuple(p for p, w in zip(self.pieces, self.wild, strict=True) if w)

    def to_json(self) -> dict[str, Any]:
        """The object of ``meldcam check --json``."""
        return {
            "valid": self.valid,
            "kind": self.kind.value if self.kind else None,
            "burraco": self.burraco.value if self.burraco else None,
            "points": self.points,
            "bonus": self.bonus,
            "problems": [p.to_json() for p in self.problems],
            "reading": [r.to_json() for r in self.reading],
            "pieces": [str(p) for p in self.pieces],
        }

    def explain(self) -> str:
        """A short verdict for people.

        >>> print(validate_meld("3H 4H JK 6H 7H 8H 9H", Rules.preset("burraco-fibur")).explain())
        valid run, impure burraco: 3H 4H JK=5H 6H 7H 8H 9H (70 points + 100 bonus)
        """
        shown = " ".join(str(r) for r in self.reading)
        if not self.valid:
            reasons = "; ".join(p.message for p in self.problems)
            return f"not valid: {reasons}"
        burraco = f", {self.burraco.value} burraco" if self.burraco else ""
        kind = self.kind.value if self.kind else "meld"
        bonus = f" + {self.bonus} bonus" if self.bonus else ""
        return f"valid {kind}{burraco}: {shown} ({self.points} points{bonus})"


# --------------------------------------------------------------------------- helpers

_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def count_word(n: int) -> str:
    return _NUMBER_WORDS[n] if n < len(_NUMBER_WORDS) else str(n)


def as_pieces(pieces: str | Iterable[Piece | str], rules: Rules) -> tuple[Piece, ...]:
    """Pieces from notation or objects; a string is split on spaces and commas."""
    if isinstance(pieces, str):
        pieces = pieces.replace(",", " ").split()
    elif type(pieces) is tuple and set(map(type, pieces)) <= _PIECE_TYPES:
        return pieces
    out: list[Piece] = []
    for p in pieces:
        if isinstance(p, str):
            out.append(parse_piece(p, rules.pieces))
        elif isinstance(p, Card | Tile | Joker):
            out.append(p)
        else:
            raise InvalidPieceError(repr(p), "not a piece")
    return tuple(out)


_PIECE_TYPES = {Card, Tile, Joker}


def _wild_noun(rules: Rules, n: int) -> str:
    noun = "card" if rules.pieces is PieceKind.CARDS else "tile"
    return f"wild {noun}" + ("s" if n != 1 else "")


def _name_number(number: int, group: Group | None, kind: PieceKind) -> str:
    """The code a run position stands for (14 is the high ace; wrap past 13 too)."""
    rank = Rank.from_number((number - 1) % 13 + 1)
    if group is None:
        return rank.value if kind is PieceKind.CARDS else str(rank.number)
    if kind is PieceKind.CARDS:
        return f"{rank.value}{group.value}"
    return f"{group.value}{rank.number}"


class _Attempt:
    """One reading being tried: a set, or a run with one choice of natural 2.

    A plain slotted class: thousands are made per second on the hot path.
    """

    __slots__ = ("group", "kind", "low", "order", "problems", "stands", "wild", "wild_inside")

    def __init__(
        self,
        kind: MeldKind,
        order: list[Piece],
        stands: list[int],
        wild: list[bool],
        problems: list[Problem],
        group: Group | None = None,
        low: int | None = None,
        wild_inside: bool = False,
    ) -> None:
        self.kind = kind
        self.order = order
        self.stands = stands
        self.wild = wild
        self.problems = problems
        self.group = group
        self.low = low
        self.wild_inside = wild_inside

    @property
    def n_wild(self) -> int:
        return sum(self.wild)


# --------------------------------------------------------------------------- sets


def _try_set(pieces: Sequence[Piece], rules: Rules) -> _Attempt:
    naturals: list[Natural] = []
    wilds: list[Piece] = []
    twos_wild = rules.twos_wild
    for p in pieces:
        n = p.number
        if n == 0 or (twos_wild and n == 2):
            wilds.append(p)
        else:
            naturals.append(p)  # type: ignore[arg-type]  # number > 0: not a joker
    problems: list[Problem] = []
    if not naturals:
        if all(not isinstance(p, Joker) for p in pieces):
            problems.append(Problem(ProblemCode.ONLY_TWOS, "a set made only of 2s is not a meld"))
        else:
            problems.append(Problem(ProblemCode.ONLY_WILDS, "no natural piece: only wilds"))
        number = 0
    elif len({p.number for p in naturals}) == 1:
        number = naturals[0].number
    else:
        ranks = Counter(p.rank for p in naturals)
        rank = ranks.most_common(1)[0][0]
        number = rank.number
        if len(ranks) > 1:
            odd = format_pieces(p for p in naturals if p.rank is not rank)
            problems.append(
                Problem(ProblemCode.MIXED_RANKS, f"a set is of one rank ({rank.value}): {odd}")
            )
    if rules.set_max_naturals is not None and len(naturals) > rules.set_max_naturals:
        problems.append(
            Problem(
                ProblemCode.SET_TOO_BIG,
                f"{len(naturals)} naturals: a set holds at most {rules.set_max_naturals}",
            )
        )
    if rules.set_max_size is not None and len(pieces) > rules.set_max_size:
        problems.append(
            Problem(
                ProblemCode.SET_TOO_BIG,
                f"{len(pieces)} pieces: a set holds at most {rules.set_max_size}",
            )
        )
    if rules.set_distinct:
        repeated = [g for g, n in Counter(p.group for p in naturals).items() if n > 1]
        if repeated:
            twice = ", ".join(str(next(p for p in naturals if p.group is g)) for g in repeated)
            problems.append(
                Problem(
                    ProblemCode.REPEATED_COLOUR, f"a set's colours must all differ: {twice} twice"
                )
            )
    order: list[Piece] = [*naturals, *wilds]
    return _Attempt(
        MeldKind.SET,
        order,
        [number] * len(order),
        [False] * len(naturals) + [True] * len(wilds),
        problems,
    )


# --------------------------------------------------------------------------- runs


def _run_candidates(pieces: Sequence[Piece], rules: Rules, ordered: bool) -> list[_Attempt]:
    """Run readings: the majority suit/colour, with and without a natural 2."""
    twos_wild = rules.twos_wild
    groups: dict[Group, int] = {}
    has_two = False
    for p in pieces:
        n = p.number
        if n == 2 and twos_wild:
            has_two = True
        elif n:
            group = p.group  # type: ignore[union-attr]  # number > 0: not a joker
            groups[group] = groups.get(group, 0) + 1
    if len(groups) == 1:
        (group,) = groups
    elif groups:
        group = max(groups, key=groups.__getitem__)
    else:  # only 2s (and jokers): the suit of the 2s
        twos = Counter(p.group for p in pieces if not isinstance(p, Joker))
        if not twos:
            return []
        group = twos.most_common(1)[0][0]
    if ordered:
        return [_ordered_run(pieces, rules, group, d) for d in (1, -1)]
    choices: list[int | None] = [None]
    if has_two:
        for i, p in enumerate(pieces):
            if p.number == 2 and p.group is group:  # type: ignore[union-attr]
                choices.insert(0, i)  # first try this 2 in its natural place
                break
    return [_unordered_run(pieces, rules, group, natural_two=c) for c in choices]


def _mixed_suits(naturals: Sequence[Natural], group: Group, rules: Rules) -> Problem | None:
    if all(p.group is group for p in naturals):
        return None
    odd = [p for p in naturals if p.group is not group]
    what = "suit" if rules.pieces is PieceKind.CARDS else "colour"
    return Problem(
        ProblemCode.MIXED_SUITS,
        f"a run is of one {what} ({group.value}): {format_pieces(odd)}",
    )


def _unordered_run(
    pieces: Sequence[Piece], rules: Rules, group: Group, natural_two: int | None
) -> _Attempt:
    twos_wild = rules.twos_wild
    naturals: list[Natural] = []
    wilds: list[Piece] = []
    for i, p in enumerate(pieces):
        n = p.number
        if n == 0 or (twos_wild and n == 2 and i != natural_two):
            wilds.append(p)
        else:
            naturals.append(p)  # type: ignore[arg-type]  # number > 0: not a joker
    problems: list[Problem] = []
    mixed = _mixed_suits(naturals, group, rules)
    if mixed:
        problems.append(mixed)
    by_number: dict[int, Natural] = {}
    repeated: list[Natural] = []  # and pieces of another suit: left out of the layout
    for p in naturals:
        if p.group is not group or p.number in by_number:
            repeated.append(p)
        else:
            by_number[p.number] = p
    twice = [p for p in repeated if p.group is group]
    if twice:
        problems.append(
            Problem(
                ProblemCode.REPEATED_RANK,
                f"a run holds each rank once: {format_pieces(twice)} repeated",
            )
        )
    if not by_number:
        problem = Problem(ProblemCode.ONLY_WILDS, "no natural piece: only wilds")
        n = len(pieces)
        return _Attempt(MeldKind.RUN, list(pieces), [0] * n, [True] * n, [problem], group)

    layouts = _number_layouts(sorted(by_number), rules)
    fit = _fit_run(layouts[0], len(wilds), rules)
    for numbers in layouts[1:]:
        other = _fit_run(numbers, len(wilds), rules)
        if (len(other[0]), numbers[-1] - numbers[0]) < (len(fit[0]), fit[1][-1] - fit[1][0]):
            fit = other
    extra_problems, placed_numbers, low, high = fit
    problems.extend(extra_problems)

    # Naturals at their positions, wilds in the free ones: the gaps first, then
    # above the run, then below it (past the end when the run is too long).
    placed = {pos: by_number[(pos - 1) % 13 + 1] for pos in placed_numbers}
    first, last = placed_numbers[0], placed_numbers[-1]
    order: list[Piece] = []
    stands: list[int] = []
    wild: list[bool] = []
    spare = iter(wilds)
    inside = False
    for pos in range(low, high + 1):
        natural = placed.get(pos)
        if natural is not None:
            order.append(natural)
            stands.append(pos)
            wild.append(False)
            continue
        w = next(spare, None)
        if w is not None:
            order.append(w)
            stands.append(pos)
            wild.append(True)
            inside = inside or first < pos < last
    pos = high
    for w in spare:
        pos += 1
        order.append(w)
        stands.append(pos)
        wild.append(True)
    for p in repeated:
        order.append(p)
        stands.append(0)
        wild.append(False)
    return _Attempt(MeldKind.RUN, order, stands, wild, problems, group, stands[0], inside)


def _number_layouts(numbers: list[int], rules: Rules) -> list[list[int]]:
    """Ways to place the natural numbers on the line (ace low/high, around the corner)."""
    layouts = [numbers]
    if rules.wrap and len(numbers) > 1:
        # Start after the widest circular gap.
        gaps = [(numbers[(i + 1) % len(numbers)] - n) % 13 for i, n in enumerate(numbers)]
        widest = max(range(len(numbers)), key=lambda i: gaps[i])
        start = numbers[(widest + 1) % len(numbers)]
        layouts.append(sorted(n if n >= start else n + 13 for n in numbers))
    elif rules.ace_high and numbers[0] == 1:
        layouts.append(sorted([*numbers[1:], 14]))
    return layouts


def _fit_run(
    numbers: list[int], n_wilds: int, rules: Rules
) -> tuple[list[Problem], list[int], int, int]:
    """Problems of a run made of naturals at ``numbers`` and ``n_wilds`` wilds.

    Returns the problems, the numbers, and the run's low and high positions once
    the wilds have filled the gaps and been added above (then below) the run.
    """
    problems: list[Problem] = []
    low, high = numbers[0], numbers[-1]
    missing = (high - low + 1) - len(numbers)
    if missing > n_wilds:
        holes = []
        for a, b in pairwise(numbers):
            if b - a > 1:
                between = f"{_plain(a, rules.pieces)} and {_plain(b, rules.pieces)}"
                holes.append(f"{b - a - 1} missing between {between}")
        problems.append(
            Problem(
                ProblemCode.GAP,
                f"not consecutive: {'; '.join(holes)} ({count_word(n_wilds)} wild to fill)",
            )
        )
        return problems, numbers, low, high
    extra = n_wilds - missing
    if rules.wrap:
        floor, ceiling = low - 13, high + 13
    else:
        uses_low_ace = low == 1
        uses_high_ace = high == 14
        floor = 2 if uses_high_ace else 1
        ceiling = 14 if rules.ace_high and not uses_low_ace else 13
    up = min(extra, ceiling - high)
    high += up
    down = min(extra - up, low - floor)
    low -= down
    if high - low + 1 > 13 or up + down < extra:
        problems.append(
            Problem(
                ProblemCode.TOO_LONG,
                "too long: a run spans at most 13 ranks, from A to K or 2 to A",
            )
        )
    return problems, numbers, low, high


def _plain(number: int, kind: PieceKind) -> str:
    """A rank as people name it: A-K for cards, 1-13 for tiles."""
    rank = Rank.from_number((number - 1) % 13 + 1)
    return rank.value if kind is PieceKind.CARDS else str(rank.number)


def _ordered_run(pieces: Sequence[Piece], rules: Rules, group: Group, direction: int) -> _Attempt:
    """A run read in the physical order, ascending (direction 1) or descending (-1)."""
    seq = list(pieces) if direction == 1 else list(reversed(pieces))
    anchors = [
        (i, p.number)
        for i, p in enumerate(seq)
        if not isinstance(p, Joker) and not (rules.twos_wild and p.number == 2) and p.group is group
    ]
    if not anchors:  # only 2s and jokers: a 2 of the group stands in its place
        anchors = [
            (i, 2) for i, p in enumerate(seq) if not isinstance(p, Joker) and p.group is group
        ]
    votes: Counter[int] = Counter()
    for i, number in anchors:
        for n in (number, 14) if number == 1 and (rules.ace_high or rules.wrap) else (number,):
            start = n - i
            votes[(start - 1) % 13 + 1 if rules.wrap else start] += 1
    options = [start for start, _ in votes.most_common(3)]
    best: _Attempt | None = None
    for start in options:
        attempt = _ordered_run_from(seq, rules, group, start)
        if best is None or len(attempt.problems) < len(best.problems):
            best = attempt
    assert best is not None
    if direction == -1:
        best.order.reverse()
        best.stands.reverse()
        best.wild.reverse()
    return best


def _ordered_run_from(seq: list[Piece], rules: Rules, group: Group, start: int) -> _Attempt:
    problems: list[Problem] = []
    stands: list[int] = []
    wild: list[bool] = []
    misplaced: list[str] = []
    naturals: list[Natural] = []
    for i, p in enumerate(seq):
        expected = start + i
        stands.append(expected)
        if isinstance(p, Joker):
            wild.append(True)
            continue
        naturals.append(p)
        in_place = p.group is group and _same_number(p.number, expected)
        if rules.twos_wild and p.number == 2:
            wild.append(not in_place)
            if in_place:
                continue
            naturals.pop()
            continue
        wild.append(False)
        if p.group is group and not in_place:
            misplaced.append(f"{p} where {_name_number(expected, group, rules.pieces)} goes")
    mixed = _mixed_suits(naturals, group, rules)
    if mixed:
        problems.append(mixed)
    if misplaced:
        problems.append(Problem(ProblemCode.OUT_OF_ORDER, "out of order: " + ", ".join(misplaced)))
    end = start + len(seq) - 1
    if rules.wrap:
        out_of_range = len(seq) > 13
    else:
        ceiling = 14 if rules.ace_high else 13
        out_of_range = start < 1 or end > ceiling or end - start + 1 > 13
    if out_of_range:
        problems.append(
            Problem(ProblemCode.TOO_LONG, "a run goes from A to K or from 2 to A, never around")
        )
    attempt = _Attempt(MeldKind.RUN, list(seq), stands, wild, problems, group, low=start)
    natural_idx = [i for i, w in enumerate(wild) if not w]
    if natural_idx:
        attempt.wild_inside = any(wild[i] for i in range(natural_idx[0] + 1, natural_idx[-1]))
    return attempt


def _same_number(number: int, position: int) -> bool:
    return (number - 1) % 13 == (position - 1) % 13 and 1 <= position <= 26


# --------------------------------------------------------------------------- verdict


def validate_meld(
    pieces: str | Iterable[Piece | str], rules: Rules, *, ordered: bool = False
) -> Verdict:
    """The verdict on a meld, with every problem found.

    >>> burako = Rules.preset("burako-003")
    >>> validate_meld("R12 R13 R1", burako).valid
    True
    >>> validate_meld("R12 R13 R1", Rules.preset("rummy-003")).problems[0].code
    <ProblemCode.GAP: 'gap'>
    >>> zero = Rules.preset("burraco-000")
    >>> validate_meld("2H 4H 5H 6H 2H", zero, ordered=True).problems[0].message
    'two wild cards: 2H and 2H; a meld holds at most one'
    """
    meld = as_pieces(pieces, rules)
    problems: list[Problem] = []
    kind = rules.pieces
    other = Tile if kind is PieceKind.CARDS else Card
    wrong = [p for p in meld if type(p) is other]
    if wrong:
        problems.append(
            Problem(
                ProblemCode.WRONG_KIND,
                f"these rules are played with {rules.pieces.value}: {format_pieces(wrong)}",
            )
        )
        meld = tuple(p for p in meld if p not in wrong)
    if len(meld) + len(wrong) < rules.min_meld:
        problems.append(
            Problem(
                ProblemCode.TOO_FEW,
                f"{len(meld) + len(wrong)} pieces: a meld needs at least {rules.min_meld}",
            )
        )
    if not meld:
        return Verdict((), None, None, 0, 0, tuple(problems), (), (), kind)

    twos_wild = rules.twos_wild
    naturals: list[Natural] = [
        p  # type: ignore[misc]  # number > 0: not a joker
        for p in meld
        if p.number and not (twos_wild and p.number == 2)
    ]
    one_rank = len({p.number for p in naturals}) <= 1
    if not naturals:  # only jokers and 2s: not a meld, whatever the reading
        best = _try_set(meld, rules)
        _check_wild_count(best, rules)
    else:
        # Try the likelier kind first and the other only if the first fails.
        set_first = one_rank and len(naturals) > 1
        kinds = (True, False) if set_first else (False, True)
        attempts: list[_Attempt] = []
        for as_set in kinds:
            tried = [_try_set(meld, rules)] if as_set else _run_candidates(meld, rules, ordered)
            for attempt in tried:
                _check_wild_count(attempt, rules)
            attempts.extend(tried)
            if any(not a.problems for a in attempts) and not (one_rank and not set_first):
                break
        favoured = _intended_kind(naturals) if len(attempts) > 1 else attempts[0].kind

        def preference(a: _Attempt) -> tuple[int | bool, ...]:
            burraco = _burraco_kind(a, rules, len(meld))
            purity = 0 if burraco is None else _PURITY[burraco]
            points = -_points(a, rules) if rules.joker_in_meld_stands_for else 0
            problems = len(a.problems)
            unfavoured = a.kind is not favoured
            # A valid reading wins; failing all, the reading of the evident intent.
            return (
                problems > 0,
                unfavoured and problems > 0,
                problems,
                a.n_wild,
                purity,
                a.wild_inside,
                points,
                unfavoured,
            )

        valid_attempts = [a for a in attempts if not a.problems]
        if len(attempts) == 1:
            best = attempts[0]
        elif len(valid_attempts) == 1:  # a valid reading wins (preference's first key)
            best = valid_attempts[0]
        else:
            best = min(attempts, key=preference)
    if best.problems and not _has_majority(naturals):
        # Neither a set nor a run: say so once rather than list both attempts' problems.
        best.problems = [p for p in best.problems if p.code is ProblemCode.TOO_MANY_WILDS] + [
            Problem(
                ProblemCode.NOT_A_MELD,
                f"mixed ranks and suits: {format_pieces(sorted(set(naturals), key=_sort_key))}",
            )
        ]
    problems.extend(best.problems)
    valid = not problems
    burraco = _burraco_kind(best, rules, len(meld)) if valid else None
    group = best.group if best.kind is MeldKind.RUN else None
    return Verdict(
        tuple(best.order),
        best.kind if valid else None,
        burraco,
        _points(best, rules) if valid else sum(rules.value(p) for p in meld),
        rules.burraco_bonus(burraco.value) if burraco else 0,
        tuple(problems),
        tuple(best.stands),
        tuple(best.wild),
        kind,
        best.low if valid and best.kind is MeldKind.RUN else None,
        group if valid else None,
    )


def _check_wild_count(attempt: _Attempt, rules: Rules) -> None:
    if rules.max_wilds is None or attempt.n_wild <= rules.max_wilds:
        return
    wilds = [p for p, w in zip(attempt.order, attempt.wild, strict=True) if w]
    listed = ", ".join(map(str, wilds[:-1])) + f" and {wilds[-1]}"
    most = count_word(rules.max_wilds)
    attempt.problems.insert(
        0,
        Problem(
            ProblemCode.TOO_MANY_WILDS,
            f"{count_word(len(wilds))} {_wild_noun(rules, len(wilds))}: {listed}; "
            f"a meld holds at most {most}",
        ),
    )


def _points(attempt: _Attempt, rules: Rules) -> int:
    values = _value_table(rules)
    if not rules.joker_in_meld_stands_for or attempt.problems:
        return sum([values[p.number] for p in attempt.order])
    return sum(
        values[(n - 1) % 13 + 1 if p.number == 0 and n else p.number]
        for p, n in zip(attempt.order, attempt.stands, strict=True)
    )


_VALUE_TABLES: dict[int, tuple[Rules, tuple[int, ...]]] = {}


def _value_table(rules: Rules) -> tuple[int, ...]:
    """Points by number: index 0 is the joker, 1-13 the ranks (memoised per rules)."""
    cached = _VALUE_TABLES.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    table = (
        rules.value(Joker()),
        *(rules.value(Card(Rank.from_number(n), Suit.SPADES)) for n in range(1, 14)),
    )
    if len(_VALUE_TABLES) > 64:
        _VALUE_TABLES.clear()
    _VALUE_TABLES[id(rules)] = (rules, table)
    return table


def _burraco_kind(attempt: _Attempt, rules: Rules, size: int) -> BurracoKind | None:
    if rules.burraco_size is None or size < rules.burraco_size or attempt.problems:
        return None
    n_wild = attempt.n_wild
    if n_wild == 0:
        return BurracoKind.PURE
    if n_wild > 1 or rules.semi_pure is SemiPure.NONE:
        return BurracoKind.IMPURE
    naturals = size - 1
    if attempt.kind is MeldKind.SET:
        # A set has no order for the wild to interrupt: semi-pure once the naturals
        # alone would make a burraco.
        return BurracoKind.SEMI_PURE if naturals >= rules.burraco_size else BurracoKind.IMPURE
    if attempt.wild_inside:
        return BurracoKind.IMPURE
    if rules.semi_pure is SemiPure.NATURALS and naturals < rules.burraco_size:
        return BurracoKind.IMPURE
    return BurracoKind.SEMI_PURE


def _majorities(naturals: Sequence[Natural]) -> tuple[int, int]:
    """How many naturals share the commonest rank, and the commonest suit/colour."""
    ranks = Counter(p.number for p in naturals).most_common(1)[0][1]
    groups = Counter(p.group for p in naturals).most_common(1)[0][1]
    return ranks, groups


def _intended_kind(naturals: Sequence[Natural]) -> MeldKind:
    """A set when most naturals share a rank at least as much as a suit, else a run."""
    ranks, groups = _majorities(naturals)
    return MeldKind.SET if ranks >= groups and ranks > 1 else MeldKind.RUN


def _has_majority(naturals: Sequence[Natural]) -> bool:
    """Whether most naturals share a rank or a suit/colour (the meld's evident intent)."""
    return len(naturals) < 2 or max(_majorities(naturals)) > len(naturals) / 2


_PURITY = {kind: i for i, kind in enumerate(BurracoKind)}


def _sort_key(piece: Piece) -> tuple[int, str, int]:
    if isinstance(piece, Joker):
        return (1, "", 0)
    return (0, piece.group.value, piece.rank.number)
