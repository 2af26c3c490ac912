"""The phone pages (``pages`` blueprint): server-rendered, with small vanilla JavaScript."""

from __future__ import annotations

import enum
import io
import types
import typing
from pathlib import Path
from typing import Any

import segno
from flask import (
    Blueprint,
    abort,
    current_app,
    g,
    redirect,
    render_template,
    request,
    send_file,
    session,
)
from werkzeug.wrappers import Response

from scorer import PRESETS, Rules
from scorer.rules import OPTION_NAMES
from web import access, i18n, store
from web.db import get_db
from web.errors import NotFoundError

bp = Blueprint("pages", __name__)


@bp.app_context_processor
def _context() -> dict[str, Any]:
    lang = g.get("lang", i18n.DEFAULT)
    return {
        "t": lambda key: i18n.text(key, lang),
        "lang": lang,
        "rtl": lang in i18n.RTL,
        "languages": i18n.LANGUAGES,
        "catalogue": i18n.catalogue(lang),
    }


def _game(game_id: int) -> store.StoredGame:
    try:
        return store.load_game(get_db(), game_id)
    except NotFoundError:
        abort(404)


@bp.get("/")
def index() -> str:
    return render_template("index.html", games=store.list_games(get_db()))


@bp.get("/games/new")
def new_game() -> str:
    presets = {name: rules.to_json() for name, rules in PRESETS.items()}
    return render_template(
        "new_game.html", presets=presets, options=OPTION_NAMES, choices=option_choices()
    )


def option_choices() -> dict[str, list[str | None]]:
    """The options that take one of a few values (an enum, maybe None), with those values."""
    out: dict[str, list[str | None]] = {}
    for key, hint in typing.get_type_hints(Rules).items():
        if key not in OPTION_NAMES:
            continue
        args = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
        enums = [a for a in args if isinstance(a, type) and issubclass(a, enum.Enum)]
        if len(enums) == 1:
            values: list[str | None] = [str(v.value) for v in enums[0]]
            out[key] = [*values, None] if type(None) in args else values
    return out


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> str:
    stored = _game(game_id)
    return render_template("game.html", stored=stored, data=stored.to_json())


@bp.get("/games/<int:game_id>/rounds/new")
def new_round(game_id: int) -> str:
    stored = _game(game_id)
    return render_template("round.html", stored=stored, data=stored.to_json(), number=None)


@bp.get("/games/<int:game_id>/rounds/<int:number>/edit")
def edit_round(game_id: int, number: int) -> str:
    stored = _game(game_id)
    if not 1 <= number <= len(stored.rounds):
        abort(404)
    return render_template("round.html", stored=stored, data=stored.to_json(), number=number)


@bp.get("/games/<int:game_id>/photos/<photo_id>")
def photo(game_id: int, photo_id: str) -> Response:
    try:
        row = store.get_photo(get_db(), game_id, photo_id)
    except NotFoundError:
        abort(404)
    path = current_app.config["PHOTOS"] / row["filename"]
    if not path.is_file():
        abort(404)
    return send_file(path, mimetype=row["content_type"], max_age=3600)


@bp.get("/check")
def check() -> str:
    presets = {name: rules.to_json() for name, rules in PRESETS.items()}
    return render_template("check.html", presets=presets)


@bp.get("/qr.svg")
def qr() -> Response:
    """A QR code of this page's address, for the next phone at the table."""
    out = io.BytesIO()
    segno.make(request.host_url, error="m").save(out, kind="svg", scale=6, border=2)
    return Response(out.getvalue(), mimetype="image/svg+xml")


def _safe_next(target: str | None) -> str:
    """Only a path on this site (never //host or a scheme)."""
    if not target or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


@bp.route("/login", methods=["GET", "POST"])
def login() -> str | Response:
    code = access.load(Path(current_app.instance_path))
    target = _safe_next(request.values.get("next"))
    if code is None:
        return redirect(target)
    wrong = False
    if request.method == "POST":
        access.check_csrf(request.form.get("csrf"))
        if code.accepts(request.form.get("code", "")):
            access.wrong_codes(current_app).forget(access.client_address(request))
            session.clear()
            session["access"] = code.hash
            session.permanent = True
            return redirect(target)
        access.wrong_codes(current_app).wrong(access.client_address(request))
        wrong = True
    return render_template("login.html", csrf=access.csrf_token(), next=target, wrong=wrong)


@bp.get("/logout")
def logout() -> Response:
    session.clear()
    return redirect("/")


@bp.route("/settings", methods=["GET", "POST"])
def settings() -> str | Response:
    instance = Path(current_app.instance_path)
    code = access.load(instance)
    if code is not None and not access.authorised(code):
        return redirect("/login?next=/settings")
    saved, error = False, None
    if request.method == "POST":
        access.check_csrf(request.form.get("csrf"))
        read_open = request.form.get("read_open") == "1"
        if request.form.get("action") == "clear":
            access.save(instance, None)
            session.pop("access", None)
            saved = True
        else:
            new = request.form.get("code", "")
            try:
                if new:
                    access.save(instance, new, read_open)
                elif code is not None:
                    access.save_read_open(instance, read_open)
                saved = True
            except ValueError as failure:
                error = str(failure)
            code = access.load(instance)
            if code is not None:
                session["access"] = code.hash
    code = access.load(instance)
    return render_template(
        "settings.html",
        csrf=access.csrf_token(),
        protected=code is not None,
        read_open=code.read_open if code else True,
        saved=saved,
        error=error,
    )
