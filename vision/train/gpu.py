"""The detector trained on a lent GPU machine in one command (``docs/gpu.md``).

Such a machine has 15 minutes of device time a session, at most 10 for one command, no network,
and 64 MiB of what travels with the working tree. So the work is split three ways:

``pack`` (here, on the CPU)
    fills ``.gpu/`` (ignored by git, named in the run's ``carry``) with what the machine lacks:
    the ultralytics wheels, the card decks' rendered atlases (the scene generator reads them
    where no Debian deck is installed, ``datasets.card_art.cached_decks``), the fonts that
    draw indexes and tile numbers, and the real Rummikub train photos already cut into the
    detector's 320 px crops (``../shared`` does not travel).
``train`` (there, in one command)
    unpacks them, makes new scenes with every core, cuts and turns them as ``make train`` cuts
    its ``tiled_turned`` set, and trains ``models/detector.pt`` on them for the time left
    before a deadline. After each epoch the weights (stripped to fp16) are copied to ``--out``
    (the run's ``$OUT``), so a command stopped at its limit still brings back its last epoch.
``adopt`` (here)
    exports the brought-back weights to ``models/detector.onnx`` and keeps them as
    ``models/detector.pt``; ``make train TRAIN_ARGS="--stages evaluate"`` then reads every set.

The command there (about 9 minutes; ``.gpu`` in ``carry``; the ONNX files and
``classifier.pt`` moved out of the tree for the call, so that it travels under 64 MiB)::

    bash .gpu/run.sh

Session 25 ran it once (``docs/gpu.md``, ``models/detector.md``): 110 s to make and cut the
scenes, 19 epochs in 6.4 minutes, val mAP50 0.504 -> 0.759.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tarfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from vision.train.pipeline import (
    DATA,
    MODELS,
    REALDATA,
    ROOT,
    SERVE_IMGSZ,
    TILED_CROP,
    run_meldcam,
)

BUNDLE = ROOT / ".gpu"
WORK = DATA / "gpu"
WHEELS = ("ultralytics==8.4.190", "ultralytics-thop==2.2.3")
"""What the machine's Python lacks for training (its image has torch, torchvision, opencv,
numpy, scipy, matplotlib, pyyaml, psutil and requests; ``docs/gpu.md``). polars is not carried
(its runtime wheel alone is over 30 MiB): ultralytics reads its results table with it once a
run ends, and :func:`_csv_results` reads it with the standard library instead."""
FONTS = Path("/usr/share/fonts/truetype/meldcam")
"""Where the fonts missing there are put (a folder ``datasets.fonts`` searches)."""
CARD_SEEDS = (2411, 2413, 2415, 2417)
TILE_SEEDS = (2412, 2414)
"""The scenes made there: ``--cards`` and ``--tiles`` shared among sets of these seeds (which no
other set uses), so that they are cut into crops side by side."""

RUN_SH = """#!/bin/bash
# made by `python -m vision.train.gpu pack`; run there from the repository root
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/wheels/*.whl \\
  || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
python3 -m vision.train.gpu train --out "$OUT" {args} 2>&1 | tee "$OUT/gpu.log"
"""


def _fonts() -> list[Path]:
    """Every font file the scene generator draws with here."""
    from datasets.fonts import HANDWRITING, PIP_FONT, font_files, index_fonts

    files = font_files()
    names = dict.fromkeys((*index_fonts(), PIP_FONT, *HANDWRITING))
    return [files[n] for n in names if n in files]


def pack(args: argparse.Namespace) -> None:
    """Fill ``.gpu/`` here: wheels, atlases, fonts, real tile crops and ``run.sh``."""
    from datasets.card_art import CACHE_VERSION, cache_dir, load_deck, require_art
    from vision.train.data import build_tiled_detector_set

    BUNDLE.mkdir(exist_ok=True)
    wheels = BUNDLE / "wheels"
    if not any(wheels.glob("*.whl")):
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels),
             *WHEELS],
            check=True,
        )  # fmt: skip
    atlases = BUNDLE / "faces.tar.xz"
    if not atlases.exists():
        for deck in require_art():
            load_deck(deck)  # rendered into the face cache if it is not there yet
        folder = cache_dir() / f"v{CACHE_VERSION}"
        with tarfile.open(atlases, "w:xz", preset=6) as tar:
            for path in sorted(folder.iterdir()):
                if path.suffix in (".npy", ".json"):
                    tar.add(path, arcname=f"v{CACHE_VERSION}/{path.name}")
    fonts = BUNDLE / "fonts.tar"
    if not fonts.exists():
        with tarfile.open(fonts, "w") as tar:
            for path in _fonts():
                tar.add(path, arcname=path.name)
    real = BUNDLE / "real_tiled"
    if not (DATA / "real" / "data.yaml").exists():
        run_meldcam("import-real", str(REALDATA), "--out", str(DATA / "real"), "--link")
    if not (real / "data.yaml").exists():
        # the real photos' train split only: the validation there is on the new scenes
        build_tiled_detector_set(
            [(DATA / "real", ("train",))], real, long_side=SERVE_IMGSZ, crop=TILED_CROP,
            per_image=2,
        )  # fmt: skip
    options = " ".join(
        f"--{k.replace('_', '-')} {v}"
        for k, v in (("cards", args.cards), ("tiles", args.tiles), ("deadline", args.deadline),
                     ("reserve", args.reserve), ("lr0", args.lr0), ("batch", args.batch))
    )  # fmt: skip
    (BUNDLE / "run.sh").write_text(RUN_SH.format(args=options))
    total = sum(p.stat().st_size for p in BUNDLE.rglob("*") if p.is_file())
    print(f".gpu/: {total / 2**20:.1f} MiB")


def _unpack() -> None:
    """Atlases into the face cache (``MELDCAM_CACHE``), fonts where ``datasets.fonts`` looks."""
    cache = WORK / "cache"
    faces = cache / "faces"
    if not faces.is_dir():
        faces.mkdir(parents=True)
        with tarfile.open(BUNDLE / "faces.tar.xz") as tar:
            tar.extractall(faces, filter="data")
    os.environ["MELDCAM_CACHE"] = str(cache)
    from datasets.fonts import font_files

    have = set(font_files())
    with tarfile.open(BUNDLE / "fonts.tar") as tar:
        missing = [m for m in tar.getmembers() if m.name not in have]
        if missing:
            tar.extractall(FONTS, members=missing, filter="data")
    font_files.cache_clear()


def _cut(job: tuple[str, str, str]) -> int:
    """One set's photos cut into 320 px crops (``tiled``; skipped where ``source`` is already
    such a set) and turned into the shared ``tiled_turned`` set; returns the train crops."""
    from vision.train.data import build_tiled_detector_set, build_turned_set

    source, tiled, turned = (Path(p) for p in job)
    if source != tiled:
        build_tiled_detector_set(
            [(source, ("train", "val"))], tiled, long_side=SERVE_IMGSZ, crop=TILED_CROP,
            per_image=3,
        )  # fmt: skip
    build_turned_set(tiled, turned)
    return len(list((tiled / "images" / "train").glob("*.jpg")))


def _csv_results(trainer: object) -> dict[str, list[float]]:
    """ultralytics' ``read_results_csv`` without polars."""
    path = Path(trainer.csv)  # type: ignore[attr-defined]
    try:
        with path.open() as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    return {k.strip(): [float(r[k]) for r in rows] for k in (rows[0] if rows else {})}


def train(args: argparse.Namespace) -> None:
    """There: scenes, crops, training until the deadline, the weights copied to ``--out``."""
    t0 = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    _unpack()
    scenes = []
    plan = [
        *(
            (f"gpu_cards{seed}", "cards", seed, args.cards // len(CARD_SEEDS))
            for seed in CARD_SEEDS
        ),
        *(
            (f"gpu_tiles{seed}", "tiles", seed, args.tiles // len(TILE_SEEDS))
            for seed in TILE_SEEDS
        ),
    ]
    for name, kind, seed, count in plan:
        folder = WORK / name
        if not (folder / "data.yaml").exists():
            run_meldcam(
                "synth", "--kind", kind, "--count", str(count), "--out", str(folder),
                "--seed", str(seed), "--scheme", "pieces", "--workers", str(os.cpu_count() or 2),
            )  # fmt: skip
        scenes.append(folder)
        print(f"{name}: {count} scenes, {time.time() - t0:.0f} s", flush=True)
    turned = WORK / "tiled_turned"
    jobs = [(str(s), str(WORK / f"tiled_{s.name}"), str(turned)) for s in scenes]
    # the real photos' crops, cut here; turned with the rest
    jobs.append((str(BUNDLE / "real_tiled"), str(BUNDLE / "real_tiled"), str(turned)))
    with ProcessPoolExecutor(len(jobs)) as pool:
        counts = list(pool.map(_cut, jobs))
    print(f"crops: {counts} train, {time.time() - t0:.0f} s", flush=True)

    from ultralytics.engine.trainer import BaseTrainer

    from vision.train.detector import strip_checkpoint, train_detector

    BaseTrainer.read_results_csv = _csv_results  # type: ignore[method-assign]
    copied = out / "detector.pt"

    def keep(last: Path) -> None:
        strip_checkpoint(last, copied)
        shutil.copy(last.parent.parent / "results.csv", out / "results.csv")

    hours = max(args.deadline - (time.time() - t0) - args.reserve, 60) / 3600
    print(f"training for {hours * 60:.1f} min", flush=True)
    train_detector(
        turned / "data.yaml", WORK / "runs", "gpu", start=MODELS / "detector.pt",
        imgsz=320, epochs=30, batch=args.batch, lr0=args.lr0, warmup_epochs=0.5,
        warmup_bias_lr=0.0, scale=0.3,
        device=args.device, workers=max((os.cpu_count() or 2) - 1, 1), hours=hours, cache=True,
        close_mosaic=3, on_epoch=keep, resume=False,
    )  # fmt: skip
    print(f"done, {time.time() - t0:.0f} s", flush=True)


def adopt(args: argparse.Namespace) -> None:
    """Here: the brought-back weights become ``models/detector.pt`` and ``detector.onnx``."""
    from vision.train.detector import serve_detector

    weights = Path(args.weights)
    serve_detector(weights, MODELS)
    print(f"{weights} -> models/detector.onnx, models/detector.pt")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="verb", required=True)
    for verb in ("pack", "train"):
        q = sub.add_parser(verb)
        q.add_argument("--cards", type=int, default=4000, help="card scenes made there")
        q.add_argument("--tiles", type=int, default=1500, help="tile scenes made there")
        q.add_argument("--deadline", type=float, default=510, help="seconds the command may take")
        q.add_argument("--reserve", type=float, default=45, help="seconds kept for the end")
        q.add_argument("--lr0", type=float, default=0.001)
        q.add_argument("--batch", type=int, default=64)
        if verb == "train":
            q.add_argument("--out", required=True, help="where the weights go ($OUT)")
            q.add_argument("--device", default="0", help="the CUDA device (cpu for a trial here)")
    q = sub.add_parser("adopt")
    q.add_argument("weights", help="the detector.pt brought back")
    args = p.parse_args(argv)
    {"pack": pack, "train": train, "adopt": adopt}[args.verb](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
