"""Errors of the recogniser: one type per reason, under one base class."""

from __future__ import annotations


class VisionError(ValueError):
    """Base class of every error ``vision`` raises for bad input or a missing model."""


class UnreadablePhotoError(VisionError):
    """A photo that cannot be decoded (not an image, truncated, empty, unsupported)."""

    def __init__(self, reason: str, source: str | None = None) -> None:
        self.reason = reason
        self.source = source
        super().__init__(f"{source}: {reason}" if source else reason)


class ModelMissingError(VisionError):
    """The models folder lacks a file the scanner needs (run ``make train``)."""


class BadShapeError(VisionError):
    """An array with the wrong shape or dtype handed to a vision function."""


class UnknownSettingError(VisionError):
    """A scanner setting that ``scanner.json`` does not have (a misspelt override)."""
