"""``bench/losses.py``: the lost melds it lists are those ``meldcam eval`` counts, and with
``--unwarned`` those of the photos the scanner gives no warning about (``unflagged``)."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from datasets.card_art import load_deck
from vision.evaluate import evaluate_folder
from web.cli import main as meldcam

BENCH = Path(__file__).resolve().parents[2] / "bench" / "losses.py"


def _totals(out: str) -> tuple[int, int]:
    found = re.search(r"(\d+) of (\d+) melds read exactly", out)
    assert found, out
    return int(found[1]), int(found[2])


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="no rsvg-convert")
def test_the_listed_losses_are_the_reports_and_unwarned_keeps_the_unflagged_photos(
    scanner,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MELDCAM_CACHE", str(tmp_path / "faces"))  # decks rendered here only
    load_deck.cache_clear()
    src, cache = tmp_path / "tables", tmp_path / "readings"
    # small tables of the held-out decks: the scanner warns of some photos, not all (asserted below)
    synth = ["synth", "--kind", "cards", "--art", "held-out", "--count", "6", "--size", "480"]
    assert meldcam([*synth, "--workers", "1", "--out", str(src)]) == 0
    load_deck.cache_clear()
    capsys.readouterr()
    spec = importlib.util.spec_from_file_location("bench_losses", BENCH)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    args = [str(src), "--kind", "cards", "--split", "all", "--cache", str(cache)]
    assert bench.main(args) == 0
    every = _totals(capsys.readouterr().out)
    assert bench.main([*args, "--unwarned"]) == 0
    unwarned = _totals(capsys.readouterr().out)

    report = evaluate_folder(scanner, src, "cards", "all", cache=cache)
    assert every == (report.melds_exact, report.melds_true)
    assert unwarned == (report.unflagged.melds_exact, report.unflagged.melds)
    assert 0 < report.unflagged.photos < report.photos  # both kinds of photo, so it can fail
