"""The piece classifier as served: turned views, kind-restricted softmax."""

from __future__ import annotations

import numpy as np

from vision.recogniser import CARD_MASK, softmax_by_kind


def _crops(seed: int, n: int, size: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (n, size, size, 3), dtype=np.uint8)


def test_a_crop_and_its_half_turn_read_the_same(scanner) -> None:  # type: ignore[no-untyped-def]
    classifier = scanner.classifier
    crops = _crops(1, 5, classifier.size)
    half_turned = np.ascontiguousarray(np.rot90(crops, 2, axes=(1, 2)))
    np.testing.assert_allclose(
        classifier.turned_logits(crops), classifier.turned_logits(half_turned), atol=1e-4
    )
    # a single view is not symmetric: the averaging is what makes the two agree
    assert not np.allclose(
        classifier.turned_logits(crops, (0,)),
        classifier.turned_logits(half_turned, (0,)),
        atol=1e-2,
    )


def test_turned_logits_average_the_views(scanner) -> None:  # type: ignore[no-untyped-def]
    classifier = scanner.classifier
    crops = _crops(2, 3, classifier.size)
    turned = [np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2))) for k in (0, 1)]
    views = [classifier.logits(c) for c in turned]
    np.testing.assert_allclose(
        classifier.turned_logits(crops, (0, 1)), (views[0] + views[1]) / 2, atol=1e-4
    )


def test_softmax_keeps_to_the_detected_kind() -> None:
    logits = np.zeros((2, CARD_MASK.size), np.float32)
    probs = softmax_by_kind(logits, np.array([False, True]))
    assert probs[0][~CARD_MASK].sum() == 0 and abs(probs[0][CARD_MASK].sum() - 1) < 1e-6
    assert probs[1][CARD_MASK].sum() == 0 and abs(probs[1][~CARD_MASK].sum() - 1) < 1e-6
