"""``bench/corner_sizes.py``: every labelled card corner is counted once, by its size, and read
again at its true box as the scanner reads it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bench_scripts import load_bench

from vision.evaluate import iter_truths


def test_a_size_falls_in_the_first_bin_it_is_under() -> None:
    size_bin = load_bench("corner_sizes").size_bin
    assert [size_bin(s, [12.0, 16.0]) for s in (3.0, 12.0, 15.9, 16.0, 90.0)] == [0, 1, 1, 2, 2]


def test_every_corner_is_counted_and_read_at_its_true_box(
    held_out_tables: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = held_out_tables
    corners = sum(not b.is_tile for t in iter_truths(src, "all") for b in t.boxes)
    assert corners > 20
    capsys.readouterr()

    assert load_bench("corner_sizes").main([str(src), "--bins", "16,24"]) == 0
    rows = re.findall(
        r"^(.+?) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)$", capsys.readouterr().out, re.M
    )
    by_name = {name: (int(n), *(float(v) for v in shares)) for name, n, *shares in rows}
    assert set(by_name) <= {"under 16", "16-24", "24 and over", "all"}
    assert sum(n for name, (n, *_) in by_name.items() if name != "all") == corners
    n, found, right, at_true_box = by_name["all"]
    assert n == corners
    # clean tables of 960 px: the scanner finds and reads nearly every corner, at either box
    assert found > 0.8 and right > 0.8 and at_true_box > 0.8
