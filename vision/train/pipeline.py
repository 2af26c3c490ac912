"""``make train``: generate, build the sets, train, export and evaluate, resumably and offline.

Every stage skips what is already done (generated folders, finished epochs), so an interrupted
run continues where it stopped, and a later session continues training from the checkpoints
kept in ``models/`` (``detector.pt``, ``classifier.pt``)::

    python -m vision.train.pipeline                                   # from nothing
    python -m vision.train.pipeline --start models --phases all:512:4:16 --cls-epochs 24
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
RUNS = ROOT / "runs"
MODELS = ROOT / "models"
REALDATA = ROOT.parent / "shared" / "realdata"


def run_meldcam(*args: str) -> None:
    """``meldcam ARGS...`` in a child process (the same Python), from the repository root."""
    subprocess.run([sys.executable, "-m", "web.cli", *args], check=True, cwd=ROOT)


SYNTHETIC = ("syn_cards", "syn_tiles", "syn_cards2", "syn_tiles2", "syn_cards3", "syn_tiles3")
"""The generated sets; the second pair (other seeds) was added in session 2 for variety, the
third card set in session 4 (card corners are what the detector misses most), the third tile
set in session 31 (``WIDER``). Models train on these (their val splits held out); ``HELD_OUT``
is never trained on."""
WIDER = ("syn_tiles3",)
"""Sets made with ``meldcam synth --art wider``: their tiles draw the wider styles too, numbered
in fonts whose 1 carries a long flag (``datasets.fonts.WIDER_FONTS``)."""


HELD_OUT = (("test_cards", "cards", 200, 909), ("test_tiles", "tiles", 200, 808))
"""Scenes that no model trains on and no setting was chosen on (made in session 13, after the
val sets had been looked at for twelve sessions): (folder, kind, scenes, seed), scored whole.
Larger than the val sets' tile scenes (30 photos each, where one illegible photo moved the
meld rate by 0.046)."""


PHONE_HELD_OUT = (("test_cards_12mp", "cards", 200, 909), ("test_tiles_12mp", "tiles", 200, 808))
"""The held-out tables again (``HELD_OUT``'s seeds: the same layouts, pieces and cameras; their
own light and blur draws) photographed as a 12 MP phone takes them (made in session 19): 4032 px
long, framed as the 1280 px scenes, so every piece and blur is 3.15 times as many pixels. The
1280 px scenes are phone photos shrunk threefold; the scanner reads a phone's photo decoded at
half size (2016 px), so these measure what a player's photo gives it."""
PHONE_SIZE = 4032
PHONE_FRAMING = 1280


DEVELOPMENT = (("dev_cards", "cards", 200, 1313), ("dev_tiles", "tiles", 300, 1212))
"""Scenes that the grouping's and the rules' settings are chosen on since session 22 (the
held-out test sets had been looked into by then): no model trains on them, scored whole."""
PHONE_DEVELOPMENT = (("dev_cards_12mp", "cards", 200, 1313), ("dev_tiles_12mp", "tiles", 300, 1212))
"""The development tables again as a 12 MP phone takes them (as ``PHONE_HELD_OUT``; the card
tables since session 26)."""


UNSEEN_ART = (("test_decks", "cards", 200, 1717), ("test_tile_fonts", "tiles", 200, 1919))
"""Tables made in session 30 of art that no model trains on, as a player's own deck or tiles
are (``meldcam synth --art held-out``): cards dealt from the held-out decks alone
(``datasets/decks``), tiles numbered in the held-out fonts alone
(``datasets.fonts.HELD_OUT_FONTS``). Scored whole, as ``HELD_OUT``."""
PHONE_UNSEEN_ART = (
    ("test_decks_12mp", "cards", 200, 1717),
    ("test_tile_fonts_12mp", "tiles", 200, 1919),
)
"""The same tables as a 12 MP phone takes them (as ``PHONE_HELD_OUT``)."""
UNSEEN_DEVELOPMENT = (("dev_decks", "cards", 200, 2121),)
"""Other tables of the held-out decks (made in session 35), which settings for decks no model
has seen are chosen on, as ``DEVELOPMENT``'s are for the rest, so that ``UNSEEN_ART`` stays a
measure: the jokers that print no mark in their corners (``vision.gaps.flanked_jokers``)."""


def generated_sets(cards: int, tiles: int) -> tuple[tuple[str, str, int, int], ...]:
    """(folder, kind, scenes, seed) of every generated set: ``SYNTHETIC``, then ``HELD_OUT``."""
    return (
        ("syn_cards", "cards", cards, 101),
        ("syn_tiles", "tiles", tiles, 202),
        ("syn_cards2", "cards", cards * 9 // 7, 303),
        ("syn_tiles2", "tiles", tiles, 404),
        ("syn_cards3", "cards", cards * 2, 505),
        ("syn_tiles3", "tiles", tiles * 4 // 3, 606),
        *HELD_OUT,
    )


def generate(cards: int, tiles: int, workers: int) -> None:
    """The synthetic scenes (pieces scheme), the held-out test scenes (also at 12 MP) and the
    real photos, once."""
    phone = ("--size", str(PHONE_SIZE), "--framing", str(PHONE_FRAMING))
    held = ("--art", "held-out")
    for (name, kind, count, seed), extra in [
        *((s, ("--art", "wider") if s[0] in WIDER else ()) for s in generated_sets(cards, tiles)),
        *((s, ()) for s in DEVELOPMENT),
        *((s, phone) for s in (*PHONE_HELD_OUT, *PHONE_DEVELOPMENT)),
        *((s, held) for s in (*UNSEEN_ART, *UNSEEN_DEVELOPMENT)),
        *((s, (*phone, *held)) for s in PHONE_UNSEEN_ART),
    ]:
        out = DATA / name
        if not (out / "data.yaml").exists():
            run_meldcam(
                "synth", "--kind", kind, "--count", str(count), "--out", str(out),
                "--seed", str(seed), "--scheme", "pieces", "--workers", str(workers), *extra,
            )  # fmt: skip
    if not (DATA / "real" / "data.yaml").exists():
        run_meldcam("import-real", str(REALDATA), "--out", str(DATA / "real"), "--link")


def crops_folder() -> Path:
    """Where the classifier's crop sets are kept (named by the size and margin they are cut
    at, so that sets cut another way are never mixed in)."""
    from vision.crops import STORE_MARGIN, STORE_SIZE

    return DATA / f"crops{STORE_SIZE}m{round(STORE_MARGIN * 100)}"


def crop_set(name: str, split: str) -> Path:
    """The classifier's crops of one split of ``data/<name>``, cut first if missing."""
    from vision.train.data import build_crop_set

    target = crops_folder() / f"{name}_{split}.npz"
    if not target.exists():
        build_crop_set([(DATA / name, split)], target)
    return target


def build_sets() -> dict[str, Path]:
    from vision.train.data import (
        build_detector_set,
        build_tiled_detector_set,
        build_turned_set,
    )

    for name in (*SYNTHETIC, "real"):
        for split in ("train", "val"):
            crop_set(name, split)
    sets = {"all": ("syn_cards", "syn_tiles", "real"), "tiles": ("syn_tiles", "real")}
    yamls = {}
    for name, sources in sets.items():
        folder = DATA / ("det" if name == "all" else f"det_{name}")
        if not (folder / "data.yaml").exists():
            build_detector_set([(DATA / n, ("train", "val")) for n in sources], folder)
        yamls[name] = folder / "data.yaml"
    tiled = DATA / "det_tiled"
    # incremental: photos already cut are skipped, so a set added later joins the crops
    tiled_sources = [(DATA / n, ("train", "val")) for n in (*SYNTHETIC, "real")]
    build_tiled_detector_set(
        tiled_sources, tiled, long_side=SERVE_IMGSZ, crop=TILED_CROP, per_image=2
    )
    yamls["tiled"] = tiled / "data.yaml"
    # the same crops turned every way up (training only; session 12)
    yamls["tiled_turned"] = build_turned_set(tiled, DATA / "det_tiled_turned")
    return yamls


NEGATIVES = (
    ("syn_cards", "val", 1),
    ("syn_tiles", "val", 1),
    ("real", "val", 1),
    ("syn_cards", "train", 2),
    ("syn_cards2", "train", 3),
    ("syn_tiles", "train", 2),
    ("syn_tiles2", "train", 3),
    ("syn_cards3", "train", 4),
    ("real", "train", 2),
)
"""Where "not a piece" crops are mined: (set, split, every n-th photo)."""
NEGATIVE_CONF = (0.08, 0.2)
"""The detector's floors (cards, tiles) when mining, below the scanner's (``scanner.json``:
0.1 and 0.25 since session 5) so that what it may ever meet is seen; its other settings are
the served ones. The committed classifier's "not a piece" crops were mined at these floors
with session 4's detector."""


def negatives_file(name: str, split: str) -> Path:
    """Where the "not a piece" crops mined from one split of ``data/<name>`` are kept."""
    return crops_folder() / f"negatives_{name}_{split}.npz"


CARD_SET_WORDS = frozenset({"cards", "decks"})
TILE_SET_WORDS = frozenset({"tiles", "tile", "real"})
"""The words of a crop set's name (split at ``_``) that say which kind of piece it holds: the
card sets (``syn_cards3``, ``dev_decks``, ``gpu_cards_turn``...) and the tile sets
(``syn_tiles2``, ``test_tile_fonts``, ``real``: the real photos here are of tiles)."""


def served_margins(names: Iterable[str], models: Path | None = None) -> dict[str, float]:
    """The margin the scanner cuts each named crop set's crops at (``scanner.json`` of
    ``models``, default ``models/``), by the
    kind of piece its name says (:data:`CARD_SET_WORDS`, :data:`TILE_SET_WORDS`). A name that
    says neither, or both, is refused: until session 48 every set not named "cards" had the
    tile margin, so ``dev_decks`` would have been cut as tiles."""
    from vision.scanner import CONFIG_FILE, ScannerConfig

    config = ScannerConfig.read((models or MODELS) / CONFIG_FILE)
    margins = {}
    for name in names:
        words = set(re.split(r"[_\d]+", name))
        cards, tiles = bool(words & CARD_SET_WORDS), bool(words & TILE_SET_WORDS)
        if cards == tiles:
            raise ValueError(f"crop set {name!r}: its name says neither cards nor tiles alone")
        margins[name] = config.crop_margin if cards else config.tile_crop_margin
    return margins


def negative_sources(data: Path = DATA) -> list[tuple[str, str, int]]:
    """The entries of :data:`NEGATIVES` whose photos are under ``data``: a set not made on
    this machine (session 46's lacked ``syn_cards2``) is not mined, and says so."""
    from vision.train.data import labelled_photos

    present = []
    for name, split, every in NEGATIVES:
        if next(iter(labelled_photos(data / name, split)), None) is None:
            print(f"no {split} photos in {data / name}: its 'not a piece' crops are not mined")
        else:
            present.append((name, split, every))
    return present


def negatives_mined(path: Path) -> bool:
    """Whether the "not a piece" set ``path`` is mined as this code mines it
    (:data:`vision.train.data.NEGATIVES_VERSION`); an older one is mined again."""
    import numpy as np

    from vision.train.data import NEGATIVES_VERSION

    if not path.exists():
        return False
    with np.load(path) as data:
        return "version" in data.files and int(data["version"]) >= NEGATIVES_VERSION


def build_negatives() -> list[Path]:
    """Crops of the detector's finds where no piece lies (needs ``models/detector.onnx``) and of
    the places past card melds' ends, for each set of :func:`negative_sources` whose crops are
    not there yet or were mined by an older version of this code (:func:`negatives_mined`);
    returns those sets' files. A set whose photos are missing writes nothing: an empty file would
    be taken as mined once the set is made."""
    from vision.scanner import Scanner
    from vision.train.data import build_negative_set

    sources = negative_sources()
    files = [negatives_file(name, split) for name, split, _ in sources]
    todo = [(s, out) for s, out in zip(sources, files, strict=True) if not negatives_mined(out)]
    if not todo:
        return files
    if not (MODELS / "detector.onnx").exists():
        print("no detector yet: the classifier trains without 'not a piece' crops", flush=True)
        return files
    cards, tiles = NEGATIVE_CONF
    detector = Scanner.load(MODELS, conf=cards, conf_tiles=tiles).detector
    for (name, split, every), out in todo:
        build_negative_set([(DATA / name, split)], detector, out, every=every)
    return files


def train_classifier_stage(
    epochs: int,
    threads: int = 2,
    sample: float = 1.0,
    lr: float = 3e-3,
    run: str = "",
    device: str = "cpu",
    runs: int = 1,
    keep: float = 0.0,
) -> None:
    """Train the classifier in ``runs/<run>`` (default: named by the crop sets), starting from
    ``models/classifier.pt`` when that run is new, and export it to ``models/``.

    With ``runs`` over 1, as many runs are trained from that start with seeds 0, 1, ... (the
    first in ``classifier.pt``, the others in ``classifier-seed<k>.pt``), and the mean of their
    weights is served; ``keep`` weighs the start's own weights into that mean (WiSE-FT: 0.5
    serves the start and the runs' mean at equal weight;
    :func:`vision.train.classifier.average_weights`). The start is kept beside the runs
    (``start.pt``) when the first of them begins, so a resumed stage averages with the same
    start after ``models/`` has changed."""
    from vision.crops import CROP_SIZE
    from vision.train.classifier import average_weights, strip_checkpoint, train_classifier

    if runs < 1:
        raise ValueError(f"runs: {runs}; at least one run is trained")
    if not 0 <= keep < 1:
        raise ValueError(f"keep: {keep}; the start's weight lies in [0, 1)")
    crops = crops_folder()
    folder = RUNS / (run or f"cls{CROP_SIZE}-{crops.name}")
    checkpoints = [
        folder / ("classifier.pt" if k == 0 else f"classifier-seed{k}.pt") for k in range(runs)
    ]
    averaged = runs > 1 or keep > 0
    start = folder / "start.pt" if averaged else MODELS / "classifier.pt"
    if averaged and not start.exists():
        if any(c.exists() for c in checkpoints):
            raise ValueError(
                f"{folder}: runs begun without their start (start.pt) cannot be averaged with it"
            )
        strip_checkpoint(MODELS / "classifier.pt", start)
    negatives = {
        split: [
            p
            for name, s, _ in NEGATIVES
            if s == split and (p := negatives_file(name, split)).exists()
        ]
        for split in ("train", "val")
    }
    val = ("syn_cards", "syn_tiles", *WIDER, "real")
    for seed, checkpoint in enumerate(checkpoints):
        train_classifier(
            [crops / f"{n}_train.npz" for n in (*SYNTHETIC, "real")] + negatives["train"],
            {n: crops / f"{n}_val.npz" for n in val} | {p.stem: p for p in negatives["val"]},
            checkpoint,
            epochs=epochs,
            seed=seed,
            threads=threads,
            init=start,
            # the real crops are few; the wider fonts' tiles are new (session 31)
            repeat={crops / f"{n}_train.npz": 2 for n in ("real", *WIDER)},
            sample=sample,
            lr=lr,
            device=device,
            # validation crops are cut at the margins the scanner serves
            val_margin=served_margins((*val, *(p.stem for p in negatives["val"]))),
        )
    if averaged:
        parts = [(start, keep)] + [(c, (1 - keep) / runs) for c in checkpoints]
        serve_classifier(average_weights(parts, folder / "averaged.pt"))
    else:
        serve_classifier(checkpoints[0])


def serve_classifier(checkpoint: Path) -> list[Path]:
    """Make a classifier checkpoint the served one: ``models/classifier.onnx``, its weights
    (without the optimiser) as ``models/classifier.pt`` to go on from, and both 8-bit copies
    quantized again (:func:`quantize_stage`, whose files are returned)."""
    from vision.crops import CROP_SIZE
    from vision.scanner import TRAINED_CLASSIFIER_FILE
    from vision.train.classifier import export_classifier, strip_checkpoint

    export_classifier(checkpoint, MODELS / TRAINED_CLASSIFIER_FILE, CROP_SIZE)
    strip_checkpoint(checkpoint, MODELS / "classifier.pt")
    return quantize_stage()


def quantize_stage(models: Path | None = None) -> list[Path]:
    """``models/classifier.onnx`` quantized twice, calibrated on the training crops at the served
    margins (:mod:`vision.train.quantize`): to 8 bits (``classifier.int8.onnx``, which the
    scanner serves on a CPU with VNNI) and with 7-bit weights (``classifier.int8w7.onnx``, served
    on one with AVX2 alone). Returns the two files. ``models`` names another folder (a copy of
    ``models/`` holding the net to quantize): the calibration crops depend on the crop sets this
    machine holds, so a new net is compared with the served one quantized here the same way
    (``docs/gpu.md``)."""
    models = models or MODELS
    from vision.crops import CROP_SIZE
    from vision.scanner import INT8_CLASSIFIER_FILE, TRAINED_CLASSIFIER_FILE, W7_CLASSIFIER_FILE
    from vision.train.quantize import calibration_crops, quantize_classifier

    crops = crops_folder()
    names = [*SYNTHETIC, "real", *(f"negatives_{n}" for n, s, _ in NEGATIVES if s == "train")]
    margins = served_margins(names, models)
    sets = [
        (path, margins[name]) for name in names if (path := crops / f"{name}_train.npz").exists()
    ]
    if not sets:
        raise SystemExit(f"no training crops under {crops}: run the sets stage first")
    calibration = calibration_crops(sets, CROP_SIZE)
    out = [
        quantize_classifier(
            models / TRAINED_CLASSIFIER_FILE, models / name, calibration, seven_bit=seven_bit
        )
        for name, seven_bit in ((INT8_CLASSIFIER_FILE, False), (W7_CLASSIFIER_FILE, True))
    ]
    written = " and ".join(path.name for path in out)
    print(f"quantized {TRAINED_CLASSIFIER_FILE} -> {written} on {len(sets)} crop sets")
    return out


SERVE_IMGSZ = 640
"""The long side the scanner fits a photo into (``models/scanner.json``)."""
TILED_CROP = 320
"""The ``tiled`` set: 320 px crops of photos scaled to ``SERVE_IMGSZ``, pieces at serving size."""
DEFAULT_PHASES = (
    "all:512:1:16,all:416:1:8,tiles:320:8:8,tiled:320:12:16,"
    "tiled_turned:320:2:16:lr0=0.0003:mosaic=0:warmup_epochs=0"
)
"""The schedule: set:imgsz:epochs:batch, each phase starting from the last. The last phase
trains on the crops turned every way up, at a low rate (session 12: the served detector's last
two epochs; `models/detector.md`)."""


def _phase_done(run: Path, epochs: int) -> bool:
    results = run / "results.csv"
    if not (run / "weights" / "last.pt").exists() or not results.exists():
        return False
    return len(results.read_text().strip().splitlines()) - 1 >= epochs


PHASE_OPTIONS = {"lr0": float, "mosaic": float, "warmup_epochs": float, "hsv_v": float}
"""What a phase may set after its set:imgsz:epochs:batch, as key=value (a fine-tune at a low
learning rate without mosaic: ``tiled:320:2:16:lr0=0.0005:mosaic=0:warmup_epochs=0``)."""


def parse_phase(phase: str) -> tuple[str, int, int, int, dict[str, float]]:
    """``set:imgsz:epochs:batch[:key=value...]`` -> (set, imgsz, epochs, batch, options)."""
    parts = phase.split(":")
    if len(parts) < 4:
        raise ValueError(f"a phase is set:imgsz:epochs:batch[:key=value...], not {phase!r}")
    name, imgsz, epochs, batch = parts[:4]
    options: dict[str, float] = {}
    for item in parts[4:]:
        key, sep, value = item.partition("=")
        if not sep or key not in PHASE_OPTIONS:
            raise ValueError(
                f"phase option {item!r}: expected key=value with key one of "
                f"{', '.join(PHASE_OPTIONS)}"
            )
        options[key] = PHASE_OPTIONS[key](value)
    return name, int(imgsz), int(epochs), int(batch), options


def phase_suffix(options: dict[str, float]) -> str:
    """A run folder suffix naming a phase's options (none: empty, so old runs keep their names)."""
    return "".join(f"-{k}={v:g}" for k, v in sorted(options.items()))


def train_detector_stage(
    sets: dict[str, Path], phases: str, start_from: str, threads: int = 2, device: str = "cpu"
) -> None:
    """Run the detector phases in order; a finished phase is skipped, a broken one resumed."""
    from vision.train.detector import serve_detector, strip_checkpoint, train_detector
    from vision.train.init_weights import nudenet_start

    if start_from == "models" and (MODELS / "detector.pt").exists():
        start = MODELS / "detector.pt"
    else:
        start = nudenet_start("yolov8n.yaml", 4, DATA / "cache", DATA / "cache" / "nudenet.pt")
    last = start
    for k, phase in enumerate(phases.split(",")):
        name, imgsz, epochs, batch, options = parse_phase(phase)
        run = RUNS / "det" / f"p{k}-{start_from}-{name}{imgsz}{phase_suffix(options)}"
        if not _phase_done(run, epochs):
            train_detector(
                sets[name], run.parent, run.name, start=start,
                imgsz=imgsz, epochs=epochs, batch=batch,
                scale=0.3 if name.startswith("tiled") else 0.5, threads=threads, device=device,
                # (as Any: its keys are PHASE_OPTIONS, each a float keyword of train_detector)
                **cast(dict[str, Any], options),
            )  # fmt: skip
        last = run / "weights" / "last.pt"
        start = strip_checkpoint(last, run / "start-next.pt")
    serve_detector(last, MODELS)


def evaluate_stage(cache: Path | None = None, models: Path | None = None) -> dict[str, object]:
    """Every evaluation set read by the scanner of ``models`` (default ``models/``), each
    report printed and all written to its ``metrics.json``."""
    from vision.evaluate import evaluate_folder
    from vision.scanner import Scanner

    models = models or MODELS
    scanner = Scanner.load(models)
    runs = {
        "real_tiles_val": (DATA / "real", "tiles", "val", 0),
        "real_card_fans": (DATA / "real", "cards", "all", 0),
        "synthetic_cards_val": (DATA / "syn_cards", "cards", "val", 0),
        "synthetic_tiles_val": (DATA / "syn_tiles", "tiles", "val", 0),
        # the larger card set and the second tile set (other seeds; held out the same way)
        "synthetic_cards3_val": (DATA / "syn_cards3", "cards", "val", 0),
        "synthetic_tiles2_val": (DATA / "syn_tiles2", "tiles", "val", 0),
    }
    # the real photos turned quarter turns (the table seen from the other seats): the detector
    # is not indifferent to which way up a photo is taken
    runs |= {f"real_card_fans_turned_{k}": (DATA / "real", "cards", "all", k) for k in (1, 2, 3)}
    runs |= {f"real_tiles_val_turned_{k}": (DATA / "real", "tiles", "val", k) for k in (1, 2)}
    # held out from everything (HELD_OUT): every scene scored
    runs |= {
        f"synthetic_{kind}_test": (DATA / name, kind, "all", 0) for name, kind, _, _ in HELD_OUT
    }
    # the same held-out tables as a 12 MP phone photographs them (PHONE_HELD_OUT)
    runs |= {
        f"synthetic_{kind}_test_12mp": (DATA / name, kind, "all", 0)
        for name, kind, _, _ in PHONE_HELD_OUT
    }
    # held-out tables of art no model trains on (UNSEEN_ART), also at 12 MP
    unseen = {"cards": "unseen_decks", "tiles": "unseen_fonts"}
    runs |= {
        f"synthetic_{kind}_{unseen[kind]}{suffix}": (DATA / name, kind, "all", 0)
        for suffix, sets in (("", UNSEEN_ART), ("_12mp", PHONE_UNSEEN_ART))
        for name, kind, _, _ in sets
    }
    # the scenes settings are chosen on (DEVELOPMENT, UNSEEN_DEVELOPMENT)
    runs |= {
        f"synthetic_{kind}_unseen_decks_dev": (DATA / name, kind, "all", 0)
        for name, kind, _, _ in UNSEEN_DEVELOPMENT
    }
    runs |= {
        f"synthetic_{kind}_dev": (DATA / name, kind, "all", 0) for name, kind, _, _ in DEVELOPMENT
    }
    runs |= {
        f"synthetic_{kind}_dev_12mp": (DATA / name, kind, "all", 0)
        for name, kind, _, _ in PHONE_DEVELOPMENT
    }
    metrics: dict[str, object] = {}
    for name, (src, kind, split, turns) in runs.items():
        report = evaluate_folder(scanner, src, kind, split, turns=turns, cache=cache)
        print(f"== {name}\n{report.describe()}", flush=True)
        metrics[name] = report.to_json()
    (models / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    return metrics


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--cards", type=int, default=700, help="synthetic card scenes")
    p.add_argument("--tiles", type=int, default=300, help="synthetic tile scenes")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--phases", default=DEFAULT_PHASES, help="detector set:imgsz:epochs:batch,...")
    p.add_argument(
        "--start", choices=("nudenet", "models"), default="nudenet",
        help="detector start: nudenet's YOLOv8n, or models/detector.pt to continue training",
    )  # fmt: skip
    p.add_argument("--cls-epochs", type=int, default=8)
    p.add_argument(
        "--cls-sample", type=float, default=1.0, help="fraction of the crops each epoch takes"
    )  # fmt: skip
    p.add_argument("--cls-lr", type=float, default=3e-3, help="the classifier's peak learning rate")
    p.add_argument(
        "--cls-runs", type=int, default=1,
        help="classifier runs from one start with seeds 0, 1, ...: the mean of their weights "
        "is served",
    )  # fmt: skip
    p.add_argument(
        "--cls-keep", type=float, default=0.0,
        help="the start's weight in that mean (0.5: the start and the runs' mean alike)",
    )  # fmt: skip
    p.add_argument(
        "--cls-run", default="", help="the classifier's run folder under runs/ (a new one starts "
        "from models/classifier.pt)",
    )  # fmt: skip
    p.add_argument(
        "--threads", type=int, default=2,
        help="torch threads (1 each when the classifier and detector train side by side)",
    )  # fmt: skip
    p.add_argument(
        "--device", default="cpu",
        help="where the nets learn: cpu, or a CUDA device such as cuda:0 (on a lent GPU "
        "machine: docs/gpu.md)",
    )  # fmt: skip
    p.add_argument(
        "--stages", default="generate,sets,detector,classifier,evaluate",
        help="comma-separated subset of the stages (the classifier stage ends by quantizing "
        "the classifier to int8; `quantize` does that alone, from models/classifier.onnx)",
    )  # fmt: skip
    p.add_argument(
        "--eval-cache", type=Path, default=None, metavar="DIR",
        help="keep what the models read of each photo in DIR and take it from there (as "
        "`meldcam eval --cache`: readings of other models, settings or reading code are never "
        "taken)",
    )  # fmt: skip
    p.add_argument(
        "--models", type=Path, default=None, metavar="DIR",
        help="the folder the quantize and evaluate stages read and write instead of models/: a "
        "copy holding another net, read beside the served one",
    )  # fmt: skip
    args = p.parse_args(argv)
    stages = set(args.stages.split(","))
    if args.cls_runs < 1 or not 0 <= args.cls_keep < 1:
        p.error("--cls-runs is at least 1 and --cls-keep lies in [0, 1)")
    if args.models is not None and not stages <= {"quantize", "evaluate"}:
        p.error("--models goes with the quantize and evaluate stages alone")
    t0 = time.time()
    if "generate" in stages:
        generate(args.cards, args.tiles, args.workers)
    sets = build_sets() if stages & {"sets", "detector", "classifier"} else None
    if "detector" in stages and sets is not None:
        train_detector_stage(sets, args.phases, args.start, args.threads, args.device)
    if "classifier" in stages:
        build_negatives()
        train_classifier_stage(
            args.cls_epochs, args.threads, args.cls_sample, args.cls_lr, args.cls_run,
            args.device, args.cls_runs, args.cls_keep,
        )  # fmt: skip
    elif "quantize" in stages:
        quantize_stage(args.models)
    if "evaluate" in stages:
        evaluate_stage(args.eval_cache, args.models)
    print(f"make train: {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
