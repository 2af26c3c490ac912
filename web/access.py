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
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from flask import (
    Flask,
    Request,
    abort,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.security import check_password_hash, generate_password_hash
from werkzeug.wrappers import Response

OPEN_POSTS = frozenset({"api.check", "api.add", "api.score", "api.scan", "pages.login"})
"""POST endpoints that store nothing: usable without the code."""

MIN_LENGTH = 4
MAX_WRONG = 5
"""Wrong codes one client may try per ``WRONG_WINDOW_S`` before it must wait."""
WRONG_WINDOW_S = 300.0


@dataclass
class WrongCodes:
    """Wrong access codes per client address, to stop guessing: after ``limit`` wrong tries in
    ``window`` seconds a client is refused (even with the right code) until the oldest try
    leaves the window. Other clients are not affected. Kept in memory (one server process)."""

    limit: int = MAX_WRONG
    window: float = WRONG_WINDOW_S
    clock: Callable[[], float] = time.monotonic
    _tries: dict[str, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _recent(self, client: str) -> deque[float]:
        tries = self._tries.setdefault(client, deque())
        now = self.clock()
        while tries and now - tries[0] >= self.window:
            tries.popleft()
        return tries

    def wait(self, client: str) -> float:
        """Seconds ``client`` must wait before its next try (0: it may try now)."""
        with self._lock:
            tries = self._recent(client)
            if len(tries) < self.limit:
                return 0.0
            return max(1.0, self.window - (self.clock() - tries[0]))

    def wrong(self, client: str) -> None:
        with self._lock:
            self._recent(client).append(self.clock())

    def forget(self, client: str) -> None:
        with self._lock:
            self._tries.pop(client, None)


WRONG_CODES = "meldcam.wrong_codes"


def wrong_codes(app: Flask) -> WrongCodes:
    """The app's tracker of wrong codes (made by :func:`init_app`)."""
    tracker: WrongCodes = app.extensions[WRONG_CODES]
    return tracker


def client_address(req: Request) -> str:
    return req.remote_addr or "unknown"


def too_many_wrong(app: Flask, req: Request) -> tuple[Response, int] | None:
    """A 429 for a client that has guessed too many wrong codes lately, else None."""
    wait = wrong_codes(app).wait(client_address(req))
    if not wait:
        return None
    seconds = round(wait)
    if req.path.startswith("/api/"):
        message = f"too many wrong access codes from this device: try again in {seconds} s"
        response: Response = jsonify({"error": message})
    else:
        page = render_template("login.html", csrf=csrf_token(), next="/", wrong=True, wait=seconds)
        response = Response(page, mimetype="text/html")
    response.headers["Retry-After"] = str(seconds)
    return response, 429


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
        if code.accepts(bearer):
            return True
        wrong_codes(current_app).wrong(client_address(request))
        return False
    return session.get("access") == code.hash


def init_app(app: Flask) -> None:
    app.extensions[WRONG_CODES] = WrongCodes()

    @app.before_request
    def _guard() -> Response | tuple[Response, int] | None:
        if request.endpoint in (None, "static"):
            return None
        changing = request.method not in ("GET", "HEAD", "OPTIONS")
        if changing and not _same_origin(request):
            return jsonify({"error": "refused: the request comes from another site"}), 403
        code = load(Path(app.instance_path))
        if code is None:
            return None
        guessing = request.endpoint == "pages.login" and request.method == "POST"
        if guessing or _bearer(request) is not None:
            refused = too_many_wrong(app, request)
            if refused is not None:
                return refused
        if request.endpoint in ("pages.login", "pages.logout"):
            return None
        needed = (changing and request.endpoint not in OPEN_POSTS) or not code.read_open
        if not needed or authorised(code):
            return None
        if request.path.startswith("/api/"):
            return jsonify(
                {"error": "this household's access code is needed to change scores"}
            ), 401
        return redirect(url_for("pages.login", next=request.full_path))
