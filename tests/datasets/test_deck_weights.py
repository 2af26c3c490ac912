"""How often each card deck is drawn (session 63): two decks that print A, J, Q and K were
listed with the local-index decks; a training round's new scenes (``--art wider``) draw them
as the other A/J/Q/K decks, while every set made before keeps the draws its seed made."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from datasets import card_art, cli, fonts
from datasets.card_art import (
    LISTED_AS_LOCAL,
    LOCAL_INDEX_DECKS,
    DeckSource,
    MissingArtError,
    round_decks,
)


def _gnome(name: str) -> DeckSource:
    return DeckSource("gnome", name, Path(f"/none/{name}.svgz"), card_art._weight(name))


@pytest.mark.parametrize("name", sorted(LISTED_AS_LOCAL | LOCAL_INDEX_DECKS))
def test_sets_made_before_keep_the_weights_their_seeds_drew(name: str) -> None:
    assert card_art._weight(name) == 0.35
    assert (name in LISTED_AS_LOCAL) != (name in LOCAL_INDEX_DECKS)


def test_a_round_draws_the_decks_listed_as_local_at_full_weight() -> None:
    names = ["orell", "atlasnye", "rheinland", "atlasnye_skat", "anglo_modern_4_color", "paris"]
    kde = DeckSource("kde", "orell", Path("/none/svg-orell"), 0.5)  # a namesake of another family
    before = (*(_gnome(n) for n in names), kde)
    after = round_decks(before)
    assert [d.weight for d in before] == [0.35, 0.35, 0.35, 0.35, 0.5, 1.0, 0.5]
    assert [d.weight for d in after] == [1.0, 1.0, 0.35, 0.35, 0.5, 1.0, 0.5]
    assert [(d.key, d.path) for d in after] == [(d.key, d.path) for d in before]


def _synth_args(art: str, kind: str, out: Path) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.add_synth_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(
        ["synth", "--kind", kind, "--art", art, "--count", "1", "--out", str(out)]
    )


def _decks_passed(monkeypatch: pytest.MonkeyPatch, args: argparse.Namespace) -> Any:
    got: dict[str, Any] = {}

    def fake_generate(*a: object, **kwargs: Any) -> list[object]:
        got.update(kwargs)
        return []

    monkeypatch.setattr("datasets.writer.generate", fake_generate)
    code = args.func(args)
    if code == cli.EXIT_MISSING_ART:
        pytest.skip("the card decks or the wider fonts are not installed (make apt)")
    assert code == cli.EXIT_OK
    return got["decks"]


def test_wider_card_scenes_draw_the_round_weights(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    decks = _decks_passed(monkeypatch, _synth_args("wider", "cards", tmp_path / "o"))
    weights = {d.key: d.weight for d in decks}
    assert weights == {d.key: d.weight for d in round_decks(card_art.require_art())}
    assert weights.get("gnome/orell") == 1.0
    assert weights.get("gnome/rheinland") == 0.35


@pytest.mark.parametrize(("art", "kind"), [("classic", "cards"), ("wider", "tiles")])
def test_other_scenes_draw_as_before(
    art: str, kind: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # None: the scene draws the installed decks at their own weights (a tile scene, none)
    assert _decks_passed(monkeypatch, _synth_args(art, kind, tmp_path / "o")) is None


def test_wider_card_scenes_without_the_decks_are_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def missing() -> tuple[DeckSource, ...]:
        raise MissingArtError("no card decks: apt-get install gnome-cards-data")

    if not set(fonts.WIDER_PIP_FONTS) <= set(fonts.font_files()):
        pytest.skip("the wider pip faces are not installed (make apt): refused for them first")
    monkeypatch.setattr(card_art, "require_art", missing)
    args = _synth_args("wider", "cards", tmp_path / "none")
    assert args.func(args) == cli.EXIT_MISSING_ART
    assert "gnome-cards-data" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()


def test_a_round_on_a_machine_with_the_face_cache_alone_draws_the_same_weights(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # a lent GPU machine has no Debian decks: it lists the atlases carried to it
    monkeypatch.setenv("MELDCAM_CACHE", str(tmp_path))
    folder = card_art.cache_dir() / f"v{card_art.CACHE_VERSION}"
    folder.mkdir(parents=True)
    for stem in ("gnome-orell", "gnome-rheinland", "gnome-paris", "kde-svg-penguins"):
        (folder / f"{stem}.json").write_text("{}")
    weights = {d.key: d.weight for d in round_decks(card_art.cached_decks())}
    assert weights == {
        "gnome/orell": 1.0,
        "gnome/paris": 1.0,
        "gnome/rheinland": 0.35,
        "kde/svg-penguins": 1.0,
    }
