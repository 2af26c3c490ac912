"""Card faces from the Debian card decks, rendered once with rsvg-convert and cached.

Two families are read:

* gnome-cards-data (``/usr/share/aisleriot/cards/*.svgz``): one sheet per deck, 13 columns
  (A 2 .. 10 J Q K) by 5 rows (clubs, diamonds, hearts, spades; then black joker, red joker,
  back). The sheet is rendered at a fixed width and sliced by that grid.
* kdegames-card-data-kf5 (``/usr/share/carddecks/svg-*/``): one SVG element per card
  (``1_club`` .. ``king_spade``, ``red_joker``/``black_joker``/``joker``, ``back``), rendered
  with ``rsvg-convert -i ID``. A deck is used only if every card renders at one common size.

Decks whose corner indices do not follow the usual top-left + bottom-right layout, that use
non-French suits, or whose licence is not free for us (``konqi-modern``) are skipped. Each deck
is cached as one BGRA atlas .npy (rows S H D C, row 4 = black joker, red joker, back; memory-mapped
when read, so a scene only reads the faces it uses) plus a JSON
with the corner-index box found by :func:`find_index_box`, under ``$MELDCAM_CACHE/faces`` (default
``~/.cache/meldcam/faces``).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import cast

import cv2
import numpy as np

from scorer.pieces import Rank, Suit
from vision.classes import RANKS, SUITS

FACE_H = 300
CACHE_VERSION = 5
MEASURE_VERSION = 2
"""How the measures in a deck's JSON were taken (:func:`_measure`); measures of another version
are taken again from the cached atlas, which stays as rendered. 2 (session 45): the index is
searched down to half the card, so an index whose suit pip sits below its rank (`ornamental`,
`tango`, `svg-nicu-white`) holds the pip (version 1 stopped at 0.36 and held the rank alone)."""
KDE_RENDER_H = 2 * FACE_H  # a KDE face's height as rendered, before it is cut and resized
GNOME_DIR = Path("/usr/share/aisleriot/cards")
KDE_DIR = Path("/usr/share/carddecks")
HELD_OUT_DIR = Path(__file__).parent / "decks"
"""Decks that no model trains on (session 30): one folder of SVG faces per deck, named by code
(``AS.svgz``, ``10H.svgz``, ``JK-black`` and ``JK-red`` or one ``JK``, ``back``). Never listed
by :func:`available_decks`, so no training set draws them; the ``test_decks`` scenes are drawn
from them alone, to measure how the models read card art they have never seen, as a player's
own deck will be. Where they come from: ``datasets/decks/README.md``."""
INSTALL_HINT = (
    "card art is missing: install the Debian card decks with `make apt` or "
    "`sudo apt-get install gnome-cards-data kdegames-card-data-kf5 librsvg2-bin`"
)

# Decks left out, with the reason.
SKIPPED: dict[str, str] = {
    "gnome/swiss-xvii": "Swiss suits",
    "gnome/guyenne-classic": "court cards have no rank index",
    "gnome/tango_nuevo": "one corner index only",
    "gnome/dondorf": "indices in all four corners",
    "gnome/Атласные": "same art as atlasnye",
    "kde/svg-konqi-modern": "licence restricted to KDE members",
    "kde/svg-xskat-german": "German suits",
    "kde/svg-future": "not a card deck",
    "kde/svg-dondorf": "indices in all four corners",
    "kde/svg-gm-paris": "same art as gnome paris",
    "kde/svg-nicu-ornamental": "same art as gnome ornamental",
    "kde/svg-tigullio-international": "same art as gnome tigullio",
}
LOCAL_INDEX_DECKS = frozenset(
    {"ancient_french", "atlasnye_skat", "berlin", "lattmann", "rheinland", "tarocco"}
    | {"slavic_costumes"}
)
"""Decks whose indices are not A/J/Q/K (French 1/V/D/R, German B/D/K, Italian F/D/R, Russian
Т/В/Д/К): drawn a third as often as the others, a Burraco table's decks being A/J/Q/K ones."""
LISTED_AS_LOCAL = frozenset({"atlasnye", "orell"})
"""Two decks that print A, J, Q and K but were listed with :data:`LOCAL_INDEX_DECKS` until
session 63 (its look at every deck's corners, `runs/s63/sheet.py`). The sets made until then
(the development, validation and held-out sets, which ``make train`` makes again from their
seeds) keep drawing them at that weight, so that each seed deals the decks it dealt; a training
round's new scenes (``meldcam synth --art wider``, :func:`round_decks`) draw them as the other
A/J/Q/K decks. `orell` read 13 of its 38 development melds (session 62), the fewest of the decks
dealt in more than one photo."""
FOUR_COLOUR_DECKS = frozenset({"anglo_modern_4_color", "neoclassical_4_color", "atlasnye_skat"})

_GNOME_ROW = {Suit.CLUBS: 0, Suit.DIAMONDS: 1, Suit.HEARTS: 2, Suit.SPADES: 3}
_KDE_SUIT = {
    Suit.CLUBS: "club",
    Suit.DIAMONDS: "diamond",
    Suit.HEARTS: "heart",
    Suit.SPADES: "spade",
}
_KDE_RANK = {Rank.ACE: "1", Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king"}
ATLAS_ROW = {s: i for i, s in enumerate(SUITS)}
JOKER_CELLS = ((4, 0), (4, 1))  # black, red
BACK_CELL = (4, 2)


class MissingArtError(RuntimeError):
    """The Debian card decks (or rsvg-convert) are not installed."""


@dataclass(frozen=True, slots=True)
class DeckSource:
    """One deck on disk that the generator can use."""

    family: str
    name: str
    path: Path
    weight: float

    @property
    def key(self) -> str:
        return f"{self.family}/{self.name}"

    @property
    def stem(self) -> str:
        """The name of its atlas (``.npy``) and measures (``.json``) in the face cache."""
        return self.key.replace("/", "-")


Box = tuple[float, float, float, float]
"""A box on a face, normalised: (x0, y0, x1, y1) as shares of its width and height."""


@dataclass(frozen=True, slots=True, eq=False)
class CardDeck:
    """A deck's faces in memory: an RGBA atlas and the normalised top-left index box."""

    key: str
    atlas: np.ndarray
    cell: tuple[int, int]  # (width, height) of one face
    index_box: Box
    joker_box: Box
    """A joker's corner mark as measured (:func:`_measure`); what is labelled of it:
    :func:`joker_label_box`."""
    has_jokers: bool

    def face(self, row: int, col: int) -> np.ndarray:
        w, h = self.cell
        return self.atlas[row * h : (row + 1) * h, col * w : (col + 1) * w]

    def card(self, rank: Rank, suit: Suit) -> np.ndarray:
        return self.face(ATLAS_ROW[suit], RANKS.index(rank))

    def joker(self, red: bool) -> np.ndarray:
        return self.face(*JOKER_CELLS[1 if red else 0])

    @property
    def back(self) -> np.ndarray:
        return self.face(*BACK_CELL)


def cache_dir() -> Path:
    root = os.environ.get("MELDCAM_CACHE")
    base = Path(root) if root else Path.home() / ".cache" / "meldcam"
    return base / "faces"


def available_decks() -> tuple[DeckSource, ...]:
    """Every usable deck installed on this machine, in a stable order; where neither Debian
    deck folder is there, the decks rendered into the face cache before (:func:`cached_decks`)."""
    if not GNOME_DIR.is_dir() and not KDE_DIR.is_dir():
        return cached_decks()
    found: list[DeckSource] = []
    if GNOME_DIR.is_dir():
        for path in sorted(GNOME_DIR.glob("*.svgz")):
            source = DeckSource("gnome", path.stem, path, _weight(path.stem))
            if source.key not in SKIPPED:
                found.append(source)
    if KDE_DIR.is_dir():
        for folder in sorted(KDE_DIR.glob("svg-*")):
            svgs = sorted(folder.glob("*.svgz")) + sorted(folder.glob("*.svg"))
            source = DeckSource("kde", folder.name, svgs[0] if svgs else folder, 1.0)
            if svgs and source.key not in SKIPPED:
                found.append(source)
    return tuple(found)


def held_out_decks() -> tuple[DeckSource, ...]:
    """The decks of :data:`HELD_OUT_DIR`, by name (family ``held-out``)."""
    if not HELD_OUT_DIR.is_dir():
        return ()
    folders = sorted(p for p in HELD_OUT_DIR.iterdir() if p.is_dir())
    return tuple(DeckSource("held-out", p.name, p, 1.0) for p in folders)


def cached_decks() -> tuple[DeckSource, ...]:
    """The decks rendered into the face cache, in :func:`available_decks`' order (GNOME's, then
    KDE's, each by name), each read from its atlas there: a machine with neither the Debian
    decks nor rsvg-convert (a lent GPU machine) makes card scenes from atlases carried to it.
    Those that failed to render are listed too, as the installed decks are, so that a seed
    draws the same decks."""
    folder = cache_dir() / f"v{CACHE_VERSION}"
    found = []
    for meta in folder.glob("*.json") if folder.is_dir() else ():
        family, _, name = meta.stem.partition("-")
        source = DeckSource(family, name, meta, _weight(name) if family == "gnome" else 1.0)
        if family in ("gnome", "kde") and source.key not in SKIPPED:
            found.append(source)
    # as available_decks lists them: GNOME's sheets by file name, then KDE's folders by name
    found.sort(
        key=lambda d: (d.family != "gnome", d.name + ".svgz" if d.family == "gnome" else d.name)
    )
    return tuple(found)


def _weight(name: str) -> float:
    """A GNOME deck's weight in every set but a training round's new scenes
    (:func:`round_decks`)."""
    if name in LOCAL_INDEX_DECKS or name in LISTED_AS_LOCAL:
        return 0.35
    if name in FOUR_COLOUR_DECKS:
        return 0.5
    return 1.0


def round_decks(decks: Sequence[DeckSource]) -> tuple[DeckSource, ...]:
    """``decks`` weighted as a training round's new scenes draw them (``--art wider``): the
    decks of :data:`LISTED_AS_LOCAL` at the weight of the other A/J/Q/K decks."""
    return tuple(
        replace(d, weight=1.0) if d.family == "gnome" and d.name in LISTED_AS_LOCAL else d
        for d in decks
    )


def require_art() -> tuple[DeckSource, ...]:
    """The installed decks, or :class:`MissingArtError` saying how to install them."""
    decks = available_decks()
    if not decks:
        raise MissingArtError(f"no card decks under {GNOME_DIR} or {KDE_DIR}: {INSTALL_HINT}")
    if all(_cached_only(d) for d in decks):
        return decks  # nothing to render
    if shutil.which("rsvg-convert") is None:
        raise MissingArtError(f"rsvg-convert not found: {INSTALL_HINT}")
    return decks


@lru_cache(maxsize=16)
def load_deck(source: DeckSource) -> CardDeck | None:
    """The deck's faces, rendered on first use and cached on disk; None if it is unusable."""
    folder = cache_dir() / f"v{CACHE_VERSION}"
    raw, meta_path = folder / f"{source.stem}.npy", folder / f"{source.stem}.json"
    if _cached_only(source):  # carried here without the decks: measured again in memory
        cached = json.loads(meta_path.read_text())
        if not cached["ok"]:
            return None
        atlas = np.load(raw, mmap_mode="r")
        cached = _remeasured(cached, atlas)
        return _deck_from(source.key, atlas, cached) if cached["ok"] else None
    stamp = _stamp(source.path)
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("stamp") == stamp:
            if not meta["ok"]:
                return None
            try:
                # memory-mapped: a scene reads only the faces it uses
                atlas = np.load(raw, mmap_mode="r")
            except (OSError, ValueError):
                pass
            else:
                fresh = _remeasured(meta, atlas)
                if fresh is not meta:  # measured by an older version: kept as measured now
                    _atomic_write(meta_path, lambda p: p.write_text(json.dumps(fresh)))
                return _deck_from(source.key, atlas, fresh) if fresh["ok"] else None
    folder.mkdir(parents=True, exist_ok=True)
    render = {"gnome": _render_gnome, "held-out": _render_folder}.get(source.family, _render_kde)
    atlas_or_none = render(source)
    meta = {"stamp": stamp, "ok": atlas_or_none is not None, "measure": MEASURE_VERSION}
    if atlas_or_none is not None:
        meta.update(_measure(atlas_or_none))
        if not meta["ok"]:
            atlas_or_none = None
    if atlas_or_none is not None:
        _atomic_write(raw, lambda p: np.save(p, atlas_or_none))
    _atomic_write(meta_path, lambda p: p.write_text(json.dumps(meta)))
    return _deck_from(source.key, atlas_or_none, meta) if atlas_or_none is not None else None


def _remeasured(meta: dict[str, object], atlas: np.ndarray) -> dict[str, object]:
    """``meta`` with the measures of :data:`MEASURE_VERSION`, taken again from ``atlas`` where
    it holds another version's."""
    if meta.get("measure") == MEASURE_VERSION:
        return meta
    return {**meta, **_measure(np.asarray(atlas)), "measure": MEASURE_VERSION}


def _deck_from(key: str, atlas: np.ndarray, meta: dict[str, object]) -> CardDeck:
    h = atlas.shape[0] // 5
    w = atlas.shape[1] // 13
    return CardDeck(
        key,
        atlas,
        (w, h),
        _box(meta["index_box"]),
        _box(meta["joker_box"]),
        bool(meta["has_jokers"]),
    )


def _box(value: object) -> Box:
    """A box as a deck's measures (JSON) keep it: four numbers."""
    x0, y0, x1, y1 = (float(v) for v in cast(Sequence[float], value))
    return (x0, y0, x1, y1)


def joker_label_box(mark: Box, index_box: Box) -> Box:
    """The part of a joker's corner mark (``mark``, as measured: :func:`_measure`) that is
    labelled: its top, no taller than the deck's corner index.

    Many decks print "JOKER" down the corner as a strip over twice an index's height
    (`atlasnye`, the drawn decks; `ornamental`, `svg-nicu-white` and `tango` too against their
    index as measured before session 45, which held the rank without its pip), and two decks' marks
    were measured reaching into the joker's picture (`orell`, `responsive`). In a meld the next
    card covers all of a card but the top of its corner, so a label as tall as the strip was
    mostly covered there, and a label less than :data:`datasets.scene.READABLE_FRACTION`
    visible is left out: a joker left unlabelled is taught to the detector as background, and
    its meld goes unscored. Session 44, `dev_cards` as made until then: 126 of the 226 jokers
    in its melds labelled (0.56), against 3,710 of its 4,012 other cards in melds (0.92); 79 of
    the 100 left out were covered (the middle half of them 0.64-0.82 visible). Labelled by its
    top, no taller than the deck's index: 185 (0.82), the photos unchanged.
    """
    x0, y0, x1, y1 = mark
    return (x0, y0, x1, min(y1, y0 + (index_box[3] - index_box[1])))


def _cached_only(source: DeckSource) -> bool:
    """Whether ``source`` is a deck of the face cache alone (:func:`cached_decks`)."""
    return source.path.suffix == ".json"


def _stamp(path: Path) -> str:
    if path.is_dir():  # a folder of faces: its files' total size and latest change
        stats = [p.stat() for p in path.iterdir() if p.is_file()]
        size, mtime = sum(st.st_size for st in stats), max((st.st_mtime for st in stats), default=0)
        return f"{CACHE_VERSION}:{len(stats)}:{size}:{int(mtime)}"
    st = path.stat()
    return f"{CACHE_VERSION}:{st.st_size}:{int(st.st_mtime)}"


def _atomic_write(path: Path, write: object) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=path.suffix)
    os.close(fd)
    try:
        write(Path(tmp))  # type: ignore[operator]
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _rsvg(svg: Path, out: Path, *args: str) -> bool:
    try:
        done = subprocess.run(
            ["rsvg-convert", *args, str(svg), "-o", str(out)],
            capture_output=True,
            timeout=120,
            check=False,
        )
    except FileNotFoundError as err:
        raise MissingArtError(f"rsvg-convert not found: {INSTALL_HINT}") from err
    return done.returncode == 0 and out.exists()


def _unzipped(path: Path, tmp: Path) -> Path:
    if path.suffix != ".svgz":
        return path
    out = tmp / (path.stem + ".svg")
    out.write_bytes(gzip.decompress(path.read_bytes()))
    return out


def _render_gnome(source: DeckSource) -> np.ndarray | None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        out = tmp / "sheet.png"
        if not _rsvg(_unzipped(source.path, tmp), out, "-w", str(13 * 260)):
            return None
        sheet = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if sheet is None or sheet.ndim != 3 or sheet.shape[2] != 4:
        return None
    sh, sw = sheet.shape[:2]
    cells: dict[tuple[int, int], np.ndarray] = {}
    for r in range(5):
        for c in range(13):
            y0, y1 = round(r * sh / 5), round((r + 1) * sh / 5)
            x0, x1 = round(c * sw / 13), round((c + 1) * sw / 13)
            cells[(r, c)] = sheet[y0:y1, x0:x1]
    faces: dict[tuple[int, int], np.ndarray] = {}
    for suit in SUITS:
        for col, _rank in enumerate(RANKS):
            faces[(ATLAS_ROW[suit], col)] = cells[(_GNOME_ROW[suit], col)]
    for cell in (*JOKER_CELLS, BACK_CELL):
        faces[cell] = cells[cell]
    return _assemble(faces)


def _kde_id(rank: Rank, suit: Suit) -> str:
    return f"{_KDE_RANK.get(rank, str(rank))}_{_KDE_SUIT[suit]}"


def _render_kde(source: DeckSource) -> np.ndarray | None:
    faces: dict[tuple[int, int], np.ndarray] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        svg = _unzipped(source.path, tmp)
        text = svg.read_text(errors="replace")

        def render(element: str, zoom: float) -> np.ndarray | None:
            if f'id="{element}"' not in text:
                return None
            out = tmp / f"{element}.png"
            # at one zoom for the whole deck, then cut to its ink: in most KDE decks an
            # element's box holds invisible parts too, which differ from card to card, so
            # fitting each element to a height (rsvg-convert -h) drew their cards at many sizes
            if not _rsvg(svg, out, "-i", element, "-z", f"{zoom:.4f}"):
                return None
            face = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
            return None if face is None else _trim(face)

        probe = render(_kde_id(Rank.KING, Suit.HEARTS), 1.0)
        if probe is None or probe.shape[0] < 8:
            return None
        zoom = KDE_RENDER_H / probe.shape[0]

        for suit in SUITS:
            for col, rank in enumerate(RANKS):
                img = render(_kde_id(rank, suit), zoom)
                if img is None:
                    return None
                faces[(ATLAS_ROW[suit], col)] = img
        _add_jokers_and_back(faces, lambda name: render(name, zoom), "black_joker", "red_joker")
    sizes = np.array([f.shape[:2] for k, f in faces.items() if k[0] < 4], dtype=float)
    median = np.median(sizes, axis=0)
    if np.any(np.abs(sizes - median) > 0.03 * median + 2) or not 0.55 < median[1] / median[0] < 0.8:
        return None
    return _assemble(faces)


def _render_folder(source: DeckSource) -> np.ndarray | None:
    """A deck kept as one SVG per face (:data:`HELD_OUT_DIR`); None if a card is missing."""
    faces: dict[tuple[int, int], np.ndarray] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)

        def render(stem: str) -> np.ndarray | None:
            names = (f"{stem}.svgz", f"{stem}.svg")
            found = [source.path / n for n in names if (source.path / n).exists()]
            out = tmp / f"{stem}.png"
            if not found or not _rsvg(_unzipped(found[0], tmp), out, "-h", str(FACE_H)):
                return None
            return cv2.imread(str(out), cv2.IMREAD_UNCHANGED)

        for suit in SUITS:
            for col, rank in enumerate(RANKS):
                img = render(f"{rank}{suit}")
                if img is None:
                    return None
                faces[(ATLAS_ROW[suit], col)] = img
        _add_jokers_and_back(faces, render, "JK-black", "JK-red", "JK")
    return _assemble(faces)


def _add_jokers_and_back(
    faces: dict[tuple[int, int], np.ndarray],
    render: Callable[[str], np.ndarray | None],
    black: str,
    red: str,
    single: str = "joker",
) -> None:
    """Into ``faces``: the deck's jokers (its ``black`` and ``red`` ones, or its ``single`` one
    for both) and its ``back``, those it has."""
    pair = [render(black), render(red)]
    if any(img is None for img in pair):
        lone = render(single)
        pair = [lone if img is None else img for img in pair]
    for cell, img in zip(JOKER_CELLS, pair, strict=True):
        if img is not None:
            faces[cell] = img
    back = render("back")
    if back is not None:
        faces[BACK_CELL] = back


def _trim(face: np.ndarray) -> np.ndarray:
    if face.ndim != 3 or face.shape[2] != 4:
        return face
    ys, xs = np.nonzero(face[:, :, 3] > 40)
    if len(xs) == 0:
        return face
    return face[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _assemble(faces: dict[tuple[int, int], np.ndarray]) -> np.ndarray | None:
    trimmed = {k: _trim(v) for k, v in faces.items() if v is not None and v.size}
    fronts = [v for k, v in trimmed.items() if k[0] < 4]
    if len(fronts) != 52:
        return None
    aspect = float(np.median([v.shape[1] / v.shape[0] for v in fronts]))
    if not 0.55 < aspect < 0.8:
        return None
    w = round(FACE_H * aspect)
    atlas = np.zeros((5 * FACE_H, 13 * w, 4), np.uint8)
    for (r, c), img in trimmed.items():
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
        elif img.shape[2] == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
        resized = cv2.resize(img, (w, FACE_H), interpolation=cv2.INTER_AREA)
        atlas[r * FACE_H : (r + 1) * FACE_H, c * w : (c + 1) * w] = resized
    return atlas


def find_index_box(
    face: np.ndarray, window: tuple[float, float] = (0.27, 0.5)
) -> tuple[float, float, float, float] | None:
    """The normalised box (x0, y0, x1, y1) of the ink in a face's top-left corner.

    Ink is what differs from the card's paper colour; only connected blobs lying wholly inside
    the corner window (shares of the face's width and height) count, which drops the card's
    outline, frames and the big pips. The window reaches half way down the card: `ornamental`,
    `tango` and `svg-nicu-white` print the suit pip under the rank down to 0.38-0.44 of the
    card, and an index without its pip tells the rank alone (session 45; until then the window
    stopped at 0.36).
    """
    h, w = face.shape[:2]
    paper = np.median(
        face[int(0.45 * h) : int(0.55 * h), int(0.02 * w) : int(0.06 * w), :3], (0, 1)
    )
    ww, wh = int(window[0] * w), int(window[1] * h)
    x_start, y_start = max(2, int(0.012 * w)), max(2, int(0.008 * h))
    crop = face[y_start:wh, x_start:ww]
    diff = np.abs(crop[:, :, :3].astype(np.int16) - paper.astype(np.int16)).max(axis=2)
    ink = ((diff > 70) & (crop[:, :, 3] > 128)).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    boxes = []
    ch, cw = ink.shape
    for i in range(1, count):
        x, y, bw, bh, area = stats[i]
        if area < 6 or x == 0 or y == 0 or x + bw >= cw or y + bh >= ch:
            continue
        if bw > 0.8 * cw or bh > 0.8 * ch:
            continue
        boxes.append((x, y, x + bw, y + bh))
    if not boxes:
        return None
    arr = np.array(boxes, dtype=float)
    x0, y0 = arr[:, 0].min() + x_start, arr[:, 1].min() + y_start
    x1, y1 = arr[:, 2].max() + x_start, arr[:, 3].max() + y_start
    return (x0 / w, y0 / h, x1 / w, y1 / h)


def _measure(atlas: np.ndarray) -> dict[str, object]:
    """Find the deck's index box (union over A, 2, 3 and 10 of all suits) and joker box."""
    h, w = atlas.shape[0] // 5, atlas.shape[1] // 13

    def cell(r: int, c: int) -> np.ndarray:
        return atlas[r * h : (r + 1) * h, c * w : (c + 1) * w]

    found = []
    for r in range(4):
        for c in (0, 1, 2, 9):
            box = find_index_box(cell(r, c))
            if box is not None:
                found.append(box)
    if len(found) < 12:
        return {"ok": False}
    arr = np.array(found)
    # robust union: ignore the odd card whose big pip or picture leaks into the window
    x0, y0 = np.percentile(arr[:, 0], 10), np.percentile(arr[:, 1], 10)
    x1, y1 = np.percentile(arr[:, 2], 90), np.percentile(arr[:, 3], 90)
    pad_x, pad_y = 0.012, 0.01
    index_box = (max(0.0, x0 - pad_x), max(0.0, y0 - pad_y), x1 + pad_x, y1 + pad_y)
    ok = 0.04 < index_box[2] - index_box[0] < 0.27 and 0.08 < index_box[3] - index_box[1] < 0.45
    has_jokers = all(cell(*jc)[:, :, 3].mean() > 100 for jc in JOKER_CELLS)
    joker_box = index_box
    if has_jokers:
        jb = [find_index_box(cell(*jc), (0.27, 0.45)) for jc in JOKER_CELLS]
        good = [b for b in jb if b is not None and b[2] - b[0] > 0.04 and b[3] - b[1] > 0.06]
        if good:
            joker_box = (
                max(0.0, min(b[0] for b in good) - pad_x),
                max(0.0, min(b[1] for b in good) - pad_y),
                max(b[2] for b in good) + pad_x,
                max(b[3] for b in good) + pad_y,
            )
    has_back = cell(*BACK_CELL)[:, :, 3].mean() > 100
    return {
        "ok": bool(ok and has_back),
        "index_box": [float(v) for v in index_box],
        "joker_box": [float(v) for v in joker_box],
        "has_jokers": bool(has_jokers),
    }
