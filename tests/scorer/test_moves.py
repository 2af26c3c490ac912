"""Adding to a table meld (wild relocation per RULES.md) and tile Rummy moves."""

from __future__ import annotations

import pytest

from scorer import Rules, add_to_meld, format_pieces, swap_joker

FIBUR = Rules.preset("burraco-fibur")
R000 = Rules.preset("burraco-000")
R002 = Rules.preset("burraco-002")
BURAKO = Rules.preset("burako-003")
RUMMY = Rules.preset("rummy-003")


@pytest.mark.parametrize(
    ("rules", "meld", "piece", "becomes", "wild_now"),
    [
        # 002: a natural replaces the wild, which moves down to the start.
        (R002, "3H 4H JK 6H 7H", "5H", "JK 3H 4H 5H 6H 7H", "2H"),
        # 000: a wild at an end slides to the other end to admit a card.
        (R000, "7S 8S 9S 2S", "5S", "5S 2S 7S 8S 9S", "6S"),
        # 002: 2-7-8-9 + J -> 7-8-9-2-J, the 2 now stands for 10.
        (R002, "2C 7C 8C 9C", "JC", "7C 8C 9C 2C JC", "10C"),
        # 003: the replaced 2 lands in its natural place and the meld turns pure.
        (BURAKO, "R3 R4 K2 R6", "R5", "K2 R3 R4 R5 R6", "R2"),
    ],
)
def test_wild_relocates_when_a_piece_is_added(
    rules: Rules, meld: str, piece: str, becomes: str, wild_now: str
) -> None:
    result = add_to_meld(meld, piece, rules)
    assert result.allowed
    assert result.meld_text == becomes
    verdict = result.verdicts[0]
    assert [r.stands_for for r in verdict.reading if r.wild] == [wild_now]


def test_a_wild_two_back_in_its_place_is_natural() -> None:
    result = add_to_meld("3H 4H 2H 6H", "5H", FIBUR)
    assert result.meld_text == "2H 3H 4H 5H 6H"
    assert result.verdicts[0].wilds == ()
    assert "natural 2" in result.reason


@pytest.mark.parametrize(
    ("meld", "piece", "becomes"),
    [
        ("7H 8H 9H", "10H", "7H 8H 9H 10H"),
        ("7H 8H 9H", "6H", "6H 7H 8H 9H"),
        ("7H 8H 9H", "JK", "JK 7H 8H 9H"),
        ("QH KH AH", "JH", "JH QH KH AH"),
        ("3H 4H 5H", "2H", "2H 3H 4H 5H"),
        ("7H 7S 7D", "7C", "7H 7S 7D 7C"),
        ("7H 7S 7D", "2C", "7H 7S 7D 2C"),
    ],
)
def test_piece_extends_a_meld(meld: str, piece: str, becomes: str) -> None:
    result = add_to_meld(meld, piece, FIBUR)
    assert result.allowed and result.meld_text == becomes


@pytest.mark.parametrize(
    ("meld", "piece", "reason"),
    [
        ("7S 8S 9S", "JH", "a run is of one suit (S): JH"),
        ("7H 8H 2S", "JK", "two wild cards: 2S and JK"),
        ("7H 7S JK", "2C", "two wild cards"),
        ("7H 8H 9H", "JH", "not consecutive"),
        ("3H 4H 5H", "AH", "1 missing between A and 3"),
        ("7H 7S 7D", "8D", "one rank"),
    ],
)
def test_piece_that_does_not_fit_is_refused_with_the_reason(
    meld: str, piece: str, reason: str
) -> None:
    result = add_to_meld(meld, piece, FIBUR)
    assert not result.allowed
    assert reason in result.reason
    assert format_pieces(result.meld) == meld  # nothing changes


def test_adding_to_an_invalid_meld_is_refused() -> None:
    result = add_to_meld("7H 9S KD", "8H", FIBUR)
    assert not result.allowed and result.reason.startswith("the meld is not valid")


def test_unordered_meld_is_read_before_adding() -> None:
    assert add_to_meld("9H 7H 8H", "10H", FIBUR, ordered=False).meld_text == "7H 8H 9H 10H"


def test_adding_a_natural_never_makes_a_pure_meld_impure() -> None:
    result = add_to_meld("3H 4H 5H 6H 7H 8H", "9H", FIBUR)
    assert result.verdicts[0].burraco is not None
    assert result.verdicts[0].burraco.value == "pure"


def test_rummy_tile_splits_a_run() -> None:
    result = add_to_meld("Y3 Y4 Y5 Y6 Y7", "Y5", RUMMY)
    assert result.allowed
    assert [format_pieces(m) for m in result.melds] == ["Y3 Y4 Y5", "Y5 Y6 Y7"]
    assert all(v.valid for v in result.verdicts)


def test_only_tile_rummy_splits() -> None:
    assert not add_to_meld("Y3 Y4 Y5 Y6 Y7", "Y5", BURAKO).allowed
    assert not add_to_meld("Y3 Y4 Y5 Y6", "Y4", RUMMY).allowed  # 3-4 would be too short


def test_rummy_joker_swap() -> None:
    result = swap_joker("R7 JK R9 R10", "R8", RUMMY)
    assert result.allowed and format_pieces(result.meld) == "R7 R8 R9 R10"
    assert str(result.freed) == "JK" and "play the joker now" in result.reason
    assert swap_joker("R7 B7 Y7 JK", "K7", RUMMY).allowed


@pytest.mark.parametrize(
    ("rules", "meld", "piece", "reason"),
    [
        (RUMMY, "R7 B7 JK", "K7", "no joker swap from a set of three"),
        (RUMMY, "R7 JK R9", "R10", "no joker in this meld stands for R10"),
        (BURAKO, "R7 JK R9", "R8", "a wild never leaves the table"),
        (FIBUR, "7H JK 9H", "8H", "a wild never leaves the table"),
    ],
)
def test_joker_swap_refusals(rules: Rules, meld: str, piece: str, reason: str) -> None:
    result = swap_joker(meld, piece, rules)
    assert not result.allowed and reason in result.reason and result.freed is None
