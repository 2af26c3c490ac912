"""Without the Debian card art, synth says how to install it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from datasets import card_art, cli
from datasets.card_art import MissingArtError, require_art


@pytest.fixture
def no_art(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(card_art, "GNOME_DIR", tmp_path / "no-aisleriot")
    monkeypatch.setattr(card_art, "KDE_DIR", tmp_path / "no-carddecks")


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
