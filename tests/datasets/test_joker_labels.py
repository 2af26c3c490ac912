"""A joker's corner mark is labelled as a meld shows it: its top, as tall as an index at most.

Decks that print "JOKER" down the corner as a tall strip had it labelled whole, and the next
card of a meld covers most of such a strip: those jokers went unlabelled (taught to the
detector as background, their melds left unscored) far more often than any other card."""

from __future__ import annotations

import pytest

from datasets.card_art import DeckSource, available_decks, joker_label_box, load_deck
from datasets.kit import CardKit
from datasets.scene import SceneKind, render_scene
from vision.classes import Face, PieceKind

INDEX = (0.02, 0.01, 0.14, 0.20)


def test_a_strip_taller_than_the_index_is_labelled_by_its_top() -> None:
    strip = (0.03, 0.02, 0.12, 0.45)
    assert joker_label_box(strip, INDEX) == pytest.approx((0.03, 0.02, 0.12, 0.21))


def test_a_mark_no_taller_than_the_index_is_labelled_whole() -> None:
    chip = (0.01, 0.02, 0.16, 0.12)
    assert joker_label_box(chip, INDEX) == chip


@pytest.fixture(scope="module")
def strip_deck() -> DeckSource:
    """A deck whose jokers print "JOKER" down the corner (over twice an index's height)."""
    found = [d for d in available_decks() if d.key == "gnome/atlasnye"]
    if not found or load_deck(found[0]) is None:
        pytest.skip("gnome-cards-data's atlasnye deck is not installed")
    return found[0]


def test_the_decks_joker_label_is_no_taller_than_its_index(strip_deck: DeckSource) -> None:
    deck = load_deck(strip_deck)
    assert deck is not None and deck.has_jokers
    index_h = deck.index_box[3] - deck.index_box[1]
    assert deck.joker_box[3] - deck.joker_box[1] > 2 * index_h  # the strip, as measured
    label = dict(CardKit(deck, 300).regions(Face.parse("JK", PieceKind.CARD)))["tl"]
    assert label[3] - label[1] <= index_h + 1e-9
    assert label[1] < deck.index_box[1] + index_h / 2  # the mark's top, not its foot


def _labelled_share(scenes: list[dict], joker: bool) -> tuple[int, float]:
    pieces = [
        p
        for truth in scenes
        for p in truth["pieces"]
        if p["kind"] == "card" and p.get("meld") is not None and (p["code"] == "JK") == joker
    ]
    return len(pieces), sum(p["readable"] for p in pieces) / max(1, len(pieces))


def test_jokers_in_melds_are_labelled_about_as_often_as_the_other_cards(
    strip_deck: DeckSource,
) -> None:
    truths = [
        render_scene(seed, SceneKind.CARDS, (800, 600), (strip_deck,), drawn=0.0).truth
        for seed in range(24)
    ]
    jokers, joker_share = _labelled_share(truths, joker=True)
    cards, card_share = _labelled_share(truths, joker=False)
    assert jokers >= 10 and cards >= 200
    assert joker_share >= card_share - 0.15, (jokers, joker_share, card_share)
