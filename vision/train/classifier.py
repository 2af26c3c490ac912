"""Train the piece classifier (a small CNN on 40 px crops) in torch and export it to ONNX."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from vision.detections import NUM_FACES
from vision.recogniser import MEAN, STD


def build_net(num_classes: int = NUM_FACES) -> object:
    import torch.nn as nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    return nn.Sequential(
        *block(3, 24),
        nn.MaxPool2d(2),
        *block(24, 48),
        *block(48, 48),
        nn.MaxPool2d(2),
        *block(48, 96),
        *block(96, 96),
        nn.MaxPool2d(2),
        *block(96, 192),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(192, num_classes),
    )


def _augment(x: object, generator: object) -> object:
    """Random shift/scale/rotation (a detector's box is never exact) and light/colour jitter."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]  # type: ignore[attr-defined]
    angle = (torch.rand(n, generator=generator) - 0.5) * 0.7
    scale = 0.88 + torch.rand(n, generator=generator) * 0.24
    shift = (torch.rand(n, 2, generator=generator) - 0.5) * 0.2
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.stack(
        [torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1
    )
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)  # type: ignore[attr-defined]
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    gain = 0.7 + torch.rand(n, 3, 1, 1, generator=generator) * 0.6
    bias = (torch.rand(n, 1, 1, 1, generator=generator) - 0.5) * 0.3
    x = x * gain + bias
    blur = torch.rand(n, generator=generator) < 0.3
    if blur.any():
        k = torch.tensor([1.0, 2.0, 1.0]) / 4
        k2 = (k[:, None] * k[None, :]).expand(3, 1, 3, 3)
        x[blur] = F.conv2d(F.pad(x[blur], (1, 1, 1, 1), mode="replicate"), k2, groups=3)
    noise = torch.randn(x.shape, generator=generator) * 0.03  # type: ignore[attr-defined]
    return (x + noise).clamp(0, 1)


def _to_tensor(x: np.ndarray) -> object:
    import torch

    return torch.from_numpy(x).permute(0, 3, 1, 2).float() / 255.0


def _norm(x: object) -> object:
    import torch

    mean = torch.tensor(MEAN).view(1, 3, 1, 1)
    std = torch.tensor(STD).view(1, 3, 1, 1)
    return (x - mean) / std


def evaluate(net: object, x: np.ndarray, y: np.ndarray) -> float:
    """Top-1 accuracy within the crops' own kind."""
    import torch

    from vision.recogniser import CARD_MASK, softmax_by_kind

    net.eval()  # type: ignore[attr-defined]
    with torch.no_grad():
        logits = (
            np.concatenate(
                [
                    net(_norm(_to_tensor(x[i : i + 256]))).numpy()  # type: ignore[operator]
                    for i in range(0, len(x), 256)
                ]
            )
            if len(x)
            else np.zeros((0, NUM_FACES))
        )
    if not len(x):
        return float("nan")
    probs = softmax_by_kind(logits, ~CARD_MASK[y])
    return float((probs.argmax(1) == y).mean())


def train_classifier(
    train: list[Path],
    val: dict[str, Path],
    out: Path,
    *,
    epochs: int = 8,
    batch: int = 128,
    seed: int = 0,
    threads: int = 2,
    init: Path | None = None,
    repeat: dict[Path, int] | None = None,
    sample: float = 1.0,
) -> dict[str, float]:
    """Train on the crop sets ``train`` (.npz), checkpoint to ``out`` (.pt), resume if present.

    A new run starts from the weights of ``init`` when given (the net is fully convolutional, so
    weights learnt on another crop size are a start); ``repeat`` counts how often a set is taken
    per epoch (the real crops are few and worth more than the generated ones); an epoch takes
    a random ``sample`` of the crops (a fresh one each epoch) when the set is too big for the
    time there is.
    """
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    repeat = repeat or {}
    xs = [np.load(p) for p in train for _ in range(repeat.get(p, 1))]
    x = np.concatenate([d["x"] for d in xs])
    y = np.concatenate([d["y"] for d in xs])
    net = build_net()
    optimizer = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)  # type: ignore[attr-defined]
    start = 0
    if not out.exists() and init is not None and init.exists():
        net.load_state_dict(torch.load(init, weights_only=False)["net"])  # type: ignore[attr-defined]
    if out.exists():
        state = torch.load(out, weights_only=False)
        net.load_state_dict(state["net"])  # type: ignore[attr-defined]
        if "optimizer" in state:
            optimizer.load_state_dict(state["optimizer"])
        start = state["epoch"] + 1
    steps = max(1, round(len(x) * sample) // batch)
    generator = torch.Generator().manual_seed(seed)
    vals = {k: np.load(p) for k, p in val.items()}
    metrics: dict[str, float] = {}
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(start, epochs):
        t0 = time.time()
        net.train()  # type: ignore[attr-defined]
        generator.manual_seed(seed + epoch)  # a resumed run draws what it would have drawn
        order = torch.randperm(len(x), generator=generator).numpy()
        total = 0.0
        for group in optimizer.param_groups:
            group["lr"] = 3e-3 * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * epoch / epochs)))
        for s in range(steps):
            idx = order[s * batch : (s + 1) * batch]
            xb = _norm(_augment(_to_tensor(x[idx]), generator))
            yb = torch.from_numpy(y[idx])
            loss = loss_fn(net(xb), yb)  # type: ignore[operator]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach())
            if s % 50 == 0:
                print(f"  step {s}/{steps} loss {float(loss.detach()):.3f}", flush=True)
        metrics = {k: evaluate(net, d["x"], d["y"]) for k, d in vals.items()}
        print(
            f"epoch {epoch + 1}/{epochs} loss {total / steps:.3f} "
            + " ".join(f"{k} {v:.4f}" for k, v in metrics.items())
            + f" ({time.time() - t0:.0f} s)",
            flush=True,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        torch.save(
            {"net": net.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},  # type: ignore[attr-defined]
            out,
        )
    return metrics


def export_classifier(checkpoint: Path, out: Path, size: int) -> Path:
    import torch

    net = build_net()
    net.load_state_dict(torch.load(checkpoint, weights_only=False)["net"])  # type: ignore[attr-defined]
    net.eval()  # type: ignore[attr-defined]
    dummy = torch.zeros(1, 3, size, size)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        net,  # type: ignore[arg-type]
        dummy,
        str(out),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    return out
