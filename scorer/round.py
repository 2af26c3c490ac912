"""Round scoring: a sheet of lines (reason, points, pieces) per side, and problems.

A side is a player, or a team of two whose melds are shared (then it has two
hands). Burraco and Burako score melded points, burraco bonuses, the closing
bonus, minus the hand(s) and the pot penalty; tile Rummy scores the racks.

>>> sheet = score_round(Round.from_json({
...     "rules": "burraco-fibur",
...     "sides": [
...         {"name": "Ada", "melds": [["7H", "8H", "9H", "10H", "JH", "QH", "KH"]],
...          "hand": [], "took_pot": True, "closed": True},
...         {"name": "Bo", "melds": [["5S", "5D", "5C"]], "hand": ["KD", "JK"],
...          "took_pot": False, "closed": False},
...     ],
... }))
>>> [(s.name, s.total) for s in sheet.sides]
[('Ada', 365), ('Bo', -125)]
>>> [(line.reason.value, line.points) for line in sheet.sides[1].lines]
[('meld', 15), ('hand', -40), ('pot-not-taken', -100)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from scorer.errors import InvalidRoundError, MeldcamError
from scorer.melds import Problem, ProblemCode, Verdict, validate_meld
from scorer.pieces import Joker, Piece, format_pieces, parse_piece
from scorer.rules import ClosingDiscard, Rules, RummyScoring
from scorer.table import count_problems


class LineReason(StrEnum):
    MELD = "meld"
    BURRACO_PURE = "burraco-pure"
    BURRACO_SEMI_PURE = "burraco-semi-pure"
    BURRACO_IMPURE = "burraco-impure"
    CLOSING = "closing"
    HAND = "hand"
    POT_NOT_TAKEN = "pot-not-taken"
    POT_NOT_PLAYED = "pot-not-played"
    RACK = "rack"
    WENT_OUT = "went-out"
    VOID = "void"


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a side's sheet: why, how many points, which pieces."""

    reason: LineReason
    points: int
    pieces: tuple[Piece, ...]
    text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason.value,
            "points": self.points,
            "pieces": [str(p) for p in self.pieces],
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class SideSheet:
    name: str
    lines: tuple[Line, ...]

    @property
    def total(self) -> int:
        return sum(line.points for line in self.lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "total": self.total,
            "lines": [line.to_json() for line in self.lines],
        }


@dataclass(frozen=True, slots=True)
class RoundSheet:
    """The scored round: a sheet per side, the problems found, whether it is void."""

    sides: tuple[SideSheet, ...]
    problems: tuple[Problem, ...]
    void: bool = False

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def totals(self) -> dict[str, int]:
        return {side.name: side.total for side in self.sides}

    def to_json(self) -> dict[str, Any]:
        """The object of ``meldcam score --json``."""
        return {
            "sides": [side.to_json() for side in self.sides],
            "problems": [p.to_json() for p in self.problems],
            "void": self.void,
        }


# ----------------------------------------------------------------------------- input


@dataclass(frozen=True, slots=True)
class Side:
    """What one side has at the end of a round."""

    name: str
    melds: tuple[tuple[Piece, ...], ...] = ()
    hands: tuple[tuple[Piece, ...], ...] = ((),)
    took_pot: bool = False
    closed: bool = False
    pot_unplayed: tuple[Piece, ...] = ()
    """A pot taken but not played (FIBUR counts it against the side like a hand)."""
    discard: Piece | None = None
    """The closing discard, where it matters (FIBUR: not a wild)."""
    first_meld: tuple[tuple[Piece, ...], ...] = ()
    """Tile Rummy: the melds of a player's first play, checked against the minimum."""


@dataclass(frozen=True, slots=True)
class Round:
    rules: Rules
    sides: tuple[Side, ...]
    ordered: bool = False
    """Melds are given in their physical order (a photo) rather than as multisets."""

    @staticmethod
    def from_json(data: Any) -> Round:
        """A round from the JSON of ``meldcam score`` (see the README).

        Every error names where it is: ``sides[1].hand[0]: '7X' is not a piece...``.
        """
        if not isinstance(data, Mapping):
            raise InvalidRoundError("a round must be a JSON object with 'rules' and 'sides'")
        unknown = sorted(set(data) - {"rules", "sides", "ordered"})
        if unknown:
            raise InvalidRoundError(f"unknown round field(s): {', '.join(unknown)}")
        if "rules" not in data:
            raise InvalidRoundError("a round needs 'rules': a preset name or a rules object")
        rules = Rules.from_json(data["rules"])
        sides_data = data.get("sides")
        if not isinstance(sides_data, list) or not sides_data:
            raise InvalidRoundError("'sides' must be a non-empty list of sides")
        if len(sides_data) > 4:
            raise InvalidRoundError(f"{len(sides_data)} sides: a table has at most 4")
        ordered = data.get("ordered", False)
        if not isinstance(ordered, bool):
            raise InvalidRoundError("'ordered' must be true or false")
        sides = tuple(_side_from_json(s, rules, f"sides[{i}]") for i, s in enumerate(sides_data))
        names = [s.name for s in sides]
        if len(set(names)) != len(names):
            raise InvalidRoundError(f"side names must differ: {', '.join(names)}")
        return Round(rules, sides, ordered)


_SIDE_FIELDS = {
    "name",
    "melds",
    "hand",
    "hands",
    "took_pot",
    "closed",
    "pot_unplayed",
    "discard",
    "first_meld",
}


def _side_from_json(data: Any, rules: Rules, where: str) -> Side:
    if not isinstance(data, Mapping):
        raise InvalidRoundError(f"{where}: a side must be an object")
    unknown = sorted(set(data) - _SIDE_FIELDS)
    if unknown:
        raise InvalidRoundError(f"{where}: unknown field(s): {', '.join(unknown)}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidRoundError(f"{where}.name: a side needs a name")
    if "hand" in data and "hands" in data:
        raise InvalidRoundError(f"{where}: give 'hand' or 'hands', not both")
    if "hands" in data:
        hands_data = data["hands"]
        if not isinstance(hands_data, list) or not 1 <= len(hands_data) <= 2:
            raise InvalidRoundError(f"{where}.hands: a list of one or two hands")
        hands = tuple(_pieces(h, rules, f"{where}.hands[{i}]") for i, h in enumerate(hands_data))
    else:
        hands = (_pieces(data.get("hand", []), rules, f"{where}.hand"),)
    discard = data.get("discard")
    return Side(
        name=name.strip(),
        melds=_melds(data.get("melds", []), rules, f"{where}.melds"),
        hands=hands,
        took_pot=_flag(data, "took_pot", where),
        closed=_flag(data, "closed", where),
        pot_unplayed=_pieces(data.get("pot_unplayed", []), rules, f"{where}.pot_unplayed"),
        discard=None if discard is None else _piece(discard, rules, f"{where}.discard"),
        first_meld=_melds(data.get("first_meld", []), rules, f"{where}.first_meld"),
    )


def _flag(data: Mapping[str, Any], key: str, where: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise InvalidRoundError(f"{where}.{key}: must be true or false, not {value!r}")
    return value


def _melds(data: Any, rules: Rules, where: str) -> tuple[tuple[Piece, ...], ...]:
    if not isinstance(data, list):
        raise InvalidRoundError(f"{where}: a list of melds, each a list of piece codes")
    if len(data) > 40:
        raise InvalidRoundError(f"{where}: {len(data)} melds is more than a table holds")
    return tuple(_pieces(m, rules, f"{where}[{i}]") for i, m in enumerate(data))


def _pieces(data: Any, rules: Rules, where: str) -> tuple[Piece, ...]:
    if isinstance(data, str):
        data = data.replace(",", " ").split()
    if not isinstance(data, list):
        raise InvalidRoundError(f"{where}: a list of piece codes")
    if len(data) > 120:
        raise InvalidRoundError(f"{where}: {len(data)} pieces is more than the decks hold")
    return tuple(_piece(code, rules, f"{where}[{i}]") for i, code in enumerate(data))


def _piece(code: Any, rules: Rules, where: str) -> Piece:
    if not isinstance(code, str):
        raise InvalidRoundError(f"{where}: a piece code like '7H' or 'R13', not {code!r}")
    try:
        return parse_piece(code, rules.pieces)
    except MeldcamError as error:
        raise InvalidRoundError(f"{where}: {error}") from None


# --------------------------------------------------------------------------- scoring


def score_round(round_: Round) -> RoundSheet:
    """Score a round under its rules: a sheet per side and every problem found."""
    rules = round_.rules
    problems: list[Problem] = []
    players = sum(len(side.hands) for side in round_.sides)
    if len(round_.sides) == 1 or players not in rules.players:
        allowed = ", ".join(map(str, rules.players))
        problems.append(
            Problem(
                ProblemCode.PLAYERS,
                f"{players} players in {len(round_.sides)} sides: {rules.name} is played by "
                f"{allowed}",
            )
        )
    every_piece = [
        p
        for side in round_.sides
        for group in (*side.melds, *side.hands, side.pot_unplayed)
        for p in group
    ]
    problems.extend(count_problems(every_piece, rules))
    closers = [side.name for side in round_.sides if side.closed]
    if len(closers) > 1:
        problems.append(
            Problem(ProblemCode.TWO_CLOSERS, f"only one side can close: {', '.join(closers)}")
        )
    if rules.rummy_scoring is not None:
        sheets = _score_rummy(round_, problems)
        return RoundSheet(sheets, tuple(problems))

    verdicts = {
        side.name: tuple(validate_meld(m, rules, ordered=round_.ordered) for m in side.melds)
        for side in round_.sides
    }
    has_burraco = {name: any(v.burraco for v in vs) for name, vs in verdicts.items()}
    if rules.void_without_burraco and not closers and not any(has_burraco.values()):
        void = tuple(
            SideSheet(
                side.name,
                (
                    Line(
                        LineReason.VOID,
                        0,
                        (),
                        "hand void: the stock ran out and nobody has a burraco",
                    ),
                ),
            )
            for side in round_.sides
        )
        return RoundSheet(void, tuple(problems), void=True)
    sheets = tuple(_score_side(side, verdicts[side.name], rules, problems) for side in round_.sides)
    return RoundSheet(sheets, tuple(problems))


def _score_side(
    side: Side, verdicts: Sequence[Verdict], rules: Rules, problems: list[Problem]
) -> SideSheet:
    lines: list[Line] = []
    for i, (meld, verdict) in enumerate(zip(side.melds, verdicts, strict=True), start=1):
        lines.append(Line(LineReason.MELD, verdict.points, verdict.pieces or meld, f"meld {i}"))
        if not verdict.valid:
            problems.append(_invalid_meld(side.name, i, meld, verdict))
        elif verdict.burraco:
            kind = verdict.burraco.value
            lines.append(
                Line(
                    LineReason(f"burraco-{kind}"), verdict.bonus, verdict.pieces, f"{kind} burraco"
                )
            )
    if side.closed:
        refusal = _closing_refusal(side, verdicts, rules)
        if refusal:
            problems.append(
                Problem(ProblemCode.CANNOT_CLOSE, f"{side.name} cannot close: {refusal}")
            )
        else:
            lines.append(Line(LineReason.CLOSING, rules.closing_bonus, (), "closing"))
        if all(hand for hand in side.hands):
            problems.append(
                Problem(
                    ProblemCode.CLOSED_WITH_HAND,
                    f"{side.name} closed but every hand of the side still holds pieces",
                )
            )
    for i, hand in enumerate(side.hands, start=1):
        if hand:
            label = "hand" if len(side.hands) == 1 else f"hand {i}"
            lines.append(Line(LineReason.HAND, -sum(rules.value(p) for p in hand), hand, label))
    if rules.pot and not side.took_pot:
        lines.append(Line(LineReason.POT_NOT_TAKEN, -rules.pot_penalty, (), "pot never taken"))
    if side.pot_unplayed and rules.pot_unplayed_is_hand:
        lines.append(
            Line(
                LineReason.POT_NOT_PLAYED,
                -sum(rules.value(p) for p in side.pot_unplayed),
                side.pot_unplayed,
                "pot taken but not played",
            )
        )
    return SideSheet(side.name, tuple(lines))


def _invalid_meld(side: str, number: int, meld: Sequence[Piece], verdict: Verdict) -> Problem:
    reasons = "; ".join(p.message for p in verdict.problems)
    return Problem(
        ProblemCode.INVALID_MELD,
        f"{side}: meld {number} ({format_pieces(meld)}) is not valid: {reasons}",
    )


def _closing_refusal(side: Side, verdicts: Sequence[Verdict], rules: Rules) -> str:
    reasons = []
    if rules.close_needs_burraco and not any(v.burraco for v in verdicts):
        reasons.append("no burraco")
    if rules.pot and rules.close_needs_pot and not side.took_pot:
        reasons.append("the pot was never taken")
    if (
        rules.closing_discard is ClosingDiscard.NOT_WILD
        and side.discard is not None
        and rules.is_wild(side.discard)
    ):
        reasons.append(f"the closing discard {side.discard} is a wild")
    return ", ".join(reasons)


def _score_rummy(round_: Round, problems: list[Problem]) -> tuple[SideSheet, ...]:
    rules = round_.rules
    racks: dict[str, tuple[Piece, ...]] = {}
    for side in round_.sides:
        for i, meld in enumerate(side.melds, start=1):
            verdict = validate_meld(meld, rules, ordered=round_.ordered)
            if not verdict.valid:
                problems.append(_invalid_meld(side.name, i, meld, verdict))
        if side.first_meld:
            problems.extend(
                Problem(p.code, f"{side.name}: {p.message}")
                for p in first_meld_problems(side.first_meld, rules)
            )
        racks[side.name] = tuple(p for hand in side.hands for p in hand)
        if side.closed and racks[side.name]:
            problems.append(
                Problem(
                    ProblemCode.CLOSED_WITH_HAND,
                    f"{side.name} went out but still holds {format_pieces(racks[side.name])}",
                )
            )
    penalty = {name: sum(_rack_value(p, rules) for p in rack) for name, rack in racks.items()}
    sheets = []
    for side in round_.sides:
        rack = racks[side.name]
        if rules.rummy_scoring is RummyScoring.OFFICIAL:
            if side.closed:
                gained = sum(v for name, v in penalty.items() if name != side.name)
                lines = [Line(LineReason.WENT_OUT, gained, (), "went out: the others' racks")]
            else:
                lines = [Line(LineReason.RACK, -penalty[side.name], rack, "rack")]
        else:
            lines = [Line(LineReason.RACK, penalty[side.name], rack, "rack (against)")]
        sheets.append(SideSheet(side.name, tuple(lines)))
    return tuple(sheets)


def _rack_value(piece: Piece, rules: Rules) -> int:
    return rules.value_joker if isinstance(piece, Joker) else rules.value(piece)


def first_meld_problems(
    melds: Sequence[Sequence[Piece | str]], rules: Rules
) -> tuple[Problem, ...]:
    """Tile Rummy: a player's first play must be new melds worth ``first_meld_min``.

    >>> rummy = Rules.preset("rummy-003")
    >>> first_meld_problems([["R10", "R11", "R12"]], rummy)
    ()
    >>> [p.message for p in first_meld_problems([["K5", "R5", "JK"], ["B1", "B2", "B3"]], rummy)]
    ['the first meld is worth 21: it needs 30 or more']
    """
    verdicts = [validate_meld(m, rules) for m in melds]
    problems = [
        Problem(
            ProblemCode.INVALID_MELD, f"first meld {i}: " + "; ".join(p.message for p in v.problems)
        )
        for i, v in enumerate(verdicts, start=1)
        if not v.valid
    ]
    worth = sum(v.points for v in verdicts if v.valid)
    if worth < rules.first_meld_min:
        problems.append(
            Problem(
                ProblemCode.FIRST_MELD,
                f"the first meld is worth {worth}: it needs {rules.first_meld_min} or more",
            )
        )
    return tuple(problems)
