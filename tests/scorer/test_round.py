"""Round scoring of RULES.md: melds, bonuses, closing, hands, pot, void hands, tile Rummy."""

from __future__ import annotations

from typing import Any

import pytest

from scorer import InvalidRoundError, LineReason, Round, RoundSheet, score_round


def side(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


def score(rules: Any, *sides: dict[str, Any]) -> RoundSheet:
    return score_round(Round.from_json({"rules": rules, "sides": list(sides)}))


def lines(sheet: RoundSheet, index: int) -> list[tuple[str, int]]:
    return [(line.reason.value, line.points) for line in sheet.sides[index].lines]


def problem_codes(sheet: RoundSheet) -> list[str]:
    return [p.code.value for p in sheet.problems]


PURE_RUN = ["7H", "8H", "9H", "10H", "JH", "QH", "KH"]  # 65 points, pure burraco
IMPURE_RUN = ["3S", "4S", "JK", "6S", "7S", "8S", "9S"]  # 70 points, impure burraco


def test_round_score_adds_melds_bonuses_closing_and_subtracts_hand_and_pot() -> None:
    sheet = score(
        "burraco-fibur",
        side("Ada", melds=[PURE_RUN, ["AS", "AD", "AC"]], hand=[], took_pot=True, closed=True),
        side("Bo", melds=[IMPURE_RUN], hand=["KD", "JK", "2C"], took_pot=False),
    )
    assert sheet.valid and not sheet.void
    assert lines(sheet, 0) == [("meld", 65), ("burraco-pure", 200), ("meld", 45), ("closing", 100)]
    assert lines(sheet, 1) == [
        ("meld", 70),
        ("burraco-impure", 100),
        ("hand", -60),
        ("pot-not-taken", -100),
    ]
    assert sheet.totals == {"Ada": 410, "Bo": 10}


def test_each_line_names_its_pieces() -> None:
    sheet = score(
        "burraco-fibur",
        side("Ada", melds=[["9H", "7H", "8H"]], hand=["5C"], took_pot=True),
        side("Bo", melds=[], hand=[], took_pot=True),
    )
    meld, hand = sheet.sides[0].lines
    assert [str(p) for p in meld.pieces] == ["7H", "8H", "9H"]  # in reading order
    assert [str(p) for p in hand.pieces] == ["5C"] and hand.points == -5


@pytest.mark.parametrize(
    ("preset", "ada", "reason"),
    [
        ("burraco-fibur", {"melds": [["AS", "AD", "AC"]], "took_pot": True}, "no burraco"),
        ("burraco-fibur", {"melds": [PURE_RUN], "took_pot": False}, "the pot was never taken"),
        (
            "burraco-fibur",
            {"melds": [PURE_RUN], "took_pot": True, "discard": "2S"},
            "the closing discard 2S is a wild",
        ),
        ("burraco-000", {"melds": [["AS", "AD", "AC"]], "took_pot": True}, "no burraco"),
        ("burraco-002", {"melds": [["AS", "AD", "AC"]], "took_pot": True}, "no burraco"),
    ],
)
def test_closing_requirements(preset: str, ada: dict[str, Any], reason: str) -> None:
    sheet = score(preset, side("Ada", closed=True, **ada), side("Bo", took_pot=True))
    assert problem_codes(sheet) == ["cannot-close"]
    assert sheet.problems[0].message == f"Ada cannot close: {reason}"
    assert "closing" not in [reason for reason, _ in lines(sheet, 0)]  # no silent bonus


def test_wild_discard_may_close_where_the_rules_allow() -> None:
    ada = side("Ada", melds=[PURE_RUN], took_pot=True, closed=True, discard="JK")
    assert score("burraco-002", ada, side("Bo", took_pot=True)).valid
    assert not score("burraco-fibur", ada, side("Bo", took_pot=True)).valid


def test_fibur_counts_a_taken_but_unplayed_pot_as_hand() -> None:
    bo = side("Bo", took_pot=True, pot_unplayed=["KD", "5S", "JK"])
    ada = side("Ada", took_pot=True)
    assert lines(score("burraco-fibur", ada, bo), 1) == [("pot-not-played", -45)]
    assert lines(score("burraco-002", ada, bo), 1) == []


def test_pot_penalty_is_an_option() -> None:
    rules = {"preset": "burraco-fibur", "pot_penalty": 150}
    assert lines(score(rules, side("Ada"), side("Bo", took_pot=True)), 0) == [
        ("pot-not-taken", -150)
    ]


def test_team_of_two_shares_melds_and_subtracts_both_hands() -> None:
    sheet = score(
        "burraco-fibur",
        side("North-South", melds=[PURE_RUN], hands=[[], ["5C", "6C"]], took_pot=True, closed=True),
        side("East-West", melds=[], hands=[["AD"], ["JK"]], took_pot=True),
    )
    assert sheet.valid
    assert lines(sheet, 0) == [("meld", 65), ("burraco-pure", 200), ("closing", 100), ("hand", -10)]
    assert lines(sheet, 1) == [("hand", -15), ("hand", -30)]


@pytest.mark.parametrize(
    ("preset", "sides", "hands", "ok"),
    [
        ("burraco-fibur", 2, 1, True),
        ("burraco-fibur", 3, 1, True),
        ("burraco-fibur", 2, 2, True),
        ("burraco-000", 2, 1, True),
        ("burraco-000", 2, 2, False),
        ("burraco-000", 3, 1, False),
        ("burraco-002", 3, 1, False),
        ("burako-003", 2, 2, True),
        ("rummy-003", 3, 1, True),
    ],
)
def test_players_per_preset(preset: str, sides: int, hands: int, ok: bool) -> None:
    sheet = score(preset, *(side(f"S{i}", hands=[[]] * hands, took_pot=True) for i in range(sides)))
    assert ("players" not in problem_codes(sheet)) is ok


def test_only_one_side_closes() -> None:
    both = [side(n, melds=[PURE_RUN], took_pot=True, closed=True) for n in ("A", "B")]
    assert "two-closers" in problem_codes(score("burraco-fibur", *both))


def test_closing_side_has_an_empty_hand() -> None:
    sheet = score(
        "burraco-fibur",
        side("A", melds=[PURE_RUN], hand=["5C"], took_pot=True, closed=True),
        side("B", took_pot=True),
    )
    assert problem_codes(sheet) == ["closed-with-hand"]


def test_invalid_meld_is_reported_with_side_and_number() -> None:
    sheet = score("burraco-fibur", side("A", melds=[PURE_RUN, ["5H", "9S", "KD"]]), side("B"))
    assert problem_codes(sheet) == ["invalid-meld"]
    assert sheet.problems[0].message.startswith("A: meld 2 (5H 9S KD) is not valid")


def test_more_copies_than_the_decks_hold_is_a_table_problem() -> None:
    sheet = score(
        "burraco-fibur",
        side("A", melds=[["7H", "7H", "7S"]], took_pot=True),
        side("B", hand=["7H"], took_pot=True),
    )
    assert [p.message for p in sheet.problems] == ["three 7H: the decks hold two"]


def test_burako_hand_is_void_when_the_stock_runs_out_without_a_canasta() -> None:
    sheet = score(
        "burako-003",
        side("A", melds=[["R5", "R6", "R7"]], hand=["K9"], took_pot=True),
        side("B", melds=[], hand=["JK"]),
    )
    assert sheet.void and sheet.totals == {"A": 0, "B": 0}
    assert sheet.to_json()["void"] is True


def test_burako_stock_out_with_a_canasta_scores_without_closing_bonus() -> None:
    canasta = ["R3", "R4", "R5", "R6", "R7", "R8", "R9"]
    sheet = score("burako-003", side("A", melds=[canasta], took_pot=True), side("B", hand=["JK"]))
    assert not sheet.void
    assert sheet.totals == {"A": 45 + 200, "B": -50 - 100}


def test_burako_closes_by_melding_the_last_tile() -> None:
    canasta = ["R3", "R4", "R5", "R6", "R7", "R8", "R9"]
    sheet = score("burako-003", side("A", melds=[canasta], took_pot=True, closed=True), side("B"))
    assert sheet.valid and lines(sheet, 0)[-1] == ("closing", 100)


def test_void_is_only_for_burako_rules() -> None:
    sheet = score("burraco-fibur", side("A", melds=[["5H", "6H", "7H"]]), side("B"))
    assert not sheet.void and sheet.totals == {"A": 15 - 100, "B": -100}


def test_rummy_racks_count_against_and_the_winner_scores_zero() -> None:
    sheet = score(
        "rummy-003",
        side("A", hand=[], closed=True),
        side("B", hand=["R5", "K13", "JK"]),
        side("C", hand=["B2"]),
    )
    assert sheet.valid
    assert sheet.totals == {"A": 0, "B": 68, "C": 2}


def test_rummy_official_scoring() -> None:
    rules = {"preset": "rummy-003", "rummy_scoring": "official", "value_joker": 30}
    sheet = score(rules, side("A", hand=[], closed=True), side("B", hand=["R5", "JK"]))
    assert sheet.totals == {"A": 35, "B": -35}


def test_rummy_first_meld_must_be_worth_thirty() -> None:
    low = side("A", hand=["R1"], first_meld=[["K1", "R1", "B1"], ["Y2", "Y3", "Y4"]])
    sheet = score("rummy-003", low, side("B", hand=[], closed=True))
    assert [p.message for p in sheet.problems] == [
        "A: the first meld is worth 12: it needs 30 or more"
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "a round must be a JSON object"),
        ({"sides": []}, "a round needs 'rules'"),
        ({"rules": "burraco-fibur", "sides": []}, "'sides' must be a non-empty list"),
        ({"rules": "burraco-fibur", "sides": [1]}, r"sides\[0\]: a side must be an object"),
        (
            {"rules": "burraco-fibur", "sides": [{"melds": []}]},
            r"sides\[0\].name: a side needs a name",
        ),
        (
            {"rules": "burraco-fibur", "sides": [{"name": "A", "hand": ["7X"]}]},
            r"sides\[0\].hand\[0\]: '7X' is not a piece",
        ),
        (
            {"rules": "burraco-fibur", "sides": [{"name": "A", "melds": [["7H", "R5"]]}]},
            r"sides\[0\].melds\[0\]\[1\]: 'R5' is not a card",
        ),
        (
            {"rules": "burraco-fibur", "sides": [{"name": "A", "took_pot": "yes"}]},
            r"sides\[0\].took_pot: must be true or false",
        ),
        (
            {"rules": "burraco-fibur", "sides": [{"name": "A", "colour": "red"}]},
            r"sides\[0\]: unknown field\(s\): colour",
        ),
        (
            {"rules": "burraco-fibur", "sides": [{"name": "A", "hand": [], "hands": []}]},
            "give 'hand' or 'hands', not both",
        ),
        (
            {"rules": "burraco-fibur", "sides": [{"name": "A"}, {"name": "A"}]},
            "side names must differ",
        ),
        ({"rules": "burraco-fibur", "sides": [{"name": "A", "hand": [7]}]}, "a piece code like"),
        ({"rules": "burraco-fibur", "sides": [{"name": "A"}], "extra": 1}, "unknown round field"),
    ],
)
def test_unreadable_round_names_the_problem(data: Any, message: str) -> None:
    with pytest.raises(InvalidRoundError, match=message):
        Round.from_json(data)


def test_sheet_json_has_the_contract_shape() -> None:
    data = score("burraco-fibur", side("A", melds=[PURE_RUN], took_pot=True), side("B")).to_json()
    assert set(data) >= {"sides", "problems"}
    first = data["sides"][0]
    assert set(first) >= {"name", "total", "lines"} and first["total"] == 265
    assert set(first["lines"][0]) >= {"reason", "points", "pieces"}
    assert first["lines"][0]["pieces"] == PURE_RUN
    assert {line["reason"] for line in first["lines"]} <= {r.value for r in LineReason}
