"""The real photos under the conditions of a home table: light, shadow, glare, blur, noise.

Run: ``.venv/bin/python bench/conditions.py [--every 2] [--only warm,dim] [--draws 4]``. Each
real photo (the two bidly card fans, never trained on, and the real tile photos of the
validation side of the split by source photo, every ``--every``-th) is changed as a phone at a
kitchen table would change it and scanned; prints card and tile F1 (multiset match per photo,
as ``meldcam eval`` counts) per condition, beside the photos as taken, and how many photos the
scanner reports shaken (taken by a moving hand, ``ScanResult.shaken``: only the motion blur
should be). The real photos were taken in good light; what a household's photos look like is
not known here, so this says which conditions the recogniser would stumble on, not how often
they happen. The conditions that draw noise are read under ``--draws`` draws of it.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np

from datasets.realdata import fan_cards, import_real
from vision.errors import UnknownSettingError
from vision.evaluate import Report, Tally, iter_truths
from vision.photo import load_photo
from vision.scanner import Scanner, check_settings

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "realdata"


def _float(image: np.ndarray) -> np.ndarray:
    return image.astype(np.float32)


def _byte(image: np.ndarray) -> np.ndarray:
    return np.asarray(np.clip(image, 0, 255), np.uint8)


def warm(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A tungsten lamp, not white-balanced: red kept, green and blue cut, brightness kept."""
    x = _float(image) * np.array([1.0, 0.82, 0.55], np.float32)
    return _byte(x * (float(image.mean()) / max(float(x.mean()), 1.0)))


def dim(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An evening room: a third of the light, the phone's sensor noise on top."""
    x = _float(image) * 0.35 + rng.normal(0, 6, image.shape)
    return _byte(x)


def dark(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A lamp-lit corner the phone did not expose for: a fifth of the light, with noise."""
    x = _float(image) * 0.2 + rng.normal(0, 4, image.shape)
    return _byte(x)


def grainy(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A dim room the phone exposed for: the light as taken, the raised sensor noise on top."""
    return _byte(_float(image) + rng.normal(0, 12, image.shape))


def shadow(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A player's shadow over half of the photo (soft edge), the rest as taken."""
    w = image.shape[1]
    ramp = np.clip((np.arange(w, dtype=np.float32) - 0.4 * w) / (0.2 * w), 0, 1)
    gain = 1.0 - 0.6 * ramp
    return _byte(_float(image) * gain[None, :, None])


def glare(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A ceiling lamp's reflection: a bright blob a fifth of the photo across, off centre."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cy, cx, r = 0.4 * h, 0.6 * w, 0.1 * max(h, w)
    spot = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
    return _byte(_float(image) + 170 * spot[:, :, None])


def motion(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A hand that moved: 1/150 of the photo's width of horizontal motion blur."""
    import cv2

    n = max(3, round(image.shape[1] / 150))
    kernel = np.full((1, n), 1.0 / n, np.float32)
    return cv2.filter2D(image, -1, kernel)


def defocus(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Focus a little off: Gaussian blur of 1/800 of the photo's width."""
    import cv2

    return cv2.GaussianBlur(image, (0, 0), image.shape[1] / 800)


def slant(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The phone held at a slant, not square above the table: the photo's far edge takes in a
    table 0.7 times as wide as its near edge (the far pieces smaller and leaning)."""
    import cv2

    h, w = image.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = np.array([[0.15 * w, 0], [0.85 * w, 0], [w, h], [0, h]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(image, matrix, (w, h), borderMode=cv2.BORDER_REPLICATE)


def jpeg(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A messaging app's recompression: JPEG quality 25."""
    import cv2

    _, data = cv2.imencode(".jpg", image[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, 25])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if decoded is None:
        raise OSError("could not decode the recompressed photo")
    return np.ascontiguousarray(decoded[:, :, ::-1])


CONDITIONS: dict[str, Callable[[np.ndarray, np.random.Generator], np.ndarray]] = {
    "as taken": lambda image, rng: image,
    "warm": warm,
    "dim": dim,
    "dark": dark,
    "grainy": grainy,
    "shadow": shadow,
    "glare": glare,
    "motion": motion,
    "defocus": defocus,
    "slant": slant,
    "jpeg": jpeg,
}


DRAWN = frozenset({"dim", "dark", "grainy"})
"""The conditions that draw sensor noise: one draw of the noise field moves the real tiles' F1 by
up to 0.03 (session 27: grainy 0.962 with one draw, 0.975 with another), so ``--draws`` reads
them under that many draws (seeds 0, 1, ...) and sums their counts."""


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--every", type=int, default=2, help="every n-th real tile val photo")
    p.add_argument("--only", default="", help="comma-separated conditions (default: all)")
    p.add_argument("--models", type=Path, default=ROOT / "models")
    p.add_argument(
        "--scenes", type=Path, default=None, metavar="DIR",
        help="also a `meldcam synth` folder of card scenes (its val split): card F1 and melds "
        "read exactly, many decks where the real fans are one",
    )  # fmt: skip
    p.add_argument("--limit", type=int, default=35, help="at most this many of those scenes")
    p.add_argument(
        "--draws", type=int, default=1,
        help="noise draws for the conditions that draw noise (dim, dark, grainy), counts summed",
    )  # fmt: skip
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="a scanner setting other than models/scanner.json's (balance_cast=0 ...)",
    )  # fmt: skip
    args = p.parse_args()
    names = [n for n in CONDITIONS if not args.only or n in [*args.only.split(","), "as taken"]]
    if bad := [item for item in args.set if "=" not in item]:
        p.error(f"--set takes KEY=VALUE, not {bad[0]!r}")
    overrides = {k: float(v) for k, v in (item.split("=", 1) for item in args.set)}
    try:  # (Scanner.load checks them too, but count_copies is its own argument, no setting)
        check_settings(overrides)
    except UnknownSettingError as error:
        p.error(f"--set: {error}")
    # (as Any: the keys are ScannerConfig's fields, each a float, not load's count_copies)
    scanner = Scanner.load(args.models, **cast(dict[str, Any], overrides))
    fans = [(load_photo(image), truth) for image, truth in fan_cards(REAL / "card-fans")]
    with tempfile.TemporaryDirectory() as tmp:
        import_real(REAL, Path(tmp), link=True)
        tiles = [
            (load_photo(t.image), Counter(t.pieces))
            for k, t in enumerate(iter_truths(Path(tmp), "val"))
            if t.boxes and t.boxes[0].is_tile and k % args.every == 0
        ]
    scenes = []
    if args.scenes is not None:
        truths = itertools.islice(iter_truths(args.scenes, "val"), args.limit)
        scenes = [(load_photo(t.image), t) for t in truths]
    print(
        f"{len(fans)} fan photos ({sum(t.total() for _, t in fans)} cards), "
        f"{len(tiles)} tile photos ({sum(t.total() for _, t in tiles)} tiles)"
        + (f", {len(scenes)} generated card scenes" if scenes else "")
    )
    print(
        f"{'condition':10} {'cards F1':>9} {'(right/false/missed)':>21} {'tiles F1':>9}"
        f" {'shaken':>7}" + (f" {'scenes F1':>9} {'melds':>9} {'shaken':>7}" if scenes else "")
    )
    for name in names:
        draws = max(1, args.draws) if name in DRAWN else 1
        out = []
        shaken = 0  # photos the scanner reports taken by a moving hand
        for photos, kind in ((fans, "cards"), (tiles, "tiles")):
            tally = Tally()
            for seed in range(draws):
                rng = np.random.default_rng(seed)
                for image, truth in photos:
                    result = scanner.scan(CONDITIONS[name](image, rng), kind)
                    shaken += result.shaken
                    tally.add(truth, Counter(q.code for q in result.pieces))
            out.append(tally)
        cards, tiles_tally = out
        counts = f"({cards.right}/{cards.false}/{cards.missed})"
        line = f"{name:10} {cards.f1:9.3f} {counts:>21} {tiles_tally.f1:9.3f}"
        line += f" {f'{shaken}/{draws * (len(fans) + len(tiles))}':>7}"
        if scenes:
            report = Report("cards")
            for image, scene_truth in scenes:
                report.add(scene_truth, scanner.scan(CONDITIONS[name](image, rng), "cards"))
            melds = f"{report.melds_exact}/{report.melds_true}"
            line += f" {report.overall[2]:9.3f} {melds:>9} {report.shaken.photos:>7}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
