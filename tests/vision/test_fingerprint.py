"""What the scanner's fingerprint names of its reading code: the readings cached under a
fingerprint (``meldcam eval --cache``) must be those the code named by it reads."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import vision.scanner as scanner_module
from vision.scanner import (
    READ_CODE,
    READ_STEPS,
    Scanner,
    code_form,
    reading_steps_source,
    step_names,
)

MODELS = Path(__file__).resolve().parents[2] / "models"


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


CODE = '''"""A module."""

STEP = 0.5
"""How far a step reaches."""


def reach(x):
    """Doubled."""
    return x * STEP  # a comment
'''


def test_words_alone_keep_the_form_of_code_and_a_change_to_what_runs_moves_it() -> None:
    form = code_form(CODE)
    reworded = CODE.replace("A module.", "The module, said otherwise.").replace(
        "# a comment", "# another comment"
    )
    assert code_form(reworded) == form
    assert code_form(CODE.replace('    """Doubled."""\n', "")) == form  # a docstring gone
    assert code_form(CODE.replace("x * STEP", "x*STEP")) == form  # layout
    assert code_form(CODE.replace("STEP = 0.5", "STEP = 0.6")) != form
    assert code_form(CODE.replace("x * STEP", "STEP * x")) != form
    assert code_form(CODE.replace("return x * STEP", 'return "x"')) != form  # a string returned
    # a method's source, indented as inspect gives it, reads as the same function unindented
    indented = "    def reach(x):\n        return x * STEP\n"
    assert code_form(indented) == code_form("def reach(x):\n    return x * STEP\n")


def test_the_scanner_fingerprint_moves_with_the_reading_code_not_with_its_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = next(p for p in READ_CODE if p.stem == "gaps")
    copy = tmp_path / module.name
    monkeypatch.setattr(scanner_module, "READ_CODE", (*(p for p in READ_CODE if p != module), copy))
    source = module.read_text()
    copy.write_text(source)
    served = Scanner.load(MODELS).fingerprint
    copy.write_text(source.replace('"""', '"""Said otherwise. ', 1) + "\n# a last word\n")
    assert Scanner.load(MODELS).fingerprint == served
    copy.write_text(source.replace("OPEN_END_COS = -0.3", "OPEN_END_COS = -0.35"))
    assert "OPEN_END_COS = -0.3\n" in source and Scanner.load(MODELS).fingerprint != served
