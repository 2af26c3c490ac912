"""The sprites of one scene at the scene's scale, and a builder that places them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from datasets.card_art import ATLAS_ROW, BACK_CELL, JOKER_CELLS, CardDeck, joker_label_box
from datasets.compose import Box, Placement, place_matrix
from datasets.tiles import TileSet, tile_thickness
from vision.classes import RANKS, Face, PieceKind


def _fit(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``img`` resized to ``size``: area averaging when it shrinks by 2 or more, bilinear when
    less (the same picture within ~37 dB PSNR there, and 4-8x cheaper than OpenCV's area
    resize at a fractional ratio)."""
    if img.shape[0] < 2 * size[1]:
        return cv2.resize(img, size, interpolation=cv2.INTER_LINEAR)
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA)


def _flip_box(b: Box) -> Box:
    return (1 - b[2], 1 - b[3], 1 - b[0], 1 - b[1])


@dataclass(slots=True, eq=False)
class CardKit:
    """A deck's faces resized (on first use) so a card is ``height`` table px tall."""

    deck: CardDeck
    height: int
    cache: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    jokers: CardDeck | None = None
    """Where the jokers come from when ``deck`` has none (most KDE decks): drawn to its size."""

    @property
    def size(self) -> tuple[int, int]:
        w, h = self.deck.cell
        return max(8, round(w * self.height / h)), self.height

    def _cell(self, r: int, c: int) -> np.ndarray:
        if (r, c) not in self.cache:
            lender = self.jokers if self.jokers is not None and (r, c) in JOKER_CELLS else self.deck
            self.cache[(r, c)] = _fit(lender.face(r, c), self.size)
        return self.cache[(r, c)]

    def sprite(self, face: Face, red_joker: bool = False) -> np.ndarray:
        if face.is_joker:
            return self._cell(*JOKER_CELLS[1 if red_joker else 0])
        rank, suit = face.rank, face.suit
        assert rank is not None and suit is not None
        return self._cell(ATLAS_ROW[suit], RANKS.index(rank))

    @property
    def back(self) -> np.ndarray:
        return self._cell(*BACK_CELL)

    def regions(self, face: Face) -> tuple[tuple[str, Box], ...]:
        """The regions labelled on ``face``: its top-left corner index and the bottom-right one
        (a joker's mark by its top, as tall as its own deck's index: :func:`joker_label_box`)."""
        if face.is_joker:
            lender = self.jokers or self.deck
            box = joker_label_box(lender.joker_box, lender.index_box)
        else:
            box = self.deck.index_box
        return (("tl", box), ("br", _flip_box(box)))


@dataclass(slots=True, eq=False)
class TileKit:
    """A tile set resized so a tile is ``height`` table px tall."""

    tiles: TileSet
    height: int
    cache: dict[tuple[str, bool], np.ndarray] = field(default_factory=dict)

    @property
    def size(self) -> tuple[int, int]:
        w, h = self.tiles.size
        return max(6, round(w * self.height / h)), self.height

    def _resize(self, img: np.ndarray) -> np.ndarray:
        return _fit(img, self.size)

    def sprite(self, face: Face, red_joker: bool = False) -> np.ndarray:
        key = (face.code, red_joker)
        if key not in self.cache:
            if face.is_joker:
                img = self.tiles.jokers[1 if red_joker else 0]
            else:
                colour, number = face.colour, face.number
                assert colour is not None and number is not None
                img = self.tiles.faces[(colour, number)]
            self.cache[key] = self._resize(img)
        return self.cache[key]

    @property
    def back(self) -> np.ndarray:
        if ("back", False) not in self.cache:
            self.cache[("back", False)] = self._resize(self.tiles.back)
        return self.cache[("back", False)]

    @property
    def thickness(self) -> float:
        return tile_thickness(self.size)


@dataclass(slots=True, eq=False)
class Builder:
    """Collects placements in paint order (later ones lie on top) and meld records."""

    rng: np.random.Generator
    placements: list[Placement] = field(default_factory=list)
    melds: list[dict[str, object]] = field(default_factory=list)

    def next_uid(self) -> int:
        return len(self.placements)

    def add(
        self,
        sprite: np.ndarray,
        centre: tuple[float, float],
        angle: float,
        *,
        face: Face | None = None,
        regions: tuple[tuple[str, Box], ...] = (),
        base: float = 0.0,
        top: float = 0.0,
        side_colour: tuple[int, int, int] | None = None,
        shadow: float = 0.3,
        occludes: bool = True,
        alpha_scale: float = 1.0,
        **info: object,
    ) -> int:
        uid = self.next_uid()
        size = (sprite.shape[1], sprite.shape[0])
        self.placements.append(
            Placement(
                uid,
                sprite,
                place_matrix(size, centre, angle),
                face,
                regions,
                base,
                top,
                side_colour,
                shadow,
                occludes,
                alpha_scale,
                dict(info),
            )
        )
        return uid

    def add_card(
        self,
        kit: CardKit,
        face: Face,
        centre: tuple[float, float],
        angle: float,
        **info: Any,  # metadata (side, area, ...) for add's **info
    ) -> int:
        red = bool(self.rng.random() < 0.5)
        return self.add(
            kit.sprite(face, red),
            centre,
            angle,
            face=face,
            regions=kit.regions(face),
            shadow=0.28,
            kind=PieceKind.CARD.value,
            **info,
        )

    def add_tile(
        self,
        kit: TileKit,
        face: Face,
        centre: tuple[float, float],
        angle: float,
        base: float = 0.0,
        **info: Any,  # metadata (side, area, ...) for add's **info
    ) -> int:
        red = bool(self.rng.random() < 0.5)
        return self.add(
            kit.sprite(face, red),
            centre,
            angle,
            face=face,
            regions=(("face", (0.0, 0.0, 1.0, 1.0)),),
            base=base,
            top=base + kit.thickness,
            side_colour=kit.tiles.side_colour,
            shadow=0.4,
            kind=PieceKind.TILE.value,
            **info,
        )
