"""The piece classifier through onnxruntime: crops in, probabilities over the 106 faces out.

The detector's coarse class says card or tile; the classifier then chooses among the faces of
that kind only (53 each: 52 + joker for cards, 52 + joker for tiles).

A crop the classifier is unsure of is read again turned half round, and the two readings'
logits averaged: a card's two corner indexes are half turns of each other and tiles lie both
ways up on a table, so the turned crop is a second look at the same face. Measured with session
2's model on crops of the true boxes: real tiles 0.976 -> 0.989, synthetic card corners 0.857 ->
0.878, synthetic tiles 0.960 -> 0.970. A crop still unsure is read turned a quarter each way
too (:data:`LOOKS`, session 23).

A model trained since session 3 has three more outputs after the 106 face logits:

* "not a piece": the classifier drops what the detector found that is no piece at all (a pip,
  a court card's picture, a card back, a score pad); trained on such detections mined from the
  scenes and the real tile photos;
* the crop's up direction as (cos, sin) of its angle in the photo, from which the scanner tells
  which side of the table a meld faces. Each view's direction is turned back before the views
  are averaged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from vision.classes import PIECES, PieceKind
from vision.crops import CROP_SIZE, MARGIN, cut_crops
from vision.detections import NUM_FACES, Detections
from vision.detector import make_session
from vision.errors import BadShapeError

CARD_MASK = np.array([PIECES.face(i).kind is PieceKind.CARD for i in range(NUM_FACES)])
MEAN = np.array([0.5, 0.5, 0.5], np.float32)
STD = np.array([0.25, 0.25, 0.25], np.float32)
BATCH = 64
LOOKS: tuple[tuple[int, ...], ...] = ((0,), (2,), (1, 3))
"""The quarter turns a crop is read at, look by look: every crop is read as cut; a crop read
less surely than :data:`SECOND_LOOK` after the first look (:data:`THIRD_LOOK` after the second)
is read at the next look's turns too, and the logits of all its views are averaged. The
classifier learnt crops turned every quarter turn."""
VIEWS = tuple(k for look in LOOKS for k in look)
"""Every quarter turn a crop may be read at."""
SECOND_LOOK = 0.9
"""A crop whose reading is less sure than this (top probability among its kind's faces
and "not a piece") is read again turned. Measured on true crops: the same accuracy as reading
every crop twice (real tiles 0.995, synthetic cards 0.886, synthetic tiles 0.983) for a second
look at 19 %, 44 % and 17 % of them."""
THIRD_LOOK = 0.9
"""A crop whose first two looks together read less surely than this is read turned a quarter
each way too. Session 23, fp32 classifier, chosen on the development scenes (melds read
exactly; crops read there, and on the bench's fan and tiled fan):

* two looks, as before: `dev_cards` 467 of 632 (15,385 crops; fan 103, tiled 364),
  `dev_tiles` 728 of 758, `dev_tiles_12mp` 733 of 761;
* a third look at quarter turns below 0.9: 477 (23,162; 143, 499), 731, 732;
* the same, places looked at for a missing corner (:mod:`vision.gaps`) read at two looks: 476
  (21,546);
* one quarter turn below 0.9: 475 (19,276; 123, 430);
* both quarter turns below **0.7**: 474 (20,182; 121, 411), 731, 732;
* both below 0.5: 468 (18,013).

Session 23 took 0.7, which kept most of the gain for fewer crops when a crop cost about 1.2 ms
(the tiled fan, a table from afar, took 1.01 s against 0.96 s with two looks). With the int8
classifier (session 24, a crop about 0.35 ms) 0.9 is served: `dev_cards` 474 -> 478,
`dev_tiles` 730 -> 731, `dev_tiles_12mp` 732 -> 732, the real fans 0.983 either way; 0.95 read
the same as 0.9."""
NOT_A_PIECE = NUM_FACES
"""Output index of the "not a piece" logit (models since session 3)."""
ORIENT_OUTPUTS = 2
"""(cos, sin) of the up angle, after the "not a piece" logit."""
FULL_OUTPUTS = NUM_FACES + 1 + ORIENT_OUTPUTS
DROP = 0.5
"""A detection whose "not a piece" probability is above this is dropped."""


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
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


def piece_probabilities(
    logits: np.ndarray, none: np.ndarray, is_tile: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(face probabilities within each row's kind, probability of "not a piece") from the face
    logits and the "not a piece" logit, one softmax over the kind's faces and that logit."""
    allowed = np.where(is_tile[:, None], ~CARD_MASK[None], CARD_MASK[None])
    z = np.concatenate([np.where(allowed, logits, -np.inf), none[:, None]], axis=1)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(axis=1, keepdims=True)
    return softmax_by_kind(logits, is_tile), p[:, -1].astype(np.float32)


@dataclass(frozen=True, slots=True)
class Reading:
    """What the classifier says of N crops (views averaged)."""

    logits: np.ndarray
    """(N, 106) face logits."""
    none: np.ndarray
    """(N,) "not a piece" logits (-inf for a model without that output)."""
    up: np.ndarray
    """(N,) up angles in radians (NaN for a model without that output)."""


class OnnxClassifier:
    """The crop classifier, loaded once; it cuts a card's crop ``margin`` beyond its box (a
    share of the box's side) and a tile's ``tile_margin`` (the same when not given)."""

    def __init__(self, path: Path, margin: float = MARGIN, tile_margin: float | None = None):
        self.path = path
        self.margin = margin
        self.tile_margin = margin if tile_margin is None else tile_margin
        self.session = make_session(path)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        side = model_input.shape[-1]  # the crop side the model was trained on
        self.size = side if isinstance(side, int) else CROP_SIZE
        width = self.session.get_outputs()[0].shape[-1]
        if width not in (NUM_FACES, FULL_OUTPUTS):
            raise BadShapeError(
                f"{path}: a classifier gives {NUM_FACES} or {FULL_OUTPUTS} outputs, not {width}"
            )
        self.full = width == FULL_OUTPUTS
        """Whether the model has the "not a piece" and up outputs."""

    def outputs(self, crops: np.ndarray) -> np.ndarray:
        """Raw outputs: face logits, then "not a piece" and (cos, sin) of the up angle if the
        model has them."""
        out = [
            self.session.run(None, {self.input_name: normalise(crops[i : i + BATCH])})[0]
            for i in range(0, len(crops), BATCH)
        ]
        width = FULL_OUTPUTS if self.full else NUM_FACES
        return np.concatenate(out) if out else np.zeros((0, width), np.float32)

    def logits(self, crops: np.ndarray) -> np.ndarray:
        return self.outputs(crops)[:, :NUM_FACES]

    def _views(self, crops: np.ndarray, views: tuple[int, ...]) -> np.ndarray:
        """(len(views), N, outputs): the crops' outputs at each of ``views`` quarter turns."""
        turned = [np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2))) for k in views]
        return self.outputs(np.concatenate(turned)).reshape(len(views), len(crops), -1)

    def _reading(self, out: np.ndarray, views: tuple[int, ...]) -> Reading:
        """The views' outputs averaged (each view's up direction turned back first)."""
        n = out.shape[1]
        logits = out[:, :, :NUM_FACES].mean(axis=0)
        if not self.full:
            return Reading(logits, np.full(n, -np.inf, np.float32), np.full(n, np.nan))
        none = out[:, :, NOT_A_PIECE].mean(axis=0)
        # np.rot90 from rows towards columns turns a direction by -90 degrees (y points down):
        # view k's angle plus k quarter turns is the crop's own
        angle = np.arctan2(out[:, :, NOT_A_PIECE + 2], out[:, :, NOT_A_PIECE + 1])
        angle += np.array(views, np.float32)[:, None] * (np.pi / 2)
        up = np.angle(np.exp(1j * angle).mean(axis=0)).astype(np.float32)
        return Reading(logits, none, up)

    def turned_read(self, crops: np.ndarray, views: tuple[int, ...] = VIEWS) -> Reading:
        """The crops read at each of ``views`` quarter turns, the views averaged."""
        return self._reading(self._views(crops, views), views)

    def read(
        self,
        image: np.ndarray,
        detections: Detections,
        presence: bool = False,
        looks: int = len(LOOKS),
    ) -> Detections:
        """The detections that are pieces, with their face probabilities and up angles.

        Every crop is read as cut; only those read with less than :data:`SECOND_LOOK`
        certainty are read again turned half round, and those still unsure turned a quarter
        each way (:data:`LOOKS`), their views averaged; ``looks`` stops after that many of
        them. With ``presence``, each kept box's confidence becomes the probability that it is
        a piece (for boxes no detector scored).
        """
        if not len(detections):
            return detections
        margins = np.where(detections.kind, self.tile_margin, self.margin)
        crops = cut_crops(image, detections.xyxy, self.size, margins)
        outputs = self._views(crops, LOOKS[0])
        seen = LOOKS[0]
        reading = self._reading(outputs, seen)
        faces, none = piece_probabilities(reading.logits, reading.none, detections.kind)
        unsure = np.arange(len(crops))
        for look, floor in zip(LOOKS[1:looks], (SECOND_LOOK, THIRD_LOOK), strict=False):
            sure = np.maximum(faces[unsure].max(axis=1) * (1 - none[unsure]), none[unsure])
            unsure = unsure[sure < floor]
            if not len(unsure):
                break
            outputs = np.concatenate([outputs[:, sure < floor], self._views(crops[unsure], look)])
            seen = seen + look
            again = self._reading(outputs, seen)
            reading.logits[unsure], reading.none[unsure] = again.logits, again.none
            reading.up[unsure] = again.up
            faces, none = piece_probabilities(reading.logits, reading.none, detections.kind)
        keep = none <= DROP
        read = detections.with_faces(faces, reading.up)
        if presence:
            read = replace(read, confidence=(1 - none).astype(np.float32))
        return read[keep]
