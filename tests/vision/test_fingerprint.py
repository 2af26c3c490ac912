"""What the scanner's fingerprint names of its own module (no model): the readings cached under a
fingerprint (``meldcam eval --cache``) must be those the code named by it reads."""

from __future__ import annotations

import inspect

import pytest

import vision.scanner as scanner_module
from vision.scanner import READ_STEPS, Scanner, reading_steps_source, step_names


def _own_functions() -> dict[str, object]:
    """This module's functions and the scanner's methods, by the name code calls them by."""
    own = {
        name: value
        for name, value in vars(scanner_module).items()
        if inspect.isfunction(value) and value.__module__ == scanner_module.__name__
    }
    own |= {name: value for name, value in vars(Scanner).items() if inspect.isfunction(value)}
    return own


def test_every_function_of_the_scanner_a_reading_step_calls_is_a_reading_step_too() -> None:
    """A helper that :meth:`Scanner.read` comes to call in ``vision/scanner.py`` must be named in
    the fingerprint, or a cached reading would outlive a change to it (session 35's unmarked
    jokers went into ``_recognise``, then outside the fingerprint)."""
    own = _own_functions()
    steps = set(READ_STEPS)
    called = {name for step in READ_STEPS for name in step_names(step) if name in own}
    assert {"_recognise", "_read", "_keep_kind", "drop_weak"} <= called
    assert [name for name in sorted(called) if own[name] not in steps] == []


def test_a_setting_the_reading_steps_read_moves_the_fingerprint_one_of_assembly_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = reading_steps_source()
    monkeypatch.setattr(scanner_module, "LONE_JOKER_FLOOR", 0.9)  # assembly's: the cache serves
    assert reading_steps_source() == before
    monkeypatch.setattr(scanner_module, "DECODE_MIN_SIDE", 1600)  # reading's: read afresh
    changed = reading_steps_source()
    assert changed != before and b"DECODE_MIN_SIDE = 1600" in changed
