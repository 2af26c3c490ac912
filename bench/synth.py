"""Images per second of ``meldcam synth`` at 1280x960, with one and with two workers.

Run: ``.venv/bin/python bench/synth.py [--count N] [--kind mixed]``. The first pass warms the
face cache (rendering the Debian decks once), so it is not timed. The CPU time per image tells
what an idle machine would do when other jobs share the cores.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--kind", choices=[k.value for k in SceneKind], default="mixed")
    args = parser.parse_args()
    kind = SceneKind(args.kind)
    bench(8, 1, kind)  # warm the on-disk face cache
    print(f"synth --kind {kind} at 1280x960, {args.count} images, load {os.getloadavg()[0]:.1f}")
    for workers in (1, 2):
        rate, cpu = bench(args.count, workers, kind)
        print(
            f"  {workers} worker{'s' if workers > 1 else ''}: {rate:5.1f} images/s "
            f"({cpu * 1000:.0f} ms CPU per image; on an idle machine ~{workers / cpu:.1f} images/s)"
        )


if __name__ == "__main__":
    main()
