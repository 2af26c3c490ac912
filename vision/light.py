"""A photo taken under tinted light is balanced, a dark one brightened, a shadow evened out.

A home table is often lit by a warm lamp that the phone does not fully correct: a tile's white
face turns orange, a card's black suits brown and its red ones dull, and the detector finds
fewer pieces. Cards and tiles have white faces, the brightest things on the table, so the
photo's brightest pixels say what the light did to white (:func:`cast`). Where the brightest
channel's white stands more than ``CAST`` times above a weaker one's, that channel is raised
until it stands ``CAST`` times below (by ``MAX_GAIN`` at most): what is left is a cast the
models learnt (the real photos' whites measure 1.10 at the median, and the classifier trained
with gains of 0.8-1.2 per channel, `models/classifier.md`). A photo with less of a cast is read
as it is, and no channel is lowered.

A player's shadow over part of the table darkens the pieces there: each place is brightened by
the white of the pieces around it (:func:`even_out`). A photo taken in a dark room is brightened
as a whole until its whites read white (:func:`expose`); its noise rises with its light, so the
detector reads it smoothed (:func:`for_detector`: brightened and read sharp, its tiles were
lost, `bench/conditions.py` 0.939 -> 0.835), and the classifier reads it as brightened. A
grainy photo that needs no brightening is read smoothed by the detector too, where its noise
(:func:`noise_level`) is above what the detector learnt (:data:`NOISE_FLOOR`). The scanner does
these in that order (balance, shadow, dark, grain), each only where it is needed
(``scanner.json``: ``balance_cast``, ``shade_reach``, ``expose_white``, ``dark_blur`` and
``noise_floor``).

Session 17, `bench/conditions.py` (the real photos changed as a kitchen table would change
them), card / tile F1 under a tungsten lamp (green x0.82, blue x0.55): 0.914 / 0.997 as it
was, 0.954 / 1.000 balanced so. (With the whites taken as each channel's 99th percentile
instead, which takes in the felt around a few tiles: 0.960 / 0.998; made fully neutral 0.943 /
0.998; ``CAST`` 1.2: 0.943 / 1.000, 1.15: 0.954 / 1.000.) Of the 539 real photos one is
balanced (a tile photo of cast 1.35, by 4 % in one channel); the real sets read the same F1.
"""

from __future__ import annotations

import numpy as np

PERCENTILE = 99.9
NEAR_PEAK = 0.85
"""The pixels at least ``NEAR_PEAK`` as bright (by luma) as the photo's ``PERCENTILE``
percentile are taken for the white of the pieces: their mean colour is what the light made of
white. (A share of the brightest pixels would take in the table around a few tiles.)"""
CAST = 1.3
"""A photo is balanced when its brightest channel's white stands above its dimmest's by more
than this (the real photos here: 1.10 at the median, 1.35 at most)."""
MAX_GAIN = 1.8
"""No channel is raised more than this."""
SAMPLE = 4
"""Every SAMPLE-th row and column is enough to find the whites."""


def cast(image: np.ndarray) -> np.ndarray:
    """Per channel, the gain that would make the photo's whites neutral (1 for the brightest
    channel): the whites are the mean colour of the pixels near the photo's peak luma."""
    sample = image[::SAMPLE, ::SAMPLE].reshape(-1, image.shape[-1]).astype(np.float64)
    luma = sample @ np.array([0.299, 0.587, 0.114])
    top = sample[luma >= NEAR_PEAK * np.percentile(luma, PERCENTILE)].mean(axis=0)
    return np.asarray(np.maximum(top.max() / np.maximum(top, 1.0), 1.0))


def balance(image: np.ndarray, trigger: float = CAST) -> np.ndarray:
    """``image`` (H, W, 3) uint8 RGB with its cast brought down to ``trigger`` (see the
    module); the same array when its cast is within that."""
    import cv2

    gain = cast(image) / trigger
    if float(gain.max()) <= 1.0:
        return image
    gain = np.clip(gain, 1.0, MAX_GAIN)
    table = np.clip(np.arange(256)[:, None] * gain[None, :] + 0.5, 0, 255).astype(np.uint8)
    out = np.empty_like(image)
    for c in range(3):
        out[..., c] = cv2.LUT(np.ascontiguousarray(image[..., c]), table[:, c])
    return out


EXPOSE_WHITE = 200.0
"""A dark photo is brightened until its whites (:func:`exposure`) read this. The real photos'
whites read 240 at the median, 196 at the 1st percentile and 149 at the least (539 photos)."""
EXPOSE_SIDE = 256
"""The whites are the brightest spot of the photo seen this small (by area): averaging takes
out the sensor's noise, and a few pieces far off on a dark table still show as white spots (a
share of the brightest pixels would take in the table around them: a generated scene of four
tiles on black felt, its brightest pixel 252, read as whites 52 by the 99.5th percentile)."""
EXPOSE_MIN = 1.5
"""A photo is brightened only when that takes a gain above this: its whites under 133, darker
than any photo of the sets here (the 539 real photos' darkest read 149, the 4,000 generated
scenes' 177), which are all read as they are. (Whites taken as the 99.5th percentile and a gain
of 1.15 brightened a val tile scene, and a doubtful tile in it read otherwise.)"""
EXPOSE_MAX = 5.0
"""No photo is brightened more than this."""
DARK_BLUR = 0.8
"""A brightened photo's noise is raised with its light: the detector reads it smoothed by a
Gaussian of this sigma, in pixels of the detector's input."""


def exposure(
    image: np.ndarray, white: float = EXPOSE_WHITE, luma: np.ndarray | None = None
) -> float:
    """The gain that would bring the photo's whites (its brightest spot, by luma, seen
    ``EXPOSE_SIDE`` px long: ``luma``, :func:`small_luma` of ``image`` when the caller has it)
    to ``white``; 1 for a photo whose whites already read that."""
    luma = small_luma(image) if luma is None else luma
    return max(1.0, white / max(float(luma.max()), 1.0))


def expose(
    image: np.ndarray, white: float = EXPOSE_WHITE, luma: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """``image`` (H, W, 3) uint8 RGB brightened so its whites read ``white`` (by
    ``EXPOSE_MAX`` at most), and the gain; the same array and 1.0 when that takes
    ``EXPOSE_MIN`` or less. ``luma``: :func:`small_luma` of ``image``, where the caller has it.

    Session 18, `bench/conditions.py`: the real photos darkened (x0.35 with the sensor's noise)
    read card / tile F1 0.752 / 0.939 as they are; brightened for both models, tiles 0.835
    (session 17: the raised noise lost the detector its pieces); brightened, the detector
    reading it smoothed (:func:`for_detector`), 0.971 / 0.995; a fifth of the light 0.065 /
    0.254 -> 0.971 / 0.997."""
    gain = exposure(image, white, luma)
    if gain <= EXPOSE_MIN:
        return image, 1.0
    import cv2

    gain = min(gain, EXPOSE_MAX)
    table = np.clip(np.arange(256) * gain + 0.5, 0, 255).astype(np.uint8)
    return cv2.LUT(image, table), gain


def for_detector(image: np.ndarray, imgsz: int, sigma: float = DARK_BLUR) -> np.ndarray:
    """A brightened photo smoothed for the detector: a Gaussian of ``sigma`` pixels of the
    detector's input (fitted into ``imgsz``), so its raised noise does not read as edges."""
    import cv2

    scale = max(image.shape[:2]) / imgsz
    return cv2.GaussianBlur(image, (0, 0), sigma * max(scale, 1.0))


NOISE_FLOOR = 5.0
"""A photo whose sensor noise, as the detector sees it (:func:`noise_level`), has a sigma above
this (grey levels) is read by the detector smoothed (:func:`for_detector`), as a brightened one
is: a grainy photo the phone exposed for loses the detector its tiles, not its cards.

Session 32, the real tile val photos (every 2nd: 54 photos, 625 tiles) with grey noise added,
tile F1 as read sharp -> smoothed by ``DARK_BLUR`` (the noise level measured there): sigma 8
(4.7) 0.998 -> 1.000, 10 (5.7) 0.990 -> 1.000, 12 (6.9) 0.975 -> 0.999, 14 (7.9) 0.915 -> 0.999,
18 (10.1) 0.765 -> 0.998. The card corners are smaller and read best sharp: the two real fans
(1200 px, so fitted into the detector's 640 their noise halves; two draws, 178 cards) read card
F1 sharp -> smoothed 0.994 -> 0.983 as taken (2.7), 0.989 -> 0.983 at 4.9, 0.975 -> 0.977 at
5.8, 0.989 -> 0.983 at 6.7, 0.974 -> 0.977 at 7.6, 0.951 -> 0.980 at 8.4. No photo of the real
sets (539) or of the generated ones (6,920 in 20 sets) reads above 4.2 (the scenes' noise is
drawn at sigma 0.5-6 at 1280 px, and fitting them into 640 halves it), so nothing the models
were measured on is read otherwise. (Smoothed always, the fans as taken read 172 of 178 cards
instead of 176; reading both ways and merging, 174.)"""


def noise_level(image: np.ndarray, imgsz: int) -> float:
    """The sigma (grey levels) of the photo's sensor noise as the detector sees it, fitted into
    ``imgsz`` (by area): Immerkaer's second-difference kernel, which cancels on flat and evenly
    shaded places and responds 6 sigma strong to noise, its median response taken (the
    printed edges of the pieces, a few per cent of the pixels, do not move a median)."""
    import cv2

    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY) if image.ndim == 3 else image
    h, w = grey.shape
    f = imgsz / max(h, w)
    if f < 1:
        size = (max(3, round(w * f)), max(3, round(h * f)))
        grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
    grey = grey.astype(np.float32)
    response = cv2.filter2D(grey, -1, _SECOND_DIFFERENCE)[1:-1, 1:-1]
    return float(np.median(np.abs(response))) / (0.6745 * 6.0)


_SECOND_DIFFERENCE = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
"""Immerkaer (1996), "Fast noise variance estimation": zero on any plane, 36 = 6 squared the
sum of its squares (a median absolute deviation is 0.6745 of a Gaussian's sigma)."""


SHADE_REACH = 0.12
"""How far a piece's white is taken to light the table around it, as a share of the photo's
long side (a square of that side around each place, :func:`shade_gains`)."""
SHADE_ROOM = 1.6
"""A place is brightened only as far as to within this of the photo's whites: light that falls
off a little towards the edges is left as it is.

Session 18, `bench/conditions.py` (a player's shadow over half of each real photo, 0.4 of the
light): card / tile F1 0.941 / 0.990 as it was, 0.971 / 0.992 at 1.6, 0.983 / 0.995 at 1.3; the
real photos as taken and the real sets read the same either way. On the generated scenes (val /
held-out test melds read exactly, cards + tiles): as it was 470 + 158 / 441 + 437, at 1.3 the
same / 439 + 438, at 1.6 468 + 157 / 441 + 437; 1.3 also read the slanted fans 2 cards worse
(0.942 -> 0.923)."""
SHADE_MAX = 3.0
"""No place is brightened more than this."""


def shade_gains(
    image: np.ndarray, reach: float = SHADE_REACH, luma: np.ndarray | None = None
) -> np.ndarray:
    """Per pixel of the photo seen ``EXPOSE_SIDE`` px long, the gain that would bring the white
    of the pieces around it (the brightest luma within ``reach`` of the long side, smoothed) to
    within ``SHADE_ROOM`` of the photo's whites; 1 where it is within that already. ``luma``:
    :func:`small_luma` of ``image``, where the caller has it."""
    import cv2

    luma = small_luma(image) if luma is None else luma
    k = max(3, round(reach * max(luma.shape)) | 1)
    around = cv2.GaussianBlur(cv2.dilate(luma, np.ones((k, k), np.uint8)), (0, 0), k / 2)
    gain = float(luma.max()) / SHADE_ROOM / np.maximum(around, 1.0)
    return np.clip(gain, 1.0, SHADE_MAX)


def even_out(
    image: np.ndarray, reach: float = SHADE_REACH, luma: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """``image`` with the places in shadow brightened (:func:`shade_gains`), and the largest
    gain; the same array and 1.0 where no place is in shadow. ``luma``: :func:`small_luma` of
    ``image``, where the caller has it."""
    import cv2

    gains = shade_gains(image, reach, luma)
    top = float(gains.max())
    if top <= 1.0:
        return image, 1.0
    h, w = image.shape[:2]
    full = cv2.resize(gains, (w, h), interpolation=cv2.INTER_LINEAR)
    # rounded and saturated to 0-255 by OpenCV (a quarter of numpy's time), a channel at a time
    # (no three-channel float copy of the photo: 36 MB for a 12 MP photo decoded at half size)
    out = np.empty_like(image)
    for c in range(3):
        out[..., c] = cv2.multiply(np.ascontiguousarray(image[..., c]), full, dtype=cv2.CV_8U)
    return out, top


def small_luma(image: np.ndarray) -> np.ndarray:
    """The luma (H, W float32) of the photo seen ``EXPOSE_SIDE`` px long (by area), or of the
    photo as it is when smaller: what :func:`even_out` and :func:`expose` read a photo's whites
    on. Shrinking a 12 MP photo's half-size decode to it costs about 10 ms (session 44, 2 cores:
    more than shrinking it to 640 px), so the scanner takes it once for both where the shadow
    step leaves the photo as it was."""
    import cv2

    h, w = image.shape[:2]
    f = EXPOSE_SIDE / max(h, w)
    if f < 1:
        size = (max(1, round(w * f)), max(1, round(h * f)))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return image.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
