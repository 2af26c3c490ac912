"""The JSON API with Flask's test client: every route, every error, nothing stored on failure."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from photo_files import heic
from PIL import Image

from web.cli import main as cli_main

REAL_TILES = (
    Path(__file__).resolve().parents[3]
    / "shared/realdata/rummikub-tiles/images/rummy-16_jpeg.rf.6bdaf799147636e1bcce30f01cf63c4a.jpg"
)


def big_jpeg() -> bytes:
    """The real tile photo scaled to 2400x2400: the scanner decodes it at a reduced JPEG scale."""
    out = io.BytesIO()
    Image.open(REAL_TILES).convert("RGB").resize((2400, 2400)).save(out, "JPEG", quality=90)
    return out.getvalue()


PURE_RUN = ["7H", "8H", "9H", "10H", "JH", "QH", "KH"]


def new_game(client: FlaskClient, **body: Any) -> int:
    body = {"rules": "burraco-fibur", "sides": ["Ada", "Bo"], **body}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.json
    return int(response.json["id"])


def round_sides(
    ada_melds: list[list[str]] | None = None, closed: bool = True
) -> list[dict[str, Any]]:
    return [
        {
            "name": "Ada",
            "melds": ada_melds or [PURE_RUN],
            "hand": [],
            "took_pot": True,
            "closed": closed,
        },
        {"name": "Bo", "melds": [["5S", "5D", "5C"]], "hand": ["KD", "JK"], "took_pot": False},
    ]


def stored_rows(app: Flask) -> tuple[int, int]:
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        games = conn.execute("SELECT count(*) FROM games").fetchone()[0]
        rounds = conn.execute("SELECT count(*) FROM rounds").fetchone()[0]
    finally:
        conn.close()
    return games, rounds


def test_check_returns_the_cli_verdict(
    client: FlaskClient, capsys: pytest.CaptureFixture[str]
) -> None:
    response = client.post(
        "/api/check", json={"rules": "burraco-fibur", "pieces": ["JK", "7H", "8H"]}
    )
    assert response.status_code == 200
    cli_main(["check", "--rules", "burraco-fibur", "--json", "JK", "7H", "8H"])
    assert response.json == json.loads(capsys.readouterr().out)


def test_check_accepts_a_rules_object_and_order(client: FlaskClient) -> None:
    body = {
        "rules": {"preset": "burraco-000"},
        "pieces": ["2H", "4H", "5H", "6H", "2H"],
        "ordered": True,
    }
    assert client.post("/api/check", json=body).json["valid"] is False
    body["ordered"] = False
    assert client.post("/api/check", json=body).json["valid"] is True


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"rules": "burraco-fibur", "pieces": ["7X"]}, 400, "'7X' is not a piece"),
        ({"rules": "canasta", "pieces": ["7H"]}, 400, "unknown rules preset 'canasta'"),
        ({"pieces": ["7H"]}, 400, "'rules' is required"),
        ({"rules": "burraco-fibur", "pieces": "7H 8H"}, 400, "'pieces' must be a list"),
        ({"rules": "burraco-fibur", "pieces": ["7H"] * 201}, 400, "at most 200 pieces"),
        ({"rules": "burraco-fibur", "pieces": ["7H"], "ordered": "yes"}, 400, "'ordered' must be"),
        (
            {"rules": {"preset": "burraco-fibur", "jokers": 99}, "pieces": ["7H"]},
            400,
            "jokers must be 0-8",
        ),
    ],
)
def test_check_errors(client: FlaskClient, body: dict[str, Any], status: int, message: str) -> None:
    response = client.post("/api/check", json=body)
    assert response.status_code == status and message in response.json["error"]


def test_state_changing_calls_take_json_only(client: FlaskClient, app: Flask) -> None:
    response = client.post("/api/games", data={"rules": "burraco-fibur", "sides": "Ada"})
    assert response.status_code == 415 and "JSON" in response.json["error"]
    assert client.post("/api/games", data="{", content_type="application/json").status_code == 400
    assert stored_rows(app) == (0, 0)


def test_add_answers_with_the_new_meld(client: FlaskClient) -> None:
    body = {"rules": "burraco-002", "meld": ["3H", "4H", "JK", "6H", "7H"], "piece": "5H"}
    data = client.post("/api/add", json=body).json
    assert data["allowed"] is True and data["melds"] == [["JK", "3H", "4H", "5H", "6H", "7H"]]


def test_score_preview_stores_nothing(client: FlaskClient, app: Flask) -> None:
    data = client.post("/api/score", json={"rules": "burraco-fibur", "sides": round_sides()}).json
    assert [s["total"] for s in data["sides"]] == [365, -125]
    assert data["verdicts"][0][0]["burraco"] == "pure"
    assert stored_rows(app) == (0, 0)


def test_game_lifecycle(client: FlaskClient) -> None:
    game = new_game(client, target=500)
    response = client.post(f"/api/games/{game}/rounds", json={"sides": round_sides()})
    assert response.status_code == 201
    assert response.json["number"] == 1
    assert [s["total"] for s in response.json["sheet"]["sides"]] == [365, -125]
    data = client.get(f"/api/games/{game}").json
    assert set(data) >= {"id", "rules", "sides", "rounds", "totals", "finished", "winner"}
    assert data["totals"] == {"Ada": 365, "Bo": -125} and not data["finished"]
    assert data["rules"]["target"] == 500
    client.post(f"/api/games/{game}/rounds", json={"sides": round_sides()})
    data = client.get(f"/api/games/{game}").json
    assert (
        data["totals"] == {"Ada": 730, "Bo": -250} and data["finished"] and data["winner"] == "Ada"
    )
    # Correct round 1: Ada did not close after all.
    fixed = client.put(f"/api/games/{game}/rounds/1", json={"sides": round_sides(closed=False)})
    assert fixed.status_code == 200 and fixed.json["sheet"]["sides"][0]["total"] == 265
    assert client.get(f"/api/games/{game}").json["totals"] == {"Ada": 630, "Bo": -250}
    after = client.delete(f"/api/games/{game}/rounds/1").json
    assert after["totals"] == {"Ada": 365, "Bo": -125} and [
        r["number"] for r in after["rounds"]
    ] == [1]
    listed = client.get("/api/games").json["games"]
    assert [g["id"] for g in listed] == [game]


@pytest.mark.parametrize(
    ("sides", "message"),
    [
        (round_sides([["AS", "AD", "AC"]]), "Ada cannot close: no burraco"),
        ([{"name": "Ada"}, {"name": "Cy"}], "unknown side(s): Cy"),
        ([{"name": "Ada"}], "missing side(s): Bo"),
        (round_sides([["7H", "7H", "7H"], PURE_RUN]), "four 7H: the decks hold two"),
        ([{"name": "Ada", "hand": ["ZZ"]}, {"name": "Bo"}], "'ZZ' is not a piece"),
        ("nope", "'sides' must be a list"),
    ],
)
def test_bad_round_is_refused_and_stores_nothing(
    client: FlaskClient, app: Flask, sides: Any, message: str
) -> None:
    game = new_game(client)
    response = client.post(f"/api/games/{game}/rounds", json={"sides": sides})
    assert 400 <= response.status_code < 500
    assert message in response.json["error"]
    assert stored_rows(app) == (1, 0)


def test_correcting_with_a_bad_round_keeps_the_old_one(client: FlaskClient) -> None:
    game = new_game(client)
    client.post(f"/api/games/{game}/rounds", json={"sides": round_sides()})
    bad = client.put(
        f"/api/games/{game}/rounds/1", json={"sides": round_sides([["AS", "AD", "AC"]])}
    )
    assert bad.status_code == 422
    assert client.get(f"/api/games/{game}").json["totals"] == {"Ada": 365, "Bo": -125}


@pytest.mark.parametrize(
    ("method", "url", "status"),
    [
        ("get", "/api/games/999", 404),
        ("put", "/api/games/{game}/rounds/7", 404),
        ("delete", "/api/games/{game}/rounds/7", 404),
        ("post", "/api/games/999/rounds", 404),
    ],
)
def test_unknown_game_or_round(client: FlaskClient, method: str, url: str, status: int) -> None:
    game = new_game(client)
    response = getattr(client, method)(url.format(game=game), json={"sides": round_sides()})
    assert response.status_code == status and "error" in response.json


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"rules": "burraco-000", "sides": ["A", "B", "C"]},
            "burraco-000 is played by 2 players, not 3",
        ),
        ({"rules": "burraco-fibur", "sides": ["A"]}, "2 to 4 sides"),
        ({"rules": "burraco-fibur", "sides": ["A", "A"]}, "a name of its own"),
        ({"rules": "burraco-fibur", "sides": ["A", "B"], "target": "big"}, "'target' must be"),
        ({"rules": "burraco-fibur", "sides": "A,B"}, "'sides' must be a list"),
        (
            {"rules": "burraco-fibur", "sides": ["A", "B", "C"], "players": 4},
            "4 players cannot sit as 3",
        ),
    ],
)
def test_bad_new_game(client: FlaskClient, app: Flask, body: dict[str, Any], message: str) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400 and message in response.json["error"]
    assert stored_rows(app) == (0, 0)


def test_teams_of_two_enter_two_hands(client: FlaskClient) -> None:
    game = new_game(client, sides=["North-South", "East-West"], players=4)
    sides = [
        {
            "name": "North-South",
            "melds": [PURE_RUN],
            "hands": [[], ["5C"]],
            "took_pot": True,
            "closed": True,
        },
        {"name": "East-West", "hands": [["AD"], ["JK"]], "took_pot": True},
    ]
    response = client.post(f"/api/games/{game}/rounds", json={"sides": sides})
    assert response.status_code == 201
    assert client.get(f"/api/games/{game}").json["totals"] == {"North-South": 360, "East-West": -45}


def test_exports(client: FlaskClient) -> None:
    game = new_game(client)
    client.post(f"/api/games/{game}/rounds", json={"sides": round_sides()})
    csv_text = client.get(f"/api/games/{game}/export.csv").get_data(as_text=True)
    rows = csv_text.strip().splitlines()
    assert rows[0].startswith("round,side,reason,points")
    assert "1,Bo,pot-not-taken,-100,,-125,-125" in rows
    exported = client.get(f"/api/games/{game}/export.json")
    assert exported.json["totals"] == {"Ada": 365, "Bo": -125}
    assert "attachment" in exported.headers["Content-Disposition"]


def jpeg(size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 180, 150)).save(out, "JPEG")
    return out.getvalue()


def test_photo_is_kept_with_the_game_under_a_generated_name(
    client: FlaskClient, app: Flask
) -> None:
    game = new_game(client)
    response = client.post(
        f"/api/games/{game}/photos",
        data={"photo": (io.BytesIO(jpeg()), "../../etc/passwd.jpg"), "side": "Ada"},
    )
    assert response.status_code == 201
    photo = response.json
    assert photo["width"] == 64 and photo["height"] == 48
    files = list(Path(app.config["PHOTOS"]).iterdir())
    assert [f.name for f in files] == [f"{photo['id']}.jpg"]
    served = client.get(photo["url"])
    assert served.status_code == 200 and served.data == jpeg()
    other = new_game(client)
    assert client.get(f"/games/{other}/photos/{photo['id']}").status_code == 404
    saved = client.post(
        f"/api/games/{game}/rounds", json={"sides": round_sides(), "photos": [photo["id"]]}
    )
    assert saved.json["photos"] == [photo["id"]]
    assert client.get(f"/api/games/{game}").json["rounds"][0]["photos"] == [photo["id"]]
    record = client.get(f"/api/games/{game}/photos/{photo['id']}").json
    assert record["round"] == 1 and record["side"] == "Ada" and record["url"] == photo["url"]
    assert (record["width"], record["height"]) == (64, 48)
    assert record["scan"] == photo["scan"]  # what was read when it was taken, kept for audit
    assert client.get(f"/api/games/{other}/photos/{photo['id']}").status_code == 404


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the photo is empty"),
        (b"this is not an image at all", "not an image"),
        (jpeg()[:200], "damaged or truncated"),
        (big_jpeg()[:400_000], "damaged or truncated"),  # refused by the scanner's decode
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", "HEIC photo is damaged"),
        (jpeg((10, 10)), "too small to read: 10x10 pixels"),  # no piece fits: refused, not kept
    ],
)
def test_unreadable_photo_is_refused_with_a_reason(
    client: FlaskClient, app: Flask, data: bytes, message: str
) -> None:
    game = new_game(client)
    response = client.post(f"/api/games/{game}/photos", data={"photo": (io.BytesIO(data), "x.jpg")})
    assert response.status_code == 400 and message in response.json["error"]
    assert not Path(app.config["PHOTOS"]).exists() or not any(Path(app.config["PHOTOS"]).iterdir())


def test_upload_over_the_limit_is_413(tmp_path: Path) -> None:
    from web.app import create_app

    app = create_app({"TESTING": True, "INSTANCE": tmp_path, "MAX_CONTENT_LENGTH": 10_000})
    response = app.test_client().post(
        "/api/scan", data={"photo": (io.BytesIO(b"x" * 20_000), "big.jpg")}
    )
    assert response.status_code == 413 and "larger than" in response.json["error"]


def test_scan_reads_a_real_photo_with_the_bundled_model(client: FlaskClient) -> None:
    response = client.post(
        "/api/scan", data={"photo": (io.BytesIO(big_jpeg()), "t.jpg"), "kind": "tiles"}
    )
    assert response.status_code == 200, response.json
    body = response.json
    assert "path" not in body and (body["width"], body["height"]) == (2400, 2400)
    assert len(body["pieces"]) >= 10 and body["melds"]
    assert body["shaken"] is False and body["shake"] < 1.6  # a still photo


def test_an_iphones_heic_photo_is_read_and_kept_as_a_jpeg(client: FlaskClient, app: Flask) -> None:
    """A HEIC of the real tile photo, held turned (EXIF 6 as an iPhone writes it): /api/scan
    reads it upright as its JPEG reads, and the game keeps it as an upright JPEG that the page
    serves to any browser."""
    photo = Image.open(REAL_TILES).convert("RGB")
    turned = photo.transpose(Image.Transpose.ROTATE_90)  # as the sensor saw it
    plain = io.BytesIO()
    photo.save(plain, "JPEG", quality=95)
    # EXIF 6: shown turned back a quarter clockwise, the photo upright
    heic_data = heic(turned, orientation=6)
    read = {}
    for name, data in (("heic", heic_data), ("jpeg", plain.getvalue())):
        body = {"photo": (io.BytesIO(data), f"t.{name}"), "kind": "tiles"}
        response = client.post("/api/scan", data=body)
        assert response.status_code == 200, response.json
        read[name] = response.json
    assert (read["heic"]["width"], read["heic"]["height"]) == photo.size
    assert len(read["heic"]["pieces"]) >= 10
    codes = {name: sorted(p["code"] for p in r["pieces"]) for name, r in read.items()}
    assert codes["heic"] == codes["jpeg"]
    game = new_game(client, rules="burako-003")
    body = {"photo": (io.BytesIO(heic_data), "IMG_0001.HEIC"), "kind": "tiles"}
    kept = client.post(f"/api/games/{game}/photos", data=body)
    assert kept.status_code == 201, kept.json
    assert (kept.json["width"], kept.json["height"]) == photo.size and kept.json["scan"]
    shown = client.get(kept.json["url"])
    assert shown.status_code == 200 and shown.mimetype == "image/jpeg"
    with Image.open(io.BytesIO(shown.data)) as image:
        assert image.size == photo.size and image.getexif().get(0x0112, 1) == 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the photo is empty"),
        (b"this is not an image at all", "not an image"),
        (big_jpeg()[:400_000], "damaged or truncated"),  # headers intact, pixels cut short
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", "HEIC photo is damaged"),
        (jpeg((200, 12)), "too small to read: 200x12 pixels"),
    ],
    ids=["empty", "not-an-image", "truncated", "heic", "too-small"],
)
def test_scan_refuses_an_unreadable_photo_with_a_reason(
    client: FlaskClient, data: bytes, message: str
) -> None:
    """/api/scan reads only the headers itself: the scanner's decode must refuse the rest."""
    response = client.post("/api/scan", data={"photo": (io.BytesIO(data), "x.jpg")})
    assert response.status_code == 400 and message in response.json["error"], response.json


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"rules": "{not json"}, "'rules' is not valid JSON"),
        ({"rules": "no-such-preset"}, "no-such-preset"),
        ({"kind": "dominoes"}, "'kind' must be auto, cards or tiles"),
    ],
)
def test_scan_refuses_bad_options_before_reading_the_photo(
    client: FlaskClient, form: dict[str, str], message: str
) -> None:
    data = {"photo": (io.BytesIO(jpeg()), "x.jpg"), **form}
    response = client.post("/api/scan", data=data)
    assert response.status_code == 400 and message in response.json["error"], response.json


def test_scan_takes_the_table_rules_given(client: FlaskClient) -> None:
    rules = json.dumps({"preset": "burako-003", "min_meld": 4})
    response = client.post(
        "/api/scan",
        data={"photo": (io.BytesIO(big_jpeg()), "t.jpg"), "kind": "tiles", "rules": rules},
    )
    assert response.status_code == 200, response.json
    short = [m for m in response.json["melds"] if len(m["pieces"]) == 3]
    assert short, "the photo has melds of three tiles"
    assert all(not m["verdict"]["valid"] for m in short)  # four is the minimum at this table


@pytest.mark.parametrize(
    ("method", "url", "status"),
    [("GET", "/api/no-such-thing", 404), ("GET", "/api/check", 405), ("PUT", "/api/games", 405)],
)
def test_unrouted_api_calls_answer_json(
    client: FlaskClient, method: str, url: str, status: int
) -> None:
    response = client.open(url, method=method)
    assert response.status_code == status and response.is_json
    assert url in response.json["error"]


def test_unrouted_pages_stay_html(client: FlaskClient) -> None:
    response = client.get("/no-such-page")
    assert response.status_code == 404 and not response.is_json


def test_the_model_loads_once_per_process_and_serves_every_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision import Scanner
    from web.app import create_app

    loads = []
    real_load = Scanner.load.__func__  # type: ignore[attr-defined]

    def counting_load(cls: type[Scanner], *args: Any, **kwargs: Any) -> Scanner:
        loads.append(args)
        return real_load(cls, *args, **kwargs)

    monkeypatch.setattr(Scanner, "load", classmethod(counting_load))
    app = create_app({"TESTING": True, "INSTANCE": tmp_path})
    client = app.test_client()
    photo = big_jpeg()
    for kind in ("tiles", "auto", "tiles"):
        response = client.post(
            "/api/scan", data={"photo": (io.BytesIO(photo), "t.jpg"), "kind": kind}
        )
        assert response.status_code == 200 and response.json["pieces"]
    game = new_game(client, rules="burako-003")
    stored = client.post(f"/api/games/{game}/photos", data={"photo": (io.BytesIO(photo), "t.jpg")})
    assert stored.status_code == 201 and stored.json["scan"]["pieces"]
    assert len(loads) == 1


def test_scan_without_photo_field(client: FlaskClient) -> None:
    response = client.post("/api/scan", data={"kind": "cards"})
    assert response.status_code == 400 and "'photo'" in response.json["error"]


def test_delete_game_removes_its_photos(client: FlaskClient, app: Flask) -> None:
    game = new_game(client)
    client.post(f"/api/games/{game}/photos", data={"photo": (io.BytesIO(jpeg()), "a.jpg")})
    assert client.delete(f"/api/games/{game}").json == {"deleted": game}
    assert not any(Path(app.config["PHOTOS"]).iterdir())
    assert client.get(f"/api/games/{game}").status_code == 404


def test_security_headers_and_secret_key(client: FlaskClient, app: Flask) -> None:
    response = client.get("/")
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Frame-Options"] == "DENY"
    key_file = Path(app.instance_path) / "secret_key"
    assert key_file.stat().st_mode & 0o077 == 0
    assert (
        app.config["SECRET_KEY"] == key_file.read_text().strip()
        and len(app.config["SECRET_KEY"]) == 64
    )


def test_rules_lists_every_preset_as_check_takes_it(client: FlaskClient) -> None:
    from scorer import PRESETS

    presets = client.get("/api/rules").json
    assert set(presets) == set(PRESETS)
    assert presets["burako-003"]["pieces"] == "tiles" and presets["burraco-fibur"]["pot"] is True
    # each listed object is accepted back as a rules object
    for name, rules in presets.items():
        pieces = ["R5", "R6", "R7"] if rules["pieces"] == "tiles" else ["5H", "6H", "7H"]
        response = client.post("/api/check", json={"rules": rules, "pieces": pieces})
        assert response.status_code == 200 and response.json["valid"], name


def test_a_finished_game_takes_no_more_rounds_and_nothing_is_stored(client: FlaskClient) -> None:
    game = new_game(client, target=100)
    assert (
        client.post(f"/api/games/{game}/rounds", json={"sides": round_sides()}).status_code == 201
    )
    assert client.get(f"/api/games/{game}").json["finished"] is True
    response = client.post(f"/api/games/{game}/rounds", json={"sides": round_sides()})
    assert response.status_code == 400 and "the game is over" in response.json["error"]
    assert len(client.get(f"/api/games/{game}").json["rounds"]) == 1


def test_a_game_holds_a_bounded_number_of_rounds(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from web import store

    assert store.MAX_ROUNDS == 200
    monkeypatch.setattr(store, "MAX_ROUNDS", 5)  # the same check, sooner
    game = new_game(client, target=10**6)
    level = [{"name": "Ada", "melds": [PURE_RUN], "took_pot": True, "closed": True},
             {"name": "Bo", "melds": [PURE_RUN], "took_pot": True}]  # fmt: skip
    for _ in range(5):
        assert client.post(f"/api/games/{game}/rounds", json={"sides": level}).status_code == 201
    response = client.post(f"/api/games/{game}/rounds", json={"sides": level})
    assert response.status_code == 400 and "at most 5 rounds" in response.json["error"]
    assert len(client.get(f"/api/games/{game}").json["rounds"]) == 5


def test_a_photo_for_an_unknown_side_or_game_is_refused_and_not_kept(
    client: FlaskClient, app: Flask
) -> None:
    game = new_game(client)
    data = {"photo": (io.BytesIO(jpeg()), "x.jpg"), "side": "Zed"}
    response = client.post(f"/api/games/{game}/photos", data=data)
    assert response.status_code == 400 and "'Zed'" in response.json["error"]
    response = client.post("/api/games/999/photos", data={"photo": (io.BytesIO(jpeg()), "x.jpg")})
    assert response.status_code == 404
    photos = Path(app.config["PHOTOS"])
    assert not photos.exists() or not any(photos.iterdir())


def test_deleting_an_unknown_game_is_404(client: FlaskClient) -> None:
    response = client.delete("/api/games/999")
    assert response.status_code == 404 and "999" in response.json["error"]


def test_a_busy_scanner_keeps_a_sound_photo_unread_and_refuses_a_damaged_one(
    tmp_path: Path,
) -> None:
    from web import recognition
    from web.app import create_app

    app = create_app({"TESTING": True, "INSTANCE": tmp_path, "SCAN_WAIT_S": 0.05})
    client = app.test_client()
    recognition._load(app)
    slots = app.extensions["meldcam.scanner.slots"]
    assert slots.acquire(timeout=1)  # another phone's photo is being read
    try:
        game = new_game(client)
        sound = client.post(
            f"/api/games/{game}/photos", data={"photo": (io.BytesIO(jpeg()), "a.jpg")}
        )
        assert sound.status_code == 201 and sound.json["scan"] is None
        assert "busy" in sound.json["scan_error"]
        damaged = big_jpeg()[:400_000]
        cut = client.post(
            f"/api/games/{game}/photos", data={"photo": (io.BytesIO(damaged), "b.jpg")}
        )
        assert cut.status_code == 400 and "damaged or truncated" in cut.json["error"]
        assert [f.name for f in Path(app.config["PHOTOS"]).iterdir()] == [f"{sound.json['id']}.jpg"]
    finally:
        slots.release()
