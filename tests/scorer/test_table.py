"""Deck-count checks: more copies than the preset's decks hold is a table problem."""

from __future__ import annotations

import pytest

from scorer import ProblemCode, Rules, count_problems


@pytest.mark.parametrize(
    ("preset", "pieces", "messages"),
    [
        ("burraco-fibur", "7H 7H 7H", ["three 7H: the decks hold two"]),
        ("burraco-fibur", "7H 7H JK JK JK JK", []),
        ("burraco-fibur", "JK JK JK JK JK", ["five jokers: the decks hold four"]),
        ("burraco-000", "JK JK JK", ["three jokers: the decks hold two"]),
        (
            "burako-003",
            "R5 R5 R5 JK JK JK",
            ["three jokers: the decks hold two", "three R5: the decks hold two"],
        ),
        ("rummy-003", "R5 R5 K5 K5", []),
    ],
)
def test_more_copies_than_the_decks_hold(preset: str, pieces: str, messages: list[str]) -> None:
    problems = count_problems(pieces, Rules.preset(preset))
    assert [p.message for p in problems] == messages
    assert all(p.code is ProblemCode.TOO_MANY_COPIES for p in problems)


def test_decks_and_jokers_are_options() -> None:
    rules = Rules.preset("burraco-fibur").replace(decks=3, jokers=6)
    assert count_problems("7H 7H 7H JK JK JK JK JK", rules) == ()
