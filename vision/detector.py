"""The coarse detector through onnxruntime: letterbox, run, decode, NMS -> :class:`Detections`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.afar import afar
from vision.detections import Detections
from vision.errors import ModelMissingError

STRIDE = 32


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How a photo was fitted into the network input: scale, then padding."""

    scale: float
    pad_x: int
    pad_y: int

    def to_photo(self, xyxy: np.ndarray) -> np.ndarray:
        pad = np.array([self.pad_x, self.pad_y, self.pad_x, self.pad_y], np.float32)
        return (xyxy - pad) / self.scale


def letterbox(image: np.ndarray, size: int) -> tuple[np.ndarray, Letterbox]:
    """Fit ``image`` so its long side is ``size``; pad the short side to a multiple of 32.

    Returns the (1, 3, H, W) float32 input in [0, 1] and the mapping back.
    """
    import cv2

    h, w = image.shape[:2]
    scale = size / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    tw, th = -(-nw // STRIDE) * STRIDE, -(-nh // STRIDE) * STRIDE
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else 1)
    canvas = np.full((th, tw, 3), 114, np.uint8)
    px, py = (tw - nw) // 2, (th - nh) // 2
    canvas[py : py + nh, px : px + nw] = resized
    tensor = canvas.transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return tensor, Letterbox(scale, px, py)


def decode_yolo(
    output: np.ndarray, conf: float | np.ndarray, iou: float, max_det: int = 600
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """YOLOv8 raw output (1, 4 + nc, A): boxes xyxy, scores, classes after class-agnostic NMS."""
    pred = output[0].T
    scores_all = pred[:, 4:]
    classes = scores_all.argmax(axis=1)
    scores = scores_all[np.arange(len(pred)), classes]
    floor = np.asarray(conf, np.float32)
    keep = scores > (floor[classes] if floor.ndim else floor)  # one threshold, or one per class
    pred, scores, classes = pred[keep], scores[keep], classes[keep]
    if not len(pred):
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
    cx, cy, w, h = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    idx = nms(xyxy, scores, iou, float(floor.min()), max_det)
    return xyxy[idx].astype(np.float32), scores[idx].astype(np.float32), classes[idx]


def nms(
    xyxy: np.ndarray, scores: np.ndarray, iou: float, floor: float = 0.0, top_k: int = 0
) -> np.ndarray:
    """Indexes of the boxes kept by class-agnostic non-maximum suppression, surest first."""
    import cv2

    xywh = np.concatenate([xyxy[:, :2], xyxy[:, 2:] - xyxy[:, :2]], axis=1)
    idx = cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), floor, iou, top_k=top_k)
    return np.asarray(idx, np.int64).reshape(-1)


def merge_readings(first: Detections, second: Detections, iou: float) -> Detections:
    """Two readings of one photo as one: class-agnostic NMS over both (a piece found in both
    keeps its surer box; one found in either is kept)."""
    if not len(first) or not len(second):
        return first if len(first) else second
    xyxy = np.concatenate([first.xyxy, second.xyxy])
    confidence = np.concatenate([first.confidence, second.confidence])
    idx = nms(xyxy, confidence, iou)
    return Detections.from_boxes(
        xyxy[idx], confidence[idx], np.concatenate([first.coarse, second.coarse])[idx]
    )


def make_session(path: Path, threads: int = 2, fused: bool = True) -> Any:
    """An onnxruntime session of the model at ``path``; with ``fused`` False its graph runs as
    stored, unoptimised: an int8 net's quantize / dequantize pairs then run around float
    operators, so every product of 8-bit values is summed whole on any CPU, as one with VNNI
    sums it (onnxruntime's fused int8 kernels saturate without VNNI)."""
    import onnxruntime as ort

    if not path.exists():
        raise ModelMissingError(f"no model at {path}: run `make train` or check out models/")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if fused
        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def median_piece(dets: Detections, scale: float) -> float:
    """The longer side of the median box of ``dets`` (photo pixels) in a network input that
    fitted the photo at ``scale``."""
    return float(np.median(dets.sizes.max(axis=1))) * scale


MIN_IMGSZ = 320
CLOSE_UP_KEEP = 0.5
"""A close-up's smaller reading is kept only if its median piece measures at least this share of
``piece_px`` in its input: the fitted pieces should measure about ``piece_px``, and boxes far
smaller are details of them. Session 23, the photos of the real tile set and of the synthetic
sets whose close-up re-read ran (1,037 of 4,839): where the smaller reading found more boxes,
their median was 29-48 px at a ``piece_px`` of 32 but in three photos. In two of them it had
taken the tiles' numbers for card corners (123 corners of 10 px against 28 tiles in a held-out
tile scene, 4 against 3 in another), and the tile scan read nothing; the third (3 corners of 18
px against 2 tiles, one of them true) stays as it was."""
MIN_ENLARGE = 1.0
"""A photo of small pieces is read again only when that enlarges it at least this much, and by
one stride at least. Measured in session 15 (``models/detector.md``, ``bench/framings.py``): the
real card fans framed as phone photos (56 photos, 2,492 cards) read F1 0.9554 / 0.9548 / 0.9523 /
0.9488 at 1.0 / 1.1 / 1.2 / 1.3, the difference in frames that ask for 1.05-1.3 times; the val
scenes read 607 / 605 / 606 / 606 of 860 melds exactly."""


class OnnxDetector:
    """The coarse detector, loaded once and reused for every photo.

    The detector learnt pieces of the size they have in a photo fitted into ``imgsz``. A close-up
    (a few big pieces) is read a second time, fitted smaller so that its median piece measures
    ``piece_px`` in the network's input; the reading that finds more pieces is kept. A photo
    whose median piece is under ``small_px`` (a whole table from afar) is read a second time
    enlarged so that it measures ``small_px``, up to ``max_imgsz`` (``afar_imgsz`` for a photo
    taken from afar that holds the detail: :meth:`enlarge_cap`), and the two readings are
    merged: small card corners are found there that the first reading misses or scores weakly,
    and the first keeps what the enlarged one misses (measured in ``models/detector.md``,
    session 9).
    """

    def __init__(
        self,
        path: Path,
        imgsz: int = 640,
        conf: float = 0.25,
        iou: float = 0.5,
        piece_px: float = 0.0,
        conf_tiles: float | None = None,
        small_px: float = 0.0,
        max_imgsz: int = 0,
        afar_imgsz: int = 0,
    ):
        self.session = make_session(path)
        self.input_name = self.session.get_inputs()[0].name
        self.metadata: dict[str, str] = dict(self.session.get_modelmeta().custom_metadata_map)
        self.imgsz = imgsz
        # per coarse class (card corner, card joker, tile, tile joker): tiles may have their own
        tiles = conf if conf_tiles is None else conf_tiles
        self.conf = np.array([conf, conf, tiles, tiles], np.float32)
        self.iou = iou
        self.piece_px = piece_px
        self.small_px = small_px
        self.max_imgsz = max_imgsz or imgsz
        self.afar_imgsz = afar_imgsz

    def detect(self, image: np.ndarray) -> Detections:
        dets, scale = self._detect_at(image, self.imgsz)
        if len(dets) == 0:
            return dets
        median = median_piece(dets, scale)
        if median < self.small_px and self.max_imgsz > self.imgsz:
            # small pieces (a whole table from afar): read again enlarged, up to max_imgsz
            want = self.imgsz * self.small_px / median
            bigger = min(self.enlarge_cap(image, median), round(want / STRIDE) * STRIDE)
            if bigger > self.imgsz and bigger >= MIN_ENLARGE * self.imgsz:
                return merge_readings(self._detect_at(image, bigger)[0], dets, self.iou)
            return dets
        if self.piece_px <= 0 or median <= 1.5 * self.piece_px:
            return dets
        smaller = max(MIN_IMGSZ, round(self.imgsz * self.piece_px / median / STRIDE) * STRIDE)
        if smaller >= self.imgsz:
            return dets
        again, again_scale = self._detect_at(image, smaller)
        if len(again) <= len(dets):
            return dets
        # more boxes, but far smaller than the pieces fitted: details of the pieces (a tile's
        # number taken for a card corner), not the pieces themselves
        fitted = median_piece(again, again_scale) >= CLOSE_UP_KEEP * self.piece_px
        return again if fitted else dets

    def enlarge_cap(self, image: np.ndarray, median: float) -> int:
        """How far a photo of small pieces may be enlarged for its second reading:
        ``max_imgsz``, or ``afar_imgsz`` for a photo whose median piece (``median`` px in the
        first reading's input) is under :data:`vision.afar.AFAR` of its long side where the
        photo as decoded is at least that long (no enlarging beyond its own detail)."""
        if (
            self.afar_imgsz > self.max_imgsz
            and afar(median / self.imgsz, "cards")
            and max(image.shape[:2]) >= self.afar_imgsz
        ):
            return self.afar_imgsz
        return self.max_imgsz

    def detect_at(self, image: np.ndarray, imgsz: int) -> Detections:
        """The photo read once, fitted into ``imgsz`` (no close-up logic)."""
        return self._detect_at(image, imgsz)[0]

    def _detect_at(self, image: np.ndarray, imgsz: int) -> tuple[Detections, float]:
        tensor, box = letterbox(image, imgsz)
        (output,) = self.session.run(None, {self.input_name: tensor})
        xyxy, scores, classes = decode_yolo(output, self.conf, self.iou)
        xyxy = box.to_photo(xyxy)
        h, w = image.shape[:2]
        xyxy = np.clip(xyxy, 0, [w, h, w, h]).astype(np.float32)
        return Detections.from_boxes(xyxy, scores, classes), box.scale
