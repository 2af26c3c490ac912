"""Labels sit on readable pieces: inside the photo, on top of everything, matching the render."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.card_art import DeckSource
from datasets.compose import Placement, paint, region_polygon, visible_fraction
from datasets.scene import MIN_LABEL_PX, READABLE_FRACTION, Scene, SceneKind, render_scene

SEEDS = range(6)


def _scenes(kind: SceneKind, decks: tuple[DeckSource, ...] | None) -> list[Scene]:
    return [render_scene(seed, kind, (800, 600), decks) for seed in SEEDS]


@pytest.fixture(scope="module")
def card_scenes(decks: tuple[DeckSource, ...]) -> list[Scene]:
    return _scenes(SceneKind.CARDS, decks)


@pytest.fixture(scope="module")
def tile_scenes() -> list[Scene]:
    return _scenes(SceneKind.TILES, None)


def _by_uid(scene: Scene) -> dict[int, Placement]:
    return {p.uid: p for p in scene.placements}


def _region_box(p: Placement, name: str) -> tuple[float, float, float, float]:
    return dict(p.regions)[name]


def _check_inside(scenes: list[Scene]) -> int:
    n = 0
    for scene in scenes:
        h, w = scene.image.shape[:2]
        for label in scene.labels:
            x0, y0, x1, y1 = label.box
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h, label
            assert min(x1 - x0, y1 - y0) >= MIN_LABEL_PX
            n += 1
    return n


def test_card_labels_inside_image(card_scenes: list[Scene]) -> None:
    assert _check_inside(card_scenes) > 50


def test_tile_labels_inside_image(tile_scenes: list[Scene]) -> None:
    assert _check_inside(tile_scenes) > 30


def _geometric_cover(scene: Scene, p: Placement, name: str) -> float:
    """Fraction of the region covered by the outlines of things painted later (no id buffer)."""
    comp = scene.composite
    poly = region_polygon(p, _region_box(p, name), comp.painted[p.uid].face_matrix)
    x0, y0 = np.floor(poly.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 2
    size = (y1 - y0, x1 - x0)
    region = np.zeros(size, np.uint8)
    cv2.fillPoly(region, [np.round(poly - (x0, y0)).astype(np.int32)], 1)
    cover = np.zeros(size, np.uint8)
    for q in scene.placements[p.uid + 1 :]:
        painted = comp.painted.get(q.uid)
        if painted is None or not q.occludes:
            continue
        for m in (painted.face_matrix,):
            outline = region_polygon(q, (0, 0, 1, 1), m)
            cv2.fillPoly(cover, [np.round(outline - (x0, y0)).astype(np.int32)], 1)
    return float((region & cover).sum()) / max(1, int(region.sum()))


@pytest.mark.parametrize("which", ["cards", "tiles"])
def test_labelled_regions_are_not_covered(
    which: str, card_scenes: list[Scene], tile_scenes: list[Scene]
) -> None:
    scenes = card_scenes if which == "cards" else tile_scenes
    checked = 0
    for scene in scenes:
        placements = _by_uid(scene)
        for label in scene.labels:
            p = placements[label.uid]
            box = _region_box(p, label.region)
            assert visible_fraction(scene.composite, p, box) >= READABLE_FRACTION
            # independent bookkeeping: later pieces' outlines (rounded corners make this
            # stricter than the id buffer, hence the small allowance)
            assert _geometric_cover(scene, p, label.region) <= 1 - READABLE_FRACTION + 0.08
            checked += 1
    assert checked > 30


def test_unreadable_corners_are_not_labelled(card_scenes: list[Scene]) -> None:
    """Covered corners exist in card scenes (overlapping melds) and none of them is labelled."""
    hidden = 0
    for scene in card_scenes:
        labelled = {(lb.uid, lb.region) for lb in scene.labels}
        for piece in scene.truth["pieces"]:
            for region in piece["regions"]:
                if region["visible"] < 0.5:
                    hidden += 1
                    assert (piece["uid"], region["name"]) not in labelled
    assert hidden > 20


def test_label_pixels_match_the_piece_rendered_alone(card_scenes: list[Scene]) -> None:
    """Pixel check: inside each labelled corner the table shows that card as if alone."""
    worst = 1.0
    for scene in card_scenes[:3]:
        comp = scene.composite
        placements = _by_uid(scene)
        for label in scene.labels:
            p = placements[label.uid]
            alone = paint(scene.background, comp.origin, [p], scene.camera, scene.light).canvas
            poly = region_polygon(p, _region_box(p, label.region), comp.painted[p.uid].face_matrix)
            mask = np.zeros(comp.ids.shape, np.uint8)
            cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
            sel = mask.astype(bool)
            diff = np.abs(comp.canvas[sel].astype(int) - alone[sel].astype(int)).max(axis=1)
            worst = min(worst, float((diff <= 40).mean()))
    # shadows of neighbours may darken an edge of the corner; covered corners would fail
    assert worst >= 0.8


def test_pixel_check_catches_a_covered_corner(card_scenes: list[Scene]) -> None:
    """The same pixel check fails on corners the generator found hidden."""
    scene = card_scenes[0]
    comp = scene.composite
    fractions = []
    for p in scene.placements:
        if p.face is None or p.uid not in comp.painted:
            continue
        for _name, box in p.regions:
            if visible_fraction(comp, p, box) < 0.2:
                alone = paint(scene.background, comp.origin, [p], scene.camera, scene.light).canvas
                poly = region_polygon(p, box, comp.painted[p.uid].face_matrix)
                mask = np.zeros(comp.ids.shape, np.uint8)
                cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
                sel = mask.astype(bool)
                if sel.sum() < 30:
                    continue
                diff = np.abs(comp.canvas[sel].astype(int) - alone[sel].astype(int)).max(axis=1)
                fractions.append(float((diff <= 40).mean()))
    assert fractions, "expected hidden corners in a Burraco table"
    assert np.median(fractions) < 0.8


@pytest.mark.parametrize("kind", [SceneKind.CARDS, SceneKind.TILES])
def test_framing_renders_the_same_table_finer(
    kind: SceneKind, decks: tuple[DeckSource, ...]
) -> None:
    """A scene framed as a 640 px photo and rendered at 1280 holds the same pieces and melds
    as the 640 px photo, each twice as many pixels across; the lens blur doubles with them."""
    for seed in range(3):
        small = render_scene(seed, kind, (640, 480), decks if kind is SceneKind.CARDS else None)
        fine = render_scene(
            seed, kind, (1280, 960), decks if kind is SceneKind.CARDS else None, framing=640
        )
        assert fine.image.shape[:2] == (960, 1280)
        assert fine.truth["melds"] == small.truth["melds"]
        assert fine.truth["camera"]["index_px"] == pytest.approx(
            2 * small.truth["camera"]["index_px"], abs=0.11
        )
        faces_small = sorted(p["code"] for p in small.truth["pieces"])
        faces_fine = sorted(p["code"] for p in fine.truth["pieces"])
        assert faces_fine == faces_small
        # the same readable pieces are labelled, each about twice as tall
        assert abs(len(fine.labels) - len(small.labels)) <= max(1, len(small.labels) // 20)
        tall_small = np.median([b.box[3] - b.box[1] for b in small.labels])
        tall_fine = np.median([b.box[3] - b.box[1] for b in fine.labels])
        assert 1.8 < tall_fine / tall_small < 2.2
    # without framing the size alone decides nothing about the pieces' pixels (as before)
    wide = render_scene(0, kind, (1280, 960), decks if kind is SceneKind.CARDS else None)
    assert wide.truth["camera"]["index_px"] == pytest.approx(
        render_scene(0, kind, (640, 480), decks if kind is SceneKind.CARDS else None).truth[
            "camera"
        ]["index_px"]
    )
