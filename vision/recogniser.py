"""The piece classifier through onnxruntime: crops in, probabilities over the 106 faces out.

The detector's coarse class says card or tile; the classifier then chooses among the faces of
that kind only (53 each: 52 + joker for cards, 52 + joker for tiles).

Each crop is read twice, as cut and turned half round, and the two readings' logits averaged: a
card's two corner indexes are half turns of each other and tiles lie both ways up on a table,
so the turned crop is a second look at the same face. Measured on crops of the true boxes
(session 3): real tiles 0.976 -> 0.989, synthetic card corners 0.857 -> 0.878, synthetic tiles
0.960 -> 0.970, for twice the classifier's time (a few ms per photo).

A model trained since session 3 has two more outputs after the face logits: the crop's up
direction as (cos, sin) of its angle in the photo, from which the grouping tells which side of
the table a meld faces. Each view's direction is turned back before the views are averaged.
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
VIEWS = (0, 2)
"""Quarter turns each crop is read at; their logits are averaged."""
ORIENT_OUTPUTS = 2
"""(cos, sin) of the up angle, after the face logits, in models that learnt it."""


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
        outputs = self.session.get_outputs()[0].shape[-1]
        self.reads_up = outputs == NUM_FACES + ORIENT_OUTPUTS
        """Whether the model learnt the up direction."""

    def outputs(self, crops: np.ndarray) -> np.ndarray:
        """Raw outputs: the face logits, then (cos, sin) of the up angle if the model has them."""
        out = [
            self.session.run(None, {self.input_name: normalise(crops[i : i + BATCH])})[0]
            for i in range(0, len(crops), BATCH)
        ]
        width = NUM_FACES + (ORIENT_OUTPUTS if self.reads_up else 0)
        return np.concatenate(out) if out else np.zeros((0, width), np.float32)

    def logits(self, crops: np.ndarray) -> np.ndarray:
        return self.outputs(crops)[:, :NUM_FACES]

    def turned_read(
        self, crops: np.ndarray, views: tuple[int, ...] = VIEWS
    ) -> tuple[np.ndarray, np.ndarray]:
        """(face logits, up angles) averaged over the crops turned by each of ``views``
        quarter turns; the angles are NaN when the model has no up output."""
        turned = [np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2))) for k in views]
        out = self.outputs(np.concatenate(turned)).reshape(len(views), len(crops), -1)
        logits = out[:, :, :NUM_FACES].mean(axis=0)
        if not self.reads_up:
            return logits, np.full(len(crops), np.nan, np.float32)
        # np.rot90 from rows towards columns turns a direction by -90 degrees (y points down):
        # view k's angle plus k quarter turns is the crop's own
        angle = np.arctan2(out[:, :, NUM_FACES + 1], out[:, :, NUM_FACES])
        angle += np.array(views, np.float32)[:, None] * (np.pi / 2)
        mean = np.exp(1j * angle).mean(axis=0)
        return logits, np.angle(mean).astype(np.float32)

    def turned_logits(self, crops: np.ndarray, views: tuple[int, ...] = VIEWS) -> np.ndarray:
        """Logits averaged over the crops turned by each of ``views`` quarter turns."""
        return self.turned_read(crops, views)[0]

    def read(self, image: np.ndarray, detections: Detections) -> Detections:
        """The detections with their face probabilities (and up angles) filled in."""
        if not len(detections):
            return detections
        crops = cut_crops(image, detections.xyxy, self.size)
        logits, up = self.turned_read(crops)
        return detections.with_faces(softmax_by_kind(logits, detections.kind), up)
