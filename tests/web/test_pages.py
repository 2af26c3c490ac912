"""Server-rendered pages: each renders, in each language, right to left in Hebrew."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from web import i18n


def make_game(client: FlaskClient) -> int:
    game = int(
        client.post("/api/games", json={"rules": "burraco-fibur", "sides": ["Ada", "Bo"]}).json[
            "id"
        ]
    )
    sides = [
        {
            "name": "Ada",
            "melds": [["7H", "8H", "9H", "10H", "JH", "QH", "KH"]],
            "took_pot": True,
            "closed": True,
        },
        {"name": "Bo", "hand": ["KD"], "took_pot": True},
    ]
    assert client.post(f"/api/games/{game}/rounds", json={"sides": sides}).status_code == 201
    return game


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/games/new",
        "/check",
        "/games/{game}",
        "/games/{game}/rounds/new",
        "/games/{game}/rounds/1/edit",
    ],
)
def test_pages_render(client: FlaskClient, path: str) -> None:
    game = make_game(client)
    response = client.get(path.format(game=game))
    assert response.status_code == 200
    assert b'<script src="/static/app.js">' in response.data


def test_game_page_shows_totals_and_breakdown(client: FlaskClient) -> None:
    game = make_game(client)
    page = client.get(f"/games/{game}").get_data(as_text=True)
    assert 'data-side="Ada">365<' in page and 'data-side="Bo">-10<' in page
    assert "pure burraco" in page and "+200" in page


@pytest.mark.parametrize(
    "path", ["/games/999", "/games/999/rounds/new", "/games/{game}/rounds/9/edit"]
)
def test_missing_pages_are_404(client: FlaskClient, path: str) -> None:
    game = make_game(client)
    assert client.get(path.format(game=game)).status_code == 404


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_every_language_renders(client: FlaskClient, lang: str) -> None:
    response = client.get(f"/?lang={lang}")
    page = response.get_data(as_text=True)
    assert f'lang="{lang}"' in page
    assert f'dir="{"rtl" if lang == "he" else "ltr"}"' in page
    assert i18n.text("games.new", lang) in page
    assert f"lang={lang}" in response.headers["Set-Cookie"]


def test_language_follows_the_browser_then_the_cookie(client: FlaskClient) -> None:
    page = client.get("/", headers={"Accept-Language": "it-IT,it;q=0.9,en;q=0.5"}).get_data(
        as_text=True
    )
    assert "Nuova partita" in page
    client.get("/?lang=hr")
    assert "Nova igra" in client.get("/", headers={"Accept-Language": "it"}).get_data(as_text=True)


def test_every_text_is_translated() -> None:
    for key in i18n.catalogue("en"):
        texts = [i18n.text(key, lang) for lang in i18n.LANGUAGES]
        assert all(texts), key


def test_qr_code(client: FlaskClient) -> None:
    response = client.get("/qr.svg")
    assert (
        response.status_code == 200
        and response.mimetype == "image/svg+xml"
        and b"<svg" in response.data
    )
