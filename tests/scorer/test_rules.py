"""Presets of RULES.md and every option: frozen, self-validating, JSON round-trip."""

from __future__ import annotations

import dataclasses

import pytest

from scorer import (
    PRESETS,
    InvalidRulesError,
    Joker,
    PieceKind,
    Rules,
    SemiPure,
    UnknownPresetError,
    parse_pieces,
)
from scorer.rules import OPTION_NAMES


@pytest.mark.parametrize(
    ("name", "pieces", "jokers", "players", "semi_pure", "wrap_12_13_1", "joker", "target"),
    [
        ("burraco-fibur", "cards", 4, (2, 3, 4), SemiPure.NATURALS, True, 30, 2005),
        ("burraco-000", "cards", 2, (2,), SemiPure.NONE, True, 30, None),
        ("burraco-002", "cards", 4, (2, 4), SemiPure.AT_END, True, 30, None),
        ("burako-003", "tiles", 2, (2, 4), SemiPure.NONE, True, 50, 3000),
        ("rummy-003", "tiles", 2, (2, 3, 4), SemiPure.NONE, False, 50, None),
    ],
)
def test_presets_match_the_rules_table(
    name: str,
    pieces: str,
    jokers: int,
    players: tuple[int, ...],
    semi_pure: SemiPure,
    wrap_12_13_1: bool,
    joker: int,
    target: int | None,
) -> None:
    rules = Rules.preset(name)
    assert rules.name == name
    assert rules.pieces.value == pieces
    assert (rules.jokers, rules.players, rules.semi_pure) == (jokers, players, semi_pure)
    assert rules.ace_high is wrap_12_13_1 and rules.wrap is False
    assert rules.value_joker == joker
    assert rules.target == target


def test_tile_rummy_preset() -> None:
    rummy = Rules.preset("rummy-003")
    assert not rummy.twos_wild and rummy.max_wilds is None
    assert rummy.rounds == 4 and rummy.lowest_wins and rummy.first_meld_min == 30
    assert rummy.face_values and rummy.joker_in_meld_stands_for


def test_defaults_per_kind() -> None:
    assert Rules.default(PieceKind.CARDS).name == "burraco-fibur"
    assert Rules.default(PieceKind.TILES).name == "burako-003"


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("burraco-fibur", [5, 5, 10, 10, 15, 20, 30]),
        ("burraco-000", [5, 5, 10, 10, 15, 20, 30]),
        ("burraco-002", [5, 5, 10, 10, 15, 20, 30]),
        ("burako-003", [5, 5, 10, 10, 15, 20, 50]),
        ("rummy-003", [3, 7, 8, 13, 1, 2, 50]),
    ],
)
def test_piece_values(name: str, values: list[int]) -> None:
    rules = Rules.preset(name)
    codes = "3S 7S 8S KS AS 2S JK" if rules.pieces is PieceKind.CARDS else "K3 K7 K8 K13 K1 K2 JK"
    assert [rules.value(p) for p in parse_pieces(codes)] == values


def test_rummy_joker_in_a_meld_is_worth_what_it_stands_for() -> None:
    assert Rules.preset("rummy-003").value(Joker(), stands_for=11) == 11
    assert Rules.preset("burako-003").value(Joker(), stands_for=11) == 50


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_round_trips_through_json(name: str) -> None:
    rules = Rules.preset(name)
    assert Rules.from_json(rules.to_json()) == rules
    assert set(rules.to_json()) == {"name", *OPTION_NAMES}


def test_every_option_is_editable_and_round_trips() -> None:
    base = Rules.preset("burraco-fibur")
    changed = {
        "decks": 3,
        "jokers": 6,
        "players": [2, 4],
        "min_meld": 4,
        "twos_wild": False,
        "max_wilds": 2,
        "set_max_naturals": 12,
        "set_max_size": 10,
        "set_distinct": True,
        "ace_high": False,
        "wrap": True,
        "burraco_size": 8,
        "semi_pure": "at-end",
        "bonus_pure": 250,
        "bonus_semi_pure": 175,
        "bonus_impure": 90,
        "face_values": True,
        "value_ace": 11,
        "value_two": 25,
        "value_low": 4,
        "value_high": 9,
        "value_joker": 40,
        "joker_in_meld_stands_for": True,
        "closing_bonus": 150,
        "close_needs_burraco": False,
        "close_needs_pot": False,
        "closing_discard": "any",
        "pot": False,
        "pot_penalty": 50,
        "pot_unplayed_is_hand": False,
        "void_without_burraco": True,
        "rearrange": True,
        "first_meld_min": 40,
        "rummy_scoring": "official",
        "target": 1005,
        "rounds": 6,
        "lowest_wins": True,
        "victory_points": True,
        "pieces": "tiles",
    }
    assert set(changed) == set(OPTION_NAMES), "every option is exercised"
    rules = Rules.from_json({"preset": "burraco-fibur", **changed})
    for key, value in changed.items():
        got = getattr(rules, key)
        assert (list(got) if isinstance(got, tuple) else got) == value, key
        assert got != getattr(base, key), key
    assert rules.name == "burraco-fibur+custom"
    assert Rules.from_json(rules.to_json()) == rules


def test_json_without_preset_starts_from_the_default_of_its_pieces() -> None:
    assert Rules.from_json({"pieces": "tiles", "target": 2000}).value_joker == 50
    assert Rules.from_json({"name": "Nonna's table", "target": 1505}).name == "Nonna's table"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"preset": "burraco-fibur", "jokerz": 3}, "unknown rules option 'jokerz'"),
        ({"preset": "burraco-fibur", "target": "2005"}, "must be a whole number"),
        ({"preset": "burraco-fibur", "target": True}, "must be a whole number"),
        ({"preset": "burraco-fibur", "wrap": 1}, "must be true or false"),
        ({"preset": "burraco-fibur", "semi_pure": "half"}, "must be one of none, naturals, at-end"),
        ({"preset": "burraco-fibur", "players": "2"}, "must be a list of whole numbers"),
        ({"preset": "burraco-fibur", "bonus_pure": None}, "cannot be null"),
        ({"preset": 7}, "must be a preset name"),
        (["burraco-fibur"], "a preset name or an object"),
    ],
)
def test_bad_rules_json_is_refused_with_the_option_named(data: object, message: str) -> None:
    with pytest.raises(InvalidRulesError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Rules.from_json(data)  # type: ignore[arg-type]


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(UnknownPresetError, match="choose one of burraco-fibur, burraco-000"):
        Rules.preset("canasta")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"decks": 0}, "decks must be 1-4"),
        ({"jokers": -1}, "jokers must be 0-8"),
        ({"players": (5,)}, "players must be some of 2, 3, 4"),
        ({"players": (4, 2)}, "players must be listed once each, in order"),
        ({"players": ()}, "players must be some of 2, 3, 4"),
        ({"min_meld": 1}, "min_meld must be 2-7"),
        ({"max_wilds": 0}, "max_wilds must be 1 or more"),
        ({"burraco_size": 2}, "burraco_size must be min_meld-14"),
        ({"bonus_pure": -5}, "bonus_pure must be 0-10000"),
        ({"target": 0}, "target must be 1-1000000"),
        ({"rounds": 0}, "rounds must be 1-1000"),
    ],
)
def test_rules_validate_themselves(change: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidRulesError, match=message):
        Rules.preset("burraco-fibur").replace(**change)


def test_rules_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rules.preset("burraco-fibur").target = 1  # type: ignore[misc]


def test_describe_lists_every_option() -> None:
    text = Rules.preset("burako-003").describe()
    for key in OPTION_NAMES:
        assert key in text
