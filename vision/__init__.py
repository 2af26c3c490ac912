"""meldcam's recogniser: photo -> pieces -> melds, with ONNX models run by onnxruntime.

The web app loads the scanner once and reuses it::

    from vision import Scanner
    scanner = Scanner.load("models")
    result = scanner.scan(photo_bytes, kind="auto", rules=None)   # -> ScanResult
    result.to_json()

Broken photos raise :class:`vision.errors.UnreadablePhotoError` (a ``ValueError``) naming the
reason. Names load lazily, so importing ``vision`` (and ``meldcam check``) stays fast.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ScanResult", "Scanner", "UnreadablePhotoError", "VisionError"]

_WHERE = {
    "Scanner": "vision.scanner",
    "ScanResult": "vision.result",
    "UnreadablePhotoError": "vision.errors",
    "VisionError": "vision.errors",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
