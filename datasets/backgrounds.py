"""Procedural table surfaces: wood, felt, cloth patterns, plastic, marble, cork, linoleum.

Everything is drawn from numpy noise at reduced resolution and scaled up; nothing is downloaded.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

# unit per-pixel noise is a window of the photo effects' noise bank: drawing fresh Gaussian
# numbers cost a third of a surface's time
from datasets.effects import sensor_noise

Surface = Callable[[np.random.Generator, int, int], np.ndarray]


_TWO_STAGE_CELL = 32
"""Noise coarser than this is scaled up cubically to 1/4 size, then linearly: cubic resizing
from a tiny grid is ~10x slower than linear, and at 1/4 size the field's features still span
8+ px, so the linear step changes it by well under 1 %."""


def _noise(rng: np.random.Generator, w: int, h: int, cell: int) -> np.ndarray:
    small = rng.normal(0, 1, (max(2, h // cell + 2), max(2, w // cell + 2))).astype(np.float32)
    if cell < _TWO_STAGE_CELL or min(w, h) < 64:
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    quarter = cv2.resize(small, (w // 4, h // 4), interpolation=cv2.INTER_CUBIC)
    return cv2.resize(quarter, (w, h), interpolation=cv2.INTER_LINEAR)


def _fractal(rng: np.random.Generator, w: int, h: int, base: int, octaves: int = 4) -> np.ndarray:
    out = np.zeros((h, w), np.float32)
    amp, cell = 1.0, base
    for _ in range(octaves):
        out += amp * _noise(rng, w, h, max(2, cell))
        amp *= 0.5
        cell //= 2
    return out / 1.9


def _tint(gray: np.ndarray, colour: np.ndarray, spread: float) -> np.ndarray:
    """``colour * (1 + spread * gray)`` per channel, saturated to uint8."""
    gray = np.asarray(gray, np.float32)
    channels = [
        cv2.addWeighted(gray, float(c) * spread, gray, 0.0, float(c), dtype=cv2.CV_8U)
        for c in colour
    ]
    return cv2.merge(channels)


# BGR: red, blue, green, yellow, brown, grey check / stripe colours
_CLOTH = (
    [40, 40, 180],
    [150, 80, 30],
    [50, 120, 40],
    [60, 190, 220],
    [40, 70, 110],
    [120, 120, 120],
)
# BGR: white, light grey, beige, black, dark green, cream
_PLASTIC = ([235, 235, 235], [190, 190, 185], [170, 200, 215], [40, 40, 40], [50, 80, 40])


def wood(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    palettes = ([40, 75, 120], [25, 50, 85], [70, 120, 170], [50, 95, 150], [95, 145, 190])
    colour = np.array(palettes[rng.integers(len(palettes))], np.float32) * rng.uniform(0.85, 1.15)
    vertical = rng.random() < 0.5
    ww, hh = (h, w) if vertical else (w, h)
    yy = np.arange(hh, dtype=np.float32)[:, None]
    warp = _fractal(rng, ww, hh, max(8, hh // 3)) * rng.uniform(10, 40)
    freq = rng.uniform(0.05, 0.2)
    grain = np.sin((yy + warp) * freq) * 0.5 + _fractal(rng, ww, hh, 6, 2) * 0.25
    streak = cv2.resize(rng.normal(0, 1, (hh, max(2, ww // 60))).astype(np.float32), (ww, hh))
    gray = 0.12 * grain + 0.1 * streak
    if rng.random() < 0.6:  # planks
        plank = int(rng.integers(hh // 6 + 1, hh // 2 + 2))
        gray[(np.arange(hh) % plank) < 2, :] -= 0.5
    img = _tint(gray, colour, 1.0)
    return np.ascontiguousarray(np.rot90(img)) if vertical else img


def felt(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    palettes = ([40, 110, 30], [90, 60, 20], [40, 40, 140], [30, 80, 20], [60, 60, 60])
    colour = np.array(palettes[rng.integers(len(palettes))], np.float32) * rng.uniform(0.8, 1.3)
    gray = 0.25 * _fractal(rng, w, h, 60, 3) + 0.12 * sensor_noise(rng, w, h)
    return _tint(gray, colour, 0.5)


def cloth(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Gingham, stripes or dotted cloth, slightly wrinkled."""
    a = np.array([245, 245, 240], np.float32) * rng.uniform(0.8, 1.0)
    b = np.array(_CLOTH[rng.integers(len(_CLOTH))], np.float32) * rng.uniform(0.8, 1.1)
    period = int(rng.integers(12, 60))
    # coordinates broadcast as a row and a column: the (h, w) plane is made only once
    xx = np.arange(w, dtype=np.int32)[None, :]
    yy = np.arange(h, dtype=np.int32)[:, None]
    kind = int(rng.integers(3))
    if kind == 0:
        m = (((xx // period) % 2) + ((yy // period) % 2)).astype(np.float32) / 2
    elif kind == 1:
        m = np.broadcast_to(((xx // period) % 2).astype(np.float32), (h, w))
    else:
        dx = ((xx % period) - period / 2).astype(np.float32) ** 2
        dy = ((yy % period) - period / 2).astype(np.float32) ** 2
        m = ((dx + dy) < (period / 4) ** 2).astype(np.float32)
    wrinkle = 1 + 0.08 * _fractal(rng, w, h, 80, 2)
    weave = 1 + 0.04 * sensor_noise(rng, w, h)
    shade = cv2.multiply(wrinkle, weave)
    # a * (1 - m) + b * m, times the shade, per channel, saturated to uint8
    channels = [
        cv2.multiply((float(ca) + float(cb - ca) * m).astype(np.float32), shade, dtype=cv2.CV_8U)
        for ca, cb in zip(a, b, strict=True)
    ]
    return cv2.merge(channels)


def plastic(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    colour = np.array(_PLASTIC[rng.integers(len(_PLASTIC))], np.float32) * rng.uniform(0.85, 1.1)
    gray = 0.04 * _fractal(rng, w, h, 100, 2) + 0.015 * sensor_noise(rng, w, h)
    return _tint(gray, colour, 1.0)


def marble(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """White marble with a few soft grey veins."""
    base = np.array([232, 233, 230], np.float32) * rng.uniform(0.88, 1.0)
    n = _fractal(rng, w, h, max(w, h) // 3, 5)
    diag = (
        np.linspace(0, rng.uniform(2, 5), w)[None, :]
        + np.linspace(0, rng.uniform(1, 3), h)[:, None]
    )
    veins = np.abs(np.sin((n * rng.uniform(0.3, 0.6) + diag) * np.pi))
    dark: np.ndarray = np.exp(-((veins / 0.05) ** 2)).astype(np.float32)
    dark = cv2.GaussianBlur(dark, (0, 0), 1.2)
    gray = -0.45 * dark + 0.025 * n
    return _tint(gray.astype(np.float32), base, 1.0)


def cork(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    colour = np.array([90, 140, 185], np.float32) * rng.uniform(0.85, 1.1)
    speck: np.ndarray = rng.normal(0, 1, (h // 2 + 1, w // 2 + 1)).astype(np.float32)
    speck = cv2.resize(speck, (w, h), interpolation=cv2.INTER_NEAREST)
    gray = 0.12 * speck + 0.06 * _fractal(rng, w, h, 40, 3)
    return _tint(gray, colour, 1.0)


SURFACES: tuple[tuple[str, Surface, float], ...] = (
    ("wood", wood, 3.0),
    ("felt", felt, 2.0),
    ("cloth", cloth, 2.0),
    ("plastic", plastic, 1.0),
    ("marble", marble, 0.5),
    ("cork", cork, 0.7),
)


def table_surface(rng: np.random.Generator, w: int, h: int) -> tuple[str, np.ndarray]:
    """A random surface of ``w`` x ``h`` (BGR), drawn at <= 900 px and scaled up."""
    weights = np.array([s[2] for s in SURFACES])
    name, surface, _ = SURFACES[int(rng.choice(len(SURFACES), p=weights / weights.sum()))]
    shrink = max(2.0, max(w, h) / 900)
    sw, sh = max(16, round(w / shrink)), max(16, round(h / shrink))
    img = surface(rng, sw, sh)
    return name, cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
