"""The real sets map onto the project's classes exactly once, split by source photo."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from datasets.realdata import (
    RealDataError,
    card_faces,
    fan_cards,
    import_real,
    in_phone_frame,
    parse_label_line,
    source_photo,
    table_from_afar,
    tile_faces,
)
from vision.classes import CARD_FACES, COARSE, PIECES, TILE_FACES, TILE_JOKER, Face, PieceKind

REAL = Path(__file__).resolve().parents[3] / "shared" / "realdata"
TILES = REAL / "rummikub-tiles"
CARDS = REAL / "card-fans"
needs_real = pytest.mark.skipif(not REAL.is_dir(), reason=f"{REAL} not present")


def _class_map_rows() -> list[dict[str, str]]:
    if not (TILES / "class_map.csv").exists():
        return []
    with (TILES / "class_map.csv").open(newline="") as fh:
        return list(csv.DictReader(fh))


_COLOUR = {"black": "K", "red": "R", "blue": "B", "orange": "Y"}


@needs_real
@pytest.mark.parametrize("row", _class_map_rows(), ids=lambda r: r["name"])
def test_tile_class_maps_to_its_face(row: dict[str, str]) -> None:
    faces = tile_faces(TILES / "class_map.csv")
    expected = "JK" if row["name"] == "joker" else f"{_COLOUR[row['colour']]}{row['number']}"
    assert faces[int(row["class_id"])] == Face(PieceKind.TILE, expected)


@needs_real
def test_tile_classes_cover_every_tile_face_once() -> None:
    faces = tile_faces(TILES / "class_map.csv")
    assert len(faces) == 53
    assert Counter(faces) == Counter((*TILE_FACES, TILE_JOKER))
    # alphabetical ids: black_10 is id 1, not black_2
    assert faces[1] == Face.parse("K10", PieceKind.TILE)
    assert faces[26] == TILE_JOKER


def _classes_txt() -> list[str]:
    path = CARDS / "classes.txt"
    return [x.strip() for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


@needs_real
@pytest.mark.parametrize(("cid", "name"), list(enumerate(_classes_txt())))
def test_card_class_maps_by_the_id_rule(cid: int, name: str) -> None:
    ranks = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
    suit = "HDCS"[cid // 13]
    assert card_faces(CARDS / "classes.txt")[cid] == Face(PieceKind.CARD, ranks[cid % 13] + suit)
    assert name.upper() == ranks[cid % 13] + suit


@needs_real
def test_card_classes_cover_every_card_once() -> None:
    assert Counter(card_faces(CARDS / "classes.txt")) == Counter(CARD_FACES)


def test_card_classes_reject_a_shuffled_file(tmp_path: Path) -> None:
    names = ["Kh", "Ah"] + [
        f"{r}h" for r in ["Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
    ]
    (tmp_path / "classes.txt").write_text("\n".join(names))
    with pytest.raises(RealDataError, match="id 0 is Kh"):
        card_faces(tmp_path / "classes.txt")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("3 0.5 0.5 0.2 0.1", (3, (0.5, 0.5, 0.2, 0.1))),
        ("7 0.1 0.2 0.3 0.2 0.3 0.6 0.1 0.6", (7, (0.2, 0.4, 0.2, 0.4))),
        ("", None),
    ],
)
def test_box_and_polygon_lines(line: str, expected: tuple[int, tuple[float, ...]] | None) -> None:
    got = parse_label_line(line)
    if expected is None:
        assert got is None
    else:
        assert got is not None and got[0] == expected[0]
        assert got[1] == pytest.approx(expected[1])


def test_bad_label_line_raises() -> None:
    with pytest.raises(RealDataError):
        parse_label_line("1 0.5 0.5 0.2")


@pytest.mark.parametrize(
    ("name", "source"),
    [("rummy-10_jpeg.rf.12338387779ae72444b9b781bca33bc4.jpg", "rummy-10"),
     ("IMG_2_jpeg.rf.ab.jpg", "IMG_2"), ("deal1-md-sq.jpg", "deal1-md-sq")],
)  # fmt: skip
def test_source_photo(name: str, source: str) -> None:
    assert source_photo(name) == source


@needs_real
@pytest.mark.parametrize("scheme", [PIECES, COARSE], ids=lambda s: s.name)
def test_import_keeps_photos_on_one_side_and_every_box(tmp_path: Path, scheme: object) -> None:
    report = import_real(REAL, tmp_path, scheme, link=True)  # type: ignore[arg-type]
    sides: dict[str, set[str]] = {}
    for split in ("train", "val"):
        for image in (tmp_path / "images" / split).iterdir():
            real_set, stem = image.stem.split("__", 1)
            sides.setdefault(f"{real_set}/{source_photo(stem)}", set()).add(split)
    assert all(len(s) == 1 for s in sides.values())
    assert len(sides) == 179 + 2
    assert report.images["train"] + report.images["val"] == 537 + 2
    assert report.sources["val"] > 20  # a real validation split

    original = sum(
        1
        for f in REAL.glob("*/labels/*.txt")
        for line in f.read_text().splitlines()
        if line.strip()
    )
    converted = [
        int(line.split()[0])
        for f in tmp_path.glob("labels/*/*.txt")
        for line in f.read_text().splitlines()
    ]
    assert len(converted) == original
    assert max(converted) < scheme.num_classes  # type: ignore[attr-defined]


def test_import_refuses_to_write_into_the_repository(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[2]
    with pytest.raises(RealDataError, match="must not go into the repository"):
        import_real(tmp_path, repo / "docs" / "real")


def test_a_table_from_afar_is_the_photo_tiled_n_by_n(tmp_path: Path) -> None:
    import io

    import numpy as np
    from PIL import Image

    photo = np.zeros((40, 60, 3), np.uint8)
    photo[:, :30] = (200, 30, 30)  # left half red, right half black
    Image.fromarray(photo).save(tmp_path / "p.png")
    with Image.open(io.BytesIO(table_from_afar(tmp_path / "p.png", 2, (120, 80)))) as table:
        assert table.format == "JPEG" and table.size == (120, 80)
        pixels = np.asarray(table.convert("RGB")).astype(int)
    # each 60x40 copy keeps the photo's layout: red left quarter-columns, black right ones
    for x0 in (0, 60):
        for y0 in (0, 40):
            assert pixels[y0 + 20, x0 + 10, 0] > 150 and pixels[y0 + 20, x0 + 50, 0] < 60
    # turned a quarter counter-clockwise: the red left halves are now the bottom halves
    with Image.open(io.BytesIO(table_from_afar(tmp_path / "p.png", 2, (120, 80), 1))) as table:
        assert table.size == (80, 120)
        turned = np.asarray(table.convert("RGB")).astype(int)
    for y0 in (0, 60):
        for x0 in (0, 40):
            assert turned[y0 + 50, x0 + 20, 0] > 150 and turned[y0 + 10, x0 + 20, 0] < 60


def test_a_photo_in_a_phone_frame_fills_its_height_undistorted(tmp_path: Path) -> None:
    import io

    import numpy as np
    from PIL import Image

    photo = np.full((50, 50, 3), 90, np.uint8)
    photo[:, :25] = (200, 30, 30)  # left half red, right half grey (the edge colour is their mean)
    Image.fromarray(photo).save(tmp_path / "p.png")
    data = in_phone_frame(tmp_path / "p.png", 1.5, height=100)
    with Image.open(io.BytesIO(data)) as frame:
        assert frame.format == "JPEG" and frame.size == (150, 100)
        pixels = np.asarray(frame.convert("RGB")).astype(int)
    # the photo, 100 px square, in the middle; 25 px of plain edge colour either side
    assert pixels[50, 35, 0] > 150 and pixels[50, 115, 0] < 120
    assert abs(pixels[50, 5] - pixels[50, 145]).max() < 12
    assert abs(pixels[50, 5, 0] - 145) < 12  # mean of red 200 and grey 90
    with Image.open(io.BytesIO(in_phone_frame(tmp_path / "p.png", 1.5, 100, turns=1))) as turned:
        assert turned.size == (100, 150)  # a quarter turn counter-clockwise: red at the bottom
        pixels = np.asarray(turned.convert("RGB")).astype(int)
    assert pixels[115, 50, 0] > 150 and pixels[35, 50, 0] < 120


@needs_real
def test_fan_cards_counts_a_card_seen_by_both_corners_once() -> None:
    fans = fan_cards(CARDS)
    assert [image.name for image, _ in fans] == ["deal1-md-sq.jpg", "deal2-md-sq.jpg"]
    faces = card_faces(CARDS / "classes.txt")
    for image, cards in fans:
        rows = (CARDS / "labels" / f"{image.stem}.txt").read_text().splitlines()
        labelled = [faces[int(row.split()[0])].code for row in rows if row.strip()]
        # the labels box most cards at both corners; each card is counted once
        assert len(labelled) > len(cards) and cards == Counter(set(labelled))
    assert sum(c.total() for _, c in fans) == 89  # the fans' 89 cards, as README counts them
