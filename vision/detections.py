"""The one container of pieces seen in a photo, from the detector to the grouping.

Model outputs (onnxruntime arrays, ultralytics ``Results``) are converted into
:class:`Detections` once, at the edge (:meth:`Detections.from_yolo_rows`,
:meth:`Detections.from_ultralytics`); everything downstream takes this type. Filters return new
objects (``dets[dets.confidence > 0.5]``); ``Detections.empty()`` instead of ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.classes import COARSE, PIECES, PieceKind
from vision.errors import BadShapeError

NUM_FACES = PIECES.num_classes
FACE_CODES = tuple(PIECES.face(i).code for i in range(NUM_FACES))
"""Each face id's code (``PIECES.face`` looks the id up among all faces)."""


@dataclass(frozen=True, slots=True, eq=False)
class Detections:
    """N boxes in photo pixels with their coarse class and, once read, face probabilities.

    ``xyxy`` (N, 4) float32; ``confidence`` (N,) detector scores; ``coarse`` (N,) ids of the
    ``coarse`` scheme (card-corner, card-joker, tile, tile-joker); ``faces`` (N, 106)
    probabilities over the ``pieces`` scheme (zeros until the classifier has run); ``up`` (N,)
    the angle in radians of each piece's up direction in the photo (0 upright, pi upside down,
    y pointing down; NaN until read, or when the classifier has no such output).
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    coarse: np.ndarray
    faces: np.ndarray
    up: np.ndarray = None  # type: ignore[assignment]  # NaN for every box when not given

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        if self.up is None:
            object.__setattr__(self, "up", np.full(n, np.nan, np.float32))
        if self.up.shape != (n,):
            raise BadShapeError(f"up must be (N,) like xyxy, got {self.up.shape}")
        if self.xyxy.shape != (n, 4):
            raise BadShapeError(f"xyxy must be (N, 4), got {self.xyxy.shape}")
        if self.confidence.shape != (n,) or self.coarse.shape != (n,):
            raise BadShapeError("confidence and coarse must be (N,) like xyxy")
        if self.faces.shape != (n, NUM_FACES):
            raise BadShapeError(f"faces must be (N, {NUM_FACES}), got {self.faces.shape}")
        if n and (self.coarse.min() < 0 or self.coarse.max() >= COARSE.num_classes):
            raise BadShapeError("coarse ids outside the coarse scheme")

    @classmethod
    def empty(cls) -> Detections:
        return cls(
            np.zeros((0, 4), np.float32),
            np.zeros(0, np.float32),
            np.zeros(0, np.int64),
            np.zeros((0, NUM_FACES), np.float32),
        )

    @classmethod
    def from_boxes(cls, xyxy: np.ndarray, confidence: np.ndarray, coarse: np.ndarray) -> Detections:
        xyxy = np.asarray(xyxy, np.float32).reshape(-1, 4)
        return cls(
            xyxy,
            np.asarray(confidence, np.float32).reshape(-1),
            np.asarray(coarse, np.int64).reshape(-1),
            np.zeros((len(xyxy), NUM_FACES), np.float32),
        )

    @classmethod
    def from_ultralytics(cls, result: Any) -> Detections:
        """From one ultralytics ``Results`` of the coarse detector."""
        boxes = result.boxes
        return cls.from_boxes(
            boxes.xyxy.cpu().numpy(), boxes.conf.cpu().numpy(), boxes.cls.cpu().numpy()
        )

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: Any) -> Detections:
        if isinstance(index, int | np.integer):
            index = [int(index)]
        return Detections(
            self.xyxy[index],
            self.confidence[index],
            self.coarse[index],
            self.faces[index],
            self.up[index],
        )

    def with_faces(self, faces: np.ndarray, up: np.ndarray | None = None) -> Detections:
        """These boxes read: face probabilities and, when known, up angles."""
        up = self.up if up is None else np.asarray(up, np.float32).reshape(-1)
        return replace(self, faces=np.asarray(faces, np.float32), up=up)

    def joined(self, other: Detections) -> Detections:
        """These boxes, then ``other``'s."""
        return Detections(
            np.concatenate([self.xyxy, other.xyxy]),
            np.concatenate([self.confidence, other.confidence]),
            np.concatenate([self.coarse, other.coarse]),
            np.concatenate([self.faces, other.faces]),
            np.concatenate([self.up, other.up]),
        )

    def scaled(self, sx: float, sy: float) -> Detections:
        return replace(self, xyxy=self.xyxy * np.array([sx, sy, sx, sy], np.float32))

    @property
    def kind(self) -> np.ndarray:
        """(N,) bool: True where the piece is a tile."""
        return self.coarse >= 2

    @property
    def face_id(self) -> np.ndarray:
        """(N,) the most likely ``pieces`` id of each box (argmax of ``faces``)."""
        return self.faces.argmax(axis=1) if len(self) else np.zeros(0, np.int64)

    @property
    def face_confidence(self) -> np.ndarray:
        return self.faces.max(axis=1) if len(self) else np.zeros(0, np.float32)

    @property
    def read_confidence(self) -> np.ndarray:
        """(N,) the detector's confidence times the probability of the best face."""
        return np.asarray(self.confidence * self.face_confidence)

    def codes(self) -> list[str]:
        return [FACE_CODES[i] for i in self.face_id.tolist()]

    def piece_kind(self, i: int) -> PieceKind:
        return PieceKind.TILE if self.coarse[i] >= 2 else PieceKind.CARD

    @property
    def centres(self) -> np.ndarray:
        return np.asarray((self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2)

    @property
    def sizes(self) -> np.ndarray:
        """(N, 2) widths and heights."""
        return np.asarray(self.xyxy[:, 2:] - self.xyxy[:, :2])


def box_intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, M) area shared by the x1 y1 x2 y2 boxes ``a`` (N, 4) and ``b`` (M, 4)."""
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    return np.asarray(np.prod(np.clip(rb - lt, 0, None), axis=2))


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, M) intersection over union of the x1 y1 x2 y2 boxes ``a`` (N, 4) and ``b`` (M, 4)."""
    inter = box_intersection(a, b)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    return np.asarray(inter / (area_a[:, None] + area_b[None] - inter + 1e-9))
