"""What lies in a meld: sets and runs of cards or tiles, valid and invalid, wilds anywhere.

The generator does not judge melds (that is ``scorer/``): it records which kind it meant to
build and whether it broke a rule on purpose, so grouping and scoring can be evaluated against
the rules core later. Piece counts respect the physical game: two decks (each card at most
twice, four card jokers) or two tile sets (each tile twice, two jokers).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from scorer.pieces import Rank
from vision.classes import COLOURS, JOKER, NUMBERS, RANKS, SUITS, Face, PieceKind


class MeldKind(StrEnum):
    SET = "set"
    RUN = "run"


@dataclass(frozen=True, slots=True)
class MeldPlan:
    """Pieces of one meld in physical order, with what the generator intended."""

    kind: MeldKind
    faces: tuple[Face, ...]
    intended_valid: bool
    flaw: str  # "" for intended-valid melds


class Supply:
    """The pieces still available: two of each face, and the game's jokers."""

    def __init__(self, kind: PieceKind, jokers: int) -> None:
        self.kind = kind
        self.jokers = jokers
        self.used: Counter[Face] = Counter()

    def take(self, faces: tuple[Face, ...]) -> bool:
        """Take all of ``faces`` if the supply has them."""
        want = Counter(faces)
        for face, n in want.items():
            limit = self.jokers if face.is_joker else 2
            if self.used[face] + n > limit:
                return False
        self.used.update(want)
        return True

    def random_face(self, rng: np.random.Generator, joker_p: float = 0.04) -> Face:
        for _ in range(50):
            face = _random_face(self.kind, rng, joker_p)
            if self.take((face,)):
                return face
        return _random_face(self.kind, rng, 0.0)


def _random_face(kind: PieceKind, rng: np.random.Generator, joker_p: float) -> Face:
    if rng.random() < joker_p:
        return Face(kind, JOKER)
    if kind is PieceKind.CARD:
        return Face.card(RANKS[rng.integers(13)], SUITS[rng.integers(4)])
    return Face.tile(COLOURS[rng.integers(4)], int(NUMBERS[rng.integers(13)]))


def _wild(kind: PieceKind, rng: np.random.Generator) -> Face:
    if kind is PieceKind.CARD and rng.random() < 0.5:
        return Face.card(Rank.TWO, SUITS[rng.integers(4)])
    return Face(kind, JOKER)


def _run(kind: PieceKind, rng: np.random.Generator, length: int) -> list[Face]:
    if kind is PieceKind.CARD:
        suit = SUITS[rng.integers(4)]
        order = [*RANKS, Rank.ACE]  # ace low or high
        start = int(rng.integers(0, len(order) - length + 1))
        return [Face.card(r, suit) for r in order[start : start + length]]
    colour = COLOURS[rng.integers(4)]
    start = int(rng.integers(1, 14 - length + 1))
    return [Face.tile(colour, n) for n in range(start, start + length)]


def _set(kind: PieceKind, rng: np.random.Generator, length: int) -> list[Face]:
    if kind is PieceKind.CARD:
        rank = RANKS[rng.integers(13)]
        if rank is Rank.TWO:
            rank = Rank.ACE
        return [Face.card(rank, SUITS[rng.integers(4)]) for _ in range(length)]
    number = int(rng.integers(1, 14))
    colours = list(COLOURS)
    rng.shuffle(colours)
    return [Face.tile(c, number) for c in colours[: min(length, 4)]]


def _break(kind: PieceKind, meld: MeldKind, faces: list[Face], rng: np.random.Generator) -> str:
    """Make a meld invalid on purpose; returns what was broken."""
    i = int(rng.integers(len(faces)))
    flaw = int(rng.integers(4))
    if flaw == 0:  # two wilds
        j = (i + 1) % len(faces)
        faces[i], faces[j] = Face(kind, JOKER), _wild(kind, rng)
        return "two-wilds"
    if flaw == 1 and meld is MeldKind.RUN:  # a gap
        del faces[len(faces) // 2]
        return "gap" if len(faces) >= 3 else "too-short"
    if flaw == 2 and meld is MeldKind.RUN:  # wrong suit / colour in the run
        other = _random_face(kind, rng, 0.0)
        faces[i] = other
        return "foreign-piece"
    if meld is MeldKind.SET:  # a different rank in the set
        faces[i] = _random_face(kind, rng, 0.0)
        return "foreign-piece"
    faces.reverse()
    faces.insert(int(rng.integers(len(faces))), faces.pop(0))
    return "out-of-order"


def plan_meld(kind: PieceKind, supply: Supply, rng: np.random.Generator) -> MeldPlan:
    """One meld: mostly valid sets and runs (wilds in any position), about 1 in 4 broken."""
    for _ in range(40):
        meld = MeldKind.RUN if rng.random() < 0.6 else MeldKind.SET
        long_meld = rng.random() < 0.2
        if meld is MeldKind.RUN:
            length = int(rng.integers(7, 11) if long_meld else rng.integers(3, 7))
            faces = _run(kind, rng, length)
        else:
            cap = 8 if kind is PieceKind.CARD else 4
            length = int(rng.integers(7, 9) if long_meld and cap > 4 else rng.integers(3, cap + 1))
            faces = _set(kind, rng, length)
        if rng.random() < 0.4 and len(faces) >= 3:
            wild = _wild(kind, rng)
            if rng.random() < 0.5:
                faces[int(rng.integers(len(faces)))] = wild
            else:
                faces.insert(int(rng.integers(len(faces) + 1)), wild)
        valid = rng.random() >= 0.25
        flaw = "" if valid else _break(kind, meld, faces, rng)
        if not valid and not flaw:
            valid = True
        if rng.random() < 0.3 and meld is MeldKind.RUN:
            faces.reverse()  # laid high to low
        if supply.take(tuple(faces)):
            return MeldPlan(meld, tuple(faces), valid, flaw)
    face = supply.random_face(rng)
    return MeldPlan(MeldKind.SET, (face,), False, "too-short")
