"""``meldcam scan`` and ``meldcam eval``: argparse wiring for web/cli.py.

Light to import: onnxruntime, OpenCV and the models load only when a command runs.

Exit status of ``scan``: 0 when every photo was scanned, 2 when at least one could not be read
(its line carries an ``"error"``; the other photos are still scanned), 3 when the models are
missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_NO_MODEL = 3
DEFAULT_MODELS = Path(__file__).resolve().parent.parent / "models"


def add_scan_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "scan",
        help="read the pieces and melds of table photos",
        description="Detect every card or tile in each photo, group them into melds and judge "
        "each meld. Exit status 0 if every photo was read, 2 if some could not be.",
    )
    p.add_argument("photos", nargs="+", metavar="PHOTO")
    p.add_argument("--kind", choices=("cards", "tiles", "auto"), default="auto")
    p.add_argument("--rules", default=None, help="rules preset (default: by the pieces seen)")
    p.add_argument("--json", action="store_true", help="one JSON object per photo per line")
    p.add_argument("--models", type=Path, default=DEFAULT_MODELS, help=argparse.SUPPRESS)
    p.set_defaults(func=run_scan)
    return p


def add_eval_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "eval",
        help="measure the recogniser on a labelled set",
        description="Precision, recall and F1 per piece (multiset match per photo), the worst "
        "confusions and, where the truth has melds, the meld exact-match rate. SRC is a folder "
        "of `meldcam synth` (truth/*.json) or of YOLO images/labels in the pieces scheme.",
    )
    p.add_argument("src", type=Path, metavar="SRC")
    p.add_argument("--kind", choices=("cards", "tiles"), required=True)
    p.add_argument("--split", default="val", help="images/<split> of a YOLO folder (or 'all')")
    p.add_argument("--limit", type=int, default=0, help="at most this many photos")
    p.add_argument(
        "--turn",
        type=int,
        choices=(0, 1, 2, 3),
        default=0,
        help="read each photo turned this many quarter turns counter-clockwise (the table seen "
        "from another seat); the truth turns with it",
    )
    p.add_argument(
        "--cache",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep what the models read of each photo in DIR (by models and settings) and take "
        "it from there next time: a change to grouping or judging is then measured in seconds",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("--models", type=Path, default=DEFAULT_MODELS, help=argparse.SUPPRESS)
    p.set_defaults(func=run_eval)
    return p


def _rules(name: str | None) -> Any:
    if name is None:
        return None
    from scorer import Rules

    return Rules.preset(name)


def run_scan(args: argparse.Namespace) -> int:
    from vision.errors import ModelMissingError, UnreadablePhotoError
    from vision.result import error_json
    from vision.scanner import Scanner

    rules = _rules(args.rules)
    try:
        scanner = Scanner.load(args.models)
    except ModelMissingError as error:
        print(f"meldcam scan: {error}", file=sys.stderr)
        return EXIT_NO_MODEL
    status = EXIT_OK
    for path in args.photos:
        try:
            result = scanner.scan(Path(path), args.kind, rules, path=path)
        except UnreadablePhotoError as error:
            status = EXIT_BAD_INPUT
            if args.json:
                print(json.dumps(error_json(path, error)), flush=True)
            else:
                print(f"{path}: cannot read: {error.reason}", flush=True)
            continue
        if args.json:
            print(json.dumps(result.to_json(), ensure_ascii=False), flush=True)
        else:
            print(_describe(result), flush=True)
    return status


def _describe(result: Any) -> str:
    lines = [
        f"{result.path}: {result.width}x{result.height}, {len(result.pieces)} {result.kind}, "
        f"{len(result.melds)} melds ({result.timing_ms.get('total', 0):.0f} ms)"
    ]
    for k, meld in enumerate(result.melds, 1):
        facing = f" (faces the {meld.facing} side)" if meld.facing else ""
        # a valid meld's verdict shows its reading; an invalid one's says only what is wrong
        laid = "" if meld.verdict.valid else " ".join(result.pieces[i].code for i in meld.pieces)
        lines.append(f"  meld {k}{facing}: {laid + ': ' if laid else ''}{meld.verdict.explain()}")
    if result.unassigned:
        codes = " ".join(result.pieces[i].code for i in result.unassigned)
        lines.append(f"  not in a meld: {codes}")
    if result.uncertain:
        codes = " ".join(result.pieces[i].code for i in result.uncertain)
        lines.append(f"  uncertain: {codes}")
    if result.shaken:
        lines.append(
            f"  the photo looks shaken (shake {result.shake:.2f}): pieces may be misread or "
            "missed; hold the phone still and take it again"
        )
    if result.colourless:
        lines.append(
            "  the photo is black and white: red and black (the tiles' colours) cannot be told "
            "apart, so every piece's suit or colour is a guess; take it again in colour"
        )
    if result.afar:
        lines.append(
            f"  the cards are small in this photo (median {result.piece_size:.1%} of its long "
            "side): some may be misread or missed; photograph each side closer"
        )
    if result.low_resolution:
        lines.append(
            f"  the photo has few pixels for its pieces (median {result.piece_px:.0f} px): some "
            "may be misread or missed; send the photo at its full size"
        )
    return "\n".join(lines)


def run_eval(args: argparse.Namespace) -> int:
    from vision.errors import ModelMissingError
    from vision.evaluate import evaluate_folder
    from vision.scanner import Scanner

    try:
        scanner = Scanner.load(args.models)
    except ModelMissingError as error:
        print(f"meldcam eval: {error}", file=sys.stderr)
        return EXIT_NO_MODEL
    if not args.src.is_dir():
        print(f"meldcam eval: {args.src} is not a folder", file=sys.stderr)
        return EXIT_BAD_INPUT
    report = evaluate_folder(
        scanner, args.src, args.kind, args.split, args.limit, args.turn, args.cache
    )
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print(report.describe())
    return EXIT_OK
