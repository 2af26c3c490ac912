"""The detector and the classifier trained on a lent GPU machine in one command (``docs/gpu.md``).

Such a machine has 15 minutes of device time a session, each start and idle wait counted, at
most 10 for one command, no network, and 64 MiB of what travels with the working tree. So the
work is split three ways, and one run trains one net (``--model detector`` or ``classifier``)
or both side by side (``--model both``, since session 40):

``pack`` (here, on the CPU)
    fills ``.gpu/`` (ignored by git, named in the run's ``carry``) with what the machine lacks:
    the ultralytics wheels, the card decks' rendered atlases (the scene generator reads them
    where no Debian deck is installed, ``datasets.card_art.cached_decks``), the fonts that
    draw indexes and tile numbers, and what ``../shared`` and this machine's models give that
    does not travel: the real Rummikub train photos (:data:`REAL`), and for the classifier the
    "not a piece" crops mined here with the served detector, each set one JPEG
    (:func:`pack_crops`). It says what the run's tree and ``.gpu`` weigh together, and refuses
    a bundle over the 64 MiB.
``train`` (there, in one command)
    unpacks them and makes new scenes with every core. The detector: the scenes and the real
    photos cut and turned as ``make train`` cuts its ``tiled_turned`` set,
    ``models/detector.pt`` trained on them for the time left before a deadline. The
    classifier: the scenes' and the real photos' labelled boxes cut into crops beside the
    carried sets, its start trained on them (augmented on the GPU, or on the CPU's cores should
    that fail) for as many epochs as fit. ``both`` makes the scenes once and trains the
    classifier in a second process beside the detector. After each epoch the weights are copied
    to ``--out`` (the run's ``$OUT``), so a command stopped at its limit still brings back its
    last epoch.
``adopt`` (here)
    serves the brought-back weights (ONNX, the ``.pt`` to go on from, the classifier's 8-bit
    copies); ``make train TRAIN_ARGS="--stages evaluate"`` then reads every set.

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
FONTS_TAR = "fonts.tar.xz"
"""The fonts as they travel (xz: 3.6 MB; 10.7 as the plain tarball of before session 40)."""
TRAVEL_MIB = 64
"""What travels with a run's working tree at most (the ``device`` tool's limit)."""
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
RUNS = (*MODELS_TRAINED, "both")
"""What one run trains (``--model``): one net, or both side by side on the one GPU (``both``,
session 40). A lent session's 15 minutes count each machine start and idle wait, so they hold
one command of 10 minutes, not the two that session 27 ran. How much the two nets slow each
other there is not measured yet."""
MOSAIC_COLUMNS = 64
MOSAIC_QUALITY = 92
""""Not a piece" crop sets travel as one JPEG each (:func:`pack_crops`): a fifth of their size
as a compressed ``.npz``."""
REAL = BUNDLE / "real"
"""The real Rummikub photos' train split as ``data/real`` holds it (the card fans never: they
are the cards' only real test), its labels in the pieces scheme. ``../shared`` does not travel;
there both nets' real crops are cut from these as here: the detector's 320 px crops and the
classifier's stored crops. (Until session 40 each run carried its own cut: 14.1 MB of detector
crops or a 9.4 MB sheet of classifier crops; the photos are 19.7 MB, and both runs need them.)"""
HALVED_START = BUNDLE / "classifier.pt"
"""A ``both`` run's classifier start: ``models/classifier.pt`` in fp16 (3.4 MB instead of 6.7;
the detector's is fp16 already). Both nets' starts and data fit the 64 MiB that travel only so."""


def held_back(run: str) -> list[str]:
    """The files of ``models/`` moved out of the tree for a run of ``run``, so that it travels
    under 64 MiB: the served ONNX files and every ``.pt`` but the run's own start, which trains
    on from there (:func:`start_of`). (Session 26's notes had the classifier's run leave
    ``classifier.pt`` behind too, and it would have trained from nothing.)"""
    from vision.scanner import CLASSIFIER_CHOICES, DETECTOR_FILE

    starts = {start_of(model, run) for model in models_of(run)}
    others = [f"{m}.pt" for m in MODELS_TRAINED if MODELS / f"{m}.pt" not in starts]
    return [DETECTOR_FILE, *CLASSIFIER_CHOICES.values(), *others]


def models_of(run: str) -> tuple[str, ...]:
    """The nets a run of ``run`` (one of :data:`RUNS`) trains."""
    return MODELS_TRAINED if run == "both" else (run,)


def start_of(model: str, run: str) -> Path:
    """The weights a run of ``run`` trains ``model`` on from: ``models/<model>.pt``, but the
    classifier of a ``both`` run from :data:`HALVED_START`."""
    return HALVED_START if (run, model) == ("both", "classifier") else MODELS / f"{model}.pt"


def halve(checkpoint: Path, out: Path) -> Path:
    """``checkpoint`` (weights as ``models/classifier.pt`` holds them) with its floating weights
    in fp16; :func:`vision.train.classifier.load_weights` reads them into the fp32 net."""
    import torch

    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    net = {k: v.half() if v.is_floating_point() else v for k, v in state["net"].items()}
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({**state, "net": net}, out)
    return out


def pack_real(src: Path, out: Path) -> int:
    """The photos of ``src``'s train split that may be trained on (``labelled_photos``), with
    their labels, copied into ``out`` (links followed); returns how many."""
    from vision.train.data import labelled_photos

    shutil.rmtree(out, ignore_errors=True)
    count = 0
    for part in ("images", "labels"):
        (out / part / "train").mkdir(parents=True)
    for image, label in labelled_photos(src, "train"):
        shutil.copyfile(image, out / "images" / "train" / image.name)
        if label.exists():
            shutil.copyfile(label, out / "labels" / "train" / label.name)
        count += 1
    return count


def pack_crops(crops: Path, out: Path) -> Path:
    """A crop set (``.npz`` of :func:`vision.train.data.build_crop_set`) as ``out`` (``.jpg``,
    the crops in rows of :data:`MOSAIC_COLUMNS`) and ``out`` with ``.npz`` (the labels)."""
    from PIL import Image

    with np.load(crops) as d:
        x, y, a, margin = d["x"], d["y"], d["a"], d["margin"]
    n, size = len(x), x.shape[1]
    if n == 0:
        raise ValueError(f"{crops} holds no crops: there is no sheet to make of it")
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
    from datasets.fonts import (
        PIP_FONT,
        font_files,
        handwriting_fonts,
        index_fonts,
        wider_fonts,
        wider_pip_fonts,
    )

    files = font_files()
    names = dict.fromkeys(
        (*index_fonts(), *wider_fonts(), PIP_FONT, *wider_pip_fonts(), *handwriting_fonts())
    )
    return [files[n] for n in names]


def _fonts_current(tar_path: Path, fonts: list[Path]) -> bool:
    """Whether ``tar_path`` (a fonts tarball of an earlier ``pack``) holds every one of
    ``fonts``: one packed before the wider fonts were drawn lacks them."""
    if not tar_path.exists():
        return False
    with tarfile.open(tar_path) as tar:
        return {p.name for p in fonts} <= set(tar.getnames())


def pack(args: argparse.Namespace) -> None:
    """Fill ``.gpu/`` here: wheels, atlases, fonts, the real photos, what the run's nets need
    besides (the "not a piece" sheets, the halved start) and ``run.sh``."""
    from datasets.card_art import CACHE_VERSION, cache_dir, load_deck, require_art
    from vision.train.pipeline import build_negatives

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
    (BUNDLE / "fonts.tar").unlink(missing_ok=True)  # before session 40, uncompressed: 10.7 MB
    fonts, font_paths = BUNDLE / FONTS_TAR, _fonts()
    if not _fonts_current(fonts, font_paths):
        with tarfile.open(fonts, "w:xz") as tar:  # 3.6 MB
            for path in font_paths:
                tar.add(path, arcname=path.name)
    for old in ("real_tiled", "crops"):  # what runs carried before session 40
        shutil.rmtree(BUNDLE / old, ignore_errors=True)
    if not (DATA / "real" / "data.yaml").exists():
        run_meldcam("import-real", str(REALDATA), "--out", str(DATA / "real"), "--link")
    pack_real(DATA / "real", REAL)
    models = models_of(args.model)
    if "classifier" in models:
        # the "not a piece" sets, mined here first where missing (with the served detector,
        # which the machine there could not run without onnxruntime)
        for crops in build_negatives():
            sheet = BUNDLE / "negatives" / f"{crops.stem}.jpg"
            if _count(crops) == 0:  # nothing to carry: a sheet of no crops cannot be written
                print(f"{crops.name} holds no crops: not carried")
                sheet.unlink(missing_ok=True)
                sheet.with_suffix(".npz").unlink(missing_ok=True)
            elif not sheet.exists() or sheet.stat().st_mtime < crops.stat().st_mtime:
                pack_crops(crops, sheet)  # again when the set was mined again
    else:
        shutil.rmtree(BUNDLE / "negatives", ignore_errors=True)
    HALVED_START.unlink(missing_ok=True)
    if start_of("classifier", args.model) == HALVED_START:
        halve(MODELS / "classifier.pt", HALVED_START)
    (BUNDLE / "run.sh").write_text(RUN_SH.format(args=" ".join(run_options(args))))
    total = sum(p.stat().st_size for p in BUNDLE.rglob("*") if p.is_file())
    held = [MODELS / name for name in held_back(args.model)]
    tree = _tracked_bytes() - sum(p.stat().st_size for p in held if p.exists())
    print(f".gpu/: {total / 2**20:.1f} MiB; with the tree that travels: "
          f"{(total + tree) / 2**20:.1f} of {TRAVEL_MIB} MiB")  # fmt: skip
    if total + tree > TRAVEL_MIB * 2**20:
        raise SystemExit(f"over the {TRAVEL_MIB} MiB that travel: the run would not start")
    print("before the call: mkdir -p /tmp/hold && mv "
          + " ".join(str(p.relative_to(ROOT)) for p in held) + " /tmp/hold/")  # fmt: skip


def _tracked_bytes() -> int:
    """The size of the files git tracks here: the tree that travels with ``.gpu`` (less what
    is moved out for the call)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    return sum((ROOT / name.decode()).stat().st_size for name in listed if name)


def _count(crops: Path) -> int:
    """How many crops the set ``crops`` (``.npz``) holds."""
    with np.load(crops) as d:
        return len(d["y"])


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
    with tarfile.open(BUNDLE / FONTS_TAR) as tar:
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
    """There: scenes, crops, training until the deadline, the weights copied to ``--out``. A
    ``both`` run makes the scenes once, then trains the classifier in a process of its own
    (:data:`CLASSIFIER_SHARE` of the cores) beside the detector (the rest)."""
    t0 = time.time()
    if args.start and args.model == "both":
        raise SystemExit(
            "--start names one net's start: give it with --model detector or classifier"
        )
    starts = {
        model: Path(args.start) if args.start else start_of(model, args.model)
        for model in models_of(args.model)
    }
    for start in starts.values():
        if not start.exists():  # rather than minutes spent training from nothing
            raise SystemExit(f"{_shown(start)}, the run's start, did not travel")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    _unpack()
    scenes = _scenes(args, t0)
    cores = args.threads or os.cpu_count() or 2
    if args.model == "classifier":
        _train_classifier(args, scenes, t0, out, starts["classifier"], cores)
        return
    if args.model == "detector":
        _train_detector(args, scenes, t0, out, starts["detector"], cores)
        return
    share = max(round(cores * CLASSIFIER_SHARE), 1)
    child = subprocess.Popen(
        [sys.executable, "-m", "vision.train.gpu", "train", *_child_args(args, t0, share),
         "--start", str(starts["classifier"])],
    )  # fmt: skip
    try:
        _train_detector(args, scenes, t0, out, starts["detector"], max(cores - share, 1))
    finally:
        code = child.wait()
    if code:
        raise SystemExit(f"the classifier's process stopped with {code}")
    print(f"both done, {time.time() - t0:.0f} s", flush=True)


CLASSIFIER_SHARE = 0.25
"""A ``both`` run's share of the cores for the classifier's process (its crops cut, its batches
drawn; augmented on the GPU); the detector's loader, which augments on the CPU, gets the rest."""


RUN_OPTIONS = (
    "model", "cards", "tiles", "deadline", "reserve", "lr0", "batch", "epochs", "real_repeat",
    "sample", "round",
)  # fmt: skip
"""The options of ``pack`` that its ``run.sh`` passes on to ``train`` there."""


def run_options(args: argparse.Namespace, **changed: object) -> list[str]:
    """``train``'s command-line options for the run ``args`` describe (:data:`RUN_OPTIONS`),
    those named in ``changed`` given other values."""
    values = {name: getattr(args, name) for name in RUN_OPTIONS} | changed
    return [part for k, v in values.items() for part in (f"--{k.replace('_', '-')}", str(v))]


def _child_args(args: argparse.Namespace, t0: float, threads: int) -> list[str]:
    """The arguments of a ``both`` run's classifier process: the same run, the classifier alone,
    with the seconds left of the deadline (the scenes it finds made)."""
    left = args.deadline - (time.time() - t0)
    return [
        *run_options(args, model="classifier", deadline=f"{left:.0f}"),
        "--out", args.out, "--device", args.device, "--threads", str(threads),
    ]  # fmt: skip


def _shown(path: Path) -> str:
    """``path`` relative to the repository where it lies in it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _scenes(args: argparse.Namespace, t0: float) -> list[Path]:
    """The run's new scenes (:func:`round_seeds`), made with every core where not made yet."""
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
            print(f"{name}: {count} scenes, {time.time() - t0:.0f} s", flush=True)
        scenes.append(folder)
    return scenes


def _train_detector(
    args: argparse.Namespace, scenes: list[Path], t0: float, out: Path, start: Path, cores: int
) -> None:
    """The scenes and the real photos cut and turned as ``make train`` cuts its
    ``tiled_turned`` set, the detector trained on them from ``start`` until the deadline, each
    epoch's weights stripped into ``out``."""
    from vision.train.data import build_tiled_detector_set

    real = WORK / "real_tiled"
    if not (real / "data.yaml").exists():
        # the real photos' train split only, as make train cuts them: the validation there is
        # on the new scenes
        build_tiled_detector_set(
            [(REAL, ("train",))], real, long_side=SERVE_IMGSZ, crop=TILED_CROP, per_image=2
        )
    turned = WORK / "tiled_turned"
    jobs = [(str(s), str(WORK / f"tiled_{s.name}"), str(turned)) for s in scenes]
    jobs.append((str(real), str(real), str(turned)))  # cut already: turned with the rest
    with ProcessPoolExecutor(min(len(jobs), cores)) as pool:
        counts = list(pool.map(_cut, jobs))
    print(f"detector crops: {counts} train, {time.time() - t0:.0f} s", flush=True)

    from ultralytics.engine.trainer import BaseTrainer

    from vision.train.detector import strip_checkpoint, train_detector

    BaseTrainer.read_results_csv = _csv_results
    copied = out / "detector.pt"

    def keep(last: Path) -> None:
        strip_checkpoint(last, copied)
        shutil.copy(last.parent.parent / "results.csv", out / "results.csv")

    hours = max(args.deadline - (time.time() - t0) - args.reserve, 60) / 3600
    print(f"detector: training for {hours * 60:.1f} min", flush=True)
    train_detector(
        turned / "data.yaml", WORK / "runs", "gpu", start=start,
        imgsz=320, epochs=30, batch=args.batch or 64, lr0=args.lr0, warmup_epochs=0.5,
        warmup_bias_lr=0.0, scale=0.3,
        device=args.device, workers=max(cores - 1, 1), hours=hours, cache=True,
        close_mosaic=3, on_epoch=keep, resume=False,
    )  # fmt: skip
    print(f"detector done, {time.time() - t0:.0f} s", flush=True)


def _cut_crops(job: tuple[str, str, str]) -> int:
    """One split of one set cut into the classifier's stored crops; returns how many."""
    from vision.train.data import build_crop_set

    source, split, out = job
    if not Path(out).exists():
        build_crop_set([(Path(source), split)], Path(out))
    with np.load(out) as d:
        return len(d["y"])


def _train_classifier(
    args: argparse.Namespace, scenes: list[Path], t0: float, out: Path, start: Path, cores: int
) -> None:
    """There: the scenes and the real photos cut into crops beside the carried "not a piece"
    ones, the classifier trained from ``start`` with ``cores`` threads until the deadline, each
    epoch's weights copied to ``out``."""
    from vision.crops import CROP_SIZE
    from vision.train.classifier import strip_checkpoint, train_classifier
    from vision.train.pipeline import served_margins

    crops = WORK / "crops"
    jobs = [
        (str(s), split, str(crops / f"{s.name}_{split}.npz"))
        for s in scenes
        for split in ("train", "val")
    ]
    real = crops / "real_train.npz"
    jobs.append((str(REAL), "train", str(real)))
    # one process a set and split, whatever ``cores`` says: beside the detector they share
    # the machine for the half minute cutting takes, and training starts the sooner
    with ProcessPoolExecutor(min(len(jobs), os.cpu_count() or 2)) as pool:
        counts = list(pool.map(_cut_crops, jobs))
    carried = {}
    for sheet in sorted((BUNDLE / "negatives").glob("*.jpg")):
        carried[sheet.stem] = crops / f"{sheet.stem}.npz"
        if not carried[sheet.stem].exists():
            unpack_crops(sheet, carried[sheet.stem])
    print(
        f"classifier crops: {sum(counts)} cut ({counts[-1]} real), {len(carried)} carried, "
        f"{time.time() - t0:.0f} s",
        flush=True,
    )
    val = {}  # one set's val split of each kind
    for s in reversed(scenes):
        val["gpu_tiles" if "tiles" in s.name else "gpu_cards"] = crops / f"{s.name}_val.npz"
    val |= {name: path for name, path in carried.items() if name.endswith("_val")}
    train_sets = [crops / f"{s.name}_train.npz" for s in scenes]
    train_sets += [real, *(path for name, path in carried.items() if name.endswith("_train"))]
    copied = out / "classifier.pt"

    def keep(checkpoint: Path) -> None:
        strip_checkpoint(checkpoint, copied)

    device = f"cuda:{args.device}" if args.device.isdigit() else args.device
    checkpoint = WORK / "runs" / "classifier.pt"
    for augment_on in dict.fromkeys((device, "cpu")):
        seconds = max(args.deadline - (time.time() - t0) - args.reserve, 60)
        print(f"classifier: training for {seconds / 60:.1f} min, augmenting on {augment_on}",
              flush=True)  # fmt: skip
        try:
            train_classifier(
                train_sets, val, checkpoint, epochs=args.epochs, batch=args.batch or 512,
                threads=cores, init=start, repeat={real: args.real_repeat},
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
    print(f"classifier done, {time.time() - t0:.0f} s ({CROP_SIZE} px crops)", flush=True)


def adopt(args: argparse.Namespace) -> None:
    """Here: brought-back detector weights become ``models/detector.pt`` and ``detector.onnx``;
    classifier weights ``models/classifier.pt``, ``classifier.onnx`` and its 8-bit copies.
    ``weights`` is the ``.pt`` file, or the folder a run's ``$OUT`` came back to, where each
    net's file is ``<net>.pt``; ``--model both`` adopts every net whose file is there."""
    weights = Path(args.weights)
    found = {
        model: weights / f"{model}.pt" if weights.is_dir() else weights
        for model in models_of(args.model)
    }
    found = {model: path for model, path in found.items() if path.is_file()}
    if not found:
        raise SystemExit(f"{weights}: no {' or '.join(f'{m}.pt' for m in models_of(args.model))}")
    for model, path in found.items():
        if model == "detector":
            from vision.train.detector import serve_detector

            serve_detector(path, MODELS)
            print(f"{path} -> models/detector.onnx, models/detector.pt")
        else:
            from vision.train.pipeline import serve_classifier

            copies = ", ".join(p.name for p in serve_classifier(path))
            print(f"{path} -> models/classifier.onnx, models/classifier.pt, {copies}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="verb", required=True)
    for verb in ("pack", "train"):
        q = sub.add_parser(verb)
        q.add_argument("--model", choices=RUNS, default="detector")
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
            q.add_argument("--start", help="the weights to go on from (default: start_of)")
            q.add_argument("--threads", type=int, default=0, help="cores to use (0: all)")
    q = sub.add_parser("adopt")
    q.add_argument("--model", choices=RUNS, default="detector")
    q.add_argument("weights", help="the .pt brought back, or the folder it came back to")
    args = p.parse_args(argv)
    {"pack": pack, "train": train, "adopt": adopt}[args.verb](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
