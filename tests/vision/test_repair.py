"""Game knowledge repairs a doubtful reading, and says what stays uncertain."""

from __future__ import annotations

from scorer import Rules
from vision.repair import Choice, read_meld

RULES = Rules.preset("burraco-fibur")


def sure(code: str) -> Choice:
    return Choice(((code, 0.99), ("JK", 0.005)))


def test_a_run_reads_the_doubtful_piece_that_makes_it_valid() -> None:
    doubtful = Choice((("7D", 0.55), ("7H", 0.40), ("1H", 0.02)))
    reading = read_meld([sure("5H"), sure("6H"), doubtful, sure("8H")], RULES)
    assert reading.codes == ("5H", "6H", "7H", "8H")
    assert reading.verdict.valid
    assert reading.repaired == (2,)


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
