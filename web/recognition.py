"""The recogniser, loaded once per process and shared by every request.

Scans run at most ``SCAN_WORKERS`` at a time (the machine has few cores); a request
that cannot get a slot within ``SCAN_WAIT_S`` seconds gets a 503, so a flood of
photos cannot stall the other phones.
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask, current_app

from web.errors import UnavailableError
from web.photos import UnreadablePhotoError

_LOCK = threading.Lock()
_KEY = "meldcam.scanner"


def _load(app: Flask) -> Any:
    with _LOCK:
        if _KEY not in app.extensions:
            try:
                from vision import Scanner, VisionError

                try:
                    app.extensions[_KEY] = Scanner.load(app.config.get("MODELS_DIR"))
                except (VisionError, OSError) as error:  # no model there: typing still works
                    app.extensions[_KEY] = error
            except ImportError as error:
                app.extensions[_KEY] = error
            slots = int(app.config.get("SCAN_WORKERS", 1))
            app.extensions[_KEY + ".slots"] = threading.BoundedSemaphore(slots)
    return app.extensions[_KEY]


def available(app: Flask) -> bool:
    return not isinstance(_load(app), BaseException)


def scan(data: bytes, kind: str = "auto", rules: Any = None) -> dict[str, Any]:
    """Recognise one photo: the object of ``meldcam scan --json``, without ``path``."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    scanner = _load(app)
    if isinstance(scanner, BaseException):
        raise UnavailableError(f"recognition is not available on this server: {scanner}")
    slots: threading.BoundedSemaphore = app.extensions[_KEY + ".slots"]
    if not slots.acquire(timeout=float(app.config.get("SCAN_WAIT_S", 20))):
        raise UnavailableError("the server is busy reading other photos: try again in a moment")
    try:
        result: dict[str, Any] = scanner.scan(data, kind=kind, rules=rules).to_json()
    except ValueError as error:  # vision's UnreadablePhotoError and kin: the photo's fault
        raise UnreadablePhotoError(str(error)) from None
    finally:
        slots.release()
    result.pop("path", None)
    return result
