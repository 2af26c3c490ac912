"""Looking for the card corners a meld says the detector missed (vision.gaps)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.classes import PIECES
from vision.detections import NUM_FACES, Detections
from vision.gaps import (
    CARD_JOKER,
    GAP_LOOKS,
    UNMARKED_JOKER_CONFIDENCE,
    candidate_boxes,
    fan_step,
    fill_gaps,
    flanked,
    flanked_jokers,
    flanked_places,
    open_end_jokers,
    open_end_places,
    take_weak,
)

W, H = 12.0, 26.0  # a corner index box
STEP = 30.0  # the fan step of a column meld


def _column(x: float, ys: list[float], codes: list[str]) -> Detections:
    """Read card corners of a column meld, one per y (centres), with their codes."""
    xyxy = np.array([[x - W / 2, y - H / 2, x + W / 2, y + H / 2] for y in ys], np.float32)
    dets = Detections.from_boxes(xyxy, np.full(len(ys), 0.8), np.zeros(len(ys), np.int64))
    faces = np.full((len(ys), NUM_FACES), 1e-4, np.float32)
    for row, code in enumerate(codes):
        faces[row, PIECES.names.index(code)] = 0.95
    return dets.with_faces(faces)


def _centres(boxes: np.ndarray) -> list[tuple[float, float]]:
    return sorted(
        (round(float(x), 1), round(float(y), 1)) for x, y in (boxes[:, :2] + boxes[:, 2:]) / 2
    )


def test_a_corner_missing_inside_a_meld_and_one_past_each_end_are_looked_for() -> None:
    # 5H 6H _ 8H 9H: the detector missed 7H, two steps lie between 6H and 8H
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    boxes = candidate_boxes(dets, 400, 400)
    assert _centres(boxes) == [(100.0, 70.0), (100.0, 160.0), (100.0, 250.0)]
    assert np.allclose(boxes[:, 2:] - boxes[:, :2], [W, H])  # the neighbours' size


def test_a_longer_gap_is_looked_for_from_both_sides_within_the_photo() -> None:
    # 7H and 8H missing: the column breaks into two melds, each looked past at both ends
    dets = _column(100, [20, 50, 140, 170], ["5H", "6H", "9H", "10H"])
    centres = _centres(candidate_boxes(dets, 400, 190))
    # one step before 5H (y -10) and one after 10H (y 200) lie outside the photo
    assert centres == [(100.0, 80.0), (100.0, 110.0)]


def test_nothing_is_looked_for_without_a_meld() -> None:
    lone = _column(100, [100], ["5H"])
    assert len(candidate_boxes(lone, 400, 400)) == 0
    tiles = Detections.from_boxes(
        np.array([[0, 0, 20, 30], [21, 0, 41, 30]], np.float32), np.ones(2), np.full(2, 2)
    )
    assert len(candidate_boxes(tiles, 400, 400)) == 0  # tiles: cards only


class _Reader:
    """A classifier stand-in: reads a box as class ``code``, present with the probability its y
    says."""

    def __init__(self, presence_at: dict[float, float], code: str = "7H") -> None:
        self.presence_at = presence_at
        self.code = code
        self.seen = 0
        self.looks = 0

    def read(
        self, image: np.ndarray, detections: Detections, presence: bool = False, looks: int = 0
    ) -> Detections:
        assert presence  # looked-for boxes have no detector score
        self.seen += len(detections)
        self.looks = looks
        y = detections.centres[:, 1]
        p = np.array([self.presence_at.get(round(float(v)), 0.0) for v in y], np.float32)
        faces = np.full((len(detections), NUM_FACES), 0.0, np.float32)
        faces[:, PIECES.names.index(self.code)] = 1.0
        read = Detections(detections.xyxy, p, detections.coarse, faces, detections.up)
        return read[p >= 0.5]  # what reads as no piece is dropped, as the classifier does


def test_a_looked_for_corner_read_surely_joins_the_detections() -> None:
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    image = np.zeros((400, 400, 3), np.uint8)
    reader = _Reader({160: 0.9, 250: 0.55})  # the gap reads 7H surely, past 9H weakly
    out = fill_gaps(image, dets, reader, floor=0.6)
    assert reader.seen == 3
    assert reader.looks == GAP_LOOKS  # passed on (the stand-in's default, 0, is none)
    assert len(out) == 5 and out.codes()[4] == "7H"
    assert out.centres[4].tolist() == [100.0, 160.0]
    assert out.confidence[4] == pytest.approx(0.9)  # its presence
    assert np.array_equal(out.xyxy[:4], dets.xyxy)  # what the detector found is kept as it was


def test_nothing_read_surely_leaves_the_detections_as_they_were() -> None:
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    out = fill_gaps(np.zeros((400, 400, 3), np.uint8), dets, _Reader({}), floor=0.5)
    assert out is dets


def test_a_looked_for_place_read_as_a_joker_is_not_taken() -> None:
    """One fan step past a meld's end lies that card's face, whose picture reads as a joker
    more often than a true joker lies there (session 15: 10 of 46 such reads were right)."""
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    out = fill_gaps(np.zeros((400, 400, 3), np.uint8), dets, _Reader({160: 0.95}, "JK-card"), 0.5)
    assert out is dets


def _blank_reader() -> _Reader:
    """Reads every looked-for place as no piece (no index there)."""
    return _Reader({})


def test_a_place_between_two_lines_of_one_meld_that_shows_no_index_is_a_joker() -> None:
    """5H 6H _ 8H 9H with nothing read between 6H and 8H (two steps apart, so two chains): the
    card there shows no index, as a joker of a deck with unmarked corners does."""
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    assert _centres(flanked_places(dets, 400, 400)) == [(100.0, 160.0)]
    reader = _blank_reader()
    out = flanked_jokers(np.zeros((400, 400, 3), np.uint8), dets, reader)
    assert reader.seen == 1 and reader.looks == GAP_LOOKS
    assert len(out) == 5 and out.codes()[4] == "JK"
    assert out.centres[4].tolist() == [100.0, 160.0]
    assert out.coarse[4] == CARD_JOKER and out.read_confidence[4] == pytest.approx(0.29)
    assert np.array_equal(out.xyxy[:4], dets.xyxy)


def test_a_place_read_as_a_card_is_left_to_gap_filling() -> None:
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    out = flanked_jokers(np.zeros((400, 400, 3), np.uint8), dets, _Reader({160: 0.9}))
    assert out is dets


def test_a_place_between_two_lines_of_one_meld_read_as_a_joker_is_one() -> None:
    """5H 6H _ 8H 9H with a joker read between 6H and 8H: flanked in line, a card lies there,
    and the joker read is taken as read (session 49), where gap filling, which looks past a
    meld's ends too, takes none (above)."""
    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    image = np.zeros((400, 400, 3), np.uint8)
    out = flanked_jokers(image, dets, _Reader({160: 0.7}, "JK-card"))
    assert len(out) == 5 and out.codes()[4] == "JK"
    assert out.centres[4].tolist() == [100.0, 160.0]
    assert out.confidence[4] == pytest.approx(0.7)  # as read, not the blank joker's
    assert np.array_equal(out.xyxy[:4], dets.xyxy)
    # past a meld's end nothing flanks a place: a joker read there is not taken
    end = _column(100, [100, 130, 160], ["5H", "6H", "7H"])
    assert flanked_jokers(image, end, _Reader({190: 0.95}, "JK-card")) is end


def test_a_joker_read_between_cards_no_joker_could_join_is_not_taken() -> None:
    """Between KD and 2H (a second wild) or JD and 7D no joker makes a meld: what reads as one
    there is a court card's picture in a hand (two such on the real fans framed as phone photos,
    session 49). Between 6H and 6C (a set) it does."""
    image = np.zeros((400, 400, 3), np.uint8)
    for left, right in (("KD", "2H"), ("JD", "7D")):
        dets = _column(100, [100, 130, 190, 220], ["QD", left, right, "3H"])
        assert flanked_jokers(image, dets, _Reader({160: 0.9}, "JK-card")) is dets, (left, right)
    dets = _column(100, [100, 130, 190, 220], ["6S", "6H", "6C", "6D"])
    out = flanked_jokers(image, dets, _Reader({160: 0.9}, "JK-card"))
    assert len(out) == 5 and out.codes()[4] == "JK"


def test_a_joker_read_between_two_corners_is_judged_by_those_two() -> None:
    """5H 6H _ 8H 9H beside the corners of a meld that faces the other way, KC 24 px from the
    place and 5D across it, both nearer than 6H and 8H (30 px): the joker read there is judged
    with 6H and 8H, which flank it, not with KC and 5D, which no joker joins (session 50; the
    nearest corners stood in for the flanking pair before)."""
    meld = replace(_column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"]), up=np.zeros(4))
    turned = _joined(_column(124, [160], ["KC"]), _column(72, [160], ["5D"]))
    dets = _joined(meld, replace(turned, up=np.full(2, np.pi, np.float32)))
    assert flanked(dets, 400, 400)[1] == [("6H", "8H")]
    out = flanked_jokers(np.zeros((400, 400, 3), np.uint8), dets, _Reader({160: 0.9}, "JK-card"))
    assert len(out) == 7 and out.codes()[6] == "JK"
    assert out.centres[6].tolist() == [100.0, 160.0]


def test_only_a_place_with_a_card_beyond_it_in_line_is_looked_at() -> None:
    # a meld's end: nothing one step further, a card two steps off the line, a card two steps
    # on but turned away, or a line beyond that runs another way: no place
    assert len(flanked_places(_column(100, [100, 130, 160], ["5H", "6H", "7H"]), 400, 400)) == 0
    near = _column(100, [100, 130, 160], ["5H", "6H", "7H"])
    off_line = _column(100 + 0.6 * STEP, [220], ["9H"])
    assert len(flanked_places(_joined(near, off_line), 400, 400)) == 0
    upright = replace(near, up=np.zeros(3, np.float32))
    turned = replace(_column(100, [220], ["9H"]), up=np.array([np.pi], np.float32))
    assert len(flanked_places(_joined(upright, turned), 400, 400)) == 0
    assert len(flanked_places(_joined(upright, replace(turned, up=np.zeros(1))), 400, 400)) == 1
    across = _joined(near, _column(100, [220], ["9H"]), _column(100 + STEP, [220], ["9D"]))
    across = _joined(across, _column(100 + 2 * STEP, [220], ["9S"]))
    assert len(flanked_places(across, 400, 400)) == 0
    assert _centres(flanked_places(_joined(near, _column(100, [220], ["9H"])), 400, 400)) == [
        (100.0, 190.0)
    ]


def test_a_lines_fan_step_leaves_its_gaps_out() -> None:
    assert fan_step(np.array([60.0, 30.0])) == 30.0  # 9H _ JH QH: one link is a gap
    assert fan_step(np.array([30.0, 28.0, 61.0, 32.0])) == 31.0  # the median of three or more
    assert fan_step(np.array([30.0, 40.0])) == 30.0  # the shorter of two
    assert fan_step(np.array([15.0, 30.0, 31.0, 30.0, 29.0])) == 30.0  # one short link
    assert fan_step(np.zeros(0)) == 0.0


def test_a_gap_in_a_line_of_three_is_measured_by_its_steps_not_by_itself() -> None:
    """9H _ JH QH, the gap 1.65 steps long: the median of the two links (1.3 steps) had read the
    gap as a step, so no place was looked at (`dev_decks` 000126, a Kennard joker, session 54).
    Two links that differ by 1.5 steps without a gap between them (`dev_cards` 000013, 9C 10C
    JC) are no gap: a line of two links measures its step by one of them, so its gap must be
    1.6 steps long (``GAP_STEP``)."""
    dets = _column(100, [100, 100 + 1.65 * STEP, 100 + 2.65 * STEP], ["9H", "JH", "QH"])
    assert _centres(flanked_places(dets, 400, 400)) == [(100.0, 124.8)]
    varied = _column(100, [100, 100 + 1.5 * STEP, 100 + 2.5 * STEP], ["9C", "10C", "JC"])
    assert len(flanked_places(varied, 400, 400)) == 0
    # a longer line measures its step by more links: a gap of 1.55 steps is one there
    # (`syn_cards` val 000499: AS KS _ 10C 10C)
    ys = np.cumsum([100, STEP, 1.55 * STEP, STEP]).tolist()
    longer = _column(100, ys, ["AS", "KS", "10C", "10C"])
    assert _centres(flanked_places(longer, 400, 400)) == [(100.0, 153.2)]


def test_the_card_beyond_a_gap_is_looked_for_along_the_whole_line() -> None:
    """6C 7C 8C 9C laid unevenly (the last link 18 degrees off the line), JC two steps on along
    the line: the last link's way would look 17 px beside it (`dev_decks` 000030, 000114)."""
    xs, ys = [100, 97, 103, 90], [100, 130, 160, 190]
    codes = ["6C", "7C", "8C", "9C"]
    line = _joined(*(_column(x, [y], [c]) for x, y, c in zip(xs, ys, codes, strict=True)))
    beyond = _column(90 - 60 * 10 / 90, [250], ["JC"])
    assert _centres(flanked_places(_joined(line, beyond), 400, 400)) == [(86.7, 220.0)]


def test_a_top_card_seen_by_both_corners_flanks_a_place_by_its_corner_in_line() -> None:
    """5H 6H _ 8H, the 8H on top of the fan and seen by both corners: the grouping shows it by
    its far corner (in a row of cards facing the other way), yet the corner in line with the
    meld is the one two steps past 6H (`dev_decks` 000019)."""
    meld = replace(_column(100, [100, 130], ["5H", "6H"]), up=np.zeros(2, np.float32))
    top = replace(_column(100, [190], ["8H"]), up=np.zeros(1, np.float32))
    row = zip([160, 190, 220], ["8H", "KS", "QS"], strict=True)
    other = _joined(*(_column(x, [280], [c]) for x, c in row))
    dets = _joined(meld, top, replace(other, up=np.full(3, np.pi, np.float32)))
    assert _centres(flanked_places(dets, 400, 400)) == [(100.0, 160.0)]


def test_a_place_where_indexes_outsize_the_step_is_looked_at_but_is_not_plain() -> None:
    """Indexes bigger than the fan step (Kennard's deck, close up): 6H and 8H lie nearer the
    place between them than their box size, which counted as covering it until session 55
    (`dev_decks` 000126); within 0.8 steps they do not, but the place is crowded, not plain."""
    big = np.array([40.0, 60.0])  # a box side of 49 px against a step of 30
    ys = [100, 130, 190, 220]
    xyxy = np.array(
        [[100 - big[0] / 2, y - big[1] / 2, 100 + big[0] / 2, y + big[1] / 2] for y in ys]
    )
    dets = _column(100, ys, ["5H", "6H", "8H", "9H"])
    dets = Detections(xyxy.astype(np.float32), dets.confidence, dets.coarse, dets.faces, dets.up)
    boxes, pairs, plain = flanked(dets, 400, 400)
    assert _centres(boxes) == [(100.0, 160.0)] and pairs == [("6H", "8H")]
    assert plain.tolist() == [False]
    assert flanked(_column(100, ys, ["5H", "6H", "8H", "9H"]), 400, 400)[2].tolist() == [True]


def test_a_blank_place_found_only_by_the_looser_look_needs_a_meld_to_hold_a_joker() -> None:
    """The looser look (session 55: a line's step by the shorter of two links, the way on along
    the whole line, second corners, the step's cover) finds places in fanned hands too, where a
    card's index need not show: a blank place it alone finds is a joker only where a joker could
    make a meld with its two neighbours (the real fans turned half round read a false joker
    between 8C and 3H of a bridge hand without this). A place plainly found is taken as before:
    a meld laid wrong (6H _ 8C) is the players' mistake, for the verdict to report."""
    image = np.zeros((400, 400, 3), np.uint8)
    ys = [100, 100 + 1.65 * STEP, 100 + 2.65 * STEP]  # found only by the shorter link's step
    for codes, taken in ((["9H", "JH", "QH"], True), (["8C", "3H", "4H"], False)):
        dets = _column(100, ys, codes)
        assert flanked(dets, 400, 400)[2].tolist() == [False]
        out = flanked_jokers(image, dets, _blank_reader())
        assert (len(out) == 4 and out.codes()[3] == "JK") if taken else out is dets, codes
    plainly = _column(100, [100, 130, 190, 220], ["5H", "6H", "8C", "9C"])
    assert flanked(plainly, 400, 400)[2].tolist() == [True]
    out = flanked_jokers(image, plainly, _blank_reader())
    assert len(out) == 5 and out.codes()[4] == "JK"


def test_weakly_read_jokers_make_no_line() -> None:
    # 5H 6H, a weak joker reading three steps on, then 9H 10H: the joker makes no line to bridge
    dets = _joined(
        _column(100, [100, 130], ["5H", "6H"]),
        _column(100, [190], ["JK-card"]),
        _column(100, [250, 280], ["9H", "10H"]),
    )
    assert len(flanked_places(dets, 400, 400)) == 0


def _joined(*parts: Detections) -> Detections:
    out = parts[0]
    for part in parts[1:]:
        out = out.joined(part)
    return out


def test_the_joker_found_so_joins_its_meld_and_is_reported_uncertain() -> None:
    from vision.scanner import ScanKind, assemble

    dets = _column(100, [100, 130, 190, 220], ["5H", "6H", "8H", "9H"])
    out = flanked_jokers(np.zeros((400, 400, 3), np.uint8), dets, _blank_reader())
    result = assemble(out, ScanKind.CARDS, None, "", 400, 400, {}, 0.0)
    (meld,) = result.melds
    codes = [result.pieces[i].code for i in meld.pieces]
    assert codes in (["5H", "6H", "JK", "8H", "9H"], ["9H", "8H", "JK", "6H", "5H"])
    assert meld.verdict.valid
    assert [result.pieces[i].uncertain for i in meld.pieces] == [c == "JK" for c in codes]
    # a joker read surely where the detector found it is not in doubt
    sure = _joined(dets, _column(100, [160], ["JK-card"]))
    result = assemble(sure, ScanKind.CARDS, None, "", 400, 400, {}, 0.0)
    assert [p.uncertain for p in result.pieces] == [False] * 5


def test_a_joker_found_so_in_a_row_that_is_no_meld_is_dropped() -> None:
    """A place between two corners of a row of unrelated cards (a hand laid in line, 3C 7H _ KD
    4S) shows no index either; the row is set aside as no meld, and the joker guessed there,
    read under the floor under which a joker in no meld is dropped, goes with it."""
    from vision.scanner import ScanKind, assemble

    dets = _column(100, [100, 130, 190, 220], ["3C", "7H", "KD", "4S"])
    out = flanked_jokers(np.zeros((400, 400, 3), np.uint8), dets, _blank_reader())
    assert out.codes() == ["3C", "7H", "KD", "4S", "JK"]  # the place was taken for a joker
    result = assemble(out, ScanKind.CARDS, None, "", 400, 400, {}, 0.0)
    assert not result.melds
    assert sorted(p.code for p in result.pieces) == ["3C", "4S", "7H", "KD"]


TABLE = (30, 110, 50)  # green baize
PAPER = (245, 244, 238)
YS = [100.0, 130.0, 160.0, 190.0]  # a column meld's corners, each card on the one above


def _upright(dets: Detections) -> Detections:
    """``dets`` read standing upright (up angle 0): each card's face lies right of and below
    its corner, so the column's top card lies under the others and its corner by the table."""
    return replace(dets, up=np.zeros(len(dets), np.float32))


def _table(strip: float = 0.0, gap: int = 0, table: tuple[int, int, int] = TABLE) -> np.ndarray:
    """A photo of the column meld of ``YS`` at x 100: the cards' paper, an index inked in each
    corner box, and ``strip`` pixels more paper above the top card (a card lying under it whose
    corner shows no index), the table showing through its lowest ``gap`` of them."""
    image = np.full((400, 400, 3), table, np.uint8)
    edge = int(YS[0] - H / 2 - 6)  # the top card's edge
    image[int(edge - strip) : 290, 88:158] = PAPER
    image[edge - gap : edge, 88:158] = table
    for y in YS:
        image[int(y) - 7 : int(y) + 7, 97:103] = (20, 20, 20)  # the rank and suit
    return image


def test_the_place_beyond_a_lines_open_end_is_looked_at_not_the_top_cards_face() -> None:
    dets = _upright(_column(100, YS, ["5H", "6H", "7H", "8H"]))
    (end,) = open_end_places(dets, 400, 400)
    assert _centres(end.place[None]) == [(100.0, 70.0)]  # one step above the top corner
    assert end.step == pytest.approx(STEP) and end.way.tolist() == pytest.approx([0.0, -1.0])
    # read upside down, the column's last card lies under the others: its end is the open one
    turned = replace(dets, up=np.full(len(dets), np.pi, np.float32))
    (end,) = open_end_places(turned, 400, 400)
    assert _centres(end.place[None]) == [(100.0, 220.0)]
    # a corner whose way up is not read tells no open end
    assert open_end_places(_column(100, YS, ["5H", "6H", "7H", "8H"]), 400, 400) == []


def test_a_card_under_the_open_end_that_shows_no_index_is_a_joker() -> None:
    """A strip of paper one step beyond the open end, the table beyond it, and no index read
    there: the joker of a deck that prints none in its corners, laid at the meld's end."""
    dets = _upright(_column(100, YS, ["5H", "6H", "7H", "8H"]))
    reader = _blank_reader()
    out = open_end_jokers(_table(strip=STEP), dets, reader)
    assert reader.seen == 1 and reader.looks == GAP_LOOKS
    assert out.codes() == ["5H", "6H", "7H", "8H", "JK"]
    assert out.coarse[4] == CARD_JOKER and _centres(out.xyxy[4:]) == [(100.0, 70.0)]
    assert out.confidence[4] == UNMARKED_JOKER_CONFIDENCE


@pytest.mark.parametrize(
    "case", ["table beyond", "white square", "white table", "index read", "marked joker"]
)
def test_no_joker_is_guessed_where_the_photo_does_not_show_one(case: str) -> None:
    """The table one step beyond the open end; something white there with the table between it
    and the card (a checked cloth's square); paper two steps beyond too (a white cloth, or more
    cards); an index read at the place (gap filling's); a photo whose jokers are read from their
    corners."""
    dets = _upright(_column(100, YS, ["5H", "6H", "7H", "8H"]))
    image = {
        "table beyond": _table(),
        "white square": _table(strip=STEP, gap=5),
        "white table": _table(strip=STEP, table=PAPER),
    }.get(case, _table(strip=STEP))
    reader = _Reader({70: 0.9}) if case == "index read" else _blank_reader()
    if case == "marked joker":
        dets = _joined(dets, _upright(_column(300, [100], ["JK-card"])))
    out = open_end_jokers(image, dets, reader)
    assert out is dets


def _weak(x: float, ys: list[float], code: str = "7H", coarse: int = 0) -> Detections:
    """Card corners read under the read floor (confidence 0.2 times face probability 0.4)."""
    xyxy = np.array([[x - W / 2, y - H / 2, x + W / 2, y + H / 2] for y in ys], np.float32)
    dets = Detections.from_boxes(xyxy, np.full(len(ys), 0.2), np.full(len(ys), coarse))
    faces = np.full((len(ys), NUM_FACES), 1e-4, np.float32)
    faces[:, PIECES.names.index(code)] = 0.4
    return dets.with_faces(faces)


def test_a_weak_corner_where_a_meld_lacks_one_is_taken_back() -> None:
    # 5H 6H 7H 8H read surely; 9H past the end read weakly, and a weak box far from the meld
    dets = _column(100, [100, 130, 160, 190], ["5H", "6H", "7H", "8H"])
    weak = _weak(100, [223, 330], "9H")
    out = take_weak(dets, weak, 400, 400, overlap=0.3)
    assert len(out) == 5 and out.codes()[4] == "9H"
    assert out.centres[4].tolist() == [100.0, 223.0]  # its own box, not the place's
    assert out.read_confidence[4] == pytest.approx(0.08)  # as weak as it was read
    assert np.array_equal(out.xyxy[:4], dets.xyxy)


def test_a_weak_corner_off_the_place_or_on_a_covered_one_stays_out() -> None:
    dets = _column(100, [100, 130, 160, 190], ["5H", "6H", "7H", "8H"])
    # off the place past 8H (y 220): 16 px down overlaps it by IoU 0.24, 9 px down by 0.49
    assert len(take_weak(dets, _weak(100, [236]), 400, 400, overlap=0.3)) == 4
    assert len(take_weak(dets, _weak(100, [229]), 400, 400, overlap=0.3)) == 5
    # a corner found there already covers the place: the weak box is no missing corner
    found = dets.joined(_column(100, [220], ["9H"]))
    assert take_weak(found, _weak(100, [221]), 400, 400, overlap=0.3) is found


def test_weak_tiles_and_a_zero_overlap_take_nothing() -> None:
    dets = _column(100, [100, 130, 160, 190], ["5H", "6H", "7H", "8H"])
    tile = _weak(100, [220], "7H", coarse=2)  # a tile's coarse class
    assert take_weak(dets, tile, 400, 400, overlap=0.3) is dets
    assert take_weak(dets, _weak(100, [220]), 400, 400, overlap=0.0) is dets
    assert take_weak(dets, _weak(100, [220])[np.zeros(1, bool)], 400, 400, 0.3) is dets
