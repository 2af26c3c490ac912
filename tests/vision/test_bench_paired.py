"""``bench/paired.py``: two scanners compared meld by meld, and the sign test on the melds one of
them alone reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bench_scripts import load_bench

from vision.evaluate import iter_truths

ROOT = Path(__file__).resolve().parents[2]


def test_each_true_meld_is_counted_once_by_who_reads_it() -> None:
    paired = load_bench("paired")
    t = paired.tally([(True, True), (True, False), (False, True), (False, False), (True, False)])
    assert (t.both, t.first, t.second, t.neither, t.melds) == (1, 2, 1, 1, 5)
    assert t.add(t) == paired.Tally(2, 4, 2, 2)


def test_the_sign_test_is_exact_and_two_sided() -> None:
    sign_test = load_bench("paired").sign_test
    assert sign_test(0, 0) == 1.0  # no meld changed hands: nothing to tell
    assert sign_test(10, 0) == pytest.approx(2 / 1024)  # ten of ten one way
    assert sign_test(0, 10) == sign_test(10, 0)
    assert sign_test(5, 5) == 1.0  # an even split, capped at certainty
    # 73 against 47: the tail of Binomial(120, 1/2) up to 47, doubled
    assert sign_test(73, 47) == pytest.approx(0.0222, abs=5e-4)
    assert sign_test(8, 6) > 0.5


def test_a_scanner_compared_with_itself_never_reads_a_meld_the_other_misses(
    held_out_tables: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = held_out_tables
    melds = sum(len(t.melds) for t in iter_truths(src, "all"))
    assert melds >= 3
    capsys.readouterr()

    models = str(ROOT / "models")
    cache = ["--cache", str(tmp_path / "readings")]
    assert load_bench("paired").main([models, models, "--set", str(src), *cache, "--by-deck"]) == 0
    out = capsys.readouterr().out
    row = re.search(r"^\S+tables\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)$",
                    out, re.M)  # fmt: skip
    assert row, "one line for the set"
    n, first, second, both, first_alone, second_alone = (int(v) for v in row.groups()[:6])
    assert n == melds
    assert first == second == both and first_alone == second_alone == 0
    assert float(row.group(7)) == 1.0
    assert both > 0  # clean tables of 960 px: the model reads some melds exactly
    # "read exactly" as `meldcam eval` counts it, from the same readings
    from vision.evaluate import evaluate_folder
    from vision.scanner import Scanner

    report = evaluate_folder(
        Scanner.load(ROOT / "models"), src, "cards", "all", cache=tmp_path / "readings"
    )
    assert report.melds_exact == first
    # --by-deck: a line for each deck the tables were dealt from, the set's melds shared out
    from vision.evaluate import ReadingCache, melds_read

    reader = ReadingCache(tmp_path / "readings", Scanner.load(ROOT / "models"))
    by_deck: dict[str, tuple[int, int]] = {}
    for t in iter_truths(src, "all"):
        n, read = by_deck.get(t.deck, (0, 0))
        found = melds_read(reader.read(t.image, t.image, "cards").assemble(path=str(t.image)))
        by_deck[t.deck] = (n + len(t.melds), read + sum(codes in found for codes in t.melds))
    lines = re.findall(r"^(held-out/\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+0\s+0\s+1\.000$",
                       out, re.M)  # fmt: skip
    assert {d: (int(n), int(a)) for d, n, a, b, both in lines} == {
        d: v for d, v in by_deck.items() if v[0]
    }
    assert sum(int(n) for _, n, *_ in lines) == melds


def test_each_photo_is_read_as_the_kind_its_labels_are_whatever_its_set_is_called(
    own_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from web.cli import main as meldcam

    src = tmp_path / "tables"  # no "tile" in the name
    synth = ["synth", "--kind", "tiles", "--count", "2", "--size", "960", "--workers", "1"]
    assert meldcam([*synth, "--out", str(src)]) == 0
    paired = load_bench("paired")
    truths = [t for t in iter_truths(src, "all") if t.melds]
    assert truths and {paired.truth_kind(t) for t in truths} == {"tiles"}
    capsys.readouterr()

    models = str(ROOT / "models")
    cache = ["--cache", str(tmp_path / "readings")]
    assert paired.main([models, models, "--set", str(src), *cache]) == 0
    row = re.search(r"^\S+tables\s+(\d+)\s+(\d+)\s+", capsys.readouterr().out, re.M)
    assert row, "one line for the set"
    from vision.evaluate import evaluate_folder
    from vision.scanner import Scanner

    report = evaluate_folder(
        Scanner.load(ROOT / "models"), src, "tiles", "all", cache=tmp_path / "readings"
    )
    assert int(row.group(1)) == sum(len(t.melds) for t in truths)
    assert int(row.group(2)) == report.melds_exact > 0  # read as tiles: melds read
