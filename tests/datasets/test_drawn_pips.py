"""The faces drawn decks print their suits in (session 59): ``--art wider`` prints each drawn
deck's pips in one of ``WIDER_PIP_FONTS``, classic art in ``PIP_FONT`` alone, as before."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from font_spy import spy_fonts
from PIL import Image, ImageDraw

from datasets import cli, drawn_cards, fonts
from datasets.drawn_cards import DRAWN_STYLES, PIP_CHAR, drawn_deck, pip_face
from datasets.scene import SceneKind, render_scene
from scorer.pieces import Suit

needs_pip_fonts = pytest.mark.skipif(
    not set(fonts.WIDER_PIP_FONTS) <= set(fonts.font_files()),
    reason="the wider pip faces are not installed (make apt)",
)


def _synth_args(art: str, out: Path) -> argparse.Namespace:
    """``meldcam synth --kind cards --art ART --count 1 --out OUT``, parsed."""
    parser = argparse.ArgumentParser()
    cli.add_synth_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(
        ["synth", "--kind", "cards", "--art", art, "--count", "1", "--out", str(out)]
    )


def _glyph(face: str, char: str, size: int = 48) -> np.ndarray:
    """``char`` drawn in ``face``, cut to its ink and scaled to ``size`` square: a boolean mask."""
    image = Image.new("L", (160, 160), 0)
    ImageDraw.Draw(image).text((80, 80), char, fill=255, font=fonts.font(face, 96), anchor="mm")
    box = image.getbbox()
    assert box is not None, f"{face} draws nothing for U+{ord(char):04X}"
    return np.asarray(image.crop(box).resize((size, size), Image.Resampling.BILINEAR)) > 127


def _top_width(mask: np.ndarray, at: float = 0.12) -> float:
    """The glyph's width an eighth of the way down, against its widest row: a spade ends in a
    point there (0.08-0.21 in these faces), a club in a round leaf (0.38-0.49)."""
    widths = mask.sum(axis=1)
    return float(widths[int(at * len(widths))] / widths.max())


def _looks_right(face: str) -> bool:
    spade, club = (_glyph(face, PIP_CHAR[s]) for s in (Suit.SPADES, Suit.CLUBS))
    return _top_width(spade) < 0.3 < _top_width(club)


@needs_pip_fonts
@pytest.mark.parametrize("face", [fonts.PIP_FONT, *fonts.WIDER_PIP_FONTS])
def test_each_pip_face_draws_four_suits_and_a_spade_unlike_a_club(face: str) -> None:
    masks = [_glyph(face, PIP_CHAR[s]).tobytes() for s in Suit]
    assert len(set(masks)) == 4  # a face without the glyphs draws one box for all four
    assert _looks_right(face)


@pytest.mark.skipif("FreeSerifBold.ttf" not in fonts.font_files(), reason="no FreeSerifBold")
def test_the_face_whose_spade_is_a_club_is_told_and_left_out() -> None:
    # GNU FreeSerif Bold maps U+2660 to a club and U+2663 to a spade: labels would lie
    assert not _looks_right("FreeSerifBold.ttf")
    assert "FreeSerifBold.ttf" not in fonts.WIDER_PIP_FONTS


@needs_pip_fonts
def test_the_styles_draw_every_face_and_change_nothing_but_their_suits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pips = fonts.wider_pip_fonts()
    assert {pip_face(s, pips) for s in range(DRAWN_STYLES)} == set(pips)
    assert all(pip_face(s) == fonts.PIP_FONT for s in range(DRAWN_STYLES))
    style = 5
    classic, wider = drawn_deck(style), drawn_deck(style, pips)
    assert classic.key == f"drawn/{style}"
    assert wider.key == f"drawn/{style}/{pip_face(style, pips).rsplit('.', 1)[0]}"
    assert classic.cell == wider.cell  # the card's size is the style's
    assert not np.array_equal(classic.atlas, wider.atlas)
    # the faces drawing a deck: its index face, its pip face and (a star joker) PIP_FONT's star
    used = spy_fonts(monkeypatch, drawn_cards)
    for s in range(DRAWN_STYLES):
        used.clear()
        drawn_deck.__wrapped__(s, pips)
        index_face = fonts.index_fonts()[s % len(fonts.index_fonts())]
        assert {index_face, pip_face(s, pips)} <= used
        assert used <= {index_face, pip_face(s, pips), fonts.PIP_FONT}


@needs_pip_fonts
def test_a_scene_deals_drawn_decks_in_the_faces_it_is_given_half_the_time() -> None:
    pips = fonts.wider_pip_fonts()
    other = 0
    for seed in range(12):  # no deck but drawn ones: decks=()
        given = render_scene(seed, SceneKind.CARDS, (320, 240), decks=(), pips=pips)
        plain = render_scene(seed, SceneKind.CARDS, (320, 240), decks=())
        style = int(str(plain.truth["style"]["deck"]).split("/")[1])
        key = given.truth["style"]["deck"]
        assert given.truth["pieces"] and (
            key == f"drawn/{style}" or key.startswith(f"drawn/{style}/")
        )
        other += key != f"drawn/{style}"
    assert 3 <= other <= 9  # OTHER_PIPS_SHARE (a half) of 12


@pytest.mark.parametrize(("art", "wider"), [("wider", True), ("classic", False)])
def test_synth_gives_the_pip_faces_to_wider_art_alone(
    art: str, wider: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    got: dict[str, Any] = {}

    def fake_generate(*args: object, **kwargs: Any) -> list[object]:
        got.update(kwargs)
        return []

    monkeypatch.setattr("datasets.writer.generate", fake_generate)
    args = _synth_args(art, tmp_path / "o")
    if wider and not set(fonts.WIDER_PIP_FONTS) <= set(fonts.font_files()):
        pytest.skip("the wider pip faces are not installed (make apt)")
    assert args.func(args) == cli.EXIT_OK
    assert got["pips"] == (fonts.WIDER_PIP_FONTS if wider else ())


def test_synth_without_a_pip_face_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    have = {k: v for k, v in fonts.font_files().items() if k != "ClearSans-Thin.ttf"}
    monkeypatch.setattr(fonts, "font_files", lambda: have)
    args = _synth_args("wider", tmp_path / "none")
    assert args.func(args) == cli.EXIT_MISSING_ART
    err = capsys.readouterr().err
    assert "ClearSans-Thin.ttf" in err and "fonts-clear-sans" in err
    assert not (tmp_path / "none").exists()
