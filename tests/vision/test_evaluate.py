"""``meldcam eval``'s arithmetic on a hand-made truth and scan (no model): what the figures mean."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from scorer import PieceKind, Rules, validate_meld
from vision.evaluate import Report, Tally
from vision.result import ScannedMeld, ScannedPiece, ScanResult
from vision.truth import Truth, TruthBox, turn_truth

RULES = Rules.default(PieceKind.CARDS)


def _box(k: int) -> tuple[float, float, float, float]:
    return (100.0 * k, 0.0, 100.0 * k + 40, 60.0)


def _truth() -> Truth:
    """A run 5H 6H 7H (uids 0-2), a discard pile 9C KD (uids 3-4)."""
    codes = ["5H", "6H", "7H", "9C", "KD"]
    boxes = tuple(TruthBox(c, False, _box(k), k) for k, c in enumerate(codes))
    areas = {0: "meld", 1: "meld", 2: "meld", 3: "discard", 4: "discard"}
    return Truth(
        Path("x.jpg"), boxes, tuple(codes), (("5H", "6H", "7H"),), ((0, 1, 2),), ("near",), areas
    )


def _scan(codes: list[str], melds: list[list[int]], at: list[int] | None = None) -> ScanResult:
    at = at if at is not None else list(range(len(codes)))
    pieces = tuple(ScannedPiece(c, _box(k), 0.9, "card") for c, k in zip(codes, at, strict=True))
    scanned = tuple(
        ScannedMeld(
            tuple(m),
            validate_meld([codes[i] for i in m], RULES),
            facing="near",
        )
        for m in melds
    )
    used = {i for m in melds for i in m}
    rest = tuple(i for i in range(len(codes)) if i not in used)
    return ScanResult("x.jpg", 800, 600, "cards", pieces, scanned, rest, {"total": 10.0})


def test_a_perfect_scan_scores_one_everywhere() -> None:
    report = Report("cards")
    report.add(_truth(), _scan(["5H", "6H", "7H", "9C", "KD"], [[0, 1, 2]]))
    assert report.overall == (1.0, 1.0, 1.0)
    out = report.to_json()
    assert out["meld_exact_match"] == 1.0 and out["meld_precision"] == 1.0
    assert out["facing_right"] == 1.0
    assert out["loose_in_melds"] == {"discard": {"found": 2, "in_melds": 0}}


def test_the_benches_tally_counts_photos_as_the_report_does() -> None:
    """``Tally`` (the benches' count) is ``Report``'s multiset match per photo: a misread is
    false once and missed once, a second copy of a code found once is missed, an extra piece is
    false; photos add up."""
    tally, report = Tally(), Report("cards")
    photos = [
        (["5H", "6H", "7H", "9C", "KD"], ["5H", "6D", "7H", "9C", "KD"]),
        (["5H", "5H", "JS"], ["5H", "JS", "QS", "QS"]),
    ]
    for k, (true, read) in enumerate(photos):
        truth = replace(_truth(), pieces=tuple(true))
        report.add(truth, _scan(read, [] if k else [[0, 1, 2]]))
        assert tally.add(Counter(true), Counter(read)) == [4, 2][k]
    assert (tally.right, tally.false, tally.missed) == (6, 3, 2)
    assert tally.f1 == pytest.approx(report.overall[2]) == pytest.approx(12 / 17)
    assert str(tally) == "F1 0.7059 (right/false/missed 6/3/2)"
    assert Tally().f1 == 0.0


def test_a_misread_counts_once_as_false_positive_and_once_as_false_negative() -> None:
    report = Report("cards")
    report.add(_truth(), _scan(["5H", "6D", "7H", "9C", "KD"], [[0, 1, 2]]))
    p, r, f = report.overall
    assert p == pytest.approx(4 / 5) and r == pytest.approx(4 / 5) and f == pytest.approx(4 / 5)
    assert report.confusion[("6H", "6D")] == 1
    assert report.to_json()["meld_exact_match"] == 0.0  # the meld's codes differ


def test_a_discard_pile_taken_for_a_meld_lowers_meld_precision_not_exact_match() -> None:
    report = Report("cards")
    report.add(_truth(), _scan(["5H", "6H", "7H", "9C", "KD"], [[0, 1, 2], [3, 4]]))
    out = report.to_json()
    assert out["meld_exact_match"] == 1.0
    assert out["meld_precision"] == 0.5
    assert out["loose_in_melds"] == {"discard": {"found": 2, "in_melds": 2}}


def test_a_missed_piece_is_a_false_negative_and_breaks_its_meld() -> None:
    report = Report("cards")
    report.add(_truth(), _scan(["5H", "7H", "9C", "KD"], [[0, 1]], at=[0, 2, 3, 4]))
    p, r, _ = report.overall
    assert p == 1.0 and r == pytest.approx(4 / 5)
    assert report.fn["6H"] == 1
    assert report.to_json()["meld_exact_match"] == 0.0


@pytest.mark.parametrize("turns", [1, 2, 3, 4])
def test_a_turned_truth_box_lies_where_the_turned_photo_shows_its_piece(turns: int) -> None:
    """``meldcam eval --turn`` turns the photo with ``np.rot90``: the truth must move with it."""
    width, height, box = 50, 30, (10.0, 5.0, 20.0, 12.0)
    image = np.zeros((height, width), np.uint8)
    image[5:12, 10:20] = 255
    truth = Truth(Path("x.jpg"), (TruthBox("5H", False, box, 0),), ("5H",), (), ())
    turned = np.rot90(image, turns)
    rows, cols = np.nonzero(turned)
    shown = (cols.min(), rows.min(), cols.max() + 1, rows.max() + 1)
    assert turn_truth(truth, turns, width, height).boxes[0].box == pytest.approx(shown)


def test_a_meld_facing_the_photographer_faces_the_edge_the_bottom_turned_to() -> None:
    truth = replace(_truth(), meld_facing=("near", None))
    # counter-clockwise, the bottom edge goes to the right, then the top, then the left
    assert [turn_truth(truth, k, 800, 600).meld_facing for k in (1, 2, 3, 4)] == [
        ("right", None),
        ("far", None),
        ("left", None),
        ("near", None),
    ]


def test_a_lost_meld_is_put_down_to_what_lost_it() -> None:
    """Missed, misread, both, or every piece right but laid out as other melds."""
    cases = {
        "missed": _scan(["5H", "7H", "9C", "KD"], [[0, 1]], at=[0, 2, 3, 4]),
        "misread": _scan(["5H", "6D", "7H", "9C", "KD"], [[0, 1, 2]]),
        "missed and misread": _scan(["5D", "7H", "9C", "KD"], [[0, 1]], at=[0, 2, 3, 4]),
        "grouped": _scan(["5H", "6H", "7H", "9C", "KD"], [[0, 1], [2, 3, 4]]),
    }
    for why, scan in cases.items():
        report = Report("cards")
        report.add(_truth(), scan)
        assert report.meld_losses == {why: 1}, why
        assert report.to_json()["meld_losses"] == {why: 1}
        assert f"melds lost: {why} 1" in report.describe()
    exact = Report("cards")
    exact.add(_truth(), _scan(["5H", "6H", "7H", "9C", "KD"], [[0, 1, 2]]))
    assert not exact.meld_losses and exact.to_json()["meld_losses"] == {}


def test_a_meld_read_on_a_true_meld_the_truth_leaves_unscored_is_left_out_of_precision() -> None:
    """A second true meld 9S 10S JS whose JS is hidden (labelled nowhere) is not scored: a
    predicted meld lying on it is neither right nor wrong, one reaching beyond it is wrong."""
    truth = _truth()
    boxes = (*truth.boxes, TruthBox("9S", False, _box(5), 5), TruthBox("10S", False, _box(6), 6))
    truth = replace(
        truth, boxes=boxes, pieces=(*truth.pieces, "9S", "10S"), unscored_uids=((5, 6, 7),)
    )
    codes = ["5H", "6H", "7H", "9C", "KD", "9S", "10S", "JS"]
    at = [0, 1, 2, 3, 4, 5, 6, 7]  # JS read where the hidden card lies (no label there)
    report = Report("cards")
    report.add(truth, _scan(codes, [[0, 1, 2], [5, 6, 7]], at))
    out = report.to_json()
    assert out["meld_precision"] == 1.0 and out["melds_found_unscored"] == 1
    beyond = Report("cards")
    beyond.add(truth, _scan(codes, [[0, 1, 2], [4, 5, 6]], at))  # KD is no piece of that meld
    out = beyond.to_json()
    assert out["meld_precision"] == 0.5 and out["melds_found_unscored"] == 0
    assert "1 more lie on unscored true melds" in report.describe()


def test_a_meld_read_where_the_truth_labels_none_of_its_pieces_is_left_out_too() -> None:
    """A second true meld 9S 10S JS too small or turned to be asked of the scanner: the truth
    labels none of its corners, but shows them in part (``partly``). Read right there, it is
    left out of meld precision and of the points, as on any unscored meld (until session 36 it
    counted as a false meld: no labelled box lay under its pieces)."""
    truth = _truth()
    hidden = tuple(TruthBox(c, False, _box(k), k) for k, c in ((5, "9S"), (6, "10S"), (7, "JS")))
    truth = replace(truth, unscored_uids=((5, 6, 7),), partly=hidden)
    codes = ["5H", "6H", "7H", "9C", "KD", "9S", "10S", "JS"]
    report = Report("cards")
    report.add(truth, _scan(codes, [[0, 1, 2], [5, 6, 7]]))
    out = report.to_json()
    assert out["meld_precision"] == 1.0 and out["melds_found_unscored"] == 1
    assert out["points_right"] == {"photos": 1, "right": 1}
    assert out["partly_seen"] == 3  # and its pieces count neither way
    astray = Report("cards")  # one piece beyond that meld: a false meld, its points wrong
    astray.add(truth, _scan(codes, [[0, 1, 2], [4, 5, 6, 7]]))
    out = astray.to_json()
    assert out["meld_precision"] == 0.5 and out["melds_found_unscored"] == 0


def _set_of_7s() -> Truth:
    """A set 7H 7S 7C (uids 0-2) beside a discard pile 9C 10C JC (uids 3-5)."""
    codes = ["7H", "7S", "7C", "9C", "10C", "JC"]
    boxes = tuple(TruthBox(c, False, _box(k), k) for k, c in enumerate(codes))
    areas = {k: "meld" if k < 3 else "discard" for k in range(6)}
    return Truth(
        Path("x.jpg"), boxes, tuple(codes), (("7H", "7S", "7C"),), ((0, 1, 2),), ("near",), areas
    )


@pytest.mark.parametrize(
    ("read", "melds", "exact", "points_right"),
    [
        (["7H", "7S", "7C", "9C", "10C", "JC"], [[0, 1, 2]], 1, True),
        (["7H", "7C", "7C", "9C", "10C", "JC"], [[0, 1, 2]], 0, True),  # a suit: no point lost
        (["7H", "7S", "9C", "9C", "10C", "JC"], [[0, 1, 2]], 0, False),  # 7C as 9C: no meld
        (["7H", "7S", "7C", "9C", "10C", "JC"], [[0, 1, 2], [3, 4, 5]], 1, False),  # the pile
        (["7H", "7S", "7C", "9C", "10C", "JC"], [[0, 1, 2], [3, 4]], 1, True),  # invalid: 0
    ],
    ids=["right", "suit-misread", "rank-misread", "pile-as-meld", "pile-as-invalid-meld"],
)
def test_meld_points_are_right_when_the_photos_valid_melds_score_as_the_truths(
    read: list[str], melds: list[list[int]], exact: int, points_right: bool
) -> None:
    """What a player reads off the photo: the points its melds score (7H 7S 7C: 15), right or
    wrong whether or not each meld is read exactly."""
    report = Report("cards")
    report.add(_set_of_7s(), _scan(read, melds))
    assert report.melds_exact == exact
    assert report.to_json()["points_right"] == {"photos": 1, "right": int(points_right)}
    assert f"meld points right: {int(points_right)}/1 photos" in report.describe()


def test_meld_points_leave_out_the_melds_on_a_true_meld_the_truth_does_not_score() -> None:
    """A valid meld read on a half-hidden true meld neither adds points nor costs them; a photo
    whose truth holds no meld is not counted."""
    truth = _truth()
    boxes = (*truth.boxes, TruthBox("9S", False, _box(5), 5), TruthBox("10S", False, _box(6), 6))
    truth = replace(
        truth, boxes=boxes, pieces=(*truth.pieces, "9S", "10S"), unscored_uids=((5, 6, 7),)
    )
    codes = ["5H", "6H", "7H", "9C", "KD", "9S", "10S", "JS"]
    report = Report("cards")
    report.add(truth, _scan(codes, [[0, 1, 2], [5, 6, 7]]))
    report.add(replace(_truth(), melds=(), meld_uids=(), meld_facing=()), _scan(codes, []))
    assert report.to_json()["points_right"] == {"photos": 1, "right": 1}
    assert Report("cards").to_json()["points_right"] is None


def test_synthetic_truth_keeps_the_melds_it_cannot_score_apart(tmp_path: Path) -> None:
    import json

    from vision.truth import read_synth_truth

    label = {"code": "5H", "piece_kind": "card", "uid": 0, "box": [0, 0, 10, 10]}
    data = {
        "image": "images/val/x.jpg",
        "labels": [label, {**label, "code": "6H", "uid": 1}, {**label, "code": "7H", "uid": 2}],
        "melds": [{"pieces": [0, 1, 2]}, {"pieces": [1, 2, 3]}],
    }
    (tmp_path / "truth").mkdir()
    (tmp_path / "truth" / "x.json").write_text(json.dumps(data))
    truth = read_synth_truth(tmp_path / "truth" / "x.json")
    assert truth.melds == (("5H", "6H", "7H"),)
    assert truth.unscored_uids == ((1, 2, 3),)  # uid 3 is labelled nowhere
    assert truth.deck == ""  # the truth names no deck (tiles, or a set made before decks)
    data["style"] = {"what": "cards", "deck": "kde/svg-penguins", "layout": "fans"}
    (tmp_path / "truth" / "x.json").write_text(json.dumps(data))
    assert read_synth_truth(tmp_path / "truth" / "x.json").deck == "kde/svg-penguins"


def test_a_piece_read_right_where_the_photo_shows_it_only_in_part_counts_neither_way() -> None:
    """A corner half hidden is not asked of the scanner (unlabelled); reading it with its own
    code is no false positive, reading it as another code still is."""
    truth = replace(_truth(), partly=(TruthBox("8H", False, _box(5), 5),))
    report = Report("cards")
    report.add(truth, _scan(["5H", "6H", "7H", "9C", "KD", "8H"], [[0, 1, 2]]))
    assert report.overall == (1.0, 1.0, 1.0) and report.partly_seen == 1
    assert report.to_json()["partly_seen"] == 1
    wrong = Report("cards")
    wrong.add(truth, _scan(["5H", "6H", "7H", "9C", "KD", "8D"], [[0, 1, 2]]))
    assert wrong.overall[0] == pytest.approx(5 / 6) and wrong.partly_seen == 0
    # a right code elsewhere (on no partly seen piece) is a false positive as before
    away = Report("cards")
    away.add(truth, _scan(["5H", "6H", "7H", "9C", "KD", "8H"], [[0, 1, 2]], at=[0, 1, 2, 3, 4, 7]))
    assert away.overall[0] == pytest.approx(5 / 6) and away.partly_seen == 0


def test_a_mark_boxed_inside_a_corner_shown_in_part_is_on_that_corner() -> None:
    """A detector may box one mark of a corner (a joker's small star) that the truth boxes
    whole: its IoU with the corner is low, but lying inside it, it is on that corner."""
    truth = replace(_truth(), partly=(TruthBox("JK", False, (500.0, 0.0, 540.0, 60.0), 5),))
    star = (510.0, 2.0, 522.0, 14.0)  # IoU 0.06, wholly inside

    def scan(box: tuple[float, float, float, float]) -> ScanResult:
        result = _scan(["5H", "6H", "7H", "9C", "KD", "JK"], [[0, 1, 2]])
        pieces = (*result.pieces[:5], replace(result.pieces[5], box=box))
        return replace(result, pieces=pieces)

    report = Report("cards")
    report.add(truth, scan(star))
    assert report.overall == (1.0, 1.0, 1.0) and report.partly_seen == 1
    # half of it outside the corner: not on it, a false joker as before
    outside = Report("cards")
    outside.add(truth, scan((532.0, 2.0, 548.0, 14.0)))
    assert outside.overall[0] == pytest.approx(5 / 6) and outside.partly_seen == 0


def test_synthetic_truth_keeps_the_regions_it_shows_in_part(tmp_path: Path) -> None:
    import json

    from vision.truth import read_synth_truth

    def piece(
        uid: int, code: str, visible: float, inside: float, box: list[float] | None
    ) -> dict[str, object]:
        region = {"name": "tl", "visible": visible, "inside": inside, "box": box}
        square = [[0, 0], [10, 0], [10, 10], [0, 10]]
        return {"uid": uid, "code": code, "kind": "card", "polygon": square, "regions": [region]}

    label = {"code": "5H", "piece_kind": "card", "uid": 0, "box": [0, 0, 10, 10]}
    pieces = [
        piece(0, "5H", 1.0, 1.0, [0, 0, 10, 10]),
        piece(1, "6H", 0.6, 1.0, [20, 0, 30, 10]),
        piece(2, "7H", 0.1, 1.0, [40, 0, 50, 10]),
        piece(3, "8H", 0.9, 0.2, [60, 0, 62, 10]),
        piece(4, "9H", 0.9, 1.0, None),
    ]
    data = {"image": "images/val/x.jpg", "labels": [label], "pieces": pieces, "melds": []}
    (tmp_path / "truth").mkdir()
    (tmp_path / "truth" / "x.json").write_text(json.dumps(data))
    truth = read_synth_truth(tmp_path / "truth" / "x.json")
    # the labelled piece is not "partly"; mostly hidden, mostly outside, or boxless are not
    assert truth.partly == (TruthBox("6H", False, (20, 0, 30, 10), 1),)


def test_the_melds_of_photos_reported_shaken_are_counted_apart() -> None:
    report = Report("cards")
    still = _scan(["5H", "6H", "7H", "9C", "KD"], [[0, 1, 2]])
    report.add(_truth(), replace(still, shake=1.1))
    report.add(_truth(), replace(_scan(["5H", "6D", "7H", "9C", "KD"], [[0, 1, 2]]), shake=2.4))
    report.add(_truth(), still)  # not measured (NaN): never shaken
    assert report.to_json()["shaken"] == {"photos": 1, "melds": 1, "melds_exact": 0}
    assert "photos reported shaken: 1 (melds read exactly on them 0/1, on the others 2/2)" in (
        report.describe()
    )


def test_the_melds_of_photos_reported_afar_are_counted_apart() -> None:
    """A photo is afar when its median box is under ``AFAR`` of its long side: the same boxes
    (60 px long) in an 800 px photo are 7.5 % of it, in an 8,000 px one 0.75 %."""
    report = Report("cards")
    near = _scan(["5H", "6H", "7H", "9C", "KD"], [[0, 1, 2]])
    misread = _scan(["5H", "6D", "7H", "9C", "KD"], [[0, 1, 2]])
    report.add(_truth(), near)
    report.add(_truth(), replace(misread, width=8000, height=6000))
    report.add(_truth(), replace(near, width=8000, height=6000, kind="tiles"))  # tiles: never afar
    assert not near.afar and near.piece_size == pytest.approx(0.075)
    assert report.to_json()["afar"] == {"photos": 1, "melds": 1, "melds_exact": 0}
    assert "photos reported taken from afar: 1 (melds read exactly on them 0/1, on the " in (
        report.describe()
    )
    assert "on the others 2/2" in report.describe()


def test_the_melds_of_photos_reported_of_low_resolution_are_counted_apart() -> None:
    """The same photo shrunk six times (boxes of 10 px in a 133x100 photo: 7.5 % of it, not
    afar, but under ``LOW_RES_PX``) is of low resolution; as it was (60 px) it is not."""
    report = Report("cards")
    sharp = _scan(["5H", "6H", "7H", "9C", "KD"], [[0, 1, 2]])
    misread = _scan(["5H", "6D", "7H", "9C", "KD"], [[0, 1, 2]])
    pieces = tuple(
        replace(p, box=tuple(v / 6 for v in p.box))  # type: ignore[arg-type]
        for p in misread.pieces
    )
    small = replace(misread, pieces=pieces, width=133, height=100)
    report.add(_truth(), sharp)
    report.add(_truth(), small)
    assert not sharp.low_resolution and small.low_resolution and not small.afar
    assert small.piece_px == pytest.approx(10)
    assert report.to_json()["low_resolution"] == {"photos": 1, "melds": 1, "melds_exact": 0}
    assert "photos reported of low resolution: 1 (melds read exactly on them 0/1, on the " in (
        report.describe()
    )


def test_the_melds_of_photos_with_no_warning_are_counted_apart() -> None:
    """A photo reported shaken or black and white is left out of the unflagged tally (as is one
    afar or of low resolution: each is warned of); the photos the scanner said nothing about
    are counted there, misread or not."""
    report = Report("cards")
    right = _scan(["5H", "6H", "7H", "9C", "KD"], [[0, 1, 2]])
    misread = _scan(["5H", "6D", "7H", "9C", "KD"], [[0, 1, 2]])
    report.add(_truth(), right)
    report.add(_truth(), misread)
    report.add(_truth(), replace(right, shake=2.4))
    report.add(_truth(), replace(right, colour=0.0))
    assert replace(right, colour=0.0).colourless and not right.colourless
    assert replace(right, colour=0.0).warned and replace(right, shake=2.4).warned
    assert not right.warned
    # the two warnings that come from the pieces' size: taken from afar, of low resolution
    afar = replace(right, width=8000, height=6000)
    shrunk = tuple(
        replace(p, box=tuple(v / 6 for v in p.box))  # type: ignore[arg-type]
        for p in right.pieces
    )
    coarse = replace(right, pieces=shrunk, width=133, height=100)
    assert afar.afar and afar.warned
    assert coarse.low_resolution and not coarse.afar and coarse.warned
    assert report.to_json()["unflagged"] == {"photos": 2, "melds": 2, "melds_exact": 1}
    assert report.melds_exact == 3
    assert "photos with no warning: 2 (melds read exactly on them 1/2)" in report.describe()
    # every photo without a warning: the line would repeat the whole, so it is left out
    plain = Report("cards")
    plain.add(_truth(), right)
    assert plain.to_json()["unflagged"]["photos"] == 1
    assert "no warning" not in plain.describe()


def test_the_melds_of_each_deck_are_counted_apart() -> None:
    """Two photos dealt from one deck and one from another, one of the first read wrong: each
    deck's photos and melds add up on their own, and the deck read worst is named first."""
    report = Report("cards")
    right = _scan(["5H", "6H", "7H", "9C", "KD"], [[0, 1, 2]])
    misread = _scan(["5H", "6D", "7H", "9C", "KD"], [[0, 1, 2]])
    report.add(replace(_truth(), deck="gnome/paris"), right)
    report.add(replace(_truth(), deck="gnome/paris"), misread)
    report.add(replace(_truth(), deck="kde/svg-penguins"), right)
    report.add(_truth(), misread)  # no deck named: counted in the whole only
    assert report.to_json()["by_deck"] == {
        "gnome/paris": {"photos": 2, "melds": 2, "melds_exact": 1},
        "kde/svg-penguins": {"photos": 1, "melds": 1, "melds_exact": 1},
    }
    assert report.melds_exact == 2 and report.melds_true == 4
    assert (
        "melds read exactly by deck, the 2 read worst of 2: gnome/paris 1/2, kde/svg-penguins 1/1"
        in (report.describe())
    )
    assert (
        "by deck" not in Report("cards").describe() and Report("cards").to_json()["by_deck"] == {}
    )
