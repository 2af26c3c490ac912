"""``bench/losses.py``: the lost melds it lists are those ``meldcam eval`` counts, and with
``--unwarned`` those of the photos the scanner gives no warning about (``unflagged``)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from bench_scripts import load_bench

from vision.evaluate import evaluate_folder
from web.cli import main as meldcam


def _totals(out: str) -> tuple[int, int]:
    found = re.search(r"(\d+) of (\d+) melds read exactly", out)
    assert found, out
    return int(found[1]), int(found[2])


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="no rsvg-convert")
def test_the_listed_losses_are_the_reports_and_unwarned_keeps_the_unflagged_photos(
    scanner,  # type: ignore[no-untyped-def]
    own_cache: Path,  # the held-out decks rendered there, never into the user's face cache
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    src, cache = tmp_path / "tables", tmp_path / "readings"
    # small tables of the held-out decks: the scanner warns of some photos, not all (asserted below)
    synth = ["synth", "--kind", "cards", "--art", "held-out", "--count", "6", "--size", "480"]
    assert meldcam([*synth, "--workers", "1", "--out", str(src)]) == 0
    capsys.readouterr()
    bench = load_bench("losses")

    args = [str(src), "--kind", "cards", "--split", "all", "--cache", str(cache)]
    assert bench.main(args) == 0
    every = _totals(capsys.readouterr().out)
    assert bench.main([*args, "--unwarned"]) == 0
    unwarned = _totals(capsys.readouterr().out)

    report = evaluate_folder(scanner, src, "cards", "all", cache=cache)
    assert every == (report.melds_exact, report.melds_true)
    assert unwarned == (report.unflagged.melds_exact, report.unflagged.melds)
    assert 0 < report.unflagged.photos < report.photos  # both kinds of photo, so it can fail
