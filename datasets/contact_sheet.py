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
    """Tile images (any sizes) into one sheet, each scaled to ``cell_w`` wide."""
    if not images:
        raise ValueError("a contact sheet needs at least one image")
    cells = []
    for img in images:
        h, w = img.shape[:2]
        scaled = cv2.resize(img, (cell_w, round(h * cell_w / w)), interpolation=cv2.INTER_AREA)
        cells.append(scaled)
    cell_h = max(c.shape[0] for c in cells)
    rows = []
    for i in range(0, len(cells), columns):
        row = [
            cv2.copyMakeBorder(c, 0, cell_h - c.shape[0], 0, 0, cv2.BORDER_CONSTANT)
            for c in cells[i : i + columns]
        ]
        row += [np.zeros((cell_h, cell_w, 3), np.uint8)] * (columns - len(row))
        rows.append(
            cv2.hconcat(
                [
                    cv2.copyMakeBorder(c, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=(255, 255, 255))
                    for c in row
                ]
            )
        )
    return cv2.vconcat(rows)
