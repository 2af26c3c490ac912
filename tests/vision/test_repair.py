"""Game knowledge repairs a doubtful reading, and says what stays uncertain."""

from __future__ import annotations

import pytest

from scorer import Rules
from vision.repair import Choice, read_chain, read_meld, tile_changes

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


def test_tiles_too() -> None:
    doubtful = Choice((("B8", 0.6), ("R8", 0.35)))
    reading = read_meld([sure("R6"), sure("R7"), doubtful], Rules.preset("burako-003"))
    assert reading.codes == ("R6", "R7", "R8")


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


def test_a_split_needs_every_part_valid() -> None:
    choices, centres = row("R1 K1 B1 R9 Y3 R11", [30, 31, 40, 30, 29])
    ((span, reading),) = read_chain(choices, centres, TILES)
    assert len(span) == 6 and not reading.verdict.valid


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
