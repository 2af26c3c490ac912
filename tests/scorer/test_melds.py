"""Meld rules of RULES.md, one test per rule, table-driven."""

from __future__ import annotations

import pytest

from scorer import BurracoKind, MeldKind, ProblemCode, Rules, validate_meld

FIBUR = Rules.preset("burraco-fibur")
R000 = Rules.preset("burraco-000")
R002 = Rules.preset("burraco-002")
BURAKO = Rules.preset("burako-003")
RUMMY = Rules.preset("rummy-003")
ALL = [FIBUR, R000, R002, BURAKO, RUMMY]


def codes(verdict_problems: tuple) -> list[str]:  # type: ignore[type-arg]
    return [p.code.value for p in verdict_problems]


@pytest.mark.parametrize(
    ("meld", "rules", "valid"),
    [
        ("7H 7S 7D", FIBUR, True),
        ("7H 7H 7S", FIBUR, True),  # suits may repeat: two decks
        ("7H 7H 7S 7S 7D 7D 7C 7C", FIBUR, True),  # eight naturals
        ("7H 7H 7S 7S 7D 7D 7C 7C JK", FIBUR, True),  # eight naturals + one wild
        ("K7 R7 B7", BURAKO, True),
        ("K7 K7 R7", BURAKO, True),
        ("7H 7S", FIBUR, False),
        ("7H 7S 8D", FIBUR, False),
    ],
)
def test_set_is_three_or_more_of_one_rank(meld: str, rules: Rules, valid: bool) -> None:
    verdict = validate_meld(meld, rules)
    assert verdict.valid is valid
    if valid:
        assert verdict.kind is MeldKind.SET


def test_set_holds_at_most_eight_naturals() -> None:
    # More than eight naturals of one rank also breaks the deck count; the meld says so.
    verdict = validate_meld("7H 7H 7S 7S 7D 7D 7C 7C 7C", FIBUR.replace(decks=3))
    assert ProblemCode.SET_TOO_BIG in [p.code for p in verdict.problems]


@pytest.mark.parametrize("rules", [FIBUR, R000, R002, BURAKO])
@pytest.mark.parametrize("meld", ["2H 2S 2D", "2H 2H 2S 2C", "2S 2S 2D JK"])
def test_set_made_only_of_twos_is_not_a_meld(meld: str, rules: Rules) -> None:
    if rules is BURAKO:
        meld = meld.replace("2H", "R2").replace("2S", "K2").replace("2D", "B2").replace("2C", "Y2")
    verdict = validate_meld(meld, rules)
    assert not verdict.valid
    assert {"only-twos", "only-wilds"} & set(codes(verdict.problems))


@pytest.mark.parametrize(
    ("meld", "valid", "problem"),
    [
        ("R5 B5 K5", True, None),
        ("R5 B5 K5 Y5", True, None),
        ("R5 B5 JK", True, None),
        ("R5 R5 K5", False, "repeated-colour"),
        ("R5 B5 K5 Y5 JK", False, "set-too-big"),
        ("R2 B2 K2", True, None),  # in tile Rummy a 2 is an ordinary tile
    ],
)
def test_rummy_set_is_three_or_four_distinct_colours(
    meld: str, valid: bool, problem: str | None
) -> None:
    verdict = validate_meld(meld, RUMMY)
    assert verdict.valid is valid
    if problem:
        assert problem in codes(verdict.problems)


@pytest.mark.parametrize(
    ("meld", "rules", "valid"),
    [
        ("5H 6H 7H", FIBUR, True),
        ("7H 5H 6H", FIBUR, True),  # unordered: the reading sorts it
        ("5H 6S 7H", FIBUR, False),
        ("5H 6H 8H", FIBUR, False),
        ("5H 6H 6H 7H", FIBUR, False),
        ("R5 R6 R7", BURAKO, True),
        ("R5 B6 R7", BURAKO, False),
        ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13", RUMMY, True),
    ],
)
def test_run_is_three_or_more_consecutive_of_one_suit(meld: str, rules: Rules, valid: bool) -> None:
    verdict = validate_meld(meld, rules)
    assert verdict.valid is valid
    if valid:
        assert verdict.kind is MeldKind.RUN


@pytest.mark.parametrize(
    ("meld", "valid"),
    [
        ("AH 2H 3H", True),  # ace low
        ("QH KH AH", True),  # ace high
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", True),
        ("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", True),
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", False),  # never both
        ("KH AH 3H", False),  # never wrapping
    ],
)
def test_ace_is_low_or_high_never_both_never_wrapping(
    card_rules: Rules, meld: str, valid: bool
) -> None:
    assert validate_meld(meld, card_rules).valid is valid


@pytest.mark.parametrize(
    ("meld", "ordered", "rules", "valid"),
    [
        ("KH AH 2H", True, FIBUR, False),  # K-A-2 as laid out: a wrap
        ("R12 R13 R1", True, BURAKO, True),  # Burako: 1 may follow 13
        ("R12 R13 R1", False, BURAKO, True),
        ("R13 R1 R3", False, BURAKO, False),  # but a run never turns the corner
        ("R12 R13 R1", False, RUMMY, False),  # tile Rummy: 1..13, no wrap
        ("R1 R2 R3", False, RUMMY, True),
    ],
)
def test_one_after_thirteen_only_where_the_preset_allows(
    meld: str, ordered: bool, rules: Rules, valid: bool
) -> None:
    assert validate_meld(meld, rules, ordered=ordered).valid is valid


def test_wrap_option_lets_a_run_turn_the_corner() -> None:
    wrapping = FIBUR.replace(wrap=True)
    assert not validate_meld("KH AH 2H 3H", FIBUR, ordered=True).valid
    verdict = validate_meld("KH AH 2H 3H", wrapping, ordered=True)
    assert verdict.valid and [r.wild for r in verdict.reading] == [False, False, False, False]
    assert validate_meld("3H KH AH 2H", wrapping).valid


@pytest.mark.parametrize("meld", ["7H 8H JK", "7H 7S JK", "7H JK 9H", "7H 8H 2S", "7H 7S 2C"])
def test_meld_may_be_two_naturals_and_one_wild(card_rules: Rules, meld: str) -> None:
    assert validate_meld(meld, card_rules).valid


@pytest.mark.parametrize(
    ("meld", "message"),
    [
        ("JK 7H 8H 2S", "two wild cards: JK and 2S; a meld holds at most one"),
        ("7H 7S JK JK", "two wild cards: JK and JK; a meld holds at most one"),
        ("7H 7S 7D 2C 2D JK", "three wild cards: 2C, 2D and JK; a meld holds at most one"),
    ],
)
def test_at_most_one_wild_per_meld(card_rules: Rules, meld: str, message: str) -> None:
    verdict = validate_meld(meld, card_rules)
    assert not verdict.valid
    assert verdict.problems[0].code is ProblemCode.TOO_MANY_WILDS
    assert verdict.problems[0].message == message


def test_at_most_one_wild_tile_in_burako() -> None:
    verdict = validate_meld("R5 R6 JK K2", BURAKO)
    assert verdict.problems[0].message == "two wild tiles: JK and K2; a meld holds at most one"


@pytest.mark.parametrize(
    ("meld", "ordered", "valid", "wilds"),
    [
        ("2H 3H 4H 2H", True, True, ["2H"]),  # 000: the last 2 stands for 5
        ("2H 3H 4H 2H", False, True, ["2H"]),
        ("AH 2H 3H", True, True, []),  # a 2 in its place is natural
        ("2H 3H 4H", False, True, []),
        ("2S 3H 4H", False, True, ["2S"]),  # a 2 of another suit is a wild
        ("2H 4H 5H 6H 2H", True, False, None),  # 000: two wilds as laid out
        ("JK 4H 5H 6H 2H", True, False, None),  # 000: two wilds as laid out
        ("2S 4H 5H 6H 2C", False, False, None),  # two wilds in any order
        ("JK 4H 5H 6H 2S", False, False, None),
        ("2H 2S 2D", False, False, None),
    ],
)
def test_two_is_wild_unless_in_its_natural_place(
    card_rules: Rules, meld: str, ordered: bool, valid: bool, wilds: list[str] | None
) -> None:
    verdict = validate_meld(meld, card_rules, ordered=ordered)
    assert verdict.valid is valid
    if wilds is not None:
        assert [str(p) for p in verdict.wilds] == wilds


def test_unordered_reading_prefers_a_natural_two() -> None:
    # {2H, JK, 4H, 5H, 6H}: the 2 stands in its place and the joker for 3H.
    verdict = validate_meld("JK 4H 5H 6H 2H", R000)
    assert verdict.valid
    assert [str(r) for r in verdict.reading] == ["2H", "JK=3H", "4H", "5H", "6H"]


def test_wild_reading_names_what_it_stands_for() -> None:
    run = validate_meld("9C 10C 2D QC", FIBUR, ordered=True)
    assert [r.to_json() for r in run.reading][2] == {"piece": "2D", "as": "JC", "wild": True}
    tiles = validate_meld("R7 B7 JK", BURAKO)
    assert tiles.reading[2].stands_for == "7"


@pytest.mark.parametrize(
    ("meld", "problem"),
    [
        ("9H 5H 6H 7H", "out of order: 9H where 4H goes"),
        ("5H 7H 6H", "out of order: 7H where 6H goes, 6H where 7H goes"),
    ],
)
def test_ordered_meld_is_read_as_laid_out(meld: str, problem: str) -> None:
    verdict = validate_meld(meld, FIBUR, ordered=True)
    assert [p.message for p in verdict.problems] == [problem]


def test_ordered_run_may_run_downwards() -> None:
    verdict = validate_meld("9H 8H JK 6H", FIBUR, ordered=True)
    assert verdict.valid
    assert [str(r) for r in verdict.reading] == ["9H", "8H", "JK=7H", "6H"]


@pytest.mark.parametrize(
    ("rules", "meld", "ordered", "kind", "bonus"),
    [
        (FIBUR, "3H 4H 5H 6H 7H 8H 9H", False, "pure", 200),
        (FIBUR, "9S 9S 9H 9D 9C 9C 9H", False, "pure", 200),
        (FIBUR, "3H 4H 5H 6H 7H 8H 9H JK", True, "semi-pure", 150),  # 7 naturals + wild at end
        (FIBUR, "JK 3H 4H 5H 6H 7H 8H 9H", True, "semi-pure", 150),
        (FIBUR, "JK 4H 5H 6H 7H 8H 9H", True, "impure", 100),  # only 6 naturals
        (FIBUR, "3H 4H JK 6H 7H 8H 9H 10H", True, "impure", 100),  # wild interrupts
        (FIBUR, "3H 4H 5H 6H 7H 8H 9H 2S", False, "semi-pure", 150),
        (R002, "JK 4H 5H 6H 7H 8H 9H", True, "semi-pure", 150),  # 002: the 7 follow on
        (R002, "4H 5H JK 7H 8H 9H 10H", True, "impure", 100),
        (R000, "3H 4H 5H 6H 7H 8H 9H JK", True, "impure", 100),  # 000: no semi-pure
        (R000, "3H 4H 5H 6H 7H 8H 9H", True, "pure", 200),
        (BURAKO, "R3 R4 R5 R6 R7 R8 R9", True, "pure", 200),
        (BURAKO, "R3 R4 R5 R6 R7 R8 R9 JK", True, "impure", 100),
        (BURAKO, "R2 R3 R4 R5 R6 R7 R8", True, "pure", 200),  # 003: a 2 in its place
        (BURAKO, "R1 R2 R3 R4 R5 R6 R7", False, "pure", 200),
        (FIBUR, "AH 2H 3H 4H 5H 6H 7H", False, "pure", 200),
        (FIBUR, "3H 4H 5H 6H 7H 8H", False, None, 0),  # six pieces: no burraco
    ],
)
def test_burraco_kind_and_bonus(
    rules: Rules, meld: str, ordered: bool, kind: str | None, bonus: int
) -> None:
    verdict = validate_meld(meld, rules, ordered=ordered)
    assert verdict.valid
    assert (verdict.burraco.value if verdict.burraco else None) == kind
    assert verdict.bonus == bonus


def test_burraco_bonuses_are_table_options() -> None:
    rules = FIBUR.replace(bonus_pure=300, bonus_impure=50, burraco_size=8)
    assert validate_meld("3H 4H 5H 6H 7H 8H 9H", rules).burraco is None
    assert validate_meld("3H 4H 5H 6H 7H 8H 9H 10H", rules).bonus == 300
    assert validate_meld("3H 4H JK 6H 7H 8H 9H 10H", rules).bonus == 50


def test_rummy_has_no_burraco() -> None:
    assert validate_meld("R1 R2 R3 R4 R5 R6 R7 R8", RUMMY).burraco is None


@pytest.mark.parametrize(
    ("rules", "meld", "points"),
    [
        (FIBUR, "3H 4H 5H 6H 7H", 25),
        (FIBUR, "8H 9H 10H JH QH KH", 60),
        (FIBUR, "QH KH AH", 35),
        (FIBUR, "AH 2H 3H", 40),
        (FIBUR, "7H 8H JK", 45),
        (FIBUR, "7H 8H 2S", 35),
        (BURAKO, "R7 R8 JK", 65),  # Burako joker is 50
        (BURAKO, "K1 R1 B1", 45),
        (RUMMY, "R7 R8 R9", 24),  # face value
        (RUMMY, "R7 JK R9", 24),  # a joker is worth the tile it stands for
        (RUMMY, "R11 R12 R13", 36),
    ],
)
def test_meld_points_follow_the_piece_values(rules: Rules, meld: str, points: int) -> None:
    assert validate_meld(meld, rules).points == points


def test_piece_values_are_table_options() -> None:
    rules = FIBUR.replace(value_joker=25, value_ace=20)
    assert validate_meld("QH KH AH JK", rules).points == 65


def test_wrong_kind_of_piece_is_a_problem_not_an_exception() -> None:
    from scorer import Tile

    verdict = validate_meld(["7H", "8H", Tile.parse("R9")], FIBUR)
    assert codes(verdict.problems)[0] == "wrong-kind"


@pytest.mark.parametrize("rules", ALL)
def test_too_few_pieces(rules: Rules) -> None:
    meld = "R5 R6" if rules.pieces.value == "tiles" else "5H 6H"
    verdict = validate_meld(meld, rules)
    assert codes(verdict.problems) == ["too-few"]


def test_min_meld_is_an_option() -> None:
    assert validate_meld("5H 6H", FIBUR.replace(min_meld=2)).valid


def test_neither_set_nor_run_says_so_once() -> None:
    verdict = validate_meld("5H 9S KD", FIBUR)
    assert codes(verdict.problems) == ["not-a-meld"]
    assert verdict.kind is None and verdict.burraco is None and verdict.bonus == 0


def test_gap_names_what_is_missing() -> None:
    verdict = validate_meld("5H 6H 9H", FIBUR)
    assert verdict.problems[0].message == (
        "not consecutive: 2 missing between 6 and 9 (no wild to fill)"
    )


def test_verdict_json_has_the_contract_fields() -> None:
    data = validate_meld("JK 7H 8H", FIBUR).to_json()
    assert set(data) >= {"valid", "kind", "burraco", "points", "bonus", "problems", "reading"}
    assert data["valid"] is True and data["kind"] == "run" and data["burraco"] is None
    assert data["points"] == 45 and data["bonus"] == 0 and data["problems"] == []


@pytest.mark.parametrize(
    ("meld", "kind"),
    [
        ("7H 8H 9H 10H JH QH KH", BurracoKind.PURE),
        ("7H 7S 7D 7C 7H 7S 7D JK", BurracoKind.SEMI_PURE),
    ],
)
def test_semi_pure_set_needs_a_full_burraco_of_naturals(meld: str, kind: BurracoKind) -> None:
    assert validate_meld(meld, FIBUR).burraco is kind
    assert validate_meld("7H 7S 7D 7C 7H 7S JK", FIBUR).burraco is BurracoKind.IMPURE
