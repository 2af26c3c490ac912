from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from web.app import create_app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    """A fresh app on a fresh instance folder (real SQLite file) for each test."""
    app = create_app({"TESTING": True, "INSTANCE": tmp_path / "instance"})
    yield app


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
