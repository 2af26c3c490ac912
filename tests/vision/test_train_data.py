"""The tiled detector set: crops at serving scale whose labels say exactly what is visible."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.classes import COARSE, PIECES
from vision.train.data import (
    build_tiled_detector_set,
    build_turned_set,
    read_labels,
    turn_labels,
)

TILE = PIECES.names.index("R7")
CORNER = PIECES.names.index("7H")


def _source(root: Path, boxes: list[tuple[int, tuple[int, int, int, int]]]) -> Path:
    """A 1280x960 photo (grey table) with one coloured rectangle per box, and its YOLO labels."""
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    image = np.full((960, 1280, 3), 60, np.uint8)
    lines = []
    for cls, (x1, y1, x2, y2) in boxes:
        image[y1:y2, x1:x2] = (0, 200, 255)
        cx, cy, w, h = (x1 + x2) / 2 / 1280, (y1 + y2) / 2 / 960, (x2 - x1) / 1280, (y2 - y1) / 960
        lines.append(f"{cls} {cx} {cy} {w} {h}")
    cv2.imwrite(str(root / "images" / "train" / "p.png"), image)
    (root / "labels" / "train" / "p.txt").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture
def built(tmp_path: Path) -> Path:
    src = _source(
        tmp_path / "src",
        [
            (TILE, (100, 100, 180, 200)),  # whole inside the top-left crop
            (CORNER, (200, 120, 240, 170)),
            (TILE, (560, 100, 720, 260)),  # straddles x=640 (320 at serving scale)
            (TILE, (1000, 700, 1080, 800)),
        ],
    )
    out = tmp_path / "out"
    build_tiled_detector_set([(src, ("train",))], out, long_side=640, crop=320, per_image=3)
    return out


def test_crops_are_cut_at_serving_scale_and_labels_match_the_pixels(built: Path) -> None:
    images = sorted((built / "images" / "train").glob("*.jpg"))
    assert 1 <= len(images) <= 3
    seen = 0
    for image_path in images:
        crop = cv2.imread(str(image_path))
        assert crop.shape == (320, 320, 3)
        for cls, cx, cy, w, h in read_labels(built / "labels" / "train" / f"{image_path.stem}.txt"):
            assert cx >= w / 2 and cx + w / 2 <= 1
            assert cy >= h / 2 and cy + h / 2 <= 1
            assert COARSE.class_name(int(cls)) in ("tile", "card-corner")
            # the box is the painted rectangle at half scale: its centre is the piece's colour
            b, _, r = crop[int(cy * 320), int(cx * 320)]
            assert r > 200 and b < 60, image_path.name
            seen += 1
    assert seen >= 2


def test_the_first_crop_holds_the_most_whole_pieces(built: Path) -> None:
    first = read_labels(built / "labels" / "train" / "src-p-0.txt")
    assert len(first) >= 2  # the tile and the corner at the top left
    sizes = sorted((first[:, 3] * 320).round().astype(int).tolist())
    assert sizes[:2] == [20, 40]  # 40 px and 80 px wide at full size, halved


def test_a_piece_cut_by_the_edge_is_labelled_or_painted_grey_never_left_unlabelled(
    built: Path,
) -> None:
    for image_path in sorted((built / "images" / "train").glob("*.jpg")):
        crop = cv2.imread(str(image_path)).astype(int)
        rows = read_labels(built / "labels" / "train" / f"{image_path.stem}.txt")
        mask = np.zeros(crop.shape[:2], bool)
        for _, cx, cy, w, h in rows:
            x1, y1 = int((cx - w / 2) * 320), int((cy - h / 2) * 320)
            x2, y2 = int((cx + w / 2) * 320), int((cy + h / 2) * 320)
            mask[max(y1 - 2, 0) : y2 + 2, max(x1 - 2, 0) : x2 + 2] = True
        piece_colour = (crop[..., 2] > 200) & (crop[..., 0] < 60)
        assert not (piece_colour & ~mask).any(), f"an unlabelled visible piece in {image_path.name}"


def test_the_set_is_deterministic(tmp_path: Path, built: Path) -> None:
    again = tmp_path / "again"
    build_tiled_detector_set(
        [(tmp_path / "src", ("train",))], again, long_side=640, crop=320, per_image=3
    )
    for label in (built / "labels" / "train").iterdir():
        assert (again / "labels" / "train" / label.name).read_text() == label.read_text()


def _detector_set(root: Path, names: list[str]) -> Path:
    """A detector set of 320x240 photos, each with two labelled pieces painted off centre, a tall
    one and a wide one touching as an L (so that every turn of the photo looks different)."""
    boxes = [(40, 30, 70, 110), (70, 80, 150, 110)]  # x1 y1 x2 y2
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
        for name in names:
            image = np.full((240, 320, 3), 60, np.uint8)
            lines = []
            for x1, y1, x2, y2 in boxes:
                image[y1:y2, x1:x2] = (0, 200, 255)
                cx, cy, w, h = (x1 + x2) / 640, (y1 + y2) / 480, (x2 - x1) / 320, (y2 - y1) / 240
                lines.append(f"2 {cx} {cy} {w} {h}\n")
            cv2.imwrite(str(root / "images" / split / f"{name}.jpg"), image)
            (root / "labels" / split / f"{name}.txt").write_text("".join(lines))
    return root


def test_quarter_turned_labels_follow_np_rot90() -> None:
    rows = np.array([[0, 0.2, 0.1, 0.3, 0.05]], np.float32)
    once = turn_labels(rows, 1)
    # a box near the top-left corner goes to the bottom-left corner, its sides swapped
    assert once[0, 1:].tolist() == pytest.approx([0.1, 0.8, 0.05, 0.3])
    assert turn_labels(rows, 4)[0].tolist() == pytest.approx(rows[0].tolist())
    assert turn_labels(turn_labels(rows, 3), 1)[0].tolist() == pytest.approx(rows[0].tolist())


def test_a_turned_set_turns_training_photos_with_their_labels(tmp_path: Path) -> None:
    names = [f"photo{i}" for i in range(12)]
    src = _detector_set(tmp_path / "src", names)
    yaml = build_turned_set(src, tmp_path / "turned")
    assert "train: images/train" in yaml.read_text()
    shapes = set()
    for split in ("train", "val"):
        for name in names:
            image = cv2.imread(str(tmp_path / "turned" / "images" / split / f"{name}.jpg"))
            shapes.add((split, image.shape[:2]))
            rows = read_labels(tmp_path / "turned" / "labels" / split / f"{name}.txt")
            assert len(rows) == 2
            h, w = image.shape[:2]
            piece = (image[..., 2] > 150) & (image[..., 0] < 100)
            inside = np.zeros_like(piece)
            for _, cx, cy, bw, bh in rows:
                x1, x2 = round((cx - bw / 2) * w), round((cx + bw / 2) * w)
                y1, y2 = round((cy - bh / 2) * h), round((cy + bh / 2) * h)
                assert piece[y1 + 2 : y2 - 2, x1 + 2 : x2 - 2].all(), (split, name)
                inside[max(y1 - 2, 0) : y2 + 2, max(x1 - 2, 0) : x2 + 2] = True
            assert not (piece & ~inside).any(), (split, name)
            if split == "val":  # validation photos stay as they were taken
                want = [55 / 320, 70 / 240, 30 / 320, 80 / 240]
                assert rows[0, 1:].tolist() == pytest.approx(want, abs=1e-5)
    # training photos lie both ways round (some turned a quarter), validation photos never
    assert {s for sp, s in shapes if sp == "train"} == {(240, 320), (320, 240)}
    assert {s for sp, s in shapes if sp == "val"} == {(240, 320)}


class _FixedDetector:
    """Finds the same boxes in any photo."""

    def __init__(self, boxes: list[tuple[int, int, int, int]]) -> None:
        self.boxes = boxes

    def detect(self, image: np.ndarray) -> object:
        from vision.detections import Detections

        n = len(self.boxes)
        return Detections.from_boxes(np.array(self.boxes, np.float32), np.ones(n), np.zeros(n))


def test_negative_crops_are_the_detections_that_touch_no_piece(tmp_path: Path) -> None:
    from vision.train.data import NOT_A_PIECE, build_negative_set

    src = _source(tmp_path / "src", [(TILE, (100, 100, 180, 200)), (CORNER, (600, 400, 640, 450))])
    finds = [
        (110, 110, 170, 190),  # on the tile
        (630, 440, 700, 500),  # overlaps the corner a little: still a piece, not taught as none
        (900, 100, 960, 160),  # bare table
        (300, 600, 340, 660),  # bare table
    ]
    out = build_negative_set([(src, "train")], _FixedDetector(finds), tmp_path / "neg.npz")
    data = np.load(out)
    assert data["x"].shape[0] == 2
    assert (data["y"] == NOT_A_PIECE).all() and np.isnan(data["a"]).all()
    assert (data["x"] == 60).all()  # both cut from the bare grey table


def test_nothing_on_a_card_joker_is_taught_as_background(tmp_path: Path) -> None:
    import json

    from vision.train.data import build_negative_set, inside_outline

    src = _source(tmp_path / "src", [])
    (src / "truth").mkdir()
    diamond = [[400, 200], [500, 300], [400, 400], [300, 300]]  # a joker turned 45 degrees
    joker = {"uid": 0, "kind": "card", "code": "JK", "polygon": diamond,
             "regions": [{"name": "tl", "box": [390, 205, 410, 225]}]}  # fmt: skip
    (src / "truth" / "p.json").write_text(json.dumps({"pieces": [joker]}))
    finds = [
        (385, 290, 415, 320),  # "Joker" across its middle, clear of its labelled corner
        (310, 210, 340, 240),  # inside the box around the joker, outside the joker itself
        (900, 100, 960, 160),  # bare table
    ]
    out = build_negative_set([(src, "train")], _FixedDetector(finds), tmp_path / "neg.npz")
    assert np.load(out)["x"].shape[0] == 2

    points = np.array([[400, 305], [325, 225], [499, 300], [501, 300]], np.float32)
    outline = np.array(diamond, np.float32)
    assert inside_outline(points, outline).tolist() == [True, False, True, False]
    assert inside_outline(points, outline[::-1]).tolist() == [True, False, True, False]


def test_label_angles_follow_the_piece_and_turn_the_bottom_corner_round(tmp_path: Path) -> None:
    import json
    import math

    from vision.train.data import label_angles

    (tmp_path / "truth").mkdir()
    turned = [[200, 100], [200, 160], [110, 160], [110, 100]]  # x axis pointing down: +90 deg
    upright = [[0, 0], [50, 0], [50, 80], [0, 80]]
    doc = {
        "pieces": [{"uid": 0, "polygon": turned}, {"uid": 1, "polygon": upright}],
        "labels": [
            {"uid": 0, "region": "tl"},
            {"uid": 0, "region": "br"},
            {"uid": 1, "region": "face"},
        ],
    }
    (tmp_path / "truth" / "p.json").write_text(json.dumps(doc))
    angles = label_angles(tmp_path, Path("p.png"), 3)
    np.testing.assert_allclose(angles, [math.pi / 2, -math.pi / 2, 0.0], atol=1e-6)
    assert np.isnan(label_angles(tmp_path, Path("p.png"), 2)).all()  # labels disagree: unknown
    assert np.isnan(label_angles(tmp_path, Path("other.png"), 1)).all()  # no truth: unknown


def test_crop_sets_are_stored_wide_and_cut_again_as_served(tmp_path: Path) -> None:
    from vision.crops import STORE_MARGIN, STORE_SIZE, recut
    from vision.train.data import build_crop_set

    src = _source(tmp_path / "src", [(TILE, (400, 300, 480, 400)), (CORNER, (800, 500, 840, 550))])
    data = np.load(build_crop_set([(src, "train")], tmp_path / "crops.npz"))
    assert data["x"].shape == (2, STORE_SIZE, STORE_SIZE, 3)
    assert data["y"].tolist() == [TILE, CORNER]
    assert float(data["margin"]) == pytest.approx(STORE_MARGIN)
    # the box fills 1/(1 + 2 x margin) of the side, stored and once cut again at 0.12
    for crops, margin in ((data["x"], STORE_MARGIN), (recut(data["x"], STORE_MARGIN, 0.12), 0.12)):
        coloured = crops[0, :, :, 0] > 150  # the tile is 80 x 100: its long side sets the crop's
        rows, cols = coloured.any(axis=1).sum(), coloured.any(axis=0).sum()
        side = crops.shape[1]
        assert rows == pytest.approx(side / (1 + 2 * margin), abs=2)
        assert cols == pytest.approx(side * 0.8 / (1 + 2 * margin), abs=2)


def test_a_set_written_half_way_is_never_left_under_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A set is built only when its file is missing, so a write that dies must leave no file
    there (a truncated set under its name was taken as built by the next run)."""
    from vision.train import data as train_data

    out = tmp_path / "crops.npz"

    def dies(file: object, **arrays: np.ndarray) -> None:
        file.write(b"PK\x03\x04 half a zip")  # type: ignore[attr-defined]
        raise KeyboardInterrupt

    monkeypatch.setattr(train_data.np, "savez_compressed", dies)
    with pytest.raises(KeyboardInterrupt):
        train_data.save_atomic(out, x=np.zeros(3))
    assert not out.exists()
    monkeypatch.undo()
    train_data.save_atomic(out, x=np.arange(3))
    assert np.load(out)["x"].tolist() == [0, 1, 2]
    assert [p.name for p in tmp_path.iterdir()] == ["crops.npz"]


def _meld_truth(root: Path, others: list[dict], jokers: Sequence[list[list[int]]] = ()) -> None:  # type: ignore[type-arg]
    """A truth JSON (1280x960) with one card meld up a column, its indexes 30 px apart (so one
    step past its ends lie [100, 70, 112, 96] and [100, 190, 112, 216]), ``others`` pieces more
    and a joker card per outline in ``jokers``."""
    import json

    meld = [
        {"uid": k, "kind": "card", "code": code, "meld": 0,
         "regions": [{"name": "tl", "box": [100, 100 + 30 * k, 112, 126 + 30 * k], "visible": 1.0}]}
        for k, code in enumerate(["5H", "6H", "7H"])
    ]  # fmt: skip
    extra = [{"uid": 10 + k, **piece} for k, piece in enumerate(others)]
    extra += [
        {"uid": 20 + k, "kind": "card", "code": "JK", "polygon": outline, "regions": []}
        for k, outline in enumerate(jokers)
    ]
    doc = {"width": 1280, "height": 960, "pieces": meld + extra,
           "melds": [{"id": 0, "pieces": [0, 1, 2], "codes": ["5H", "6H", "7H"]}]}  # fmt: skip
    (root / "truth").mkdir(parents=True, exist_ok=True)
    (root / "truth" / "p.json").write_text(json.dumps(doc))


def _index(box: list[int], visible: float) -> dict:  # type: ignore[type-arg]
    return {
        "kind": "card",
        "code": "9S",
        "regions": [{"name": "tl", "box": box, "visible": visible}],
    }


@pytest.mark.parametrize(
    ("others", "jokers", "want"),
    [
        ([], [], [[100, 70, 112, 96], [100, 190, 112, 216]]),
        # another card's index shows past the last end: that place is a piece's, not blank
        ([_index([104, 200, 116, 226], 0.6)], [], [[100, 70, 112, 96]]),
        # ... unless it is covered (less than a quarter of it shows): the place is blank paper
        ([_index([104, 200, 116, 226], 0.1)], [], [[100, 70, 112, 96], [100, 190, 112, 216]]),
        # a joker card lies past the first end: its marks are no background
        ([], [[[80, 60], [130, 60], [130, 99], [80, 99]]], [[100, 190, 112, 216]]),
    ],
)
def test_the_places_past_a_meld_s_ends_are_those_where_no_index_shows(
    tmp_path: Path,
    others: list[dict],
    jokers: list[list[list[int]]],
    want: list[list[int]],  # type: ignore[type-arg]
) -> None:
    from vision.train.data import past_meld_ends

    _meld_truth(tmp_path, others, jokers)
    assert past_meld_ends(tmp_path, Path("p.png")).tolist() == want
    assert past_meld_ends(tmp_path, Path("other.png")).shape == (0, 4)  # no truth: none


def test_a_negative_set_holds_the_places_past_meld_ends_and_says_its_version(
    tmp_path: Path,
) -> None:
    from vision.train.data import NEGATIVES_VERSION, NOT_A_PIECE, PAST_ENDS, build_negative_set
    from vision.train.pipeline import negatives_mined

    src = _source(tmp_path / "src", [(CORNER, (100, 100, 112, 126))])
    _meld_truth(src, [])
    out = tmp_path / "neg.npz"
    assert not negatives_mined(out)
    np.savez(out, x=np.zeros((0, 72, 72, 3), np.uint8), y=np.zeros(0, np.int64))
    assert not negatives_mined(out)  # mined before session 51: mined again
    build_negative_set([(src, "train")], _FixedDetector([(900, 100, 960, 160)]), out)
    data = np.load(out)
    assert data["x"].shape[0] == 1 + PAST_ENDS  # the table the detector boxed, and the places
    assert (data["y"] == NOT_A_PIECE).all()
    assert int(data["version"]) == NEGATIVES_VERSION and negatives_mined(out)
