"""Exceptions for bad input and misuse.

Rule violations are never exceptions: they are problems listed in a verdict
(see :mod:`scorer.melds`). Exceptions are for input that cannot be read at all
(an unknown piece code, a rules object with a negative bonus) and for misuse.
Every exception derives from :class:`MeldcamError`, itself a :class:`ValueError`.
"""

from __future__ import annotations


class MeldcamError(ValueError):
    """Base class of every error raised by the rules core."""


class InvalidPieceError(MeldcamError):
    """A token is not a piece in the notation of RULES.md."""

    def __init__(self, token: str, reason: str = "") -> None:
        self.token = token
        hint = (
            "a card is rank + suit (7H, 10S, AD, KC), a tile is colour + number "
            "(K7 black, R13 red, B1 blue, Y12 yellow), a joker is JK"
        )
        detail = f" ({reason})" if reason else ""
        super().__init__(f"{token!r} is not a piece{detail}: {hint}")


class WrongPieceKindError(MeldcamError):
    """A card where the rules want tiles, or a tile where they want cards."""

    def __init__(self, token: str, wanted: str) -> None:
        self.token = token
        self.wanted = wanted
        super().__init__(f"{token!r} is not a {wanted[:-1]}: these rules are played with {wanted}")


class InvalidRulesError(MeldcamError):
    """A rules object is inconsistent or has an unknown or mistyped option."""


class UnknownPresetError(MeldcamError):
    """A rules preset name that does not exist."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        self.name = name
        super().__init__(f"unknown rules preset {name!r}: choose one of {', '.join(known)}")


class InvalidRoundError(MeldcamError):
    """A round description cannot be read (missing side name, wrong types...)."""


class InvalidGameError(MeldcamError):
    """Misuse of a game: an unknown round number, a round for unknown sides..."""
