"""Where cards lie on a Burraco table, as people lay them.

Melds are overlapping columns (each card shifted down just enough to leave its top-left index
visible) or rows (shifted right to leave the left index strip visible); a side's melds face that
side, so the far side's melds are upside down in the photo. The middle holds the stock, the
discard pile and the two pozzetti; fanned hands lie face up at the edges.
"""

from __future__ import annotations

import math

import numpy as np

from datasets.kit import Builder, CardKit
from datasets.melds import MeldPlan, Supply, plan_meld
from vision.classes import PieceKind

SIDE_TURN = {"A": 0.0, "B": 180.0, "L": 90.0, "R": 270.0}


def to_table(side: str, x: float, y: float, angle: float) -> tuple[tuple[float, float], float]:
    """Map a side's local frame (melds grow towards +y, i.e. towards that player) to the table."""
    a = math.radians(SIDE_TURN[side])
    c, s = math.cos(a), math.sin(a)
    return (c * x - s * y, s * x + c * y), angle + SIDE_TURN[side]


def _jitter(rng: np.random.Generator, scale: float) -> float:
    return float(rng.normal(0, scale))


def lay_meld(
    b: Builder,
    kit: CardKit,
    plan: MeldPlan,
    side: str,
    origin: tuple[float, float],
    column: bool,
    step: float,
    meld_id: int,
) -> None:
    rng = b.rng
    cw, ch = kit.size
    uids = []
    drift = _jitter(rng, 1.2)
    for i, face in enumerate(plan.faces):
        if column:
            x = origin[0] + cw / 2 + _jitter(rng, 0.02 * cw) + i * drift * 0.01 * cw
            y = origin[1] + ch / 2 + i * step + _jitter(rng, 0.01 * ch)
        else:
            x = origin[0] + cw / 2 + i * step + _jitter(rng, 0.01 * cw)
            y = origin[1] + ch / 2 + _jitter(rng, 0.02 * ch) + i * drift * 0.01 * ch
        centre, angle = to_table(side, x, y, drift + _jitter(rng, 1.5))
        uids.append(
            b.add_card(kit, face, centre, angle, side=side, meld=meld_id, meld_pos=i, area="meld")
        )
    b.melds.append(
        {
            "id": meld_id,
            "side": side,
            "kind": plan.kind.value,
            "intended_valid": plan.intended_valid,
            "flaw": plan.flaw,
            "layout": "column" if column else "row",
            "pieces": uids,
            "codes": [f.code for f in plan.faces],
        }
    )


def lay_side_melds(
    b: Builder, kit: CardKit, supply: Supply, side: str, count: int, width: float, start_y: float
) -> float:
    """Lay ``count`` melds for one side; returns the local y where they end."""
    rng = b.rng
    cw, ch = kit.size
    column = bool(rng.random() < 0.7)
    ib = kit.deck.index_box
    step = (
        (ib[3] + rng.uniform(0.02, 0.12)) * ch if column else (ib[2] + rng.uniform(0.02, 0.1)) * cw
    )
    gap = rng.uniform(0.1, 0.6) * cw
    x, y, row_h = -width / 2, start_y, 0.0
    for _ in range(count):
        plan = plan_meld(PieceKind.CARD, supply, rng)
        n = len(plan.faces)
        mw = cw if column else cw + (n - 1) * step
        mh = ch + (n - 1) * step if column else ch
        if x + mw > width / 2 and x > -width / 2:
            x, y, row_h = -width / 2, y + row_h + gap, 0.0
        lay_meld(b, kit, plan, side, (x, y), column, step, len(b.melds))
        x += mw + gap
        row_h = max(row_h, mh)
    return y + row_h


def lay_fan(
    b: Builder,
    kit: CardKit,
    supply: Supply,
    side: str,
    pivot: tuple[float, float],
    count: int,
    area: str = "hand",
) -> None:
    """A fanned hand, face up: each card turned a little more and lying on the previous one."""
    rng = b.rng
    _cw, ch = kit.size
    step = rng.uniform(5, 13)
    radius = rng.uniform(0.5, 0.9) * ch
    start = -step * (count - 1) / 2 + _jitter(rng, 8)
    for i in range(count):
        a = start + i * step
        ar = math.radians(a)
        x = pivot[0] + radius * math.sin(ar)
        y = pivot[1] - radius * math.cos(ar)
        centre, angle = to_table(side, x, y, a)
        face = supply.random_face(rng, 0.03)
        b.add_card(kit, face, centre, angle, side=side, area=area)


def lay_stack(
    b: Builder, kit: CardKit, centre: tuple[float, float], angle: float, cards: int, area: str
) -> None:
    """A face-down pile, drawn as one block of backs with its paper edge showing."""
    _cw, ch = kit.size
    height = cards * 0.0035 * ch
    b.add(
        kit.back,
        centre,
        angle,
        top=height,
        side_colour=(215, 220, 222),
        shadow=0.4,
        area=area,
        kind="back",
    )


def lay_discard(b: Builder, kit: CardKit, supply: Supply, centre: tuple[float, float]) -> None:
    rng = b.rng
    cw, ch = kit.size
    for _ in range(int(rng.integers(1, 6))):
        c = (centre[0] + _jitter(rng, 0.15 * cw), centre[1] + _jitter(rng, 0.1 * ch))
        b.add_card(kit, supply.random_face(rng), c, _jitter(rng, 15), area="discard")


def burraco_table(b: Builder, kit: CardKit) -> None:
    """Two sides' melds, the middle piles, maybe a hand being counted."""
    rng = b.rng
    cw, ch = kit.size
    supply = Supply(PieceKind.CARD, jokers=4)
    width = rng.uniform(7, 13) * cw
    mid = rng.uniform(0.65, 1.0) * ch
    for side in ("A", "B"):
        count = int(rng.integers(1, 7)) if side == "A" or rng.random() < 0.85 else 0
        end = lay_side_melds(b, kit, supply, side, count, width, mid)
        if rng.random() < 0.25:
            lay_fan(
                b, kit, supply, side, (_jitter(rng, cw), end + 1.6 * ch), int(rng.integers(4, 12))
            )
    if rng.random() < 0.85:
        lay_stack(b, kit, (-0.9 * cw, _jitter(rng, 0.05 * ch)), 90 + _jitter(rng, 5), 40, "stock")
    if rng.random() < 0.5:
        x = -2.2 * cw
        lay_stack(b, kit, (x, 0.0), 90 + _jitter(rng, 4), 11, "pozzetto")
        lay_stack(b, kit, (x + _jitter(rng, 3), _jitter(rng, 3)), _jitter(rng, 6), 11, "pozzetto")
    if rng.random() < 0.85:
        lay_discard(b, kit, supply, (0.6 * cw, 0.0))


def fans_table(b: Builder, kit: CardKit) -> None:
    """Hands dealt face up and fanned at up to four sides (like a bridge deal laid out)."""
    rng = b.rng
    cw, ch = kit.size
    supply = Supply(PieceKind.CARD, jokers=4)
    sides = ["A", "B", "L", "R"][: int(rng.integers(2, 5))]
    for side in sides:
        pivot = (_jitter(rng, 0.8 * cw), rng.uniform(1.6, 2.4) * ch)
        lay_fan(b, kit, supply, side, pivot, int(rng.integers(6, 14)))
