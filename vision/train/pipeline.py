"""``make train``: generate, build the sets, train, export and evaluate, resumably and offline.

Every stage skips what is already done (generated folders, finished epochs), so an interrupted
run continues where it stopped, and a later session continues training from the checkpoints
kept in ``models/`` (``detector.pt``, ``classifier.pt``)::

    python -m vision.train.pipeline --det-epochs 6 --cls-epochs 14
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
RUNS = ROOT / "runs"
MODELS = ROOT / "models"
REALDATA = ROOT.parent / "shared" / "realdata"


def _meldcam(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "web.cli", *args], check=True, cwd=ROOT)


def generate(cards: int, tiles: int, workers: int) -> None:
    """The synthetic scenes (pieces scheme) and the real photos, once."""
    sets = (("syn_cards", "cards", cards, 101), ("syn_tiles", "tiles", tiles, 202))
    for name, kind, count, seed in sets:
        out = DATA / name
        if not (out / "data.yaml").exists():
            _meldcam(
                "synth", "--kind", kind, "--count", str(count), "--out", str(out),
                "--seed", str(seed), "--scheme", "pieces", "--workers", str(workers),
            )  # fmt: skip
    if not (DATA / "real" / "data.yaml").exists():
        _meldcam("import-real", str(REALDATA), "--out", str(DATA / "real"), "--link")


def build_sets() -> Path:
    from vision.train.data import build_crop_set, build_detector_set

    crops = DATA / "crops"
    for name in ("syn_cards", "syn_tiles", "real"):
        for split in ("train", "val"):
            target = crops / f"{name}_{split}.npz"
            if not target.exists():
                build_crop_set([(DATA / name, split)], target)
    yaml = DATA / "det" / "data.yaml"
    if not yaml.exists():
        build_detector_set(
            [(DATA / n, ("train", "val")) for n in ("syn_cards", "syn_tiles", "real")],
            DATA / "det",
        )
    return yaml


def train_classifier_stage(epochs: int, threads: int = 2) -> None:
    from vision.crops import CROP_SIZE
    from vision.train.classifier import export_classifier, train_classifier

    crops = DATA / "crops"
    checkpoint = RUNS / "cls" / "classifier.pt"
    if not checkpoint.exists() and (MODELS / "classifier.pt").exists():
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(MODELS / "classifier.pt", checkpoint)
    train_classifier(
        [crops / f"{n}_train.npz" for n in ("syn_cards", "syn_tiles", "real")],
        {n: crops / f"{n}_val.npz" for n in ("syn_cards", "syn_tiles", "real")},
        checkpoint,
        epochs=epochs,
        threads=threads,
    )
    export_classifier(checkpoint, MODELS / "classifier.onnx", CROP_SIZE)
    shutil.copy(checkpoint, MODELS / "classifier.pt")


def train_detector_stage(yaml: Path, epochs: int, imgsz: int) -> None:
    from vision.train.detector import export_onnx, strip_checkpoint, train_detector
    from vision.train.init_weights import nudenet_start

    start = MODELS / "detector.pt"
    if not start.exists():
        start = nudenet_start("yolov8n.yaml", 4, DATA / "cache", DATA / "cache" / "nudenet.pt")
    best = train_detector(yaml, RUNS / "det", "coarse", start=start, imgsz=imgsz, epochs=epochs)
    last = best.parent / "last.pt"
    export_onnx(last, MODELS / "detector.onnx")
    strip_checkpoint(last, MODELS / "detector.pt")


def evaluate_stage() -> dict[str, object]:
    from vision.evaluate import evaluate_folder
    from vision.scanner import Scanner

    scanner = Scanner.load(MODELS)
    runs = {
        "real_tiles_val": (DATA / "real", "tiles", "val"),
        "real_card_fans": (DATA / "real", "cards", "all"),
        "synthetic_cards_val": (DATA / "syn_cards", "cards", "val"),
        "synthetic_tiles_val": (DATA / "syn_tiles", "tiles", "val"),
    }
    metrics: dict[str, object] = {}
    for name, (src, kind, split) in runs.items():
        report = evaluate_folder(scanner, src, kind, split)
        print(f"== {name}\n{report.describe()}", flush=True)
        metrics[name] = report.to_json()
    (MODELS / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    return metrics


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--cards", type=int, default=700, help="synthetic card scenes")
    p.add_argument("--tiles", type=int, default=300, help="synthetic tile scenes")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--det-epochs", type=int, default=6)
    p.add_argument("--cls-epochs", type=int, default=8)
    p.add_argument("--imgsz", type=int, default=512)
    p.add_argument(
        "--stages", default="generate,sets,classifier,detector,evaluate",
        help="comma-separated subset of the stages",
    )  # fmt: skip
    args = p.parse_args(argv)
    stages = set(args.stages.split(","))
    t0 = time.time()
    if "generate" in stages:
        generate(args.cards, args.tiles, args.workers)
    yaml = build_sets() if stages & {"sets", "detector", "classifier"} else None
    if "classifier" in stages:
        train_classifier_stage(args.cls_epochs)
    if "detector" in stages and yaml is not None:
        train_detector_stage(yaml, args.det_epochs, args.imgsz)
    if "evaluate" in stages:
        evaluate_stage()
    print(f"make train: {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
