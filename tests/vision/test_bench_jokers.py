"""``bench/jokers.py``: joker melds and flawed melds counted apart, and what the scan holds
where a lost meld's card joker lies."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from bench_scripts import load_bench

from scorer import PieceKind, Rules, validate_meld
from vision.result import ScannedMeld, ScannedPiece, ScanResult
from vision.truth import Truth, TruthBox

RULES = Rules.default(PieceKind.CARDS)
Box = tuple[float, float, float, float]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench("jokers")


def _box(x: float, y: float) -> Box:
    """A 10 px label at (x, y)."""
    return (x, y, x + 10.0, y + 10.0)


# a valid run with a joker laid for its missing card, a valid set, and a run laid flawed (a club
# among hearts) with a joker at its end; meld m's piece i lies at (40 i, 100 (m + 1))
MELDS = (("5H", "JK", "7H"), ("9S", "9D", "9C"), ("2H", "3H", "4C", "JK"))
TRUTH = Truth(
    image=Path("table.jpg"),
    boxes=tuple(
        TruthBox(code, False, _box(40.0 * i, 100.0 * (m + 1)), uid=10 * m + i)
        for m, codes in enumerate(MELDS)
        for i, code in enumerate(codes)
    ),
    pieces=tuple(code for codes in MELDS for code in codes),
    melds=MELDS,
    meld_uids=tuple(tuple(10 * m + i for i in range(len(c))) for m, c in enumerate(MELDS)),
)


def _scan(
    read: list[tuple[str, Box]], melds: list[tuple[int, ...]], kind: str = "card"
) -> ScanResult:
    pieces = tuple(ScannedPiece(code, box, 0.9, kind) for code, box in read)
    scanned = tuple(
        ScannedMeld(m, validate_meld([pieces[i].code for i in m], RULES, ordered=True))
        for m in melds
    )
    return ScanResult("table.jpg", 640, 480, "cards", pieces, scanned, ())


def _as_laid(*changes: tuple[int, int, str, Box]) -> list[tuple[str, Box]]:
    """Every true piece read as labelled, but for ``changes`` (meld, index, code, box)."""
    read = {
        (m, i): (code, _box(40.0 * i, 100.0 * (m + 1)))
        for m, c in enumerate(MELDS)
        for i, code in enumerate(c)
    }
    for m, i, code, box in changes:
        read[m, i] = (code, box)
    return list(read.values())


def test_melds_are_counted_by_joker_and_by_validity_as_laid(bench: ModuleType) -> None:
    # the first meld read exactly (scanned backwards), the set with its club read as a spade,
    # the flawed run read exactly
    read = _as_laid((1, 2, "9S", _box(80, 200)))
    scan = _scan(read, [(2, 1, 0), (3, 4, 5), (6, 7, 8, 9)])
    c = bench.tally([TRUTH], lambda truth: scan)
    assert (c["joker"], c["joker read"]) == (2, 2)
    assert (c["no joker"], c["no joker read"]) == (1, 0)
    assert (c["valid"], c["valid read"]) == (2, 1)
    assert (c["flawed"], c["flawed read"]) == (1, 1)
    assert [c[w] for w in bench.JOKER_WHERE] == [0, 0, 0]  # no joker meld was lost


def test_a_lost_melds_joker_is_found_in_a_meld_loose_or_nowhere(bench: ModuleType) -> None:
    # both joker melds lost: the valid run's joker read off its label (under a label size) in a
    # scanned meld with its 7H misread; the flawed run's joker read far from its place
    read = _as_laid(
        (0, 1, "JK", _box(46, 104)), (0, 2, "7D", _box(80, 100)), (2, 3, "JK", _box(400, 300))
    )
    scan = _scan(read, [(0, 1, 2), (3, 4, 5), (6, 7, 8)])
    c = bench.tally([TRUTH], lambda truth: scan)
    assert (c["joker read"], c["no joker read"]) == (0, 1)
    assert [c[w] for w in bench.JOKER_WHERE] == [1, 1, 0]
    assert c["no joker read there, flawed"] == 1
    assert c["read, in a scanned meld, flawed"] == 0
    # the same joker left out of every meld
    assert bench.joker_where(TRUTH, _scan(read, [(3, 4, 5)]), 1) == "read, in no meld"
    # a joker read a label size and more off its label is not there
    far = _as_laid((0, 1, "JK", _box(52, 100)))
    assert bench.joker_where(TRUTH, _scan(far, [(0, 1, 2)]), 1) == "no joker read there"
    # a tile read as a joker there is no card joker
    tile = _scan([("JK", _box(40, 100))], [], kind="tile")
    assert bench.joker_where(TRUTH, tile, 1) == "no joker read there"


def test_the_report_names_every_count(bench: ModuleType) -> None:
    c = Counter(
        {"joker": 4, "joker read": 3, "no joker": 2, "valid": 5, "valid read": 3, "flawed": 1}
    )
    c.update({"no joker read there": 1, "no joker read there, flawed": 1})
    text = bench.report("dev", c)
    assert "holding a card joker 3 of 4 (0.750)" in text
    assert "none 0 of 2 (0.000)" in text
    assert "flawed 0 of 1 (0.000)" in text
    assert "no joker read there 1 (1 flawed), read, in a scanned meld 0 (0 flawed)" in text
    # the fixtures mean what they say
    assert validate_meld(list(MELDS[0]), RULES, ordered=True).valid
    assert not validate_meld(list(MELDS[2]), RULES, ordered=True).valid
