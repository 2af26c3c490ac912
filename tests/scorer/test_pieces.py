"""Notation of RULES.md: parsing, canonical printing, round-tripping repr, clear errors."""

from __future__ import annotations

import pytest

from scorer import (
    Card,
    Colour,
    InvalidPieceError,
    Joker,
    PieceKind,
    Rank,
    Suit,
    Tile,
    WrongPieceKindError,
    full_set,
    parse_piece,
    parse_pieces,
)
from scorer import pieces as pieces_module


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("7H", Card(Rank.SEVEN, Suit.HEARTS)),
        ("7h", Card(Rank.SEVEN, Suit.HEARTS)),
        ("10S", Card(Rank.TEN, Suit.SPADES)),
        ("ad", Card(Rank.ACE, Suit.DIAMONDS)),
        ("KC", Card(Rank.KING, Suit.CLUBS)),
        (" qs ", Card(Rank.QUEEN, Suit.SPADES)),
        ("7♥", Card(Rank.SEVEN, Suit.HEARTS)),
        ("K7", Tile(Colour.BLACK, Rank.SEVEN)),
        ("r13", Tile(Colour.RED, Rank.KING)),
        ("B1", Tile(Colour.BLUE, Rank.ACE)),
        ("Y12", Tile(Colour.YELLOW, Rank.QUEEN)),
        ("JK", Joker()),
        ("jk", Joker()),
    ],
)
def test_notation_parses_case_insensitively(token: str, expected: object) -> None:
    assert parse_piece(token) == expected


@pytest.mark.parametrize("kind", list(PieceKind))
def test_every_piece_prints_canonically_and_round_trips(kind: PieceKind) -> None:
    for piece in (*full_set(kind), Joker()):
        assert parse_piece(str(piece)) == piece
        assert parse_piece(str(piece).lower()) == piece
        rebuilt = eval(repr(piece), vars(pieces_module))  # repr is code that rebuilds it
        assert rebuilt == piece and type(rebuilt) is type(piece)


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("7X", "unknown suit 'X'"),
        ("1H", "unknown rank '1'"),
        ("11H", "unknown rank '11'"),
        ("H", "no rank"),
        ("R0", "a tile's number is 1-13"),
        ("R14", "a tile's number is 1-13"),
        ("G5", "unknown colour 'G'"),
        ("", "empty"),
        ("R07", "a tile's number is 1-13"),
    ],
)
def test_bad_token_names_itself_and_says_what_is_valid(token: str, reason: str) -> None:
    with pytest.raises(InvalidPieceError) as caught:
        parse_piece(token)
    message = str(caught.value)
    assert f"{token!r} is not a piece ({reason})" in message
    assert "7H" in message and "K7" in message and "JK" in message


@pytest.mark.parametrize(("token", "kind"), [("R7", PieceKind.CARDS), ("7H", PieceKind.TILES)])
def test_wrong_kind_of_piece_is_refused(token: str, kind: PieceKind) -> None:
    with pytest.raises(WrongPieceKindError, match=f"'{token}' is not a"):
        parse_piece(token, kind)


def test_joker_fits_either_kind() -> None:
    assert parse_piece("JK", PieceKind.CARDS) == parse_piece("JK", PieceKind.TILES) == Joker()


def test_parse_pieces_splits_on_spaces_and_commas() -> None:
    assert [str(p) for p in parse_pieces("7h,8h  jk")] == ["7H", "8H", "JK"]


def test_full_sets_hold_52_distinct_pieces() -> None:
    for kind in PieceKind:
        assert len(set(full_set(kind))) == 52


def test_rank_numbers() -> None:
    assert [r.number for r in Rank] == list(range(1, 14))
    assert Rank.from_number(14) is Rank.ACE
    with pytest.raises(ValueError, match="no rank has number 15"):
        Rank.from_number(15)
