"""The offline ultralytics environment: no downloads, a project-local config folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def offline_ultralytics(threads: int = 2) -> None:
    """Set the variables ultralytics reads before it is imported, and its font."""
    config = ROOT / ".yolo"
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "0")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(config))
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    font = config / "Ultralytics" / "Arial.ttf"
    if not font.exists():
        import matplotlib

        source = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf"
        font.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, font)
    import torch

    torch.set_num_threads(threads)
