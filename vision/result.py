"""What a scan returns: physical pieces, melds with their verdicts, the rest, timings."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from scorer import Verdict
from vision.afar import afar, low_resolution, piece_px, piece_size
from vision.quality import colourless, shaken


@dataclass(frozen=True, slots=True)
class ScannedPiece:
    """One physical piece: its code, its box in photo pixels, how sure the reading is."""

    code: str
    box: tuple[float, float, float, float]
    confidence: float
    kind: str  # "card" or "tile"
    alternatives: tuple[tuple[str, float], ...] = ()
    """The classifier's next likeliest faces, with their probabilities."""
    uncertain: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "box": [round(v, 1) for v in self.box],
            "confidence": round(self.confidence, 4),
        }


@dataclass(frozen=True, slots=True)
class ScannedMeld:
    pieces: tuple[int, ...]
    """Indexes into the scan's pieces, in the meld's physical order."""
    verdict: Verdict
    repaired: tuple[int, ...] = ()
    """Indexes of pieces whose reading the rules changed (see :mod:`vision.repair`)."""
    facing: str | None = None
    """The side of the table the meld faces (:data:`vision.facing.FACINGS`), None if unknown."""

    def to_json(self) -> dict[str, Any]:
        return {
            "pieces": list(self.pieces),
            "verdict": self.verdict.to_json(),
            "facing": self.facing,
        }


@dataclass(frozen=True, slots=True)
class ScanResult:
    """One photo's scan. ``to_json()`` is one line of ``meldcam scan --json``."""

    path: str
    width: int
    height: int
    kind: str  # "cards" or "tiles"
    pieces: tuple[ScannedPiece, ...]
    melds: tuple[ScannedMeld, ...]
    unassigned: tuple[int, ...]
    timing_ms: dict[str, float] = field(default_factory=dict)
    hands: tuple[tuple[int, ...], ...] = ()
    """Hands (indexes into pieces, in order): fanned cards, the tiles on one tier of a rack, or a
    row most of whose pieces belong to no one meld; their pieces are also unassigned."""
    shake: float = math.nan
    """How much the hand moved while the photo was taken (:func:`vision.quality.shake`: 1 for
    not at all, NaN where too few pieces could be measured)."""
    colour: float = math.nan
    """How much colour the photo holds (:func:`vision.quality.colour_level`: 0 for black and
    white; NaN where not measured)."""

    @property
    def shaken(self) -> bool:
        """Whether the photo looks taken by a moving hand, enough to misread cards: worth
        taking again."""
        return shaken(self.shake, self.kind)

    @property
    def colourless(self) -> bool:
        """Whether the photo is black and white: red cards read as black ones and tiles'
        colours cannot be told, so every piece but a joker is uncertain; worth taking again in
        colour."""
        return colourless(self.colour)

    @property
    def piece_size(self) -> float:
        """The median piece's size as a share of the photo's longer side
        (:func:`vision.afar.piece_size`; NaN when no piece was found)."""
        return piece_size([p.box for p in self.pieces], self.width, self.height)

    @property
    def afar(self) -> bool:
        """Whether the photo shows its cards too small to be read reliably (a whole table from
        afar): worth taking again closer, a side at a time."""
        return afar(self.piece_size, self.kind)

    @property
    def piece_px(self) -> float:
        """The median piece's size in the photo's pixels (:func:`vision.afar.piece_px`; NaN when
        no piece was found)."""
        return piece_px([p.box for p in self.pieces])

    @property
    def low_resolution(self) -> bool:
        """Whether the photo has too few pixels for its pieces to be read reliably, though it
        was not taken from afar (a thumbnail, a photo shrunk by a messenger): worth sending at
        its full size."""
        return low_resolution(self.piece_px, self.piece_size, self.kind)

    @property
    def warned(self) -> bool:
        """Whether the photo is worth taking again any of the ways above (shaken, colourless,
        afar, low_resolution): what ``meldcam scan`` warns of and the pages ask a photo again
        for."""
        return self.shaken or self.colourless or self.afar or self.low_resolution

    @property
    def uncertain(self) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.pieces) if p.uncertain)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "width": self.width,
            "height": self.height,
            "kind": self.kind,
            "pieces": [p.to_json() for p in self.pieces],
            "melds": [m.to_json() for m in self.melds],
            "unassigned": list(self.unassigned),
            "hands": [list(h) for h in self.hands],
            "uncertain": list(self.uncertain),
            "shaken": self.shaken,
            "shake": None if math.isnan(self.shake) else round(self.shake, 2),
            "afar": self.afar,
            "colourless": self.colourless,
            "colour": None if math.isnan(self.colour) else round(self.colour, 1),
            "piece_size": None if math.isnan(size := self.piece_size) else round(size, 4),
            "low_resolution": self.low_resolution,
            "piece_px": None if math.isnan(px := self.piece_px) else round(px, 1),
            "timing_ms": {k: round(v, 1) for k, v in self.timing_ms.items()},
        }


def error_json(path: str, error: Exception) -> dict[str, Any]:
    """The line of ``meldcam scan --json`` for a photo that could not be scanned."""
    reason = getattr(error, "reason", None) or str(error)
    return {"path": path, "error": f"{type(error).__name__}: {reason}"}
