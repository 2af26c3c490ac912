"""The detector or the classifier trained on a lent GPU machine in one command (``docs/gpu.md``).

Such a machine has 15 minutes of device time a session, at most 10 for one command, no network,
and 64 MiB of what travels with the working tree. So the work is split three ways, and one run
trains one model (``--model detector`` or ``classifier``):

``pack`` (here, on the CPU)
    fills ``.gpu/`` (ignored by git, named in the run's ``carry``) with what the machine lacks:
    the ultralytics wheels, the card decks' rendered atlases (the scene generator reads them
    where no Debian deck is installed, ``datasets.card_art.cached_decks``), the fonts that
    draw indexes and tile numbers, and what ``../shared`` and this machine's models give that
    does not travel: for the detector, the real Rummikub train photos cut into its 320 px crops;
    for the classifier, the real tile crops and the "not a piece" crops mined here with the
    served detector, each set one JPEG (:func:`pack_crops`).
``train`` (there, in one command)
    unpacks them and makes new scenes with every core. The detector: the scenes cut and turned
    as ``make train`` cuts its ``tiled_turned`` set, ``models/detector.pt`` trained on them for
    the time left before a deadline. The classifier: the scenes' labelled boxes cut into crops
    beside the carried sets, ``models/classifier.pt`` trained on them (augmented on the GPU,
    or on the CPU's cores should that fail) for as many epochs as fit. After each epoch the
    weights are copied to ``--out`` (the run's ``$OUT``), so a command stopped at its limit
    still brings back its last epoch.
``adopt`` (here)
    serves the brought-back weights (ONNX, the ``.pt`` to go on from, the classifier's 8-bit
    copy); ``make train TRAIN_ARGS="--stages evaluate"`` then reads every set.

The command there (about 9 minutes; ``.gpu`` in ``carry``; the files of :func:`held_back` moved
out of the tree for the call, so that it travels under 64 MiB; ``pack`` prints the move)::

    bash .gpu/run.sh

Session 25 ran it once for the detector (``docs/gpu.md``, ``models/detector.md``): 110 s to make
and cut the scenes, 19 epochs in 6.4 minutes, val mAP50 0.504 -> 0.759. Session 27 ran it for
the classifier (59 epochs of 149,000 crops in 6.4 minutes, augmented on the GPU) and again
for the detector (``--round 1``: 16 epochs in 2.8 minutes on newer scenes); both are served.
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

import numpy as np

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
other set uses), so that they are cut into crops side by side. ``--round`` N adds 10 N, so that
a run that goes on from the last one's weights learns from new scenes (:func:`round_seeds`)."""
ROUND_STEP = 10


def round_seeds(round_: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The card and tile scenes' seeds of a run's ``--round`` (0: :data:`CARD_SEEDS`,
    :data:`TILE_SEEDS`)."""
    shift = ROUND_STEP * round_
    return tuple(s + shift for s in CARD_SEEDS), tuple(s + shift for s in TILE_SEEDS)


MODELS_TRAINED = ("detector", "classifier")
"""What one run trains (``--model``): the two do not fit in one command's 10 minutes, nor
their data in the 64 MiB that travel."""
MOSAIC_COLUMNS = 64
MOSAIC_QUALITY = 92
"""Crop sets travel as one JPEG each (:func:`pack_crops`): the real tile crops' 4,131 train crops
are 44 MiB as a compressed ``.npz`` and a fifth of that so."""
CLASSIFIER_CARRIED = ("real_train", "real_val")
"""The classifier's crop sets cut here that travel (``../shared`` does not), with every "not a
piece" set (``vision.train.pipeline.NEGATIVES``: mined here with the served detector, which
the machine could not run without onnxruntime)."""


def held_back(model: str) -> list[str]:
    """The files of ``models/`` moved out of the tree for a run of ``model``, so that it travels
    under 64 MiB: the served ONNX files and the other model's weights, all but the run's start,
    ``models/<model>.pt``. (Session 26's notes had the classifier's run leave ``classifier.pt``
    behind too, and it would have trained from nothing.)"""
    from vision.scanner import CLASSIFIER_CHOICES, DETECTOR_FILE

    others = [f"{other}.pt" for other in MODELS_TRAINED if other != model]
    return [DETECTOR_FILE, *CLASSIFIER_CHOICES.values(), *others]


def pack_crops(crops: Path, out: Path) -> Path:
    """A crop set (``.npz`` of :func:`vision.train.data.build_crop_set`) as ``out`` (``.jpg``,
    the crops in rows of :data:`MOSAIC_COLUMNS`) and ``out`` with ``.npz`` (the labels)."""
    from PIL import Image

    with np.load(crops) as d:
        x, y, a, margin = d["x"], d["y"], d["a"], d["margin"]
    n, size = len(x), x.shape[1]
    rows = -(-n // MOSAIC_COLUMNS)
    grid = np.zeros((rows * MOSAIC_COLUMNS, size, size, 3), np.uint8)
    grid[:n] = x
    sheet = grid.reshape(rows, MOSAIC_COLUMNS, size, size, 3).swapaxes(1, 2)
    out.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(sheet.reshape(rows * size, MOSAIC_COLUMNS * size, 3)).save(
        out, quality=MOSAIC_QUALITY, subsampling=0
    )
    np.savez_compressed(out.with_suffix(".npz"), y=y, a=a, margin=margin, size=np.int64(size))
    return out


def unpack_crops(sheet: Path, out: Path) -> Path:
    """The crop set :func:`pack_crops` made ``sheet`` of, written to ``out`` (``.npz``)."""
    from PIL import Image

    from vision.train.data import save_atomic

    with np.load(sheet.with_suffix(".npz")) as d:
        y, a, margin, size = d["y"], d["a"], d["margin"], int(d["size"])
    with Image.open(sheet) as image:
        pixels = np.asarray(image.convert("RGB"))
    rows = pixels.shape[0] // size
    grid = pixels.reshape(rows, size, MOSAIC_COLUMNS, size, 3).swapaxes(1, 2)
    x = np.ascontiguousarray(grid.reshape(-1, size, size, 3)[: len(y)])
    save_atomic(out, x=x, y=y, a=a, margin=margin)
    return out


RUN_SH = """#!/bin/bash
# made by `python -m vision.train.gpu pack`; run there from the repository root
set -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu/wheels/*.whl \\
  || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
python3 -m vision.train.gpu train --out "$OUT" {args} 2>&1 | tee "$OUT/gpu.log"
"""


def _fonts() -> list[Path]:
    """Every font file the scene generator draws training scenes with here (never the held-out
    ones: ``datasets.fonts.HELD_OUT_FONTS``)."""
    from datasets.fonts import PIP_FONT, font_files, handwriting_fonts, index_fonts, wider_fonts

    files = font_files()
    names = dict.fromkeys((*index_fonts(), *wider_fonts(), PIP_FONT, *handwriting_fonts()))
    return [files[n] for n in names]


def _fonts_current(tar_path: Path, fonts: list[Path]) -> bool:
    """Whether ``tar_path`` (a fonts tarball of an earlier ``pack``) holds every one of
    ``fonts``: one packed before the wider fonts were drawn lacks them."""
    if not tar_path.exists():
        return False
    with tarfile.open(tar_path) as tar:
        return {p.name for p in fonts} <= set(tar.getnames())


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
    if not _faces_current(atlases, CACHE_VERSION):
        decks = require_art()  # the training decks: never the held-out ones (datasets/decks)
        for deck in decks:
            load_deck(deck)  # rendered into the face cache if it is not there yet
        stems = {deck.stem for deck in decks}
        folder = cache_dir() / f"v{CACHE_VERSION}"
        with tarfile.open(atlases, "w:xz", preset=6) as tar:
            for path in sorted(folder.iterdir()):
                if path.suffix in (".npy", ".json") and path.stem in stems:
                    tar.add(path, arcname=f"v{CACHE_VERSION}/{path.name}")
    fonts, font_paths = BUNDLE / "fonts.tar", _fonts()
    if not _fonts_current(fonts, font_paths):
        with tarfile.open(fonts, "w") as tar:
            for path in font_paths:
                tar.add(path, arcname=path.name)
    real = BUNDLE / "real_tiled"
    sheets = BUNDLE / "crops"
    if not (DATA / "real" / "data.yaml").exists():
        run_meldcam("import-real", str(REALDATA), "--out", str(DATA / "real"), "--link")
    if args.model == "detector":
        shutil.rmtree(sheets, ignore_errors=True)  # the classifier's: 64 MiB travel in all
        if not (real / "data.yaml").exists():
            # the real photos' train split only: the validation there is on the new scenes
            build_tiled_detector_set(
                [(DATA / "real", ("train",))], real, long_side=SERVE_IMGSZ, crop=TILED_CROP,
                per_image=2,
            )  # fmt: skip
    else:
        shutil.rmtree(real, ignore_errors=True)
        for crops in _classifier_sets():
            sheet = sheets / f"{crops.stem}.jpg"
            if not sheet.exists() or sheet.stat().st_mtime < crops.stat().st_mtime:
                pack_crops(crops, sheet)  # again when the set was cut or mined again
    options = " ".join(
        f"--{k.replace('_', '-')} {v}"
        for k, v in (("model", args.model), ("cards", args.cards), ("tiles", args.tiles),
                     ("deadline", args.deadline), ("reserve", args.reserve), ("lr0", args.lr0),
                     ("batch", args.batch), ("epochs", args.epochs),
                     ("real_repeat", args.real_repeat), ("sample", args.sample),
                     ("round", args.round))
    )  # fmt: skip
    (BUNDLE / "run.sh").write_text(RUN_SH.format(args=options))
    total = sum(p.stat().st_size for p in BUNDLE.rglob("*") if p.is_file())
    print(f".gpu/: {total / 2**20:.1f} MiB")
    held = " ".join(f"models/{name}" for name in held_back(args.model))
    print(f"before the call: mkdir -p /tmp/hold && mv {held} /tmp/hold/")


def _classifier_sets() -> list[Path]:
    """The crop sets cut here that the classifier's run carries (:data:`CLASSIFIER_CARRIED` and
    the "not a piece" sets), cut or mined first where missing."""
    from vision.train.pipeline import NEGATIVES, build_negatives, crop_set, negatives_file

    carried = [crop_set(*name.rsplit("_", 1)) for name in CLASSIFIER_CARRIED]
    negatives = [negatives_file(name, split) for name, split, _ in NEGATIVES]
    if not all(p.exists() for p in negatives):
        build_negatives()
    return [*carried, *negatives]


def _faces_current(atlases: Path, version: int) -> bool:
    """Whether ``atlases`` (a faces tarball of an earlier ``pack``) holds the face cache's
    current version: one of an older cache would leave the machine there with no deck."""
    if not atlases.exists():
        return False
    with tarfile.open(atlases) as tar:
        first = tar.next()
    return first is not None and first.name.startswith(f"v{version}/")


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
    start = MODELS / f"{args.model}.pt"
    if not start.exists():  # rather than minutes spent training from nothing
        raise SystemExit(f"{start.relative_to(ROOT)}, the run's start, did not travel")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    _unpack()
    scenes = []
    card_seeds, tile_seeds = round_seeds(args.round)
    plan = [
        *(
            (f"gpu_cards{seed}", "cards", seed, args.cards // len(card_seeds))
            for seed in card_seeds
        ),
        *(
            (f"gpu_tiles{seed}", "tiles", seed, args.tiles // len(tile_seeds))
            for seed in tile_seeds
        ),
    ]
    for name, kind, seed, count in plan:
        folder = WORK / name
        if not (folder / "data.yaml").exists():
            run_meldcam(
                "synth", "--kind", kind, "--count", str(count), "--out", str(folder),
                "--seed", str(seed), "--scheme", "pieces", "--workers", str(os.cpu_count() or 2),
                "--art", "wider",
            )  # fmt: skip
        scenes.append(folder)
        print(f"{name}: {count} scenes, {time.time() - t0:.0f} s", flush=True)
    if args.model == "classifier":
        _train_classifier(args, scenes, t0, out)
        return
    turned = WORK / "tiled_turned"
    jobs = [(str(s), str(WORK / f"tiled_{s.name}"), str(turned)) for s in scenes]
    # the real photos' crops, cut here; turned with the rest
    jobs.append((str(BUNDLE / "real_tiled"), str(BUNDLE / "real_tiled"), str(turned)))
    with ProcessPoolExecutor(len(jobs)) as pool:
        counts = list(pool.map(_cut, jobs))
    print(f"crops: {counts} train, {time.time() - t0:.0f} s", flush=True)

    from ultralytics.engine.trainer import BaseTrainer

    from vision.train.detector import strip_checkpoint, train_detector

    BaseTrainer.read_results_csv = _csv_results
    copied = out / "detector.pt"

    def keep(last: Path) -> None:
        strip_checkpoint(last, copied)
        shutil.copy(last.parent.parent / "results.csv", out / "results.csv")

    hours = max(args.deadline - (time.time() - t0) - args.reserve, 60) / 3600
    print(f"training for {hours * 60:.1f} min", flush=True)
    train_detector(
        turned / "data.yaml", WORK / "runs", "gpu", start=start,
        imgsz=320, epochs=30, batch=args.batch or 64, lr0=args.lr0, warmup_epochs=0.5,
        warmup_bias_lr=0.0, scale=0.3,
        device=args.device, workers=max((os.cpu_count() or 2) - 1, 1), hours=hours, cache=True,
        close_mosaic=3, on_epoch=keep, resume=False,
    )  # fmt: skip
    print(f"done, {time.time() - t0:.0f} s", flush=True)


def _cut_crops(job: tuple[str, str, str]) -> int:
    """One split of one set cut into the classifier's stored crops; returns how many."""
    from vision.train.data import build_crop_set

    source, split, out = job
    if not Path(out).exists():
        build_crop_set([(Path(source), split)], Path(out))
    with np.load(out) as d:
        return len(d["y"])


def _train_classifier(args: argparse.Namespace, scenes: list[Path], t0: float, out: Path) -> None:
    """There: the scenes cut into crops beside the carried ones, the classifier trained from
    ``models/classifier.pt`` until the deadline, each epoch's weights copied to ``out``."""
    from vision.crops import CROP_SIZE
    from vision.train.classifier import strip_checkpoint, train_classifier
    from vision.train.pipeline import served_margins

    crops = WORK / "crops"
    jobs = [
        (str(s), split, str(crops / f"{s.name}_{split}.npz"))
        for s in scenes
        for split in ("train", "val")
    ]
    with ProcessPoolExecutor(min(len(jobs), os.cpu_count() or 2)) as pool:
        counts = list(pool.map(_cut_crops, jobs))
    carried = {}
    for sheet in sorted((BUNDLE / "crops").glob("*.jpg")):
        carried[sheet.stem] = crops / f"{sheet.stem}.npz"
        if not carried[sheet.stem].exists():
            unpack_crops(sheet, carried[sheet.stem])
    print(f"crops: {sum(counts)} cut, {len(carried)} carried, {time.time() - t0:.0f} s", flush=True)
    val = {}  # one set's val split of each kind
    for s in reversed(scenes):
        val["gpu_tiles" if "tiles" in s.name else "gpu_cards"] = crops / f"{s.name}_val.npz"
    val |= {name: path for name, path in carried.items() if name.endswith("_val")}
    train_sets = [crops / f"{s.name}_train.npz" for s in scenes]
    train_sets += [path for name, path in carried.items() if name.endswith("_train")]
    copied = out / "classifier.pt"

    def keep(checkpoint: Path) -> None:
        strip_checkpoint(checkpoint, copied)

    device = f"cuda:{args.device}" if args.device.isdigit() else args.device
    checkpoint = WORK / "runs" / "classifier.pt"
    repeat = {carried["real_train"]: args.real_repeat} if "real_train" in carried else None
    for augment_on in dict.fromkeys((device, "cpu")):
        seconds = max(args.deadline - (time.time() - t0) - args.reserve, 60)
        print(f"training for {seconds / 60:.1f} min, augmenting on {augment_on}", flush=True)
        try:
            train_classifier(
                train_sets, val, checkpoint, epochs=args.epochs, batch=args.batch or 512,
                threads=os.cpu_count() or 2, init=MODELS / "classifier.pt",
                repeat=repeat,
                sample=args.sample, lr=args.lr0, device=device, seconds=seconds, on_epoch=keep,
                augment_on=augment_on,
                val_margin=served_margins(val),
            )  # fmt: skip
            break
        except RuntimeError as error:
            # should augmenting on the GPU fail (it ran in session 27), rather than lose the
            # run, go on from the last epoch kept with the crops augmented on the CPU
            if augment_on == "cpu":
                raise
            print(f"augmenting on {augment_on} failed: {error}", flush=True)
    print(f"done, {time.time() - t0:.0f} s ({CROP_SIZE} px crops)", flush=True)


def adopt(args: argparse.Namespace) -> None:
    """Here: brought-back detector weights become ``models/detector.pt`` and ``detector.onnx``;
    classifier weights ``models/classifier.pt``, ``classifier.onnx`` and its 8-bit copy."""
    weights = Path(args.weights)
    if args.model == "detector":
        from vision.train.detector import serve_detector

        serve_detector(weights, MODELS)
        print(f"{weights} -> models/detector.onnx, models/detector.pt")
        return
    from vision.train.pipeline import serve_classifier

    copies = ", ".join(path.name for path in serve_classifier(weights))
    print(f"{weights} -> models/classifier.onnx, models/classifier.pt, {copies}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="verb", required=True)
    for verb in ("pack", "train"):
        q = sub.add_parser(verb)
        q.add_argument("--model", choices=MODELS_TRAINED, default="detector")
        q.add_argument("--cards", type=int, default=4000, help="card scenes made there")
        q.add_argument("--tiles", type=int, default=1500, help="tile scenes made there")
        q.add_argument("--deadline", type=float, default=510, help="seconds the command may take")
        q.add_argument("--reserve", type=float, default=45, help="seconds kept for the end")
        q.add_argument("--lr0", type=float, default=0.001)
        q.add_argument("--batch", type=int, default=0, help="0: 64 (detector), 512 (classifier)")
        q.add_argument("--epochs", type=int, default=60, help="the classifier's most epochs")
        q.add_argument("--real-repeat", type=int, default=3, help="real crops' weight")
        q.add_argument("--sample", type=float, default=1.0, help="share of crops an epoch")
        q.add_argument("--round", type=int, default=0, help="new scenes' seeds (round_seeds)")
        if verb == "train":
            q.add_argument("--out", required=True, help="where the weights go ($OUT)")
            q.add_argument("--device", default="0", help="the CUDA device (cpu for a trial here)")
    q = sub.add_parser("adopt")
    q.add_argument("--model", choices=MODELS_TRAINED, default="detector")
    q.add_argument("weights", help="the detector.pt or classifier.pt brought back")
    args = p.parse_args(argv)
    {"pack": pack, "train": train, "adopt": adopt}[args.verb](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
