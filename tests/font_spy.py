"""Which faces the scene generator draws with: a spy on a module's ``font``."""

from __future__ import annotations

from types import ModuleType

import pytest


def spy_fonts(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> set[str]:
    """The names of the faces ``module`` asks its ``font`` for from now on (the set fills as it
    draws; the faces are still loaded)."""
    used: set[str] = set()
    real_font = module.font

    def spy(name: str, size: int) -> object:
        used.add(name)
        return real_font(name, size)

    monkeypatch.setattr(module, "font", spy)
    return used
