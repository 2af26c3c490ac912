"""Games kept in SQLite: create, load, add/correct/delete rounds, photos.

Pure data access over a connection (no Flask): every write is one transaction, and
totals are always recomputed by the rules core from the stored rounds.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorer import Game, InvalidRoundError, Round, RoundSheet, Rules, score_round
from web.db import transaction
from web.errors import NotFoundError, RoundRejectedError, WebError

MAX_ROUNDS = 200


@dataclass(frozen=True, slots=True)
class StoredRound:
    number: int
    sides: list[dict[str, Any]]
    sheet: RoundSheet
    photos: list[str]
    created: str
    updated: str

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "sides": self.sides,
            "sheet": self.sheet.to_json(),
            "photos": self.photos,
            "created": self.created,
            "updated": self.updated,
        }


@dataclass(frozen=True, slots=True)
class StoredGame:
    id: int
    name: str
    created: str
    players: int
    game: Game
    rounds: tuple[StoredRound, ...]

    @property
    def rules(self) -> Rules:
        return self.game.rules

    def to_json(self) -> dict[str, Any]:
        game = self.game
        return {
            "id": self.id,
            "name": self.name,
            "created": self.created,
            "rules": game.rules.to_json(),
            "sides": list(game.sides),
            "players": self.players,
            "rounds": [r.to_json() for r in self.rounds],
            "totals": game.totals,
            "finished": game.finished,
            "winner": game.winner,
            "draw": game.draw,
            "victory_points": game.victory_points,
        }


def create_game(
    conn: sqlite3.Connection,
    rules: Rules,
    sides: Sequence[str],
    name: str | None = None,
    players: int | None = None,
) -> int:
    """A new game; ``players`` is 4 for two teams of two (default: one per side)."""
    game = Game.new(rules, sides)  # validates the side names
    players = len(game.sides) if players is None else players
    if players not in rules.players:
        allowed = ", ".join(map(str, rules.players))
        raise WebError(f"{rules.name} is played by {allowed} players, not {players}")
    if players != len(game.sides) and not (players == 4 and len(game.sides) == 2):
        raise WebError(f"{players} players cannot sit as {len(game.sides)} sides")
    title = (name or "").strip() or " - ".join(game.sides)
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO games (name, rules, sides, players) VALUES (?, ?, ?, ?)",
            (title[:120], json.dumps(rules.to_json()), json.dumps(list(game.sides)), players),
        )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def list_games(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT id FROM games ORDER BY updated DESC, id DESC").fetchall()
    out = []
    for row in rows:
        stored = load_game(conn, row["id"])
        out.append(
            {
                "id": stored.id,
                "name": stored.name,
                "rules": stored.rules.name,
                "sides": list(stored.game.sides),
                "rounds": len(stored.rounds),
                "totals": stored.game.totals,
                "finished": stored.game.finished,
                "winner": stored.game.winner,
                "created": stored.created,
            }
        )
    return out


def load_game(conn: sqlite3.Connection, game_id: int) -> StoredGame:
    row = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no game {game_id}")
    rules = Rules.from_json(json.loads(row["rules"]))
    game = Game.new(rules, json.loads(row["sides"]))
    rounds = []
    photos = _photos_by_round(conn, game_id)
    for r in conn.execute(
        "SELECT * FROM rounds WHERE game_id = ? ORDER BY number", (game_id,)
    ).fetchall():
        sides = json.loads(r["input"])
        sheet = score_round(Round.from_json({"rules": rules.to_json(), "sides": sides}))
        rounds.append(
            StoredRound(
                r["number"], sides, sheet, photos.get(r["id"], []), r["created"], r["updated"]
            )
        )
        game = Game(rules, game.sides, (*game.rounds, sheet))
    return StoredGame(row["id"], row["name"], row["created"], row["players"], game, tuple(rounds))


def _photos_by_round(conn: sqlite3.Connection, game_id: int) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for row in conn.execute(
        "SELECT id, round_id FROM photos WHERE game_id = ? AND round_id IS NOT NULL "
        "ORDER BY created",
        (game_id,),
    ):
        out.setdefault(row["round_id"], []).append(row["id"])
    return out


def score_sides(rules: Rules, sides: Any) -> RoundSheet:
    """The sheet of a round input (the ``sides`` of ``meldcam score``) under these rules."""
    if not isinstance(sides, list):
        raise InvalidRoundError("'sides' must be a list of sides")
    return score_round(Round.from_json({"rules": rules.to_json(), "sides": sides}))


def _checked_sheet(stored: StoredGame, sides: Any) -> RoundSheet:
    sheet = score_sides(stored.rules, sides)
    names = sorted(s.name for s in sheet.sides)
    if names != sorted(stored.game.sides):
        unknown = sorted(set(names) - set(stored.game.sides))
        missing = sorted(set(stored.game.sides) - set(names))
        parts = []
        if unknown:
            parts.append(f"unknown side(s): {', '.join(unknown)}")
        if missing:
            parts.append(f"missing side(s): {', '.join(missing)}")
        raise RoundRejectedError(f"the round does not match this game's sides: {'; '.join(parts)}")
    if sheet.problems:
        reasons = "; ".join(p.message for p in sheet.problems)
        raise RoundRejectedError(
            f"the round has problems: {reasons}", problems=[p.to_json() for p in sheet.problems]
        )
    return sheet


def add_round(
    conn: sqlite3.Connection, game_id: int, sides: Any, photos: Sequence[str] = ()
) -> StoredRound:
    """Score and store a new round; refuses a round with problems or after the end."""
    with transaction(conn):
        stored = load_game(conn, game_id)
        sheet = _checked_sheet(stored, sides)
        if stored.game.finished:
            raise WebError("the game is over: correct or delete a round instead")
        if len(stored.rounds) >= MAX_ROUNDS:
            raise WebError(f"a game holds at most {MAX_ROUNDS} rounds")
        number = len(stored.rounds) + 1
        cursor = conn.execute(
            "INSERT INTO rounds (game_id, number, input, sheet) VALUES (?, ?, ?, ?)",
            (game_id, number, json.dumps(sides), json.dumps(sheet.to_json())),
        )
        _link_photos(conn, game_id, cursor.lastrowid, photos)
        _touch(conn, game_id)
        row = conn.execute("SELECT * FROM rounds WHERE id = ?", (cursor.lastrowid,)).fetchone()
    return StoredRound(number, sides, sheet, list(photos), row["created"], row["updated"])


def replace_round(
    conn: sqlite3.Connection,
    game_id: int,
    number: int,
    sides: Any,
    photos: Sequence[str] | None = None,
) -> StoredRound:
    with transaction(conn):
        stored = load_game(conn, game_id)
        sheet = _checked_sheet(stored, sides)
        row = _round_row(conn, game_id, number)
        conn.execute(
            "UPDATE rounds SET input = ?, sheet = ?, "
            "updated = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
            (json.dumps(sides), json.dumps(sheet.to_json()), row["id"]),
        )
        if photos is not None:
            conn.execute("UPDATE photos SET round_id = NULL WHERE round_id = ?", (row["id"],))
            _link_photos(conn, game_id, row["id"], photos)
        _touch(conn, game_id)
        row = conn.execute("SELECT * FROM rounds WHERE id = ?", (row["id"],)).fetchone()
        linked = [
            r["id"] for r in conn.execute("SELECT id FROM photos WHERE round_id = ?", (row["id"],))
        ]
    return StoredRound(number, sides, sheet, linked, row["created"], row["updated"])


def delete_round(conn: sqlite3.Connection, game_id: int, number: int) -> None:
    """Delete a round; later rounds move up one number."""
    with transaction(conn):
        load_game(conn, game_id)
        row = _round_row(conn, game_id, number)
        conn.execute("DELETE FROM rounds WHERE id = ?", (row["id"],))
        later = conn.execute(
            "SELECT id, number FROM rounds WHERE game_id = ? AND number > ? ORDER BY number",
            (game_id, number),
        ).fetchall()
        for r in later:
            conn.execute("UPDATE rounds SET number = ? WHERE id = ?", (r["number"] - 1, r["id"]))
        _touch(conn, game_id)


def delete_game(conn: sqlite3.Connection, game_id: int) -> list[str]:
    """Delete a game and its rounds; returns the photo files to remove."""
    with transaction(conn):
        load_game(conn, game_id)
        files = [
            r["filename"]
            for r in conn.execute("SELECT filename FROM photos WHERE game_id = ?", (game_id,))
        ]
        conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
    return files


def _round_row(conn: sqlite3.Connection, game_id: int, number: int) -> sqlite3.Row:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM rounds WHERE game_id = ? AND number = ?", (game_id, number)
    ).fetchone()
    if row is None:
        raise NotFoundError(f"game {game_id} has no round {number}")
    return row


def _touch(conn: sqlite3.Connection, game_id: int) -> None:
    conn.execute(
        "UPDATE games SET updated = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?",
        (game_id,),
    )


def _link_photos(
    conn: sqlite3.Connection, game_id: int, round_id: int | None, photos: Sequence[str]
) -> None:
    for photo in photos:
        found = conn.execute(
            "UPDATE photos SET round_id = ? WHERE id = ? AND game_id = ?",
            (round_id, photo, game_id),
        ).rowcount
        if not found:
            raise WebError(f"no photo {photo!r} in this game")


def add_photo(
    conn: sqlite3.Connection,
    game_id: int,
    photo_id: str,
    filename: str,
    content_type: str,
    size: tuple[int, int],
    side: str | None,
    scan: dict[str, Any] | None,
) -> None:
    with transaction(conn):
        load_game(conn, game_id)
        conn.execute(
            "INSERT INTO photos (id, game_id, side, filename, content_type, width, height, scan) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                photo_id,
                game_id,
                side,
                filename,
                content_type,
                size[0],
                size[1],
                None if scan is None else json.dumps(scan),
            ),
        )


def get_photo(conn: sqlite3.Connection, game_id: int, photo_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM photos WHERE id = ? AND game_id = ?", (photo_id, game_id)
    ).fetchone()
    if row is None:
        raise NotFoundError(f"game {game_id} has no photo {photo_id!r}")
    return row


def photo_record(conn: sqlite3.Connection, game_id: int, photo_id: str) -> dict[str, Any]:
    """A kept photo as the API gives it: its size, side, round and recognition result."""
    row = get_photo(conn, game_id, photo_id)
    number = None
    if row["round_id"] is not None:
        query = "SELECT number FROM rounds WHERE id = ?"
        found = conn.execute(query, (row["round_id"],)).fetchone()
        number = None if found is None else int(found["number"])
    return {
        "id": row["id"],
        "url": f"/games/{game_id}/photos/{row['id']}",
        "width": row["width"],
        "height": row["height"],
        "side": row["side"],
        "round": number,
        "scan": None if row["scan"] is None else json.loads(row["scan"]),
        "created": row["created"],
    }
