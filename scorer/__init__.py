"""meldcam's rules core: pieces, table rules, meld verdicts, round sheets, games.

Pure Python: no I/O, no numpy, torch or flask. Everything a player is told about
a meld or a score comes from here.

>>> from scorer import Rules, validate_meld
>>> validate_meld("QS KS AS", Rules.preset("burraco-fibur")).valid
True
"""

from scorer.errors import (
    InvalidGameError,
    InvalidPieceError,
    InvalidRoundError,
    InvalidRulesError,
    MeldcamError,
    UnknownPresetError,
    WrongPieceKindError,
)
from scorer.game import Game, victory_points
from scorer.melds import (
    BurracoKind,
    MeldKind,
    Problem,
    ProblemCode,
    Reading,
    Verdict,
    validate_meld,
)
from scorer.moves import AddResult, SwapResult, add_to_meld, swap_joker
from scorer.pieces import (
    Card,
    Colour,
    Joker,
    Piece,
    PieceKind,
    Rank,
    Suit,
    Tile,
    format_pieces,
    full_set,
    parse_piece,
    parse_pieces,
)
from scorer.round import (
    Line,
    LineReason,
    Round,
    RoundSheet,
    Side,
    SideSheet,
    first_meld_problems,
    score_round,
)
from scorer.rules import PRESETS, ClosingDiscard, Rules, RummyScoring, SemiPure
from scorer.table import count_problems

__all__ = [
    "PRESETS",
    "AddResult",
    "BurracoKind",
    "Card",
    "ClosingDiscard",
    "Colour",
    "Game",
    "InvalidGameError",
    "InvalidPieceError",
    "InvalidRoundError",
    "InvalidRulesError",
    "Joker",
    "Line",
    "LineReason",
    "MeldKind",
    "MeldcamError",
    "Piece",
    "PieceKind",
    "Problem",
    "ProblemCode",
    "Rank",
    "Reading",
    "Round",
    "RoundSheet",
    "Rules",
    "RummyScoring",
    "SemiPure",
    "Side",
    "SideSheet",
    "Suit",
    "SwapResult",
    "Tile",
    "UnknownPresetError",
    "Verdict",
    "WrongPieceKindError",
    "add_to_meld",
    "count_problems",
    "first_meld_problems",
    "format_pieces",
    "full_set",
    "parse_piece",
    "parse_pieces",
    "score_round",
    "swap_joker",
    "validate_meld",
    "victory_points",
]
