"""Backup and restore of every game: one zip with a consistent copy of the database
(SQLite's online backup, safe while the server runs) and the photos.

The secret key and the access code stay with the instance and are not in a backup.
"""

from __future__ import annotations

import sqlite3
import tempfile
import zipfile
from pathlib import Path

from web.db import SCHEMA_VERSION, connect, migrate

DB_NAME = "meldcam.sqlite"


class BackupError(ValueError):
    """A backup file that cannot be restored; the message says why."""


def backup(instance: Path, target: Path) -> int:
    """Write ``target`` (a zip); returns the number of games in it."""
    database = instance / DB_NAME
    if not database.exists():
        raise BackupError(f"no meldcam database in {instance}")
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / DB_NAME
        source = connect(database)
        destination = sqlite3.connect(copy)
        try:
            source.backup(destination)
            games = destination.execute("SELECT count(*) FROM games").fetchone()[0]
        finally:
            destination.close()
            source.close()
        partial = target.with_suffix(target.suffix + ".part")
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.write(copy, DB_NAME)
            photos = instance / "photos"
            if photos.is_dir():
                for photo in sorted(photos.iterdir()):
                    if photo.is_file() and not photo.name.endswith(".part"):
                        archive.write(photo, f"photos/{photo.name}", zipfile.ZIP_STORED)
        partial.replace(target)
    return int(games)


def restore(instance: Path, source: Path) -> int:
    """Replace every game of the instance with those of a backup; returns their number."""
    try:
        archive = zipfile.ZipFile(source)
    except (OSError, zipfile.BadZipFile) as error:
        raise BackupError(f"{source} is not a meldcam backup: {error}") from None
    with archive, tempfile.TemporaryDirectory() as tmp:
        names = archive.namelist()
        if DB_NAME not in names:
            raise BackupError(f"{source} holds no {DB_NAME}")
        for name in names:
            if name != DB_NAME and not (
                name.startswith("photos/")
                and "/" not in name[7:]
                and name[7:] not in ("", ".", "..")
            ):
                raise BackupError(f"{source} holds an unexpected entry: {name!r}")
        archive.extract(DB_NAME, tmp)
        restored = sqlite3.connect(Path(tmp) / DB_NAME)
        try:
            if restored.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                raise BackupError(f"the database in {source} is damaged")
            version = restored.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise BackupError(f"{source} comes from a newer meldcam (schema {version})")
            migrate(restored)
            games = restored.execute("SELECT count(*) FROM games").fetchone()[0]
            instance.mkdir(parents=True, exist_ok=True)
            live = connect(instance / DB_NAME)
            try:
                restored.backup(live)  # atomic for readers of the live database
            finally:
                live.close()
        finally:
            restored.close()
        photos = instance / "photos"
        photos.mkdir(exist_ok=True)
        for name in names:
            if name.startswith("photos/"):
                (photos / name[7:]).write_bytes(archive.read(name))
    return int(games)
