"""Without the Debian card art, synth says how to install it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from datasets import card_art, cli
from datasets.card_art import MissingArtError, require_art


@pytest.fixture
def no_art(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(card_art, "GNOME_DIR", tmp_path / "no-aisleriot")
    monkeypatch.setattr(card_art, "KDE_DIR", tmp_path / "no-carddecks")
    monkeypatch.setenv("MELDCAM_CACHE", str(tmp_path / "no-cache"))


def test_require_art_names_the_install_command(no_art: None) -> None:
    with pytest.raises(MissingArtError, match=r"make apt.*apt-get install gnome-cards-data"):
        require_art()


def test_synth_cli_reports_missing_art(
    no_art: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    cli.add_synth_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["synth", "--kind", "cards", "--count", "1", "--out", str(tmp_path)])
    assert args.func(args) == cli.EXIT_MISSING_ART
    err = capsys.readouterr().err
    assert "card art is missing" in err and "make apt" in err


def test_tiles_need_no_card_art(no_art: None, tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    cli.add_synth_parser(parser.add_subparsers(dest="command"))
    out = tmp_path / "t"
    args = parser.parse_args(
        [
            "synth",
            "--kind",
            "tiles",
            "--count",
            "1",
            "--out",
            str(out),
            "--size",
            "320",
            "--workers",
            "1",
        ]
    )
    assert args.func(args) == cli.EXIT_OK
    assert (out / "images" / "train" / "000000.jpg").exists()


def test_without_the_decks_the_atlases_in_the_cache_are_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # a machine with neither the Debian decks nor rsvg-convert, the atlases carried to it
    monkeypatch.setattr(card_art, "GNOME_DIR", tmp_path / "no-aisleriot")
    monkeypatch.setattr(card_art, "KDE_DIR", tmp_path / "no-carddecks")
    monkeypatch.setattr(card_art.shutil, "which", lambda _name: None)
    monkeypatch.setenv("MELDCAM_CACHE", str(tmp_path / "cache"))
    folder = card_art.cache_dir() / f"v{card_art.CACHE_VERSION}"
    folder.mkdir(parents=True)
    atlas = np.zeros((5 * 30, 13 * 20, 4), np.uint8)
    atlas[:30, :20] = 200  # the first face, to tell it
    np.save(folder / "gnome-paris.npy", atlas)
    box = [0.05, 0.05, 0.2, 0.2]
    meta = {"stamp": "4:1:1", "ok": True, "index_box": box, "joker_box": box, "has_jokers": True}
    meta["measure"] = card_art.MEASURE_VERSION  # as measured here (a blank atlas measures nothing)
    (folder / "gnome-paris.json").write_text(json.dumps(meta))
    (folder / "kde-svg-oxygen.json").write_text(json.dumps({"stamp": "4:1:1", "ok": False}))
    (folder / "kde-svg-konqi-modern.json").write_text(json.dumps(meta))  # a skipped deck
    decks = require_art()
    assert [d.key for d in decks] == ["gnome/paris", "kde/svg-oxygen"]
    paris, oxygen = (card_art.load_deck(d) for d in decks)
    assert oxygen is None and paris is not None and paris.cell == (20, 30)
    assert paris.face(0, 0).min() == 200 and paris.face(0, 1).max() == 0
