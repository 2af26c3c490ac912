"""Pieces and their notation: cards, tiles and jokers.

Notation (RULES.md): a card is rank + suit (``7H``, ``10S``, ``AD``), a tile is
colour letter + number (``K7`` black, ``R13`` red, ``B1`` blue, ``Y12`` yellow),
a joker is ``JK``. Parsing is case-insensitive; printing is canonical; ``repr``
is code that rebuilds the piece.

>>> parse_piece("10s")
Card.parse('10S')
>>> str(parse_piece(" r13 "))
'R13'
>>> parse_pieces("7h 8h, jk")
(Card.parse('7H'), Card.parse('8H'), Joker.parse('JK'))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, TypeAlias

from scorer.errors import InvalidPieceError, WrongPieceKindError


class PieceKind(StrEnum):
    """What a table is played with."""

    CARDS = "cards"
    TILES = "tiles"


class Rank(StrEnum):
    """Card ranks; a tile's number is the rank of the same number (A is 1)."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @property
    def number(self) -> int:
        """1 for the ace, 2-10, 11 J, 12 Q, 13 K.

        >>> Rank.QUEEN.number
        12
        """
        return _RANK_NUMBER[self]

    @classmethod
    def from_number(cls, number: int) -> Rank:
        """The rank of a number 1-13 (14 is the high ace).

        >>> Rank.from_number(14)
        <Rank.ACE: 'A'>
        """
        if not 1 <= number <= 14:
            raise ValueError(f"no rank has number {number}: ranks are 1-13 (14: high ace)")
        return _RANKS[(number - 1) % 13]


_RANKS: tuple[Rank, ...] = tuple(Rank)
_RANK_NUMBER: dict[Rank, int] = {rank: i + 1 for i, rank in enumerate(_RANKS)}


class Suit(StrEnum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"


class Colour(StrEnum):
    BLACK = "K"
    RED = "R"
    BLUE = "B"
    YELLOW = "Y"


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A card of a French deck.

    >>> Card.parse("qd").rank.number
    12
    """

    rank: Rank
    suit: Suit
    number: int = field(init=False, repr=False, compare=False)
    """The rank's number, 1 (ace) to 13 (king)."""
    group: Suit = field(init=False, repr=False, compare=False)
    """What a run must share: the suit."""
    code: str = field(init=False, repr=False, compare=False)
    """The canonical notation."""

    kind: ClassVar[PieceKind] = PieceKind.CARDS
    is_joker: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "number", _RANK_NUMBER[self.rank])
        object.__setattr__(self, "group", self.suit)
        object.__setattr__(self, "code", f"{self.rank.value}{self.suit.value}")

    @classmethod
    def parse(cls, token: str) -> Card:
        piece = parse_piece(token, PieceKind.CARDS)
        if not isinstance(piece, Card):
            raise InvalidPieceError(token, "a joker is not a card of a suit")
        return piece

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


@dataclass(frozen=True, slots=True, order=True)
class Tile:
    """A numbered tile.

    >>> Tile.parse("y12")
    Tile.parse('Y12')
    """

    colour: Colour
    rank: Rank
    number: int = field(init=False, repr=False, compare=False)
    """1 to 13."""
    group: Colour = field(init=False, repr=False, compare=False)
    """What a run must share: the colour."""
    code: str = field(init=False, repr=False, compare=False)
    """The canonical notation."""

    kind: ClassVar[PieceKind] = PieceKind.TILES
    is_joker: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "number", _RANK_NUMBER[self.rank])
        object.__setattr__(self, "group", self.colour)
        object.__setattr__(self, "code", f"{self.colour.value}{self.number}")

    @classmethod
    def parse(cls, token: str) -> Tile:
        piece = parse_piece(token, PieceKind.TILES)
        if not isinstance(piece, Tile):
            raise InvalidPieceError(token, "a joker is not a numbered tile")
        return piece

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Tile.parse({str(self)!r})"


@dataclass(frozen=True, slots=True, order=True)
class Joker:
    """A joker; whether it is a card or a tile follows from the table's rules."""

    is_joker: ClassVar[bool] = True
    number: ClassVar[int] = 0
    """A joker has no number of its own."""
    code: ClassVar[str] = "JK"

    @classmethod
    def parse(cls, token: str) -> Joker:
        piece = parse_piece(token)
        if not isinstance(piece, Joker):
            raise InvalidPieceError(token, "not a joker")
        return piece

    def __str__(self) -> str:
        return "JK"

    def __repr__(self) -> str:
        return "Joker.parse('JK')"


Piece: TypeAlias = Card | Tile | Joker
Natural: TypeAlias = Card | Tile
Group: TypeAlias = Suit | Colour

JOKER = Joker()

_SUIT_ALIASES = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
_CARD_RANKS = {rank.value: rank for rank in Rank}
_SUITS = {suit.value: suit for suit in Suit}
_COLOURS = {colour.value: colour for colour in Colour}
_CACHE: dict[tuple[str, PieceKind | None], Piece] = {}


def parse_piece(token: str, kind: PieceKind | None = None) -> Piece:
    """Read one piece; ``kind`` rejects a tile at a card table and vice versa.

    >>> parse_piece("K7"), parse_piece("KS")
    (Tile.parse('K7'), Card.parse('KS'))
    >>> parse_piece("7X")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorer.errors.InvalidPieceError: '7X' is not a piece (unknown suit 'X'): a card is rank + ...
    >>> parse_piece("R7", PieceKind.CARDS)
    Traceback (most recent call last):
    ...
    scorer.errors.WrongPieceKindError: 'R7' is not a card: these rules are played with cards
    """
    if not isinstance(token, str):
        raise InvalidPieceError(repr(token), "not a string")
    cached = _CACHE.get((token, kind))
    if cached is not None:
        return cached
    piece = _parse_uncached(token)
    if kind is not None and not isinstance(piece, Joker) and piece.kind is not kind:
        raise WrongPieceKindError(token, kind.value)
    if len(_CACHE) < 4096:
        _CACHE[(token, kind)] = piece
    return piece


def _parse_uncached(token: str) -> Piece:
    text = token.strip().upper()
    for symbol, letter in _SUIT_ALIASES.items():
        text = text.replace(symbol, letter)
    if not text:
        raise InvalidPieceError(token, "empty")
    if text in ("JK", "JOKER", "★"):
        return JOKER
    if text[-1].isdigit():
        colour = _COLOURS.get(text[0])
        if colour is None:
            raise InvalidPieceError(token, f"unknown colour {text[0]!r}")
        digits = text[1:]
        # ASCII digits only: "¹" is a digit to str.isdigit() but not to int()
        ascii_number = digits.isascii() and digits.isdigit() and not digits.startswith("0")
        if not ascii_number or not 1 <= int(digits) <= 13:
            raise InvalidPieceError(token, "a tile's number is 1-13")
        return Tile(colour, Rank.from_number(int(digits)))
    suit = _SUITS.get(text[-1])
    if suit is None:
        raise InvalidPieceError(token, f"unknown suit {text[-1]!r}")
    rank_text = text[:-1]
    rank = _CARD_RANKS.get("10" if rank_text == "T" else rank_text)
    if rank is None:
        raise InvalidPieceError(token, f"unknown rank {rank_text!r}" if rank_text else "no rank")
    return Card(rank, suit)


def parse_pieces(text: str | Iterable[str], kind: PieceKind | None = None) -> tuple[Piece, ...]:
    """Read pieces from a string (spaces or commas between them) or from tokens.

    >>> parse_pieces(["k1", "K13"], PieceKind.TILES)
    (Tile.parse('K1'), Tile.parse('K13'))
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return tuple(parse_piece(token, kind) for token in tokens)


def format_pieces(pieces: Iterable[Piece]) -> str:
    """Pieces in notation, space-separated.

    >>> format_pieces(parse_pieces("jk 2s 10d"))
    'JK 2S 10D'
    """
    return " ".join(str(piece) for piece in pieces)


def full_set(kind: PieceKind) -> tuple[Natural, ...]:
    """Every distinct natural piece of one deck or tile set (52 of each).

    >>> len(full_set(PieceKind.TILES)), str(full_set(PieceKind.CARDS)[0])
    (52, 'AS')
    """
    if kind is PieceKind.CARDS:
        return tuple(Card(rank, suit) for suit in Suit for rank in Rank)
    return tuple(Tile(colour, rank) for colour in Colour for rank in Rank)
