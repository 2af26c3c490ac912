"""Art no model trains on (session 30): the held-out decks (datasets/decks) and tile fonts; the
KDE decks rendered at one zoom; and the wider tile fonts new training scenes draw (session 31)."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from font_spy import spy_fonts

from datasets import card_art, cli, fonts, tiles
from datasets.card_art import (
    JOKER_CELLS,
    DeckSource,
    available_decks,
    cached_decks,
    held_out_decks,
    load_deck,
)
from datasets.scene import SceneKind, render_scene
from datasets.tiles import (
    CLASSIC_TILE_STYLES,
    HELD_OUT_TILE_STYLES,
    TRAINED_TILE_STYLES,
    WIDER_TILE_STYLES,
)

needs_rsvg = pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="no rsvg-convert")


def test_the_held_out_decks_are_never_a_training_deck() -> None:
    held = {d.key for d in held_out_decks()}
    assert held == {"held-out/kennard", "held-out/responsive"}
    assert not held & {d.key for d in available_decks()}
    assert not held & {d.key for d in cached_decks()}


@needs_rsvg
def test_each_held_out_deck_renders_whole(own_cache: Path) -> None:
    for source in held_out_decks():
        deck = load_deck(source)
        assert deck is not None, source.key
        w, h = deck.cell
        assert 0.65 < w / h < 0.76  # a poker card's shape
        x0, y0, x1, y1 = deck.index_box
        assert x0 < 0.05 and y0 < 0.05 and 0.1 < x1 < 0.2 and 0.15 < y1 < 0.3, deck.index_box
        assert deck.has_jokers
        faces = [deck.face(r, c) for r in range(4) for c in range(13)]
        assert all(f[:, :, 3].mean() > 200 for f in faces)  # every face drawn, opaque
        # 52 different faces, not one file read 52 times
        assert len({f.tobytes() for f in faces}) == 52
        assert not np.array_equal(deck.face(*JOKER_CELLS[0]), faces[0])
    # rendered once: the cache answers the second time
    assert sorted(p.name for p in own_cache.glob("v*/held-out-*.json")) == [
        "held-out-kennard.json",
        "held-out-responsive.json",
    ]
    # the cache's own loader (a machine with no Debian decks) never offers them for training
    assert not {d.key for d in cached_decks()} & {d.key for d in held_out_decks()}


@needs_rsvg
def test_a_folder_deck_missing_a_card_is_refused(own_cache: Path, tmp_path: Path) -> None:
    kennard = next(d for d in held_out_decks() if d.name == "kennard")
    folder = tmp_path / "short"
    shutil.copytree(kennard.path, folder)
    (folder / "QH.svgz").unlink()
    assert load_deck(DeckSource("held-out", "short", folder, 1.0)) is None
    meta = own_cache / f"v{card_art.CACHE_VERSION}" / "held-out-short.json"
    assert json.loads(meta.read_text())["ok"] is False


def _kde_like_deck(path: Path) -> None:
    """An SVG laid out as the KDE decks are: one element per card, by id, none for the jokers;
    each element holds an invisible part above its card, of a height that differs from card
    to card, as in most KDE decks (which rsvg-convert -h fitted to one height each, drawing
    their cards at many sizes: svg-penguins', fitted to 900 px, from 62 to 539 px tall)."""
    ranks = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
    parts = []
    for si, suit in enumerate(("club", "diamond", "heart", "spade")):
        colour = "#c00" if suit in ("diamond", "heart") else "#000"
        for ri, rank in enumerate(ranks):
            x, y, extra = ri * 130, si * 200 + 40, 10 + 7 * ri + 5 * si
            parts.append(
                f'<g id="{rank}_{suit}"><rect x="{x}" y="{y - extra}" width="100"'
                f' height="{extra}" fill="none"/><rect x="{x}" y="{y}" width="100" height="140"'
                f' rx="6" fill="#fff" stroke="#333"/><rect x="{x + 6}" y="{y + 6}"'
                f' width="{4 + ri}" height="14" fill="{colour}"/><circle cx="{x + 10}"'
                f' cy="{y + 28}" r="{3 + si}" fill="{colour}"/><circle cx="{x + 50}"'
                f' cy="{y + 70}" r="18" fill="{colour}"/></g>'
            )
    parts.append('<g id="back"><rect y="900" width="100" height="140" rx="6" fill="#248"/></g>')
    path.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="1700" height="1100">'
        + "".join(parts)
        + "</svg>"
    )


@needs_rsvg
def test_a_kde_deck_whose_elements_differ_in_size_renders_and_borrows_jokers(
    own_cache: Path, tmp_path: Path
) -> None:
    svg = tmp_path / "svg-test" / "test.svg"
    svg.parent.mkdir()
    _kde_like_deck(svg)
    source = DeckSource("kde", "svg-test", svg, 1.0)
    deck = load_deck(source)
    assert deck is not None
    assert not deck.has_jokers
    w, h = deck.cell
    assert abs(w / h - 100 / 140) < 0.02
    ink = [deck.face(r, c)[:, :, 3] > 40 for r in range(4) for c in range(13)]
    # every card fills its cell: none drawn small in a corner of it
    assert min(m.mean() for m in ink) > 0.97
    # its index found where the cards draw it (x 6-22 of 100, y 6-31 of 140), padded
    x0, y0, x1, y1 = deck.index_box
    assert 0.02 < x0 < 0.07 and 0.02 < y0 < 0.05 and 0.15 < x1 < 0.25 and 0.2 < y1 < 0.26
    jokers_seen = 0
    for seed in range(6):
        scene = render_scene(seed, SceneKind.CARDS, (640, 480), decks=(source,), drawn=0.0)
        assert scene.truth["style"]["deck"] == "kde/svg-test"
        assert scene.truth["style"]["jokers"].startswith("drawn/")
        jokers_seen += sum(p["code"] == "JK" for p in scene.truth["pieces"])
    assert jokers_seen > 0


def _synth(out: Path, kind: str, count: int, art: str = "held-out") -> list[dict[str, object]]:
    """``meldcam synth --art ART``'s scenes' styles (``truth/*.json``)."""
    parser = argparse.ArgumentParser()
    cli.add_synth_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["synth", "--kind", kind, "--art", art, "--count", str(count), "--size", "480",
         "--workers", "1", "--out", str(out)]
    )  # fmt: skip
    assert args.func(args) == cli.EXIT_OK
    return [json.loads(p.read_text())["style"] for p in sorted((out / "truth").glob("*.json"))]


@needs_rsvg
def test_synth_deals_the_held_out_decks_alone(own_cache: Path, tmp_path: Path) -> None:
    decks = {style["deck"] for style in _synth(tmp_path / "held", "cards", 6)}
    # no drawn deck, no installed one: only what no model trains on
    assert decks and decks <= {"held-out/kennard", "held-out/responsive"}


needs_held_out_fonts = pytest.mark.skipif(
    not set(fonts.HELD_OUT_FONTS) <= set(fonts.font_files()),
    reason="fonts-lato / fonts-roboto-unhinted not installed (make apt)",
)


def _fonts_drawn(monkeypatch: pytest.MonkeyPatch, style: int) -> set[str]:
    used = spy_fonts(monkeypatch, tiles)
    tiles.tile_set.cache_clear()
    try:
        tiles.tile_set(style)
    finally:
        tiles.tile_set.cache_clear()
    return used - {fonts.PIP_FONT}  # the joker's star


@needs_held_out_fonts
def test_the_held_out_tile_styles_number_in_the_held_out_fonts_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert set(HELD_OUT_TILE_STYLES).isdisjoint(TRAINED_TILE_STYLES)
    held = set().union(*(_fonts_drawn(monkeypatch, s) for s in HELD_OUT_TILE_STYLES[:2]))
    assert held == set(fonts.HELD_OUT_FONTS)
    classic = set().union(*(_fonts_drawn(monkeypatch, s) for s in CLASSIC_TILE_STYLES))
    assert classic and classic.isdisjoint(fonts.HELD_OUT_FONTS)
    assert classic <= set(fonts.index_fonts())


needs_wider_fonts = pytest.mark.skipif(
    not set(fonts.WIDER_FONTS) <= set(fonts.font_files()),
    reason="the wider tile fonts are not installed (make apt)",
)


@needs_wider_fonts
def test_the_wider_tile_styles_number_in_the_wider_fonts_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert set(WIDER_TILE_STYLES) <= set(TRAINED_TILE_STYLES)
    assert set(WIDER_TILE_STYLES).isdisjoint(CLASSIC_TILE_STYLES)
    wider = [_fonts_drawn(monkeypatch, s) for s in WIDER_TILE_STYLES]
    assert all(len(f) == 1 for f in wider)  # one face a style
    # every wider face is drawn, none held out and none a classic style draws
    assert set().union(*wider) == set(fonts.WIDER_FONTS)
    assert set(fonts.WIDER_FONTS).isdisjoint({*fonts.HELD_OUT_FONTS, *fonts.index_fonts()})


@needs_wider_fonts
def test_synth_draws_the_wider_styles_only_when_asked(own_cache: Path, tmp_path: Path) -> None:
    wider = {style["tiles"] for style in _synth(tmp_path / "wider", "tiles", 12, "wider")}
    assert wider & set(WIDER_TILE_STYLES) and wider & set(CLASSIC_TILE_STYLES)
    # by default a seed deals the tiles it dealt before session 31
    classic = {style["tiles"] for style in _synth(tmp_path / "classic", "tiles", 12, "classic")}
    assert classic <= set(CLASSIC_TILE_STYLES)


@needs_held_out_fonts
def test_synth_draws_held_out_tiles(own_cache: Path, tmp_path: Path) -> None:
    styles = {style["tiles"] for style in _synth(tmp_path / "tiles", "tiles", 4)}
    assert styles and styles <= set(HELD_OUT_TILE_STYLES)


def test_the_font_packages_named_are_those_make_apt_installs() -> None:
    # the packages a missing font's message names, kept in two places: here and the Makefile
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    line = next(row for row in makefile.splitlines() if row.startswith("APT_PACKAGES :="))
    apt = set(line.split(":=", 1)[1].split())
    named = {
        *fonts.CLASSIC_FONT_PACKAGES,
        *fonts.HANDWRITING_PACKAGES,
        *fonts.WIDER_FONT_PACKAGES,
        *fonts.WIDER_PIP_FONT_PACKAGES,
        *fonts.HELD_OUT_FONT_PACKAGES,
    }
    assert named <= apt


@pytest.mark.parametrize(
    ("art", "gone", "package"),
    [
        ("held-out", fonts.HELD_OUT_FONTS, "fonts-lato"),
        # one face of a list missing is refused too: the others would deal other tiles
        ("held-out", ("Roboto-Bold.ttf",), "fonts-roboto-unhinted"),
        ("wider", fonts.WIDER_FONTS[-1:], "fonts-quicksand"),
        ("classic", ("FreeSerifBold.ttf",), "fonts-freefont-ttf"),
        ("classic", ("DejaVuSans-Oblique.ttf",), "fonts-dejavu-extra"),  # a score pad's
    ],
)
def test_without_the_fonts_synth_says_what_to_install(
    art: str,
    gone: tuple[str, ...],
    package: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    have = {k: v for k, v in fonts.font_files().items() if k not in gone}
    monkeypatch.setattr(fonts, "font_files", lambda: have)
    parser = argparse.ArgumentParser()
    cli.add_synth_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["synth", "--kind", "tiles", "--art", art, "--count", "1", "--out",
         str(tmp_path / "none")]
    )  # fmt: skip
    assert args.func(args) == cli.EXIT_MISSING_ART
    err = capsys.readouterr().err
    assert package in err and gone[0] in err
    assert not (tmp_path / "none").exists()  # refused before anything is written
