"""Training sets built from ``meldcam synth`` / ``meldcam import-real`` folders (``pieces`` scheme).

* the detector set: the same images (linked), labels mapped to the ``coarse`` scheme;
* the classifier set: every labelled box cut square (with a margin, axis-aligned, exactly as the
  scanner cuts a detection) and resized to a small square, stored as one ``.npz``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from vision.classes import COARSE, PIECES
from vision.crops import STORE_MARGIN, STORE_SIZE, cut_crops
from vision.detections import NUM_FACES, box_intersection
from vision.errors import UnreadablePhotoError
from vision.truth import up_angle

SPLITS = ("train", "val")
EVAL_ONLY_PREFIXES = ("card-fans__",)
"""Real photos never trained on: the two card fans are the cards' only real test."""


def labelled_photos(root: Path, split: str) -> Iterable[tuple[Path, Path]]:
    """Each photo of ``root``'s ``split`` that may be trained on (never the card fans:
    :data:`EVAL_ONLY_PREFIXES`) with the path of its labels (which may not exist)."""
    images = root / "images" / split
    if not images.is_dir():
        return
    for image in sorted(images.iterdir()):
        if image.suffix.lower() in (".jpg", ".jpeg", ".png") and not image.name.startswith(
            EVAL_ONLY_PREFIXES
        ):
            yield image, root / "labels" / split / f"{image.stem}.txt"


def read_labels(path: Path) -> np.ndarray:
    """YOLO rows ``class cx cy w h`` (normalised) as an (N, 5) float array."""
    if not path.exists():
        return np.zeros((0, 5), np.float32)
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return np.array([[float(v) for v in r[:5]] for r in rows], np.float32).reshape(-1, 5)


def pixel_boxes(rows: np.ndarray, w: int, h: int) -> np.ndarray:
    """(N, 4) pixel boxes x1 y1 x2 y2 of YOLO rows in a ``w`` x ``h`` image."""
    cx, cy, bw, bh = rows[:, 1] * w, rows[:, 2] * h, rows[:, 3] * w, rows[:, 4] * h
    return np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)


def _prepare(out: Path) -> None:
    for split in SPLITS:
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)


def _coarse_yaml(out: Path) -> Path:
    names = ", ".join(f'"{n}"' for n in COARSE.names)
    yaml = out / "data.yaml"
    yaml.write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\n"
        f"nc: {COARSE.num_classes}\nnames: [{names}]\n"
    )
    return yaml


def build_detector_set(sources: Sequence[tuple[Path, Sequence[str]]], out: Path) -> Path:
    """Link the images of ``sources`` (folder, splits to take) into ``out`` with coarse labels.

    A source's ``train`` split may be sent to ``val`` and back by listing e.g. ``("val",)``.
    """
    coarse = np.array([COARSE.class_id(PIECES.face(i)) for i in range(PIECES.num_classes)])
    _prepare(out)
    for root, splits in sources:
        for split in splits:
            for image, label in labelled_photos(root, split):
                name = f"{root.name}-{image.name}"
                link = out / "images" / split / name
                if not link.exists():
                    os.symlink(image.resolve(), link)
                rows = read_labels(label)
                lines = [
                    f"{coarse[int(c)]} {x:.6f} {y:.6f} {w:.6f} {h:.6f}" for c, x, y, w, h in rows
                ]
                (out / "labels" / split / f"{Path(name).stem}.txt").write_text(
                    "\n".join(lines) + ("\n" if lines else "")
                )
    return _coarse_yaml(out)


def label_angles(root: Path, image: Path, count: int) -> np.ndarray:
    """The ``count`` labels' up angles (radians) from the photo's truth JSON; NaN when unknown.

    A label's angle is the direction of its piece's x axis in the photo (``atan2(dy, dx)``, y
    pointing down): 0 for a piece standing upright, pi for one upside down. A card's bottom
    right index is the top left one turned half round, so it gets the card's angle plus pi.
    Real photos have no truth JSON: their angles are NaN (unknown, not learnt from).
    """
    import json

    angles = np.full(count, np.nan, np.float32)
    path = root / "truth" / f"{image.stem}.json"
    if not path.exists():
        return angles
    doc = json.loads(path.read_text())
    labels = doc.get("labels", [])
    if len(labels) != count:
        return angles
    up = {int(p["uid"]): up_angle(p["polygon"]) for p in doc["pieces"]}
    for k, label in enumerate(labels):
        angle = up[int(label["uid"])] + (math.pi if label.get("region") == "br" else 0.0)
        angles[k] = math.remainder(angle, 2 * math.pi)
    return angles


def crop_angles(sources: Sequence[tuple[Path, str]]) -> np.ndarray:
    """The up angles of every crop :func:`build_crop_set` cuts from ``sources``, in its order."""
    parts = [
        label_angles(root, image, len(read_labels(label)))
        for root, split in sources
        for image, label in labelled_photos(root, split)
    ]
    return np.concatenate(parts) if parts else np.zeros(0, np.float32)


def build_crop_set(
    sources: Sequence[tuple[Path, str]],
    out: Path,
    size: int = STORE_SIZE,
    margin: float = STORE_MARGIN,
) -> Path:
    """Cut every labelled box of ``sources`` (folder, split) into ``out``.

    The ``.npz`` holds ``x`` (uint8 crops), ``y`` (face ids), ``a`` (up angles, NaN where
    the source has no truth JSON) and ``margin`` (the margin they were cut at).
    """
    import cv2

    xs: list[np.ndarray] = []
    ys: list[int] = []
    for root, split in sources:
        for image_path, label in labelled_photos(root, split):
            rows = read_labels(label)
            if not len(rows):
                continue
            bgr = cv2.imread(str(image_path))
            if bgr is None:  # (cv2.cvtColor raised on it before; this says which file)
                raise UnreadablePhotoError("cannot be read", str(image_path))
            image = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
            h, w = image.shape[:2]
            boxes = pixel_boxes(rows, w, h)
            xs.append(cut_crops(image, boxes, size, margin))
            ys.extend(int(c) for c in rows[:, 0])
    x = np.concatenate(xs) if xs else np.zeros((0, size, size, 3), np.uint8)
    out.parent.mkdir(parents=True, exist_ok=True)
    y = np.array(ys, np.int64)
    save_atomic(out, x=x, y=y, a=crop_angles(sources), margin=np.float32(margin))
    return out


NOT_A_PIECE = NUM_FACES
"""Class id of a crop that shows no piece (the classifier's output after the 106 faces)."""


def _piece_places(
    doc: dict[str, Any] | None, label: Path, w: int, h: int
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Where a photo's pieces lie, from its truth JSON ``doc``: every box where a piece's
    index or face lies, readable or not (its regions), and the outline (4, 2) of each card
    joker; where a set has no JSON, the labelled boxes and no outline."""
    if doc is None:
        return pixel_boxes(read_labels(label), w, h), []
    pieces = doc["pieces"]
    regions = [r for p in pieces for r in p.get("regions", [])]
    boxes = [r["box"] for r in regions if r.get("box") and len(r["box"]) == 4]
    return np.array(boxes, np.float32).reshape(-1, 4), _joker_outlines(pieces)


def _truth_doc(root: Path, image: Path) -> dict[str, Any] | None:
    """The truth JSON of a synthetic photo (``truth/<stem>.json``), or None where there is none."""
    import json

    path = root / "truth" / f"{image.stem}.json"
    return cast(dict[str, Any], json.loads(path.read_text())) if path.exists() else None


def _joker_outlines(pieces: Sequence[dict[str, Any]]) -> list[np.ndarray]:
    """The outline (K, 2) of each card joker among a truth JSON's ``pieces``."""
    return [
        np.asarray(p["polygon"], np.float32).reshape(-1, 2)
        for p in pieces
        if p.get("kind") == "card" and p.get("code") == "JK" and p.get("polygon")
    ]


def past_meld_ends(root: Path, image: Path) -> np.ndarray:
    """(K, 4) boxes one fan step past each end of each card meld of a synthetic photo (its
    truth JSON), where no piece's index shows: the places the scanner looks at for a missing
    corner (:func:`vision.gaps.candidate_boxes`). Each is the end card's index box moved by the
    step from its neighbour's, kept when it touches no index showing at least
    :data:`vision.truth.PARTLY_VISIBLE` of itself (as :func:`build_negative_set` keeps the
    detector's finds: the crop around it shows the end card's index at its edge, as the
    scanner's crop of such a place does), lies inside the photo and not on a card
    joker (whose marks lie in more places than its corner). What such a place shows is the top
    card's own face (blank paper, a pip) or, past the open end, the table; no detector boxes
    it, so :func:`build_negative_set` met none of it until session 51, and the classifier read
    blank paper there as a joker (`docs/measurements.md`, "One joker seen by two marks")."""
    return meld_end_places(_truth_doc(root, image))


def meld_end_places(data: dict[str, Any] | None) -> np.ndarray:
    """:func:`past_meld_ends` of a truth JSON already read (none where there is none)."""
    from vision.truth import PARTLY_VISIBLE

    if data is None:
        return np.zeros((0, 4), np.float32)
    pieces = {p["uid"]: p for p in data["pieces"]}
    shown = [
        r["box"]
        for p in data["pieces"]
        for r in p.get("regions", [])
        if r.get("box") and r.get("visible", 0.0) >= PARTLY_VISIBLE
    ]
    index = np.array(shown, np.float32).reshape(-1, 4)
    places = []
    for meld in data.get("melds", []):
        corners = []
        for uid in meld["pieces"]:
            piece = pieces.get(uid, {})
            box = next((r["box"] for r in piece.get("regions", []) if r["name"] == "tl"), None)
            if piece.get("kind") != "card" or box is None:
                break
            corners.append(box)
        if len(corners) < max(len(meld["pieces"]), 2):
            continue  # tiles, or a card not drawn (out of the photo): its ends are unknown
        boxes = np.array(corners, np.float32)
        centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        for end, inner in ((0, 1), (-1, -2)):
            place = boxes[end] + np.tile(centres[end] - centres[inner], 2)
            places.append(place)
    if not places:
        return np.zeros((0, 4), np.float32)
    out = np.array(places, np.float32)
    free = ~(box_intersection(out, index) > 0).any(axis=1)
    w, h = float(data["width"]), float(data["height"])
    free &= (out[:, 0] >= 0) & (out[:, 1] >= 0) & (out[:, 2] <= w) & (out[:, 3] <= h)
    free &= ~on_jokers((out[:, :2] + out[:, 2:]) / 2, _joker_outlines(data["pieces"]))
    return np.asarray(out[free], np.float32)


def on_jokers(points: np.ndarray, outlines: Sequence[np.ndarray]) -> np.ndarray:
    """Mask of the (N, 2) ``points`` that lie inside any of the card jokers' ``outlines``."""
    mask = np.zeros(len(points), bool)
    for outline in outlines:
        mask |= inside_outline(points, outline)
    return mask


def inside_outline(points: np.ndarray, outline: np.ndarray) -> np.ndarray:
    """(N,) whether each of ``points`` (N, 2) lies inside the convex ``outline`` (K, 2), its
    corners in order either way round."""
    edges = np.roll(outline, -1, axis=0) - outline
    to_point = points[:, None, :] - outline[None]
    cross = edges[None, :, 0] * to_point[..., 1] - edges[None, :, 1] * to_point[..., 0]
    return np.asarray((cross >= 0).all(axis=1) | (cross <= 0).all(axis=1))


PAST_ENDS = 1
"""At most this many places past meld ends are cut from one photo, taken in turn from photo to
photo among its places so that both ends of every kind of meld are met. The "not a piece"
sheets travel to a lent GPU within its 64 MiB (`docs/gpu.md`): on a machine without
`syn_cards2`, `pack --model both` weighed 61.1 MiB with one a photo, 61.7 with two; with
`syn_cards2` made (session 52) its sheet weighs 1.2 MiB and the pack 62.3 MiB with one."""
NEGATIVES_VERSION = 2
"""What a "not a piece" set holds: 1 (no ``version`` in the file), the detector's finds where no
piece lies; 2 (session 51), those and the places one fan step past each card meld's ends
(:func:`past_meld_ends`). A set of an older version is mined again."""


def build_negative_set(
    sources: Sequence[tuple[Path, str]],
    detector: object,
    out: Path,
    *,
    every: int = 1,
    size: int = STORE_SIZE,
    margin: float = STORE_MARGIN,
) -> Path:
    """Crops of what ``detector`` finds where no piece lies, labelled :data:`NOT_A_PIECE`.

    The detector runs as the scanner runs it (``detect(image)``, at a low confidence floor), on
    every ``every``-th photo; a detection counts as "not a piece" when it touches no piece's
    box (a covered corner, a cut edge and a blurred index all count as pieces, so that nothing
    readable is taught as background). The pips and pictures of cards, a rack's edge or a
    pattern on the cloth are what this set holds; with them, since session 51, the places one
    fan step past each card meld's ends that no index shows (:func:`past_meld_ends`), which no
    detector boxes: blank card paper, mostly.

    Nor is a detection whose centre lies on a card joker (:func:`inside_outline`): a joker shows
    its word or mark in more places than the corner its label boxes (down its edge, across its
    middle, beside its picture), and each reads as a joker; taught as background, they teach the
    classifier to drop jokers. Session 48: of the crops so mined from `syn_cards3` and
    `syn_cards` train before, 53 of 1,016 and 48 of 934 lay on a joker card, many showing
    "Joker", and the served classifier called 8.5 % of `dev_cards`' labelled joker corners "not a
    piece" against 0.3 % of other cards'.
    """
    from vision.photo import read_photo
    from vision.scanner import DECODE_MIN_SIDE

    xs: list[np.ndarray] = []
    for root, split in sources:
        for k, (image_path, label) in enumerate(labelled_photos(root, split)):
            if k % every:
                continue
            photo = read_photo(image_path, None, DECODE_MIN_SIDE)
            image = photo.pixels
            found = detector.detect(image)  # type: ignore[attr-defined]
            if not len(found):
                continue
            sx, sy = image.shape[1] / photo.width, image.shape[0] / photo.height
            doc = _truth_doc(root, image_path)
            pieces, jokers = _piece_places(doc, label, photo.width, photo.height)
            pieces = pieces * np.array([sx, sy, sx, sy], np.float32)
            taken = (box_intersection(found.xyxy, pieces) > 0).any(axis=1)
            taken |= on_jokers(found.centres, [outline * [sx, sy] for outline in jokers])
            found = found[~taken]
            if len(found):
                xs.append(cut_crops(image, found.xyxy, size, margin))
            ends = meld_end_places(doc) * np.array([sx, sy, sx, sy], np.float32)
            ends = ends[(k + np.arange(min(len(ends), PAST_ENDS))) % max(len(ends), 1)]
            if len(ends):
                xs.append(cut_crops(image, ends, size, margin))
    x = np.concatenate(xs) if xs else np.zeros((0, size, size, 3), np.uint8)
    out.parent.mkdir(parents=True, exist_ok=True)
    y = np.full(len(x), NOT_A_PIECE, np.int64)
    angles = np.full(len(x), np.nan, np.float32)
    save_atomic(
        out, x=x, y=y, a=angles, margin=np.float32(margin), version=np.int64(NEGATIVES_VERSION)
    )
    return out


def save_atomic(out: Path, **arrays: ArrayLike) -> None:
    """``np.savez_compressed`` to ``out`` through a temporary file renamed into place: a set is
    built only when its file is missing, so a run killed mid-write must not leave a truncated
    one that the next run takes as built (session 16 lost a training start to one)."""
    partial = out.with_name(out.name + ".partial")
    with partial.open("wb") as f:
        # (as Any: mypy would take a name in ``arrays`` for savez's keyword allow_pickle)
        np.savez_compressed(f, **cast(dict[str, Any], arrays))
    os.replace(partial, out)


def build_tiled_detector_set(
    sources: Sequence[tuple[Path, Sequence[str]]],
    out: Path,
    *,
    long_side: int = 640,
    crop: int = 320,
    per_image: int = 3,
    min_visible: float = 0.6,
) -> Path:
    """Crops of ``crop`` px cut from each photo scaled as the scanner scales it (``long_side``).

    The detector then trains at ``crop`` px on pieces of the size it meets at serving time, at a
    quarter of the cost of training on whole photos at ``long_side``. A box cut by a crop's edge
    is labelled when at least ``min_visible`` of it is inside; the visible part of one cut more
    is painted grey so the network is never taught that a visible piece is background.
    Crops are chosen per photo, deterministically: the one holding the most whole boxes, then
    others at random among those holding any.
    """
    import zlib

    import cv2

    coarse = np.array([COARSE.class_id(PIECES.face(i)) for i in range(PIECES.num_classes)])
    _prepare(out)
    for root, splits in sources:
        for split in splits:
            for image_path, label in labelled_photos(root, split):
                stem = f"{root.name}-{image_path.stem}"
                if (out / "labels" / split / f"{stem}-0.txt").exists():
                    continue
                image = cv2.imread(str(image_path))
                if image is None:
                    continue
                h, w = image.shape[:2]
                scale = long_side / max(h, w)
                if scale != 1:
                    image = cv2.resize(
                        image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
                    )
                h, w = image.shape[:2]
                rows = read_labels(label)
                boxes = pixel_boxes(rows, w, h)
                classes = coarse[rows[:, 0].astype(np.int64)]
                step = crop // 2
                xs = sorted({*range(0, max(w - crop, 0) + 1, step), max(w - crop, 0)})
                ys = sorted({*range(0, max(h - crop, 0) + 1, step), max(h - crop, 0)})
                origins = [(x, y) for y in ys for x in xs]
                whole = [
                    int(
                        (
                            (boxes[:, 0] >= x)
                            & (boxes[:, 1] >= y)
                            & (boxes[:, 2] <= x + crop)
                            & (boxes[:, 3] <= y + crop)
                        ).sum()
                    )
                    for x, y in origins
                ]
                rng = np.random.default_rng(zlib.crc32(stem.encode()))
                best = int(np.argmax(whole))
                others = [i for i, n in enumerate(whole) if n and i != best]
                rng.shuffle(others)
                chosen = [best, *others[: per_image - 1]]
                for k, i in enumerate(chosen):
                    x0, y0 = origins[i]
                    tile = np.full((crop, crop, 3), 114, np.uint8)
                    part = image[y0 : y0 + crop, x0 : x0 + crop]
                    tile[: part.shape[0], : part.shape[1]] = part
                    local = boxes - np.array([x0, y0, x0, y0], np.float32)
                    clipped = np.clip(local, 0, [part.shape[1], part.shape[0]] * 2)
                    area = (local[:, 2] - local[:, 0]) * (local[:, 3] - local[:, 1])
                    seen = (clipped[:, 2] - clipped[:, 0]) * (clipped[:, 3] - clipped[:, 1])
                    visible = np.where(area > 0, seen / np.maximum(area, 1e-6), 0)
                    lines = []
                    for b, c, v in zip(clipped, classes, visible, strict=True):
                        if v >= min_visible:
                            cx, cy = (b[0] + b[2]) / 2 / crop, (b[1] + b[3]) / 2 / crop
                            bw, bh = (b[2] - b[0]) / crop, (b[3] - b[1]) / crop
                            lines.append(f"{c} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
                        elif v > 0:
                            x1, y1, x2, y2 = np.round(b).astype(int)
                            tile[y1:y2, x1:x2] = 114
                    name = f"{stem}-{k}"
                    cv2.imwrite(
                        str(out / "images" / split / f"{name}.jpg"),
                        tile,
                        [cv2.IMWRITE_JPEG_QUALITY, 92],
                    )
                    (out / "labels" / split / f"{name}.txt").write_text(
                        "\n".join(lines) + ("\n" if lines else "")
                    )
    return _coarse_yaml(out)


def turn_labels(rows: np.ndarray, turns: int) -> np.ndarray:
    """YOLO rows of an image turned ``turns`` quarter turns counter-clockwise (as ``np.rot90``):
    one turn takes a normalised centre (cx, cy) to (cy, 1 - cx) and swaps width and height."""
    rows = rows.copy()
    for _ in range(turns % 4):
        rows[:, 1:5] = np.stack([rows[:, 2], 1 - rows[:, 1], rows[:, 4], rows[:, 3]], axis=1)
    return rows


def build_turned_set(src: Path, out: Path, quality: int = 95) -> Path:
    """``src`` (a detector set) with each training image turned 0-3 quarter turns (chosen from
    its name), its labels turned with it; validation images are linked unturned.

    Most synthetic photos are taken from the meld's own side (the camera's yaw is near 0 for 60
    % of the scenes), and the detector trained on them found fewer upside-down corner indexes
    (real card fans turned half round, session 11: F1 0.924 against 0.966 upright). At a table
    the melds face every seat, so the detector should not care which way up an index lies.
    Turned images are written again as JPEG at ``quality`` (their pixels were a JPEG already);
    unturned ones are linked. Incremental: images already there are skipped.
    """
    import zlib

    import cv2

    _prepare(out)
    for split in SPLITS:
        for image_path in sorted((src / "images" / split).glob("*.jpg")):
            target = out / "images" / split / image_path.name
            label_out = out / "labels" / split / f"{image_path.stem}.txt"
            if target.exists() and label_out.exists():
                continue
            turns = zlib.crc32(image_path.stem.encode()) % 4 if split == "train" else 0
            rows = read_labels(src / "labels" / split / f"{image_path.stem}.txt")
            if turns == 0:
                if not target.exists():
                    os.symlink(image_path.resolve(), target)
            else:
                image = cv2.imread(str(image_path))
                if image is None:
                    continue
                turned = np.ascontiguousarray(np.rot90(image, turns))
                cv2.imwrite(str(target), turned, [cv2.IMWRITE_JPEG_QUALITY, quality])
                rows = turn_labels(rows, turns)
            label_out.write_text(
                "".join(f"{int(r[0])} {r[1]:.6f} {r[2]:.6f} {r[3]:.6f} {r[4]:.6f}\n" for r in rows)
            )
    return _coarse_yaml(out)
