"""The piece classifier as served: turned views, up angles, kind-restricted softmax."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import NUM_FACES
from vision.recogniser import (
    CARD_MASK,
    FULL_OUTPUTS,
    NOT_A_PIECE,
    OnnxClassifier,
    piece_probabilities,
    softmax_by_kind,
)


def _crops(seed: int, n: int, size: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (n, size, size, 3), dtype=np.uint8)


def test_a_crop_and_its_half_turn_read_the_same(scanner) -> None:  # type: ignore[no-untyped-def]
    classifier = scanner.classifier
    crops = _crops(1, 5, classifier.size)
    half_turned = np.ascontiguousarray(np.rot90(crops, 2, axes=(1, 2)))
    np.testing.assert_allclose(
        classifier.turned_read(crops).logits, classifier.turned_read(half_turned).logits, atol=1e-4
    )
    # a single view is not symmetric: the averaging is what makes the two agree
    assert not np.allclose(
        classifier.turned_read(crops, (0,)).logits,
        classifier.turned_read(half_turned, (0,)).logits,
        atol=1e-2,
    )


def test_turned_reading_averages_the_views(scanner) -> None:  # type: ignore[no-untyped-def]
    classifier = scanner.classifier
    crops = _crops(2, 3, classifier.size)
    turned = [np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2))) for k in (0, 1)]
    views = [classifier.logits(c) for c in turned]
    np.testing.assert_allclose(
        classifier.turned_read(crops, (0, 1)).logits, (views[0] + views[1]) / 2, atol=1e-4
    )


def test_softmax_keeps_to_the_detected_kind() -> None:
    logits = np.zeros((2, CARD_MASK.size), np.float32)
    probs = softmax_by_kind(logits, np.array([False, True]))
    assert probs[0][~CARD_MASK].sum() == 0 and abs(probs[0][CARD_MASK].sum() - 1) < 1e-6
    assert probs[1][CARD_MASK].sum() == 0 and abs(probs[1][~CARD_MASK].sum() - 1) < 1e-6


def _marked(up: float, size: int = 48) -> np.ndarray:
    """A grey crop with a white dot off its centre in the ``up`` direction (y pointing down)."""
    crop = np.full((size, size, 3), 90, np.uint8)
    c = size / 2
    x, y = c + 16 * np.sin(up), c - 16 * np.cos(up)
    crop[int(y) - 2 : int(y) + 2, int(x) - 2 : int(x) + 2] = 255
    return crop


def _up_of(crop: np.ndarray) -> float:
    """The up angle of the dot of a :func:`_marked` crop."""
    ys, xs = np.nonzero(crop[:, :, 0] > 200)
    c = crop.shape[0] / 2
    return float(np.arctan2(xs.mean() + 0.5 - c, -(ys.mean() + 0.5 - c)))


class _MarkerClassifier(OnnxClassifier):
    """The serving classifier's view handling over a 'model' that reads the dot's direction."""

    def __init__(self) -> None:
        self.size, self.full = 48, True

    def outputs(self, crops: np.ndarray) -> np.ndarray:
        out = np.zeros((len(crops), FULL_OUTPUTS), np.float32)
        angles = np.array([_up_of(c) for c in crops])
        out[:, NOT_A_PIECE + 1], out[:, NOT_A_PIECE + 2] = np.cos(angles), np.sin(angles)
        return out


def _angle_gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(np.angle(np.exp(1j * (np.asarray(a) - np.asarray(b)))))


def test_each_view_is_turned_back_before_the_up_angles_are_averaged() -> None:
    ups = np.array([0.0, 0.6, np.pi / 2, 2.5, -2.0, -np.pi / 2])
    crops = np.stack([_marked(u) for u in ups])
    for views in [(0,), (0, 2), (0, 1, 2, 3), (1, 3)]:
        up = _MarkerClassifier().turned_read(crops, views).up
        assert _angle_gap(up, ups).max() < 0.15, views


def test_a_model_without_the_up_output_reads_nan(scanner) -> None:  # type: ignore[no-untyped-def]
    classifier = scanner.classifier
    reading = classifier.turned_read(_crops(3, 2, classifier.size))
    assert reading.logits.shape == (2, NUM_FACES)
    assert np.isnan(reading.up).all() != classifier.full
    assert np.isneginf(reading.none).all() != classifier.full


def test_the_training_augmentation_reports_how_far_it_turned_each_crop() -> None:
    torch = pytest.importorskip("torch")
    from vision.train.classifier import _augment, _to_tensor

    ups = np.linspace(-3, 3, 24)
    crops = np.stack([_marked(u) for u in ups])
    stored = torch.full((len(crops),), 0.12)
    augmented, turned = _augment(_to_tensor(crops), torch.Generator().manual_seed(4), stored)
    seen = (augmented.permute(0, 2, 3, 1).numpy() * 255).astype(np.uint8)
    grey = seen.astype(np.float32).mean(axis=3, keepdims=True)
    dots = np.where(grey > 0.8 * grey.max(axis=(1, 2, 3), keepdims=True), 255, 0)
    found = np.array([_up_of(np.repeat(d, 3, axis=2)) for d in dots])
    assert _angle_gap(found, ups + turned.numpy()).max() < 0.35
    assert np.ptp(turned.numpy()) > np.pi  # quarter turns were drawn


def test_not_a_piece_competes_with_the_faces_of_the_detected_kind_only() -> None:
    logits = np.full((3, NUM_FACES), -5.0, np.float32)
    logits[:, ~CARD_MASK] = 8.0  # strong tile faces: irrelevant to a card
    logits[:, np.flatnonzero(CARD_MASK)[0]] = 1.0
    none = np.array([3.0, -1.0, -np.inf], np.float32)
    faces, p_none = piece_probabilities(logits, none, np.array([False, False, False]))
    assert p_none[0] > 0.8 and p_none[1] < 0.2 and p_none[2] == 0
    np.testing.assert_allclose(faces.sum(axis=1), 1, atol=1e-6)  # faces stay a distribution
    assert faces[:, ~CARD_MASK].sum() == 0


class _TwoLookClassifier(OnnxClassifier):
    """A 'model' sure of a crop whose centre is red, unsure otherwise unless its top-left corner
    is green (so: a crop with green at its bottom right, seen turned half round); it counts the
    crops it reads."""

    def __init__(self) -> None:
        self.size, self.full, self.read_crops = 48, True, 0
        self.margin = self.tile_margin = 0.12

    def outputs(self, crops: np.ndarray) -> np.ndarray:
        self.read_crops += len(crops)
        out = np.zeros((len(crops), FULL_OUTPUTS), np.float32)
        out[:, NOT_A_PIECE] = -9.0
        card = np.flatnonzero(CARD_MASK)
        sure = crops[:, 24, 24, 0] > 128
        out[sure, card[0]] = 12.0  # sure: face 0
        out[~sure, card[0]] = 1.0  # unsure between faces 0 and 1 ...
        out[~sure, card[1]] = 1.2
        turned = crops[:, 1, 1, 1] > 128  # ... until seen turned, when face 0 wins clearly
        out[turned & ~sure, card[0]] = 12.0
        return out


def test_only_unsure_crops_get_a_second_look() -> None:
    from vision.detections import Detections

    image = np.zeros((100, 200, 3), np.uint8)
    image[10:40, 10:40, 0] = 255  # box 0: red -> sure at first sight
    image[36:44, 136:144, 1] = 255  # box 1: dark, green beyond its bottom-right corner
    boxes = np.array([[10, 10, 40, 40], [110, 10, 140, 40]], np.float32)
    classifier = _TwoLookClassifier()
    read = classifier.read(image, Detections.from_boxes(boxes, np.ones(2), np.zeros(2)))
    assert classifier.read_crops == 3  # two crops as cut, one of them again
    card = np.flatnonzero(CARD_MASK)
    assert read.face_id.tolist() == [card[0], card[0]]  # the second look changed box 1's mind


def test_a_reading_stops_after_the_looks_it_is_given() -> None:
    """``looks`` stops the reading early (``vision.gaps.GAP_LOOKS`` measured one and two)."""
    from vision.detections import Detections

    image = np.zeros((100, 200, 3), np.uint8)
    image[10:40, 10:40, 0] = 255  # box 0: red -> sure at first sight
    image[36:44, 136:144, 1] = 255  # box 1: unsure as cut, sure turned half round
    boxes = np.array([[10, 10, 40, 40], [110, 10, 140, 40]], np.float32)
    card = np.flatnonzero(CARD_MASK)
    classifier = _TwoLookClassifier()
    read = classifier.read(image, Detections.from_boxes(boxes, np.ones(2), np.zeros(2)), looks=1)
    assert classifier.read_crops == 2  # as cut, no second look
    assert read.face_id.tolist() == [card[0], card[1]]  # box 1 keeps its first reading


def test_a_crop_still_unsure_after_the_half_turn_is_read_turned_a_quarter_each_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from vision.detections import Detections

    image = np.zeros((100, 200, 3), np.uint8)
    image[10:40, 10:40, 0] = 255  # box 0: red -> sure at first sight
    image[6:14, 136:144, 1] = 255  # box 1: green beyond its top-right corner, top left when
    boxes = np.array([[10, 10, 40, 40], [110, 10, 140, 40]], np.float32)  # turned a quarter
    classifier = _TwoLookClassifier()
    read = classifier.read(image, Detections.from_boxes(boxes, np.ones(2), np.zeros(2)))
    assert classifier.read_crops == 5  # two as cut, box 1 half turned, then both quarter turns
    card = np.flatnonzero(CARD_MASK)
    # as cut and half turned, box 1 reads face 1 (1.2 against 1.0); a quarter turn says face 0
    assert read.face_id.tolist() == [card[0], card[0]]

    monkeypatch.setattr("vision.recogniser.LOOKS", ((0,), (2,)))  # two looks: box 1 stays face 1
    classifier = _TwoLookClassifier()
    read = classifier.read(image, Detections.from_boxes(boxes, np.ones(2), np.zeros(2)))
    assert classifier.read_crops == 3
    assert read.face_id.tolist() == [card[0], card[1]]


def test_the_training_augmentation_cuts_each_crop_at_a_drawn_margin() -> None:
    """Crops stored wide come out at the drawn margin: the piece's box fills the share of the
    crop that margin leaves it, whatever the stored margin was."""
    torch = pytest.importorskip("torch")
    from vision.crops import STORE_MARGIN, STORE_SIZE
    from vision.train.classifier import _augment, _to_tensor

    side = STORE_SIZE / (1 + 2 * STORE_MARGIN)  # the box inside a stored crop
    lo, hi = round((STORE_SIZE - side) / 2), round((STORE_SIZE + side) / 2)
    crops = np.full((32, STORE_SIZE, STORE_SIZE, 3), 40, np.uint8)
    crops[:, lo:hi, lo:hi] = 230
    stored = torch.full((32,), STORE_MARGIN)
    for margin in (0.12, 0.35):
        out, _ = _augment(_to_tensor(crops), torch.Generator().manual_seed(1), stored, 48,
                          (margin, margin))  # fmt: skip
        assert out.shape == (32, 3, 48, 48)
        box = (out.mean(dim=1) > 0.5).float().mean(dim=(1, 2)).numpy()
        expected = 1 / (1 + 2 * margin) ** 2  # give or take the drawn scale (0.88-1.12)
        assert np.all(box > expected * 0.88**2 * 0.9), (margin, box.min())
        assert np.all(box < expected * 1.12**2 * 1.1), (margin, box.max())


class _MarginClassifier(_TwoLookClassifier):
    """Keeps the first crops it is given (the crops as cut)."""

    seen: np.ndarray | None = None

    def outputs(self, crops: np.ndarray) -> np.ndarray:
        if self.seen is None:
            self.seen = crops
        return super().outputs(crops)


def test_cards_and_tiles_are_cut_at_their_own_margins() -> None:
    from vision.detections import Detections

    image = np.zeros((200, 300, 3), np.uint8)
    image[50:100, 50:100] = 255  # two white 50 px squares on black
    image[50:100, 200:250] = 255
    boxes = np.array([[50, 50, 100, 100], [200, 50, 250, 100]], np.float32)
    classifier = _MarginClassifier()
    classifier.margin, classifier.tile_margin = 0.4, 0.1  # box 0 is a card, box 1 a tile
    classifier.read(image, Detections.from_boxes(boxes, np.ones(2), np.array([0, 2])))
    assert classifier.seen is not None
    white = (classifier.seen.mean(axis=3) > 128).mean(axis=(1, 2))
    np.testing.assert_allclose(white, [1 / 1.8**2, 1 / 1.2**2], atol=0.03)


def test_a_net_grown_by_residual_blocks_reads_as_the_checkpoint_it_grew_from() -> None:
    torch = pytest.importorskip("torch")
    from vision.train.classifier import build_net, load_weights

    torch.manual_seed(0)
    old = build_net(residual=0)
    for module in old.modules():  # BatchNorm statistics as after training, not the defaults
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    grown = build_net(residual=2)
    load_weights(grown, old.state_dict())  # the head sits two places later in the grown net
    x = torch.rand(3, 3, 48, 48)
    old.eval(), grown.eval()
    with torch.no_grad():
        torch.testing.assert_close(grown(x), old(x))
        grown[-1].weight.add_(1.0)  # the head really was loaded into the grown net's head
        assert not torch.allclose(grown(x), old(x))
    with pytest.raises(ValueError, match="cannot load"):
        load_weights(build_net(residual=0), {"0.weight": torch.zeros(5, 3, 3, 3)})


def test_the_motion_blur_of_the_training_augmentation_smears_along_one_line() -> None:
    """A dot smeared by :func:`motion_blur` keeps its light and spreads along one direction
    by about the drawn length (2-8 px), hardly across it."""
    torch = pytest.importorskip("torch")
    from vision.train.classifier import MOTION_PX, motion_blur

    dots = torch.zeros(64, 3, 48, 48)
    dots[:, :, 24, 24] = 1.0
    out = motion_blur(dots, torch.Generator().manual_seed(2))
    assert torch.allclose(out.sum(dim=(2, 3)), torch.ones(64, 3), atol=1e-5)
    yy, xx = torch.meshgrid(torch.arange(48.0), torch.arange(48.0), indexing="ij")
    spread = []
    for smear in out[:, 0]:
        w = smear / smear.sum()
        dy, dx = yy - (w * yy).sum(), xx - (w * xx).sum()
        cov = torch.tensor([[(w * dx * dx).sum(), (w * dx * dy).sum()],
                            [(w * dx * dy).sum(), (w * dy * dy).sum()]])  # fmt: skip
        across, along = torch.linalg.eigvalsh(cov).clamp(min=0).sqrt().tolist()
        # a uniform line of length L has a spread of L / sqrt(12) along it
        assert MOTION_PX[0] / 12**0.5 * 0.6 < along < MOTION_PX[1] / 12**0.5 * 1.3
        assert across < 0.6  # an anti-aliased line: about a pixel wide, whatever its direction
        spread.append(along)
    assert min(spread) < 1.0 and max(spread) > 1.8  # short and long smears were drawn
