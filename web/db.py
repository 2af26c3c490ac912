"""The SQLite database: one file in the instance folder, its schema and migrations.

Every connection runs in WAL mode with foreign keys on and ``synchronous=FULL``: a
round acknowledged to a phone survives a crash of the server or of the machine.
Writes go through :func:`transaction` (``BEGIN IMMEDIATE``), so a request that fails
leaves nothing behind and two phones saving at once are serialised, not lost.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from flask import Flask, current_app, g

# Each entry migrates the schema from version i to i + 1; never edit a released one.
MIGRATIONS: tuple[str, ...] = (
    # 1: games, rounds, photos
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        rules TEXT NOT NULL,            -- scorer.Rules.to_json()
        sides TEXT NOT NULL,            -- JSON list of side names
        players INTEGER NOT NULL,       -- 4 players in 2 sides: two teams of two
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
        updated TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    CREATE TABLE rounds (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        input TEXT NOT NULL,            -- the sides of a `meldcam score` input
        sheet TEXT NOT NULL,            -- scorer.RoundSheet.to_json() when saved
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
        updated TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
        UNIQUE (game_id, number)
    );
    CREATE TABLE photos (
        id TEXT PRIMARY KEY,            -- random, unguessable
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        round_id INTEGER REFERENCES rounds(id) ON DELETE SET NULL,
        side TEXT,
        filename TEXT NOT NULL,         -- generated, never from a request
        content_type TEXT NOT NULL,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        scan TEXT,                      -- the recognition result, as `meldcam scan --json`
        created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    CREATE INDEX rounds_by_game ON rounds (game_id, number);
    CREATE INDEX photos_by_round ON photos (round_id);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection with the project's settings (autocommit; transactions are explicit)."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 30000")
    return conn


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema up to date, one transaction per step; returns the version."""
    version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise RuntimeError(
            f"the database is at schema {version}, newer than this meldcam ({SCHEMA_VERSION})"
        )
    while version < SCHEMA_VERSION:
        with transaction(conn):
            for statement in _statements(MIGRATIONS[version]):
                conn.execute(statement)
            version += 1
            conn.execute(f"PRAGMA user_version = {version}")
    return version


def _statements(script: str) -> list[str]:
    """Split a migration into statements (sqlite3's own test of completeness)."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        raise ValueError(f"incomplete SQL in a migration: {pending.strip()[:60]}")
    return statements


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: committed whole, or rolled back whole."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def database_path(app: Flask) -> Path:
    return Path(app.config["DATABASE"])


def get_db() -> sqlite3.Connection:
    """The request's connection (opened on first use, closed at teardown)."""
    if "db" not in g:
        g.db = connect(database_path(current_app))
    conn: sqlite3.Connection = g.db
    return conn


def close_db(_error: BaseException | None = None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


@click.command("init-db")
def init_db_command() -> None:
    """Create the database, or migrate it to the current schema."""
    conn = connect(database_path(current_app))
    try:
        version = migrate(conn)
    finally:
        conn.close()
    click.echo(f"database ready at {database_path(current_app)} (schema {version})")


def init_app(app: Flask) -> None:
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
    path = database_path(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = connect(path)
    try:
        migrate(conn)
    finally:
        conn.close()
