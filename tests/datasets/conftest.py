"""Shared fixtures: a couple of installed decks (skip cleanly when the art is absent)."""

from __future__ import annotations

import shutil

import pytest

from datasets.card_art import INSTALL_HINT, DeckSource, available_decks, load_deck

PREFERRED = ("gnome/anglo", "gnome/paris", "gnome/simplistic")


@pytest.fixture(scope="session")
def decks() -> tuple[DeckSource, ...]:
    """Two installed decks (rendered once into the face cache)."""
    found = available_decks()
    if not found or shutil.which("rsvg-convert") is None:
        pytest.skip(f"Debian card art not installed ({INSTALL_HINT})")
    chosen = [d for d in found if d.key in PREFERRED][:2] or list(found[:2])
    usable = tuple(d for d in chosen if load_deck(d) is not None)
    if not usable:
        pytest.fail("card decks are installed but none could be rendered")
    return usable
