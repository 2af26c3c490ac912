"""The int8 classifiers: made from the fp32 export, reading as it does, a third of its size;
the 8-bit one served where the CPU has VNNI, the one with 7-bit weights where it has AVX2 alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.crops import CROP_SIZE, cut_crops
from vision.detector import make_session
from vision.errors import VisionError
from vision.recogniser import normalise
from vision.scanner import (
    CLASSIFIER_ENV,
    CONFIG_FILE,
    INT8_CLASSIFIER_FILE,
    TRAINED_CLASSIFIER_FILE,
    W7_CLASSIFIER_FILE,
    Scanner,
    ScannerConfig,
    classifier_file,
    cpu_flags,
    has_vnni,
)
from vision.train.quantize import calibration_crops, quantize_classifier

MODELS = Path(__file__).resolve().parents[2] / "models"


def _tile_crops(real: Path, photos: slice) -> np.ndarray:
    """Crops of the labelled tiles of some real tile photos, cut as the scanner cuts them."""
    from datasets.realdata import parse_label_line
    from vision.photo import load_photo

    margin = ScannerConfig.read(MODELS / CONFIG_FILE).tile_crop_margin
    images = sorted((real / "rummikub-tiles" / "images").glob("*.jpg"))[photos]
    out = []
    for path in images:
        label = path.parent.parent / "labels" / f"{path.stem}.txt"
        rows = np.array(
            [p[1] for r in label.read_text().splitlines() if (p := parse_label_line(r))]
        )
        if not len(rows):
            continue  # a photo of the background alone
        image = load_photo(path)
        h, w = image.shape[:2]
        cx, cy, bw, bh = rows.T * [[w], [h], [w], [h]]
        boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)
        out.append(cut_crops(image, boxes, CROP_SIZE, margin))
    return np.concatenate(out)


def _read(path: Path, crops: np.ndarray, fused: bool = True) -> np.ndarray:
    """The net's outputs; unfused, an int8 net's computed exactly (``make_session``)."""
    session = make_session(path, fused=fused)
    name = session.get_inputs()[0].name
    return np.concatenate(
        [
            session.run(None, {name: normalise(crops[i : i + 64])})[0]
            for i in range(0, len(crops), 64)
        ]
    )


def _agreement(a: Path, b: Path, crops: np.ndarray) -> float:
    faces_a, faces_b = _read(a, crops)[:, :107], _read(b, crops)[:, :107]
    return float((faces_a.argmax(axis=1) == faces_b.argmax(axis=1)).mean())


NEEDS_VNNI = pytest.mark.skipif(
    not has_vnni(),
    reason="no VNNI on this CPU: onnxruntime sums int8 products in pairs into 16 bits here, "
    "which 8-bit weights overflow (session 25, an AVX2-only EPYC: 0.67 of the real tile crops "
    "read as in fp32), so the int8 classifier is not served here",
)


@NEEDS_VNNI
def test_the_bundled_int8_classifier_reads_real_tiles_as_the_fp32_export(real: Path) -> None:
    served, exported = MODELS / INT8_CLASSIFIER_FILE, MODELS / TRAINED_CLASSIFIER_FILE
    assert served.stat().st_size < exported.stat().st_size / 3
    crops = _tile_crops(real, slice(0, 12))
    assert len(crops) > 150
    assert _agreement(served, exported, crops) >= 0.98


def test_the_bundled_int8_classifier_computed_exactly_reads_as_the_fp32_export(
    real: Path,
) -> None:
    # what a CPU with VNNI serves, checked on this one too (session 31)
    crops = _tile_crops(real, slice(0, 12))
    exact = _read(MODELS / INT8_CLASSIFIER_FILE, crops, fused=False)[:, :107].argmax(axis=1)
    fp32 = _read(MODELS / TRAINED_CLASSIFIER_FILE, crops)[:, :107].argmax(axis=1)
    assert len(crops) > 150 and (exact == fp32).mean() >= 0.98


def _weights(path: Path) -> dict[str, np.ndarray]:
    import onnx
    from onnx import numpy_helper

    return {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}


@pytest.mark.parametrize(("name", "reach"), [(INT8_CLASSIFIER_FILE, 127), (W7_CLASSIFIER_FILE, 64)])
def test_the_bundled_int8_classifiers_hold_the_fp32_exports_weights(name: str, reach: int) -> None:
    # quantized from this export, not an earlier one: each weight within half its step, and the
    # 7-bit copy's within 64 steps of zero (two products of a uint8 activation then sum within
    # the 16 bits a CPU without VNNI sums them into)
    fp32, int8 = _weights(MODELS / TRAINED_CLASSIFIER_FILE), _weights(MODELS / name)
    checked = 0
    for key, weight in fp32.items():
        if f"{key}_quantized" not in int8 or weight.ndim < 2:
            continue  # biases are quantized at the activations' scale, not their own
        q, scale = int8[f"{key}_quantized"].astype(np.float32), int8[f"{key}_scale"]
        zero = int8[f"{key}_zero_point"].astype(np.float32)
        shape = (-1,) + (1,) * (weight.ndim - 1) if scale.ndim else ()
        step = scale.reshape(shape)
        assert np.all(np.abs((q - zero.reshape(shape)) * step - weight) <= 0.51 * step), key
        assert np.abs(q).max() <= reach and np.abs(q).max() > reach - 8, key
        checked += 1
    assert checked >= 9  # every convolution and the head


def test_the_bundled_7_bit_classifier_reads_real_pieces_as_the_fp32_export_on_this_cpu(
    real: Path,
) -> None:
    # its fused kernels, as served where the CPU has AVX2 but no VNNI (session 38: 8-bit
    # weights read 0.79 of these crops as fp32 does there, 7-bit ones all of them)
    crops = _tile_crops(real, slice(0, 12))
    assert _agreement(MODELS / W7_CLASSIFIER_FILE, MODELS / TRAINED_CLASSIFIER_FILE, crops) >= 0.98
    assert (MODELS / W7_CLASSIFIER_FILE).stat().st_size < (
        MODELS / TRAINED_CLASSIFIER_FILE
    ).stat().st_size / 3


def test_quantizing_to_7_bit_weights_keeps_the_readings_on_any_cpu(
    real: Path, tmp_path: Path
) -> None:
    calibration = _tile_crops(real, slice(200, 206))
    out = quantize_classifier(
        MODELS / "classifier.onnx", tmp_path / "q.onnx", calibration, seven_bit=True
    )
    weights = _weights(out)
    quantized = [w for k, w in weights.items() if k.endswith("_quantized") and w.ndim >= 2]
    assert len(quantized) >= 9 and max(int(np.abs(w).max()) for w in quantized) <= 64
    held = _tile_crops(real, slice(0, 12))
    assert _agreement(out, MODELS / "classifier.onnx", held) >= 0.97


@NEEDS_VNNI
def test_quantizing_keeps_the_readings_of_crops_it_was_not_calibrated_on(
    real: Path, tmp_path: Path
) -> None:
    calibration = _tile_crops(real, slice(200, 206))
    out = quantize_classifier(MODELS / "classifier.onnx", tmp_path / "q.onnx", calibration)
    import onnx

    graph = onnx.load(str(out)).graph
    assert any(n.op_type == "QuantizeLinear" for n in graph.node)
    weights = [t for t in graph.initializer if t.data_type == onnx.TensorProto.INT8]
    assert len(weights) >= 9  # every convolution and the head
    held = _tile_crops(real, slice(0, 12))
    assert _agreement(out, MODELS / "classifier.onnx", held) >= 0.97


def _crop_set(path: Path, value: int, n: int, margin: float) -> Path:
    x = np.full((n, 72, 72, 3), value, np.uint8)
    x[:, :36] = np.arange(n, dtype=np.uint8)[:, None, None, None]  # each crop its own
    np.savez(path, x=x, y=np.zeros(n, np.int64), margin=np.float32(margin))
    return path


def test_calibration_draws_evenly_from_each_set_and_the_same_each_time(tmp_path: Path) -> None:
    a = _crop_set(tmp_path / "a.npz", 10, 40, 0.45)
    b = _crop_set(tmp_path / "b.npz", 200, 300, 0.45)
    crops = calibration_crops([(a, 0.3), (b, 0.16)], 48, total=60)
    assert crops.shape == (60, 48, 48, 3)
    below = crops[:, -1, 24, 0]  # the half of each crop filled with its set's value
    assert (below < 100).sum() == 30 and (below > 100).sum() == 30
    assert np.array_equal(crops, calibration_crops([(a, 0.3), (b, 0.16)], 48, total=60))
    assert not np.array_equal(crops, calibration_crops([(a, 0.3), (b, 0.16)], 48, 60, seed=1))


def test_calibration_without_crops_is_refused() -> None:
    with pytest.raises(ValueError, match="no crop sets"):
        calibration_crops([], 48)
    with pytest.raises(ValueError, match="no crops"):
        quantize_classifier(
            MODELS / "classifier.onnx", Path("unused.onnx"), np.zeros((0, 48, 48, 3))
        )


FLAGS = "processor\t: 0\nflags\t\t: fpu sse2 avx2 fma {}\nbugs\t\t: spectre_v1\n"


def test_vnni_is_read_from_the_cpu_flags() -> None:
    assert has_vnni(FLAGS.format("avx512f avx512_vnni"))
    assert has_vnni(FLAGS.format("avx_vnni"))
    assert not has_vnni(FLAGS.format("avx512f avx512bw"))
    assert not has_vnni("processor\t: 0\nbugs\t\t: avx512_vnni\n")  # not a flags line
    assert "avx2" in cpu_flags(FLAGS.format(""))
    assert cpu_flags("processor\t: 0\nFeatures\t: fp asimd asimddp\n") == frozenset()  # ARM


VNNI, AVX2, NEITHER = frozenset({"avx2", "avx512_vnni"}), frozenset({"avx2"}), frozenset()


def _folder(tmp_path: Path, *names: str) -> Path:
    tmp_path.mkdir(exist_ok=True)
    for name in names or (TRAINED_CLASSIFIER_FILE, INT8_CLASSIFIER_FILE, W7_CLASSIFIER_FILE):
        (tmp_path / name).write_bytes(b"")
    return tmp_path


def test_each_cpu_is_served_the_classifier_it_reads_fastest_and_safely(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    assert classifier_file(folder, "auto", VNNI).name == INT8_CLASSIFIER_FILE
    assert classifier_file(folder, "auto", AVX2).name == W7_CLASSIFIER_FILE
    assert classifier_file(folder, "auto", NEITHER).name == TRAINED_CLASSIFIER_FILE
    assert classifier_file(folder, "fp32", VNNI).name == TRAINED_CLASSIFIER_FILE
    assert classifier_file(folder, "int8", AVX2).name == INT8_CLASSIFIER_FILE
    assert classifier_file(folder, "int8w7", NEITHER).name == W7_CLASSIFIER_FILE


def test_a_folder_without_a_quantized_copy_serves_the_next_one(tmp_path: Path) -> None:
    folder = _folder(tmp_path, TRAINED_CLASSIFIER_FILE, INT8_CLASSIFIER_FILE)  # before session 38
    assert classifier_file(folder, "auto", AVX2).name == TRAINED_CLASSIFIER_FILE
    assert classifier_file(folder, "auto", VNNI).name == INT8_CLASSIFIER_FILE
    folder = _folder(tmp_path / "w7", TRAINED_CLASSIFIER_FILE, W7_CLASSIFIER_FILE)
    assert classifier_file(folder, "auto", VNNI).name == W7_CLASSIFIER_FILE
    folder = _folder(tmp_path / "fp32", TRAINED_CLASSIFIER_FILE)  # before session 24
    assert classifier_file(folder, "auto", VNNI).name == TRAINED_CLASSIFIER_FILE


def test_the_environment_chooses_the_classifier_and_a_bad_choice_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path)
    monkeypatch.setenv(CLASSIFIER_ENV, "FP32")
    assert classifier_file(folder, flags=VNNI).name == TRAINED_CLASSIFIER_FILE
    monkeypatch.setenv(CLASSIFIER_ENV, "int4")
    with pytest.raises(VisionError, match="'int4'"):
        classifier_file(folder)


def test_the_scanner_loads_the_chosen_classifier_and_names_it_in_its_fingerprint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fingerprints = set()
    for choice in ("int8", "int8w7", "fp32"):
        monkeypatch.setenv(CLASSIFIER_ENV, choice)
        scanner = Scanner.load(MODELS)
        assert scanner.classifier.path == classifier_file(MODELS, choice)
        fingerprints.add(scanner.fingerprint)
    assert len(fingerprints) == 3  # readings cached for one are never taken for the other
