"""Moves on a meld already on the table: add a piece, swap a joker (tile Rummy).

"Can X be added to M, and what does M become?" follows RULES.md: a natural may
take the place of the wild that stands for it, the wild then moving to an end
(the low end first, as in source 002); a wild at one end may slide to the other
to admit a piece; a wild never leaves the table (except by a tile Rummy swap).

>>> fibur = Rules.preset("burraco-fibur")
>>> add_to_meld("3H 4H JK 6H 7H", "5H", fibur).meld_text
'JK 3H 4H 5H 6H 7H'
>>> add_to_meld("7S 8S 9S 2S", "5S", fibur).meld_text
'5S 2S 7S 8S 9S'
>>> add_to_meld("7S 8S 9S", "JH", fibur).reason
'JH does not fit: a run is of one suit (S): JH'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from scorer.melds import MeldKind, Verdict, as_pieces, validate_meld
from scorer.pieces import Joker, Piece, format_pieces, parse_piece
from scorer.rules import Rules


@dataclass(frozen=True, slots=True)
class AddResult:
    """The answer to "can this piece be added to this meld?".

    ``melds`` is what the meld becomes: one meld, or two when a tile Rummy run is
    split by a piece it already holds; the original meld when not allowed.
    """

    allowed: bool
    piece: Piece
    melds: tuple[tuple[Piece, ...], ...]
    verdicts: tuple[Verdict, ...]
    reason: str
    moved: Piece | None = None
    """The wild that changed place, if any."""

    @property
    def meld(self) -> tuple[Piece, ...]:
        return self.melds[0]

    @property
    def meld_text(self) -> str:
        return " | ".join(format_pieces(m) for m in self.melds)

    def to_json(self) -> dict[str, Any]:
        return {
            "allowed": self.allowed,
            "piece": str(self.piece),
            "reason": self.reason,
            "melds": [[str(p) for p in m] for m in self.melds],
            "verdicts": [v.to_json() for v in self.verdicts],
            "moved": str(self.moved) if self.moved else None,
        }


def _candidates(
    base: tuple[Piece, ...], piece: Piece, verdict: Verdict
) -> Iterator[tuple[tuple[Piece, ...], Piece | None]]:
    """New orders in order of preference: no wild moves, a wild replaced, a wild slides."""
    n = len(base)
    yield (piece, *base), None
    yield (*base, piece), None
    for i, reading in enumerate(verdict.reading):
        if not reading.wild:
            continue
        wild = base[i]
        rest = base[:i] + base[i + 1 :]
        if reading.stands_for == str(piece):
            replaced = (*base[:i], piece, *base[i + 1 :])
            yield (wild, *replaced), wild
            yield (*replaced, wild), wild
        if i in (0, n - 1):  # a wild at an end slides to the other end
            yield (piece, wild, *rest), wild
            yield (*rest, wild, piece), wild
            yield (wild, *rest, piece), wild
            yield (piece, *rest, wild), wild


def add_to_meld(
    meld: str | Iterable[Piece | str],
    piece: Piece | str,
    rules: Rules,
    *,
    ordered: bool = True,
) -> AddResult:
    """Whether ``piece`` can be added to ``meld``, and the meld it becomes.

    ``meld`` is read in its physical order unless ``ordered`` is false.

    >>> burako = Rules.preset("burako-003")
    >>> add_to_meld("R3 R4 R5", "R2", burako).verdicts[0].burraco is None
    True
    >>> add_to_meld("B3 B4 B5 B6 B7", "B5", Rules.preset("rummy-003")).meld_text
    'B3 B4 B5 | B5 B6 B7'
    >>> add_to_meld("7H 8H 2S", "JK", Rules.preset("burraco-fibur")).reason
    'JK does not fit: two wild cards: 2S and JK; a meld holds at most one'
    """
    pieces = as_pieces(meld, rules)
    new = parse_piece(piece, rules.pieces) if isinstance(piece, str) else piece
    verdict = validate_meld(pieces, rules, ordered=ordered)
    if not verdict.valid:
        reasons = "; ".join(p.message for p in verdict.problems)
        return AddResult(False, new, (pieces,), (verdict,), f"the meld is not valid: {reasons}")
    base = verdict.pieces
    if verdict.kind is MeldKind.SET:
        grown = validate_meld((*base, new), rules)
        if grown.valid:
            return AddResult(True, new, (grown.pieces,), (grown,), f"{new} joins the set")
        return _refused(new, pieces, verdict, grown)

    best: tuple[Verdict, Piece | None] | None = None
    for order, moved in _candidates(base, new, verdict):
        grown = validate_meld(order, rules, ordered=True)
        if not grown.valid:
            continue
        if best is None or len(grown.wilds) < len(best[0].wilds):
            best = (grown, moved)
        if moved is None:
            break
    if best is not None:
        grown, moved = best
        reason = f"{new} extends the run"
        if moved is not None:
            now = (
                next(r.stands_for for r in grown.reading if r.piece is moved and r.wild)
                if (moved in grown.wilds)
                else "itself (a natural 2 in its place)"
            )
            reason = f"{new} joins the run; {moved} moves and now stands for {now}"
        return AddResult(True, new, (grown.pieces,), (grown,), reason, moved)
    if rules.rearrange and not isinstance(new, Joker):
        split = _split(base, new, rules)
        if split is not None:
            return split
    # Say why in terms of the pieces, whatever their order.
    return _refused(new, pieces, verdict, validate_meld((*base, new), rules))


def _refused(new: Piece, pieces: tuple[Piece, ...], verdict: Verdict, grown: Verdict) -> AddResult:
    reasons = "; ".join(p.message for p in grown.problems)
    return AddResult(False, new, (pieces,), (verdict,), f"{new} does not fit: {reasons}")


def _split(base: tuple[Piece, ...], new: Piece, rules: Rules) -> AddResult | None:
    """Tile Rummy: a piece a run already holds splits it in two (3-4-5-6-7 + 5)."""
    for i, reading in enumerate(validate_meld(base, rules, ordered=True).reading):
        if reading.stands_for != str(new):
            continue
        left, right = base[: i + 1], (new, *base[i + 1 :])
        verdicts = (
            validate_meld(left, rules, ordered=True),
            validate_meld(right, rules, ordered=True),
        )
        if all(v.valid for v in verdicts):
            return AddResult(
                True,
                new,
                (left, right),
                verdicts,
                f"{new} splits the run in two: {format_pieces(left)} and {format_pieces(right)}",
            )
    return None


@dataclass(frozen=True, slots=True)
class SwapResult:
    """Tile Rummy: a natural takes a table joker's place; the joker must be played."""

    allowed: bool
    meld: tuple[Piece, ...]
    freed: Joker | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "allowed": self.allowed,
            "meld": [str(p) for p in self.meld],
            "freed": str(self.freed) if self.freed else None,
            "reason": self.reason,
        }


def swap_joker(
    meld: str | Iterable[Piece | str], piece: Piece | str, rules: Rules, *, ordered: bool = True
) -> SwapResult:
    """Swap a table joker for the piece it stands for (tile Rummy only).

    >>> rummy = Rules.preset("rummy-003")
    >>> swap_joker("R7 JK R9", "R8", rummy).meld, swap_joker("R7 JK R9", "R8", rummy).freed
    ((Tile.parse('R7'), Tile.parse('R8'), Tile.parse('R9')), Joker.parse('JK'))
    >>> swap_joker("R7 B7 JK", "K7", rummy).reason
    'no joker swap from a set of three'
    """
    pieces = as_pieces(meld, rules)
    new = parse_piece(piece, rules.pieces) if isinstance(piece, str) else piece
    if not rules.rearrange:
        return SwapResult(False, pieces, None, "a wild never leaves the table under these rules")
    verdict = validate_meld(pieces, rules, ordered=ordered)
    if not verdict.valid:
        return SwapResult(False, pieces, None, "the meld is not valid")
    if verdict.kind is MeldKind.SET and len(pieces) == 3:
        return SwapResult(False, pieces, None, "no joker swap from a set of three")
    for i, reading in enumerate(verdict.reading):
        if not (reading.wild and isinstance(reading.piece, Joker)):
            continue
        candidate = (*verdict.pieces[:i], new, *verdict.pieces[i + 1 :])
        if validate_meld(candidate, rules, ordered=True).valid:
            return SwapResult(
                True, candidate, reading.piece, f"{new} takes the joker's place; play the joker now"
            )
    return SwapResult(False, pieces, None, f"no joker in this meld stands for {new}")
