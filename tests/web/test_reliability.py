"""Data safety against the real server process and its SQLite file: concurrent phones,
kill -9 in the middle of saving, schema migrations, backup and restore."""

from __future__ import annotations

import http.client
import json
import os
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from live_server import call, start_server, stop

from web import db
from web.backup import BackupError, backup, restore

PURE_RUN = ["7H", "8H", "9H", "10H", "JH", "QH", "KH"]


def sides(n: int) -> list[dict[str, Any]]:
    """A round: Ada melds a pure burraco (265); Bo holds one or two 3s (-5 or -10) by n."""
    return [
        {"name": "Ada", "melds": [PURE_RUN], "took_pot": True},
        {"name": "Bo", "hand": ["3C"] * (n % 2 + 1), "took_pot": True},
    ]


def test_parallel_clients_lose_no_round(tmp_path: Path) -> None:
    process, url = start_server(tmp_path)
    try:
        status, created = call(
            "POST",
            f"{url}/api/games",
            {"rules": "burraco-fibur", "sides": ["Ada", "Bo"], "target": 100000},
        )
        assert status == 201
        game = created["id"]
        results: list[int] = []
        lock = threading.Lock()

        def client(k: int) -> None:
            for i in range(8):
                status, _ = call("POST", f"{url}/api/games/{game}/rounds", {"sides": sides(k + i)})
                with lock:
                    results.append(status)

        threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert results == [201] * 32
        status, data = call("GET", f"{url}/api/games/{game}")
        assert [r["number"] for r in data["rounds"]] == list(range(1, 33))
        assert data["totals"]["Ada"] == 32 * 265
        assert data["totals"]["Bo"] == -sum(
            5 * (n % 2 + 1) for k in range(4) for n in range(k, k + 8)
        )
        # Corrections in parallel with additions: every one lands, none is lost.
        done: list[int] = []

        def corrector() -> None:
            for n in range(1, 9):
                status, _ = call("PUT", f"{url}/api/games/{game}/rounds/{n}", {"sides": sides(1)})
                done.append(status)

        def adder() -> None:
            for _ in range(4):
                status, _ = call("POST", f"{url}/api/games/{game}/rounds", {"sides": sides(0)})
                done.append(status)

        workers = [threading.Thread(target=corrector), threading.Thread(target=adder)]
        for t in workers:
            t.start()
        for t in workers:
            t.join(timeout=120)
        assert sorted(done) == [200] * 8 + [201] * 4
        _, data = call("GET", f"{url}/api/games/{game}")
        assert len(data["rounds"]) == 36
        assert all(r["sides"] == sides(1) for r in data["rounds"][:8])
    finally:
        stop(process)


def test_kill_9_while_saving_keeps_every_acknowledged_round(tmp_path: Path) -> None:
    process, url = start_server(tmp_path)
    _status, created = call(
        "POST",
        f"{url}/api/games",
        {"rules": "burraco-fibur", "sides": ["Ada", "Bo"], "target": 100000},
    )
    game = created["id"]
    acknowledged: list[int] = []
    stop_flag = threading.Event()

    def saver() -> None:
        while not stop_flag.is_set():
            try:
                status, body = call(
                    "POST",
                    f"{url}/api/games/{game}/rounds",
                    {"sides": sides(len(acknowledged))},
                    timeout=5,
                )
            except (OSError, http.client.HTTPException):
                return  # the server died mid-request (a reply cut short: IncompleteRead)
            if status == 201:
                acknowledged.append(body["number"])

    threads = [threading.Thread(target=saver) for _ in range(3)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < 15 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    stop_flag.set()
    for t in threads:
        t.join(timeout=30)
    assert len(acknowledged) >= 15

    conn = sqlite3.connect(tmp_path / "meldcam.sqlite")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    process, url = start_server(tmp_path)
    try:
        _, data = call("GET", f"{url}/api/games/{game}")
        numbers = [r["number"] for r in data["rounds"]]
        assert numbers == list(range(1, len(numbers) + 1))
        assert set(acknowledged) <= set(numbers)
    finally:
        stop(process)


FIRST_RELEASED_SCHEMA = 1


def test_migrations_keep_games_from_the_first_released_schema(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = db.connect(path)
    for statement in db._statements(db.MIGRATIONS[FIRST_RELEASED_SCHEMA - 1]):
        conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {FIRST_RELEASED_SCHEMA}")
    conn.execute(
        "INSERT INTO games (name, rules, sides, players) VALUES (?, ?, ?, ?)",
        ("old game", json.dumps({"preset": "burraco-fibur"}), json.dumps(["Ada", "Bo"]), 2),
    )
    conn.execute(
        "INSERT INTO rounds (game_id, number, input, sheet) VALUES (1, 1, ?, '{}')",
        (json.dumps(sides(0)),),
    )
    conn.close()

    from web import store

    conn = db.connect(path)
    assert db.migrate(conn) == db.SCHEMA_VERSION
    stored = store.load_game(conn, 1)
    assert stored.name == "old game" and stored.game.totals == {"Ada": 265, "Bo": -5}
    conn.close()


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    conn = db.connect(tmp_path / "new.sqlite")
    conn.execute(f"PRAGMA user_version = {db.SCHEMA_VERSION + 1}")
    with pytest.raises(RuntimeError, match="newer than this meldcam"):
        db.migrate(conn)


def test_backup_and_restore_give_the_same_totals(client: FlaskClient, tmp_path: Path) -> None:
    app = client.application
    instance = Path(app.instance_path)
    created = client.post(
        "/api/games", json={"rules": "burraco-fibur", "sides": ["Ada", "Bo"]}
    ).json
    client.post(f"/api/games/{created['id']}/rounds", json={"sides": sides(0)})
    before = client.get(f"/api/games/{created['id']}").json
    archive = tmp_path / "backup.zip"
    assert backup(instance, archive) == 1
    client.delete(f"/api/games/{created['id']}")
    assert client.get("/api/games").json["games"] == []
    assert restore(instance, archive) == 1
    after = client.get(f"/api/games/{created['id']}").json
    assert after["totals"] == before["totals"] == {"Ada": 265, "Bo": -5}
    assert after["rounds"] == before["rounds"]


def test_restore_refuses_what_is_not_a_backup(tmp_path: Path) -> None:
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    with pytest.raises(BackupError, match="not a meldcam backup"):
        restore(tmp_path / "instance", junk)
    import zipfile

    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("meldcam.sqlite", b"")
        z.writestr("../../etc/passwd", b"x")
    with pytest.raises(BackupError, match="unexpected entry"):
        restore(tmp_path / "instance", evil)


def test_backup_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from web.cli import main

    assert main(["backup", str(tmp_path / "b.zip"), "--instance", str(tmp_path / "none")]) == 2
    assert "no meldcam database" in capsys.readouterr().err


def test_slow_clients_cannot_stop_the_others(tmp_path: Path) -> None:
    """Twenty connections that dribble half a request do not block a normal one."""
    import socket

    process, url = start_server(tmp_path)
    port = int(url.rsplit(":", 1)[1])
    slow = []
    try:
        for _ in range(20):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
            slow.append(s)
        start = time.monotonic()
        status, _ = call("GET", f"{url}/api/games", timeout=10)
        assert status == 200
        assert time.monotonic() - start < 5
    finally:
        for s in slow:
            s.close()
        stop(process)


def test_the_database_is_in_wal_mode_and_enforces_foreign_keys(tmp_path: Path) -> None:
    from web.db import connect, migrate

    conn = connect(tmp_path / "games.sqlite")
    migrate(conn)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError):  # a photo of a game that does not exist
        conn.execute(
            "INSERT INTO photos (id, game_id, filename, content_type, width, height) "
            "VALUES ('x', 999, 'x.jpg', 'image/jpeg', 1, 1)"
        )
