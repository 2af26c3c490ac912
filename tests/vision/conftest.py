"""Shared fixtures: the committed models (loaded once) and the real photos."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
REAL = ROOT.parent / "shared" / "realdata"


@pytest.fixture(scope="session")
def scanner():  # type: ignore[no-untyped-def]
    from vision.scanner import Scanner

    return Scanner.load(MODELS)


@pytest.fixture(scope="session")
def real() -> Path:
    if not REAL.is_dir():
        pytest.fail(f"the real photos are missing: {REAL}")
    return REAL
