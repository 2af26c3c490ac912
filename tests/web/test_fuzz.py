"""Fuzz of the JSON API from its OpenAPI description: any body, schema-shaped or not, gets
a JSON answer below 500, and a refused request stores nothing."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from web.app import create_app
from web.openapi import spec

SPEC = spec()
CODES = ["7H", "10S", "AD", "KC", "2S", "JK", "R13", "K1", "B7", "Y12", "7X", "", "r5"]


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values shaped by the subset of JSON Schema that the spec uses (mostly valid ones)."""
    if "oneOf" in schema:
        return st.one_of([from_schema(s) for s in schema["oneOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", ()))
        return st.fixed_dictionaries(
            {k: from_schema(v) for k, v in properties.items() if k in required},
            optional={k: from_schema(v) for k, v in properties.items() if k not in required},
        )
    if kind == "array":
        return st.lists(
            from_schema(schema.get("items", {})),
            min_size=schema.get("minItems", 0),
            max_size=min(schema.get("maxItems", 8), 8),
        )
    if kind == "string":
        return st.sampled_from(CODES) if "pattern" in schema else st.text(max_size=12)
    if kind == "integer":
        return st.integers(-5, 5000)
    if kind == "boolean":
        return st.booleans()
    return JSON


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=20,
)
OPERATIONS = [
    (path, method, op)
    for path, item in SPEC["paths"].items()
    for method, op in item.items()
    if method in ("post", "put")
    and "application/json" in op.get("requestBody", {}).get("content", {})
]


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    app = create_app({"TESTING": True, "INSTANCE": tmp_path_factory.mktemp("fuzz")})
    client = app.test_client()
    game = client.post("/api/games", json={"rules": "burraco-fibur", "sides": ["Ada", "Bo"]}).json[
        "id"
    ]
    sides = [{"name": "Ada", "melds": [["7H", "8H", "9H"]], "took_pot": True}, {"name": "Bo"}]
    assert client.post(f"/api/games/{game}/rounds", json={"sides": sides}).status_code == 201
    return app, game


def counts(app: Any) -> tuple[int, int, str]:
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        games = conn.execute("SELECT count(*) FROM games").fetchone()[0]
        rounds = conn.execute("SELECT count(*) FROM rounds").fetchone()[0]
        inputs = "".join(r[0] for r in conn.execute("SELECT input FROM rounds ORDER BY id"))
    finally:
        conn.close()
    return games, rounds, inputs


def test_openapi_is_served(fuzz_app: Any) -> None:
    app, _ = fuzz_app
    data = app.test_client().get("/api/openapi.json").json
    assert data["openapi"].startswith("3.") and "/api/games/{game_id}/rounds" in data["paths"]
    assert len(OPERATIONS) >= 6


def test_every_api_route_is_described(fuzz_app: Any) -> None:
    import re

    app, _ = fuzz_app
    described = {(path, method.upper()) for path, item in SPEC["paths"].items() for method in item}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert (path, method) in described, f"{method} {path} is not in /api/openapi.json"


@pytest.mark.parametrize(
    ("path", "method", "op"), OPERATIONS, ids=[f"{m} {p}" for p, m, _ in OPERATIONS]
)
def test_fuzz_operation(fuzz_app: Any, path: str, method: str, op: dict[str, Any]) -> None:
    app, game = fuzz_app
    schema = op["requestBody"]["content"]["application/json"]["schema"]
    url = path.replace("{game_id}", str(game)).replace("{number}", "1")
    client = app.test_client()

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(body=from_schema(schema) | JSON)
    def run(body: Any) -> None:
        before = counts(app)
        response = getattr(client, method)(url, json=body)
        assert response.status_code < 500, (body, response.data)
        assert response.is_json
        if response.status_code >= 400:
            assert isinstance(response.json.get("error"), str) and response.json["error"]
            assert counts(app) == before, "a refused request changed the database"

    run()
