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


def _finished_game(client: FlaskClient, rules: dict[str, object], bo_hand: list[str]) -> str:
    game = client.post("/api/games", json={"rules": rules, "sides": ["Ada", "Bo"]}).json["id"]
    run = ["7H", "8H", "9H", "10H", "JH", "QH", "KH"]
    sides = [
        {"name": "Ada", "melds": [run], "took_pot": True, "closed": True},
        {"name": "Bo", "melds": [run], "hand": bo_hand, "took_pot": True},
    ]
    assert client.post(f"/api/games/{game}/rounds", json={"sides": sides}).status_code == 201
    return client.get(f"/games/{game}?lang=en").get_data(as_text=True)


def test_a_finished_game_shows_its_winner_and_victory_points(client: FlaskClient) -> None:
    from scorer.game import victory_points

    page = _finished_game(
        client, {"preset": "burraco-fibur", "target": 300, "victory_points": True}, ["KD"]
    )
    # Ada: 70 + 200 pure + 100 closing = 370; Bo: 270 - 10 (KD) = 260
    assert 'id="result"' in page and "<b>Ada</b>" in page
    high, low = victory_points(370 - 260)
    assert f"Ada {high} Bo {low}" in page


def test_a_game_that_ends_level_is_a_draw(client: FlaskClient) -> None:
    # no closing bonus, nothing in Bo's hand: both sides 270 when the one round played ends it
    page = _finished_game(
        client, {"preset": "burraco-fibur", "target": None, "rounds": 1, "closing_bonus": 0}, []
    )
    assert 'id="result"' in page and i18n.text("game.draw", "en") in page


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
