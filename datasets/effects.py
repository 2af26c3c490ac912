"""Phone-photo effects in image space: uneven light, hand shadows, glare, white balance,
lens and motion blur, sensor noise. JPEG compression happens when the image is written."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import cv2
import numpy as np


def _smooth_field(rng: np.random.Generator, w: int, h: int, cells: int, amp: float) -> np.ndarray:
    small = rng.normal(0, amp, (cells, cells)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def lighting(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Exposure, a light gradient, low-frequency unevenness and a vignette: a float32 gain map
    at 1/8 of the ``w`` x ``h`` photo (it varies slowly; the caller scales it up)."""
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    grad = ((xx / w - 0.5) * np.cos(a) + (yy / h - 0.5) * np.sin(a)) * rng.uniform(0, 0.5)
    vign = 1 - rng.uniform(0, 0.35) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    gain = (rng.uniform(0.75, 1.2) + grad) * vign + _smooth_field(
        rng, grad.shape[1], grad.shape[0], 4, 0.06
    )
    return np.asarray(gain, np.float32)


def hand_shadow(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A soft shadow of a hand or phone entering from an edge: a gain map (1 = no shadow) at
    1/4 of the ``w`` x ``h`` photo (it is blurred far more than that)."""
    mask: np.ndarray = np.zeros((h // 4, w // 4), np.float32)
    edge = int(rng.integers(4))
    cx = rng.uniform(0, w // 4)
    cy = rng.uniform(0, h // 4)
    if edge == 0:
        cy = h // 4
    elif edge == 1:
        cx = w // 4
    elif edge == 2:
        cx = 0
    else:
        cy = 0
    axes = (int(rng.uniform(0.1, 0.3) * w / 4), int(rng.uniform(0.15, 0.4) * h / 4))
    cv2.ellipse(mask, (int(cx), int(cy)), axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(6, 20))
    return 1 - rng.uniform(0.2, 0.5) * mask


def glare(rng: np.random.Generator, w: int, h: int, glossy: np.ndarray) -> np.ndarray:
    """An additive specular highlight on glossy pieces (float32, 0..~120), ``w`` x ``h``.

    ``glossy`` (0..1) may be smaller than the photo (the scene gives it at half size): the
    highlight is made at its size and scaled up once, as it is soft anyway."""
    small: np.ndarray = np.zeros((h // 4, w // 4), np.float32)
    cx, cy = rng.uniform(0.1, 0.9) * w / 4, rng.uniform(0.1, 0.9) * h / 4
    axes = (int(rng.uniform(0.04, 0.18) * w / 4) + 1, int(rng.uniform(0.03, 0.12) * h / 4) + 1)
    cv2.ellipse(small, (int(cx), int(cy)), axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    small = cv2.GaussianBlur(small, (0, 0), max(axes) / 2)
    gh, gw = glossy.shape[:2]
    field = cv2.resize(small, (gw, gh)) * rng.uniform(40, 110)
    return np.asarray(cv2.resize(field * glossy, (w, h), interpolation=cv2.INTER_LINEAR))


def white_balance(rng: np.random.Generator) -> np.ndarray:
    warm = rng.normal(0, 0.07)
    tint = rng.normal(0, 0.03)
    return np.array([1 - warm, 1 + tint, 1 + warm], np.float32)  # BGR


def motion_kernel(rng: np.random.Generator, detail: float = 1.0) -> np.ndarray:
    """A straight smear of 3-9 px (times ``detail``) in any direction."""
    length = max(3, round(int(rng.integers(3, 10)) * detail))
    k = np.zeros((length, length), np.float32)
    a = rng.uniform(0, np.pi)
    c = (length - 1) / 2
    dx, dy = np.cos(a) * c, np.sin(a) * c
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return np.asarray(k / k.sum())


_NOISE_SIDE = 1536


@lru_cache(maxsize=1)
def _noise_bank() -> np.ndarray:
    """Unit Gaussian noise planes made once per process; photos take shifted windows of them."""
    rng = np.random.default_rng(20240601)
    return rng.standard_normal((2, _NOISE_SIDE, _NOISE_SIDE), dtype=np.float32)


def sensor_noise(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Unit per-pixel noise (h, w): a random window of the bank, flipped at random."""
    bank = _noise_bank()
    plane = bank[int(rng.integers(len(bank)))]
    if w > _NOISE_SIDE or h > _NOISE_SIDE:
        return rng.standard_normal((h, w), dtype=np.float32)
    y, x = int(rng.integers(0, _NOISE_SIDE - h + 1)), int(rng.integers(0, _NOISE_SIDE - w + 1))
    window = plane[y : y + h, x : x + w]
    return np.asarray(window[::-1] if rng.random() < 0.5 else window)


@lru_cache(maxsize=1)
def _chroma_bank() -> np.ndarray:
    """Unit colour noise, blotchy at 4 px (as a phone's chroma noise), made once per process."""
    rng = np.random.default_rng(20240602)
    small = rng.standard_normal((_NOISE_SIDE // 4, _NOISE_SIDE // 4, 3), dtype=np.float32)
    return cv2.resize(small, (_NOISE_SIDE, _NOISE_SIDE), interpolation=cv2.INTER_LINEAR)


def chroma_noise(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """(h, w, 3) colour noise: a random window of the bank (fresh noise for larger photos)."""
    if w > _NOISE_SIDE or h > _NOISE_SIDE:
        small = rng.standard_normal((h // 4 + 1, w // 4 + 1, 3), dtype=np.float32)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    y, x = int(rng.integers(0, _NOISE_SIDE - h + 1)), int(rng.integers(0, _NOISE_SIDE - w + 1))
    return _chroma_bank()[y : y + h, x : x + w]


def photo(
    rng: np.random.Generator,
    img: np.ndarray,
    glossy: Callable[[], np.ndarray],
    detail: float = 1.0,
) -> tuple[np.ndarray, dict[str, float | bool]]:
    """Turn a clean render into a phone photo (before JPEG); ``glossy`` gives the shiny areas
    (0..1, float32, the photo's size or smaller); the lens and motion blur are ``detail`` times
    as many pixels (a finer photo of the same scene). Also returns what was done to it, for the
    truth: the lens blur's sigma and the motion blur's length in photo pixels (0 when none),
    the sensor noise's sigma (grey levels), whether glare and a hand's shadow were added."""
    h, w = img.shape[:2]
    # the slowly varying gains (light, shadow, white balance) are combined at a quarter of the
    # size and scaled up once: one full-size multiply instead of one per effect
    quarter = (w // 4, h // 4)
    gain = cv2.resize(lighting(rng, w, h), quarter, interpolation=cv2.INTER_LINEAR)
    done: dict[str, float | bool] = {
        "blur_sigma": 0.0,
        "motion_px": 0.0,
        "noise_sigma": 0.0,
        "glare": False,
        "shadow": False,
    }
    if rng.random() < 0.3:
        gain *= hand_shadow(rng, w, h)
        done["shadow"] = True
    wb = white_balance(rng)
    gain3 = cv2.resize(cv2.merge([gain * wb[0], gain * wb[1], gain * wb[2]]), (w, h))
    out = cv2.multiply(img, gain3, dtype=cv2.CV_32F)
    if rng.random() < 0.4:
        out += glare(rng, w, h, glossy())[:, :, None]
        done["glare"] = True
    if rng.random() < 0.6:
        lens = float(rng.uniform(0.3, 1.3)) * detail
        out = cv2.GaussianBlur(out, (0, 0), lens)
        done["blur_sigma"] = round(lens, 3)
    if rng.random() < 0.12:
        kernel = motion_kernel(rng, detail)
        done["motion_px"] = float(kernel.shape[0])
        out = cv2.filter2D(out, -1, kernel)
    sigma = float(rng.uniform(0.5, 6))
    done["noise_sigma"] = round(sigma, 3)
    if rng.random() < 0.5:
        chroma = chroma_noise(rng, w, h)
        out = cv2.scaleAdd(chroma, sigma * 0.6, out)
    noise = sensor_noise(rng, w, h)
    out = cv2.scaleAdd(cv2.merge([noise, noise, noise]), sigma, out)
    return cv2.convertScaleAbs(out), done  # saturates to 0..255
