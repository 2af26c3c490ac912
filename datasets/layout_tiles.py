"""Where tiles lie in Burako / tile Rummy: melds in touching rows, racks, the face-down pool."""

from __future__ import annotations

import numpy as np

from datasets.kit import Builder, TileKit
from datasets.layout_cards import to_table
from datasets.melds import Supply, plan_meld
from datasets.tiles import rack_face
from vision.classes import COLOURS, NUMBERS, Face, PieceKind


def _j(rng: np.random.Generator, s: float) -> float:
    return float(rng.normal(0, s))


def lay_tile_melds(b: Builder, kit: TileKit, supply: Supply, count: int, width: float) -> float:
    """Meld rows across the middle of the table; returns the bottom y of the last row."""
    rng = b.rng
    tw, th = kit.size
    gap = rng.uniform(0.0, 0.05) * tw
    x, y = -width / 2, -rng.uniform(1.5, 3.0) * th
    row_gap = rng.uniform(0.25, 0.9) * th
    for _ in range(count):
        plan = plan_meld(PieceKind.TILE, supply, rng)
        n = len(plan.faces)
        mw = n * tw + (n - 1) * gap
        if x + mw > width / 2 and x > -width / 2:
            x, y = -width / 2, y + th + row_gap
        side = "B" if rng.random() < 0.12 else "A"
        tilt = _j(rng, 2.0)
        uids = []
        for i, face in enumerate(plan.faces):
            lx = x + tw / 2 + i * (tw + gap) + _j(rng, 0.01 * tw)
            ly = y + th / 2 + i * np.tan(np.radians(tilt)) * tw + _j(rng, 0.01 * th)
            if side == "B":  # faces the far player: same spot, turned round
                centre, angle = (lx, ly), 180 + tilt + _j(rng, 1.0)
            else:
                centre, angle = (lx, ly), tilt + _j(rng, 1.0)
            uids.append(
                b.add_tile(
                    kit, face, centre, angle, side=side, meld=len(b.melds), meld_pos=i, area="meld"
                )
            )
        b.melds.append(
            {
                "id": len(b.melds),
                "side": side,
                "kind": plan.kind.value,
                "intended_valid": plan.intended_valid,
                "flaw": plan.flaw,
                "layout": "row",
                "pieces": uids,
                "codes": [f.code for f in plan.faces],
            }
        )
        x += mw + rng.uniform(0.3, 1.2) * tw
    return y + th


def lay_rack(b: Builder, kit: TileKit, supply: Supply, side: str, y: float) -> None:
    """A two-tier rack facing its player, tiles standing on both tiers."""
    rng = b.rng
    tw, th = kit.size
    slots = 15
    rw, rh = int(slots * tw * 1.04), int(th * 2.3)
    rack = rack_face(rw, rh, rng)
    centre, angle = to_table(side, _j(rng, 0.3 * tw), y + rh / 2, _j(rng, 2))
    height = 0.12 * th
    edge = (
        int(rack[rh // 2, 0, 0] * 0.6),
        int(rack[rh // 2, 0, 1] * 0.6),
        int(rack[rh // 2, 0, 2] * 0.6),
    )
    b.add(rack, centre, angle, top=height, side_colour=edge, shadow=0.45, kind="rack", area="rack",
          side=side)  # fmt: skip
    for tier in range(2):
        n = int(rng.integers(3, slots))
        start = int(rng.integers(0, slots - n + 1))
        for k in range(n):
            lx = -rw / 2 + (start + k + 0.5) * tw * 1.02 + tw * 0.1
            ly = -rh / 2 + (tier + 0.5) * rh / 2 - 0.03 * th
            # the rack's frame turned onto the table
            c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
            tc = (centre[0] + c * lx - s * ly, centre[1] + s * lx + c * ly)
            face = supply.random_face(rng, 0.04)
            b.add_tile(kit, face, tc, angle + _j(rng, 1.5), base=height, side=side, area="rack")


def lay_pool(b: Builder, kit: TileKit, count: int, centre: tuple[float, float]) -> None:
    """Face-down tiles scattered in a heap."""
    rng = b.rng
    tw, th = kit.size
    for _ in range(count):
        c = (centre[0] + _j(rng, 1.5 * tw), centre[1] + _j(rng, 1.2 * th))
        b.add(kit.back, c, float(rng.uniform(0, 360)), top=kit.thickness,
              side_colour=kit.tiles.side_colour, shadow=0.4, kind="back", area="pool")  # fmt: skip


def lay_loose(b: Builder, kit: TileKit, supply: Supply, count: int, spread: float) -> None:
    rng = b.rng
    for _ in range(count):
        c = (_j(rng, spread), _j(rng, spread * 0.7))
        b.add_tile(kit, supply.random_face(rng, 0.05), c, float(rng.uniform(0, 360)), area="loose")


def lay_grid(b: Builder, kit: TileKit) -> None:
    """A whole set laid out colour by colour, number by number."""
    rng = b.rng
    tw, th = kit.size
    gap = rng.uniform(0.05, 0.4) * tw
    for r, colour in enumerate(COLOURS):
        for i, n in enumerate(NUMBERS):
            c = (
                (i - 6) * (tw + gap) + _j(rng, 0.03 * tw),
                (r - 1.5) * (th + gap) + _j(rng, 0.03 * th),
            )
            b.add_tile(kit, Face.tile(colour, n), c, _j(rng, 2), area="grid")
    for k in range(2):
        c = (7 * (tw + gap), (k - 0.5) * (th + gap))
        b.add_tile(kit, Face(PieceKind.TILE, "JK"), c, _j(rng, 2), area="grid")


def tile_table(b: Builder, kit: TileKit) -> None:
    rng = b.rng
    tw, th = kit.size
    supply = Supply(PieceKind.TILE, jokers=2)
    if rng.random() < 0.1:
        lay_grid(b, kit)
        return
    bottom = lay_tile_melds(b, kit, supply, int(rng.integers(1, 9)), rng.uniform(8, 18) * tw)
    if rng.random() < 0.45:
        lay_rack(b, kit, supply, "A", bottom + rng.uniform(0.8, 2.0) * th)
    if rng.random() < 0.4:
        lay_pool(
            b, kit, int(rng.integers(5, 25)), (rng.uniform(-8, 8) * tw, -rng.uniform(3, 6) * th)
        )
    if rng.random() < 0.3:
        lay_loose(b, kit, supply, int(rng.integers(2, 12)), 5 * tw)
