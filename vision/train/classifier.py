"""Train the piece classifier (a small CNN on 48 px crops) in torch and export it to ONNX.

The net's outputs (:data:`vision.recogniser.FULL_OUTPUTS`): the 106 face logits; "not a
piece" (crops of detections where no piece lies, :func:`vision.train.data.build_negative_set`),
one softmax with the faces; the crop's up direction as (cos, sin) of its angle (see
:func:`vision.train.data.label_angles`), learnt from the synthetic crops only (the real
photos' angles are unknown) and used by the scanner to tell which side a meld faces.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vision.crops import CROP_SIZE, MARGIN, recut
from vision.detections import NUM_FACES
from vision.recogniser import CARD_MASK, FULL_OUTPUTS, MEAN, NOT_A_PIECE, STD

if TYPE_CHECKING:  # torch is imported where it is used (this module imports without it)
    from torch import Generator, Tensor
    from torch import device as Device
    from torch.nn import Module
    from torch.optim import Optimizer

OUTPUTS = FULL_OUTPUTS
UP = slice(NOT_A_PIECE + 1, NOT_A_PIECE + 3)
"""The (cos, sin) outputs of the up direction."""
TURN_WEIGHT = 0.5
"""Weight of the up-direction loss (1 - cosine of the angle error) beside the faces'."""
CARD_MARGINS = (0.10, 0.42)
"""The range a card corner's (or a "not a piece" crop's) margin is drawn from (uniformly, each
time it is seen), within what its set was stored at (:data:`vision.crops.STORE_MARGIN`)."""
TILE_MARGINS = (0.08, 0.30)
"""The same for a tile: a tile's box is the whole tile, served at a margin near this range's
middle (``crop_margin_tiles``); wider crops taught little but cost tile accuracy (session 5)."""
MOTION = 0.2
"""The share of crops smeared along a line in any direction (a hand that moved), by
``MOTION_PX`` drawn uniformly: `bench/conditions.py`'s motion (1/150 of the photo across) is
about 7 px of a fan corner's 48 px crop; the scenes' own motion blur (12 % of them, 3-9 px of a
1280 px scene) is 1-3 px of such a crop. The served net trained 14 half epochs with it
(sessions 18 and 19): real fans under motion blur 0.791 -> 0.852 (`models/classifier.md`)."""
MOTION_PX = (2.0, 8.0)
NOISE = (0.0, 0.06)
"""Each crop's sensor noise sigma is drawn from this range (was 0.03 for all until session 18:
a brightened dark photo's raised noise, :func:`vision.light.expose`, is 0.05-0.07)."""


RESIDUAL = 2
"""Residual blocks at the last stage's width (192 channels, 6x6 at 48 px) since session 7:
session 5's plain net (0.34 M parameters) read its own training crops no better than held-out
ones (card corners 0.87 against 0.85-0.89), so it lacked capacity rather than data. Each block's
last BatchNorm starts at zero, so a net extended from an older checkpoint starts as that net."""


def build_net(num_classes: int = OUTPUTS, residual: int = RESIDUAL) -> Module:
    """The classifier: 6 plain conv+BN+ReLU layers (24-192 channels, 3 max-pools), ``residual``
    residual blocks at 192 channels, global average pool, dropout, one linear head."""
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
        *(_residual(192) for _ in range(residual)),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(192, num_classes),
    )


@functools.cache
def _residual_class() -> type[Module]:
    """The residual block's class, made once torch is wanted (this module imports without it)."""
    import torch
    import torch.nn as nn

    class Residual(nn.Module):
        """relu(x + bn(conv(relu(bn(conv(x)))))), the second BatchNorm's scale starting at 0."""

        def __init__(self, channels: int) -> None:
            super().__init__()
            self.f = nn.Sequential(
                nn.Conv2d(channels, channels, 3, padding=1, bias=False),
                nn.BatchNorm2d(channels),
                nn.ReLU(),
                nn.Conv2d(channels, channels, 3, padding=1, bias=False),
                nn.BatchNorm2d(channels),
            )
            nn.init.zeros_(self.f[4].weight)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x + self.f(x))

    return Residual


def _residual(channels: int) -> Module:
    return _residual_class()(channels)


def _augment(
    x: Tensor,
    generator: Generator,
    stored: Tensor,
    size: int = CROP_SIZE,
    margins: tuple[Tensor | float, Tensor | float] = CARD_MARGINS,
) -> tuple[Tensor, Tensor]:
    """(augmented ``size`` px crops, the angle in radians each crop's up direction turned by)
    from crops ``x`` stored at the margins ``stored`` (one per crop): a margin drawn between
    ``margins`` (bounds for all crops or one per crop), random quarter turns,
    shift/scale/rotation (a detector's box is never exact), light and colour jitter.

    Margin: a detector's box on a card's index may hold the rank and only part of the suit;
    a crop with more around the box shows the rest of it. Drawing the margin teaches the
    classifier to read a piece whatever lies around it, so the scanner can cut wider crops
    than the detector's box without the classifier meeting crops it never saw.

    Quarter turns: a piece lies facing any player (a card's other corner is its half turn, the
    side players' melds are quarter turns); the scanner reads every crop also half turned.
    Washed-out colour: a real card's red under warm indoor light is far duller than a deck's
    artwork (session 2's model read real red suits as black).
    """
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    on = x.device
    turns = torch.randint(0, 4, (n,), generator=generator, device=on)
    x = x.clone()
    for k in (1, 2, 3):
        chosen = turns == k
        if chosen.any():
            x[chosen] = torch.rot90(x[chosen], k, dims=(2, 3))
    grey = x.mean(dim=1, keepdim=True)
    wash = (
        (torch.rand(n, 1, 1, 1, generator=generator, device=on) < 0.5)
        * torch.rand(n, 1, 1, 1, generator=generator, device=on)
        * 0.45
    )
    x = x * (1 - wash) + grey * wash
    lo, hi = margins
    margin = torch.minimum(lo + torch.rand(n, generator=generator, device=on) * (hi - lo), stored)
    part = (1 + 2 * margin) / (1 + 2 * stored)  # the share of the stored crop kept
    angle = (torch.rand(n, generator=generator, device=on) - 0.5) * 0.7
    scale = 0.88 + torch.rand(n, generator=generator, device=on) * 0.24
    shift = (torch.rand(n, 2, generator=generator, device=on) - 0.5) * 0.3 * part[:, None]
    cos, sin = torch.cos(angle) * part / scale, torch.sin(angle) * part / scale
    theta = torch.stack(
        [torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1
    )
    # torch.rot90 from rows towards columns turns a direction by -90 degrees (y points down);
    # sampling through the rotation ``angle`` turns the content by -angle
    turned = -turns.float() * (torch.pi / 2) - angle
    grid = F.affine_grid(theta, [n, x.shape[1], size, size], align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    gain = 0.8 + torch.rand(n, 3, 1, 1, generator=generator, device=on) * 0.4
    bias = (torch.rand(n, 1, 1, 1, generator=generator, device=on) - 0.5) * 0.3
    x = x * gain + bias
    blur = torch.rand(n, generator=generator, device=on) < 0.3
    if blur.any():
        k = torch.tensor([1.0, 2.0, 1.0], device=on) / 4
        k2 = (k[:, None] * k[None, :]).expand(3, 1, 3, 3)
        x[blur] = F.conv2d(F.pad(x[blur], (1, 1, 1, 1), mode="replicate"), k2, groups=3)
    # (nothing is drawn for MOTION 0 and one NOISE: the same draws as before session 18)
    if MOTION > 0:
        smear = torch.rand(n, generator=generator, device=on) < MOTION
        if smear.any():
            x[smear] = motion_blur(x[smear], generator)
    least, most = NOISE
    sigma = (
        least + torch.rand(n, 1, 1, 1, generator=generator, device=on) * (most - least)
        if most > least
        else least
    )
    noise = torch.randn(x.shape, generator=generator, device=on) * sigma
    return (x + noise).clamp(0, 1), turned


def motion_kernels(n: int, generator: Generator, size: int = 9, on: Device | str = "cpu") -> Tensor:
    """``n`` (size, size) kernels, each a line of a length drawn from ``MOTION_PX`` in a
    direction drawn from all, anti-aliased (a pixel weighs by how near the line it lies)."""
    import torch

    lo, hi = MOTION_PX
    length = lo + torch.rand(n, 1, 1, generator=generator, device=on) * (hi - lo)
    angle = torch.rand(n, 1, 1, generator=generator, device=on) * torch.pi
    c = torch.arange(size, dtype=torch.float32, device=on) - (size - 1) / 2
    yy, xx = torch.meshgrid(c, c, indexing="ij")
    along = xx * torch.cos(angle) + yy * torch.sin(angle)
    across = -xx * torch.sin(angle) + yy * torch.cos(angle)
    w = (1 - across.abs()).clamp(min=0) * (length / 2 + 0.5 - along.abs()).clamp(0, 1)
    return w / w.sum(dim=(1, 2), keepdim=True)


def motion_blur(x: Tensor, generator: Generator) -> Tensor:
    """Crops ``x`` (N, C, H, W) each smeared by its own :func:`motion_kernels` line."""
    import torch.nn.functional as F

    n, ch, h, w = x.shape
    k = motion_kernels(n, generator, on=x.device)
    size = k.shape[-1]
    weight = k.repeat_interleave(ch, dim=0)[:, None]
    pad = size // 2
    flat = F.pad(x.reshape(1, n * ch, h, w), (pad, pad, pad, pad), mode="replicate")
    return F.conv2d(flat, weight, groups=n * ch).reshape(n, ch, h, w)


def _to_tensor(x: np.ndarray, on: str = "cpu") -> Tensor:
    """uint8 crops (N, H, W, 3) as floats (N, 3, H, W) in 0-1 on ``on`` (moved as bytes)."""
    import torch

    return torch.from_numpy(x).to(on).permute(0, 3, 1, 2).float() / 255.0


def _norm(x: Tensor) -> Tensor:
    import torch

    mean = torch.tensor(MEAN, device=x.device).view(1, 3, 1, 1)
    std = torch.tensor(STD, device=x.device).view(1, 3, 1, 1)
    return (x - mean) / std


def _optimizer_to(optimizer: Optimizer, device: str) -> None:
    """Move an optimiser's state (AdamW's moments) to ``device``, beside its net."""
    import torch

    for state in optimizer.state.values():
        for key, value in state.items():
            if isinstance(value, torch.Tensor):
                state[key] = value.to(device)


def net_outputs(net: Module, x: np.ndarray, device: str = "cpu") -> np.ndarray:
    """The net's raw outputs (face logits, "not a piece", up as cos and sin) for the uint8 crops
    ``x``, in batches of 256, evaluation mode, no gradients."""
    import torch

    net.eval()
    with torch.no_grad():
        parts = [
            net(_norm(_to_tensor(x[i : i + 256])).to(device)).cpu().numpy()
            for i in range(0, len(x), 256)
        ]
    return np.concatenate(parts) if parts else np.zeros((0, OUTPUTS), np.float32)


def evaluate(out: np.ndarray, y: np.ndarray) -> float:
    """From the net's outputs ``out`` for crops of faces ``y``. Pieces: top-1 accuracy within
    the crops' own kind, a crop the net calls "not a piece" counting as wrong. Crops of no
    piece: the share the net calls "not a piece" as a card and as a tile alike."""
    from vision.recogniser import DROP, piece_probabilities

    if not len(out):
        return float("nan")
    logits, none = out[:, :NUM_FACES], out[:, NOT_A_PIECE]
    pieces = y < NUM_FACES
    if not pieces.any():
        as_card = piece_probabilities(logits, none, np.zeros(len(y), bool))[1]
        as_tile = piece_probabilities(logits, none, np.ones(len(y), bool))[1]
        return float(((as_card > DROP) & (as_tile > DROP)).mean())
    faces, p_none = piece_probabilities(logits, none, ~CARD_MASK[np.minimum(y, NUM_FACES - 1)])
    return float(((faces.argmax(1) == y) & (p_none <= DROP))[pieces].mean())


def evaluate_turn(out: np.ndarray, angles: np.ndarray) -> float:
    """From the net's outputs ``out``: the share of the crops with a known angle whose up
    direction is read within 45 degrees."""
    known = np.isfinite(angles)
    if not known.any():
        return float("nan")
    up = out[known][:, UP]
    read = np.arctan2(up[:, 1], up[:, 0])
    error = np.angle(np.exp(1j * (read - angles[known])))
    return float((np.abs(error) < np.pi / 4).mean())


def _turn_loss(out: Tensor, angles: Tensor) -> Tensor:
    """Mean (1 - cos error) of the up direction over the crops whose angle is known."""
    import torch

    known = torch.isfinite(angles)
    if not bool(known.any()):
        return out.sum() * 0.0
    pred = out[known][:, UP]
    target = torch.stack([torch.cos(angles[known]), torch.sin(angles[known])], 1)
    cos = (pred * target).sum(1) / (pred.norm(dim=1) + 1e-6)
    return (1 - cos).mean()


def load_weights(net: Module, state: dict[str, Tensor]) -> None:
    """Load ``state`` into ``net``, which may have grown since: a head with fewer outputs (a
    model from before the up direction was learnt) fills the first rows of this one's, and a
    checkpoint from before the residual blocks (:data:`RESIDUAL`) has its head under an earlier
    index; what the checkpoint lacks keeps its initialisation (the residual blocks start as
    identities, so the grown net reads as the old one did)."""
    own = net.state_dict()
    state = _renamed_head(state, own)
    for key, value in state.items():
        if key not in own:
            raise ValueError(f"{key}: no such weight in this net")
        target = own[key]
        if value.shape == target.shape:
            own[key] = value
        elif value.shape[1:] == target.shape[1:] and value.shape[0] < target.shape[0]:
            merged = target.clone()
            merged[: value.shape[0]] = value
            own[key] = merged
        else:
            raise ValueError(f"{key}: cannot load {tuple(value.shape)} into {tuple(target.shape)}")
    net.load_state_dict(own)


def _renamed_head(state: dict[str, Tensor], own: dict[str, Tensor]) -> dict[str, Tensor]:
    """``state`` with its linear head's keys renamed to ``own``'s when they sit at another
    index of the sequence (the head is the last ``<index>.weight`` / ``.bias`` pair)."""

    def head(keys: list[str]) -> str:
        return keys[-1].rsplit(".", 1)[0]

    old, new = head(list(state)), head(list(own))
    if old == new or f"{old}.weight" not in state or f"{new}.weight" in state:
        return state
    return {(new + k[len(old) :] if k.rsplit(".", 1)[0] == old else k): v for k, v in state.items()}


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
    val_margin: dict[str, float] | None = None,
    lr: float = 3e-3,
    device: str = "cpu",
    seconds: float | None = None,
    on_epoch: Callable[[Path], None] | None = None,
    augment_on: str = "cpu",
) -> dict[str, float]:
    """Train on the crop sets ``train`` (.npz), checkpoint to ``out`` (.pt), resume if present.

    A new run starts from the weights of ``init`` when given (the net is fully convolutional, so
    weights learnt on another crop size are a start); ``repeat`` counts how often a set is taken
    per epoch (the real crops are few and worth more than the generated ones); an epoch takes
    a random ``sample`` of the crops (a fresh one each epoch) when the set is too big for the
    time there is. Each crop's margin is drawn from :data:`CARD_MARGINS` or
    :data:`TILE_MARGINS`; ``lr`` is the peak learning rate. The validation sets are
    cut at ``val_margin`` (by set name; :data:`vision.crops.MARGIN` where not named), the
    margin the scanner serves them at. The net learns on ``device`` (``cpu``, or ``cuda``);
    crops are drawn on the CPU and augmented on ``augment_on`` (below), and checkpoints hold
    CPU tensors, so a run started on one device goes on on the other.

    With ``seconds``, the run is fitted to that time from this call: once the first epoch has
    taken its time, ``epochs`` becomes as many as fit in what is left (at least 1, at most
    ``epochs``), and the learning rate's cosine is drawn over those (the first epoch's rate is
    ``lr`` whatever the count). After each epoch's checkpoint is written, ``on_epoch`` is
    called with its path. The crops are augmented on ``augment_on`` (``device`` spares a GPU's
    run the CPU's pace; its random draws are then the GPU's, not those a CPU run makes).
    """
    import torch

    called = time.time()
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    repeat = repeat or {}
    xs = [np.load(p) for p in train for _ in range(repeat.get(p, 1))]
    x = np.concatenate([d["x"] for d in xs])
    y = np.concatenate([d["y"] for d in xs])
    a = np.concatenate([_angles_of(d) for d in xs])
    stored = np.concatenate([np.full(len(d["y"]), _margin_of(d), np.float32) for d in xs])
    tile = np.zeros(len(y), bool)
    tile[y < NUM_FACES] = ~CARD_MASK[y[y < NUM_FACES]]
    margin_lo = np.where(tile, TILE_MARGINS[0], CARD_MARGINS[0]).astype(np.float32)
    margin_hi = np.where(tile, TILE_MARGINS[1], CARD_MARGINS[1]).astype(np.float32)
    net = build_net()
    optimizer = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    start = 0
    if not out.exists() and init is not None and init.exists():
        load_weights(net, torch.load(init, map_location="cpu", weights_only=False)["net"])
    if out.exists():
        state = torch.load(out, map_location="cpu", weights_only=False)
        load_weights(net, state["net"])
        if "optimizer" in state:
            optimizer.load_state_dict(state["optimizer"])
        start = state["epoch"] + 1
    net.to(device)
    _optimizer_to(optimizer, device)
    steps = max(1, round(len(x) * sample) // batch)
    generator = torch.Generator().manual_seed(seed)
    drawing = generator if augment_on == "cpu" else torch.Generator(device=augment_on)
    val_margin = val_margin or {}
    vals = {k: val_crops(np.load(p), val_margin.get(k, MARGIN)) for k, p in val.items()}
    metrics: dict[str, float] = {}
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    epoch = start
    while epoch < epochs:
        t0 = time.time()
        net.train()
        generator.manual_seed(seed + epoch)  # a resumed run draws what it would have drawn
        drawing.manual_seed(seed + epoch)
        order = torch.randperm(len(x), generator=generator).numpy()
        total = 0.0
        for group in optimizer.param_groups:
            group["lr"] = lr * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * epoch / epochs)))
        for s in range(steps):
            idx = order[s * batch : (s + 1) * batch]
            bounds = (
                torch.from_numpy(margin_lo[idx]).to(augment_on),
                torch.from_numpy(margin_hi[idx]).to(augment_on),
            )
            xb, turned = _augment(
                _to_tensor(x[idx], augment_on),
                drawing,
                torch.from_numpy(stored[idx]).to(augment_on),
                margins=bounds,
            )
            yb = torch.from_numpy(y[idx]).to(device)
            ab = (torch.from_numpy(a[idx]).to(augment_on) + turned).to(device)
            outb = net(_norm(xb).to(device))
            loss = loss_fn(outb[:, : NOT_A_PIECE + 1], yb) + TURN_WEIGHT * _turn_loss(outb, ab)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach())
            if s % 50 == 0:
                print(f"  step {s}/{steps} loss {float(loss.detach()):.3f}", flush=True)
        metrics = {}  # one forward pass per validation set
        for k, d in vals.items():
            outputs, angles = net_outputs(net, d["x"], device), _angles_of(d)
            metrics[k] = evaluate(outputs, d["y"])
            if np.isfinite(angles).any():
                metrics[f"{k}_turn"] = evaluate_turn(outputs, angles)
        print(
            f"epoch {epoch + 1}/{epochs} loss {total / steps:.3f} "
            + " ".join(f"{k} {v:.4f}" for k, v in metrics.items())
            + f" ({time.time() - t0:.0f} s)",
            flush=True,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        weights = {k: v.detach().cpu() for k, v in net.state_dict().items()}
        _optimizer_to(optimizer, "cpu")
        torch.save({"net": weights, "optimizer": optimizer.state_dict(), "epoch": epoch}, out)
        _optimizer_to(optimizer, device)
        if on_epoch is not None:
            on_epoch(out)
        if seconds is not None and epoch == start:
            more = int((seconds - (time.time() - called)) // max(time.time() - t0, 1e-3))
            epochs = max(start + 1, min(epochs, start + 1 + more))
            print(f"  {epochs - start} epochs fit in {seconds:.0f} s", flush=True)
        epoch += 1
    return metrics


def _margin_of(data: Mapping[str, np.ndarray]) -> float:
    """The margin a crop set was cut at (:data:`vision.crops.MARGIN` for a set from before
    sets kept it)."""
    return float(data["margin"]) if "margin" in data else MARGIN


def val_crops(data: Mapping[str, np.ndarray], margin: float) -> dict[str, np.ndarray]:
    """A validation set's crops cut again at ``margin`` and :data:`CROP_SIZE`, with its labels."""
    x = np.asarray(data["x"])
    stored = _margin_of(data)
    if abs(stored - margin) > 1e-6 or x.shape[1] != CROP_SIZE:
        x = recut(x, stored, margin)
    return {"x": x, "y": np.asarray(data["y"]), "a": _angles_of(data)}


def _angles_of(data: Mapping[str, np.ndarray]) -> np.ndarray:
    """A crop set's up angles (NaN for a set built before they were kept)."""
    if "a" in data:
        return np.asarray(data["a"], np.float32)
    return np.full(len(data["y"]), np.nan, np.float32)


def strip_checkpoint(checkpoint: Path, out: Path) -> Path:
    """``checkpoint`` without its optimiser state (``models/classifier.pt``: a new run starts
    from the weights alone, and the optimiser's moments would double the file)."""
    import torch

    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"net": state["net"], "epoch": state["epoch"]}, out)
    return out


def average_weights(parts: Sequence[tuple[Path, float]], out: Path) -> Path:
    """The weighted mean of classifier checkpoints' weights, written to ``out`` as a checkpoint
    (its ``epoch`` the last part's) from which a run starts or :func:`export_classifier` exports.

    Nets fine-tuned from one start lie in one basin of the loss, and the mean of their weights
    reads better than each ("model soups", Wortsman et al. 2022); weighing the start in too
    keeps more of what the start read on data unlike the fine-tune's (WiSE-FT, Wortsman et al.
    2022). Session 53: three short fine-tunes of the served net each read
    ``dev_decks``' card corners (decks no model trains on) worse than it, the mean of the three
    and the start at equal weight read them as it does and keep most of their gain on
    ``dev_cards`` (``models/classifier.md``). BatchNorm's running statistics are averaged with
    the weights; its step counters are the first part's. Every part must hold the same net."""
    import torch

    from vision.train.soup import weighted_mean

    states = [torch.load(path, map_location="cpu", weights_only=False) for path, _ in parts]
    weights = weighted_mean(
        [(str(path), state["net"], w) for (path, w), state in zip(parts, states, strict=True)]
    )  # (refuses an empty ``parts``)
    epoch = int(states[-1].get("epoch", 0))
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"net": weights, "epoch": epoch}, out)
    return out


def load_net(checkpoint: Path) -> Module:
    """The net whose weights ``checkpoint`` holds (a training run's or ``models/classifier.pt``),
    in eval mode."""
    import torch

    net = build_net()
    load_weights(net, torch.load(checkpoint, map_location="cpu", weights_only=False)["net"])
    net.eval()
    return net


def export_classifier(checkpoint: Path, out: Path, size: int) -> Path:
    import torch

    net = load_net(checkpoint)
    dummy = torch.zeros(1, 3, size, size)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        net,
        dummy,
        str(out),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    return out
