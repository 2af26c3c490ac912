"""``meldcam eval``: how well the scanner reads a labelled set.

Per photo, the predicted pieces (one per physical piece) and the true pieces are compared as
multisets of codes: true positives are the common part, so a misread counts once as a false
positive and once as a false negative. Boxes are matched by IoU only to list the confusions,
and to set aside a scanned piece that lies on a piece the photo shows only in part (a corner
25-85 % visible, which the truth does not label and so does not ask for) and reads as that
piece: right, but not asked for, it counts neither way (``partly_seen``; session 19: 301 such on
`test_cards`, whose card precision read 0.835 with them counted false, 0.885 without).
Meld exact match: a true meld counts when one predicted meld has the same codes in the same
order (or reversed); meld precision: the share of predicted melds that are a true meld so,
leaving out the predicted melds that lie on a true meld the truth does not score (a piece of
it labelled nowhere, hidden or illegible: at least two of the predicted meld's pieces lie on
that meld's pieces and none lies on another piece), which can be neither right nor wrong; the
pieces of such a meld that the truth does not label are found under the predicted ones by the
boxes the photo shows them in part by (``Truth.partly``).
Hands and discard piles (where the truth marks them): of their pieces the scanner found, the
share it put in a meld (they should stay unassigned). Facing: of the melds matched exactly
whose true facing is known, the share the scanner says face the right side of the table.

Meld points (``points_right``): of the photos whose truth has melds, those whose scan gives
the melds the points the truth's have (each valid meld's points and bonus, summed over the
photo; a meld judged invalid scores none, and scanned melds on a true meld the truth does not
score are left out, as for meld precision), judged by the kind's default rules. This is what a
player reads off the photo: a club read as a spade in a set of 7s, or a 4 read as a 6, changes
no point, while a false valid meld made of the discard pile adds some.

Why a true meld was not read exactly (``meld_losses``), from its pieces' boxes: a piece is
found when a scanned piece's box overlaps one of its labelled boxes (IoU ``IOU_MATCH``), and
read right when such a piece has its code. A lost meld had a piece *missed*, a piece
*misread*, both, or all of its pieces found and read right but not laid out as that one meld
(*grouped*: split, joined to other pieces, or left unassigned).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Container, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scorer import PieceKind, Rules, validate_meld
from vision.detections import Detections, box_intersection, box_iou
from vision.photo import load_photo, read_photo
from vision.result import ScannedMeld, ScanResult
from vision.scanner import Reading, ScanKind, Scanner
from vision.truth import Truth, read_synth_truth, read_yolo_truth, turn_truth

IOU_MATCH = 0.4
"""A scanned box is on a true one when their intersection over union reaches this..."""
INSIDE_MATCH = 0.7
"""...or when this share of the scanned box lies inside the true one (session 39): a detector
may box one mark of a corner that the truth boxes whole. The held-out decks' responsive joker
prints a small star at the top of its corner; boxed alone, it overlapped its true corner by an
IoU near 0.16, so the jokers read on cards shown in part were counted false. Cached readings,
card joker precision `dev_decks` 0.492 -> 0.765, `dev_cards` 0.809 -> 0.821, `dev_cards_12mp`
0.838 -> 0.842; piece F1 0.9012 -> 0.9055, 0.9176 -> 0.9178, 0.9376 -> 0.9379; melds read
exactly unchanged (they are matched by their codes)."""
LOSSES = ("missed", "misread", "missed and misread", "grouped")
"""Why a true meld was not read exactly (see the module docstring), in this order."""
LOOSE_AREAS = ("hand", "discard", "rack", "loose")
"""Truth areas whose pieces are no meld: cards in a hand or the discard pile, tiles on a rack or
lying loose. (A full tile set laid out in a grid is left out: its rows are valid runs.)"""


@dataclass
class Tally:
    """Right, false and missed pieces summed over photos, each photo a multiset match of the
    codes read against the true codes (as :class:`Report` counts them, without its per-class
    split): what the benches that read photos altered some way print."""

    right: int = 0
    false: int = 0
    missed: int = 0

    def add(self, truth: Counter[str], found: Counter[str]) -> int:
        """Count one photo; return how many of its pieces were read right."""
        right = (truth & found).total()
        self.right += right
        self.false += found.total() - right
        self.missed += truth.total() - right
        return right

    @property
    def f1(self) -> float:
        return 2 * self.right / max(1, 2 * self.right + self.false + self.missed)

    def __str__(self) -> str:
        return f"F1 {self.f1:.4f} (right/false/missed {self.right}/{self.false}/{self.missed})"


WORST_DECKS = 5
"""How many decks ``meldcam eval`` names among those read worst (all are in its JSON)."""


@dataclass
class Flagged:
    """The photos the scanner flagged one way (shaken, taken from afar), or no way, or dealt from
    one deck, with their true melds and how many of them were read exactly."""

    photos: int = 0
    melds: int = 0
    melds_exact: int = 0

    def to_json(self) -> dict[str, int]:
        return {"photos": self.photos, "melds": self.melds, "melds_exact": self.melds_exact}


@dataclass
class Report:
    kind: str
    photos: int = 0
    tp: Counter[str] = field(default_factory=Counter)
    fp: Counter[str] = field(default_factory=Counter)
    fn: Counter[str] = field(default_factory=Counter)
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    melds_true: int = 0
    melds_exact: int = 0
    facing_known: int = 0
    facing_right: int = 0
    melds_found: int = 0
    melds_found_true: int = 0
    melds_found_unscored: int = 0
    partly_seen: int = 0
    shaken: Flagged = field(default_factory=Flagged)
    """Photos the scanner reported shaken (:attr:`ScanResult.shaken`)."""
    afar: Flagged = field(default_factory=Flagged)
    """Photos the scanner reported taken from afar (:attr:`ScanResult.afar`)."""
    low_resolution: Flagged = field(default_factory=Flagged)
    """Photos the scanner reported of too low a resolution (:attr:`ScanResult.low_resolution`)."""
    unflagged: Flagged = field(default_factory=Flagged)
    """Photos the scanner gave no warning about (not :attr:`ScanResult.warned`): what a player
    gets who takes the photo that the page asks for, since it asks again for a warned one."""
    by_deck: dict[str, Flagged] = field(default_factory=dict)
    """Per card deck (:attr:`Truth.deck`, where the truth names one), its photos and melds: the
    decks read worst, and whether a new model reads a deck better, are seen there."""
    meld_losses: Counter[str] = field(default_factory=Counter)
    loose_found: Counter[str] = field(default_factory=Counter)
    loose_in_melds: Counter[str] = field(default_factory=Counter)
    points_photos: int = 0
    points_right: int = 0
    ms: list[float] = field(default_factory=list)

    def add(self, truth: Truth, result: ScanResult, dedupe_truth: bool = False) -> None:
        self.photos += 1
        tallies = [
            tally
            for tally, flag in (
                (self.shaken, result.shaken),
                (self.afar, result.afar),
                (self.low_resolution, result.low_resolution),
            )
            if flag
        ]
        if not result.warned:
            tallies.append(self.unflagged)
        if truth.deck:
            tallies.append(self.by_deck.setdefault(truth.deck, Flagged()))
        for tally in tallies:
            tally.photos += 1
        true = Counter(set(truth.pieces)) if dedupe_truth else Counter(truth.pieces)
        # scanned piece -> the true piece under it, for the melds' losses and the areas
        on = _match_uids(truth, result) if truth.melds or truth.areas or truth.partly else {}
        aside = _on_partly(truth, result, on)
        self.partly_seen += len(aside)
        pred = Counter(p.code for j, p in enumerate(result.pieces) if j not in aside)
        common = true & pred
        self.tp.update(common)
        self.fp.update(pred - common)
        self.fn.update(true - common)
        self.ms.append(result.timing_ms.get("total", 0.0))
        for t, p in _match_boxes(truth, result):
            if t != p:
                self.confusion[(t, p)] += 1
        if truth.melds:
            found = melds_read(result)
            exact = sum(m in found for m in truth.melds)
            self.melds_true += len(truth.melds)
            self.melds_exact += exact
            for tally in tallies:
                tally.melds += len(truth.melds)
                tally.melds_exact += exact
            true_melds = set(truth.melds) | {m[::-1] for m in truth.melds}
            unscored = [set(uids) for uids in truth.unscored_uids]
            # an unscored meld's unlabelled pieces are found by the boxes they show in part
            beneath = _match_uids(truth, result, partly=True) if unscored else on
            for scanned in result.melds:
                if tuple(result.pieces[i].code for i in scanned.pieces) in true_melds:
                    self.melds_found += 1
                    self.melds_found_true += 1
                elif _lies_on(scanned.pieces, beneath, unscored):
                    self.melds_found_unscored += 1
                else:
                    self.melds_found += 1
            self.meld_losses.update(_losses(truth, result, on, found))
            self.points_photos += 1
            scored = [m for m in result.melds if not _lies_on(m.pieces, beneath, unscored)]
            self.points_right += _points(scored) == self._true_points(truth.melds)
            for codes, side in zip(truth.melds, truth.meld_facing, strict=False):
                if codes in found and side is not None:
                    self.facing_known += 1
                    self.facing_right += found[codes] == side

        if truth.areas:
            in_meld = {i for m in result.melds for i in m.pieces}
            for j, uid in on.items():
                area = truth.areas.get(uid, "")
                if area in LOOSE_AREAS:
                    self.loose_found[area] += 1
                    self.loose_in_melds[area] += j in in_meld

    def _true_points(self, melds: tuple[tuple[str, ...], ...]) -> int:
        """The points of the true melds (as laid out) under the kind's default rules."""
        rules = Rules.default(PieceKind.TILES if self.kind == "tiles" else PieceKind.CARDS)
        verdicts = [validate_meld(list(codes), rules, ordered=True) for codes in melds]
        return sum(v.points + v.bonus for v in verdicts if v.valid)

    @staticmethod
    def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        return p, r, f

    @property
    def overall(self) -> tuple[float, float, float]:
        return self._prf(sum(self.tp.values()), sum(self.fp.values()), sum(self.fn.values()))

    def per_class(self) -> dict[str, tuple[float, float, float, int]]:
        codes = set(self.tp) | set(self.fp) | set(self.fn)
        return {
            c: (*self._prf(self.tp[c], self.fp[c], self.fn[c]), self.tp[c] + self.fn[c])
            for c in sorted(codes)
        }

    def to_json(self) -> dict[str, Any]:
        p, r, f = self.overall
        return {
            "kind": self.kind,
            "photos": self.photos,
            "precision": round(p, 4),
            "recall": round(r, 4),
            "f1": round(f, 4),
            "per_class": {
                c: {"precision": round(a, 4), "recall": round(b, 4), "f1": round(d, 4), "n": n}
                for c, (a, b, d, n) in self.per_class().items()
            },
            "confusions": [
                {"true": t, "read": p, "count": n} for (t, p), n in self.confusion.most_common(15)
            ],
            "meld_exact_match": (
                round(self.melds_exact / self.melds_true, 4) if self.melds_true else None
            ),
            "melds": self.melds_true,
            "meld_precision": (
                round(self.melds_found_true / self.melds_found, 4) if self.melds_found else None
            ),
            "melds_found_unscored": self.melds_found_unscored,
            "points_right": (
                {"photos": self.points_photos, "right": self.points_right}
                if self.points_photos
                else None
            ),
            "partly_seen": self.partly_seen,
            "shaken": self.shaken.to_json(),
            "afar": self.afar.to_json(),
            "low_resolution": self.low_resolution.to_json(),
            "unflagged": self.unflagged.to_json(),
            "by_deck": {deck: self.by_deck[deck].to_json() for deck in sorted(self.by_deck)},
            "meld_losses": {k: self.meld_losses[k] for k in LOSSES if self.meld_losses[k]},
            "loose_in_melds": {
                area: {"found": n, "in_melds": self.loose_in_melds[area]}
                for area, n in sorted(self.loose_found.items())
            },
            "facing_right": (
                round(self.facing_right / self.facing_known, 4) if self.facing_known else None
            ),
            "ms_per_photo": round(float(np.mean(self.ms)), 1) if self.ms else None,
        }

    def describe(self) -> str:
        p, r, f = self.overall
        lines = [f"{self.kind}: {self.photos} photos, precision {p:.3f} recall {r:.3f} F1 {f:.3f}"]
        if self.partly_seen:
            lines.append(
                f"pieces read right where the photo shows them only in part (unlabelled, "
                f"counted neither way): {self.partly_seen}"
            )
        worst = sorted(self.per_class().items(), key=lambda kv: kv[1][2])[:10]
        lines.append("worst classes: " + ", ".join(f"{c} {v[2]:.2f} (n={v[3]})" for c, v in worst))
        if self.confusion:
            lines.append(
                "confusions: "
                + ", ".join(f"{t}->{p} x{n}" for (t, p), n in self.confusion.most_common(10))
            )
        if self.melds_true:
            lines.append(
                f"meld exact match: {self.melds_exact}/{self.melds_true} "
                f"= {self.melds_exact / self.melds_true:.3f}"
            )
        if self.meld_losses:
            lines.append(
                "melds lost: "
                + ", ".join(f"{k} {self.meld_losses[k]}" for k in LOSSES if self.meld_losses[k])
            )
        if self.melds_found:
            lines.append(
                f"meld precision: {self.melds_found_true}/{self.melds_found} predicted melds "
                f"are true melds = {self.melds_found_true / self.melds_found:.3f}"
                + (
                    f" ({self.melds_found_unscored} more lie on unscored true melds)"
                    if self.melds_found_unscored
                    else ""
                )
            )
        if self.points_photos:
            lines.append(
                f"meld points right: {self.points_right}/{self.points_photos} photos with melds "
                f"= {self.points_right / self.points_photos:.3f}"
            )
        for what, tally in (
            ("shaken", self.shaken),
            ("taken from afar", self.afar),
            ("of low resolution", self.low_resolution),
        ):
            if tally.photos:
                lines.append(
                    f"photos reported {what}: {tally.photos}"
                    + (
                        f" (melds read exactly on them {tally.melds_exact}/{tally.melds}, on the "
                        f"others {self.melds_exact - tally.melds_exact}/"
                        f"{self.melds_true - tally.melds})"
                        if tally.melds
                        else ""
                    )
                )
        if self.unflagged.melds and self.unflagged.photos < self.photos:
            lines.append(
                f"photos with no warning: {self.unflagged.photos} (melds read exactly "
                f"on them {self.unflagged.melds_exact}/{self.unflagged.melds})"
            )
        decks = sorted(
            ((d, t) for d, t in self.by_deck.items() if t.melds),
            key=lambda dt: (dt[1].melds_exact / dt[1].melds, dt[0]),
        )
        if decks:
            lines.append(
                f"melds read exactly by deck, the {min(len(decks), WORST_DECKS)} read worst of "
                f"{len(decks)}: "
                + ", ".join(f"{d} {t.melds_exact}/{t.melds}" for d, t in decks[:WORST_DECKS])
            )
        for area, n in sorted(self.loose_found.items()):
            lines.append(f"{area} pieces put in melds: {self.loose_in_melds[area]}/{n}")
        if self.facing_known:
            lines.append(
                f"facing the right side: {self.facing_right}/{self.facing_known} exact melds "
                f"= {self.facing_right / self.facing_known:.3f}"
            )
        if self.ms:
            lines.append(f"{np.mean(self.ms):.0f} ms per photo")
        return "\n".join(lines)


def _overlap(true: np.ndarray, scanned: np.ndarray) -> np.ndarray:
    """(N, M) how well the ``true`` boxes (N, 4) and the ``scanned`` ones (M, 4) match: their
    IoU, raised to ``IOU_MATCH`` where ``INSIDE_MATCH`` of the scanned box lies inside the true
    one."""
    iou = box_iou(true, scanned)
    area = np.prod(scanned[:, 2:] - scanned[:, :2], axis=1)
    inside = box_intersection(true, scanned) >= INSIDE_MATCH * area[None]
    return np.where(inside, np.maximum(iou, IOU_MATCH), iou)


def _match_boxes(truth: Truth, result: ScanResult) -> list[tuple[str, str]]:
    if not truth.boxes or not result.pieces:
        return []
    tb = np.array([b.box for b in truth.boxes], np.float32)
    pb = np.array([p.box for p in result.pieces], np.float32)
    iou = _overlap(tb, pb)
    pairs = []
    while iou.size and iou.max() >= IOU_MATCH:
        i, j = np.unravel_index(int(iou.argmax()), iou.shape)
        pairs.append((truth.boxes[i].code, result.pieces[j].code))
        iou[i, :] = 0
        iou[:, j] = 0
    return pairs


def melds_read(result: ScanResult) -> dict[tuple[str, ...], str | None]:
    """The scanned melds' codes, each both ways round (a true meld is read exactly when one of
    them is its codes in order), with the side that meld faces."""
    found: dict[tuple[str, ...], str | None] = {}
    for meld in result.melds:
        codes = tuple(result.pieces[i].code for i in meld.pieces)
        found[codes] = found[codes[::-1]] = meld.facing
    return found


def _losses(
    truth: Truth, result: ScanResult, on: dict[int, int], found: Container[tuple[str, ...]]
) -> list[str]:
    """Why each true meld that ``found`` (the scanned melds' codes, both ways) lacks was lost;
    ``on`` maps a scanned piece to the true piece (uid) under it."""
    read: dict[int, set[str]] = {}  # uid -> the codes of the scanned pieces on it
    for j, uid in on.items():
        read.setdefault(uid, set()).add(result.pieces[j].code)
    code = {b.uid: b.code for b in truth.boxes}
    out = []
    for codes, uids in zip(truth.melds, truth.meld_uids, strict=True):
        if codes in found:
            continue
        missed = any(u not in read for u in uids)
        misread = any(u in read and code[u] not in read[u] for u in uids)
        if missed and misread:
            out.append("missed and misread")
        elif missed or misread:
            out.append("missed" if missed else "misread")
        else:
            out.append("grouped")
    return out


def _points(melds: list[ScannedMeld]) -> int:
    """The points the scanned ``melds`` score as judged: each valid one's points and bonus."""
    return sum(m.verdict.points + m.verdict.bonus for m in melds if m.verdict.valid)


def _lies_on(pieces: tuple[int, ...], on: dict[int, int], melds: list[set[int]]) -> bool:
    """Whether a predicted meld (``pieces``, scanned piece indexes) lies on one of ``melds``
    (true melds as sets of uids; ``on`` maps a scanned piece to the true piece under it): at
    least two of its pieces lie on that meld's pieces and none on another piece (a piece on
    no labelled box may be the meld's hidden one)."""
    under = [on[i] for i in pieces if i in on]
    return len(under) >= 2 and any(set(under) <= meld for meld in melds)


def _on_partly(truth: Truth, result: ScanResult, on: dict[int, int]) -> set[int]:
    """The scanned pieces on no labelled piece that lie (:func:`_overlap`) on a piece the
    photo shows only in part, read as that piece's code."""
    if not truth.partly or not result.pieces:
        return set()
    iou = _overlap(
        np.array([b.box for b in truth.partly], np.float32),
        np.array([p.box for p in result.pieces], np.float32),
    )
    return {
        j
        for j, piece in enumerate(result.pieces)
        if j not in on
        and any(iou[i, j] >= IOU_MATCH and b.code == piece.code for i, b in enumerate(truth.partly))
    }


def _match_uids(truth: Truth, result: ScanResult, partly: bool = False) -> dict[int, int]:
    """Predicted piece index -> the true physical piece (uid) its box overlaps best
    (:func:`_overlap`): among the labelled boxes, and with ``partly`` the boxes of pieces shown
    only in part too."""
    boxes = (*truth.boxes, *truth.partly) if partly else truth.boxes
    if not boxes or not result.pieces:
        return {}
    iou = _overlap(
        np.array([b.box for b in boxes], np.float32),
        np.array([p.box for p in result.pieces], np.float32),
    )
    out = {}
    for j in range(iou.shape[1]):
        i = int(iou[:, j].argmax())
        if iou[i, j] >= IOU_MATCH and boxes[i].uid >= 0:
            out[j] = boxes[i].uid
    return out


def iter_truths(src: Path, split: str) -> Iterator[Truth]:
    """Synthetic truth JSONs (``truth/*.json``) or YOLO ``images/<split>`` + ``labels/<split>``."""
    truth_dir = src / "truth"
    if truth_dir.is_dir():
        for path in sorted(truth_dir.glob("*.json")):
            truth = read_synth_truth(path)
            if split in ("all", truth.image.parent.name):
                yield truth
        return
    splits = ("train", "val") if split == "all" else (split,)
    for s in splits:
        for image in sorted((src / "images" / s).glob("*")):
            label = src / "labels" / s / f"{image.stem}.txt"
            if label.exists():
                photo = read_photo(image)
                yield read_yolo_truth(image, label, (photo.width, photo.height))


class ReadingCache:
    """What the models read of each photo (:class:`vision.scanner.Reading`), kept on disk, so
    that a change to grouping, repair or judging is measured on a whole set in seconds instead
    of the minutes its detection and recognition take. The readings lie in a folder named by
    the scanner's fingerprint (its models' bytes, settings and reading code): a reading of
    other models, settings or code is never taken for this one's, and each reading by its
    photo's path and bytes: a photo made again in its place is read again. One thing is not told
    apart: gap filling (:mod:`vision.gaps`) groups the corners it reads to find where corners
    are missing, so a change to grouping is measured on the corners the old grouping made it
    look for; a whole run without the cache measures both."""

    def __init__(self, root: Path, scanner: Scanner) -> None:
        if not scanner.fingerprint:
            raise ValueError("only a scanner loaded from a models folder has readings to cache")
        self.scanner = scanner
        self.folder = root / scanner.fingerprint

    def _file(self, photo: Path, kind: str, turns: int) -> Path:
        """Where ``photo``'s reading is kept: named by its path and its bytes, so a set made
        again in the same folder is read again where its photos changed (until session 45 by
        the path alone, and a photo made anew was given the old one's reading)."""
        content = hashlib.sha256(photo.read_bytes()).hexdigest()
        key = f"{photo.resolve()}|{content}|{kind}|{turns % 4}"
        return self.folder / f"{photo.stem}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.npz"

    def read(self, photo: Path, pixels: Path | np.ndarray, kind: str, turns: int = 0) -> Reading:
        """The reading of ``photo`` (scanned as ``pixels``: the path itself or its pixels
        turned ``turns`` quarter turns), from the cache or read now and kept."""
        file = self._file(photo, kind, turns)
        if file.exists():
            with np.load(file) as data:
                dets = Detections(
                    data["xyxy"], data["confidence"], data["coarse"], data["faces"], data["up"]
                )
                timing = dict(zip(data["stages"].tolist(), data["ms"].tolist(), strict=True))
                width, height = (int(v) for v in data["size"])
                kind = ScanKind(str(data["kind"]))
                return Reading(
                    dets, kind, width, height, timing, float(data["shake"]),
                    self.scanner.count_copies, float(data["colour"]),
                )  # fmt: skip
        reading = self.scanner.read(pixels, kind, path=str(photo))
        self.folder.mkdir(parents=True, exist_ok=True)
        part = file.with_suffix(".part.npz")
        d = reading.dets
        np.savez(
            part, xyxy=d.xyxy, confidence=d.confidence, coarse=d.coarse, faces=d.faces, up=d.up,
            kind=reading.kind.value, size=np.array([reading.width, reading.height]),
            stages=np.array(list(reading.timing)), ms=np.array(list(reading.timing.values())),
            shake=reading.shake, colour=reading.colour,
        )  # fmt: skip
        part.replace(file)  # a run killed while writing leaves no truncated reading behind
        return reading


def evaluate_folder(
    scanner: Scanner,
    src: Path,
    kind: str,
    split: str = "val",
    limit: int = 0,
    turns: int = 0,
    cache: Path | None = None,
) -> Report:
    """The scanner measured on a labelled folder; with ``turns``, on its photos turned that
    many quarter turns counter-clockwise (the table seen from another seat), truth turned too.
    With ``cache``, what the models read of each photo is kept there and taken from there
    (:class:`ReadingCache`).

    A turned photo is scanned from its pixels at full size, where an upright JPEG is decoded at
    the scanner's draft scale (:data:`vision.scanner.DECODE_MIN_SIDE`): the same pixels for
    photos under 2400 px on their short side, as every set here is; a 12 MP photo would be
    read sharper turned than upright."""
    report = Report(kind)
    readings = ReadingCache(cache, scanner) if cache is not None else None
    want_tiles = kind == "tiles"
    for truth in iter_truths(src, split):
        if not any(b.is_tile == want_tiles for b in truth.boxes):
            continue  # photos without a labelled piece of this kind are not scored
        photo: Path | np.ndarray = truth.image
        if turns % 4:
            pixels = load_photo(truth.image)
            truth = turn_truth(truth, turns, pixels.shape[1], pixels.shape[0])
            photo = np.ascontiguousarray(np.rot90(pixels, turns % 4))
        if readings is None:
            result = scanner.scan(photo, kind, path=str(truth.image))
        else:
            reading = readings.read(truth.image, photo, kind, turns)
            result = reading.assemble(path=str(truth.image))
        report.add(truth, result, dedupe_truth=not want_tiles and not truth.melds)
        if limit and report.photos >= limit:
            break
    return report
