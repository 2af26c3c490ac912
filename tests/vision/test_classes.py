"""The class-id <-> face mapping: every face exactly once, and back."""

from __future__ import annotations

import pytest

from vision.classes import (
    ALL_FACES,
    CARD_FACES,
    COARSE,
    PIECES,
    SCHEMES,
    TILE_FACES,
    Face,
    FaceError,
    PieceKind,
    UnknownClassError,
    scheme,
)


def test_pieces_scheme_maps_each_face_to_one_id_and_back() -> None:
    ids = [PIECES.class_id(face) for face in ALL_FACES]
    assert sorted(ids) == list(range(106))
    for face, class_id in zip(ALL_FACES, ids, strict=True):
        assert PIECES.face(class_id) == face
        assert PIECES.faces_of(class_id) == (face,)


def test_coarse_scheme_covers_every_face_once() -> None:
    counts = [len(COARSE.faces_of(i)) for i in range(COARSE.num_classes)]
    assert counts == [52, 1, 52, 1]
    assert sum(counts) == len(ALL_FACES) == 106


@pytest.mark.parametrize(
    ("kind", "code", "pieces_id", "pieces_name", "coarse_name"),
    [
        (PieceKind.CARD, "AS", 0, "AS", "card-corner"),
        (PieceKind.CARD, "KS", 12, "KS", "card-corner"),
        (PieceKind.CARD, "AH", 13, "AH", "card-corner"),
        (PieceKind.CARD, "10D", 35, "10D", "card-corner"),
        (PieceKind.CARD, "KC", 51, "KC", "card-corner"),
        (PieceKind.CARD, "JK", 52, "JK-card", "card-joker"),
        (PieceKind.TILE, "K1", 53, "K1", "tile"),
        (PieceKind.TILE, "R13", 78, "R13", "tile"),
        (PieceKind.TILE, "B1", 79, "B1", "tile"),
        (PieceKind.TILE, "Y13", 104, "Y13", "tile"),
        (PieceKind.TILE, "JK", 105, "JK-tile", "tile-joker"),
    ],
)
def test_documented_ids(
    kind: PieceKind, code: str, pieces_id: int, pieces_name: str, coarse_name: str
) -> None:
    face = Face.parse(code, kind)
    assert PIECES.class_id(face) == pieces_id
    assert PIECES.class_name(pieces_id) == pieces_name
    assert COARSE.class_name(COARSE.class_id(face)) == coarse_name


def test_names_are_unique() -> None:
    for s in SCHEMES.values():
        assert len(set(s.names)) == len(s.names)


@pytest.mark.parametrize(
    ("text", "kind", "canonical"),
    [("7h", PieceKind.CARD, "7H"), (" 10s", PieceKind.CARD, "10S"), ("jk", PieceKind.TILE, "JK"),
     ("y12", PieceKind.TILE, "Y12")],
)  # fmt: skip
def test_parse_is_case_insensitive_and_repr_round_trips(
    text: str, kind: PieceKind, canonical: str
) -> None:
    face = Face.parse(text, kind)
    assert str(face) == canonical
    assert eval(repr(face)) == face


@pytest.mark.parametrize(
    ("text", "kind"),
    [("1H", PieceKind.CARD), ("7X", PieceKind.CARD), ("K14", PieceKind.TILE),
     ("G3", PieceKind.TILE), ("K07", PieceKind.TILE), ("7H", PieceKind.TILE), ("", PieceKind.CARD)],
)  # fmt: skip
def test_bad_faces_raise(text: str, kind: PieceKind) -> None:
    with pytest.raises(FaceError):
        Face.parse(text, kind)


def test_unknown_ids_and_schemes_raise() -> None:
    with pytest.raises(UnknownClassError):
        PIECES.class_name(106)
    with pytest.raises(UnknownClassError):
        COARSE.face(0)  # stands for 52 faces
    with pytest.raises(UnknownClassError):
        scheme("fine")


def test_face_lists() -> None:
    assert len(CARD_FACES) == len(set(CARD_FACES)) == 52
    assert len(TILE_FACES) == len(set(TILE_FACES)) == 52
