"""Classifier checkpoints compared crop by crop (vision.train.compare)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from vision.classes import PIECES
from vision.crops import CROP_SIZE
from vision.recogniser import CARD_MASK
from vision.train.compare import pair, read_as, sign_test, suit_of


def test_the_sign_test_gives_the_exact_binomial_tail_both_ways() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 5) == 1.0  # an even split is no evidence either way
    assert sign_test(0, 10) == pytest.approx(2 / 2**10)
    assert sign_test(10, 0) == sign_test(0, 10)
    # 2 of 12 the other way: P(X <= 2) = (1 + 12 + 66) / 4096, both tails
    assert sign_test(2, 10) == pytest.approx(2 * 79 / 4096)
    # session 46's run on dev_decks: 69 gained, 115 lost
    assert sign_test(69, 115) < 0.001 < sign_test(80, 100)
    # thousands of discordant crops: exact, no float overflow
    assert sign_test(1500, 1500) == 1.0
    assert 0 < sign_test(1450, 1550) < 0.1 and sign_test(500, 2500) < 1e-300


def test_pairing_counts_what_each_net_alone_reads_right() -> None:
    truth = ["7H", "7H", "QS", "QC", "JK-card", "2D"]
    served = ["7H", "7D", "QS", "QS", "JK-card", "2H"]
    candidate = ["7H", "7H", "QC", "QC", "NAP", "2S"]
    p = pair(truth, served, candidate)
    assert (p.crops, p.served_right, p.right) == (6, 3, 3)
    assert p.gained == [("7H", "7D"), ("QC", "QS")]  # with what the served net had read
    assert p.lost == [("QS", "QC"), ("JK-card", "NAP")]  # with what the candidate reads
    text = p.describe()
    assert "0.5000 -> 0.5000 of 6 crops: +2 -2" in text
    assert "S as C 1" in text and "JK as NAP 1" in text and "C as S 1" in text
    assert p.jokers == (1, 1, 0) and "card jokers right 1 -> 0 of 1" in text


def test_the_card_jokers_corners_are_counted_apart() -> None:
    truth = ["JK-card", "JK-card", "JK-card", "JK-tile", "5H"]
    served = ["JK-card", "NAP", "QS", "JK-tile", "5H"]
    candidate = ["JK-card", "JK-card", "JK-card", "NAP", "JK-card"]
    p = pair(truth, served, candidate)
    assert p.jokers == (3, 1, 3)  # a tile joker and a card read as a joker are not counted
    assert "card jokers right 1 -> 3 of 3" in p.describe()
    assert "card jokers" not in pair(["5H"], ["5H"], ["5D"]).describe()  # no joker, no line


def test_readings_of_unequal_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="3 truths, 2 served"):
        pair(["7H"] * 3, ["7H"] * 2, ["7H"] * 3)


def test_a_crop_is_read_as_not_a_piece_over_the_drop_threshold_only() -> None:
    faces = np.zeros((3, 53), np.float32)
    faces[:, 5] = 1.0
    named = PIECES.class_name(5)
    assert read_as(faces, np.array([0.2, 0.5, 0.51]), 0.5) == [named, named, "NAP"]


def test_suits_of_faces_jokers_and_no_piece() -> None:
    assert [suit_of(c) for c in ("10C", "AS", "QH", "2D", "JK-card", "NAP")] == [
        "C", "S", "H", "D", "JK", "NAP",
    ]  # fmt: skip
    assert [suit_of(c) for c in ("K4", "R12", "B6", "Y13", "JK-tile")] == ["K", "R", "B", "Y", "JK"]


def test_a_checkpoint_compared_with_itself_gains_and_loses_nothing(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from vision.train.classifier import build_net, load_net
    from vision.train.compare import readings

    torch.manual_seed(0)
    net = build_net()
    checkpoint = tmp_path / "net.pt"
    torch.save({"net": net.state_dict()}, checkpoint)
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 255, (20, CROP_SIZE, CROP_SIZE, 3)).astype(np.uint8)
    is_tile = np.arange(20) % 2 == 0
    first = readings(load_net(checkpoint), crops, is_tile)
    assert len(first) == 20
    cards = {PIECES.class_name(int(i)) for i in np.flatnonzero(CARD_MASK)}
    tiles = {PIECES.class_name(int(i)) for i in np.flatnonzero(~CARD_MASK)}
    for read, tile in zip(first, is_tile, strict=True):  # each crop read within its own kind
        assert read == "NAP" or read in (tiles if tile else cards), (read, tile)
    p = pair(first, first, readings(load_net(checkpoint), crops, is_tile))
    assert (p.gained, p.lost, p.p_value) == ([], [], 1.0)
    assert math.isclose(p.right / p.crops, p.served_right / p.crops)


def test_a_set_with_no_labelled_photos_is_named_in_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision.train import pipeline
    from vision.train.compare import true_crops

    (tmp_path / "dev_nothing" / "images").mkdir(parents=True)
    monkeypatch.setattr(pipeline, "DATA", tmp_path)
    with pytest.raises(FileNotFoundError, match="dev_nothing"):
        true_crops("dev_nothing")


def test_the_command_names_a_set_it_cannot_find_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    from vision.train import pipeline
    from vision.train.compare import main

    monkeypatch.setattr(pipeline, "DATA", tmp_path)
    assert main(["--set", "dev_nowhere", str(tmp_path / "net.pt")]) == 2
    assert "dev_nowhere" in capsys.readouterr().err


def test_crops_are_compared_by_the_size_of_their_true_boxes() -> None:
    from vision.train.compare import by_size

    truth = ["7H", "8H", "9H", "10H", "JH"]
    served = ["7H", "8D", "9H", "10D", "JH"]
    candidate = ["7D", "8H", "9H", "10H", "JH"]
    sides = np.array([5.0, 12.0, 15.9, 16.0, 40.0])  # a side on a bound falls in the bin above
    line = by_size(truth, served, candidate, sides, bins=(12.0, 16.0, 20.0))
    assert "under 12 1.000 -> 0.000 (1)" in line
    assert "12-16 0.500 -> 1.000 (2)" in line
    assert "16-20 0.000 -> 1.000 (1)" in line
    assert "20 and over 1.000 -> 1.000 (1)" in line
    assert line.split(": ", 1)[1].count("(") == 4  # every bin holds a crop here
    assert "16-20" not in by_size(
        truth[:1], served[:1], candidate[:1], sides[:1], (12.0, 16.0, 20.0)
    )
    with pytest.raises(ValueError, match="4 sides"):
        by_size(truth, served, candidate, sides[:4])


def test_the_true_sides_follow_the_crops_order_photo_by_photo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PIL import Image

    from vision.train import pipeline
    from vision.train.compare import true_crops, true_decks, true_sides

    root = tmp_path / "dev_small"
    photos = {  # split, name, size, labels (class cx cy w h)
        ("train", "a"): ((200, 100), ["0 0.5 0.5 0.1 0.2", "13 0.2 0.3 0.05 0.1"]),
        ("train", "b"): ((100, 100), []),  # no labels: no crop, no side
        ("val", "c"): ((400, 300), ["5 0.5 0.5 0.03 0.04"]),
    }
    for (split, stem), (size, rows) in photos.items():
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
        Image.new("RGB", size, (200, 180, 90)).save(root / "images" / split / f"{stem}.jpg")
        (root / "labels" / split / f"{stem}.txt").write_text("\n".join(rows))
    monkeypatch.setattr(pipeline, "DATA", tmp_path)
    sides = true_sides("dev_small")
    assert sides == pytest.approx([math.sqrt(20 * 20), math.sqrt(10 * 10), math.sqrt(12 * 12)])
    _, faces = true_crops("dev_small")
    assert faces.tolist() == [0, 13, 5]  # one side per crop, in the same order
    # the decks from the photos' truth, where a photo has one (session 59)
    (root / "truth").mkdir()
    (root / "truth" / "a.json").write_text(json.dumps({"style": {"deck": "drawn/3"}}))
    assert true_decks("dev_small") == ["drawn/3", "drawn/3", ""]
    (root / "truth" / "c.json").write_text(json.dumps({"style": {"what": "tiles"}}))
    assert true_decks("dev_small") == ["drawn/3", "drawn/3", ""]


def test_crops_are_compared_drawn_decks_apart() -> None:
    from vision.train.compare import by_deck

    truth = ["7H", "8H", "9H", "10H", "R5"]
    served = ["7H", "8D", "9H", "10D", "R5"]
    candidate = ["7D", "8H", "9H", "10H", "R5"]
    decks = ["drawn/3", "drawn/5/FreeSans", "gnome/bellot", "held-out/kennard", ""]
    line = by_deck(truth, served, candidate, decks)
    assert "drawn decks 0.500 -> 0.500 (2)" in line
    assert "other decks 0.500 -> 1.000 (2)" in line  # the tile of no deck left out
    assert "drawn" not in by_deck(truth[2:], served[2:], candidate[2:], decks[2:])
    with pytest.raises(ValueError, match="4 decks"):
        by_deck(truth, served, candidate, decks[:4])
