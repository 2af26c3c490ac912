"""The OpenAPI description of the JSON API, served at ``/api/openapi.json``."""

from __future__ import annotations

from typing import Any

from scorer import PRESETS

CODE = {"type": "string", "pattern": "^[0-9A-Za-z]{2,3}$", "examples": ["7H", "10S", "R13", "JK"]}
CODES = {"type": "array", "items": CODE, "maxItems": 200}
RULES = {
    "oneOf": [
        {"type": "string", "enum": list(PRESETS)},
        {"type": "object", "properties": {"preset": {"type": "string", "enum": list(PRESETS)}}},
    ]
}
SIDE = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 40},
        "melds": {"type": "array", "items": CODES, "maxItems": 40},
        "hand": CODES,
        "hands": {"type": "array", "items": CODES, "minItems": 1, "maxItems": 2},
        "took_pot": {"type": "boolean"},
        "closed": {"type": "boolean"},
        "pot_unplayed": CODES,
        "discard": CODE,
        "first_meld": {"type": "array", "items": CODES},
    },
    "additionalProperties": False,
}
SIDES = {"type": "array", "items": SIDE, "minItems": 1, "maxItems": 4}
ERROR = {
    "description": "bad input: nothing was stored",
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "required": ["error"],
                "properties": {"error": {"type": "string"}},
            }
        }
    },
}
VERDICT = {
    "type": "object",
    "required": ["valid", "kind", "burraco", "points", "bonus", "problems", "reading"],
    "properties": {
        "valid": {"type": "boolean"},
        "kind": {"enum": ["set", "run", None]},
        "burraco": {"enum": ["pure", "semi-pure", "impure", None]},
        "points": {"type": "integer"},
        "bonus": {"type": "integer"},
        "problems": {"type": "array"},
        "reading": {"type": "array"},
    },
}


def _json_body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _ok(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description}
    if schema is not None:
        out["content"] = {"application/json": {"schema": schema}}
    return out


def _upload_body(fields: dict[str, Any]) -> dict[str, Any]:
    """A multipart body: the ``photo`` file, an optional ``kind`` and ``fields``."""
    properties = {
        "photo": {"type": "string", "format": "binary"},
        "kind": {"enum": ["auto", "cards", "tiles"]},
        **fields,
    }
    schema = {"type": "object", "required": ["photo"], "properties": properties}
    return {"content": {"multipart/form-data": {"schema": schema}}}


GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "integer"}}
NUMBER = {"name": "number", "in": "path", "required": True, "schema": {"type": "integer"}}
PHOTO_ID = {"name": "photo_id", "in": "path", "required": True, "schema": {"type": "string"}}
ERRORS = {"400": ERROR, "404": ERROR, "415": ERROR, "422": ERROR, "429": ERROR}


def spec() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "meldcam", "version": "1", "license": {"name": "AGPL-3.0-or-later"}},
        "paths": {
            "/api/check": {
                "post": {
                    "summary": "The verdict on one meld (as `meldcam check --json`)",
                    "requestBody": _json_body(
                        {
                            "type": "object",
                            "required": ["rules", "pieces"],
                            "properties": {
                                "rules": RULES,
                                "pieces": CODES,
                                "ordered": {"type": "boolean"},
                            },
                        }
                    ),
                    "responses": {"200": _ok("the verdict", VERDICT), **ERRORS},
                }
            },
            "/api/add": {
                "post": {
                    "summary": "Can a piece be added to a meld, and what does it become",
                    "requestBody": _json_body(
                        {
                            "type": "object",
                            "required": ["rules", "meld", "piece"],
                            "properties": {"rules": RULES, "meld": CODES, "piece": CODE},
                        }
                    ),
                    "responses": {"200": _ok("the answer"), **ERRORS},
                }
            },
            "/api/score": {
                "post": {
                    "summary": "A round's sheet and verdicts, stored nowhere",
                    "requestBody": _json_body(
                        {
                            "type": "object",
                            "required": ["rules", "sides"],
                            "properties": {"rules": RULES, "sides": SIDES},
                        }
                    ),
                    "responses": {"200": _ok("the sheet"), **ERRORS},
                }
            },
            "/api/scan": {
                "post": {
                    "summary": "Recognise a photo (as `meldcam scan --json`, without path)",
                    "requestBody": _upload_body({"rules": {"type": "string"}}),
                    "responses": {"200": _ok("the scan"), "413": ERROR, "503": ERROR, **ERRORS},
                }
            },
            "/api/games": {
                "get": {"summary": "Every game", "responses": {"200": _ok("games")}},
                "post": {
                    "summary": "Start a game",
                    "requestBody": _json_body(
                        {
                            "type": "object",
                            "required": ["rules", "sides"],
                            "properties": {
                                "rules": RULES,
                                "sides": {
                                    "type": "array",
                                    "items": {"type": "string"},
                                    "minItems": 2,
                                    "maxItems": 4,
                                },
                                "target": {"type": "integer"},
                                "players": {"type": "integer"},
                                "name": {"type": "string"},
                            },
                        }
                    ),
                    "responses": {"201": _ok("the new game's id"), "401": ERROR, **ERRORS},
                },
            },
            "/api/games/{game_id}": {
                "parameters": [GAME_ID],
                "get": {
                    "summary": "A game with totals",
                    "responses": {"200": _ok("the game"), **ERRORS},
                },
                "delete": {
                    "summary": "Delete a game",
                    "responses": {"200": _ok("deleted"), **ERRORS},
                },
            },
            "/api/games/{game_id}/rounds": {
                "parameters": [GAME_ID],
                "post": {
                    "summary": "Save a round (the sides of a `meldcam score` input)",
                    "requestBody": _json_body(
                        {
                            "type": "object",
                            "required": ["sides"],
                            "properties": {"sides": SIDES, "photos": {"type": "array"}},
                        }
                    ),
                    "responses": {"201": _ok("the round's sheet"), **ERRORS},
                },
            },
            "/api/games/{game_id}/rounds/{number}": {
                "parameters": [GAME_ID, NUMBER],
                "put": {
                    "summary": "Correct a round",
                    "requestBody": _json_body(
                        {"type": "object", "required": ["sides"], "properties": {"sides": SIDES}}
                    ),
                    "responses": {"200": _ok("the corrected round"), **ERRORS},
                },
                "delete": {
                    "summary": "Delete a round",
                    "responses": {"200": _ok("the game"), **ERRORS},
                },
            },
            "/api/games/{game_id}/photos": {
                "parameters": [GAME_ID],
                "post": {
                    "summary": "Keep a photo with the game and recognise it (model permitting)",
                    "requestBody": _upload_body({"side": {"type": "string"}}),
                    "responses": {"201": _ok("the photo's id, url, size and scan"), **ERRORS},
                },
            },
            "/api/games/{game_id}/photos/{photo_id}": {
                "parameters": [GAME_ID, PHOTO_ID],
                "get": {
                    "summary": "A kept photo: size, side, round and the recognition it got",
                    "responses": {"200": _ok("the photo's record"), **ERRORS},
                },
            },
            "/api/games/{game_id}/export.json": {
                "parameters": [GAME_ID],
                "get": {"summary": "The whole game as JSON", "responses": {"200": _ok("JSON")}},
            },
            "/api/games/{game_id}/export.csv": {
                "parameters": [GAME_ID],
                "get": {"summary": "Every round's lines as CSV", "responses": {"200": _ok("CSV")}},
            },
            "/api/rules": {
                "get": {"summary": "Every preset's rules", "responses": {"200": _ok("presets")}},
            },
            "/api/openapi.json": {
                "get": {"summary": "This description", "responses": {"200": _ok("OpenAPI")}},
            },
        },
    }
