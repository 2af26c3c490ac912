"""Errors of the web layer, each with the HTTP status it maps to."""

from __future__ import annotations

from typing import Any


class WebError(Exception):
    status = 400

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class NotFoundError(WebError):
    status = 404


class RoundRejectedError(WebError):
    """A round whose sheet lists problems: nothing is stored."""

    status = 422


class UnsupportedMediaError(WebError):
    status = 415


class UnavailableError(WebError):
    status = 503
