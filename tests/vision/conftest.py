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


@pytest.fixture
def held_out_tables(own_cache: Path, tmp_path: Path) -> Path:
    """Three card tables dealt from the decks no model trains on, 960 px long, made with
    ``meldcam synth`` into the test's folder (the decks rendered into its own face cache)."""
    import shutil

    from web.cli import main as meldcam

    if shutil.which("rsvg-convert") is None:
        pytest.skip("no rsvg-convert")
    src = tmp_path / "tables"
    synth = ["synth", "--kind", "cards", "--art", "held-out", "--count", "3", "--size", "960"]
    assert meldcam([*synth, "--workers", "1", "--out", str(src)]) == 0
    return src
