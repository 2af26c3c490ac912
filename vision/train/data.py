"""Training sets built from ``meldcam synth`` / ``meldcam import-real`` folders (``pieces`` scheme).

* the detector set: the same images (linked), labels mapped to the ``coarse`` scheme;
* the classifier set: every labelled box cut square (with a margin, axis-aligned, exactly as the
  scanner cuts a detection) and resized to a small square, stored as one ``.npz``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from vision.classes import COARSE, PIECES
from vision.crops import CROP_SIZE, cut_crops

SPLITS = ("train", "val")
EVAL_ONLY_PREFIXES = ("card-fans__",)
"""Real photos never trained on: the two card fans are the cards' only real test."""


def _label_files(root: Path, split: str) -> Iterable[tuple[Path, Path]]:
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


def build_detector_set(sources: Sequence[tuple[Path, Sequence[str]]], out: Path) -> Path:
    """Link the images of ``sources`` (folder, splits to take) into ``out`` with coarse labels.

    A source's ``train`` split may be sent to ``val`` and back by listing e.g. ``("val",)``.
    """
    coarse = np.array([COARSE.class_id(PIECES.face(i)) for i in range(PIECES.num_classes)])
    for split in SPLITS:
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    for root, splits in sources:
        for split in splits:
            for image, label in _label_files(root, split):
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
    names = ", ".join(f'"{n}"' for n in COARSE.names)
    yaml = out / "data.yaml"
    yaml.write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\n"
        f"nc: {COARSE.num_classes}\nnames: [{names}]\n"
    )
    return yaml


def build_crop_set(sources: Sequence[tuple[Path, str]], out: Path, size: int = CROP_SIZE) -> Path:
    """Cut every labelled box of ``sources`` (folder, split) into ``out`` (.npz: x uint8, y)."""
    import cv2

    xs: list[np.ndarray] = []
    ys: list[int] = []
    for root, split in sources:
        for image_path, label in _label_files(root, split):
            rows = read_labels(label)
            if not len(rows):
                continue
            image = cv2.cvtColor(cv2.imread(str(image_path)), cv2.COLOR_BGR2RGB)
            h, w = image.shape[:2]
            boxes = np.stack(
                [
                    (rows[:, 1] - rows[:, 3] / 2) * w,
                    (rows[:, 2] - rows[:, 4] / 2) * h,
                    (rows[:, 1] + rows[:, 3] / 2) * w,
                    (rows[:, 2] + rows[:, 4] / 2) * h,
                ],
                axis=1,
            )
            xs.append(cut_crops(image, boxes, size))
            ys.extend(int(c) for c in rows[:, 0])
    x = np.concatenate(xs) if xs else np.zeros((0, size, size, 3), np.uint8)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, x=x, y=np.array(ys, np.int64))
    return out
