"""Invariants of the rules core, checked on generated melds and rounds (hypothesis)."""

from __future__ import annotations

from collections import Counter

from hypothesis import example, given, settings
from hypothesis import strategies as st

from scorer import (
    PRESETS,
    BurracoKind,
    Card,
    MeldcamError,
    Piece,
    PieceKind,
    Rank,
    Round,
    Rules,
    Side,
    Suit,
    Tile,
    full_set,
    parse_piece,
    score_round,
    validate_meld,
)
from scorer.pieces import JOKER, Colour

FIBUR = Rules.preset("burraco-fibur")
PURITY = {None: 3, BurracoKind.PURE: 0, BurracoKind.SEMI_PURE: 1, BurracoKind.IMPURE: 2}


@st.composite
def card_runs(draw: st.DrawFn) -> tuple[Piece, ...]:
    """A valid run as laid out: ascending, possibly with one wild in any position."""
    suit = draw(st.sampled_from(list(Suit)))
    length = draw(st.integers(3, 13))
    start = draw(st.integers(1, 14 - length + 1))  # 14: the high ace
    run: list[Piece] = [Card(Rank.from_number(n), suit) for n in range(start, start + length)]
    if draw(st.booleans()):
        i = draw(st.integers(0, length - 1))
        other = draw(st.sampled_from([s for s in Suit if s is not suit]))
        run[i] = draw(st.sampled_from([JOKER, Card(Rank.TWO, other)]))
    return tuple(run)


@st.composite
def card_sets(draw: st.DrawFn) -> tuple[Piece, ...]:
    rank = draw(st.sampled_from([r for r in Rank if r is not Rank.TWO]))
    naturals = draw(st.lists(st.sampled_from(list(Suit)), min_size=2, max_size=8))
    counts = Counter(naturals)
    if any(n > 2 for n in counts.values()):
        naturals = list(dict.fromkeys(naturals)) * 2
    pieces: list[Piece] = [Card(rank, suit) for suit in naturals][:8]
    if len(pieces) < 3 or draw(st.booleans()):
        pieces.append(draw(st.sampled_from([JOKER, Card(Rank.TWO, Suit.CLUBS)])))
    return tuple(pieces)


@settings(max_examples=300, deadline=None)
@given(meld=st.one_of(card_runs(), card_sets()), data=st.data())
def test_valid_meld_stays_valid_under_any_shuffle(
    meld: tuple[Piece, ...], data: st.DataObject
) -> None:
    laid_out = validate_meld(meld, FIBUR, ordered=True)
    assert laid_out.valid, laid_out.explain()
    shuffled = data.draw(st.permutations(meld))
    read = validate_meld(shuffled, FIBUR)
    assert read.valid, read.explain()
    assert Counter(read.pieces) == Counter(meld)
    # The best reading is at least as pure as the physical one, and worth the same.
    assert PURITY[read.burraco] <= PURITY[laid_out.burraco]
    assert read.points == laid_out.points


@settings(max_examples=200, deadline=None)
@given(meld=card_runs())
def test_adding_a_natural_never_makes_a_pure_meld_impure(meld: tuple[Piece, ...]) -> None:
    verdict = validate_meld(meld, FIBUR, ordered=True)
    if verdict.wilds or verdict.group is None or verdict.low is None:
        return
    above = verdict.low + len(meld)
    below = verdict.low - 1
    for number in (below, above):
        if 1 <= number <= 14 and len(meld) < 13:
            grown = validate_meld((*meld, Card(Rank.from_number(number), verdict.group)), FIBUR)
            assert grown.valid
            assert grown.burraco in (None, BurracoKind.PURE)


ANY_CARD = st.sampled_from([*full_set(PieceKind.CARDS), JOKER])
ANY_TILE = st.sampled_from([*full_set(PieceKind.TILES), JOKER])


@settings(max_examples=400, deadline=None)
@given(
    preset=st.sampled_from(list(PRESETS)),
    ordered=st.booleans(),
    data=st.data(),
)
def test_any_pieces_get_a_verdict_never_an_exception(
    preset: str, ordered: bool, data: st.DataObject
) -> None:
    rules = Rules.preset(preset)
    pool = ANY_CARD if rules.pieces is PieceKind.CARDS else ANY_TILE
    meld = data.draw(st.lists(pool, min_size=0, max_size=15))
    verdict = validate_meld(meld, rules, ordered=ordered)
    assert verdict.valid == (not verdict.problems)
    if verdict.valid:
        assert Counter(verdict.pieces) == Counter(meld)
        assert len(verdict.reading) == len(meld)
        assert verdict.kind is not None
        assert (verdict.burraco is not None) == (
            rules.burraco_size is not None and len(meld) >= rules.burraco_size
        )
    else:
        assert verdict.kind is None and verdict.bonus == 0


@settings(max_examples=300, deadline=None)
@given(token=st.text(max_size=5))
@example(token="R\u00b9")  # a superscript one: a digit to str.isdigit(), not to int()
@example(token="B\u0661")  # an Arabic-Indic one
def test_parser_reads_or_refuses_every_string(token: str) -> None:
    try:
        piece = parse_piece(token)
    except MeldcamError as error:
        assert repr(token) in str(error)
        return
    assert parse_piece(str(piece)) == piece


def sides_strategy(rules: Rules) -> st.SearchStrategy[Side]:
    pool = ANY_CARD if rules.pieces is PieceKind.CARDS else ANY_TILE
    return st.builds(
        Side,
        name=st.sampled_from(["x"]),
        melds=st.lists(card_runs(), max_size=3).map(tuple)
        if rules.pieces is PieceKind.CARDS
        else st.just(((Tile(Colour.RED, Rank.FIVE),) * 3,)),
        hands=st.lists(pool, max_size=6).map(lambda h: (tuple(h),)),
        took_pot=st.booleans(),
    )


@settings(max_examples=150, deadline=None)
@given(
    preset=st.sampled_from(["burraco-fibur", "burraco-002", "rummy-003"]),
    data=st.data(),
)
def test_scores_are_additive_over_sides(preset: str, data: st.DataObject) -> None:
    rules = Rules.preset(preset)
    a = data.draw(sides_strategy(rules))
    b = data.draw(sides_strategy(rules))
    c = data.draw(sides_strategy(rules))
    a, b, c = (Side(n, s.melds, s.hands, s.took_pot) for n, s in zip("abc", (a, b, c), strict=True))
    together = score_round(Round(rules, (a, b)))
    apart = score_round(Round(rules, (a, c)))
    # A side's sheet depends on that side alone, and its total is the sum of its lines.
    assert together.sides[0].lines == apart.sides[0].lines
    for sheet in together.sides:
        assert sheet.total == sum(line.points for line in sheet.lines)
