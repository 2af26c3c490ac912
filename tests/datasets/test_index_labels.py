"""A card's index label holds its suit as well as its rank.

`ornamental`, `tango` and `svg-nicu-white` print the suit pip under the rank down to 0.38-0.44
of the card. Until session 45 the index was searched no lower than 0.36, so their label held the
rank alone: the scene generator fans a meld by the index box, which hid every covered card's pip
while its truth asked for the suit. A label that holds the suit differs between a club and a
spade of one rank; one that holds the rank alone does not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from datasets import card_art
from datasets.card_art import MEASURE_VERSION, Box, CardDeck, DeckSource, available_decks, load_deck
from scorer.pieces import Rank, Suit

PIP_BELOW = ("gnome/ornamental", "gnome/tango", "kde/svg-nicu-white")
CONTROL = "gnome/anglo"
# the rank-only boxes these decks' measures held before (session 44's face cache)
RANK_ONLY: dict[str, Box] = {
    "gnome/ornamental": (0.033, 0.043, 0.243, 0.23),
    "gnome/tango": (0.052, 0.04, 0.259, 0.19),
    "kde/svg-nicu-white": (0.024, 0.043, 0.267, 0.233),
}


def _deck(key: str) -> tuple[DeckSource, CardDeck]:
    found = [d for d in available_decks() if d.key == key]
    deck = load_deck(found[0]) if found else None
    if deck is None:
        pytest.skip(f"{key} is not installed")
    return found[0], deck


def _suit_told(deck: CardDeck, box: Box) -> float:
    """The least share of a label's pixels that differ between a club and a spade of one rank,
    over the thirteen ranks (0 where some rank's two labels are alike)."""

    def label(rank: Rank, suit: Suit) -> np.ndarray:
        face = np.asarray(deck.card(rank, suit))
        h, w = face.shape[:2]
        x0, y0, x1, y1 = box
        return face[int(y0 * h) : int(y1 * h), int(x0 * w) : int(x1 * w), :3].astype(np.int16)

    return min(
        float(np.mean(np.abs(label(r, Suit.CLUBS) - label(r, Suit.SPADES)).max(axis=2) > 64))
        for r in Rank
    )


@pytest.mark.parametrize("key", [*PIP_BELOW, CONTROL])
def test_a_decks_index_label_tells_clubs_from_spades(key: str) -> None:
    _, deck = _deck(key)
    # measured: 0.017-0.24 over every installed deck and held-out one; the rank-only boxes of
    # PIP_BELOW: 0.000
    assert _suit_told(deck, deck.index_box) > 0.008, deck.index_box


@pytest.mark.parametrize("key", PIP_BELOW)
def test_the_rank_only_label_could_not_tell_them(key: str) -> None:
    """The check above fails on the boxes these decks had: it can catch the fault."""
    _, deck = _deck(key)
    assert _suit_told(deck, RANK_ONLY[key]) < 0.002
    assert deck.index_box[3] > RANK_ONLY[key][3] + 0.12  # the pip, below the rank


def _stale(source: DeckSource, faces: Path) -> Path:
    """The deck's atlas and measures copied into the face cache ``faces``, the measures as
    version 1 took them (no version, the rank-only box)."""
    home = card_art.cache_dir()  # the user's cache, where _deck rendered it
    folder = faces / f"v{card_art.CACHE_VERSION}"
    folder.mkdir(parents=True)
    shutil.copy(home / f"v{card_art.CACHE_VERSION}" / f"{source.stem}.npy", folder)
    meta = json.loads((home / f"v{card_art.CACHE_VERSION}" / f"{source.stem}.json").read_text())
    del meta["measure"]
    meta["index_box"] = list(RANK_ONLY[source.key])
    path = folder / f"{source.stem}.json"
    path.write_text(json.dumps(meta))
    return path


def test_measures_of_an_older_version_are_taken_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source, deck = _deck("gnome/ornamental")
    own = tmp_path / "cache"
    path = _stale(source, own / "faces")
    monkeypatch.setenv("MELDCAM_CACHE", str(own))
    load_deck.cache_clear()
    try:
        again = load_deck(source)
        assert again is not None
        assert again.index_box == pytest.approx(deck.index_box)
        kept = json.loads(path.read_text())  # written back: measured once
        assert kept["measure"] == MEASURE_VERSION
        assert kept["index_box"] == pytest.approx(list(deck.index_box))
        # a machine with the face cache alone (a lent GPU one) measures it again in memory
        path.write_text(json.dumps({**kept, "measure": 1, "index_box": RANK_ONLY[source.key]}))
        load_deck.cache_clear()
        carried = load_deck(DeckSource(source.family, source.name, path, 1.0))
        assert carried is not None
        assert carried.index_box == pytest.approx(deck.index_box)
    finally:
        load_deck.cache_clear()
