"""The household access code, CSRF on forms, and cross-site refusals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from web import access

GAME = {"rules": "burraco-fibur", "sides": ["Ada", "Bo"]}


@pytest.fixture
def protected(app: Flask) -> Flask:
    access.save(Path(app.instance_path), "tavolo-7", read_open=True)
    return app


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found
    return found.group(1)


def test_off_until_the_owner_sets_one(client: FlaskClient) -> None:
    assert client.post("/api/games", json=GAME).status_code == 201


def test_code_is_stored_hashed(protected: Flask) -> None:
    stored = (Path(protected.instance_path) / "access.json").read_text()
    assert "tavolo-7" not in stored and "hash" in stored
    assert (Path(protected.instance_path) / "access.json").stat().st_mode & 0o077 == 0


def test_changes_need_the_code_reading_stays_open(protected: Flask, client: FlaskClient) -> None:
    response = client.post("/api/games", json=GAME)
    assert response.status_code == 401 and "access code" in response.json["error"]
    assert client.get("/api/games").status_code == 200
    assert client.get("/").status_code == 200
    # Computations that store nothing stay open.
    assert (
        client.post(
            "/api/check", json={"rules": "burraco-fibur", "pieces": ["7H", "8H", "JK"]}
        ).status_code
        == 200
    )


def test_bearer_header_for_the_api(protected: Flask, client: FlaskClient) -> None:
    ok = client.post("/api/games", json=GAME, headers={"Authorization": "Bearer tavolo-7"})
    assert ok.status_code == 201
    bad = client.post("/api/games", json=GAME, headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401


def test_login_sets_a_session_and_checks_csrf(protected: Flask, client: FlaskClient) -> None:
    page = client.get("/login?next=/games/new").get_data(as_text=True)
    token = csrf_of(page)
    no_token = client.post("/login", data={"code": "tavolo-7"})
    assert no_token.status_code == 400
    wrong = client.post("/login", data={"code": "nope", "csrf": token})
    assert wrong.status_code == 200 and "Wrong code" in wrong.get_data(as_text=True)
    right = client.post("/login", data={"code": "tavolo-7", "csrf": token, "next": "/games/new"})
    assert right.status_code == 302 and right.headers["Location"] == "/games/new"
    assert client.post("/api/games", json=GAME).status_code == 201


def test_login_never_redirects_off_site(protected: Flask, client: FlaskClient) -> None:
    token = csrf_of(client.get("/login").get_data(as_text=True))
    response = client.post(
        "/login", data={"code": "tavolo-7", "csrf": token, "next": "//evil.example/x"}
    )
    assert response.headers["Location"] == "/"


def test_closed_reading(app: Flask, client: FlaskClient) -> None:
    access.save(Path(app.instance_path), "tavolo-7", read_open=False)
    assert client.get("/api/games").status_code == 401
    assert client.get("/").status_code == 302


def test_cross_site_changes_are_refused(client: FlaskClient) -> None:
    response = client.post("/api/games", json=GAME, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403
    same = client.post("/api/games", json=GAME, headers={"Origin": "http://localhost"})
    assert same.status_code == 201


def test_settings_page_sets_and_clears_the_code(app: Flask, client: FlaskClient) -> None:
    token = csrf_of(client.get("/settings").get_data(as_text=True))
    client.post(
        "/settings", data={"csrf": token, "code": "casa-42", "read_open": "1", "action": "set"}
    )
    assert access.load(Path(app.instance_path)) is not None
    assert client.post("/api/games", json=GAME).status_code == 201  # this browser is logged in
    other = app.test_client()
    assert other.post("/api/games", json=GAME).status_code == 401
    assert other.get("/settings").status_code == 302  # only with the code
    client.post("/settings", data={"csrf": token, "action": "clear"})
    assert access.load(Path(app.instance_path)) is None


def test_settings_form_needs_csrf(app: Flask, client: FlaskClient) -> None:
    assert client.post("/settings", data={"code": "casa-42", "action": "set"}).status_code == 400
    assert access.load(Path(app.instance_path)) is None


def test_too_short_code_is_refused(app: Flask) -> None:
    with pytest.raises(ValueError, match="at least 4"):
        access.save(Path(app.instance_path), "123")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_guessing_the_code_is_stopped_per_device(protected: Flask) -> None:
    clock = FakeClock()
    protected.extensions[access.WRONG_CODES] = access.WrongCodes(clock=clock)
    guesser = protected.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "10.0.0.5"
    token = csrf_of(guesser.get("/login").get_data(as_text=True))
    for guess in range(access.MAX_WRONG):
        wrong = guesser.post("/login", data={"code": f"guess-{guess}", "csrf": token})
        assert wrong.status_code == 200 and "Wrong code" in wrong.get_data(as_text=True)
    # now even the right code is refused from that device, with how long to wait
    stopped = guesser.post("/login", data={"code": "tavolo-7", "csrf": token})
    assert stopped.status_code == 429
    assert "try again in 300 s" in stopped.get_data(as_text=True)
    assert stopped.headers["Retry-After"] == "300"
    assert guesser.post("/api/games", json=GAME).status_code == 401
    # another phone of the household is not affected
    other = protected.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.6"
    other_token = csrf_of(other.get("/login").get_data(as_text=True))
    assert other.post("/login", data={"code": "tavolo-7", "csrf": other_token}).status_code == 302
    # once the oldest wrong try is out of the window, the device may try again
    clock.now += access.WRONG_WINDOW_S
    right = guesser.post("/login", data={"code": "tavolo-7", "csrf": token})
    assert right.status_code == 302
    assert guesser.post("/api/games", json=GAME).status_code == 201


def test_guessing_by_bearer_header_is_stopped_too(protected: Flask, client: FlaskClient) -> None:
    protected.extensions[access.WRONG_CODES] = access.WrongCodes(clock=FakeClock())
    for guess in range(access.MAX_WRONG):
        bad = client.post("/api/games", json=GAME, headers={"Authorization": f"Bearer g{guess}"})
        assert bad.status_code == 401
    stopped = client.post("/api/games", json=GAME, headers={"Authorization": "Bearer tavolo-7"})
    assert stopped.status_code == 429
    assert "too many wrong access codes" in stopped.json["error"]
    assert int(stopped.headers["Retry-After"]) > 0
    assert client.get("/api/games").json == {"games": []}  # nothing was stored


def _session_cookie(response: object) -> str:
    cookies = [c for c in response.headers.getlist("Set-Cookie") if c.startswith("session=")]  # type: ignore[attr-defined]
    assert cookies
    return cookies[0]


def test_session_cookie_is_secure_over_https_and_strict_always(protected: Flask) -> None:
    for base, secure in (("http://meldcam.local", False), ("https://meldcam.local", True)):
        client = protected.test_client()
        page = client.get("/login", base_url=base).get_data(as_text=True)
        response = client.post(
            "/login", data={"code": "tavolo-7", "csrf": csrf_of(page)}, base_url=base
        )
        assert response.status_code == 302
        cookie = _session_cookie(response)
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert ("Secure" in cookie) is secure


def test_behind_a_trusted_tls_proxy_the_cookie_is_secure(tmp_path: Path) -> None:
    from web.app import create_app

    app = create_app({"TESTING": True, "INSTANCE": tmp_path, "TRUSTED_PROXY": True})
    access.save(Path(app.instance_path), "tavolo-7")
    client = app.test_client()
    https = {"X-Forwarded-Proto": "https"}
    page = client.get("/login", headers=https).get_data(as_text=True)
    response = client.post(
        "/login", data={"code": "tavolo-7", "csrf": csrf_of(page)}, headers=https
    )
    assert "Secure" in _session_cookie(response)
