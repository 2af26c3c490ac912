"""The scanner: models loaded once, then photo -> pieces -> melds -> verdicts.

>>> scanner = Scanner.load("models")                          # doctest: +SKIP
>>> scanner.scan(open("table.jpg", "rb").read()).to_json()   # doctest: +SKIP
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import math
import textwrap
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from pathlib import Path

import numpy as np

from scorer import PieceKind as RulesKind
from scorer import Rules, Suit
from vision import grouping
from vision.afar import MIN_PHOTO_SIDE
from vision.classes import PIECES, Face, PieceKind
from vision.crops import MARGIN
from vision.detections import FACE_CODES, NUM_FACES, Detections
from vision.detector import MIN_IMGSZ, OnnxDetector
from vision.errors import (
    ModelMissingError,
    UnknownSettingError,
    UnreadablePhotoError,
    VisionError,
)
from vision.facing import facing
from vision.gaps import blank_jokers, fill_gaps, take_weak
from vision.light import balance, even_out, expose, for_detector, noise_level, small_luma
from vision.photo import PhotoInput, read_photo
from vision.quality import (
    MIN_SMEAR,
    colour_level,
    colourless,
    deconvolve,
    line_kernel,
    shake,
    shaken,
    smear,
)
from vision.recogniser import OnnxClassifier
from vision.repair import (
    SURE,
    TOP_K,
    Choice,
    MeldReading,
    could_meld,
    read_chain,
    strays,
    tile_changes,
)
from vision.result import ScannedMeld, ScannedPiece, ScanResult

DETECTOR_FILE = "detector.onnx"
TRAINED_CLASSIFIER_FILE = "classifier.onnx"
"""The classifier as trained and exported (fp32)."""
INT8_CLASSIFIER_FILE = "classifier.int8.onnx"
"""The same quantized to 8 bits (:mod:`vision.train.quantize`): served where the CPU has VNNI,
on which it reads crops three times faster and as well (:func:`classifier_file`)."""
W7_CLASSIFIER_FILE = "classifier.int8w7.onnx"
"""The same quantized with its weights kept within 7 bits: served where the CPU has AVX2 but
no VNNI, which sums pairs of 8-bit products into 16 bits; 7-bit weights cannot overflow them,
and the net reads a crop there in 0.54-0.67 ms instead of 1.03-1.25 (session 38)."""
CLASSIFIER_CHOICES = {
    "fp32": TRAINED_CLASSIFIER_FILE,
    "int8": INT8_CLASSIFIER_FILE,
    "int8w7": W7_CLASSIFIER_FILE,
}
CLASSIFIER_ENV = "MELDCAM_CLASSIFIER"
"""A key of :data:`CLASSIFIER_CHOICES` chooses the served classifier whatever the CPU; ``auto``
(the default) lets :func:`classifier_file` choose."""
VNNI_FLAGS = frozenset({"avx512_vnni", "avx_vnni"})
CONFIG_FILE = "scanner.json"
DECODE_MIN_SIDE = 1200
"""JPEGs are decoded at the smallest 1/2^k scale keeping both sides at least this long: a 12 MP
phone photo at half its size (2016x1512), above the 1280x960 the classifier learnt from. Session
8, real photos stretched to 4000x3000 and 3264x2448 and decoded at full size (1600) or halved
(1200): card fans F1 0.898, 0.898 -> 0.899, 0.905; every sixth real tile val photo 0.979,
0.979 -> 0.979, 0.974 (one tile in about 215). Session 10, the real fans tiled n x n into a
4000x3000 JPEG (a table from afar), card F1 decoded halved / full size: 2x2 0.894 / 0.890, 3x3
0.787 / 0.780, 4x4 0.625 / 0.636, the decode about 2.5 times longer: the detector, not the
crops' pixels, limits such photos. Session 26, 200 card tables made at 12 MP (`dev_cards_12mp`),
halved / full size: F1 0.9360 / 0.9385, melds read exactly 549 / 550 of 638, decode 21 / 87 ms."""


READ_CODE = tuple(
    Path(__file__).with_name(f"{name}.py")
    for name in (
        "photo",
        "light",
        "detector",
        "detections",
        "crops",
        "recogniser",
        "gaps",
        "quality",
        "afar",
    )
)
"""The modules a photo is read by before grouping (:meth:`Scanner.read`), named in the scanner's
fingerprint with its models, settings and this module's own reading steps (:data:`READ_STEPS`).
Gap filling groups the corners it has to find where corners are missing (:mod:`vision.gaps`): a
change to grouping alone keeps the fingerprint."""


class ScanKind(StrEnum):
    AUTO = "auto"
    CARDS = "cards"
    TILES = "tiles"


class UnknownKindError(VisionError):
    """A kind other than auto, cards, tiles."""


@dataclass(frozen=True, slots=True)
class ScannerConfig:
    imgsz: int = 640
    conf: float = 0.3
    iou: float = 0.5
    piece_px: float = 0.0
    """Close-ups are read again fitted so their median piece is this big (0: off)."""
    small_px: float = 0.0
    """Photos whose median piece is smaller than this at ``imgsz`` are read again enlarged so
    it reaches this size, up to ``max_imgsz`` (0: off)."""
    max_imgsz: int = 0
    afar_imgsz: int = 0
    """A photo whose median piece is under :data:`vision.afar.AFAR` of its long side (a whole
    table from afar) and that holds the detail (decoded at least this long) is enlarged up to
    this instead of ``max_imgsz`` (0: off; :class:`vision.detector.OnnxDetector`)."""
    conf_tiles: float | None = None
    """The confidence floor of tiles, when it differs from the cards' (``conf``)."""
    crop_margin: float = MARGIN
    """How far beyond its box a card's crop is cut for the classifier (share of the box's side;
    the classifier's model card says what it was trained at)."""
    crop_margin_tiles: float | None = None
    """The same for tiles, when it differs from the cards'."""
    read_floor: float = 0.0
    """A detection whose confidence times its face's probability is below this is dropped
    before grouping (a pip or a picture read weakly as some face)."""
    gap_floor: float = 0.0
    """Card corners the detector missed are looked for where the melds say they lie
    (:mod:`vision.gaps`) and kept when read as a card at least this surely (0: off)."""
    weak_overlap: float = 0.0
    """A card corner read under ``read_floor`` is kept where a meld says a corner is missing:
    where its box overlaps such a place by at least this IoU (:func:`vision.gaps.take_weak`;
    0: off)."""
    balance_cast: float = 0.0
    """A photo whose whites are tinted more than this (the ratio of its brightest channel's
    white to its dimmest's) is balanced before it is read (:mod:`vision.light`; 0: off)."""
    shade_reach: float = 0.0
    """Places in shadow are brightened before the photo is read, each by the white of the
    pieces within this share of the long side around it (:func:`vision.light.even_out`; 0:
    off)."""
    expose_white: float = 0.0
    """A dark photo is brightened until its whites read this (luma) before it is read, and the
    detector reads it smoothed by ``dark_blur`` (:func:`vision.light.expose`; 0: off)."""
    dark_blur: float = 0.0
    """The sigma, in pixels of the detector's input, of the smoothing a brightened photo is
    read by the detector with (:func:`vision.light.for_detector`)."""
    deblur_nsr: float = 0.0
    """A photo reported shaken (:func:`vision.quality.shaken`) is read again with the smear
    its pieces' edges show (:func:`vision.quality.smear`) taken out by a Wiener filter of this
    noise-to-signal ratio (:func:`vision.quality.deconvolve`; 0: off)."""
    noise_floor: float = 0.0
    """A photo whose sensor noise as the detector sees it (:func:`vision.light.noise_level`) is
    above this sigma is read by the detector smoothed by ``dark_blur`` too (0: off)."""

    @property
    def tile_crop_margin(self) -> float:
        return self.crop_margin if self.crop_margin_tiles is None else self.crop_margin_tiles

    @classmethod
    def read(cls, path: Path) -> ScannerConfig:
        if not path.exists():
            return cls()
        data = json.loads(path.read_text())
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


def check_settings(names: Iterable[str]) -> None:
    """Raise :class:`UnknownSettingError` naming those of ``names`` that are no
    :class:`ScannerConfig` field (a misspelt override)."""
    unknown = sorted(set(names) - {f.name for f in fields(ScannerConfig)})
    if unknown:
        raise UnknownSettingError(f"no scanner setting named {', '.join(unknown)}")


class Scanner:
    """Detector + classifier + grouping + rules; create with :meth:`load`, reuse for all photos."""

    def __init__(
        self,
        detector: OnnxDetector,
        classifier: OnnxClassifier,
        config: ScannerConfig,
        fingerprint: str = "",
        count_copies: bool = True,
    ) -> None:
        self.detector = detector
        self.classifier = classifier
        self.config = config
        self.count_copies = count_copies
        """Whether a face read on more pieces than the decks hold is ruled out of the least sure
        (:func:`too_many_copies`): off only for a photo made of copies, as the real fans tiled
        n x n into one frame that stand for a whole table seen from afar."""
        self.fingerprint = fingerprint
        """Names the models' bytes, the settings and the reading code (:meth:`load`,
        :data:`READ_CODE`, :data:`READ_STEPS`): two scanners with the same fingerprint read every
        photo alike, but for gap filling's grouping. Empty for a scanner put together by hand."""

    @classmethod
    def load(
        cls, models_dir: str | Path = "models", count_copies: bool = True, **overrides: float
    ) -> Scanner:
        folder = Path(models_dir)
        if not folder.is_dir():
            raise ModelMissingError(f"no models folder at {folder}")
        config = ScannerConfig.read(folder / CONFIG_FILE)
        check_settings(overrides)
        if overrides:
            config = replace(config, **overrides)  # type: ignore[arg-type]
        detector = OnnxDetector(
            folder / DETECTOR_FILE,
            int(config.imgsz),
            config.conf,
            config.iou,
            config.piece_px,
            config.conf_tiles,
            config.small_px,
            int(config.max_imgsz),
            int(config.afar_imgsz),
        )
        served = classifier_file(folder)
        classifier = OnnxClassifier(served, config.crop_margin, config.tile_crop_margin)
        digest = hashlib.sha256(repr(config).encode())
        for file in (folder / DETECTOR_FILE, served):
            digest.update(file.read_bytes())
        for file in READ_CODE:
            digest.update(code_form(file.read_text()))
        digest.update(reading_steps_source())
        return cls(detector, classifier, config, digest.hexdigest()[:16], count_copies)

    def scan(
        self,
        photo: PhotoInput,
        kind: ScanKind | str = ScanKind.AUTO,
        rules: Rules | None = None,
        path: str = "",
    ) -> ScanResult:
        """Scan one photo (bytes, a path or an RGB array).

        Raises :class:`vision.errors.UnreadablePhotoError` for a photo that cannot be decoded or
        is too small to hold a piece that can be read (:data:`vision.afar.MIN_PHOTO_SIDE`).
        """
        reading = self.read(photo, kind, path)
        return reading.assemble(rules, path)

    def read(
        self, photo: PhotoInput, kind: ScanKind | str = ScanKind.AUTO, path: str = ""
    ) -> Reading:
        """What the models make of one photo: its read detections, in the photo's pixels, before
        grouping (the part of :meth:`scan` that needs the models; :meth:`Reading.assemble` is
        the rest)."""
        try:
            kind = ScanKind(kind)
        except ValueError:
            raise UnknownKindError(f"kind must be auto, cards or tiles, not {kind!r}") from None
        timing: dict[str, float] = {}
        t0 = time.perf_counter()
        photo_data = read_photo(photo, path or None, DECODE_MIN_SIDE)
        if min(photo_data.width, photo_data.height) < MIN_PHOTO_SIDE:
            raise UnreadablePhotoError(
                f"too small to read: {photo_data.width}x{photo_data.height} pixels, and a piece "
                f"needs at least {MIN_PHOTO_SIDE}",
                path or None,
            )
        image = photo_data.pixels
        if self.config.balance_cast > 0:
            image = balance(image, self.config.balance_cast)
        luma = None  # the photo's whites: read once for both light steps while it stays as it was
        if self.config.shade_reach > 0:
            luma = small_luma(image)
            evened, _ = even_out(image, self.config.shade_reach, luma)
            if evened is not image:
                luma = None  # places brightened: the whites are read again
            image = evened
        seen = image  # what the detector reads
        if self.config.expose_white > 0:
            image, gain = expose(image, self.config.expose_white, luma)
            if gain > 1 and self.config.dark_blur > 0:
                seen = for_detector(image, self.detector.imgsz, self.config.dark_blur)
        if (
            seen is image
            and self.config.noise_floor > 0
            and self.config.dark_blur > 0
            and noise_level(image, self.detector.imgsz) > self.config.noise_floor
        ):
            seen = for_detector(image, self.detector.imgsz, self.config.dark_blur)
        colour = colour_level(image)
        t1 = time.perf_counter()
        timing["decode"] = (t1 - t0) * 1000
        dets = self.detector.detect(seen)
        t2 = time.perf_counter()
        timing["detect"] = (t2 - t1) * 1000
        asked = kind
        dets, kind = self._recognise(image, seen, dets, asked)
        t3 = time.perf_counter()
        timing["recognise"] = (t3 - t2) * 1000
        moved = shake(image, dets.xyxy)
        t4 = time.perf_counter()
        timing["shake"] = (t4 - t3) * 1000
        if (
            self.config.deblur_nsr > 0
            and seen is image  # (a smoothed photo's noise would be sharpened too)
            and shaken(moved, kind.value)
        ):
            length, angle = smear(image, dets.xyxy)
            if length >= MIN_SMEAR:
                # the smear taken out, the photo is read again from the start
                image = deconvolve(image, line_kernel(length, angle), self.config.deblur_nsr)
                dets, kind = self._recognise(image, image, self.detector.detect(image), asked)
            timing["deblur"] = (time.perf_counter() - t4) * 1000
        sx, sy = photo_data.scale
        return Reading(
            dets.scaled(sx, sy),
            kind,
            photo_data.width,
            photo_data.height,
            timing,
            moved,
            self.count_copies,
            colour,
        )

    def _recognise(
        self, image: np.ndarray, seen: np.ndarray, dets: Detections, asked: ScanKind
    ) -> tuple[Detections, ScanKind]:
        """The pieces of the photo ``image`` (``seen`` as the detector read it, ``dets`` what
        it found) and their kind: read, looked at again small when nothing was found, and with
        the card corners the detector missed looked for, the jokers that show no index
        (:func:`vision.gaps.blank_jokers`) and the corners read under the read floor where a
        meld lacks one (:func:`vision.gaps.take_weak`)."""
        dets, kind, weak = self._read(image, dets, asked)
        if not len(dets):
            # a close-up of a piece or two can be too big for the detector at its size, and what
            # it finds there then reads as no piece: look once more with the photo fitted small
            dets, kind, weak = self._read(image, self.detector.detect_at(seen, MIN_IMGSZ), asked)
        if kind is ScanKind.CARDS and self.config.gap_floor > 0:
            dets = fill_gaps(image, dets, self.classifier, self.config.gap_floor)
        if kind is ScanKind.CARDS:
            dets = blank_jokers(image, dets, self.classifier)
            h, w = image.shape[:2]
            dets = take_weak(dets, weak, w, h, self.config.weak_overlap)
        return dets, kind

    def _read(
        self, image: np.ndarray, dets: Detections, kind: ScanKind
    ) -> tuple[Detections, ScanKind, Detections]:
        """The detections of the photo's kind (told here when ``kind`` is auto) that read as
        pieces at least as surely as the read floor, that kind, and those read less surely."""
        if kind is ScanKind.AUTO:
            # told after reading: on real tile photos the detector alone takes many numbers for
            # card corners, which the classifier then reads weakly or calls no piece
            dets = self.classifier.read(image, dets)
            dets, kind = _keep_kind(dets, kind)
        else:
            dets, _ = _keep_kind(dets, kind)
            dets = self.classifier.read(image, dets)
        floor = self.config.read_floor
        return drop_weak(dets, floor), kind, dets[dets.read_confidence < floor]


@dataclass(frozen=True, slots=True, eq=False)
class Reading:
    """One photo as the models read it (:meth:`Scanner.read`): the read detections in the
    photo's pixels, the kind told, the photo's size and the time each stage took so far."""

    dets: Detections
    kind: ScanKind
    width: int
    height: int
    timing: dict[str, float]
    shake: float = math.nan
    """How much the hand moved, read from the pieces' edges (:func:`vision.quality.shake`)."""
    count_copies: bool = True
    """As the scanner's :attr:`Scanner.count_copies`."""
    colour: float = math.nan
    """How much colour the photo holds (:func:`vision.quality.colour_level`)."""

    def assemble(self, rules: Rules | None = None, path: str = "") -> ScanResult:
        """Grouping, repair and verdicts (no model): the scan of this reading."""
        return assemble(
            self.dets, self.kind, rules, path, self.width, self.height, dict(self.timing),
            time.perf_counter(), self.shake, self.count_copies, self.colour,
        )  # fmt: skip


def cpu_flags(cpuinfo: str | None = None) -> frozenset[str]:
    """The flags of the CPU (``/proc/cpuinfo``, or the text given): none where there is no such
    file (not Linux) or it lists none (an ARM CPU names its features otherwise)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return frozenset()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


def has_vnni(cpuinfo: str | None = None) -> bool:
    """Whether the CPU (``/proc/cpuinfo``, or the text given) sums products of 8-bit integers
    straight into 32 bits (x86 VNNI). Without it onnxruntime sums them in pairs into 16 bits,
    which 8-bit weights can overflow (:data:`W7_CLASSIFIER_FILE`)."""
    return bool(VNNI_FLAGS & cpu_flags(cpuinfo))


def classifier_file(
    folder: Path, choice: str | None = None, flags: frozenset[str] | None = None
) -> Path:
    """The classifier served from ``folder``, where it holds that file: the 8-bit one where the
    CPU has VNNI, the one with 7-bit weights where it has AVX2 alone, else the fp32 one.
    ``choice`` (default: the ``MELDCAM_CLASSIFIER`` environment variable, else ``auto``) may name
    any of :data:`CLASSIFIER_CHOICES` instead; ``flags`` stands for the CPU's own."""
    import os

    choice = (choice or os.environ.get(CLASSIFIER_ENV) or "auto").strip().lower()
    if choice != "auto":
        if choice not in CLASSIFIER_CHOICES:
            raise VisionError(
                f"{CLASSIFIER_ENV} must be auto, {', '.join(CLASSIFIER_CHOICES)}, not {choice!r}"
            )
        return folder / CLASSIFIER_CHOICES[choice]
    flags = cpu_flags() if flags is None else flags
    if VNNI_FLAGS & flags and (folder / INT8_CLASSIFIER_FILE).exists():
        return folder / INT8_CLASSIFIER_FILE
    if "avx2" in flags and (folder / W7_CLASSIFIER_FILE).exists():
        return folder / W7_CLASSIFIER_FILE
    return folder / TRAINED_CLASSIFIER_FILE


def _keep_kind(dets: Detections, kind: ScanKind) -> tuple[Detections, ScanKind]:
    """The detections of ``kind``; for auto, of the kind whose read detections weigh more
    (confidence times face probability, summed). Measured on 519 real tile photos at the card
    floor 0.2: the detector's confidences alone took 49 for cards, the read weights 6."""
    if kind is ScanKind.AUTO:
        weight = dets.read_confidence
        tiles = float(weight[dets.kind].sum())
        cards = float(weight[~dets.kind].sum())
        kind = ScanKind.TILES if tiles > cards else ScanKind.CARDS
    return (dets[dets.kind] if kind is ScanKind.TILES else dets[~dets.kind]), kind


def drop_weak(dets: Detections, floor: float) -> Detections:
    """The read detections whose confidence times their best face's probability is at least
    ``floor``."""
    if floor <= 0:
        return dets
    return dets[dets.read_confidence >= floor]


READ_STEPS = (Scanner.read, Scanner._recognise, Scanner._read, _keep_kind, drop_weak)
"""This module's own reading steps, named in the scanner's fingerprint by their source: a change
to how :meth:`Scanner.read` reads a photo (a step added to :meth:`Scanner._recognise`, as
session 35's unmarked jokers were) has every photo read afresh, while a change to assembling
the scan (the rest of this module) keeps the cached readings."""


def step_names(step: object) -> set[str]:
    """The global and attribute names a reading step's code uses (its inner functions' too)."""
    names: set[str] = set()
    codes = [step.__code__]  # type: ignore[attr-defined]
    while codes:
        code = codes.pop()
        names |= set(code.co_names)
        codes += [c for c in code.co_consts if inspect.iscode(c)]
    return names


def code_form(source: str) -> bytes:
    """What Python runs of ``source`` (a module, or a function's source however indented): its
    syntax tree without docstrings (a string standing alone as a statement: a module's, a
    function's, a setting's), comments or layout, so that the fingerprint moves when the code
    changes and not when only its words do."""
    tree = ast.parse(textwrap.dedent(source))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            kept = [statement for statement in body if not _words(statement)]
            if len(kept) < len(body):
                node.body = kept or [ast.Pass()]  # type: ignore[attr-defined]
    return ast.dump(tree, annotate_fields=False, include_attributes=False).encode()


def _words(statement: ast.stmt) -> bool:
    """Whether a statement is a string standing alone, which does nothing."""
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def reading_steps_source() -> bytes:
    """What names the reading steps in the fingerprint: their code (:func:`code_form`), and the
    values of this module's settings they read (``DECODE_MIN_SIDE``...)."""
    module = globals()
    parts = [code_form(inspect.getsource(step)).decode() for step in READ_STEPS]
    for step in READ_STEPS:
        for name in sorted(step_names(step)):
            value = module.get(name)
            if isinstance(value, (bool, int, float, str)):
                parts.append(f"{name} = {value!r}")
    return "\n".join(parts).encode()


JOKER_BESIDE = 0.75
JOKER_BESIDE_FLOOR = 0.25
"""A card joker read less surely than ``JOKER_BESIDE_FLOOR`` (confidence times probability)
whose centre lies closer than ``JOKER_BESIDE`` box sizes to another card corner's is dropped
(:func:`drop_jokers_beside_corners`)."""


def drop_jokers_beside_corners(dets: Detections) -> Detections:
    """``dets`` without the card jokers that are a pip or a picture beside another card's index,
    read weakly as a joker: a joker card's "JOKER" strip lies a fan step from its neighbours'
    indexes, not against one. Such a box had joined the meld of that index and broken it in
    two (the 4D of 2D 3D 4D 5D 6D read as a meld "4D JK" between two others).

    Session 20, cached readings, melds read exactly (`syn_cards`, `syn_cards3` val, `test_cards`,
    `test_cards_12mp`): 135 / 345 / 451 / 504 -> 136 / 346 / 451 / 507, card F1 unchanged or up
    (0.8589 -> 0.8591 ... 0.9159 -> 0.9163); the real fans as taken and turned read the same.
    Floors 0.25-0.3 and distances 0.6-1.0 read the same melds within one; a floor of 0.4 loses
    true jokers (134 on `syn_cards`), and a floor for all jokers wherever they lie loses more
    (131-133 at 0.15-0.25)."""
    if not len(dets):
        return dets
    cards = ~dets.kind
    jokers = cards & (np.array(dets.codes(), dtype=object) == grouping.JOKER_CODE)
    weak = np.flatnonzero(jokers & (dets.read_confidence < JOKER_BESIDE_FLOOR))
    others = np.flatnonzero(cards & ~jokers)
    if not len(weak) or not len(others):
        return dets
    return _without(dets, weak[_beside(dets, weak, others, JOKER_BESIDE).any(axis=1)])


def _beside(dets: Detections, boxes: np.ndarray, others: np.ndarray, reach: float) -> np.ndarray:
    """(len(boxes), len(others)): whether each of ``boxes`` (indexes into ``dets``) centres
    closer than ``reach`` box sizes (the two boxes' sides, their geometric mean) to each of
    ``others``."""
    side = np.sqrt(np.maximum(dets.sizes.prod(axis=1), 1e-9))
    dist = np.linalg.norm(dets.centres[boxes][:, None] - dets.centres[others][None], axis=2)
    return np.asarray(dist / np.sqrt(side[boxes][:, None] * side[others][None]) < reach)


def _without(dets: Detections, boxes: np.ndarray) -> Detections:
    """``dets`` without the boxes at the indexes ``boxes``."""
    drop = np.zeros(len(dets), bool)
    drop[boxes] = True
    return dets[~drop]


WEAK_BESIDE = 0.75
WEAK_BESIDE_FLOOR = 0.2
WEAK_BESIDE_RATIO = 2.0
"""A card corner read less surely than ``WEAK_BESIDE_FLOOR`` (confidence times probability)
whose centre lies closer than ``WEAK_BESIDE`` box sizes to a card corner read at least
``WEAK_BESIDE_RATIO`` times as surely is dropped (:func:`drop_weak_beside_corners`)."""


def drop_weak_beside_corners(dets: Detections) -> Detections:
    """``dets`` without the card corners read weakly right against a corner read surely: the
    suit pip under an index, or a second box on the same index, read as another card (3S read
    0.74 with a 9S 0.17 half an index below it). Fan steps keep true neighbours more than an
    index's size apart; such a box had linked to its index's neighbours as a card of its own,
    and the runs 2S 3S 4S and 6S 7S 8S 9S of `syn_cards3` val 001259 were left in no meld.

    Session 50, cached readings of the five development card sets (`dev_cards`,
    `dev_cards_12mp`, `dev_decks`, `syn_cards` and `syn_cards3` val; `runs/weakbeside50.py`,
    gitignored), melds read exactly 2,257 -> 2,267 of 2,779 (`dev_decks` 426 -> 427). Of the 194
    boxes dropped, 156 lie on no labelled corner, 11 on one they read wrong, 27 on one they read
    right, whose surer neighbour lies on the same label. Floors 0.15 / 0.25 / 0.3 read 2,262 /
    2,264 / 2,262; distances 0.5 / 0.65 / 0.85 / 1.0, 2,260 / 2,262 / 2,267 / 2,262; any surer
    corner (ratio 1) or three times as sure, 2,267 / 2,268."""
    if not len(dets):
        return dets
    cards = np.flatnonzero(~dets.kind)
    sure = dets.read_confidence
    weak = cards[sure[cards] < WEAK_BESIDE_FLOOR]
    if not len(weak):
        return dets
    surer = sure[cards][None] >= WEAK_BESIDE_RATIO * sure[weak][:, None]
    surer &= cards[None] != weak[:, None]  # not itself
    return _without(dets, weak[(_beside(dets, weak, cards, WEAK_BESIDE) & surer).any(axis=1)])


LONE_JOKER_FLOOR = 0.3
"""A card joker in no meld read less surely than this (confidence times probability) is
dropped, and the photo grouped again without it: alone, such a reading is more often a court
card's picture or a pip than a joker. Session 22, cached readings: on `dev_cards` (200 scenes
made for the analysis, never trained on) the jokers so dropped were 8 true and 15 false (card
F1 0.8992 -> 0.8997, melds 466 -> 467; 0.2: 4 and 6, 0.8993; 0.4: 13 and 20, 0.8996); the
real fans turned a quarter and three quarters lost 3 and 1 false jokers (F1 0.9605 -> 0.9770,
0.9438 -> 0.9492), as taken and half turned the same; held out, `test_cards` F1 0.9101 ->
0.9107 and melds 465 -> 466, `test_cards_12mp` 0.9230 -> 0.9235 and 518 -> 519, `syn_cards`
0.8669 -> 0.8668.

A weak joker inside a meld stays (session 40, not kept: `runs/jkbreak.py`, gitignored, cached
readings). Dropping a card joker read under a floor whose meld reads invalid with it and valid
without it, and assembling again, mends a false joker's meld (2S 3S 4S [joker] 5S 6S 7S 2H 9S
10S), but most jokers so dropped are true ones in melds laid wrong (the generator lays a wild
where no card is missing): melds read exactly at floors 0.3 / 0.5 / any joker, `dev_cards` 524
-> 521 / 513 / 503 of 643, `dev_cards_12mp` 569 -> 568 / 566 / 549 of 649, `dev_decks` 397 ->
393 / 392 / 392 of 533."""


PAIRED_JOKERS = True
"""A weak card joker chained to one piece alone is dropped as one in no meld is (session 50):
a picture on a card read weakly as a joker (0.13 on the face of 4H) had made the meld "4H JK",
which split 3H 4H 5H 6H 7H 8H into three. Cached readings, melds read exactly, the five
development card sets (`dev_cards`, `dev_cards_12mp`, `dev_decks`, `syn_cards` and `syn_cards3`
val; `runs/pairjk50.py`, gitignored) 2,267 -> 2,272 of 2,779 at ``LONE_JOKER_FLOOR`` (0.2: 2,270;
0.4 and 0.5: 2,272), no set fewer; held out `test_cards_12mp` 620 -> 622, `test_decks_12mp` 500
-> 501, `test_cards` and `test_decks` the same. Card jokers' precision rose on every card set
(0.865 -> 0.872 on `test_cards`, 0.866 -> 0.887 on `test_decks_12mp`) and recall fell by one or
two jokers on some (0.842 -> 0.833 on `test_cards`); the real fans framed as phone photos read a
false card fewer (2,437 right, 43 -> 42 false), as taken and turned the same."""


def lone_weak_jokers(
    dets: Detections, codes: Sequence[str], g: grouping.Grouping, alone: Sequence[int]
) -> np.ndarray:
    """Mask of the boxes of the card jokers read less surely than ``LONE_JOKER_FLOOR`` among
    the pieces ``alone`` (indexes into ``g.pieces``: those in no meld) and those the grouping
    chained to one piece alone (:data:`PAIRED_JOKERS`)."""
    weak = np.zeros(len(dets), bool)
    pairs = [i for chain in g.melds if len(chain) == 2 for i in chain] if PAIRED_JOKERS else []
    for i in [*alone, *pairs]:
        boxes = list(g.pieces[i])
        jokers = all(codes[b] == grouping.JOKER_CODE and not dets.kind[b] for b in boxes)
        if jokers and float(dets.read_confidence[boxes].max()) < LONE_JOKER_FLOOR:
            weak[boxes] = True
    return weak


FACE_ARRAY = np.array(FACE_CODES)
SUITED = {
    i: tuple(PIECES.class_id(Face.card(face.rank, suit)) for suit in Suit)  # type: ignore[arg-type]
    for i, face in enumerate(PIECES.face(i) for i in range(NUM_FACES))
    if face.kind is PieceKind.CARD and not face.is_joker
}
"""Per card face (class id), the ids of its rank in the four suits."""


def choice_of(probs: np.ndarray) -> Choice:
    """A piece's reading from its classifier's probabilities over the faces."""
    top = np.argsort(-probs)[:TOP_K]
    suits = tuple((FACE_CODES[j], float(probs[j])) for j in SUITED.get(int(top[0]), ()))
    return Choice(tuple((FACE_CODES[i], float(probs[i])) for i in top), suits)


MeldReadings = list[list[tuple[tuple[int, ...], MeldReading]]]
"""Per chain of pieces, its melds: (piece indexes, reading)."""


def final_readings(choices: list[Choice], readings: MeldReadings) -> list[tuple[str, float]]:
    """Each piece's (code, probability): its meld's reading, or its own likeliest face."""
    final = [c.options[0] for c in choices]
    for chain_readings in readings:
        for meld, reading in chain_readings:
            for i, code, p in zip(meld, reading.codes, reading.probabilities, strict=True):
                final[i] = (code, p)
    return final


def too_many_copies(
    choices: list[Choice], readings: MeldReadings, rules: Rules
) -> list[tuple[int, str]]:
    """(piece, code) for each piece whose reading must be another: the decks hold
    ``rules.decks`` of each natural, so where more pieces read as one face, those beyond the
    count are ruled out of it. Kept are first the pieces of valid melds, then the likeliest: a
    third 7S on a table of two decks is some other card, and a meld that reads valid vouches
    for its pieces. The scanner reads each ruled piece's melds again without that face.

    Session 22, cached readings, melds read exactly (`dev_tiles`, `dev_cards`: 300 tile and 200
    card scenes made for the analysis, seeds 1212 and 1313; `syn_cards`, `syn_cards3`,
    `syn_tiles2`): 725 / 464 / 138 / 351 / 77 -> 726 / 466 / 139 / 353 / 78; held out,
    `test_cards` 459 -> 465 of 626, `test_cards_12mp` 515 -> 518 of 645, the tile test sets
    unchanged; the real fans and tiles read the same. Where the code read too often was a
    natural, the least surely read copy was a misread one in 30 of the 57 such codes on
    `test_cards` (in 18 more it lay on no labelled piece). Jokers are left out: counted too (two
    or four by the preset), `dev_cards` read 465 and `syn_cards3` 351 (a false joker, boxed on a
    card's picture, can read surer than a true one)."""
    final = final_readings(choices, readings)
    vouched = {i for chain in readings for meld, r in chain if r.verdict.valid for i in meld}
    held: dict[str, list[int]] = {}
    for i, (code, _p) in enumerate(final):
        held.setdefault(code, []).append(i)
    ruled = []
    for code, pieces in held.items():
        if code == grouping.JOKER_CODE or len(pieces) <= rules.decks:
            continue
        pieces.sort(key=lambda i: (i in vouched, final[i][1]), reverse=True)
        ruled += [(i, code) for i in pieces[rules.decks :]]
    return ruled


def rack_like(codes: list[str]) -> bool:
    """Whether an invalid row of tiles can be one of a rack's two tiers
    (:func:`vision.grouping.rack_tiers`): more than ``RACK_CHANGES`` of its tiles would have to
    be other tiles for it to be a run or a group as it lies, and at least one in any order. A
    rack holds a player's tiles in no order; a row of tiles that makes a run in another order
    (K8 K7 K9 K6 K5) is a meld laid out of order, to be judged, not a rack's tier (session 39:
    on the cached readings of `dev_tiles`, `dev_tiles_12mp` and 300 fresh tables no figure
    moved; held out, `test_tiles` lost two such melds side by side as a rack)."""
    return tile_changes(codes) >= grouping.RACK_CHANGES * len(codes) and (
        tile_changes(codes, ordered=False) > 0
    )


def assemble(
    dets: Detections,
    kind: ScanKind,
    rules: Rules | None,
    path: str,
    width: int,
    height: int,
    timing: dict[str, float],
    started: float,
    shake: float = math.nan,
    count_copies: bool = True,
    colour: float = math.nan,
) -> ScanResult:
    """Group read detections into physical pieces and melds, judge each meld (pure, no model)."""
    dets = drop_weak_beside_corners(drop_jokers_beside_corners(dets))
    codes = dets.codes()
    g = grouping.group(
        dets.centres, dets.sizes, codes, dets.kind, dets.up, dets.faces, dets.confidence
    )
    g = grouping.join_at_jokers(g, dets.centres, codes, dets.kind)
    g = grouping.joker_marks_at_ends(g, dets.centres, codes, dets.kind)
    t_group = time.perf_counter()
    timing["group"] = (t_group - started) * 1000
    table_rules = rules or Rules.default(
        RulesKind.TILES if kind is ScanKind.TILES else RulesKind.CARDS
    )
    piece_probs: list[np.ndarray] = []
    for boxes in g.pieces:
        # a card seen by both corners, or an index boxed twice: combine the readings
        probs = np.prod(dets.faces[list(boxes)], axis=0)
        piece_probs.append(probs / max(float(probs.sum()), 1e-12))
    piece_choice = [choice_of(probs) for probs in piece_probs]
    shown = np.array([boxes[0] for boxes in g.pieces], np.int64)  # the box each piece is shown by

    def read(chain: tuple[int, ...]) -> list[tuple[tuple[int, ...], MeldReading]]:
        """The melds of one chain of pieces, read with the pieces' current choices."""
        centres = [(float(x), float(y)) for x, y in dets.centres[shown[list(chain)]]]
        return [
            (tuple(chain[i] for i in span), reading)
            for span, reading in read_chain([piece_choice[i] for i in chain], centres, table_rules)
        ]

    readings = [read(chain) for chain in g.melds]
    if count_copies:
        ruled = too_many_copies(piece_choice, readings, table_rules)
        again = set()
        for i, code in ruled:
            other = np.where(np.equal(FACE_ARRAY, code), 0.0, piece_probs[i])
            if float(other.sum()) > 0:  # a reading with no other face left stays as it is
                piece_probs[i] = other / float(other.sum())
                piece_choice[i] = choice_of(piece_probs[i])
                again.add(i)
        readings = [
            read(chain) if again.intersection(chain) else chain_readings
            for chain, chain_readings in zip(g.melds, readings, strict=True)
        ]
    final = final_readings(piece_choice, readings)
    melds: list[ScannedMeld] = []
    for meld, reading in (part for chain_readings in readings for part in chain_readings):
        side = facing(float(dets.up[shown[i]]) for i in meld)
        melds.append(
            ScannedMeld(meld, reading.verdict, tuple(meld[p] for p in reading.repaired), side)
        )
    unassigned, hands = g.unassigned, g.hands

    def pile_pair(meld: tuple[int, ...]) -> bool:
        """Two pieces that no third makes a meld, or that lie askew of each other."""
        pair, at = [final[i][0] for i in meld], shown[list(meld)]
        return not could_meld(pair, table_rules) or grouping.askew_pair(
            dets.up[at], pair, dets.kind[at]
        )

    lone = [m for m in melds if len(m.pieces) == 2 and not m.verdict.valid and pile_pair(m.pieces)]
    if lone:  # a pile's or a hand's two pieces, not a meld's
        melds = [m for m in melds if m not in lone]
        unassigned = tuple(sorted({*unassigned, *(i for m in lone for i in m.pieces)}))
    aside: list[tuple[int, ...]] = []  # rows that are no meld: a rack's tiers, hands
    if kind is ScanKind.TILES:
        aside = grouping.rack_tiers(
            dets.centres[shown],
            dets.sizes[shown],
            [
                m.pieces
                for m in melds
                if not m.verdict.valid and rack_like([final[i][0] for i in m.pieces])
            ],
        )
    aside += [  # a row most of whose pieces belong to no one meld: a hand, a rack's lone tier
        m.pieces
        for m in melds
        if not m.verdict.valid
        and m.pieces not in aside
        and (odd := strays([final[i][0] for i in m.pieces], table_rules)) >= grouping.STRAY_ROW_MIN
        and odd >= grouping.STRAY_ROW_SHARE * len(m.pieces)
    ]
    if aside:
        hands = hands + tuple(aside)
        unassigned = tuple(sorted({*unassigned, *(i for row in aside for i in row)}))
        melds = [m for m in melds if m.pieces not in aside]
    weak = lone_weak_jokers(dets, codes, g, unassigned)
    if weak.any():
        # a weak joker in no meld, whether the grouping left it alone or the judging did (its
        # row set aside as a hand, its pair no third card melds), is dropped, and the rest
        # assembled again without it
        return assemble(
            dets[~weak], kind, rules, path, width, height, timing, started, shake, count_copies,
            colour,
        )  # fmt: skip
    pieces = []
    grey = colourless(colour)
    for i, boxes in enumerate(g.pieces):
        code, p = final[i]
        det = boxes[0]
        conf = float(dets.confidence[list(boxes)].max()) * p
        pieces.append(
            ScannedPiece(
                code,
                tuple(float(v) for v in dets.xyxy[det]),  # type: ignore[arg-type]
                conf,
                "tile" if dets.kind[det] else "card",
                tuple(o for o in piece_choice[i].options if o[0] != code),
                # a colourless photo: a card's suit (red or black) or a tile's colour is a guess;
                # a card joker read under LONE_JOKER_FLOOR (as one found where a card shows no
                # index at all is: vision.gaps.flanked_jokers) is a doubt
                p < SURE
                or (grey and code != grouping.JOKER_CODE)
                or (code == grouping.JOKER_CODE and not dets.kind[det] and conf < LONE_JOKER_FLOOR),
            )
        )
    timing["score"] = (time.perf_counter() - t_group) * 1000
    timing["total"] = sum(v for k, v in timing.items() if k != "total")
    return ScanResult(
        path, width, height, kind.value, tuple(pieces), tuple(melds), unassigned, timing, hands,
        shake, colour,
    )  # fmt: skip
