"""One synthetic table photo: choose the pieces' look and scale, lay out the table, paint it,
photograph it, and work out which label regions are readable.

A card corner (or a tile face) is labelled only if it is readable: at least
``READABLE_FRACTION`` of its region is on top of everything else in the id buffer and inside the
photo, and it is at least ``MIN_LABEL_PX`` tall in the photo.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import cv2
import numpy as np

from datasets.backgrounds import table_surface
from datasets.camera import Camera, make_camera
from datasets.card_art import CardDeck, DeckSource, load_deck, require_art
from datasets.compose import (
    Composite,
    Placement,
    paint,
    region_polygon,
    transform,
    visible_fraction,
)
from datasets.distractors import add_distractors
from datasets.drawn_cards import DRAWN_STYLES, drawn_deck
from datasets.effects import photo
from datasets.kit import Builder, CardKit, TileKit
from datasets.layout_cards import burraco_table, fans_table
from datasets.layout_tiles import lay_loose, tile_table
from datasets.melds import Supply
from datasets.tiles import CLASSIC_TILE_STYLES, tile_set
from vision.classes import Face, PieceKind

READABLE_FRACTION = 0.85
MIN_LABEL_PX = 7.0
MAX_CANVAS = 2800
# table-canvas px per photo px near the aimed-at piece (the photo warp then barely resamples)
CANVAS_OVERSAMPLE = 1.0
DRAWN_SHARE = 0.3
"""How often a card scene is dealt from a deck drawn by :mod:`datasets.drawn_cards` instead of
an installed one (0 for the held-out decks' scenes: those decks alone)."""
OTHER_PIPS_SHARE = 0.5
"""Given faces for the drawn decks' suits (``pips``), how often a drawn deck dealt prints them
in its style's face rather than in :data:`datasets.fonts.PIP_FONT` (session 59: short
fine-tunes taught on drawn decks half so read the decks no model has seen about as well as those
taught on all in the other faces, and the drawn decks of the classic sets better)."""


class SceneKind(StrEnum):
    CARDS = "cards"
    TILES = "tiles"
    MIXED = "mixed"


@dataclass(frozen=True, slots=True)
class SceneLabel:
    """One detector box: a readable card corner or tile face, in image pixels."""

    face: Face
    box: tuple[float, float, float, float]
    uid: int
    region: str


@dataclass(frozen=True, slots=True, eq=False)
class Scene:
    image: np.ndarray  # BGR, before JPEG
    jpeg_quality: int
    labels: tuple[SceneLabel, ...]
    truth: dict[str, Any]
    clean: np.ndarray  # the photographed table before light, blur and noise
    composite: Composite
    placements: tuple[Placement, ...]
    camera: Camera
    background: np.ndarray  # the bare table canvas the pieces were painted on
    light: tuple[float, float]  # shadow direction


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _pick_deck(
    rng: np.random.Generator, decks: tuple[DeckSource, ...], drawn: float = DRAWN_SHARE
) -> CardKit | None:
    if rng.random() < drawn or not decks:
        return None
    weights = np.array([d.weight for d in decks])
    for _ in range(4):
        source = decks[int(rng.choice(len(decks), p=weights / weights.sum()))]
        deck = load_deck(source)
        if deck is not None:
            return CardKit(deck, 64)  # resized below
    return None


def _drawn(rng: np.random.Generator, pips: tuple[str, ...]) -> CardDeck:
    """A drawn deck, its suits in one of ``pips`` :data:`OTHER_PIPS_SHARE` of the time (no
    draw is spent on it without ``pips``: the classic sets deal as before)."""
    style = int(rng.integers(DRAWN_STYLES))
    return drawn_deck(style, pips if pips and rng.random() < OTHER_PIPS_SHARE else ())


def _card_kit(
    rng: np.random.Generator,
    decks: tuple[DeckSource, ...],
    index_px: float,
    detail: float = 1.0,
    drawn: float = DRAWN_SHARE,
    pips: tuple[str, ...] = (),
) -> tuple[CardKit, float]:
    picked = _pick_deck(rng, decks, drawn)
    deck = picked.deck if picked is not None else _drawn(rng, pips)
    # a deck without jokers (most KDE decks) plays with a drawn deck's
    jokers = None if deck.has_jokers else _drawn(rng, pips)
    idx_frac = deck.index_box[3] - deck.index_box[1]
    card_h_img = index_px / idx_frac
    height = int(np.clip(card_h_img * CANVAS_OVERSAMPLE, 48 * detail, 300 * detail))
    return CardKit(deck, height, jokers=jokers), card_h_img / height


def render_scene(
    seed: int | np.random.SeedSequence,
    kind: SceneKind = SceneKind.MIXED,
    size: tuple[int, int] = (1280, 960),
    decks: tuple[DeckSource, ...] | None = None,
    framing: int | None = None,
    drawn: float = DRAWN_SHARE,
    tile_styles: Sequence[int] = CLASSIC_TILE_STYLES,
    pips: tuple[str, ...] = (),
) -> Scene:
    """Render one scene; the same seed gives the same scene.

    ``framing`` (default: ``size``'s long side) frames the table as a photo of that long side
    would and renders it at ``size``: the pieces, the lens and motion blur and the smallest
    labelled piece are ``detail`` = size / framing times as many pixels (``size`` 4032 with
    ``framing`` 1280: a 1280 px scene as a 12 MP phone takes it). The sensor noise and JPEG
    quality stay per pixel, as a finer sensor's would. ``drawn``: the share of card scenes dealt
    from a drawn deck rather than from ``decks`` (:data:`DRAWN_SHARE`); ``tile_styles``: the tile
    styles drawn from (by default :data:`datasets.tiles.CLASSIC_TILE_STYLES`, as every set drew
    until session 31; ``TRAINED_TILE_STYLES`` for new training scenes, ``HELD_OUT_TILE_STYLES``
    for tiles no model trains on); ``pips``: faces a drawn deck prints its suits in, one a deck,
    :data:`OTHER_PIPS_SHARE` of the time (by default none: :data:`datasets.fonts.PIP_FONT`
    alone, as every set drew until session 59; :data:`datasets.fonts.WIDER_PIP_FONTS` for new
    training scenes)."""
    detail = max(size) / (framing or max(size))
    rng = np.random.default_rng(seed)
    if kind is SceneKind.MIXED:
        roll = rng.random()
        what = "both" if roll < 0.1 else ("cards" if roll < 0.55 else "tiles")
    else:
        what = kind.value
    if what in ("cards", "both") and decks is None:
        decks = require_art()
    portrait = rng.random() < 0.25
    image_size = (size[1], size[0]) if portrait else size
    index_px = _log_uniform(rng, 13, 75) * detail
    b = Builder(rng)
    style: dict[str, Any] = {"what": what}
    if what in ("cards", "both"):
        assert decks is not None
        kit, scale = _card_kit(rng, decks, index_px, detail, drawn, pips)
        piece_h = float(kit.size[1])
        style["deck"] = kit.deck.key
        if kit.jokers is not None:
            style["jokers"] = kit.jokers.key
        if rng.random() < 0.2:
            fans_table(b, kit)
            style["layout"] = "fans"
        else:
            burraco_table(b, kit)
            style["layout"] = "burraco"
        if what == "both":
            tkit = TileKit(
                tile_set(tile_styles[int(rng.integers(len(tile_styles)))]),
                max(int(20 * detail), int(piece_h * 0.42)),
            )
            lay_loose(b, tkit, Supply(PieceKind.TILE, 2), int(rng.integers(3, 10)), 4 * piece_h)
            style["tiles"] = tkit.tiles.style
    else:
        tile_h_img = index_px / 0.42
        th = int(np.clip(tile_h_img * CANVAS_OVERSAMPLE, 32 * detail, 160 * detail))
        scale = tile_h_img / th
        tkit = TileKit(tile_set(tile_styles[int(rng.integers(len(tile_styles)))]), th)
        piece_h = float(th)
        tile_table(b, tkit)
        style["tiles"] = tkit.tiles.style
        style["layout"] = "tiles"
    add_distractors(b, piece_h, (6 * piece_h, 4 * piece_h))

    camera = _camera(rng, b.placements, image_size, scale)
    origin, canvas_size = _canvas_bounds(camera, image_size, MAX_CANVAS * detail)
    surface, background = table_surface(rng, *canvas_size)
    light = (float(rng.normal(0.6, 0.8)), float(rng.normal(1.0, 0.8)))
    comp = paint(background, origin, b.placements, camera, light)
    to_image = camera.homography @ np.array([[1, 0, origin[0]], [0, 1, origin[1]], [0, 0, 1]])
    clean = cv2.warpPerspective(
        comp.canvas, to_image, image_size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT101
    )
    image, effects = photo(
        rng, clean, lambda: _glossy(comp, b.placements, to_image, image_size), detail
    )
    quality = int(rng.integers(30, 96))
    labels, pieces = _labels_and_pieces(
        comp, b.placements, camera, origin, image_size, MIN_LABEL_PX * detail
    )
    truth = {
        "width": image_size[0],
        "height": image_size[1],
        "kind": what,
        "surface": surface,
        "style": style,
        "camera": {
            "tilt_deg": round(camera.tilt_deg, 2),
            "yaw_deg": round(camera.yaw_deg, 2),
            "index_px": round(index_px, 1),
        },
        "jpeg_quality": quality,
        "photo": effects,
        "pieces": pieces,
        "melds": b.melds,
        "others": [
            {"uid": p.uid, "kind": p.info.get("kind"), "area": p.info.get("area")}
            for p in b.placements
            if p.face is None and p.uid in comp.painted
        ],
    }
    return Scene(
        image,
        quality,
        tuple(labels),
        truth,
        clean,
        comp,
        tuple(b.placements),
        camera,
        background,
        light,
    )


def _camera(
    rng: np.random.Generator,
    placements: list[Placement],
    image_size: tuple[int, int],
    scale: float,
) -> Camera:
    tilt = float(min(40.0, abs(rng.normal(0, 20))))
    yaw = float(rng.normal(0, 12)) if rng.random() < 0.6 else float(rng.uniform(0, 360))
    faces = [p for p in placements if p.face is not None] or placements
    if faces and rng.random() < 0.6:
        p = faces[int(rng.integers(len(faces)))]
        w, h = p.size
        c = transform(p.matrix, [(w / 2, h / 2)])[0]
        target = (float(c[0]), float(c[1]))
    else:
        target = (float(rng.normal(0, 40)), float(rng.normal(0, 40)))
    shift = (float(rng.normal(0, 0.03 * image_size[0])), float(rng.normal(0, 0.03 * image_size[1])))
    return make_camera(image_size, target, scale, tilt, yaw, float(rng.uniform(60, 75)), shift)


def _canvas_bounds(
    camera: Camera, image_size: tuple[int, int], max_canvas: float = MAX_CANVAS
) -> tuple[tuple[float, float], tuple[int, int]]:
    w, h = image_size
    corners = camera.unproject(np.array([(0, 0), (w, 0), (w, h), (0, h)], float))
    x0, y0 = corners.min(axis=0) - 16
    x1, y1 = corners.max(axis=0) + 16
    centre = camera.unproject(np.array([(w / 2, h / 2)], float))[0]
    half = max_canvas / 2
    x0, x1 = max(x0, centre[0] - half), min(x1, centre[0] + half)
    y0, y1 = max(y0, centre[1] - half), min(y1, centre[1] + half)
    return (math.floor(x0), math.floor(y0)), (math.ceil(x1 - x0), math.ceil(y1 - y0))


def _glossy(
    comp: Composite, placements: list[Placement], to_image: np.ndarray, image_size: tuple[int, int]
) -> np.ndarray:
    """Where the photo shows shiny pieces (0..1), at half the photo's resolution."""
    lut = np.zeros(len(placements) + 1, np.uint8)
    for p in placements:
        if p.info.get("kind") in ("card", "back", "tile"):
            lut[p.uid] = 255
    mask = lut[comp.ids[::2, ::2]]  # -1 indexes the last entry, which is 0
    half = np.diag([0.5, 0.5, 1.0]) @ to_image @ np.diag([2.0, 2.0, 1.0])
    small = (image_size[0] // 2, image_size[1] // 2)
    warped = cv2.warpPerspective(mask, half, small, flags=cv2.INTER_NEAREST)
    return np.asarray(warped.astype(np.float32) / 255.0)


def _clipped_fraction(poly: np.ndarray, size: tuple[int, int]) -> tuple[float, np.ndarray | None]:
    w, h = size
    rect = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    p = poly.astype(np.float32)
    if cv2.contourArea(p, oriented=True) < 0:
        p = p[::-1].copy()
    area = abs(cv2.contourArea(p))
    if area < 1e-6:
        return 0.0, None
    inter_area, inter = cv2.intersectConvexConvex(p, rect)
    if inter is None or inter_area <= 0:
        return 0.0, None
    return float(inter_area / area), inter.reshape(-1, 2)


def _labels_and_pieces(
    comp: Composite,
    placements: list[Placement],
    camera: Camera,
    origin: tuple[float, float],
    image_size: tuple[int, int],
    min_label_px: float = MIN_LABEL_PX,
) -> tuple[list[SceneLabel], list[dict[str, Any]]]:
    labels: list[SceneLabel] = []
    pieces: list[dict[str, Any]] = []
    off = np.array(origin)
    for p in placements:
        painted = comp.painted.get(p.uid)
        if p.face is None or painted is None:
            continue
        whole = region_polygon(p, (0, 0, 1, 1), painted.face_matrix) + off
        whole_img = camera.project(whole)
        inside_whole, _ = _clipped_fraction(whole_img, image_size)
        if inside_whole <= 0:
            continue
        regions = []
        for name, box in p.regions:
            vis = visible_fraction(comp, p, box)
            poly_img = camera.project(region_polygon(p, box, painted.face_matrix) + off)
            inside, clipped = _clipped_fraction(poly_img, image_size)
            bbox = None
            if clipped is not None:
                x0, y0 = clipped.min(axis=0)
                x1, y1 = clipped.max(axis=0)
                bbox = (
                    round(float(x0), 2),
                    round(float(y0), 2),
                    round(float(x1), 2),
                    round(float(y1), 2),
                )
            big = bbox is not None and min(bbox[2] - bbox[0], bbox[3] - bbox[1]) >= min_label_px
            readable = bool(vis >= READABLE_FRACTION and inside >= READABLE_FRACTION and big)
            regions.append(
                {
                    "name": name,
                    "polygon": np.round(poly_img, 2).tolist(),
                    "box": None if bbox is None else list(bbox),
                    "visible": round(vis, 3),
                    "inside": round(inside, 3),
                    "readable": readable,
                }
            )
            if readable and bbox is not None:
                labels.append(SceneLabel(p.face, bbox, p.uid, name))
        pieces.append(
            {
                "uid": p.uid,
                "kind": p.face.kind.value,
                "code": p.face.code,
                "polygon": np.round(whole_img, 2).tolist(),
                "regions": regions,
                "readable": any(r["readable"] for r in regions),
                "side": p.info.get("side"),
                "meld": p.info.get("meld"),
                "meld_pos": p.info.get("meld_pos"),
                "area": p.info.get("area"),
            }
        )
    return labels, pieces
