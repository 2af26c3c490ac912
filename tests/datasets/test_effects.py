"""The phone-photo effects say what they did: the truth's record of blur matches the pixels."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.effects import photo


def _checkerboard(cell: int = 8, side: int = 256) -> np.ndarray:
    yy, xx = np.mgrid[0:side, 0:side]
    board = (((yy // cell) + (xx // cell)) % 2 * 160 + 48).astype(np.uint8)
    return np.repeat(board[:, :, None], 3, axis=2)


def _edge_step(image: np.ndarray, cell: int = 8) -> float:
    """The jump in grey level across the board's edges in one pixel, as a share of the jump
    over five (light and white balance scale both alike); the smaller of the two directions,
    as a motion blurs only the edges that lie across it."""
    grey = image.astype(np.float32).mean(axis=2)
    cols = np.arange(cell, grey.shape[1] - cell, cell)
    ratios = []
    for g in (grey, grey.T):
        at_edge = np.abs(g[:, cols] - g[:, cols - 1]).mean()
        across = np.abs(g[:, cols + 2] - g[:, cols - 3]).mean()
        ratios.append(at_edge / max(across, 1e-6))
    return float(min(ratios))


def test_the_record_names_the_blur_the_photo_shows() -> None:
    board = _checkerboard()
    steps: dict[str, list[float]] = {"sharp": [], "blurred": []}
    for seed in range(60):
        image, done = photo(np.random.default_rng(seed), board, lambda: np.zeros((128, 128)))
        assert set(done) == {"blur_sigma", "motion_px", "noise_sigma", "glare", "shadow"}
        assert done["blur_sigma"] == 0 or 0.3 <= done["blur_sigma"] <= 1.3
        assert done["motion_px"] == 0 or 3 <= done["motion_px"] <= 9
        assert 0.5 <= done["noise_sigma"] <= 6
        blurred = done["motion_px"] > 0 or done["blur_sigma"] > 0.8
        if blurred or done["blur_sigma"] == 0:
            steps["blurred" if blurred else "sharp"].append(_edge_step(image))
    assert len(steps["sharp"]) >= 5 and len(steps["blurred"]) >= 5
    # a sharp edge jumps in one pixel; a blurred one spreads the jump over several
    assert max(steps["blurred"]) < min(steps["sharp"])


def test_a_finer_photo_of_the_same_scene_blurs_over_more_pixels() -> None:
    """``detail`` 2 (the same scene at twice the pixels) draws the same effects, with the lens
    and motion blur twice as many pixels long, and spreads an edge over twice the pixels."""
    board, fine_board = _checkerboard(8, 256), _checkerboard(16, 512)
    compared = 0
    for seed in range(60):
        image, done = photo(np.random.default_rng(seed), board, lambda: np.zeros((128, 128)))
        fine, fine_done = photo(
            np.random.default_rng(seed), fine_board, lambda: np.zeros((256, 256)), 2.0
        )
        assert fine_done["blur_sigma"] == pytest.approx(2 * done["blur_sigma"], abs=0.002)
        assert fine_done["motion_px"] == 2 * done["motion_px"]
        assert fine_done["noise_sigma"] == done["noise_sigma"]
        if done["motion_px"] == 0 and done["blur_sigma"] > 0.8:
            # the edge across one pixel of the coarse photo matches two of the fine one's
            coarse_step = _edge_step(image)
            fine_step = _edge_step(fine[::2, ::2])
            assert fine_step == pytest.approx(coarse_step, abs=0.12)
            compared += 1
    assert compared >= 5
