"""The int8 classifier: made from the fp32 export, reading as it does, a third of its size, and
served where the CPU has VNNI."""

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
    Scanner,
    ScannerConfig,
    classifier_file,
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


def test_the_bundled_int8_classifier_holds_the_fp32_exports_weights() -> None:
    # quantized from this export, not an earlier one: each weight within half its step
    import onnx
    from onnx import numpy_helper

    def tensors(path: Path) -> dict[str, np.ndarray]:
        graph = onnx.load(str(path)).graph
        return {t.name: numpy_helper.to_array(t) for t in graph.initializer}

    fp32, int8 = tensors(MODELS / TRAINED_CLASSIFIER_FILE), tensors(MODELS / INT8_CLASSIFIER_FILE)
    checked = 0
    for name, weight in fp32.items():
        if f"{name}_quantized" not in int8 or weight.ndim < 2:
            continue  # biases are quantized at the activations' scale, not their own
        q, scale = int8[f"{name}_quantized"].astype(np.float32), int8[f"{name}_scale"]
        zero = int8[f"{name}_zero_point"].astype(np.float32)
        shape = (-1,) + (1,) * (weight.ndim - 1) if scale.ndim else ()
        step = scale.reshape(shape)
        assert np.all(np.abs((q - zero.reshape(shape)) * step - weight) <= 0.51 * step), name
        checked += 1
    assert checked >= 9  # every convolution and the head


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


def _folder(tmp_path: Path, int8: bool = True) -> Path:
    for name in (TRAINED_CLASSIFIER_FILE, INT8_CLASSIFIER_FILE)[: 2 if int8 else 1]:
        (tmp_path / name).write_bytes(b"")
    return tmp_path


def test_int8_is_served_where_the_cpu_has_vnni_and_fp32_elsewhere(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    assert classifier_file(folder, "auto", vnni=True).name == INT8_CLASSIFIER_FILE
    assert classifier_file(folder, "auto", vnni=False).name == TRAINED_CLASSIFIER_FILE
    assert classifier_file(folder, "fp32", vnni=True).name == TRAINED_CLASSIFIER_FILE
    assert classifier_file(folder, "int8", vnni=False).name == INT8_CLASSIFIER_FILE
    (folder / INT8_CLASSIFIER_FILE).unlink()  # a folder trained before session 24
    assert classifier_file(folder, "auto", vnni=True).name == TRAINED_CLASSIFIER_FILE


def test_the_environment_chooses_the_classifier_and_a_bad_choice_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path)
    monkeypatch.setenv(CLASSIFIER_ENV, "FP32")
    assert classifier_file(folder, vnni=True).name == TRAINED_CLASSIFIER_FILE
    monkeypatch.setenv(CLASSIFIER_ENV, "int4")
    with pytest.raises(VisionError, match="'int4'"):
        classifier_file(folder)


def test_the_scanner_loads_the_chosen_classifier_and_names_it_in_its_fingerprint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fingerprints = set()
    for choice in ("int8", "fp32"):
        monkeypatch.setenv(CLASSIFIER_ENV, choice)
        scanner = Scanner.load(MODELS)
        assert scanner.classifier.path == classifier_file(MODELS, choice)
        fingerprints.add(scanner.fingerprint)
    assert len(fingerprints) == 2  # readings cached for one are never taken for the other
