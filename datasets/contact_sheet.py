"""A contact sheet: a grid of generated photos with their label boxes drawn."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.classes import PieceKind


def draw_labels(
    image: np.ndarray, boxes: Sequence[tuple[PieceKind, str, tuple[float, float, float, float]]]
) -> np.ndarray:
    out = image.copy()
    for kind, text, (x0, y0, x1, y1) in boxes:
        colour = (0, 220, 0) if kind is PieceKind.CARD else (255, 160, 0)
        cv2.rectangle(out, (round(x0), round(y0)), (round(x1), round(y1)), colour, 2)
        cv2.putText(out, text, (round(x0), max(10, round(y0) - 3)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.45, colour, 1, cv2.LINE_AA)  # fmt: skip
    return out


def contact_sheet(images: Sequence[np.ndarray], columns: int = 4, cell_w: int = 480) -> np.ndarray:
    """Tile images (any sizes) into one sheet, each fitted into a 4:3 cell ``cell_w`` wide."""
    if not images:
        raise ValueError("a contact sheet needs at least one image")
    cell_h = cell_w * 3 // 4
    cells = []
    for img in images:
        h, w = img.shape[:2]
        k = min(cell_w / w, cell_h / h)
        scaled = cv2.resize(img, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
        cell = np.full((cell_h, cell_w, 3), 40, np.uint8)
        y, x = (cell_h - scaled.shape[0]) // 2, (cell_w - scaled.shape[1]) // 2
        cell[y : y + scaled.shape[0], x : x + scaled.shape[1]] = scaled
        cells.append(
            cv2.copyMakeBorder(cell, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        )
    blank = np.zeros_like(cells[0])
    rows = []
    for i in range(0, len(cells), columns):
        row = cells[i : i + columns]
        rows.append(cv2.hconcat(row + [blank] * (columns - len(row))))
    return cv2.vconcat(rows)
