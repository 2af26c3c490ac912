"""Things that share the table with the pieces: score pads, coins, glasses, pens."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from datasets.fonts import handwriting_font
from datasets.kit import Builder


def score_pad(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    paper = tuple(
        int(v) for v in (rng.integers(235, 256), rng.integers(235, 256), rng.integers(200, 250))
    )
    img = Image.new("RGBA", (w, h), (*paper, 255))
    d = ImageDraw.Draw(img)
    step = max(6, h // 14)
    for y in range(step * 2, h, step):
        d.line((0, y, w, y), fill=(150, 170, 210, 255), width=1)
    d.line((w // 2, step, w // 2, h), fill=(200, 120, 120, 255), width=1)
    f = handwriting_font(max(6, int(step * 0.8)), int(rng.integers(3)))
    ink = (20, 30, int(rng.integers(60, 160)), 255)
    d.text((4, 2), "NOI", fill=ink, font=f)
    d.text((w // 2 + 4, 2), "LORO", fill=ink, font=f)
    for y in range(step * 2, h - step, step):
        for x0 in (4, w // 2 + 4):
            if rng.random() < 0.8:
                d.text((x0, y - step + 2), str(int(rng.integers(1, 300)) * 5), fill=ink, font=f)
    return np.asarray(img)[:, :, [2, 1, 0, 3]].copy()


def coin(rng: np.random.Generator, size: int) -> np.ndarray:
    gold = rng.random() < 0.5
    base = np.array([40, 160, 200] if gold else [170, 170, 170], np.float32)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    r = size / 2
    dist = np.hypot(xx - r, yy - r) / r
    shade = 0.75 + 0.35 * ((r - xx) + (r - yy)) / (2 * r)
    rim = np.where(dist > 0.85, 0.8, 1.0)
    img = np.zeros((size, size, 4), np.uint8)
    img[:, :, :3] = np.clip(base[None, None, :] * (shade * rim)[:, :, None], 0, 255)
    img[:, :, 3] = np.clip((1 - dist) * r * 2, 0, 1) * 255
    return img


def glass(size: int) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    r = size / 2
    dist = np.hypot(xx - r, yy - r) / r
    img = np.zeros((size, size, 4), np.uint8)
    img[:, :, :3] = 235
    alpha = np.where(dist < 1, 0.18 + 0.7 * np.exp(-(((dist - 0.93) / 0.04) ** 2)), 0)
    img[:, :, 3] = np.clip(alpha * 255, 0, 255)
    return img


def pen(rng: np.random.Generator, length: int) -> np.ndarray:
    w = max(3, length // 14)
    img = np.zeros((w, length, 4), np.uint8)
    img[:, :, :3] = rng.integers(0, 200, 3)
    img[:, :, 3] = 255
    img[:, : length // 6, :3] = 200
    shade = np.linspace(1.3, 0.6, w)[:, None, None]
    img[:, :, :3] = np.clip(img[:, :, :3] * shade, 0, 255).astype(np.uint8)
    return img


def add_distractors(b: Builder, piece_h: float, extent: tuple[float, float]) -> None:
    """Scatter a few table objects over an area ``extent`` (half width, half height)."""
    rng = b.rng
    ex, ey = extent

    def where() -> tuple[float, float]:
        return float(rng.uniform(-ex, ex)), float(rng.uniform(-ey, ey))

    if rng.random() < 0.35:
        w, h = int(piece_h * rng.uniform(0.9, 1.4)), int(piece_h * rng.uniform(1.3, 1.9))
        b.add(score_pad(rng, w, h), where(), float(rng.uniform(-40, 40)), shadow=0.3, kind="pad")
    for _ in range(int(rng.integers(0, 4)) if rng.random() < 0.35 else 0):
        size = int(piece_h * rng.uniform(0.2, 0.3))
        b.add(coin(rng, size), where(), 0.0, top=piece_h * 0.02, side_colour=(60, 90, 110),
              shadow=0.45, kind="coin")  # fmt: skip
    if rng.random() < 0.15:
        size = int(piece_h * rng.uniform(0.7, 0.95))
        b.add(glass(size), where(), 0.0, shadow=0.15, kind="glass")
    if rng.random() < 0.2:
        b.add(pen(rng, int(piece_h * 1.5)), where(), float(rng.uniform(0, 360)), top=piece_h * 0.05,
              side_colour=(40, 40, 40), shadow=0.4, kind="pen")  # fmt: skip
