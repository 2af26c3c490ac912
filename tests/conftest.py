"""Fixtures shared by every test folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A face cache of the test's own (decks rendered into it, never into the user's)."""
    from datasets import card_art

    monkeypatch.setenv("MELDCAM_CACHE", str(tmp_path / "cache"))
    card_art.load_deck.cache_clear()
    yield card_art.cache_dir()
    card_art.load_deck.cache_clear()
