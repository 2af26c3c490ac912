"""Paint placed pieces onto the table plane, keeping an id buffer for occlusion bookkeeping.

Every placement is an RGBA sprite with an affine map onto the table canvas. Raised things
(tiles, card stacks, racks) have a ``top`` height: their face is drawn where the camera sees
it (parallax) and the swept side between the table and the face is painted in ``side_colour``.
Each painted pixel records the uid of the thing on top, so a label region's visible fraction is
counted exactly after everything is painted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import ArrayLike

from datasets.camera import Camera
from vision.classes import Face

Box = tuple[float, float, float, float]
# a pixel belongs to the topmost thing covering it at least this much (glass included)
OCCLUDING_ALPHA = 0.1


@dataclass(frozen=True, slots=True, eq=False)
class Placement:
    """One thing on the table: a piece, a card back, a rack or a distractor."""

    uid: int
    sprite: np.ndarray  # BGRA
    matrix: np.ndarray  # 2x3: sprite px -> table px, for the footprint on the table
    face: Face | None = None
    regions: tuple[tuple[str, Box], ...] = ()  # label regions in sprite-normalised coords
    base: float = 0.0  # height of the bottom above the table (table px)
    top: float = 0.0  # height of the face above the table
    side_colour: tuple[int, int, int] | None = None
    shadow: float = 0.35
    occludes: bool = True
    alpha_scale: float = 1.0
    info: dict[str, object] = field(default_factory=dict)

    @property
    def size(self) -> tuple[int, int]:
        return self.sprite.shape[1], self.sprite.shape[0]


def place_matrix(
    size: tuple[int, int], centre: tuple[float, float], angle_deg: float, scale: float = 1.0
) -> np.ndarray:
    """Affine map putting a sprite's centre at ``centre``, turned ``angle_deg`` clockwise."""
    w, h = size
    a = math.radians(angle_deg)
    c, s = math.cos(a) * scale, math.sin(a) * scale
    rot = np.array([[c, -s], [s, c]])
    t = np.array(centre) - rot @ np.array([w / 2, h / 2])
    return np.asarray(np.c_[rot, t])


def transform(matrix: np.ndarray, pts: ArrayLike) -> np.ndarray:
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    return np.asarray(pts @ matrix[:, :2].T + matrix[:, 2])


def shifted(matrix: np.ndarray, d: tuple[float, float]) -> np.ndarray:
    out = matrix.copy()
    out[:, 2] += d
    return out


def region_polygon(p: Placement, box: Box, matrix: np.ndarray | None = None) -> np.ndarray:
    w, h = p.size
    x0, y0, x1, y1 = box[0] * w, box[1] * h, box[2] * w, box[3] * h
    return transform(
        p.matrix if matrix is None else matrix, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    )


@dataclass(frozen=True, slots=True, eq=False)
class Painted:
    """Where a placement ended up: the face's affine map and the canvas ROI it touched."""

    face_matrix: np.ndarray  # 2x3 sprite -> canvas (after parallax, canvas origin applied)
    roi: tuple[int, int, int, int]  # x0, y0, x1, y1 in canvas px


@dataclass(frozen=True, slots=True, eq=False)
class Composite:
    canvas: np.ndarray  # BGR table plane
    ids: np.ndarray  # int32 uid on top at each pixel, -1 for the bare table
    origin: tuple[float, float]  # table coordinates of canvas pixel (0, 0)
    painted: dict[int, Painted]


def _line_kernel(d: tuple[float, float]) -> tuple[np.ndarray, tuple[int, int]]:
    dx, dy = round(d[0]), round(d[1])
    kw, kh = abs(dx) + 1, abs(dy) + 1
    kernel = np.zeros((kh, kw), np.uint8)
    ax, ay = (abs(dx) if dx >= 0 else 0), (abs(dy) if dy >= 0 else 0)
    cv2.line(kernel, (ax, ay), (ax - dx, ay - dy), 1, 1)
    return kernel, (ax, ay)


def _shift(a: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """``a`` moved by (dx, dy) whole pixels, zeros where nothing moved in."""
    h, w = a.shape[:2]
    out = np.zeros_like(a)
    if abs(dx) >= w or abs(dy) >= h:
        return out
    out[max(0, dy) : h + min(0, dy), max(0, dx) : w + min(0, dx)] = a[
        max(0, -dy) : h - max(0, dy), max(0, -dx) : w - max(0, dx)
    ]
    return out


def _bbox(pts: np.ndarray, pad: float, shape: tuple[int, int]) -> tuple[int, int, int, int] | None:
    x0 = max(0, math.floor(pts[:, 0].min() - pad))
    y0 = max(0, math.floor(pts[:, 1].min() - pad))
    x1 = min(shape[1], math.ceil(pts[:, 0].max() + pad) + 1)
    y1 = min(shape[0], math.ceil(pts[:, 1].max() + pad) + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def paint(
    background: np.ndarray,
    origin: tuple[float, float],
    placements: list[Placement],
    camera: Camera,
    light: tuple[float, float],
) -> Composite:
    """Paint ``placements`` in order onto a copy of ``background`` (table canvas)."""
    canvas = background.copy()
    ids = np.full(canvas.shape[:2], -1, np.int32)
    painted: dict[int, Painted] = {}
    for p in placements:
        result = _paint_one(canvas, ids, origin, p, camera, light)
        if result is not None:
            painted[p.uid] = result
    return Composite(canvas, ids, origin, painted)


def _paint_one(
    canvas: np.ndarray,
    ids: np.ndarray,
    origin: tuple[float, float],
    p: Placement,
    camera: Camera,
    light: tuple[float, float],
) -> Painted | None:
    w, h = p.size
    foot = shifted(p.matrix, (-origin[0], -origin[1]))
    centre = tuple(transform(p.matrix, [(w / 2, h / 2)])[0])
    d_base = camera.parallax(centre, p.base)
    d_top = camera.parallax(centre, p.top)
    base_m = shifted(foot, d_base)
    face_m = shifted(foot, d_top)
    corners = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float64)
    pts = np.vstack([transform(base_m, corners), transform(face_m, corners)])
    raised = p.top - p.base > 0.5
    shadow_len = 1.0 + 0.6 * p.top
    sd = (light[0] * shadow_len, light[1] * shadow_len)
    blur = 1.2 + 0.25 * p.top
    pad = 3 * blur + abs(sd[0]) + abs(sd[1]) + 2
    roi = _bbox(pts, pad, canvas.shape[:2])
    if roi is None:
        return None
    x0, y0, x1, y1 = roi
    rw, rh = x1 - x0, y1 - y0
    local_face = shifted(face_m, (-x0, -y0))
    warped = cv2.warpAffine(
        p.sprite, local_face, (rw, rh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    face_a = cv2.extractChannel(warped, 3).astype(np.float32)
    face_a *= p.alpha_scale / 255.0
    if raised:
        local_base = shifted(base_m, (-x0, -y0))
        foot_a = cv2.warpAffine(
            cv2.extractChannel(p.sprite, 3), local_base, (rw, rh), flags=cv2.INTER_LINEAR
        )
        kernel, anchor = _line_kernel((d_top[0] - d_base[0], d_top[1] - d_base[1]))
        body_a = cv2.dilate(foot_a, kernel, anchor=anchor).astype(np.float32) / 255.0
        body_a = np.maximum(body_a, face_a)
    else:
        body_a = face_a
    region = canvas[y0:y1, x0:x1]
    if p.shadow > 0:
        # blurred, then shifted by whole pixels: the half pixel lost is far under the blur
        shadow = _shift(cv2.GaussianBlur(body_a, (0, 0), blur), round(sd[0]), round(sd[1]))
        keep = 1.0 - p.shadow * shadow
        region[:] = cv2.blendLinear(region, region, keep, np.zeros_like(keep))
    if raised and p.side_colour is not None:
        side_a = np.clip(body_a - face_a, 0, 1)
        side = np.empty_like(region)
        side[:] = p.side_colour
        region[:] = cv2.blendLinear(side, region, side_a, 1.0 - side_a)
    rgb = cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR)
    region[:] = cv2.blendLinear(rgb, region, face_a, 1.0 - face_a)
    if p.occludes:
        ids[y0:y1, x0:x1][body_a > OCCLUDING_ALPHA] = p.uid
    return Painted(face_m, roi)


def visible_fraction(comp: Composite, p: Placement, box: Box) -> float:
    """Fraction of a label region of ``p`` that is on top in the id buffer (0 if off-canvas)."""
    painted = comp.painted.get(p.uid)
    if painted is None:
        return 0.0
    poly = region_polygon(p, box, painted.face_matrix)
    h, w = comp.ids.shape
    roi = _bbox(poly, 1, (h, w))
    full_area = abs(cv2.contourArea(poly.astype(np.float32)))
    if roi is None or full_area < 1:
        return 0.0
    x0, y0, x1, y1 = roi
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round(poly - (x0, y0)).astype(np.int32)], 1)
    total = int(mask.sum())
    if total == 0:
        return 0.0
    on_top = int((mask.astype(bool) & (comp.ids[y0:y1, x0:x1] == p.uid)).sum())
    # pixels off the canvas count as hidden
    return on_top / max(total, full_area)
