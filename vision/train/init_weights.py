"""An offline starting point for the detector: nudenet's YOLOv8n (ONNX) mapped onto torch.

``nudenet`` 3.4.2 (PyPI, AGPL-3.0) ships ``nudenet/320n.onnx``, an ultralytics YOLOv8n exported
with its batch norms folded into the convolutions and its initializers named after the torch
modules (``model.0.conv.weight``, ``model.0.conv.bias``). Each folded conv goes back as the conv
weight with an identity batch norm whose bias is the folded bias. The class branch of the head
(18 classes there) is left at its fresh initialisation.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

NUDENET = "nudenet==3.4.2"
ONNX_MEMBER = "nudenet/320n.onnx"


def fetch_nudenet(cache: Path) -> Path:
    """``pip download`` the nudenet wheel (no dependencies) and extract its ONNX file."""
    target = cache / "nudenet-320n.onnx"
    if target.exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", NUDENET, "-d", str(cache)],
        check=True,
    )
    wheel = next(cache.glob("nudenet-3.4.2-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        target.write_bytes(zf.read(ONNX_MEMBER))
    return target


def load_folded_onnx(model: object, onnx_path: Path) -> tuple[int, int]:
    """Copy the folded conv weights of ``onnx_path`` into a ``DetectionModel``.

    Returns (convs loaded, convs left fresh).
    """
    import numpy as np
    import onnx
    import torch
    from onnx import numpy_helper

    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(onnx_path)).graph.initializer}
    loaded = skipped = 0
    for name, module in model.named_modules():  # type: ignore[attr-defined]
        if not isinstance(module, torch.nn.Conv2d):
            continue
        weight = inits.get(f"{name}.weight")
        bias = inits.get(f"{name}.bias")
        if weight is None or tuple(weight.shape) != tuple(module.weight.shape):
            skipped += 1
            continue
        parent = model.get_submodule(name.rsplit(".", 1)[0]) if "." in name else None  # type: ignore[attr-defined]
        bn = getattr(parent, "bn", None)
        with torch.no_grad():
            module.weight.copy_(torch.from_numpy(np.ascontiguousarray(weight)))
            if isinstance(bn, torch.nn.BatchNorm2d) and bias is not None:
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.from_numpy(bias))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
            elif module.bias is not None and bias is not None:
                module.bias.copy_(torch.from_numpy(bias))
        loaded += 1
    return loaded, skipped


def nudenet_start(cfg: str, nc: int, cache: Path, out: Path) -> Path:
    """Write an ultralytics checkpoint of ``cfg`` (e.g. yolov8n.yaml) started from nudenet."""
    import torch
    from ultralytics.nn.tasks import DetectionModel

    model = DetectionModel(cfg, nc=nc, verbose=False)
    loaded, skipped = load_folded_onnx(model, fetch_nudenet(cache))
    print(f"nudenet start: {loaded} convs loaded, {skipped} left fresh")
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.half(), "epoch": -1, "train_args": {}}, out)
    return out
