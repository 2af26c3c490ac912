"""``meldcam scan``'s text report (no model): what a person reads of each meld."""

from __future__ import annotations

from scorer import PieceKind, Rules, validate_meld
from vision.cli import _describe
from vision.result import ScannedMeld, ScannedPiece, ScanResult

RULES = Rules.default(PieceKind.TILES)


def test_each_meld_shows_its_pieces_and_an_invalid_one_what_is_wrong_with_them() -> None:
    codes = ["K6", "K7", "JK", "R5", "K9", "B2"]
    pieces = tuple(
        ScannedPiece(c, (10.0 * k, 0.0, 10.0 * k + 8, 12.0), 0.9, "tile")
        for k, c in enumerate(codes)
    )
    melds = (
        ScannedMeld((0, 1, 2), validate_meld(codes[:3], RULES, ordered=True), facing="near"),
        ScannedMeld((3, 4), validate_meld(codes[3:5], RULES, ordered=True), facing="far"),
    )
    result = ScanResult("t.jpg", 640, 480, "tiles", pieces, melds, (5,), {"total": 12.0})
    lines = _describe(result).splitlines()
    assert lines[0] == "t.jpg: 640x480, 6 tiles, 2 melds (12 ms)"
    assert lines[1].startswith("  meld 1 (faces the near side): valid run: K6 K7 JK=K8")
    assert lines[2] == (
        "  meld 2 (faces the far side): R5 K9: not valid: "
        + "; ".join(p.message for p in melds[1].verdict.problems)
    )
    assert lines[3] == "  not in a meld: B2"
