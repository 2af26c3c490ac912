"""Checks of a whole table: no more copies of a piece than the decks hold.

>>> from scorer.rules import Rules
>>> [p.message for p in count_problems("7H 7H 7H JK", Rules.preset("burraco-000"))]
['three 7H: the decks hold two']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from scorer.melds import Problem, ProblemCode, as_pieces, count_word
from scorer.pieces import Joker, Piece
from scorer.rules import Rules


def count_problems(pieces: str | Iterable[Piece | str], rules: Rules) -> tuple[Problem, ...]:
    """One problem for each piece seen more often than the preset's decks hold.

    >>> [p.message for p in count_problems(["JK"] * 5, Rules.preset("burraco-fibur"))]
    ['five jokers: the decks hold four']
    """
    counts = Counter(as_pieces(pieces, rules))
    problems: list[Problem] = []
    for piece, seen in sorted(counts.items(), key=lambda item: str(item[0])):
        if isinstance(piece, Joker):
            if seen > rules.jokers:
                problems.append(
                    Problem(
                        ProblemCode.TOO_MANY_COPIES,
                        f"{count_word(seen)} jokers: the decks hold {count_word(rules.jokers)}",
                    )
                )
        elif seen > rules.decks:
            problems.append(
                Problem(
                    ProblemCode.TOO_MANY_COPIES,
                    f"{count_word(seen)} {piece}: the decks hold {count_word(rules.decks)}",
                )
            )
    return tuple(problems)
