"""Card faces drawn with installed fonts, so index styles vary beyond the Debian decks.

Each style number gives one deterministic deck (font, weight, index size and placement, paper
tint, red and black inks, court and joker designs) in the same atlas layout as
:mod:`datasets.card_art`, with its exact index box. Its suits and joker marks are printed in
:data:`datasets.fonts.PIP_FONT`, or, given faces to choose from (``pips``: new training scenes'
:data:`datasets.fonts.WIDER_PIP_FONTS`, session 59), in one of them.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from datasets.card_art import ATLAS_ROW, BACK_CELL, FACE_H, JOKER_CELLS, CardDeck
from datasets.fonts import PIP_FONT, font, index_fonts
from scorer.pieces import Rank, Suit
from vision.classes import RANKS, SUITS

DRAWN_STYLES = 16
PIP_CHAR = {
    Suit.SPADES: "\u2660",
    Suit.HEARTS: "\u2665",
    Suit.DIAMONDS: "\u2666",
    Suit.CLUBS: "\u2663",
}
# pip centres (x, y) in card fractions for ranks 2..10
L, M, R = 0.3, 0.5, 0.7
T, B = 0.22, 0.78
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    2: ((M, T), (M, B)),
    3: ((M, T), (M, 0.5), (M, B)),
    4: ((L, T), (R, T), (L, B), (R, B)),
    5: ((L, T), (R, T), (M, 0.5), (L, B), (R, B)),
    6: ((L, T), (R, T), (L, 0.5), (R, 0.5), (L, B), (R, B)),
    7: ((L, T), (R, T), (M, 0.36), (L, 0.5), (R, 0.5), (L, B), (R, B)),
    8: ((L, T), (R, T), (M, 0.36), (L, 0.5), (R, 0.5), (M, 0.64), (L, B), (R, B)),
    9: ((L, T), (R, T), (L, 0.41), (R, 0.41), (M, 0.5), (L, 0.59), (R, 0.59), (L, B), (R, B)),
    10: (
        *((L, T), (R, T), (M, 0.31), (L, 0.41), (R, 0.41)),
        *((L, 0.59), (R, 0.59), (M, 0.69), (L, B), (R, B)),
    ),
}


def _rgba(c: tuple[int, int, int]) -> tuple[int, int, int, int]:
    return (c[0], c[1], c[2], 255)


def pip_face(style: int, pips: tuple[str, ...] = ()) -> str:
    """The face of drawn deck ``style``'s suits and joker marks: :data:`PIP_FONT`, or one of
    ``pips`` (a step of 5 through them, so that 14 faces are each drawn by the 16 styles)."""
    return pips[(style * 5 + 3) % len(pips)] if pips else PIP_FONT


@lru_cache(maxsize=2 * DRAWN_STYLES)
def drawn_deck(style: int, pips: tuple[str, ...] = ()) -> CardDeck:
    """The drawn deck number ``style`` (0 <= style < DRAWN_STYLES), its suits and joker marks
    in :func:`pip_face`'s face. The same style with and without ``pips`` differs in those
    alone (its key says which: ``drawn/3`` or ``drawn/3/FreeSans``)."""
    pip_name = pip_face(style, pips)
    rng = np.random.default_rng([7919, style])
    fonts = index_fonts()
    fname = fonts[style % len(fonts)]
    w = int(FACE_H * rng.uniform(0.66, 0.72))
    h = FACE_H
    paper = tuple(int(v) for v in (255 - rng.integers(0, 14, 3) * np.array([0.3, 0.5, 1.0])))
    red = (int(rng.integers(170, 225)), int(rng.integers(0, 40)), int(rng.integers(20, 50)))
    black = (int(rng.integers(0, 35)),) * 3
    index_h = rng.uniform(0.10, 0.15) * h
    rank_font = font(fname, int(index_h))
    pip_font = font(pip_name, int(index_h * rng.uniform(0.7, 0.95)))
    margin_x = rng.uniform(0.035, 0.07) * w
    margin_y = rng.uniform(0.025, 0.05) * h
    radius = int(rng.uniform(0.04, 0.08) * w)
    court_fill = [tuple(int(v) for v in rng.integers(60, 230, 3)) for _ in range(3)]
    joker_kind = int(rng.integers(0, 3))

    faces: dict[tuple[int, int], Image.Image] = {}
    boxes: list[tuple[float, float, float, float]] = []
    for suit in SUITS:
        ink = red if suit in (Suit.HEARTS, Suit.DIAMONDS) else black
        for col, rank in enumerate(RANKS):
            img, box = _card(w, h, paper, ink, rank, suit, rank_font, pip_font, margin_x, margin_y)
            _court_or_pips(img, rank, suit, ink, court_fill, fname, box, pip_name)
            faces[(ATLAS_ROW[suit], col)] = img
            boxes.append(box)
    joker_boxes = []
    for (r, c), ink in zip(JOKER_CELLS, (black, red), strict=True):
        img, box = _joker(w, h, paper, ink, margin_x, margin_y, joker_kind, pip_name)
        faces[(r, c)] = img
        joker_boxes.append(box)
    faces[BACK_CELL] = _back(w, h, rng)

    atlas = np.zeros((5 * h, 13 * w, 4), np.uint8)
    for (r, c), img in faces.items():
        arr = np.asarray(img)
        mask = _rounded_mask(w, h, radius)
        arr = arr.copy()
        arr[:, :, 3] = np.minimum(arr[:, :, 3], mask)
        atlas[r * h : (r + 1) * h, c * w : (c + 1) * w] = arr[:, :, [2, 1, 0, 3]]
    arr_boxes = np.array(boxes)
    index_box = (
        float(arr_boxes[:, 0].min()),
        float(arr_boxes[:, 1].min()),
        float(arr_boxes[:, 2].max()),
        float(arr_boxes[:, 3].max()),
    )
    jb = np.array(joker_boxes)
    joker_box = (
        float(jb[:, 0].min()),
        float(jb[:, 1].min()),
        float(jb[:, 2].max()),
        float(jb[:, 3].max()),
    )
    key = f"drawn/{style}" if not pips else f"drawn/{style}/{pip_name.rsplit('.', 1)[0]}"
    return CardDeck(key, atlas, (w, h), index_box, joker_box, True)


def _rounded_mask(w: int, h: int, radius: int) -> np.ndarray:
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=255)
    return np.asarray(mask)


def _blank(w: int, h: int, paper: tuple[int, ...]) -> Image.Image:
    img = Image.new("RGBA", (w, h), (*paper[:3], 255))
    ImageDraw.Draw(img).rounded_rectangle(
        (0, 0, w - 1, h - 1), int(0.06 * w), outline=(150, 150, 150, 255), width=1
    )
    return img


def _index(
    img: Image.Image,
    text: str,
    pip: str,
    ink: tuple[int, int, int],
    rank_font: object,
    pip_font: object,
    mx: float,
    my: float,
) -> tuple[float, float, float, float]:
    """Draw the index top-left and, rotated, bottom-right; return its normalised box."""
    w, h = img.size
    layer = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(layer)
    rb = d.textbbox((mx, my), text, font=rank_font, anchor="lt")  # type: ignore[arg-type]
    d.text((mx, my), text, fill=_rgba(ink), font=rank_font, anchor="lt")  # type: ignore[arg-type]
    cx = (rb[0] + rb[2]) / 2
    d.text((cx, rb[3] + 0.012 * h), pip, fill=_rgba(ink), font=pip_font, anchor="mt")  # type: ignore[arg-type]
    bbox = layer.getbbox() or (0, 0, 1, 1)
    img.alpha_composite(layer)
    img.alpha_composite(layer.rotate(180))
    pad = 1.5
    return (
        (bbox[0] - pad) / w,
        (bbox[1] - pad) / h,
        (bbox[2] + pad) / w,
        (bbox[3] + pad) / h,
    )


def _card(
    w: int,
    h: int,
    paper: tuple[int, ...],
    ink: tuple[int, int, int],
    rank: Rank,
    suit: Suit,
    rank_font: object,
    pip_font: object,
    mx: float,
    my: float,
) -> tuple[Image.Image, tuple[float, float, float, float]]:
    img = _blank(w, h, paper)
    box = _index(img, str(rank), PIP_CHAR[suit], ink, rank_font, pip_font, mx, my)
    return img, box


def _court_or_pips(
    img: Image.Image,
    rank: Rank,
    suit: Suit,
    ink: tuple[int, int, int],
    fills: list[tuple[int, ...]],
    fname: str,
    box: tuple[float, float, float, float],
    pip_name: str = PIP_FONT,
) -> None:
    w, h = img.size
    d = ImageDraw.Draw(img)
    pip = PIP_CHAR[suit]
    if rank is Rank.ACE:
        f = font(pip_name, int(0.4 * h))
        d.text((w / 2, h / 2), pip, fill=_rgba(ink), font=f, anchor="mm")
        return
    if rank in (Rank.JACK, Rank.QUEEN, Rank.KING):
        x0, y0 = (box[2] + 0.02) * w, (box[1] + 0.03) * h
        frame = (x0, y0, w - x0, h - y0)
        d.rectangle(frame, outline=_rgba(ink), width=2)
        fill = fills[(RANKS.index(rank) + SUITS.index(suit)) % len(fills)]
        inner = (frame[0] + 5, frame[1] + 5, frame[2] - 5, frame[3] - 5)
        d.rectangle(inner, fill=(*fill[:3], 255))
        d.ellipse(
            (w * 0.38, h * 0.2, w * 0.62, h * 0.38),
            fill=(235, 200, 160, 255),
            outline=(0, 0, 0, 255),
        )
        f = font(fname, int(0.28 * h))
        d.text((w / 2, h * 0.58), str(rank), fill=_rgba(ink), font=f, anchor="mm")
        return
    f = font(pip_name, int(0.13 * h))
    for px, py in _PIPS[int(rank)]:
        d.text((px * w, py * h), pip, fill=_rgba(ink), font=f, anchor="mm")


def _joker(
    w: int,
    h: int,
    paper: tuple[int, ...],
    ink: tuple[int, int, int],
    mx: float,
    my: float,
    kind: int,
    pip_name: str = PIP_FONT,
) -> tuple[Image.Image, tuple[float, float, float, float]]:
    img = _blank(w, h, paper)
    layer = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(layer)
    small = font(pip_name, int(0.07 * h))
    y = my
    for ch in "JOKER":
        d.text((mx, y), ch, fill=_rgba(ink), font=small)
        y += 0.072 * h
    bbox = layer.getbbox() or (0, 0, 1, 1)
    img.alpha_composite(layer)
    img.alpha_composite(layer.rotate(180))
    dd = ImageDraw.Draw(img)
    if kind == 0:
        dd.text(
            (w / 2, h / 2),
            "\u2605",
            fill=_rgba(ink),
            font=font(PIP_FONT, int(0.45 * h)),  # the star: few faces have it
            anchor="mm",
        )
    elif kind == 1:
        dd.ellipse((w * 0.25, h * 0.32, w * 0.75, h * 0.68), outline=_rgba(ink), width=4)
        dd.ellipse((w * 0.37, h * 0.42, w * 0.44, h * 0.47), fill=_rgba(ink))
        dd.ellipse((w * 0.56, h * 0.42, w * 0.63, h * 0.47), fill=_rgba(ink))
        dd.arc((w * 0.35, h * 0.45, w * 0.65, h * 0.6), 20, 160, fill=_rgba(ink), width=4)
        dd.polygon(
            [(w * 0.25, h * 0.36), (w * 0.5, h * 0.15), (w * 0.75, h * 0.36)], fill=_rgba(ink)
        )
    else:
        f = font(pip_name, int(0.12 * h))
        dd.text((w / 2, h / 2), "JOKER", fill=_rgba(ink), font=f, anchor="mm")
    pad = 1.5
    return img, ((bbox[0] - pad) / w, (bbox[1] - pad) / h, (bbox[2] + pad) / w, (bbox[3] + pad) / h)


def _back(w: int, h: int, rng: np.random.Generator) -> Image.Image:
    colour = tuple(int(v) for v in rng.integers(20, 200, 3))
    img = Image.new("RGBA", (w, h), (250, 250, 250, 255))
    d = ImageDraw.Draw(img)
    m = int(0.06 * w)
    d.rectangle((m, m, w - m, h - m), fill=(*colour, 255))
    step = int(rng.integers(8, 16))
    light = tuple(min(255, c + 60) for c in colour)
    for k in range(-h, w + h, step):
        d.line((k, m, k + h, h), fill=(*light, 255), width=2)
    d.rectangle((0, 0, w, m), fill=(250, 250, 250, 255))
    d.rectangle((0, h - m, w, h), fill=(250, 250, 250, 255))
    d.rectangle((0, 0, m, h), fill=(250, 250, 250, 255))
    d.rectangle((w - m, 0, w, h), fill=(250, 250, 250, 255))
    return img
