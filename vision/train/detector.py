"""Train the coarse detector with ultralytics, resumably, and export it to ONNX."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from vision.train.env import offline_ultralytics


def train_detector(
    data: Path,
    project: Path,
    name: str,
    *,
    cfg: str = "yolov8n.yaml",
    start: Path | None = None,
    imgsz: int = 512,
    epochs: int = 10,
    batch: int = 16,
    fraction: float = 1.0,
    resume: bool = True,
    lr0: float = 0.002,
    warmup_epochs: float = 0.3,
    warmup_bias_lr: float = 0.1,
    scale: float = 0.5,
    mosaic: float = 1.0,
    hsv_v: float = 0.4,
    threads: int = 2,
    device: str = "cpu",
    workers: int | None = None,
    hours: float | None = None,
    cache: bool = False,
    close_mosaic: int | None = None,
    on_epoch: Callable[[Path], None] | None = None,
    seed: int = 0,
) -> Path:
    """Train (or resume ``project/name/weights/last.pt``) on ``device`` (``cpu``, or a CUDA
    device such as ``0``); returns the best checkpoint.
    ``hsv_v``: how far a training image's brightness is drawn from its own (ultralytics' 0.4,
    0.6-1.4 times; session 17 trained at 0.7 for photos taken in dim light).
    ``warmup_bias_lr``: where the biases' rate starts its warm-up (ultralytics' 0.1 suits
    random weights; a trained start wants 0).
    ``workers``: loader processes (default 1 on the CPU, 8 elsewhere); ``hours``: stop after
    this long, ultralytics fitting its schedule to it after the first epoch (``epochs`` is then
    only the first guess); ``cache``: hold the decoded images in memory; ``close_mosaic``: the
    last epochs without mosaic (default a fifth); ``on_epoch``: called with ``last.pt`` after
    each epoch is saved (the GPU run copies it out, ``vision/train/gpu.py``); ``seed``: the
    order and augmentation drawn (runs of one recipe with other seeds, to be averaged:
    :func:`average_detectors`)."""
    offline_ultralytics(threads)
    from ultralytics import YOLO

    last = project / name / "weights" / "last.pt"
    if resume and last.exists():
        try:
            YOLO(str(last)).train(resume=True, workers=1)
            return project / name / "weights" / "best.pt"
        except AssertionError:
            pass  # the run had finished: start a new one from its last weights
    # a start checkpoint of the same design keeps every tensor (its class head too); ultralytics
    # 8.4 drops a loaded checkpoint's weights unless ``pretrained`` is true (until session 3
    # every phase here silently started from random weights)
    model = YOLO(str(start)) if start is not None else YOLO(cfg)
    if on_epoch is not None:
        model.add_callback("on_model_save", lambda trainer: on_epoch(Path(trainer.last)))
    model.train(
        data=str(data),
        project=str(project),
        name=name,
        exist_ok=True,
        imgsz=imgsz,
        epochs=epochs,
        batch=batch,
        workers=workers if workers is not None else (1 if device == "cpu" else 8),
        device=device,
        cache="ram" if cache else False,
        deterministic=device == "cpu",
        pretrained=start is not None,
        optimizer="AdamW",
        lr0=lr0,
        warmup_epochs=warmup_epochs,
        warmup_bias_lr=warmup_bias_lr,
        amp=False,
        plots=False,
        fraction=fraction,
        close_mosaic=close_mosaic if close_mosaic is not None else max(1, epochs // 5),
        degrees=0.0,
        flipud=0.0,
        fliplr=0.0,
        mosaic=mosaic,
        hsv_v=hsv_v,
        scale=scale,
        patience=100,
        verbose=False,
        time=hours,
        seed=seed,
    )
    return project / name / "weights" / "best.pt"


def export_onnx(weights: Path, out: Path, imgsz: int = 640) -> Path:
    """Export a checkpoint to a dynamic-shape ONNX file at ``out``."""
    offline_ultralytics()
    from ultralytics import YOLO

    path = YOLO(str(weights)).export(
        format="onnx", imgsz=imgsz, dynamic=True, simplify=True, opset=17, device="cpu"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    Path(path).replace(out)
    return out


def strip_checkpoint(weights: Path, out: Path) -> Path:
    """Keep only the fp16 model of an ultralytics checkpoint (a small start for next time)."""
    import torch

    ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    model = ckpt.get("ema") or ckpt["model"]
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.half(), "epoch": -1, "train_args": ckpt.get("train_args", {})}, out)
    return out


def average_detectors(parts: Sequence[tuple[Path, float]], out: Path) -> Path:
    """The weighted mean of detector checkpoints' weights (ultralytics checkpoints of one design:
    a run's ``last.pt`` or a stripped ``models/detector.pt``), written to ``out`` as
    :func:`strip_checkpoint` writes one, from which a run starts or :func:`serve_detector`
    serves. Each part's EMA weights are taken where it has them, as ultralytics does; the mean
    is taken in float64 (:func:`vision.train.soup.weighted_mean`) and stored in fp16, as every
    served checkpoint is. The first part's model carries the mean and its training arguments."""
    import torch

    from vision.train.soup import weighted_mean

    ckpts = [torch.load(path, map_location="cpu", weights_only=False) for path, _ in parts]
    models = [(ckpt.get("ema") or ckpt["model"]).float() for ckpt in ckpts]
    mean = weighted_mean(
        [(str(path), m.state_dict(), w) for (path, w), m in zip(parts, models, strict=True)]
    )  # (refuses an empty ``parts``)
    first = models[0]
    first.load_state_dict(mean)
    out.parent.mkdir(parents=True, exist_ok=True)
    train_args = ckpts[0].get("train_args", {})
    torch.save({"model": first.half(), "epoch": -1, "train_args": train_args}, out)
    return out


def serve_detector(weights: Path, models: Path) -> None:
    """Make a checkpoint the served detector: ``models/detector.onnx`` for serving and, stripped,
    ``models/detector.pt`` for training to continue from."""
    export_onnx(weights, models / "detector.onnx")
    strip_checkpoint(weights, models / "detector.pt")
