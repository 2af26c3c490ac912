"""Write a synthetic dataset: YOLO images/labels/data.yaml, JSON truth, crops, contact sheet.

Layout of ``OUT``::

    data.yaml                 YOLO dataset file (names of the chosen scheme)
    images/{train,val}/NNNNNN.jpg
    labels/{train,val}/NNNNNN.txt   class cx cy w h, normalised
    truth/NNNNNN.json         every piece, its regions, melds, sides, readability
    crops/<pieces-name>/NNNNNN_K.png and crops.csv (with --crops)
    contact_sheet.jpg

Image ``i`` is rendered from the seed sequence ``(seed, i)``, so a run with several workers
writes the same bytes as one with a single worker. Every tenth image goes to ``val``.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.card_art import DeckSource, require_art
from datasets.contact_sheet import contact_sheet, draw_labels
from datasets.scene import DRAWN_SHARE, Scene, SceneKind, render_scene
from datasets.tiles import CLASSIC_TILE_STYLES
from vision.classes import PIECES, ClassScheme, face_name

CROP_SIZE = 64
SHEET_IMAGES = 16
VAL_EVERY = 10


@dataclass(frozen=True, slots=True)
class SynthJob:
    kind: SceneKind
    seed: int
    size: tuple[int, int]
    scheme: ClassScheme
    crops: bool
    decks: tuple[DeckSource, ...] | None
    framing: int | None = None
    drawn: float = DRAWN_SHARE
    tile_styles: tuple[int, ...] = CLASSIC_TILE_STYLES
    pips: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WrittenImage:
    index: int
    name: str
    split: str
    labels: int
    sheet_thumb: bytes  # small JPEG with boxes, for the contact sheet ("" if not needed)
    crop_rows: tuple[str, ...]


def image_seed(seed: int, index: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([seed, index])


def split_of(index: int) -> str:
    return "val" if index % VAL_EVERY == VAL_EVERY - 1 else "train"


def yolo_lines(scene: Scene, scheme: ClassScheme) -> list[str]:
    w, h = scene.truth["width"], scene.truth["height"]
    lines = []
    for label in scene.labels:
        x0, y0, x1, y1 = label.box
        cx, cy, bw, bh = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h
        lines.append(f"{scheme.class_id(label.face)} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
    return lines


def truth_document(
    scene: Scene, name: str, scheme: ClassScheme, seed: int, index: int
) -> dict[str, Any]:
    doc = dict(scene.truth)
    doc["image"] = name
    doc["seed"] = [seed, index]
    doc["scheme"] = scheme.name
    doc["labels"] = [
        {
            "class": scheme.class_id(label.face),
            "name": scheme.class_name(scheme.class_id(label.face)),
            "code": label.face.code,
            "piece_kind": label.face.kind.value,
            "uid": label.uid,
            "region": label.region,
            "box": [round(v, 2) for v in label.box],
        }
        for label in scene.labels
    ]
    return doc


def crop(
    image: np.ndarray, box: tuple[float, float, float, float], size: int = CROP_SIZE
) -> np.ndarray:
    """A square crop around ``box`` (10% margin), resized to ``size``."""
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0) * 1.2
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    m = np.array(
        [
            [size / side, 0, size / 2 - cx * size / side],
            [0, size / side, size / 2 - cy * size / side],
        ],
        np.float32,
    )
    return cv2.warpAffine(
        image, m, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


def _decoded(jpeg: np.ndarray, what: str) -> np.ndarray:
    """A JPEG this module encoded, decoded (BGR)."""
    image = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    if image is None:
        raise OSError(f"could not decode {what}")
    return image


def render_one(job: SynthJob, out: Path, index: int) -> WrittenImage:
    scene = render_scene(
        image_seed(job.seed, index),
        job.kind,
        job.size,
        job.decks,
        job.framing,
        job.drawn,
        job.tile_styles,
        job.pips,
    )
    name = f"{index:06d}"
    split = split_of(index)
    ok, jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
    if not ok:
        raise OSError(f"could not encode image {name}")
    (out / "images" / split / f"{name}.jpg").write_bytes(jpeg.tobytes())
    lines = yolo_lines(scene, job.scheme)
    (out / "labels" / split / f"{name}.txt").write_text("".join(line + "\n" for line in lines))
    doc = truth_document(scene, f"images/{split}/{name}.jpg", job.scheme, job.seed, index)
    (out / "truth" / f"{name}.json").write_text(json.dumps(doc, separators=(",", ":")))
    rows: list[str] = []
    if job.crops:
        decoded = _decoded(jpeg, f"image {name}")
        for k, label in enumerate(scene.labels):
            cls = face_name(label.face)
            folder = out / "crops" / cls
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{name}_{k}.png"
            cv2.imwrite(str(path), crop(decoded, label.box))
            rows.append(
                f"crops/{cls}/{name}_{k}.png,{label.face.kind.value},{label.face.code},{split}"
            )
    thumb = b""
    if index < SHEET_IMAGES:
        drawn = draw_labels(
            scene.image, [(lb.face.kind, lb.face.code, lb.box) for lb in scene.labels]
        )
        small = cv2.resize(
            drawn, (drawn.shape[1] // 2, drawn.shape[0] // 2), interpolation=cv2.INTER_AREA
        )
        thumb = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()
    return WrittenImage(index, name, split, len(lines), thumb, tuple(rows))


_WORKER_JOB: tuple[SynthJob, Path] | None = None


def _init_worker(job: SynthJob, out: Path) -> None:
    global _WORKER_JOB
    _WORKER_JOB = (job, out)
    cv2.setNumThreads(1)


def _work(index: int) -> WrittenImage:
    assert _WORKER_JOB is not None
    return render_one(_WORKER_JOB[0], _WORKER_JOB[1], index)


def data_yaml(scheme: ClassScheme, out: Path) -> str:
    names = ", ".join(json.dumps(n) for n in scheme.names)
    return (
        f"# meldcam synthetic set, class scheme {scheme.name!r} (see vision/classes.py)\n"
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\n"
        f"nc: {scheme.num_classes}\nnames: [{names}]\n"
    )


def prepare(out: Path, scheme: ClassScheme) -> None:
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    (out / "truth").mkdir(parents=True, exist_ok=True)
    (out / "data.yaml").write_text(data_yaml(scheme, out))


def generate(
    out: Path,
    count: int,
    kind: SceneKind = SceneKind.MIXED,
    seed: int = 0,
    size: tuple[int, int] = (1280, 960),
    workers: int = 1,
    scheme: ClassScheme = PIECES,
    crops: bool = False,
    progress: bool = True,
    decks: tuple[DeckSource, ...] | None = None,
    framing: int | None = None,
    drawn: float = DRAWN_SHARE,
    tile_styles: tuple[int, ...] = CLASSIC_TILE_STYLES,
    pips: tuple[str, ...] = (),
) -> list[WrittenImage]:
    """Render ``count`` images into ``out``; returns what was written, in index order.

    ``decks`` limits the card decks used (default: every installed deck); ``framing`` frames
    each scene as a photo of that long side would and renders it at ``size`` (see
    :func:`datasets.scene.render_scene`); ``drawn`` is the share of card scenes dealt from a
    drawn deck instead; ``tile_styles`` the tile styles drawn from; ``pips`` the faces the drawn
    decks print their suits in (:func:`datasets.drawn_cards.drawn_deck`).
    """
    if decks is None and kind is not SceneKind.TILES:
        decks = require_art()
    job = SynthJob(kind, seed, size, scheme, crops, decks, framing, drawn, tile_styles, pips)
    prepare(out, scheme)
    results: list[WrittenImage] = []
    for done in _run(job, out, count, workers):
        results.append(done)
        if progress:
            _progress(len(results), count)
    if progress:
        sys.stderr.write("\n")
    results.sort(key=lambda r: r.index)
    if crops:
        rows = [row for r in results for row in r.crop_rows]
        (out / "crops.csv").write_text("path,kind,code,split\n" + "".join(r + "\n" for r in rows))
    thumbs = [
        _decoded(np.frombuffer(r.sheet_thumb, np.uint8), f"thumbnail {r.index:06d}")
        for r in results
        if r.sheet_thumb
    ]
    if thumbs:
        sheet = contact_sheet(thumbs, columns=4, cell_w=400)
        cv2.imwrite(str(out / "contact_sheet.jpg"), sheet, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return results


def _run(job: SynthJob, out: Path, count: int, workers: int) -> Iterator[WrittenImage]:
    if workers <= 1:
        for i in range(count):
            yield render_one(job, out, i)
        return
    # spawn, not fork: a forked child of a process that already ran OpenCV threads can hang
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_init_worker, initargs=(job, out)
    ) as pool:
        yield from pool.map(_work, range(count), chunksize=1)


def _progress(done: int, total: int) -> None:
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    sys.stderr.flush()
