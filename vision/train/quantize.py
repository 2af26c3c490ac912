"""The classifier in 8-bit integers: ``classifier.onnx`` quantized statically, twice.

Weights are int8 per output channel, activations uint8 per tensor, their ranges taken (min and
max) from a fixed, seeded sample of training crops cut at the served margins: the same crops
give the same model. The scanner serves the copy with full 8-bit weights on a CPU with VNNI,
and the copy whose weights are kept within 7 bits (``seven_bit``) on a CPU with AVX2 alone
(:func:`vision.scanner.classifier_file`): there onnxruntime sums uint8 x int8 products in pairs
into 16 bits, which full 8-bit weights can overflow (255 x 127 x 2 > 32,767) and 7-bit ones
cannot (255 x 64 x 2 < 32,767).

Session 24, on a 2-core AMD EPYC with AVX-512 VNNI, batches of 64 crops: 1.03 ms a crop in
fp32, 0.32 ms in int8. One view of val crops read right (3,000 card corners of `syn_cards` and
of `syn_cards3`, 1,300 real tiles, 1,000 of `syn_tiles`), fp32 -> this int8: 0.8195 -> 0.8190,
0.8887 -> 0.8860, 0.9967 -> 0.9976, 0.9797 -> 0.9809. Weights kept to 7 bits read 0.8180,
0.8867, 0.9967, 0.9761, and on the whole scanner 4 melds fewer of `dev_cards` than fp32 (470
against 474 of 632), where 8-bit weights read 474 (`models/classifier.md`).

Session 38, on a 2-core AMD EPYC with AVX2 and no VNNI (session 9 had found int8 no faster on
such a CPU; today's onnxruntime runs it nearly twice as fast): 1.12-1.25 ms a crop in fp32,
0.62-0.67 ms with 7-bit weights, and their top faces agree on 0.978-1.000 of the val crops
(`models/classifier.md`).

Session 52: a 7-bit copy reads 1.4-1.9 % of `dev_cards`' and `dev_decks`' labelled corners
otherwise than its fp32 net (one view), and which ones moves with the calibration crops
(seeds 24 and 25, 6,000 crops). The served net quantized again on a machine lacking two of the
crop sets (`syn_cards2`, `syn_tiles3`; the committed copies' bytes are not made again there)
read 2,264 of the five development card sets' 2,779 melds against the committed copy's 2,274
(`dev_decks` 421 against 427): compare nets quantized alike (``docs/gpu.md``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision.crops import recut
from vision.recogniser import normalise

CALIBRATION = 1500
"""Crops the activation ranges are taken from, drawn evenly from the sets given."""
SEED = 24


def calibration_crops(
    sets: Sequence[tuple[Path, float]], size: int, total: int = CALIBRATION, seed: int = SEED
) -> np.ndarray:
    """(N, size, size, 3) uint8: ``total`` crops drawn evenly (seeded) from stored crop sets,
    each given with the margin the scanner cuts its kind at."""
    rng = np.random.default_rng(seed)
    each = -(-total // max(1, len(sets)))
    out = []
    for path, margin in sets:
        with np.load(path) as data:
            x, stored = data["x"], float(data["margin"])
        idx = np.sort(rng.choice(len(x), min(each, len(x)), replace=False))
        out.append(recut(x[idx], stored, margin, size))
    if not out:
        raise ValueError("no crop sets to calibrate on")
    return np.concatenate(out)[:total]


def quantize_classifier(
    fp32: Path, out: Path, crops: np.ndarray, batch: int = 64, seven_bit: bool = False
) -> Path:
    """Write ``fp32`` quantized to ``out`` (QDQ), its activation ranges read on ``crops``; with
    ``seven_bit`` its weights kept within 7 bits (``reduce_range``), which a CPU without VNNI
    sums in pairs into 16 bits without overflow."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if not len(crops):
        raise ValueError("no crops to calibrate on")

    class Batches(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self, name: str) -> None:
            self.batches = iter(
                {name: normalise(crops[i : i + batch])} for i in range(0, len(crops), batch)
            )

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    import onnx

    name = onnx.load(str(fp32)).graph.input[0].name
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(fp32), str(prepared))
        quantize_static(
            str(prepared),
            str(out),
            Batches(name),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            reduce_range=seven_bit,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
        )
    return out
