"""The one class-id <-> piece mapping used by the whole project.

A *face* is what a detector box shows: the readable corner index of a card (rank + suit pip, a
card may show two readable corners and each gets its own box), or the whole face of a tile.
Faces print in the project's notation: cards ``7H``, ``10S``, ``AD``, ``KC``; tiles ``K7``
(black), ``R13`` (red), ``B1`` (blue), ``Y12`` (yellow/orange); the joker is ``JK`` for both,
told apart by :class:`PieceKind`.

Two schemes, selected with ``--scheme`` in ``meldcam synth`` / ``meldcam import-real``:

``pieces`` (106 classes, one per face)
    ids 0-51: cards, suits in the order S H D C, ranks A 2 3 4 5 6 7 8 9 10 J Q K within a suit
    (``AS``=0, ``KS``=12, ``AH``=13, ..., ``KC``=51); 52: card joker; 53-104: tiles, colours in
    the order K R B Y, numbers 1-13 within a colour (``K1``=53, ``Y13``=104); 105: tile joker.
    YOLO names are the codes, with the jokers named ``JK-card`` and ``JK-tile``.

``coarse`` (4 classes, for a small detector followed by a crop classifier)
    0 ``card-corner``, 1 ``card-joker``, 2 ``tile``, 3 ``tile-joker``.

>>> Face.parse("7h", PieceKind.CARD)
Face.parse('7H', PieceKind.CARD)
>>> PIECES.class_id(Face.parse("K7", PieceKind.TILE))
59
>>> COARSE.class_name(COARSE.class_id(Face.parse("JK", PieceKind.CARD)))
'card-joker'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from scorer.errors import MeldcamError
from scorer.pieces import Card, Colour, Rank, Suit, Tile, parse_piece


class PieceKind(StrEnum):
    CARD = "card"
    TILE = "tile"


JOKER = "JK"
RANKS: tuple[Rank, ...] = tuple(Rank)
SUITS: tuple[Suit, ...] = tuple(Suit)
COLOURS: tuple[Colour, ...] = tuple(Colour)
NUMBERS: tuple[int, ...] = tuple(range(1, 14))


class FaceError(ValueError):
    """A string that is not a card or tile in the project's notation."""


class UnknownClassError(KeyError):
    """A class id or name that the scheme does not have."""


@dataclass(frozen=True, slots=True)
class Face:
    """One printed face: a card (rank + suit), a tile (colour + number) or a joker."""

    kind: PieceKind
    code: str

    def __post_init__(self) -> None:
        if self.code != JOKER:
            ok = _parse_card(self.code) if self.kind is PieceKind.CARD else _parse_tile(self.code)
            if ok is None:
                raise FaceError(f"{self.code!r} is not a {self.kind} in the project's notation")

    @classmethod
    def parse(cls, text: str, kind: PieceKind) -> Face:
        """Parse ``7h``, ``10S``, ``k13``, ``jk`` (case-insensitive) into a canonical face."""
        code = text.strip().upper()
        if code != JOKER:
            parsed = _parse_card(code) if kind is PieceKind.CARD else _parse_tile(code)
            if parsed is None:
                raise FaceError(f"{text!r} is not a {kind} in the project's notation")
        return cls(kind, code)

    @classmethod
    def card(cls, rank: Rank, suit: Suit) -> Face:
        return cls(PieceKind.CARD, f"{rank}{suit}")

    @classmethod
    def tile(cls, colour: Colour, number: int) -> Face:
        return cls(PieceKind.TILE, f"{colour}{number}")

    @property
    def is_joker(self) -> bool:
        return self.code == JOKER

    @property
    def rank(self) -> Rank | None:
        parsed = _parse_card(self.code) if self.kind is PieceKind.CARD else None
        return parsed[0] if parsed else None

    @property
    def suit(self) -> Suit | None:
        parsed = _parse_card(self.code) if self.kind is PieceKind.CARD else None
        return parsed[1] if parsed else None

    @property
    def colour(self) -> Colour | None:
        parsed = _parse_tile(self.code) if self.kind is PieceKind.TILE else None
        return parsed[0] if parsed else None

    @property
    def number(self) -> int | None:
        parsed = _parse_tile(self.code) if self.kind is PieceKind.TILE else None
        return parsed[1] if parsed else None

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Face.parse({self.code!r}, PieceKind.{self.kind.name})"


def _parse(code: str) -> Card | Tile | None:
    """The rules core's reading of a canonical code (one notation for the whole project)."""
    try:
        piece = parse_piece(code)
    except MeldcamError:
        return None
    return piece if isinstance(piece, Card | Tile) and piece.code == code else None


def _parse_card(code: str) -> tuple[Rank, Suit] | None:
    piece = _parse(code)
    return (piece.rank, piece.suit) if isinstance(piece, Card) else None


def _parse_tile(code: str) -> tuple[Colour, int] | None:
    piece = _parse(code)
    return (piece.colour, piece.number) if isinstance(piece, Tile) else None


CARD_FACES: tuple[Face, ...] = tuple(Face.card(r, s) for s in SUITS for r in RANKS)
CARD_JOKER = Face(PieceKind.CARD, JOKER)
TILE_FACES: tuple[Face, ...] = tuple(Face.tile(c, n) for c in COLOURS for n in NUMBERS)
TILE_JOKER = Face(PieceKind.TILE, JOKER)
ALL_FACES: tuple[Face, ...] = (*CARD_FACES, CARD_JOKER, *TILE_FACES, TILE_JOKER)


def face_name(face: Face) -> str:
    """The class name of a face in the ``pieces`` scheme (``JK-card``/``JK-tile`` for jokers)."""
    return f"{JOKER}-{face.kind}" if face.is_joker else face.code


@dataclass(frozen=True, slots=True)
class ClassScheme:
    """A detector's class list: which id each face gets, and the id's name."""

    name: str
    names: tuple[str, ...]
    face_ids: tuple[tuple[Face, int], ...]

    def __post_init__(self) -> None:
        faces = [f for f, _ in self.face_ids]
        if sorted(faces, key=lambda f: (f.kind, f.code)) != sorted(
            ALL_FACES, key=lambda f: (f.kind, f.code)
        ):
            raise ValueError(f"scheme {self.name!r} must map every face exactly once")
        if any(not 0 <= i < len(self.names) for _, i in self.face_ids):
            raise ValueError(f"scheme {self.name!r} has an id outside its names")

    @property
    def num_classes(self) -> int:
        return len(self.names)

    def class_id(self, face: Face) -> int:
        for f, i in self.face_ids:
            if f == face:
                return i
        raise UnknownClassError(face)

    def class_name(self, class_id: int) -> str:
        if not 0 <= class_id < len(self.names):
            raise UnknownClassError(class_id)
        return self.names[class_id]

    def faces_of(self, class_id: int) -> tuple[Face, ...]:
        """Every face that this id stands for (one in ``pieces``, many in ``coarse``)."""
        self.class_name(class_id)
        return tuple(f for f, i in self.face_ids if i == class_id)

    def face(self, class_id: int) -> Face:
        """The single face of an id; raises for coarse ids that stand for many faces."""
        faces = self.faces_of(class_id)
        if len(faces) != 1:
            raise UnknownClassError(f"class {class_id} of {self.name!r} is not a single face")
        return faces[0]


def _pieces_scheme() -> ClassScheme:
    return ClassScheme(
        "pieces",
        tuple(face_name(f) for f in ALL_FACES),
        tuple((f, i) for i, f in enumerate(ALL_FACES)),
    )


def _coarse_id(face: Face) -> int:
    if face.kind is PieceKind.CARD:
        return 1 if face.is_joker else 0
    return 3 if face.is_joker else 2


def _coarse_scheme() -> ClassScheme:
    return ClassScheme(
        "coarse",
        ("card-corner", "card-joker", "tile", "tile-joker"),
        tuple((f, _coarse_id(f)) for f in ALL_FACES),
    )


PIECES = _pieces_scheme()
COARSE = _coarse_scheme()
SCHEMES: dict[str, ClassScheme] = {PIECES.name: PIECES, COARSE.name: COARSE}


def scheme(name: str) -> ClassScheme:
    """The scheme called ``name`` (``pieces`` or ``coarse``)."""
    try:
        return SCHEMES[name]
    except KeyError:
        raise UnknownClassError(
            f"no class scheme {name!r}; choose from {sorted(SCHEMES)}"
        ) from None
