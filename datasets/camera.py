"""A handheld phone over the table: pinhole camera, plane homography, and parallax of raised faces.

Table coordinates are canvas pixels on the table plane (x right, y towards side A, z up).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True, eq=False)
class Camera:
    """Maps table points to image pixels; ``centre`` is the lens in table coordinates."""

    homography: np.ndarray  # 3x3, table plane -> image
    centre: tuple[float, float, float]
    image_size: tuple[int, int]  # (width, height)
    tilt_deg: float
    yaw_deg: float

    def project(self, points: np.ndarray) -> np.ndarray:
        """Image positions of table-plane points (N, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        hom = np.c_[pts, np.ones(len(pts))] @ self.homography.T
        return np.asarray(hom[:, :2] / hom[:, 2:3])

    def unproject(self, points: np.ndarray) -> np.ndarray:
        """Table-plane points seen at image positions (N, 2)."""
        inv = np.linalg.inv(self.homography)
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        hom = np.c_[pts, np.ones(len(pts))] @ inv.T
        return np.asarray(hom[:, :2] / hom[:, 2:3])

    def parallax(self, at: tuple[float, float], height: float) -> tuple[float, float]:
        """Where a point ``height`` above table point ``at`` appears on the table plane."""
        cx, cy, cz = self.centre
        k = height / max(cz - height, 1e-6)
        return ((at[0] - cx) * k, (at[1] - cy) * k)

    def scale_at(self, point: tuple[float, float]) -> float:
        """Image pixels per table pixel near a table point."""
        p = np.array([point, (point[0] + 1.0, point[1]), (point[0], point[1] + 1.0)])
        q = self.project(p)
        return float(math.sqrt(abs(np.linalg.det(np.array([q[1] - q[0], q[2] - q[0]])))))


def _rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def make_camera(
    image_size: tuple[int, int],
    target: tuple[float, float],
    scale: float,
    tilt_deg: float,
    yaw_deg: float,
    hfov_deg: float = 68.0,
    principal_shift: tuple[float, float] = (0.0, 0.0),
) -> Camera:
    """A camera looking at ``target`` with ``scale`` image px per table px there.

    ``tilt_deg`` 0 looks straight down; positive tilts move the lens towards side A (+y) so
    the far side (-y) recedes towards the top of the photo. ``yaw_deg`` turns the table in the
    photo.
    """
    w, h = image_size
    f = 0.5 * w / math.tan(math.radians(hfov_deg) / 2)
    distance = f / scale
    k = np.array(
        [[f, 0, w / 2 + principal_shift[0]], [0, f, h / 2 + principal_shift[1]], [0, 0, 1]]
    )
    flip = np.diag([1.0, 1.0, -1.0])  # table z up -> camera z forward (looking down)
    rot = _rot_x(-math.radians(tilt_deg)) @ flip @ _rot_z(math.radians(yaw_deg))
    t3 = np.array([target[0], target[1], 0.0])
    trans = np.array([0.0, 0.0, distance]) - rot @ t3
    homography = k @ np.c_[rot[:, 0], rot[:, 1], trans]
    centre = -rot.T @ trans
    return Camera(
        homography / homography[2, 2],
        (float(centre[0]), float(centre[1]), float(centre[2])),
        (w, h),
        tilt_deg,
        yaw_deg,
    )
