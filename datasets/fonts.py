"""Fonts from the Debian packages ``make apt`` installs: the classic faces of card indexes and
tile numbers, the wider tile faces, the held-out ones and the handwriting of score pads.

Each list is needed whole: a style draws ``fonts[style % len(fonts)]``, so a machine lacking one
face of a list would deal other cards or tiles from the same seed, and a set made again would
not be the set the figures were measured on. A missing face is refused, naming its package."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))
CLASSIC_FONTS = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSansCondensed-Bold.ttf",
    "DejaVuSerif.ttf",
    "DejaVuSerif-Bold.ttf",
    "DejaVuSerifCondensed-Bold.ttf",
    "LiberationSans-Regular.ttf",
    "LiberationSans-Bold.ttf",
    "LiberationSerif-Regular.ttf",
    "LiberationSerif-Bold.ttf",
    "FreeSans.ttf",
    "FreeSansBold.ttf",
    "FreeSerif.ttf",
    "FreeSerifBold.ttf",
    "ComicNeue-Bold.otf",
)
"""Faces that look like the indexes and tile numbers people see (no mono, no light weights):
drawn decks and the classic tile styles number in them."""
CLASSIC_FONT_PACKAGES = (
    "fonts-dejavu-core",
    "fonts-dejavu-extra",
    "fonts-liberation2",
    "fonts-freefont-ttf",
    "fonts-comic-neue",
)
WIDER_FONTS = (
    "OpenSans-Bold.ttf",
    "Inter-Bold.otf",
    "Cabin-Bold.otf",
    "Cantarell-Bold.otf",
    "LeagueSpartan-Bold.otf",
    "ClearSans-Bold.ttf",
    "Quicksand-Bold.ttf",
)
"""Faces that number the wider tile styles alone (session 31; ``datasets.tiles.WIDER_TILE_STYLES``,
which only new training scenes draw): sans faces whose 1 carries a long flag, as the held-out
Roboto's does and no face of :data:`CLASSIC_FONTS` does (the classifier read Roboto's 1 as a 7 in 53
of 271 tiles), and whose 4s, 7s and 9s are drawn other ways."""
WIDER_FONT_PACKAGES = (
    "fonts-open-sans",
    "fonts-inter",
    "fonts-cabin",
    "fonts-cantarell",
    "fonts-league-spartan",
    "fonts-clear-sans",
    "fonts-quicksand",
)
HELD_OUT_FONTS = ("Lato-Black.ttf", "Roboto-Bold.ttf")
"""Faces no model trains on (session 30; Debian ``fonts-lato`` and ``fonts-roboto-unhinted``, both
installed by ``make apt``): the held-out tile styles draw their numbers in them alone."""
HELD_OUT_FONT_PACKAGES = ("fonts-lato", "fonts-roboto-unhinted")
BOLD_HINTS = ("Bold",)
PIP_FONT = "DejaVuSans.ttf"
"""The face of every drawn deck's suits and joker marks in the classic art, and of the jokers'
star in every art."""
WIDER_PIP_FONTS = (
    "ClearSans-Regular.ttf",
    "ClearSans-Bold.ttf",
    "ClearSans-Thin.ttf",
    "DejaVuMathTeXGyre.ttf",
    "DejaVuSans.ttf",
    "DejaVuSansMono.ttf",
    "FreeMono.ttf",
    "FreeMonoBold.ttf",
    "FreeSans.ttf",
    "FreeSansBold.ttf",
    "FreeSerif.ttf",
    "LiberationMono-Regular.ttf",
    "LiberationSans-Regular.ttf",
    "LiberationSerif-Regular.ttf",
)
"""Faces whose suits the drawn decks of new training scenes print (session 59; ``meldcam synth
--art wider``, :func:`datasets.drawn_cards.drawn_deck`'s ``pips``), one a deck, half the time
(``datasets.scene.OTHER_PIPS_SHARE``), as decks' pips differ: short fine-tunes taught drawn decks
so read the decks no model has seen better than the same scenes with every pip in
:data:`PIP_FONT` (``models/classifier.md``). Not ``FreeSerifBold``, whose spade is a club and
club a spade (``tests/datasets/test_drawn_pips.py``)."""
WIDER_PIP_FONT_PACKAGES = (
    "fonts-clear-sans",
    "fonts-dejavu-core",
    "fonts-dejavu-extra",
    "fonts-freefont-ttf",
    "fonts-liberation2",
)
HANDWRITING = ("ComicNeue-Regular.otf", "ComicNeue-Bold.otf", "DejaVuSans-Oblique.ttf")
"""Faces of the scores written on score pads (distractors)."""
HANDWRITING_PACKAGES = ("fonts-comic-neue", "fonts-dejavu-extra")


class MissingFontError(RuntimeError):
    """A face a list needs is not installed."""


@lru_cache(maxsize=1)
def font_files() -> dict[str, Path]:
    """Installed font files by file name."""
    found: dict[str, Path] = {}
    for root in FONT_DIRS:
        if root.is_dir():
            for path in sorted(root.rglob("*")):
                if path.suffix in (".ttf", ".otf"):
                    found.setdefault(path.name, path)
    return found


def index_fonts() -> tuple[str, ...]:
    """:data:`CLASSIC_FONTS`, or :class:`MissingFontError` saying what to install."""
    return _installed(CLASSIC_FONTS, CLASSIC_FONT_PACKAGES, "card index and tile number")


def held_out_fonts() -> tuple[str, ...]:
    """:data:`HELD_OUT_FONTS`, or :class:`MissingFontError` saying what to install."""
    return _installed(HELD_OUT_FONTS, HELD_OUT_FONT_PACKAGES, "held-out tile")


def wider_fonts() -> tuple[str, ...]:
    """:data:`WIDER_FONTS`, or :class:`MissingFontError` saying what to install."""
    return _installed(WIDER_FONTS, WIDER_FONT_PACKAGES, "wider tile")


def wider_pip_fonts() -> tuple[str, ...]:
    """:data:`WIDER_PIP_FONTS`, or :class:`MissingFontError` saying what to install."""
    return _installed(WIDER_PIP_FONTS, WIDER_PIP_FONT_PACKAGES, "drawn decks' suit")


def handwriting_fonts() -> tuple[str, ...]:
    """:data:`HANDWRITING`, or :class:`MissingFontError` saying what to install."""
    return _installed(HANDWRITING, HANDWRITING_PACKAGES, "handwriting")


def _installed(names: tuple[str, ...], packages: tuple[str, ...], what: str) -> tuple[str, ...]:
    """``names``, each of them installed, or :class:`MissingFontError` naming those missing and
    ``packages`` (see the module: a list is needed whole)."""
    files = font_files()
    missing = [n for n in names if n not in files]
    if missing:
        raise MissingFontError(
            f"the {what} fonts are missing ({', '.join(missing)}): install"
            f" {' '.join(packages)} (`make apt`, or apt-get install them)"
        )
    return names


def is_bold(name: str) -> bool:
    return any(h in name for h in BOLD_HINTS)


@lru_cache(maxsize=256)
def font(name: str, size: int) -> ImageFont.FreeTypeFont:
    path = font_files().get(name)
    if path is None:
        raise MissingFontError(f"the font {name} is not installed (`make apt` installs it)")
    return ImageFont.truetype(str(path), size)


def handwriting_font(size: int, pick: int) -> ImageFont.FreeTypeFont:
    names = handwriting_fonts()
    return font(names[pick % len(names)], size)
