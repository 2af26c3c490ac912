"""Games: running totals, target, winner or draw, corrections, victory points."""

from __future__ import annotations

import pytest

from scorer import Game, InvalidGameError, Round, RoundSheet, Rules, score_round, victory_points


def round_with(rules: Rules, **melded: int) -> RoundSheet:
    """A round where each side melds a set of that many kings (10 points each)."""
    sides = [
        {
            "name": name,
            "melds": [
                ["KH", "KS", "KD", "KC"][: min(n, 4)] + ["KH", "KS", "KD", "KC"][: max(n - 4, 0)]
            ]
            if n
            else [],
            "took_pot": True,
        }
        for name, n in melded.items()
    ]
    return score_round(Round.from_json({"rules": rules.to_json(), "sides": sides}))


FIBUR_1000 = Rules.preset("burraco-fibur").replace(target=1000)


def test_running_totals_and_target() -> None:
    game = Game.new(FIBUR_1000, ["A", "B"])
    game = game.add_round(round_with(FIBUR_1000, A=8, B=3))  # 80+200, 30
    assert game.totals == {"A": 280, "B": 30} and not game.finished and game.winner is None
    for _ in range(3):
        game = game.add_round(round_with(FIBUR_1000, A=8, B=3))
    assert game.totals == {"A": 1120, "B": 120}
    assert game.finished and game.winner == "A" and not game.draw


def test_both_past_the_target_the_higher_total_wins_and_equal_is_a_draw() -> None:
    rules = Rules.preset("burraco-002").replace(target=250)
    game = Game.new(rules, ["A", "B"]).add_round(round_with(rules, A=8, B=8))
    assert game.finished and game.winner is None and game.draw
    game = Game.new(rules, ["A", "B"]).add_round(round_with(rules, A=8, B=7))
    assert game.winner == "A"


def test_no_round_after_the_end() -> None:
    rules = FIBUR_1000.replace(target=100)
    game = Game.new(rules, ["A", "B"]).add_round(round_with(rules, A=8, B=3))
    with pytest.raises(InvalidGameError, match="the game is over"):
        game.add_round(round_with(rules, A=3, B=3))


def test_rounds_can_be_corrected_and_deleted_after_the_fact() -> None:
    game = Game.new(FIBUR_1000, ["A", "B"])
    game = game.add_round(round_with(FIBUR_1000, A=3, B=3)).add_round(
        round_with(FIBUR_1000, A=4, B=3)
    )
    assert game.totals == {"A": 70, "B": 60}
    fixed = game.replace_round(1, round_with(FIBUR_1000, A=8, B=3))
    assert fixed.totals == {"A": 320, "B": 60}
    assert fixed.delete_round(2).totals == {"A": 280, "B": 30}
    assert game.totals == {"A": 70, "B": 60}  # games are values: the old one is unchanged
    with pytest.raises(InvalidGameError, match="no round 3"):
        game.delete_round(3)


def test_round_for_other_sides_is_refused() -> None:
    game = Game.new(FIBUR_1000, ["A", "B"])
    with pytest.raises(InvalidGameError, match="this game's sides are A, B"):
        game.add_round(round_with(FIBUR_1000, A=3, C=3))


@pytest.mark.parametrize("names", [["A"], ["A", "A"], ["A", ""], ["A", "B", "C", "D", "E"]])
def test_game_needs_two_to_four_named_sides(names: list[str]) -> None:
    with pytest.raises(InvalidGameError):
        Game.new(FIBUR_1000, names)


def test_quick_game_ends_after_a_fixed_number_of_rounds() -> None:
    rules = Rules.preset("burraco-000").replace(rounds=2)
    game = Game.new(rules, ["A", "B"]).add_round(round_with(rules, A=3, B=4))
    assert not game.finished
    game = game.add_round(round_with(rules, A=3, B=3))
    assert game.finished and game.winner == "B"


def test_tile_rummy_four_games_lowest_total_wins() -> None:
    rummy = Rules.preset("rummy-003")

    def rummy_round(a: list[str], b: list[str]) -> RoundSheet:
        return score_round(
            Round.from_json(
                {
                    "rules": "rummy-003",
                    "sides": [
                        {"name": "A", "hand": a, "closed": not a},
                        {"name": "B", "hand": b, "closed": not b},
                    ],
                }
            )
        )

    game = Game.new(rummy, ["A", "B"])
    for a, b in [([], ["R5"]), (["JK"], []), ([], ["K13"]), ([], ["B1"])]:
        game = game.add_round(rummy_round(a, b))
    assert game.totals == {"A": 50, "B": 19}
    assert game.finished and game.winner == "B"


def test_void_round_counts_nothing() -> None:
    burako = Rules.preset("burako-003")
    void = score_round(
        Round.from_json(
            {"rules": "burako-003", "sides": [{"name": "A", "hand": ["R5"]}, {"name": "B"}]}
        )
    )
    assert void.void
    assert Game.new(burako, ["A", "B"]).add_round(void).totals == {"A": 0, "B": 0}


@pytest.mark.parametrize(
    ("difference", "points"),
    [
        (0, (10, 10)),
        (50, (10, 10)),
        (55, (11, 9)),
        (150, (11, 9)),
        (155, (12, 8)),
        (250, (12, 8)),
        (255, (13, 7)),
        (355, (14, 6)),
        (500, (14, 6)),
        (505, (15, 5)),
        (655, (16, 4)),
        (805, (17, 3)),
        (1000, (17, 3)),
        (1005, (18, 2)),
        (1255, (19, 1)),
        (1500, (19, 1)),
        (1505, (20, 0)),
        (-600, (15, 5)),
    ],
)
def test_fibur_victory_points_scale(difference: int, points: tuple[int, int]) -> None:
    assert victory_points(difference) == points


def test_game_sums_victory_points_per_round() -> None:
    rules = FIBUR_1000.replace(victory_points=True, target=5000)
    game = Game.new(rules, ["A", "B"]).add_round(round_with(rules, A=8, B=3))  # 280 vs 30
    game = game.add_round(round_with(rules, A=3, B=4))  # 30 vs 40
    assert game.victory_points == {"A": 12 + 10, "B": 8 + 10}
    assert Game.new(FIBUR_1000, ["A", "B"]).victory_points is None
