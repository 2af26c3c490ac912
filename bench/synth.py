"""Images per second of ``meldcam synth`` at 1280x960, with one and with two workers.

Run: ``.venv/bin/python bench/synth.py [--count N] [--kind mixed]``. The first pass warms the
on-disk face cache (rendering the Debian decks once), so it is not timed. Two figures:

* steady state: one process whose per-process caches (the 16 drawn decks, the 24 tile styles)
  are warm, as they are for all but the first few dozen images of a long run; its CPU time per
  image gives the rate of two workers on two idle cores;
* end to end with 1 and 2 workers for ``--count`` images, which includes each worker's one-time
  rendering of those styles (about 4 s of CPU), so short runs look slower than long ones.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import cv2

from datasets.scene import SceneKind
from datasets.writer import generate


def bench(count: int, workers: int, kind: SceneKind) -> tuple[float, float]:
    """(images per wall-clock second, CPU seconds per image in this process and its workers)."""
    with tempfile.TemporaryDirectory() as tmp:
        start, cpu = time.perf_counter(), _cpu()
        generate(Path(tmp), count, kind, seed=1, size=(1280, 960), workers=workers, progress=False)
        return count / (time.perf_counter() - start), (_cpu() - cpu) / count


def _cpu() -> float:
    own, children = os.times(), os.times()
    return own.user + own.system + children.children_user + children.children_system


def warm_styles() -> float:
    """Render every drawn deck and tile style in this process; returns the CPU seconds spent."""
    from datasets.drawn_cards import DRAWN_STYLES, drawn_deck
    from datasets.tiles import TILE_STYLES, tile_set

    start = _cpu()
    for style in range(DRAWN_STYLES):
        drawn_deck(style)
    for style in range(TILE_STYLES):
        tile_set(style)
    return _cpu() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=80)
    parser.add_argument("--kind", choices=[k.value for k in SceneKind], default="mixed")
    args = parser.parse_args()
    kind = SceneKind(args.kind)
    bench(8, 1, kind)  # warm the on-disk face cache
    print(f"synth --kind {kind} at 1280x960, {args.count} images, load {os.getloadavg()[0]:.1f}")
    rate, cpu = bench(args.count, 2, kind)
    print(
        f"  end to end, 2 workers (fresh processes): {rate:5.1f} images/s "
        f"({cpu * 1000:.0f} ms CPU per image, one-time style rendering included)"
    )
    cv2.setNumThreads(1)  # as in the workers
    print(f"  one-time style rendering per process: {warm_styles():.1f} s CPU")
    rate, cpu = bench(args.count, 1, kind)
    print(
        f"  steady state, 1 process: {rate:5.1f} images/s ({cpu * 1000:.0f} ms CPU per image; "
        f"2 workers on 2 idle cores ~{2 / cpu:.1f} images/s)"
    )


if __name__ == "__main__":
    main()
