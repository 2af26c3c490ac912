"""The written dataset: byte-identical for a seed, YOLO labels agree with the JSON truth."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import pytest

from datasets.card_art import DeckSource
from datasets.scene import SceneKind, render_scene
from datasets.writer import CROP_SIZE, generate
from vision.classes import ALL_FACES, COARSE, PIECES, Face, PieceKind

SIZE = (480, 360)


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "data.yaml"
    }


def test_same_seed_same_scene_bytes(decks: tuple[DeckSource, ...]) -> None:
    a = render_scene(11, SceneKind.MIXED, SIZE, decks)
    b = render_scene(11, SceneKind.MIXED, SIZE, decks)
    c = render_scene(12, SceneKind.MIXED, SIZE, decks)
    assert a.image.tobytes() == b.image.tobytes()
    assert a.truth == b.truth
    assert a.image.tobytes() != c.image.tobytes()


def test_same_seed_same_files_with_one_or_two_workers(
    tmp_path: Path, decks: tuple[DeckSource, ...]
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    generate(one, 6, SceneKind.MIXED, 5, SIZE, 1, PIECES, True, False, decks)
    generate(two, 6, SceneKind.MIXED, 5, SIZE, 2, PIECES, True, False, decks)
    assert _digest(one) == _digest(two)
    assert len(list((one / "images" / "train").glob("*.jpg"))) == 6  # every 10th goes to val


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory, decks: tuple[DeckSource, ...]) -> Path:
    out = tmp_path_factory.mktemp("synth")
    generate(out, 8, SceneKind.MIXED, 21, SIZE, 2, PIECES, True, False, decks)
    return out


def _yolo(path: Path) -> list[tuple[int, float, float, float, float]]:
    rows = []
    for line in path.read_text().splitlines():
        c, *v = line.split()
        rows.append((int(c), *map(float, v)))  # type: ignore[arg-type]
    return rows  # type: ignore[return-value]


def test_yolo_labels_agree_with_json_truth(written: Path) -> None:
    total = 0
    for truth_path in sorted((written / "truth").glob("*.json")):
        truth = json.loads(truth_path.read_text())
        image = cv2.imread(str(written / truth["image"]))
        assert image.shape[:2] == (truth["height"], truth["width"])
        # what the camera did is kept, so that a reading can be judged against it
        assert set(truth["photo"]) == {"blur_sigma", "motion_px", "noise_sigma", "glare", "shadow"}
        split = Path(truth["image"]).parent.name
        rows = _yolo(written / "labels" / split / f"{truth_path.stem}.txt")
        assert len(rows) == len(truth["labels"])
        pieces = {p["uid"]: p for p in truth["pieces"]}
        w, h = truth["width"], truth["height"]
        for row, label in zip(rows, truth["labels"], strict=True):
            c, cx, cy, bw, bh = row
            face = Face.parse(label["code"], PieceKind(label["piece_kind"]))
            assert c == label["class"] == PIECES.class_id(face)
            x0, y0, x1, y1 = label["box"]
            assert cx == pytest.approx((x0 + x1) / 2 / w, abs=2e-5)
            assert cy == pytest.approx((y0 + y1) / 2 / h, abs=2e-5)
            assert bw == pytest.approx((x1 - x0) / w, abs=2e-5)
            assert bh == pytest.approx((y1 - y0) / h, abs=2e-5)
            assert 0 < bw <= 1 and 0 < bh <= 1
            piece = pieces[label["uid"]]
            assert piece["code"] == label["code"] and piece["readable"]
            region = next(r for r in piece["regions"] if r["name"] == label["region"])
            assert region["readable"] and region["visible"] >= 0.85
            total += 1
    assert total > 20


def test_melds_in_truth_list_their_pieces_in_order(written: Path) -> None:
    melds = 0
    for truth_path in sorted((written / "truth").glob("*.json")):
        truth = json.loads(truth_path.read_text())
        pieces = {p["uid"]: p for p in truth["pieces"]}
        for meld in truth["melds"]:
            assert len(meld["pieces"]) == len(meld["codes"])
            for pos, (uid, code) in enumerate(zip(meld["pieces"], meld["codes"], strict=True)):
                if uid in pieces:  # pieces outside the photo are not listed
                    assert pieces[uid]["code"] == code
                    assert pieces[uid]["meld"] == meld["id"] and pieces[uid]["meld_pos"] == pos
                    assert pieces[uid]["side"] == meld["side"]
            melds += 1
    assert melds > 5


def test_crops_match_labels(written: Path) -> None:
    rows = (written / "crops.csv").read_text().splitlines()[1:]
    labels = sum(
        len(json.loads(p.read_text())["labels"]) for p in (written / "truth").glob("*.json")
    )
    assert len(rows) == labels > 0
    for row in rows[:20]:
        path, kind, code, _split = row.split(",")
        crop = cv2.imread(str(written / path))
        assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
        assert Path(path).parent.name == PIECES.class_name(
            PIECES.class_id(Face.parse(code, PieceKind(kind)))
        )


def test_contact_sheet_written(written: Path) -> None:
    sheet = cv2.imread(str(written / "contact_sheet.jpg"))
    assert sheet is not None and sheet.shape[1] >= 4 * 400


def test_coarse_scheme_labels(tmp_path: Path) -> None:
    generate(tmp_path, 2, SceneKind.TILES, 3, SIZE, 1, COARSE, False, False)
    classes = {r[0] for f in (tmp_path / "labels").rglob("*.txt") for r in _yolo(f)}
    assert classes and classes <= {2, 3}
    assert "nc: 4" in (tmp_path / "data.yaml").read_text()


def test_every_class_appears_over_a_modest_batch(decks: tuple[DeckSource, ...]) -> None:
    """Every one of the 106 classes is labelled somewhere in 30 card + 20 tile scenes."""
    seen: set[int] = set()
    for kind, count in ((SceneKind.CARDS, 30), (SceneKind.TILES, 20)):
        wanted = {PIECES.class_id(f) for f in ALL_FACES if f.kind.value == kind.value[:-1]}
        for seed in range(count):
            scene = render_scene(1000 + seed, kind, (640, 480), decks)
            seen.update(PIECES.class_id(label.face) for label in scene.labels)
            if wanted <= seen:
                break
    missing = sorted(set(range(PIECES.num_classes)) - seen)
    assert not missing, [PIECES.class_name(i) for i in missing]


def test_the_truth_says_which_side_each_meld_faces(
    tmp_path: Path, decks: tuple[DeckSource, ...]
) -> None:
    """Side A's and side B's melds sit across the table: they face opposite sides."""
    from vision.facing import FACINGS
    from vision.truth import read_synth_truth

    generate(tmp_path, 16, SceneKind.CARDS, 8, (1280, 960), 2, PIECES, False, False, decks)
    pairs = 0
    for path in sorted((tmp_path / "truth").glob("*.json")):
        truth = read_synth_truth(path)
        side_of = {tuple(m["pieces"]): m["side"] for m in json.loads(path.read_text())["melds"]}
        facing = {"A": set(), "B": set()}  # type: dict[str, set[str | None]]
        for uids, side in zip(truth.meld_uids, truth.meld_facing, strict=True):
            if side_of[uids] in facing:
                facing[side_of[uids]].add(side)
        assert len(facing["A"]) <= 1 and len(facing["B"]) <= 1, facing
        if facing["A"] and facing["B"]:
            (a,), (b,) = facing["A"], facing["B"]
            assert a is not None and b is not None
            assert (FACINGS.index(a) - FACINGS.index(b)) % 4 == 2, (a, b)
            pairs += 1
    assert pairs >= 4, pairs  # enough tables with both sides to mean something


def test_synth_cli_renders_a_framed_scene_finer_and_refuses_a_tiny_framing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--framing`` renders the scene of a smaller photo at ``--size``; a framing under 64 px
    is refused, naming it, and nothing is written."""
    import argparse
    import json

    from datasets import cli

    parser = argparse.ArgumentParser()
    cli.add_synth_parser(parser.add_subparsers(dest="command"))

    def synth(out: Path, *extra: str) -> int:
        base = ["synth", "--kind", "tiles", "--count", "1", "--out", str(out), "--workers", "1"]
        args = parser.parse_args([*base, *extra])
        return int(args.func(args))

    assert synth(tmp_path / "bad", "--size", "640", "--framing", "32") == cli.EXIT_BAD_INPUT
    assert "--framing" in capsys.readouterr().err and not (tmp_path / "bad").exists()
    assert synth(tmp_path / "small", "--size", "320") == cli.EXIT_OK
    assert synth(tmp_path / "fine", "--size", "640", "--framing", "320") == cli.EXIT_OK
    small = json.loads((tmp_path / "small" / "truth" / "000000.json").read_text())
    fine = json.loads((tmp_path / "fine" / "truth" / "000000.json").read_text())
    assert (fine["width"], fine["height"]) == (640, 480)
    assert fine["camera"]["index_px"] == pytest.approx(2 * small["camera"]["index_px"], abs=0.11)
    assert fine["melds"] == small["melds"]  # the same table
