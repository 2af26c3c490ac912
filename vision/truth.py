"""Reading the per-image JSON truth that ``meldcam synth`` writes (and the real YOLO labels)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from vision.classes import PIECES
from vision.facing import FACINGS, facing


@dataclass(frozen=True, slots=True)
class TruthBox:
    code: str
    is_tile: bool
    box: tuple[float, float, float, float]
    uid: int  # physical piece (-1 when unknown)


@dataclass(frozen=True, slots=True)
class Truth:
    """One photo's labelled boxes, its physical pieces' codes and its melds (codes, in order)."""

    image: Path
    boxes: tuple[TruthBox, ...]
    pieces: tuple[str, ...]
    melds: tuple[tuple[str, ...], ...]
    meld_uids: tuple[tuple[int, ...], ...]
    meld_facing: tuple[str | None, ...] = ()
    """Per meld, the side it faces (from its pieces' true angles), when the truth says."""
    areas: dict[int, str] = field(default_factory=dict)
    """Per physical piece (uid), where it lies when the truth says: meld, hand, discard..."""
    unscored_uids: tuple[tuple[int, ...], ...] = ()
    """The melds left out of ``melds``: a piece of each is labelled nowhere (hidden under
    another, or too little of its index shows), so no reading of it is scored."""
    partly: tuple[TruthBox, ...] = ()
    """Corners and tile faces the photo shows in part, left unlabelled: at least
    ``PARTLY_VISIBLE`` of the region on top and half of it inside the photo, but too little
    (or too small) to be asked of the scanner. A reading of one with its code is neither right
    nor wrong (``meldcam eval``)."""
    deck: str = ""
    """The card deck the scene was dealt from, when the truth says (``family/name``, as
    ``meldcam synth`` draws it): ``meldcam eval`` counts each deck's melds apart."""


PARTLY_VISIBLE = 0.25


def read_synth_truth(path: Path) -> Truth:
    """A ``truth/*.json`` of ``meldcam synth``: labels (readable boxes), pieces and melds."""
    data = json.loads(path.read_text())
    boxes = tuple(
        TruthBox(
            str(label["code"]),
            label["piece_kind"] == "tile",
            tuple(float(v) for v in label["box"]),  # type: ignore[arg-type]
            int(label["uid"]),
        )
        for label in data["labels"]
    )
    seen: dict[int, str] = {}
    for b in boxes:
        seen.setdefault(b.uid, b.code)
    readable = set(seen)
    up = {int(p["uid"]): up_angle(p["polygon"]) for p in data.get("pieces", [])}
    areas = {int(p["uid"]): str(p["area"]) for p in data.get("pieces", []) if p.get("area")}
    melds = []
    uids = []
    facings = []
    unscored = []
    for meld in data.get("melds", []):
        ids = tuple(int(u) for u in meld["pieces"])
        if all(u in readable for u in ids):
            melds.append(tuple(seen[u] for u in ids))
            uids.append(ids)
            facings.append(facing(up.get(u, math.nan) for u in ids))
        else:
            unscored.append(ids)
    partly = tuple(
        TruthBox(str(p["code"]), p.get("kind") == "tile", tuple(r["box"]), int(p["uid"]))
        for p in data.get("pieces", [])
        if int(p["uid"]) not in readable
        for r in p.get("regions", [])
        if r.get("box") is not None and r["visible"] >= PARTLY_VISIBLE and r["inside"] >= 0.5
    )
    return Truth(
        path.parent.parent / data["image"],
        boxes,
        tuple(seen[u] for u in sorted(seen)),
        tuple(melds),
        tuple(uids),
        tuple(facings),
        areas,
        tuple(unscored),
        partly,
        str(data.get("style", {}).get("deck", "")),
    )


def up_angle(polygon: list[list[float]]) -> float:
    """A piece's up angle (as :mod:`vision.facing` takes it) from its polygon's first edge."""
    (x0, y0), (x1, y1) = polygon[:2]
    return math.atan2(y1 - y0, x1 - x0)


def read_yolo_truth(image: Path, label: Path, size: tuple[int, int]) -> Truth:
    """A photo with YOLO labels in the ``pieces`` scheme (each box one physical piece unless
    the set is cards, where both corners of a card may be boxed: their codes still count once
    per box, as the real card set's labels do not say which corners belong together)."""
    w, h = size
    boxes = []
    rows = [r.split() for r in label.read_text().splitlines() if r.strip()]
    for k, row in enumerate(rows):
        c, cx, cy, bw, bh = int(row[0]), *(float(v) for v in row[1:5])
        face = PIECES.face(c)
        boxes.append(
            TruthBox(
                face.code,
                face.kind.value == "tile",
                ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h),
                k,
            )
        )
    return Truth(image, tuple(boxes), tuple(b.code for b in boxes), (), ())


def turn_truth(truth: Truth, turns: int, width: int, height: int) -> Truth:
    """The truth of a ``width`` x ``height`` photo turned ``turns`` quarter turns
    counter-clockwise (as ``np.rot90``): its boxes move with the photo, and a meld that faced
    the photographer (the bottom edge) faces the edge that bottom went to."""
    boxes, partly = list(truth.boxes), list(truth.partly)
    w, h = width, height
    for _ in range(turns % 4):
        # a quarter turn counter-clockwise takes (x, y) to (y, w - x); the photo becomes h x w
        boxes = [replace(b, box=(b.box[1], w - b.box[2], b.box[3], w - b.box[0])) for b in boxes]
        partly = [replace(b, box=(b.box[1], w - b.box[2], b.box[3], w - b.box[0])) for b in partly]
        w, h = h, w
    facings = tuple(
        None if side is None else FACINGS[(FACINGS.index(side) - turns) % 4]
        for side in truth.meld_facing
    )
    return replace(truth, boxes=tuple(boxes), partly=tuple(partly), meld_facing=facings)


def truth_arrays(truth: Truth) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """(centres, sizes, codes, is_tile) of the truth boxes, as the grouping takes them."""
    xyxy = np.array([b.box for b in truth.boxes], np.float32).reshape(-1, 4)
    return (
        (xyxy[:, :2] + xyxy[:, 2:]) / 2,
        xyxy[:, 2:] - xyxy[:, :2],
        [b.code for b in truth.boxes],
        np.array([b.is_tile for b in truth.boxes], bool),
    )
