"""The JSON API (``/api``): thin views that parse, call the store or the rules core, reply.

Errors are JSON ``{"error": message}`` with a 4xx status; a request that fails
stores nothing. State-changing calls take JSON bodies only (a plain cross-site form
cannot send them).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from scorer import MeldcamError, Rules, add_to_meld, validate_meld
from scorer.melds import as_pieces
from web import recognition, store
from web.db import get_db
from web.errors import UnsupportedMediaError, WebError
from web.photos import UnreadablePhotoError, as_kept, inspect_photo, new_photo_id, save_photo

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_PIECES = 200


@bp.errorhandler(WebError)
def _web_error(error: WebError) -> tuple[Response, int]:
    return jsonify({"error": error.message, **error.details}), error.status


@bp.errorhandler(MeldcamError)
def _rules_error(error: MeldcamError) -> tuple[Response, int]:
    return jsonify({"error": str(error)}), 400


@bp.errorhandler(HTTPException)
def _http_error(error: HTTPException) -> tuple[Response, int]:
    return jsonify({"error": error.description or error.name}), error.code or 500


def _json_body() -> dict[str, Any]:
    if not request.is_json:
        raise UnsupportedMediaError("send a JSON body (Content-Type: application/json)")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise WebError("the body must be a JSON object")
    return data


def _rules(data: dict[str, Any]) -> Rules:
    spec = data.get("rules")
    if spec is None:
        raise WebError("'rules' is required: a preset name or a rules object")
    if not isinstance(spec, str | dict):
        raise WebError("'rules' must be a preset name or a rules object")
    return Rules.from_json(spec)


def _codes(data: dict[str, Any], key: str = "pieces") -> list[str]:
    codes = data.get(key)
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise WebError(f'\'{key}\' must be a list of piece codes like "7H" or "R13"')
    if len(codes) > MAX_PIECES:
        raise WebError(f"at most {MAX_PIECES} pieces per request")
    return codes


# ------------------------------------------------------------------------ rules


@bp.post("/check")
def check() -> Response:
    data = _json_body()
    rules = _rules(data)
    ordered = data.get("ordered", False)
    if not isinstance(ordered, bool):
        raise WebError("'ordered' must be true or false")
    verdict = validate_meld(as_pieces(_codes(data), rules), rules, ordered=ordered)
    return jsonify(verdict.to_json())


@bp.post("/add")
def add() -> Response:
    """Can this piece be added to this meld, and what does the meld become?"""
    data = _json_body()
    rules = _rules(data)
    piece = data.get("piece")
    if not isinstance(piece, str):
        raise WebError("'piece' must be a piece code")
    result = add_to_meld(
        _codes(data, "meld"), piece, rules, ordered=bool(data.get("ordered", True))
    )
    return jsonify(result.to_json())


@bp.post("/score")
def score() -> Response:
    """A round's sheet and each meld's verdict, stored nowhere (the page's live score)."""
    data = _json_body()
    rules = _rules(data)
    sheet = store.score_sides(rules, data.get("sides"))
    verdicts = [
        [validate_meld(m, rules).to_json() for m in side.get("melds", [])]
        for side in data["sides"]
        if isinstance(side, dict)
    ]
    return jsonify({**sheet.to_json(), "verdicts": verdicts})


@bp.get("/openapi.json")
def openapi() -> Response:
    from web.openapi import spec

    return jsonify(spec())


@bp.get("/rules")
def rules_presets() -> Response:
    from scorer import PRESETS

    return jsonify({name: r.to_json() for name, r in PRESETS.items()})


# ------------------------------------------------------------------------- scan


def _upload() -> tuple[bytes, str, Rules | None]:
    photo = request.files.get("photo")
    if photo is None:
        raise WebError("send the photo as multipart form field 'photo'")
    data = photo.read()
    kind = request.form.get("kind", "auto")
    if kind not in ("auto", "cards", "tiles"):
        raise WebError("'kind' must be auto, cards or tiles")
    spec = request.form.get("rules")
    rules = None
    if spec:
        try:
            parsed = json.loads(spec) if spec.strip().startswith("{") else spec
        except json.JSONDecodeError as error:
            raise WebError(f"'rules' is not valid JSON ({error.msg} at {error.pos})") from None
        rules = Rules.from_json(parsed)
    return as_kept(data), kind, rules


@bp.post("/scan")
def scan() -> Response:
    data, kind, rules = _upload()
    inspect_photo(data, decode=False)  # the scanner's own decode refuses a damaged photo
    return jsonify(recognition.scan(data, kind, rules))


# ------------------------------------------------------------------------ games


@bp.get("/games")
def games() -> Response:
    return jsonify({"games": store.list_games(get_db())})


@bp.post("/games")
def create_game() -> tuple[Response, int]:
    data = _json_body()
    rules = _rules(data)
    target = data.get("target")
    if target is not None:
        if isinstance(target, bool) or not isinstance(target, int):
            raise WebError("'target' must be a whole number")
        rules = rules.replace(target=target)
    sides = data.get("sides")
    if not isinstance(sides, list) or not all(isinstance(s, str) for s in sides):
        raise WebError("'sides' must be a list of names")
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise WebError("'name' must be text")
    players = data.get("players")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
        raise WebError("'players' must be a whole number")
    game_id = store.create_game(get_db(), rules, sides, name, players)
    return jsonify({"id": game_id}), 201


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> Response:
    return jsonify(store.load_game(get_db(), game_id).to_json())


@bp.delete("/games/<int:game_id>")
def delete_game(game_id: int) -> Response:
    files = store.delete_game(get_db(), game_id)
    folder = current_app.config["PHOTOS"]
    for name in files:
        (folder / name).unlink(missing_ok=True)
    return jsonify({"deleted": game_id})


def _round_body() -> tuple[Any, list[str] | None]:
    data = _json_body()
    if "sides" not in data:
        raise WebError("'sides' is required: the sides of a `meldcam score` round")
    photos = data.get("photos")
    if photos is not None and (
        not isinstance(photos, list) or not all(isinstance(p, str) for p in photos)
    ):
        raise WebError("'photos' must be a list of photo ids")
    return data["sides"], photos


@bp.post("/games/<int:game_id>/rounds")
def add_round(game_id: int) -> tuple[Response, int]:
    sides, photos = _round_body()
    stored = store.add_round(get_db(), game_id, sides, photos or ())
    return jsonify(stored.to_json()), 201


@bp.put("/games/<int:game_id>/rounds/<int:number>")
def replace_round(game_id: int, number: int) -> Response:
    sides, photos = _round_body()
    return jsonify(store.replace_round(get_db(), game_id, number, sides, photos).to_json())


@bp.delete("/games/<int:game_id>/rounds/<int:number>")
def delete_round(game_id: int, number: int) -> Response:
    store.delete_round(get_db(), game_id, number)
    return jsonify(store.load_game(get_db(), game_id).to_json())


@bp.post("/games/<int:game_id>/photos")
def add_photo(game_id: int) -> tuple[Response, int]:
    """Keep a photo with the game, and recognise it when the model is there."""
    data, kind, _ = _upload()
    recognise = recognition.available(current_app)
    # with the model here the scanner's decode is the full check (one decode, not two)
    info = inspect_photo(data, decode=not recognise)
    stored = store.load_game(get_db(), game_id)
    side = request.form.get("side")
    if side is not None and side not in stored.game.sides:
        raise WebError(f"unknown side {side!r}")
    result = None
    error = None
    if recognise:
        try:
            result = recognition.scan(data, kind, stored.rules)
        except UnreadablePhotoError:
            raise  # a damaged photo is refused and not kept
        except WebError as failure:  # busy: the photo is kept, the scan can be retried
            inspect_photo(data)  # then nothing decoded it yet: check every pixel before keeping
            error = failure.message
    photo_id = new_photo_id()
    filename = save_photo(current_app.config["PHOTOS"], photo_id, info, data)
    try:
        store.add_photo(
            get_db(),
            game_id,
            photo_id,
            filename,
            info.content_type,
            (info.width, info.height),
            side,
            result,
        )
    except Exception:
        (current_app.config["PHOTOS"] / filename).unlink(missing_ok=True)
        raise
    body = {
        "id": photo_id,
        "url": f"/games/{game_id}/photos/{photo_id}",
        "width": info.width,
        "height": info.height,
        "scan": result,
        "scan_error": error,
    }
    return jsonify(body), 201


@bp.get("/games/<int:game_id>/photos/<photo_id>")
def photo(game_id: int, photo_id: str) -> Response:
    """A kept photo's record with the recognition result it got (to re-open and audit)."""
    return jsonify(store.photo_record(get_db(), game_id, photo_id))


# ----------------------------------------------------------------------- export


@bp.get("/games/<int:game_id>/export.json")
def export_json(game_id: int) -> Response:
    data = store.load_game(get_db(), game_id).to_json()
    response = jsonify(data)
    response.headers["Content-Disposition"] = f'attachment; filename="meldcam-game-{game_id}.json"'
    return response


@bp.get("/games/<int:game_id>/export.csv")
def export_csv(game_id: int) -> Response:
    stored = store.load_game(get_db(), game_id)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["round", "side", "reason", "points", "pieces", "round total", "running total"])
    running = dict.fromkeys(stored.game.sides, 0)
    for r in stored.rounds:
        for side in r.sheet.sides:
            running[side.name] += 0 if r.sheet.void else side.total
            for line in side.lines:
                writer.writerow(
                    [
                        r.number,
                        side.name,
                        line.reason.value,
                        line.points,
                        " ".join(map(str, line.pieces)),
                        side.total,
                        running[side.name],
                    ]
                )
    response = Response(out.getvalue(), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="meldcam-game-{game_id}.csv"'
    return response
