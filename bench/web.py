"""Benchmark of the web app: latency of saving a round and of /api/scan, 1 and 4 clients.

Run: .venv/bin/python bench/web.py [--requests 40] [--photo PATH]
Starts the real server (waitress) on a temporary instance and talks HTTP to it, then scans the
same photo in this process as ``meldcam scan`` does (model loaded once) and compares the two:
the aim is /api/scan no slower than ``meldcam scan`` + 50 ms. It also prints what the web layer
itself costs: each /api/scan's latency at the client minus the scan time the server reports in
the response's ``timing_ms.total`` (upload, multipart parsing, header checks, JSON, HTTP).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))
from live_server import call, start_server, stop

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PHOTO = ROOT.parent / "shared/realdata/card-fans/images"
ROUND = [
    {"name": "Ada", "melds": [["7H", "8H", "9H", "10H", "JH", "QH", "KH"]], "took_pot": True},
    {"name": "Bo", "hand": ["3C"], "took_pot": True},
]


WEB_LAYER_MS: list[float] = []
"""Per /api/scan with one client: client latency minus the server's own scan total."""


def post_photo(url: str, photo: bytes) -> int:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p.jpg"\r\n'
            f"Content-Type: image/jpeg\r\n\r\n"
        ).encode()
        + photo
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            body = json.loads(response.read())
            elapsed = (time.perf_counter() - start) * 1000
            WEB_LAYER_MS.append(elapsed - float(body["timing_ms"]["total"]))
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def measure(work: Callable[[], int], requests: int, clients: int) -> tuple[float, float, set[int]]:
    times: list[float] = []
    statuses: set[int] = set()
    lock = threading.Lock()

    def client() -> None:
        for _ in range(requests // clients):
            start = time.perf_counter()
            status = work()
            elapsed = (time.perf_counter() - start) * 1000
            with lock:
                times.append(elapsed)
                statuses.add(status)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))], statuses


def show(label: str, clients: int, median: float, p95: float, statuses: set[int]) -> None:
    print(f"{label:<34} {clients:>7} {median:>10.1f} {p95:>8.1f}  {sorted(statuses)}")


def cli_scan_median(photo: bytes, runs: int) -> float:
    """Median ms per photo of the scan ``meldcam scan`` runs (after its one model load)."""
    from vision.scanner import Scanner

    scanner = Scanner.load(ROOT / "models")
    scanner.scan(photo)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        scanner.scan(photo)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--photo", type=Path, help="a JPEG for /api/scan")
    args = parser.parse_args()
    photo_path = args.photo or next(iter(sorted(DEFAULT_PHOTO.glob("*.jpg"))), None)
    with tempfile.TemporaryDirectory() as tmp:
        process, url = start_server(Path(tmp))
        try:
            _, game = call(
                "POST",
                f"{url}/api/games",
                {"rules": "burraco-fibur", "sides": ["Ada", "Bo"], "target": 10**6},
            )
            rounds_url = f"{url}/api/games/{game['id']}/rounds"
            print(f"{'workload':<34} {'clients':>7} {'median ms':>10} {'p95 ms':>8}  statuses")
            for clients in (1, 4):
                median, p95, statuses = measure(
                    lambda: call("POST", rounds_url, {"sides": ROUND})[0], args.requests, clients
                )
                show("save a round (POST rounds)", clients, median, p95, statuses)
            if photo_path is None:
                print("no photo for /api/scan")
                return
            photo = photo_path.read_bytes()
            api_single = web_layer = float("nan")
            post_photo(f"{url}/api/scan", photo)  # the server loads its model on first use
            for clients in (1, 4):
                WEB_LAYER_MS.clear()
                median, p95, statuses = measure(
                    lambda: post_photo(f"{url}/api/scan", photo),
                    max(8, args.requests // 2),
                    clients,
                )
                show(f"/api/scan {photo_path.name[:20]}", clients, median, p95, statuses)
                if clients == 1:
                    api_single = median
                    web_layer = statistics.median(WEB_LAYER_MS)
        finally:
            stop(process)
        cli = cli_scan_median(photo, max(8, args.requests // 2))
        show("meldcam scan (same photo, in process)", 1, cli, float("nan"), {0})
        verdict = "met" if api_single <= cli + 50 else "missed"
        print(f"/api/scan - meldcam scan: {api_single - cli:+.1f} ms (aim <= +50 ms: {verdict})")
        print(f"web layer alone (latency - server's scan total), median: {web_layer:.1f} ms")


if __name__ == "__main__":
    main()
