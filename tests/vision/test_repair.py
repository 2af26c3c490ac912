"""Game knowledge repairs a doubtful reading, and says what stays uncertain."""

from __future__ import annotations

import pytest

from scorer import BurracoKind, Rules
from vision.repair import Choice, could_meld, read_chain, read_meld, strays, tile_changes

RULES = Rules.preset("burraco-fibur")


def sure(code: str) -> Choice:
    return Choice(((code, 0.99), ("JK", 0.005)))


def test_a_run_reads_the_doubtful_piece_that_makes_it_valid() -> None:
    doubtful = Choice((("7D", 0.55), ("7H", 0.40), ("1H", 0.02)))
    reading = read_meld([sure("5H"), sure("6H"), doubtful, sure("8H")], RULES)
    assert reading.codes == ("5H", "6H", "7H", "8H")
    assert reading.verdict.valid
    assert reading.repaired == (2,)


def doubt(read: str, meant: str) -> Choice:
    return Choice(((read, 0.6), (meant, 0.35), ("JK", 0.01)))


def test_up_to_three_doubtful_pieces_are_read_again_together() -> None:
    meld = [sure("5H"), doubt("6D", "6H"), doubt("7D", "7H"), doubt("8D", "8H"), sure("9H")]
    reading = read_meld(meld, RULES)
    assert reading.codes == ("5H", "6H", "7H", "8H", "9H")
    assert reading.repaired == (1, 2, 3)
    # four at once are not tried: the meld stays as read, invalid
    four = [doubt("5D", "5H"), *meld[1:]]
    reading = read_meld(four, RULES)
    assert not reading.verdict.valid and reading.codes[0] == "5D" and reading.repaired == ()


def test_a_valid_reading_is_kept() -> None:
    reading = read_meld([sure("9C"), sure("9D"), sure("9S")], RULES)
    assert reading.codes == ("9C", "9D", "9S") and reading.repaired == ()


def test_a_sure_misfit_is_not_forced() -> None:
    reading = read_meld([sure("5H"), sure("6H"), sure("KC"), sure("8H")], RULES)
    assert not reading.verdict.valid
    assert reading.codes == ("5H", "6H", "KC", "8H")


def test_a_run_laid_out_of_order_still_reads_one_suit_and_is_called_out_of_order() -> None:
    # JS 10S 2C 9S 8S 7? 6S 5S: the 2C lies where no card goes, so no reading is valid as laid
    # out; the doubtful 7C still reads 7S, the one reading valid in some order
    laid = ["JS", "10S", "2C", "9S", "8S"]
    seven = Choice((("7C", 0.56), ("7S", 0.16), ("9C", 0.01)))
    meld = [*map(sure, laid), seven, sure("6S"), sure("5S")]
    reading = read_meld(meld, RULES)
    assert reading.codes == (*laid, "7S", "6S", "5S")
    assert reading.repaired == (5,)
    assert not reading.verdict.valid
    assert [p.code.value for p in reading.verdict.problems] == ["out-of-order"]
    # a meld that is already consistent in some order is left as read
    shuffled = [sure("6S"), doubt("5S", "5C"), sure("7S")]
    reading = read_meld(shuffled, RULES)
    assert reading.codes == ("6S", "5S", "7S") and reading.repaired == ()
    assert not reading.verdict.valid


def test_a_misfit_that_no_order_makes_valid_is_not_forced() -> None:
    meld = [sure("JS"), sure("9S"), doubt("10D", "10H"), sure("8S")]
    reading = read_meld(meld, RULES)
    assert reading.codes == ("JS", "9S", "10D", "8S") and reading.repaired == ()


def card(read: str, p: float, **suits: float) -> Choice:
    """A card read as ``read`` with probability ``p``; ``suits`` gives its rank's other suits'
    probabilities (``C=0.3``)."""
    rank = read[:-1]
    probs = {read: p} | {rank + s: q for s, q in suits.items()}
    ranked = tuple(sorted(probs.items(), key=lambda kv: -kv[1]))
    return Choice(ranked, tuple((rank + s, probs.get(rank + s, 0.0)) for s in "SHDC"))


def test_a_run_whose_black_suit_is_misread_on_most_cards_reads_one_suit() -> None:
    # clubs read as spades on four of seven cards (small indexes, blurred): no three changes
    # make it valid, one suit for the whole run does
    meld = [
        card("3C", 0.55, S=0.3),
        card("4S", 0.6, C=0.35),
        card("5S", 0.55, C=0.4),
        card("6S", 0.6, C=0.3),
        card("7S", 0.5, C=0.4),
        card("8C", 0.6, S=0.2),
        card("9C", 0.7, S=0.2),
    ]
    reading = read_meld(meld, RULES)
    assert reading.codes == ("3C", "4C", "5C", "6C", "7C", "8C", "9C")
    assert reading.verdict.valid and reading.repaired == (1, 2, 3, 4)


def test_one_suit_keeps_a_wild_two_and_needs_the_suit_readable() -> None:
    # hearts and diamonds read half and half: four changes either way, hearts the likelier
    run = [card("4H", 0.6, D=0.3), card("5D", 0.55, H=0.4), card("6H", 0.6, D=0.3)]
    run += [card("7D", 0.5, H=0.45), card("2C", 0.9), card("9H", 0.7, D=0.2)]
    run += [card("10D", 0.6, H=0.35), card("JH", 0.6, D=0.3), card("QD", 0.5, H=0.45)]
    reading = read_meld(run, RULES)
    assert " ".join(reading.codes) == "4H 5H 6H 7H 2C 9H 10H JH QH"  # 2C stays: the wild
    assert reading.verdict.valid and reading.repaired == (1, 3, 6, 8)
    # a suit the classifier all but ruled out (under SUIT_FLOOR) is not forced: with the 10
    # surely a diamond the run reads diamonds, and with the jack surely a heart too, neither
    sure_10 = [*run[:6], card("10D", 0.6, H=0.01), *run[7:]]
    assert " ".join(read_meld(sure_10, RULES).codes) == "4D 5D 6D 7D 2C 9D 10D JD QD"
    both = [*sure_10[:7], card("JH", 0.6, D=0.01), sure_10[8]]
    assert not read_meld(both, RULES).verdict.valid


def test_one_suit_never_changes_a_rank_so_a_stray_rank_stays_as_read() -> None:
    # a set of 9s with a 5 in it: no suit for all four makes it a meld, nor do the 5's
    # doubtful suits; it stays as read, invalid, for the verdict to explain
    meld = [card("5S", 0.6, C=0.35), card("9C", 0.6, S=0.3), card("9H", 0.9, D=0.05)]
    meld.append(card("9D", 0.6, H=0.35))
    reading = read_meld(meld, RULES)
    assert reading.codes == ("5S", "9C", "9H", "9D") and not reading.verdict.valid


def test_tiles_too() -> None:
    doubtful = Choice((("B8", 0.6), ("R8", 0.35)))
    reading = read_meld([sure("R6"), sure("R7"), doubtful], Rules.preset("burako-003"))
    assert reading.codes == ("R6", "R7", "R8")


def test_a_small_corner_misread_is_mended_from_its_fourth_or_fifth_face() -> None:
    """Session 50 (`dev_cards` 000197): 4H 5H 6H 7H 8H 9H with the 8H read KH at 0.64 and 8H
    at 0.02, and a card whose true face is its fifth likeliest; the served repair had looked at
    second faces of 0.03 and up, and three faces a piece."""
    eight = Choice((("KH", 0.64), ("8H", 0.02), ("6H", 0.01)))
    meld = [sure("4H"), sure("5H"), sure("6H"), sure("7H"), eight, sure("9H")]
    reading = read_meld(meld, RULES)
    assert reading.codes == ("4H", "5H", "6H", "7H", "8H", "9H") and reading.repaired == (4,)
    fifth = Choice((("QD", 0.5), ("QH", 0.2), ("KD", 0.1), ("3D", 0.05), ("JD", 0.02)))
    reading = read_meld([sure("9D"), sure("10D"), fifth, sure("QD")], RULES)
    assert reading.codes == ("9D", "10D", "JD", "QD") and reading.repaired == (2,)


def test_a_repair_costs_cards_up_to_e5_and_tiles_up_to_e4() -> None:
    """A face 1/90 as likely as the one read (log-cost 4.5) mends a card meld but not a tile
    meld: on `dev_tiles` a joker laid out of place, B7 ... B11 JK B12, read B12 as B13 at cost 5
    and was called a valid run (session 50)."""
    far = Choice((("7D", 0.9), ("7C", 0.05), ("7H", 0.01)))
    reading = read_meld([sure("5H"), sure("6H"), far, sure("8H")], RULES)
    assert reading.codes == ("5H", "6H", "7H", "8H") and reading.verdict.valid
    tile = Choice((("B8", 0.9), ("Y8", 0.05), ("R8", 0.01)))
    reading = read_meld([sure("R6"), sure("R7"), tile], Rules.preset("burako-003"))
    assert reading.codes == ("R6", "R7", "B8") and not reading.verdict.valid


TILES = Rules.preset("burako-003")


def row(codes: str, steps: list[float]) -> tuple[list[Choice], list[tuple[float, float]]]:
    """Sure tiles along a row whose centres lie ``steps`` apart."""
    xs = [0.0]
    for step in steps:
        xs.append(xs[-1] + step)
    return [sure(c) for c in codes.split()], [(x, 10.0) for x in xs]


def test_two_melds_laid_end_to_end_split_at_the_wide_gap() -> None:
    choices, centres = row("R1 K1 B1 R9 R10 R11", [30, 31, 40, 30, 29])
    parts = read_chain(choices, centres, TILES)
    assert [list(span) for span, _ in parts] == [[0, 1, 2], [3, 4, 5]]
    assert all(reading.verdict.valid for _, reading in parts)


def test_an_evenly_laid_invalid_meld_is_not_split() -> None:
    # a joker out of place: R6 R7 JK | R8 R9 R10 would both read valid, but nothing in the row
    # says two melds lie there, so the verdict stays the one a player asked for
    choices, centres = row("R6 R7 JK R8 R9 R10", [30, 31, 33, 30, 29])
    ((span, reading),) = read_chain(choices, centres, TILES)
    assert list(span) == list(range(6)) and not reading.verdict.valid


def test_a_row_is_not_split_where_no_part_reads_valid() -> None:
    choices, centres = row("R1 K1 Y4 R9 Y3 R11", [30, 31, 40, 30, 29])
    ((span, reading),) = read_chain(choices, centres, TILES)
    assert len(span) == 6 and not reading.verdict.valid


def test_a_valid_meld_is_split_off_a_flawed_row_laid_end_to_end() -> None:
    choices, centres = row("R1 K1 B1 R9 Y3 R11", [30, 31, 37, 30, 29])
    parts = read_chain(choices, centres, TILES)
    assert [[choices[i].best for i in span] for span, _ in parts] == [
        ["R1", "K1", "B1"],
        ["R9", "Y3", "R11"],
    ]
    assert [reading.verdict.valid for _, reading in parts] == [True, False]


def test_no_valid_meld_is_split_off_leaving_two_tiles() -> None:
    # a run missing its middle tile leaves a wide gap: Y7 Y8 Y9 _ Y11 Y12 is one flawed meld
    choices, centres = row("Y7 Y8 Y9 Y11 Y12", [30, 30, 60, 30])
    ((span, reading),) = read_chain(choices, centres, TILES)
    assert len(span) == 5 and not reading.verdict.valid


def test_cards_are_not_split_off() -> None:
    # card fans' steps vary more than a row of tiles': only a split into valid parts is taken
    choices, centres = row("5H 5S 5C 9D 4C 7S", [30, 31, 40, 30, 29])
    ((span, reading),) = read_chain(choices, centres, RULES)
    assert len(span) == 6 and not reading.verdict.valid
    choices, centres = row("5H 5S 5C 9D 9C 9S", [30, 31, 40, 30, 29])
    assert len(read_chain(choices, centres, RULES)) == 2


def test_a_set_and_a_run_laid_end_to_end_split_at_a_step_a_little_wider() -> None:
    # 1.1 steps: under the gap that says two melds, but a set and a run are never one meld
    choices, centres = row("B3 R3 Y3 B4 B5 B6 B7", [30, 30, 33, 30, 30, 30])
    parts = read_chain(choices, centres, TILES)
    assert [[choices[i].best for i in span] for span, _ in parts] == [
        ["B3", "R3", "Y3"],
        ["B4", "B5", "B6", "B7"],
    ]
    choices, centres = row("R3 R4 R5 B6 B7 B8", [30, 30, 33, 30, 30])  # runs of two colours
    assert len(read_chain(choices, centres, TILES)) == 2
    choices, centres = row("K9 B9 R9 Y4 Y4 Y4", [30, 30, 33, 30, 30])  # sets of two numbers
    assert len(read_chain(choices, centres, TILES)) == 2


def test_a_valid_meld_beside_a_flawed_row_of_other_tiles_splits_off_a_little_apart() -> None:
    # the yellow row is out of order; the blue run could never take a yellow tile
    choices, centres = row("Y5 Y4 Y3 Y6 Y2 Y1 B5 B4 B3", [30, 30, 30, 30, 30, 33, 30, 30])
    parts = read_chain(choices, centres, TILES)
    assert [[choices[i].best for i in span] for span, _ in parts] == [
        ["Y5", "Y4", "Y3", "Y6", "Y2", "Y1"],
        ["B5", "B4", "B3"],
    ]
    assert [reading.verdict.valid for _, reading in parts] == [False, True]
    # a blue tile in the flawed row could be the run's: one row, judged whole
    choices, centres = row("Y5 Y4 B6 Y6 Y2 Y1 B5 B4 B3", [30, 30, 30, 30, 30, 33, 30, 30])
    assert len(read_chain(choices, centres, TILES)) == 1


def test_two_melds_laid_evenly_or_that_could_be_one_are_not_split_so() -> None:
    ((span, _),) = read_chain(*row("B3 R3 Y3 B4 B5 B6 B7", [30] * 6), TILES)
    assert len(span) == 7
    # two runs of one colour may be one with a piece out of place: R6 R7 JK | R8 R9 R10
    ((span, _),) = read_chain(*row("R6 R7 JK R8 R9 R10", [30, 30, 33, 30, 30]), TILES)
    assert len(span) == 6


def test_a_chain_splits_into_three() -> None:
    choices, centres = row("K2 K3 K4 Y7 B7 R7 B1 B2 B3", [30, 30, 45, 30, 30, 45, 30, 30])
    parts = read_chain(choices, centres, TILES)
    assert [[choices[i].best for i in span] for span, _ in parts] == [
        ["K2", "K3", "K4"],
        ["Y7", "B7", "R7"],
        ["B1", "B2", "B3"],
    ]


@pytest.mark.parametrize(
    ("row", "changes"),
    [
        ("R5 R6 R7", 0),
        ("R7 R6 R5", 0),
        ("Y4 JK Y6 Y7", 0),
        ("K5 B5 R5 Y5 JK", 1),  # five tiles of one number: one too many
        ("R5 R6 R8", 1),
        ("K5 B5 B5", 1),
        ("K3 B2 R7 Y10 Y7 K4", 4),
    ],
)
def test_tile_changes_counts_the_tiles_a_row_needs_changed(row: str, changes: int) -> None:
    assert tile_changes(row.split()) == changes


@pytest.mark.parametrize(
    ("row", "ordered", "unordered"),
    [
        ("K8 K7 K9 K6 K5", 3, 0),  # a run with one tile out of its place
        ("R6 R8 R7", 1, 0),
        ("Y10 Y9 Y7 Y6 Y5", 2, 1),  # a gap: Y8 wanted, or Y5 taken for Y11
        ("B2 B3 B4 B5 B7 B8 B9 B10", 4, 1),
        ("JK R9 R7 R8", 1, 0),  # the joker stands for R6 or R10
        ("R5 R5 R6", 1, 1),  # two decks: one R5 too many either way
        ("B12 B13 B1", 1, 1),  # a run does not turn the corner from 13 to 1
        ("K5 B5 R5 Y5 JK", 1, 1),  # a group is counted in any order already
        ("K3 B2 R7 Y10 Y7 K4", 4, 4),
    ],
)
def test_tile_changes_in_any_order(row: str, ordered: int, unordered: int) -> None:
    assert tile_changes(row.split()) == ordered
    assert tile_changes(row.split(), ordered=False) == unordered


@pytest.mark.parametrize(
    ("codes", "rules", "can"),
    [
        ("7D 8D", RULES, True),  # 6D or 9D, or a wild
        ("7D 7S", RULES, True),
        ("KS 2C", RULES, True),  # a wild: KS QS 2C
        ("JK 5H", RULES, True),
        ("7D KS", RULES, False),
        ("7D 9S", RULES, False),
        ("R5 R6", TILES, True),
        ("R5 K5", TILES, True),
        ("R5 K9", TILES, False),
    ],
)
def test_could_meld_says_whether_one_more_piece_makes_a_meld(
    codes: str, rules: Rules, can: bool
) -> None:
    assert could_meld(codes.split(), rules) is can


@pytest.mark.parametrize("preset", ["burraco-fibur", "burako-003", "rummy-003"])
def test_could_meld_skips_no_piece_that_could_make_a_meld(preset: str) -> None:
    # could_meld tries only the pieces that share a suit or rank (colour or number) with the
    # pair, and the wilds: it agrees with trying all 53 (every pair of a kind was checked once;
    # every fourth here, to keep the suite quick)
    import itertools

    from scorer import PieceKind, validate_meld
    from vision.classes import ALL_FACES
    from vision.classes import PieceKind as FaceKind

    rules = Rules.preset(preset)
    kind = FaceKind.TILE if rules.pieces is PieceKind.TILES else FaceKind.CARD
    faces = [f.code for f in ALL_FACES if f.kind is kind]

    def by_trying_all(pair: list[str]) -> bool:
        return any(validate_meld([*pair, face], rules).valid for face in faces)

    pairs = list(itertools.combinations_with_replacement(faces, 2))
    assert len(pairs) == 1431
    sample = pairs[::4]
    assert [p for p in sample if could_meld(list(p), rules) != by_trying_all(list(p))] == []


def test_a_misread_standing_as_a_wild_reads_natural() -> None:
    # R2 would stand for a 4 in a valid set; the classifier's next face, R4, is nearly as likely
    doubtful = Choice((("R2", 0.43), ("R4", 0.32)))
    reading = read_meld([sure("B4"), doubtful, sure("K4")], TILES)
    assert reading.codes == ("B4", "R4", "K4") and reading.verdict.valid
    assert reading.repaired == (1,) and not any(reading.verdict.wild)


def test_a_two_of_the_wrong_suit_reads_as_the_natural_two() -> None:
    doubtful = Choice((("2C", 0.5), ("2S", 0.3)))
    reading = read_meld([sure("AS"), doubtful, sure("3S"), sure("4S")], RULES)
    assert reading.codes == ("AS", "2S", "3S", "4S") and not any(reading.verdict.wild)


def test_a_wild_read_surely_stays_a_wild() -> None:
    # the next face is far less likely (e^-2 times or less): a player's wild, as laid
    doubtful = Choice((("R2", 0.8), ("R4", 0.05)))
    reading = read_meld([sure("B4"), doubtful, sure("K4")], TILES)
    assert reading.codes == ("B4", "R2", "K4") and reading.verdict.valid and reading.repaired == ()
    joker = Choice((("JK", 0.9), ("R5", 0.08)))
    reading = read_meld([sure("R4"), joker, sure("R6")], TILES)
    assert reading.codes == ("R4", "JK", "R6")


def test_a_joker_that_may_be_the_natural_piece_reads_natural() -> None:
    joker = Choice((("JK", 0.5), ("R5", 0.4)))
    reading = read_meld([sure("R4"), joker, sure("R6")], TILES)
    assert reading.codes == ("R4", "R5", "R6") and reading.repaired == (1,)


def test_a_repair_pays_for_each_piece_it_makes_a_wild() -> None:
    # a set laid with a mistake: B1 read far surer than B2, which would stand for a 3
    unlikely_two = Choice((("B1", 0.62), ("B7", 0.2), ("B2", 0.09)))
    reading = read_meld([sure("R3"), unlikely_two, sure("Y3")], TILES)
    assert reading.codes == ("R3", "B1", "Y3") and not reading.verdict.valid
    # a 2 read nearly as surely as the 1 is still read as the wild it makes valid
    likely_two = Choice((("B1", 0.45), ("B2", 0.4)))
    reading = read_meld([sure("R3"), likely_two, sure("Y3")], TILES)
    assert reading.codes == ("R3", "B2", "Y3") and reading.verdict.valid
    # and a natural piece is no wild: R5 R6 R? R8 reads R7 as before
    natural = Choice((("R1", 0.6), ("R7", 0.05)))
    assert read_meld([sure("R5"), sure("R6"), natural, sure("R8")], TILES).codes[2] == "R7"


@pytest.mark.parametrize(
    ("row", "odd", "changes"),
    [
        ("R5 R6 R7", 0, 0),
        ("R6 R5 R7", 0, 1),  # out of order: no stray, but a tile out of its place
        ("Y5 Y4 Y3 Y6 Y2 Y1", 0, 3),
        ("B2 B3 B4 B5 B7 B8 B9 B10", 0, 4),  # a gap
        ("Y4 JK Y6 Y7", 0, 0),
        ("K5 B5 R5 Y5 K5", 1, 1),  # five tiles of one number: one too many
        ("K5 B5 B5", 1, 1),
        ("R5 R6 K7 R8", 1, 1),
        ("K3 B2 R7 Y10 Y7 K4", 4, 4),
        ("K2 Y9 B13 R1 K7", 3, 4),
    ],
)
def test_strays_counts_the_tiles_no_one_meld_holds_wherever_they_lie(
    row: str, odd: int, changes: int
) -> None:
    # tile Rummy: a set's colours all differ, four at most, and a 2 is no wild
    assert strays(row.split(), Rules.preset("rummy-003")) == odd
    assert tile_changes(row.split()) == changes


@pytest.mark.parametrize(
    ("row", "burako", "rummy"),
    [
        ("K5 B5 B5", 0, 1),  # Burako's sets may repeat a colour (two of each tile)
        ("R7 R7 B7 B7 K9", 1, 3),
        ("K5 B5 R5 Y5 K5", 0, 1),  # ... and hold more than four
        ("R2 K9 B13", 1, 2),  # Burako's 2s are wild
    ],
)
def test_strays_counts_a_set_as_the_table_rules_allow_it(row: str, burako: int, rummy: int) -> None:
    assert strays(row.split(), Rules.preset("burako-003")) == burako
    assert strays(row.split(), Rules.preset("rummy-003")) == rummy


@pytest.mark.parametrize(
    ("row", "odd"),
    [
        ("5H 6H 7H", 0),
        ("7H 5H 6H 9H", 0),  # out of order, a gap
        ("7H 7H 7S", 0),  # two decks: a set may hold a suit twice
        ("5H 2C 7H JK", 0),  # wilds fit anywhere
        ("5H 6H 7S 8H", 1),  # one card of another suit
        ("KD 4S QH 9C 7D", 3),  # a hand in no order
        ("10C 9C 8C 7S 6S 5S", 3),  # two runs laid end to end
    ],
)
def test_strays_counts_the_cards_no_one_meld_holds(row: str, odd: int) -> None:
    assert strays(row.split(), Rules.preset("burraco-fibur")) == odd


def test_a_verdict_kept_for_the_repair_is_the_one_its_codes_rules_and_order_give() -> None:
    from scorer.rules import PRESETS
    from vision.repair import _verdict

    run = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "2C"]  # a wild at the end of seven
    fibur, classic = PRESETS["burraco-fibur"], PRESETS["burraco-000"]
    for _ in range(2):  # judged, then taken from what was kept: the same each time
        semi, plain = _verdict(run, fibur), _verdict(run, classic)
        assert semi is not None and (semi.bonus, semi.burraco) == (150, BurracoKind.SEMI_PURE)
        assert plain is not None and (plain.bonus, plain.burraco) == (100, BurracoKind.IMPURE)
        laid = _verdict(["7H", "9H", "8H"], fibur)  # out of order as laid out
        assert laid is not None and not laid.valid
        anyhow = _verdict(["7H", "9H", "8H"], fibur, ordered=False)
        assert anyhow is not None and anyhow.valid
        assert _verdict(["7H", "XX"], fibur) is None  # a code that is no piece
