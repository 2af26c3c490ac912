"""A game: running totals over rounds, the end, the winner or a draw.

A :class:`Game` is a frozen value; adding, correcting or deleting a round
returns a new game whose totals are recomputed from the rounds.

>>> from scorer.round import Round, score_round
>>> def round_for(a, b):  # a quick round: each side melds one set of a given size
...     return score_round(Round.from_json({"rules": "burraco-fibur", "sides": [
...         {"name": "Ada", "melds": [["KH"] * 2 + ["KS"] * 2 + ["KD"] * a], "took_pot": True},
...         {"name": "Bo", "melds": [["QH"] * 2 + ["QS"] * 2 + ["QD"] * b], "took_pot": True},
...     ]}))
>>> game = Game.new(Rules.preset("burraco-fibur").replace(target=500), ["Ada", "Bo"])
>>> game = game.add_round(round_for(3, 2))
>>> game.totals, game.finished
({'Ada': 270, 'Bo': 60}, False)
>>> game = game.add_round(round_for(3, 3))
>>> game.totals, game.finished, game.winner
({'Ada': 540, 'Bo': 330}, True, 'Ada')
>>> game.replace_round(1, round_for(2, 3)).totals
{'Ada': 330, 'Bo': 540}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from scorer.errors import InvalidGameError
from scorer.round import RoundSheet
from scorer.rules import Rules

# FIBUR tournament scale: the round's point difference -> victory points (winner, loser).
VICTORY_POINTS: tuple[tuple[int, int, int], ...] = (
    (50, 10, 10),
    (150, 11, 9),
    (250, 12, 8),
    (350, 13, 7),
    (500, 14, 6),
    (650, 15, 5),
    (800, 16, 4),
    (1000, 17, 3),
    (1250, 18, 2),
    (1500, 19, 1),
)


def victory_points(difference: int) -> tuple[int, int]:
    """Victory points (winner, loser) for a round's point difference (FIBUR scale).

    >>> victory_points(0), victory_points(55), victory_points(1500), victory_points(1505)
    ((10, 10), (11, 9), (19, 1), (20, 0))
    """
    difference = abs(difference)
    for upper, winner, loser in VICTORY_POINTS:
        if difference <= upper:
            return winner, loser
    return 20, 0


@dataclass(frozen=True, slots=True)
class Game:
    rules: Rules
    sides: tuple[str, ...]
    rounds: tuple[RoundSheet, ...] = ()

    @staticmethod
    def new(rules: Rules, sides: Iterable[str]) -> Game:
        names = tuple(name.strip() for name in sides)
        if not 2 <= len(names) <= 4:
            raise InvalidGameError(f"a game has 2 to 4 sides, not {len(names)}")
        if any(not name for name in names) or len(set(names)) != len(names):
            raise InvalidGameError("every side needs a name of its own")
        return Game(rules, names)

    # ------------------------------------------------------------------ changes
    def verify_round(self, sheet: RoundSheet) -> None:
        """Raise unless the round is scored for exactly this game's sides."""
        names = tuple(side.name for side in sheet.sides)
        if sorted(names) != sorted(self.sides):
            raise InvalidGameError(
                f"the round is for {', '.join(names)}; this game's sides are "
                f"{', '.join(self.sides)}"
            )
        if self.finished:
            raise InvalidGameError("the game is over: correct or delete a round instead")

    def add_round(self, sheet: RoundSheet) -> Game:
        self.verify_round(sheet)
        return Game(self.rules, self.sides, (*self.rounds, sheet))

    def _index(self, number: int) -> int:
        if not 1 <= number <= len(self.rounds):
            raise InvalidGameError(f"no round {number}: the game has {len(self.rounds)}")
        return number - 1

    def replace_round(self, number: int, sheet: RoundSheet) -> Game:
        """Correct round ``number`` (1-based) after the fact."""
        i = self._index(number)
        names = sorted(side.name for side in sheet.sides)
        if names != sorted(self.sides):
            raise InvalidGameError("the corrected round must be for this game's sides")
        return Game(self.rules, self.sides, (*self.rounds[:i], sheet, *self.rounds[i + 1 :]))

    def delete_round(self, number: int) -> Game:
        i = self._index(number)
        return Game(self.rules, self.sides, (*self.rounds[:i], *self.rounds[i + 1 :]))

    # ------------------------------------------------------------------ results
    def totals_after(self, count: int) -> dict[str, int]:
        totals = dict.fromkeys(self.sides, 0)
        for sheet in self.rounds[:count]:
            if sheet.void:
                continue
            for side in sheet.sides:
                totals[side.name] += side.total
        return totals

    @property
    def totals(self) -> dict[str, int]:
        return self.totals_after(len(self.rounds))

    def finished_after(self, count: int) -> bool:
        rules = self.rules
        if rules.rounds is not None and count >= rules.rounds:
            return True
        if rules.target is None or count == 0:
            return False
        return any(total >= rules.target for total in self.totals_after(count).values())

    @property
    def finished(self) -> bool:
        return self.finished_after(len(self.rounds))

    @property
    def winner(self) -> str | None:
        """The side with the best total once the game is over; None before, or on a draw."""
        if not self.finished:
            return None
        totals = self.totals
        best = (min if self.rules.lowest_wins else max)(totals.values())
        leaders = [name for name, total in totals.items() if total == best]
        return leaders[0] if len(leaders) == 1 else None

    @property
    def draw(self) -> bool:
        return self.finished and self.winner is None

    @property
    def victory_points(self) -> dict[str, int] | None:
        """FIBUR victory points summed over the rounds (two sides, when the rules say so)."""
        if not self.rules.victory_points or len(self.sides) != 2:
            return None
        vp = dict.fromkeys(self.sides, 0)
        a, b = self.sides
        for sheet in self.rounds:
            scores = {side.name: side.total for side in sheet.sides}
            high, low = victory_points(scores[a] - scores[b])
            vp[a] += high if scores[a] >= scores[b] else low
            vp[b] += low if scores[a] >= scores[b] else high
        return vp

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_json(),
            "sides": list(self.sides),
            "rounds": [sheet.to_json() for sheet in self.rounds],
            "totals": self.totals,
            "finished": self.finished,
            "winner": self.winner,
            "draw": self.draw,
            "victory_points": self.victory_points,
        }
