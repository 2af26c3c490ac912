"""Import the real labelled photos of ``shared/realdata`` into the project's class schemes.

* ``rummikub-tiles``: 53 classes ``<colour>_<number>`` + ``joker`` in ALPHABETICAL id order,
  read from ``class_map.csv`` (never assumed). Labels are YOLO boxes or Roboflow polygons
  (``class x1 y1 x2 y2 ...``); polygons become their bounding boxes.
* ``card-fans``: corner-index boxes; ``classes.txt`` names the ids (suit h,d,c,s by
  ``id // 13``; rank A,K,Q,J,10..2 by ``id % 13``).

The train/val split is by source photo (the file name before ``_jpeg.rf.``), so the Roboflow
copies of one photo never straddle the split. Images are copied (or linked) into ``OUT``, never
into the repository.
"""

from __future__ import annotations

import csv
import hashlib
import os
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from scorer.pieces import Colour, Rank, Suit
from vision.classes import COARSE, PIECES, ClassScheme, Face, PieceKind

_TILE_COLOURS = {
    "black": Colour.BLACK,
    "red": Colour.RED,
    "blue": Colour.BLUE,
    "orange": Colour.YELLOW,
}
_SUITS = {"h": Suit.HEARTS, "d": Suit.DIAMONDS, "c": Suit.CLUBS, "s": Suit.SPADES}
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


class RealDataError(ValueError):
    """A real set that is not laid out as documented."""


@dataclass(frozen=True, slots=True)
class RealSet:
    """One real set: where it is, and which face each of its class ids means."""

    name: str
    root: Path
    faces: tuple[Face, ...]  # index = the set's own class id


@dataclass(frozen=True, slots=True)
class ImportReport:
    images: dict[str, int]  # split -> count
    boxes: dict[str, int]
    sources: dict[str, int]  # split -> distinct source photos
    per_set: dict[str, int]


def tile_faces(class_map: Path) -> tuple[Face, ...]:
    """Faces of the rummikub-tiles ids, from its ``class_map.csv``."""
    faces: dict[int, Face] = {}
    with class_map.open(newline="") as fh:
        for row in csv.DictReader(fh):
            cid = int(row["class_id"])
            if row["is_joker"].strip() == "1" or row["name"] == "joker":
                faces[cid] = Face(PieceKind.TILE, "JK")
            else:
                colour = _TILE_COLOURS.get(row["colour"])
                if colour is None:
                    raise RealDataError(f"{class_map}: unknown colour {row['colour']!r}")
                faces[cid] = Face.tile(colour, int(row["number"]))
    if sorted(faces) != list(range(len(faces))):
        raise RealDataError(f"{class_map}: class ids are not 0..{len(faces) - 1}")
    return tuple(faces[i] for i in range(len(faces)))


def card_faces(classes_txt: Path) -> tuple[Face, ...]:
    """Faces of the card-fans ids, from its ``classes.txt`` (checked against the id rule)."""
    names = [line.strip() for line in classes_txt.read_text().splitlines() if line.strip()]
    ranks: tuple[Rank, ...] = (Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK, Rank.TEN, Rank.NINE)
    ranks += (Rank.EIGHT, Rank.SEVEN, Rank.SIX, Rank.FIVE, Rank.FOUR, Rank.THREE, Rank.TWO)
    suits = (Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES)
    faces = []
    for cid, name in enumerate(names):
        face = Face.card(Rank(name[:-1].upper()), _SUITS[name[-1].lower()])
        expected = Face.card(ranks[cid % 13], suits[cid // 13])
        if face != expected:
            raise RealDataError(f"{classes_txt}: id {cid} is {name}, the id rule says {expected}")
        faces.append(face)
    return tuple(faces)


def fan_cards(fans: Path) -> list[tuple[Path, Counter[str]]]:
    """Each card-fan photo under ``fans`` with its labelled cards, each card once (a card
    labelled at both corners is one card), as ``meldcam eval`` counts them."""
    faces = card_faces(fans / "classes.txt")
    out = []
    for image in sorted((fans / "images").glob("*.jpg")):
        lines = (fans / "labels" / f"{image.stem}.txt").read_text().splitlines()
        labelled = (parse_label_line(line) for line in lines)
        out.append((image, Counter({faces[row[0]].code: 1 for row in labelled if row})))
    return out


def find_sets(src: Path) -> tuple[RealSet, ...]:
    sets = []
    tiles, cards = src / "rummikub-tiles", src / "card-fans"
    if (tiles / "class_map.csv").exists():
        sets.append(RealSet("rummikub-tiles", tiles, tile_faces(tiles / "class_map.csv")))
    if (cards / "classes.txt").exists():
        sets.append(RealSet("card-fans", cards, card_faces(cards / "classes.txt")))
    if not sets:
        raise RealDataError(f"{src}: no rummikub-tiles/class_map.csv or card-fans/classes.txt")
    return tuple(sets)


def source_photo(image_name: str) -> str:
    """The phone photo an image came from: the name before ``_jpeg.rf.`` (or the stem)."""
    stem = Path(image_name).stem
    return stem.split("_jpeg.rf.")[0]


def split_for(source: str, val_fraction: float = 0.2) -> str:
    digest = hashlib.sha256(source.encode()).digest()
    return "val" if int.from_bytes(digest[:4], "big") / 2**32 < val_fraction else "train"


def parse_label_line(line: str) -> tuple[int, tuple[float, float, float, float]] | None:
    """``class cx cy w h`` or ``class x1 y1 x2 y2 ...`` -> (class, (cx, cy, w, h))."""
    parts = line.split()
    if not parts:
        return None
    values = [float(v) for v in parts[1:]]
    if len(values) == 4:
        cx, cy, w, h = values
    elif len(values) >= 6 and len(values) % 2 == 0:
        xs, ys = values[0::2], values[1::2]
        x0, x1 = max(0.0, min(xs)), min(1.0, max(xs))
        y0, y1 = max(0.0, min(ys)), min(1.0, max(ys))
        cx, cy, w, h = (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0
    else:
        raise RealDataError(f"label line with {len(values)} numbers: {line.strip()!r}")
    return int(parts[0]), (cx, cy, w, h)


def convert_labels(text: str, real: RealSet, scheme: ClassScheme) -> list[str]:
    out = []
    for line in text.splitlines():
        parsed = parse_label_line(line)
        if parsed is None:
            continue
        cid, (cx, cy, w, h) = parsed
        if not 0 <= cid < len(real.faces):
            raise RealDataError(
                f"{real.name}: class id {cid} outside its {len(real.faces)} classes"
            )
        new_id = scheme.class_id(real.faces[cid])
        out.append(f"{new_id} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    return out


def import_real(
    src: Path,
    out: Path,
    scheme: ClassScheme = PIECES,
    link: bool = False,
    val_fraction: float = 0.2,
) -> ImportReport:
    """Convert every real set under ``src`` into a YOLO set under ``out``."""
    if out.resolve().is_relative_to(Path(__file__).resolve().parents[1]) and not _ignored(out):
        raise RealDataError(
            f"{out}: real photos must not go into the repository (use /tmp or data/)"
        )
    images: Counter[str] = Counter()
    boxes: Counter[str] = Counter()
    sources: dict[str, set[str]] = {"train": set(), "val": set()}
    per_set: Counter[str] = Counter()
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    for real in find_sets(src):
        for image in sorted((real.root / "images").iterdir()):
            if image.suffix.lower() not in IMAGE_SUFFIXES:
                continue
            label = real.root / "labels" / f"{image.stem}.txt"
            lines = convert_labels(label.read_text(), real, scheme) if label.exists() else []
            source = f"{real.name}/{source_photo(image.name)}"
            split = split_for(source, val_fraction)
            name = f"{real.name}__{image.stem}"
            target = out / "images" / split / f"{name}{image.suffix.lower()}"
            if target.exists() or target.is_symlink():
                target.unlink()
            if link:
                os.symlink(image.resolve(), target)
            else:
                shutil.copyfile(image, target)
            (out / "labels" / split / f"{name}.txt").write_text("".join(x + "\n" for x in lines))
            images[split] += 1
            boxes[split] += len(lines)
            sources[split].add(source)
            per_set[real.name] += 1
    names = ", ".join(f'"{n}"' for n in scheme.names)
    (out / "data.yaml").write_text(
        f"# real photos from shared/realdata in meldcam's {scheme.name!r} scheme\n"
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\n"
        f"nc: {scheme.num_classes}\nnames: [{names}]\n"
    )
    return ImportReport(
        dict(images), dict(boxes), {k: len(v) for k, v in sources.items()}, dict(per_set)
    )


def table_from_afar(image: Path, n: int, size: tuple[int, int], turns: int = 0) -> bytes:
    """A phone JPEG (quality 90) of ``size`` filled with ``n`` x ``n`` copies of a real photo,
    each stretched to 1/n of the frame: its pieces n times smaller, a stand-in for a table
    photographed from afar (no real photo here shows a whole table). ``n`` 1 is the photo
    itself, stretched to ``size``. Turned ``turns`` quarter turns counter-clockwise."""
    import io

    from PIL import Image

    width, height = size
    with Image.open(image) as photo:
        one = photo.convert("RGB").resize((width // n, height // n), Image.Resampling.BICUBIC)
    table = Image.new("RGB", size)
    for i in range(n):
        for j in range(n):
            table.paste(one, (i * one.width, j * one.height))
    out = io.BytesIO()
    table.rotate(90 * turns, expand=True).save(out, "JPEG", quality=90)
    return out.getvalue()


def in_phone_frame(image: Path, aspect: float, height: int = 3000, turns: int = 0) -> bytes:
    """A phone JPEG (quality 90) ``height`` pixels high and ``aspect`` times as wide, a real
    square photo filling its height in the middle, the rest the mean colour of the photo's top
    and bottom rows: the same pieces, undistorted, smaller in a wider frame (in the detector's
    input, which the frame's long side is fitted into); turned ``turns`` quarter turns
    counter-clockwise."""
    import io

    import numpy as np
    from PIL import Image

    with Image.open(image) as photo:
        square = photo.convert("RGB").resize((height, height), Image.Resampling.BICUBIC)
    rows = np.asarray(square)[[0, -1]].reshape(-1, 3)
    colour = tuple(int(c) for c in rows.mean(axis=0))
    frame = Image.new("RGB", (round(height * aspect), height), colour)
    frame.paste(square, ((frame.width - height) // 2, 0))
    out = io.BytesIO()
    frame.rotate(90 * turns, expand=True).save(out, "JPEG", quality=90)
    return out.getvalue()


def _ignored(out: Path) -> bool:
    repo = Path(__file__).resolve().parents[1]
    rel = out.resolve().relative_to(repo)
    return rel.parts[:1] in (("data",), ("out",), ("runs",))


SCHEMES = {"pieces": PIECES, "coarse": COARSE}
