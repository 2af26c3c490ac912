"""The Flask application factory (flaskr's pattern, see ../shared/STYLE.md).

Configuration is layered: defaults, then ``instance/config.py``, then ``MELDCAM_*``
environment variables (``MELDCAM_MAX_CONTENT_LENGTH=...``), or ``test_config``.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask, Response, g, jsonify, request
from flask.sessions import SecureCookieSessionInterface
from werkzeug.exceptions import HTTPException

from web import db, i18n


class SessionCookies(SecureCookieSessionInterface):
    """The session cookie is ``Secure`` whenever the page came over HTTPS (a TLS proxy in
    front, with ``MELDCAM_TRUSTED_PROXY``), or always with ``SESSION_COOKIE_SECURE``; over the
    plain HTTP of a home network a Secure cookie would never come back, so it is not set."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"] or request.is_secure)


REPO = Path(__file__).resolve().parent.parent


def default_instance() -> Path:
    return Path(os.environ.get("MELDCAM_INSTANCE", REPO / "instance")).resolve()


def create_app(test_config: dict[str, Any] | None = None, instance: Path | None = None) -> Flask:
    instance_path = Path(
        (test_config or {}).get("INSTANCE", instance or default_instance())
    ).resolve()
    instance_path.mkdir(parents=True, exist_ok=True)
    app = Flask(__name__, instance_path=str(instance_path), instance_relative_config=True)
    app.config.from_mapping(
        DATABASE=str(instance_path / "meldcam.sqlite"),
        PHOTOS=instance_path / "photos",
        MODELS_DIR=str(REPO / "models"),
        MAX_CONTENT_LENGTH=25 * 1024 * 1024,
        SCAN_WORKERS=1,
        SCAN_WAIT_S=20,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        app.config.from_prefixed_env("MELDCAM")
    else:
        app.config.from_mapping(test_config)
    app.config["PHOTOS"] = Path(app.config["PHOTOS"])
    app.config["SECRET_KEY"] = app.config.get("SECRET_KEY") or _secret_key(instance_path)
    app.session_interface = SessionCookies()
    if app.config.get("TRUSTED_PROXY"):  # X-Forwarded-Proto from one proxy says https
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_proto=1, x_host=1)  # type: ignore[method-assign]

    db.init_app(app)
    from web import access, api, pages

    access.init_app(app)

    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)

    @app.before_request
    def _language() -> None:
        g.lang = i18n.choose(request)

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; "
            "script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
        )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        asked = request.args.get("lang")
        if asked in i18n.LANGUAGES:
            response.set_cookie("lang", asked, max_age=3600 * 24 * 365, samesite="Lax")
        return response

    @app.errorhandler(404)
    @app.errorhandler(405)
    def _not_routed(error: HTTPException) -> Any:
        # no blueprint sees a URL or method that matches no route: the API still answers JSON
        if request.path.startswith("/api/"):
            return jsonify({"error": f"{error.name}: {request.method} {request.path}"}), error.code
        return error

    @app.errorhandler(413)
    def _too_large(_error: Exception) -> tuple[Response, int]:
        limit = app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
        return jsonify({"error": f"the upload is larger than {limit} MB"}), 413

    return app


def _secret_key(instance_path: Path) -> str:
    """The instance's own secret key, generated once (never a default)."""
    path = instance_path / "secret_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))
    return path.read_text().strip()
