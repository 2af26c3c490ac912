"""Rummikub / Burako tile faces drawn procedurally.

A style number gives one deterministic tile set: ivory to cream body with rounded corners and a
bevel, numbers 1-13 in black, red, blue and yellow/orange in one font and weight, the underline
that tells 6 from 9, an optional circle or dot under the number, a faint maker's mark, and a
joker face (smiley, star or jester hat) in red and in black. Faces are BGRA, TILE_H px tall.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from datasets.fonts import PIP_FONT, font, held_out_fonts, index_fonts, is_bold, wider_fonts
from scorer.pieces import Colour
from vision.classes import COLOURS, NUMBERS

TILE_H = 160
TILE_STYLES = 24
CLASSIC_TILE_STYLES = tuple(range(TILE_STYLES))
"""The styles every set drew until session 31, and still draws unless told otherwise (so a
set made again from its seed is the same set): numbers in the bold faces of
:func:`datasets.fonts.index_fonts`."""
WIDER_TILE_STYLES = tuple(range(TILE_STYLES, 2 * TILE_STYLES))
"""Styles drawn as the classic ones are, their numbers in :data:`datasets.fonts.WIDER_FONTS`
alone (session 31): new training scenes draw them beside the classic ones
(``meldcam synth --art wider``)."""
TRAINED_TILE_STYLES = CLASSIC_TILE_STYLES + WIDER_TILE_STYLES
"""Every style a model may train on."""
HELD_OUT_TILE_STYLES = tuple(range(1000, 1024))
"""Styles that no model trains on (session 30): drawn as the others are, their numbers in the
fonts of :data:`datasets.fonts.HELD_OUT_FONTS` alone."""

_PALETTES: tuple[dict[Colour, tuple[int, int, int]], ...] = (
    {Colour.BLACK: (25, 25, 30), Colour.RED: (205, 30, 40), Colour.BLUE: (25, 85, 190),
     Colour.YELLOW: (240, 140, 20)},
    {Colour.BLACK: (10, 10, 10), Colour.RED: (220, 20, 60), Colour.BLUE: (0, 110, 200),
     Colour.YELLOW: (235, 180, 0)},
    {Colour.BLACK: (40, 35, 35), Colour.RED: (190, 40, 30), Colour.BLUE: (40, 60, 160),
     Colour.YELLOW: (245, 120, 40)},
    {Colour.BLACK: (20, 20, 20), Colour.RED: (230, 60, 60), Colour.BLUE: (30, 140, 220),
     Colour.YELLOW: (250, 165, 30)},
)  # fmt: skip


@dataclass(frozen=True, slots=True, eq=False)
class TileSet:
    """One style's faces: (colour, number) -> BGRA, plus the two jokers and a face-down back."""

    style: int
    faces: dict[tuple[Colour, int], np.ndarray]
    jokers: tuple[np.ndarray, np.ndarray]  # black, red
    back: np.ndarray
    side_colour: tuple[int, int, int]  # BGR of the tile's edge

    @property
    def size(self) -> tuple[int, int]:
        h, w = self.back.shape[:2]
        return w, h


@lru_cache(maxsize=2 * TILE_STYLES)
def tile_set(style: int) -> TileSet:
    rng = np.random.default_rng([104729, style])
    if style in HELD_OUT_TILE_STYLES:
        fonts = list(held_out_fonts())
    elif style in WIDER_TILE_STYLES:
        fonts = list(wider_fonts())
    else:
        fonts = [f for f in index_fonts() if is_bold(f)]
    fname = fonts[style % len(fonts)]
    h = TILE_H
    w = int(h * rng.uniform(0.7, 0.78))
    tint = rng.uniform(0, 1)
    body = (
        int(252 - 6 * tint),
        int(248 - 14 * tint),
        int(236 - 40 * tint),
    )  # RGB ivory..cream
    palette = _PALETTES[style % len(_PALETTES)]
    num_size = int(h * rng.uniform(0.42, 0.55))
    num_y = h * rng.uniform(0.36, 0.44)
    mark = int(rng.integers(0, 3))  # 0 circle, 1 dot, 2 none
    radius = int(w * rng.uniform(0.1, 0.18))
    joker_kind = int(rng.integers(0, 3))
    base = _body(w, h, body, radius)
    faces: dict[tuple[Colour, int], np.ndarray] = {}
    for colour in COLOURS:
        ink = palette[colour]
        for n in NUMBERS:
            img = base.copy()
            _number(img, str(n), ink, fname, num_size, num_y, mark, body)
            faces[(colour, n)] = _to_bgra(img)
    jokers = tuple(
        _to_bgra(_joker(base.copy(), ink, joker_kind))
        for ink in (palette[Colour.BLACK], (210, 25, 35))
    )
    side = tuple(int(v * 0.78) for v in body[::-1])
    return TileSet(style, faces, (jokers[0], jokers[1]), _to_bgra(base.copy()), side)  # type: ignore[arg-type]


def _to_bgra(img: Image.Image) -> np.ndarray:
    arr = np.asarray(img)
    return np.ascontiguousarray(arr[:, :, [2, 1, 0, 3]])


def _body(w: int, h: int, body: tuple[int, int, int], radius: int) -> Image.Image:
    """Rounded ivory body with a soft bevel: lighter top-left rim, darker bottom-right rim."""
    img = Image.new("RGBA", (w, h), (*body, 255))
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=255)
    arr = np.asarray(img).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dist = np.minimum.reduce([xx, yy, w - 1 - xx, h - 1 - yy])
    edge = np.clip(1 - dist / (0.09 * w), 0, 1) ** 1.5
    lit = ((w - xx) / w + (h - yy) / h) / 2  # 1 at top-left
    shade = 1 + edge * (lit - 0.55) * 0.5 - 0.04 * (yy / h)
    arr[:, :, :3] *= shade[:, :, None]
    arr[:, :, 3] = np.asarray(mask)
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGBA")


def _number(
    img: Image.Image,
    text: str,
    ink: tuple[int, int, int],
    fname: str,
    size: int,
    y: float,
    mark: int,
    body: tuple[int, int, int],
) -> None:
    w, h = img.size
    d = ImageDraw.Draw(img)
    f = font(fname, size if len(text) == 1 else int(size * 0.9))
    bb = d.textbbox((w / 2, y), text, font=f, anchor="mm")
    if bb[2] - bb[0] > 0.9 * w:
        f = font(fname, int(size * 0.9 * 0.9 * w / (bb[2] - bb[0])))
        bb = d.textbbox((w / 2, y), text, font=f, anchor="mm")
    # engraved look: a slightly lighter offset under the ink
    light = tuple(min(255, c + 8) for c in body)
    d.text((w / 2 + 1, y + 1), text, fill=(*light, 255), font=f, anchor="mm")
    d.text((w / 2, y), text, fill=(*ink, 255), font=f, anchor="mm")
    if text in ("6", "9"):
        uy = bb[3] + 0.025 * h
        inset = 0.1 * (bb[2] - bb[0])
        d.rectangle((bb[0] + inset, uy, bb[2] - inset, uy + 0.03 * h), fill=(*ink, 255))
    cy = h * 0.8
    if mark == 0:
        r = 0.11 * w
        ring = tuple(int(c * 0.9) for c in body)
        d.ellipse((w / 2 - r, cy - r, w / 2 + r, cy + r), outline=(*ring, 255), width=2)
    elif mark == 1:
        r = 0.05 * w
        d.ellipse((w / 2 - r, cy - r, w / 2 + r, cy + r), fill=(*ink, 255))


def _joker(img: Image.Image, ink: tuple[int, int, int], kind: int) -> Image.Image:
    w, h = img.size
    d = ImageDraw.Draw(img)
    fill = (*ink, 255)
    cx, cy = w / 2, h * 0.42
    if kind == 0:  # smiley
        r = 0.3 * w
        d.ellipse((cx - r, cy - r, cx + r, cy + r), outline=fill, width=max(2, int(0.04 * w)))
        e = 0.06 * w
        for ex in (cx - 0.12 * w, cx + 0.12 * w):
            d.ellipse((ex - e, cy - 0.1 * w - e, ex + e, cy - 0.1 * w + e), fill=fill)
        d.arc((cx - 0.18 * w, cy - 0.1 * w, cx + 0.18 * w, cy + 0.2 * w), 20, 160, fill=fill,
              width=max(2, int(0.04 * w)))  # fmt: skip
    elif kind == 1:  # star
        f = font(PIP_FONT, int(0.62 * w))
        d.text((cx, cy), "\u2605", fill=fill, font=f, anchor="mm")
    else:  # jester hat over a face
        r = 0.22 * w
        d.ellipse((cx - r, cy - r + 0.1 * h, cx + r, cy + r + 0.1 * h), outline=fill, width=3)
        d.polygon([(cx - 0.32 * w, cy), (cx, cy - 0.28 * h), (cx + 0.32 * w, cy)], fill=fill)
        for bx in (cx - 0.32 * w, cx, cx + 0.32 * w):
            by = cy if bx != cx else cy - 0.28 * h
            d.ellipse((bx - 5, by - 5, bx + 5, by + 5), fill=fill)
    return img.filter(ImageFilter.SMOOTH) if kind == 2 else img


def tile_thickness(size: tuple[int, int]) -> float:
    """Tile thickness in the same px as its face height (a real tile: ~20% of its height)."""
    return 0.19 * size[1]


def rack_face(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A two-tier tile rack seen from above (BGRA)."""
    wood = rng.integers(0, 2) == 0
    if wood:
        colour = np.array([40, 90, 150]) + rng.integers(-20, 20, 3)
    else:
        colour = np.array(rng.choice([[60, 60, 60], [150, 60, 30], [40, 40, 160], [30, 120, 40]]))
    img = np.zeros((h, w, 4), np.uint8)
    img[:, :, :3] = np.clip(colour, 0, 255)
    img[:, :, 3] = 255
    shade = np.linspace(1.15, 0.75, h)[:, None, None]
    img[:, :, :3] = np.clip(img[:, :, :3] * shade, 0, 255).astype(np.uint8)
    ledge = int(h * 0.48)
    img[ledge : ledge + max(2, h // 20), :, :3] = (img[ledge, 0, :3] * 0.55).astype(np.uint8)
    if wood:
        noise = cv2.resize(rng.normal(0, 1, (h // 4 + 1, 6)).astype(np.float32), (w, h))
        img[:, :, :3] = np.clip(img[:, :, :3] + noise[:, :, None] * 10, 0, 255).astype(np.uint8)
    return img
