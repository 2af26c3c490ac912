"""Whether the hand moved: motion blur told from the edges of the pieces a photo shows; and
whether the photo has colour at all (:func:`colour_level`, at the end).

A printed index or number has sharp edges every way. Lens blur widens them all alike; a hand
that moved while the photo was taken smears them along one direction only, and the whole photo
the same way. So each piece's edge width is measured along eight directions (its contrast over
its steepest slope that way, as a share of the piece's size), the median over the pieces taken
per direction, and the photo's shake is the widest of the eight over the narrowest: about 1.1
for the real photos, 1.3-2.6 for generated ones smeared by 3-9 px per 1280 (``datasets``'s
``motion_kernel``).

Measured (session 20; `bench/shake.py` prints these figures), with the truth of how far each
generated photo was smeared. Chosen on the val scenes (`syn_cards`, `syn_cards3`, `syn_tiles`,
`syn_tiles2` val: 270 photos, 48 smeared): no photo that was not smeared read above 1.50; the
real card fans read 1.08 and 1.10, the real tile val photos at most 1.49 (smeared 1/150 of their
width as `bench/conditions.py` does: tiles at most 1.56, the fans 2.23 and 2.83). At 1.6 for
cards, 17 of the 35 smeared card val scenes are flagged and no other; their melds read exactly
13 of 64 times, the other scenes' 472 of 628 (those left unflagged were smeared little for their
pieces' size). On the held-out scenes: `test_cards` 11 flagged (10 smeared), melds 14 of 23
against 438 of 603; `test_cards_12mp` 20 flagged (17 smeared), melds 33 of 71 against 478 of
574. Tile scenes that were not smeared read up to 1.89 (`test_tiles`), and smeared ones are
still read well (the 6 tile val scenes over 1.6 read 9 of 11 melds), so tiles are flagged only
from 2.0 (`test_tiles`: 1 photo, smeared; `test_tiles_12mp`: 3, smeared, their 3 melds read).
It costs 19-24 ms a 12 MP photo on 2 cores (`bench/scan.py`; 60 pieces at most).

A photo reported shaken is read again with the smear taken out (session 32, ``deblur_nsr`` in
``scanner.json``): the same edge widths, in pixels, say how long the smear was and which way it
went (:func:`smear`), and a Wiener filter deconvolves the photo by that line
(:func:`deconvolve`). The two real fans smeared by 8 px (`bench/conditions.py`'s motion) fit 7.2
and 6.8 px (:data:`SMEAR_GAIN` taken in) at 0 and -0.6 degrees, and read 83 cards right, 2 false
(F1 0.954) instead of 79 and 5 (0.913); deconvolved by the known smear (ratio 0.01), 86 and 2
(0.972). The noise-to-signal ratio was chosen on the smeared development scenes (truth
``motion_px`` > 0: `dev_cards` 27 photos, 7 reported shaken; `dev_cards_12mp` 29, 16), card F1
and melds read exactly, as read / 0.01 / 0.03 / **0.1**: 0.858 46 / 0.832 44 / 0.852 45 /
**0.858 50** of 77 and 0.871 67 / 0.831 63 / 0.856 64 / **0.868 67** of 103 (the fans: 0.966 /
0.966 / **0.954**). The generated scenes' smears come with lens blur, sensor noise and JPEG,
which a sharper filter sharpens too. Held out, the smeared photos of `test_cards` read F1 0.891
-> 0.892 and melds 36 -> 35 of 50, `test_cards_12mp` 0.805 -> 0.817 and 50 -> 48 of 86,
`test_decks` 0.816 -> 0.838 and 43 -> 44 of 91; the tiles (reported shaken from 2.0) `dev_tiles`
104 -> 105 of 109, `dev_tiles_12mp` 99 -> 102 of 109. So on generated scenes it is about even,
and on the real fans it wins back half of what the smear cost. Smeared 8 px other ways (a drawn
line, as the scenes smear), both fans together, right/false/missed as smeared -> taken out:
turned a quarter 84/0/5 -> 87/1/2, a half 82/3/7 -> 83/2/6, three quarters 83/3/6 -> 87/3/2;
smeared at 45 degrees 80/6/9 -> 85/1/4, at 90 82/2/7 -> 86/0/3; turned a quarter and smeared at
30 degrees 82/4/7 -> 80/4/9, the one way it lost. It costs the deconvolution (about 180 ms at
2016 px) and a second reading, on shaken photos only (the smeared fan as a 12 MP JPEG: 1.14 s in
all, 0.60 s of it this).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

SHAKEN = {"cards": 1.6, "tiles": 2.0}
"""A photo whose shake reaches this (by the kind of its pieces) is reported as shaken
(``ScanResult.shaken``). Tiles' numbers are large and read well even smeared, so only a far
worse smear is reported for them."""


def shaken(value: float, kind: str) -> bool:
    """Whether a photo of ``kind`` ("cards" or "tiles") with this shake is reported shaken."""
    return bool(value >= SHAKEN[kind])  # NaN (not measured) never is


COLOUR_SIDE = 256
"""The photo is measured for colour shrunk so its long side is this many pixels (averaged, so a
colour photo's noise does not read as colour and a piece's coloured ink still does)."""
COLOURLESS = 8.0
"""A photo whose colour (:func:`colour_level`) is under this is reported colourless: a black and
white photo, in which a red card reads as a black one and a tile's colour cannot be told.
Session 33: the 521 real photos here that show pieces, decoded as the scanner decodes them,
measure 46 and up as taken and 35 and up under each of `bench/conditions.py`'s conditions (35
half in a shadow, 45 in the dark room and under JPEG quality 25), every fifth photo of eight
generated sets 39 and up; the same real photos in grey measure 0 (as a grey JPEG too). The real
fans in grey read 50 cards right, 37 false (F1 0.568 against 0.994): every red card as a black
one. It costs about 7 ms a 12 MP photo (decoded at 2016 px)."""


def colour_level(image: np.ndarray) -> float:
    """How much colour an RGB photo holds: the 99.9th percentile, over its pixels shrunk to
    :data:`COLOUR_SIDE`, of the spread between a pixel's strongest and weakest channel (0 for a
    grey photo, up to 255)."""
    step = max(1, max(image.shape[:2]) // (2 * COLOUR_SIDE))
    image = image[::step, ::step]  # every step-th pixel first: a third of the time at 2016 px
    h, w = image.shape[:2]
    scale = COLOUR_SIDE / max(h, w)
    if scale < 1:
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    spread = image.max(axis=2).astype(np.int16) - image.min(axis=2)
    return float(np.percentile(spread, 99.9))


def colourless(level: float) -> bool:
    """Whether a photo of this :func:`colour_level` is reported colourless."""
    return bool(level < COLOURLESS)  # NaN (not measured) never is


ANGLES = np.radians(np.arange(0.0, 180.0, 22.5))
MIN_CONTRAST = 30.0
"""A piece whose grey levels span less than this (a blank, a shadowed corner) is not measured."""
MIN_PIECES = 3
MAX_PIECES = 60
"""At most this many pieces are measured (the largest): enough for a median, and cheap."""
PAD = 0.15
"""Each piece is measured in its box grown by this share of its size on every side."""
SIDE = 40.0
"""A piece larger than this (the square root of its box's area, in pixels) is measured shrunk
to it."""


def shake(image: np.ndarray, boxes: np.ndarray) -> float:
    """The photo's shake (widest over narrowest median edge width, 1 for no preference), from
    the pieces in ``boxes`` ((N, 4) x1 y1 x2 y2 in ``image``'s pixels; ``image`` RGB or grey);
    NaN when fewer than :data:`MIN_PIECES` pieces can be measured."""
    shares, _ = _edge_widths(image, boxes)
    if len(shares) < MIN_PIECES:
        return math.nan
    median = np.median(shares, axis=0)
    return float(median.max() / median.min())


def smear(image: np.ndarray, boxes: np.ndarray) -> tuple[float, float]:
    """The straight smear that best explains the pieces' edge widths: (its length in pixels of
    ``image``, its angle in radians from the x axis, y pointing down); (0, 0) when fewer than
    :data:`MIN_PIECES` pieces can be measured.

    A smear of length L at angle t widens an edge measured at angle a to about
    sqrt(w0^2 + L^2 cos^2(a - t)), w0 the edge's own width: the pieces' median width at each of
    the eight angles (in pixels), squared, is fitted by w0^2 + L^2/2 + L^2/2 cos 2(a - t), and
    the length is that fit's times :data:`SMEAR_GAIN`."""
    shares, sides = _edge_widths(image, boxes)
    if len(shares) < MIN_PIECES:
        return 0.0, 0.0
    squared = np.median(shares * sides[:, None], axis=0) ** 2
    b = 2 * float(np.mean(squared * np.cos(2 * ANGLES)))
    c = 2 * float(np.mean(squared * np.sin(2 * ANGLES)))
    return math.sqrt(2 * math.hypot(b, c)) * SMEAR_GAIN, math.atan2(c, b) / 2


MIN_SMEAR = 2.0
"""A smear shorter than this (pixels) is not taken out."""
SMEAR_GAIN = 1.1
"""The fitted length is short of the smear's (the steepest slope of an edge smeared by a box
is steeper than its width says where the edge was not a step): the two real fans smeared by 8
px fit 6.5 and 6.2 (session 32). Deconvolving by too long a smear costs far more than by too
short a one (the fans, a numpy Wiener filter of ratio 0.01 tried before :func:`deconvolve`,
card F1 by the length taken out: 6.5 px 0.943, 8 0.960, 9.5 0.894; 8 px turned 11 degrees
0.953, 9.5 turned so 0.561); 1.1 times the fit read them 0.960, the fit itself 0.949."""


def _edge_widths(image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per measured piece (the :data:`MAX_PIECES` largest with contrast), its edge width along
    each of :data:`ANGLES` as a share of its size ((M, 8)), and that size in pixels ((M,))."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    h, w = gray.shape[:2]
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    sides = np.sqrt(np.clip((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 0, None))
    cos, sin = np.cos(ANGLES)[:, None], np.sin(ANGLES)[:, None]
    widths, measured = [], []
    for k in np.argsort(-sides)[:MAX_PIECES]:
        side = float(sides[k])
        x1, y1, x2, y2 = boxes[k].tolist()
        pad = PAD * side
        a, b = max(0, math.floor(x1 - pad)), max(0, math.floor(y1 - pad))
        c, d = min(w, math.ceil(x2 + pad)), min(h, math.ceil(y2 + pad))
        if c - a < 6 or d - b < 6:
            continue
        patch = gray[b:d, a:c]
        size = side
        scale = SIDE / side
        if scale < 1:  # edge widths are measured as shares of the piece: the same at any size
            patch = cv2.resize(patch, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            side = SIDE
        patch = patch.astype(np.float32)
        values = patch.ravel()
        n = len(values)
        low, high = np.partition(values, (n // 50, n - 1 - n // 50))[[n // 50, n - 1 - n // 50]]
        contrast = float(high) - float(low)
        if contrast < MIN_CONTRAST:
            continue
        gx = cv2.Scharr(patch, cv2.CV_32F, 1, 0).ravel() / 32.0
        gy = cv2.Scharr(patch, cv2.CV_32F, 0, 1).ravel() / 32.0
        top = n - 1 - n // 100  # the 99th percentile: the steepest edges, not a stray pixel
        steepest = np.partition(np.abs(cos * gx + sin * gy), top, axis=1)[:, top]
        widths.append(contrast / np.maximum(steepest, 1e-3) / side)
        measured.append(size)
    return np.array(widths).reshape(-1, len(ANGLES)), np.array(measured, np.float32)


def line_kernel(length: float, angle: float) -> np.ndarray:
    """A straight smear of ``length`` pixels at ``angle`` (radians from x, y down) as a
    normalised (S, S) kernel, anti-aliased: a pixel weighs by how near the line it lies and,
    at the ends, by how much of it the line covers."""
    size = (math.ceil(length) | 1) + 2
    centre = (size - 1) / 2
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) - centre
    along = xx * math.cos(angle) + yy * math.sin(angle)
    across = -xx * math.sin(angle) + yy * math.cos(angle)
    weight = np.clip(1 - np.abs(across), 0, None) * np.clip(length / 2 + 0.5 - np.abs(along), 0, 1)
    return np.asarray(weight / weight.sum(), np.float32)


def deconvolve(image: np.ndarray, kernel: np.ndarray, nsr: float) -> np.ndarray:
    """``image`` (H, W, 3 or H, W uint8) with ``kernel``'s blur taken out by a Wiener filter
    of noise-to-signal ratio ``nsr`` (larger: less ringing and noise, less sharpening). The
    photo is mirrored at its borders first (three kernels wide), so they ring little."""
    pad = 3 * kernel.shape[0]
    h, w = image.shape[:2]
    fh, fw = cv2.getOptimalDFTSize(h + 2 * pad), cv2.getOptimalDFTSize(w + 2 * pad)
    # mirrored out to the transform's whole size: a border of zeros would ring across the photo
    padded = cv2.copyMakeBorder(image, pad, fh - h - pad, pad, fw - w - pad, cv2.BORDER_REFLECT)
    psf = np.zeros((fh, fw), np.float32)
    s = kernel.shape[0]
    psf[:s, :s] = kernel
    psf = np.roll(psf, (-(s // 2), -(s // 2)), axis=(0, 1))  # centred on the origin
    otf = cv2.dft(psf, flags=cv2.DFT_COMPLEX_OUTPUT)
    # conj(H) / (|H|^2 + nsr) as OpenCV's two-plane spectrum, times 1 + nsr: a flat place
    # (H 1 there) keeps its brightness
    power = (otf[..., 0] ** 2 + otf[..., 1] ** 2 + nsr) / (1 + nsr)
    wiener = np.stack([otf[..., 0] / power, -otf[..., 1] / power], axis=-1)
    planes = cv2.split(padded) if padded.ndim == 3 else [padded]
    out = []
    for plane in planes:
        spectrum = cv2.dft(plane.astype(np.float32), flags=cv2.DFT_COMPLEX_OUTPUT)
        spectrum = cv2.mulSpectrums(spectrum, wiener, 0)
        sharp = cv2.idft(spectrum, flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
        out.append(cv2.convertScaleAbs(sharp[pad : pad + h, pad : pad + w]))  # saturated
    return cv2.merge(out) if len(out) > 1 else out[0]
