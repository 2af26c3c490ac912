"""``meldcam synth`` and ``meldcam import-real``: argparse wiring for web/cli.py.

Heavy modules (OpenCV, the renderer) are imported only when a command runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_MISSING_ART = 3
EXIT_BAD_INPUT = 2
ART = ("classic", "wider", "held-out")


def add_synth_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "synth",
        help="render synthetic table photos with YOLO labels and JSON truth",
        description="Render synthetic phone photos of card / tile tables for the detector.",
    )
    p.add_argument("--kind", choices=("cards", "tiles", "mixed"), default="mixed")
    p.add_argument("--count", type=int, required=True, help="number of images")
    p.add_argument("--out", type=Path, required=True, help="output folder (outside git)")
    p.add_argument("--seed", type=int, default=0, help="same seed, same bytes")
    p.add_argument("--size", type=int, default=1280, help="long side in px (4:3 photos)")
    p.add_argument(
        "--framing", type=int, default=None, metavar="PX",
        help="frame the table as a photo this long would, render it at --size (pieces and blur"
        " scale by size/framing; --size 4032 --framing 1280: a 1280 px scene as a 12 MP phone"
        " takes it; default: --size)",
    )  # fmt: skip
    p.add_argument(
        "--art", choices=ART, default="classic",
        help="classic: the card decks and the tile styles every set drew until session 31;"
        " wider: those, tile styles numbered in more fonts, drawn decks' suits in more faces"
        " and two A/J/Q/K decks once drawn as local-index ones at full weight (a training"
        " round's new scenes); held-out:"
        " only the card decks of datasets/decks and the tile styles in fonts no model trains on",
    )  # fmt: skip
    p.add_argument("--workers", type=int, default=2, help="processes (results do not depend on it)")
    p.add_argument("--scheme", choices=("pieces", "coarse"), default="pieces")
    p.add_argument("--crops", action="store_true", help="also write 64x64 classifier crops")
    p.set_defaults(func=run_synth)
    return p


def add_import_real_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "import-real",
        help="convert shared/realdata into the project's class scheme",
        description="Convert the real labelled photos (rummikub-tiles, card-fans) to YOLO sets.",
    )
    p.add_argument("src", type=Path, help="the realdata folder (e.g. ../shared/realdata)")
    p.add_argument("--out", type=Path, required=True, help="output folder (outside git)")
    p.add_argument("--scheme", choices=("pieces", "coarse"), default="pieces")
    p.add_argument("--link", action="store_true", help="symlink the images instead of copying")
    p.add_argument("--val-fraction", type=float, default=0.2)
    p.set_defaults(func=run_import_real)
    return p


def run_synth(args: argparse.Namespace) -> int:
    from datasets.card_art import MissingArtError, held_out_decks, require_art, round_decks
    from datasets.fonts import (
        MissingFontError,
        handwriting_fonts,
        held_out_fonts,
        index_fonts,
        wider_fonts,
        wider_pip_fonts,
    )
    from datasets.scene import DRAWN_SHARE, SceneKind
    from datasets.tiles import CLASSIC_TILE_STYLES, HELD_OUT_TILE_STYLES, TRAINED_TILE_STYLES
    from datasets.writer import generate
    from vision.classes import scheme

    if args.count < 1 or args.size < 64 or args.workers < 1 or (args.framing or 64) < 64:
        print(
            "meldcam synth: --count, --size, --framing and --workers must be positive",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    size = (args.size, round(args.size * 3 / 4))
    decks, drawn, tile_styles = None, DRAWN_SHARE, CLASSIC_TILE_STYLES
    pips: tuple[str, ...] = ()
    if args.art == "wider":
        tile_styles = TRAINED_TILE_STYLES
    elif args.art == "held-out":
        decks, drawn, tile_styles = held_out_decks(), 0.0, HELD_OUT_TILE_STYLES
        if not decks:
            print("meldcam synth: no held-out decks under datasets/decks", file=sys.stderr)
            return EXIT_MISSING_ART
    needed = [index_fonts, handwriting_fonts]  # drawn decks, classic tiles, score pads
    if args.kind != "cards" and args.art != "classic":
        needed.append(held_out_fonts if args.art == "held-out" else wider_fonts)
    try:  # refused before anything is written
        for fonts in needed:
            fonts()
        if args.kind != "tiles" and args.art == "wider":  # drawn decks' suits, one face a deck
            pips = wider_pip_fonts()
            decks = round_decks(require_art())  # the decks weighted as a round draws them
    except (MissingArtError, MissingFontError) as err:
        print(f"meldcam synth: {err}", file=sys.stderr)
        return EXIT_MISSING_ART
    start = time.perf_counter()
    try:
        results = generate(
            args.out,
            args.count,
            SceneKind(args.kind),
            args.seed,
            size,
            args.workers,
            scheme(args.scheme),
            args.crops,
            framing=args.framing,
            decks=decks,
            drawn=drawn,
            tile_styles=tile_styles,
            pips=pips,
        )
    except (MissingArtError, MissingFontError) as err:
        print(f"meldcam synth: {err}", file=sys.stderr)
        return EXIT_MISSING_ART
    took = time.perf_counter() - start
    labels = sum(r.labels for r in results)
    print(
        f"wrote {len(results)} images, {labels} labels to {args.out} "
        f"({len(results) / took:.1f} images/s); contact sheet: {args.out / 'contact_sheet.jpg'}"
    )
    return EXIT_OK


def run_import_real(args: argparse.Namespace) -> int:
    from datasets.realdata import RealDataError, import_real
    from vision.classes import scheme

    try:
        report = import_real(args.src, args.out, scheme(args.scheme), args.link, args.val_fraction)
    except (RealDataError, OSError) as err:
        print(f"meldcam import-real: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for split in ("train", "val"):
        print(
            f"{split}: {report.images.get(split, 0)} images from {report.sources.get(split, 0)} "
            f"source photos, {report.boxes.get(split, 0)} boxes"
        )
    return EXIT_OK
