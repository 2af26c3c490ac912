"""The household access code: off until the owner sets one.

Once set (``meldcam serve --access-code``, or the settings page), it is kept hashed
in the instance folder and every change needs it: a session cookie after entering it
once on the login page, or ``Authorization: Bearer <code>`` for the API. Reading the
scores stays open unless the owner closes it. The login form carries a CSRF token;
state-changing calls from another origin are refused.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from flask import Flask, Request, abort, jsonify, redirect, request, session, url_for
from werkzeug.security import check_password_hash, generate_password_hash
from werkzeug.wrappers import Response

OPEN_POSTS = frozenset({"api.check", "api.add", "api.score", "api.scan", "pages.login"})
"""POST endpoints that store nothing: usable without the code."""

MIN_LENGTH = 4


@dataclass(frozen=True, slots=True)
class AccessCode:
    hash: str
    read_open: bool = True

    def accepts(self, code: str) -> bool:
        return check_password_hash(self.hash, code)


def _path(instance: Path) -> Path:
    return Path(instance) / "access.json"


def load(instance: Path) -> AccessCode | None:
    path = _path(instance)
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return AccessCode(data["hash"], bool(data.get("read_open", True)))


def save(instance: Path, code: str | None, read_open: bool = True) -> None:
    """Set (or, with None, clear) the access code."""
    path = _path(instance)
    if code is None:
        path.unlink(missing_ok=True)
        return
    if len(code) < MIN_LENGTH:
        raise ValueError(f"an access code needs at least {MIN_LENGTH} characters")
    _write_private(path, {"hash": generate_password_hash(code), "read_open": read_open})


def save_read_open(instance: Path, read_open: bool) -> None:
    """Open or close reading without changing the code."""
    path = _path(instance)
    data = json.loads(path.read_text())
    data["read_open"] = read_open
    _write_private(path, data)


def _write_private(path: Path, data: dict[str, object]) -> None:
    """Replace ``path`` atomically with JSON readable by the owner only."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(data, out)
    tmp.replace(path)


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    token: str = session["csrf"]
    return token


def check_csrf(form_token: str | None) -> None:
    expected = session.get("csrf")
    if not expected or not form_token or not hmac.compare_digest(expected, form_token):
        abort(400, "the form has expired: reload the page and try again")


def _same_origin(req: Request) -> bool:
    origin = req.headers.get("Origin")
    if origin is None:  # not sent by browsers for same-origin GETs, nor by scripts
        return True
    return origin != "null" and urlsplit(origin).netloc == req.host


def _bearer(req: Request) -> str | None:
    header = req.headers.get("Authorization", "")
    return header[7:] if header.startswith("Bearer ") else None


def authorised(code: AccessCode) -> bool:
    bearer = _bearer(request)
    if bearer is not None:
        return code.accepts(bearer)
    return session.get("access") == code.hash


def init_app(app: Flask) -> None:
    @app.before_request
    def _guard() -> Response | tuple[Response, int] | None:
        if request.endpoint in (None, "static"):
            return None
        changing = request.method not in ("GET", "HEAD", "OPTIONS")
        if changing and not _same_origin(request):
            return jsonify({"error": "refused: the request comes from another site"}), 403
        code = load(Path(app.instance_path))
        if code is None or request.endpoint in ("pages.login", "pages.logout"):
            return None
        needed = (changing and request.endpoint not in OPEN_POSTS) or not code.read_open
        if not needed or authorised(code):
            return None
        if request.path.startswith("/api/"):
            return jsonify(
                {"error": "this household's access code is needed to change scores"}
            ), 401
        return redirect(url_for("pages.login", next=request.full_path))
