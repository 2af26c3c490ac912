"""Table rules: the five presets of RULES.md and every option a household may change.

A :class:`Rules` is a frozen value that validates itself; change it with
:meth:`Rules.replace` and store it with :meth:`Rules.to_json` /
:meth:`Rules.from_json`.

>>> fibur = Rules.preset("burraco-fibur")
>>> fibur.target, fibur.jokers, fibur.semi_pure
(2005, 4, <SemiPure.NATURALS: 'naturals'>)
>>> Rules.from_json({"preset": "burraco-fibur", "target": 1005}).target
1005
>>> Rules.from_json(fibur.to_json()) == fibur
True
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from scorer.errors import InvalidRulesError, UnknownPresetError
from scorer.pieces import Joker, Piece, PieceKind


class SemiPure(StrEnum):
    """When a burraco holding one wild is semi-pure (semipulito)."""

    NONE = "none"
    """No semi-pure burraco: a wild makes it impure (source 000, Burako)."""
    NATURALS = "naturals"
    """FIBUR: the wild at an end, not interrupting, beside at least 7 naturals."""
    AT_END = "at-end"
    """Source 002: the wild at an end; the 7 or more pieces follow one another."""


class ClosingDiscard(StrEnum):
    """How the side that closes must play its last piece."""

    ANY = "any"
    """By a discard or by melding the last piece (source 003)."""
    REQUIRED = "required"
    """With a discard."""
    NOT_WILD = "not-wild"
    """With a discard that is not a wild (FIBUR)."""


class RummyScoring(StrEnum):
    """Tile Rummy: who scores what at the end of a game."""

    PENALTY = "penalty"
    """Source 003: the player who went out scores 0, the others add their rack."""
    OFFICIAL = "official"
    """Official Rummikub: losers lose their rack, the winner gains the sum."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of a table's rules. Defaults are the FIBUR values.

    >>> Rules.preset("burraco-fibur").replace(jokers=9)
    Traceback (most recent call last):
    ...
    scorer.errors.InvalidRulesError: jokers must be 0-8, not 9
    """

    name: str = "custom"
    pieces: PieceKind = PieceKind.CARDS
    # -- the pieces in play
    decks: int = 2
    """Copies of each natural piece (two French decks, two tiles of each)."""
    jokers: int = 4
    players: tuple[int, ...] = (2, 3, 4)
    # -- melds
    min_meld: int = 3
    twos_wild: bool = True
    """2s are wild (pinelle) unless standing in their natural place in a run."""
    max_wilds: int | None = 1
    """Most wilds in one meld; None: any number (tile Rummy)."""
    set_max_naturals: int | None = 8
    set_max_size: int | None = None
    set_distinct: bool = False
    """A set's pieces must all differ in suit/colour (tile Rummy)."""
    ace_high: bool = True
    """The ace (tile 1) may follow the king (13): Q-K-A, 12-13-1."""
    wrap: bool = False
    """Runs may turn the corner: K-A-2, 13-1-2 (the ace then also follows the king)."""
    # -- burraco / canasta
    burraco_size: int | None = 7
    """Pieces that make a burraco (canasta); None: there are none (tile Rummy)."""
    semi_pure: SemiPure = SemiPure.NATURALS
    bonus_pure: int = 200
    bonus_semi_pure: int = 150
    bonus_impure: int = 100
    # -- piece values
    face_values: bool = False
    """Pieces are worth their number (tile Rummy) instead of the table below."""
    value_ace: int = 15
    value_two: int = 20
    value_low: int = 5
    """3 to 7."""
    value_high: int = 10
    """8 to K (13)."""
    value_joker: int = 30
    joker_in_meld_stands_for: bool = False
    """A joker in a meld is worth the piece it stands for (tile Rummy)."""
    # -- closing and the pot (pozzetto / muerto)
    closing_bonus: int = 100
    close_needs_burraco: bool = True
    close_needs_pot: bool = True
    closing_discard: ClosingDiscard = ClosingDiscard.NOT_WILD
    pot: bool = True
    pot_penalty: int = 100
    pot_unplayed_is_hand: bool = True
    """A pot taken but not played counts against the side like a hand (FIBUR)."""
    void_without_burraco: bool = False
    """The stock ran out and no side has a burraco: the hand is void (Burako)."""
    # -- tile Rummy
    rearrange: bool = False
    """Table melds may be split and rearranged, table jokers swapped (tile Rummy)."""
    first_meld_min: int = 0
    rummy_scoring: RummyScoring | None = None
    """Set for tile Rummy: rack penalties instead of melded points."""
    # -- the game
    target: int | None = 2005
    rounds: int | None = None
    """A game of a fixed number of rounds (quick game, tile Rummy's four games)."""
    lowest_wins: bool = False
    victory_points: bool = False
    """FIBUR tournament victory points per round (two sides)."""

    def __post_init__(self) -> None:
        _validate(self)

    # ------------------------------------------------------------------ presets
    @staticmethod
    def preset(name: str) -> Rules:
        """A preset of RULES.md by name.

        >>> Rules.preset("rummy-003").first_meld_min
        30
        """
        try:
            return PRESETS[name.strip().lower()]
        except KeyError:
            raise UnknownPresetError(name, tuple(PRESETS)) from None

    @staticmethod
    def default(kind: PieceKind) -> Rules:
        """The default preset: ``burraco-fibur`` for cards, ``burako-003`` for tiles."""
        return PRESETS["burraco-fibur" if kind is PieceKind.CARDS else "burako-003"]

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (named ``custom`` unless a name is given)."""
        unknown = sorted(set(changes) - set(OPTION_NAMES) - {"name"})
        if unknown:
            raise InvalidRulesError(f"unknown rules option(s): {', '.join(unknown)}")
        if "name" not in changes and any(getattr(self, k) != v for k, v in changes.items()):
            changes["name"] = "custom" if self.name == "custom" else f"{self.name}+custom"
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------------- values
    def value(self, piece: Piece, stands_for: int | None = None) -> int:
        """Points of a piece; ``stands_for`` is the number a joker stands for in a meld.

        >>> fibur, rummy = Rules.preset("burraco-fibur"), Rules.preset("rummy-003")
        >>> from scorer.pieces import parse_pieces
        >>> [fibur.value(p) for p in parse_pieces("AS 2S 7S 8S KS JK")]
        [15, 20, 5, 10, 10, 30]
        >>> [rummy.value(p) for p in parse_pieces("R1 R2 R13 JK")], rummy.value(Joker(), 9)
        ([1, 2, 13, 50], 9)
        """
        if isinstance(piece, Joker):
            if stands_for is not None and self.joker_in_meld_stands_for:
                return self._number_value(stands_for)
            return self.value_joker
        return self._number_value(piece.rank.number)

    def _number_value(self, number: int) -> int:
        number = (number - 1) % 13 + 1  # 14 is the high ace; wrap goes on past it
        if self.face_values:
            return number
        if number == 1:
            return self.value_ace
        if number == 2:
            return self.value_two
        return self.value_low if number <= 7 else self.value_high

    def is_wild(self, piece: Piece) -> bool:
        """Whether a piece can stand for another (a joker; a 2 where 2s are wild)."""
        return piece.number == 0 or (self.twos_wild and piece.number == 2)

    def burraco_bonus(self, kind: str) -> int:
        if kind == "pure":
            return self.bonus_pure
        if kind == "semi-pure":
            return self.bonus_semi_pure
        if kind == "impure":
            return self.bonus_impure
        raise ValueError(f"no burraco kind {kind!r}: pure, semi-pure or impure")

    # --------------------------------------------------------------------- JSON
    def to_json(self) -> dict[str, Any]:
        """Every option as plain JSON values (enums as strings, tuples as lists)."""
        out: dict[str, Any] = {"name": self.name}
        for key in OPTION_NAMES:
            value = getattr(self, key)
            out[key] = list(value) if isinstance(value, tuple) else value
        return out

    @staticmethod
    def from_json(data: Mapping[str, Any] | str) -> Rules:
        """Rules from JSON: a preset name, or an object of options.

        An object may name a ``preset`` to start from; the options it gives
        replace that preset's (without one it starts from the default preset of
        its ``pieces``). Unknown options and wrong types are errors.

        >>> Rules.from_json("burako-003").name
        'burako-003'
        >>> Rules.from_json({"preset": "burako-003", "wrap": "yes"})
        Traceback (most recent call last):
        ...
        scorer.errors.InvalidRulesError: rules option 'wrap' must be true or false, not 'yes'
        """
        if isinstance(data, str):
            return Rules.preset(data)
        if not isinstance(data, Mapping):
            raise InvalidRulesError("rules must be a preset name or an object of options")
        options = dict(data)
        preset_name = options.pop("preset", None)
        name = options.pop("name", None)
        if preset_name is None and isinstance(name, str) and name in PRESETS:
            preset_name = name
        if preset_name is not None:
            if not isinstance(preset_name, str):
                raise InvalidRulesError("rules option 'preset' must be a preset name")
            base = Rules.preset(preset_name)
        else:
            kind = _coerce("pieces", options.get("pieces", "cards"))
            base = Rules.default(kind)
        changes = {key: _coerce(key, value) for key, value in options.items()}
        rules = base.replace(**changes)
        if isinstance(name, str) and name.strip():
            rules = dataclasses.replace(rules, name=name.strip())
        return rules

    def describe(self) -> str:
        """Every option, one per line, for people."""
        lines = [f"{self.name}"]
        for key in OPTION_NAMES:
            value = getattr(self, key)
            shown = ", ".join(map(str, value)) if isinstance(value, tuple) else value
            if isinstance(shown, bool):
                shown = "yes" if shown else "no"
            lines.append(f"  {key:<26} {'-' if shown is None else shown}")
        return "\n".join(lines)


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "name")
_HINTS = typing.get_type_hints(Rules)


def _coerce(key: str, value: Any) -> Any:
    """Check one JSON value against the option's type; enums from strings."""
    if key not in _HINTS or key == "name":
        raise InvalidRulesError(f"unknown rules option {key!r}")
    hint = _HINTS[key]
    args = typing.get_args(hint)
    optional = isinstance(hint, types.UnionType) and type(None) in args
    base = next((a for a in args if a is not type(None)), hint) if optional else hint
    if value is None:
        if optional:
            return None
        raise InvalidRulesError(f"rules option {key!r} cannot be null")
    if base is bool:
        if not isinstance(value, bool):
            raise InvalidRulesError(f"rules option {key!r} must be true or false, not {value!r}")
        return value
    if base is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidRulesError(f"rules option {key!r} must be a whole number, not {value!r}")
        return value
    if isinstance(base, type) and issubclass(base, StrEnum):
        try:
            return base(value)
        except ValueError:
            allowed = ", ".join(member.value for member in base)
            raise InvalidRulesError(
                f"rules option {key!r} must be one of {allowed}, not {value!r}"
            ) from None
    if typing.get_origin(base) is tuple:
        if not isinstance(value, list | tuple) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise InvalidRulesError(f"rules option {key!r} must be a list of whole numbers")
        return tuple(value)
    raise InvalidRulesError(f"rules option {key!r} has an unsupported type")  # pragma: no cover


def _validate(rules: Rules) -> None:
    def bad(message: str) -> InvalidRulesError:
        return InvalidRulesError(message)

    if not 1 <= rules.decks <= 4:
        raise bad(f"decks must be 1-4, not {rules.decks}")
    if not 0 <= rules.jokers <= 8:
        raise bad(f"jokers must be 0-8, not {rules.jokers}")
    if not rules.players or any(p not in (2, 3, 4) for p in rules.players):
        raise bad(f"players must be some of 2, 3, 4, not {rules.players}")
    if tuple(sorted(set(rules.players))) != rules.players:
        raise bad(f"players must be listed once each, in order, not {rules.players}")
    if not 2 <= rules.min_meld <= 7:
        raise bad(f"min_meld must be 2-7, not {rules.min_meld}")
    if rules.max_wilds is not None and rules.max_wilds < 1:
        raise bad("max_wilds must be 1 or more, or null for any number")
    if rules.set_max_naturals is not None and rules.set_max_naturals < rules.min_meld - 1:
        raise bad("set_max_naturals is smaller than a meld")
    if rules.set_max_size is not None and rules.set_max_size < rules.min_meld:
        raise bad("set_max_size is smaller than a meld")
    if rules.burraco_size is not None and not rules.min_meld <= rules.burraco_size <= 14:
        raise bad(f"burraco_size must be min_meld-14, not {rules.burraco_size}")
    for key in (
        "bonus_pure",
        "bonus_semi_pure",
        "bonus_impure",
        "value_ace",
        "value_two",
        "value_low",
        "value_high",
        "value_joker",
        "closing_bonus",
        "pot_penalty",
        "first_meld_min",
    ):
        amount = getattr(rules, key)
        if not 0 <= amount <= 10_000:
            raise bad(f"{key} must be 0-10000, not {amount}")
    if rules.target is not None and not 1 <= rules.target <= 1_000_000:
        raise bad(f"target must be 1-1000000, not {rules.target}")
    if rules.rounds is not None and not 1 <= rules.rounds <= 1000:
        raise bad(f"rounds must be 1-1000, not {rules.rounds}")
    if rules.victory_points and rules.players != (2,) and 2 not in rules.players:
        raise bad("victory points compare two sides: players must allow 2 sides")


PRESETS: dict[str, Rules] = {
    "burraco-fibur": Rules(name="burraco-fibur"),
    "burraco-000": Rules(
        name="burraco-000",
        jokers=2,
        players=(2,),
        semi_pure=SemiPure.NONE,
        closing_discard=ClosingDiscard.REQUIRED,
        pot_unplayed_is_hand=False,
        target=None,
    ),
    "burraco-002": Rules(
        name="burraco-002",
        players=(2, 4),
        semi_pure=SemiPure.AT_END,
        closing_discard=ClosingDiscard.REQUIRED,
        pot_unplayed_is_hand=False,
        target=None,
    ),
    "burako-003": Rules(
        name="burako-003",
        pieces=PieceKind.TILES,
        jokers=2,
        players=(2, 4),
        semi_pure=SemiPure.NONE,
        value_joker=50,
        closing_discard=ClosingDiscard.ANY,
        pot_unplayed_is_hand=False,
        void_without_burraco=True,
        target=3000,
    ),
    "rummy-003": Rules(
        name="rummy-003",
        pieces=PieceKind.TILES,
        jokers=2,
        players=(2, 3, 4),
        twos_wild=False,
        max_wilds=None,
        set_max_naturals=4,
        set_max_size=4,
        set_distinct=True,
        ace_high=False,
        burraco_size=None,
        semi_pure=SemiPure.NONE,
        bonus_pure=0,
        bonus_semi_pure=0,
        bonus_impure=0,
        face_values=True,
        value_joker=50,
        joker_in_meld_stands_for=True,
        closing_bonus=0,
        close_needs_burraco=False,
        close_needs_pot=False,
        closing_discard=ClosingDiscard.ANY,
        pot=False,
        pot_penalty=0,
        pot_unplayed_is_hand=False,
        rearrange=True,
        first_meld_min=30,
        rummy_scoring=RummyScoring.PENALTY,
        target=None,
        rounds=4,
        lowest_wins=True,
    ),
}
