"""The piece classifier through onnxruntime: crops in, probabilities over the 106 faces out.

The detector's coarse class says card or tile; the classifier then chooses among the faces of
that kind only (53 each: 52 + joker for cards, 52 + joker for tiles).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.classes import PIECES, PieceKind
from vision.crops import CROP_SIZE, cut_crops
from vision.detections import NUM_FACES, Detections
from vision.detector import make_session

CARD_MASK = np.array([PIECES.face(i).kind is PieceKind.CARD for i in range(NUM_FACES)])
MEAN = np.array([0.5, 0.5, 0.5], np.float32)
STD = np.array([0.25, 0.25, 0.25], np.float32)
BATCH = 64


def normalise(crops: np.ndarray) -> np.ndarray:
    """(N, S, S, 3) uint8 -> (N, 3, S, S) float32, as in training."""
    x = crops.astype(np.float32) / 255.0
    return ((x - MEAN) / STD).transpose(0, 3, 1, 2).copy()


def softmax_by_kind(logits: np.ndarray, is_tile: np.ndarray) -> np.ndarray:
    """Softmax over the faces of each row's kind (the other kind's faces get 0)."""
    allowed = np.where(is_tile[:, None], ~CARD_MASK[None], CARD_MASK[None])
    z = np.where(allowed, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


class OnnxClassifier:
    """The crop classifier, loaded once."""

    def __init__(self, path: Path):
        self.session = make_session(path)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        side = model_input.shape[-1]  # the crop side the model was trained on
        self.size = side if isinstance(side, int) else CROP_SIZE

    def logits(self, crops: np.ndarray) -> np.ndarray:
        out = [
            self.session.run(None, {self.input_name: normalise(crops[i : i + BATCH])})[0]
            for i in range(0, len(crops), BATCH)
        ]
        return np.concatenate(out) if out else np.zeros((0, NUM_FACES), np.float32)

    def read(self, image: np.ndarray, detections: Detections) -> Detections:
        """The detections with their face probabilities filled in."""
        if not len(detections):
            return detections
        crops = cut_crops(image, detections.xyxy, self.size)
        return detections.with_faces(softmax_by_kind(self.logits(crops), detections.kind))
