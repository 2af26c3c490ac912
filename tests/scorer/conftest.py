from __future__ import annotations

import pytest

from scorer import Rules


@pytest.fixture(params=["burraco-fibur", "burraco-000", "burraco-002"])
def card_rules(request: pytest.FixtureRequest) -> Rules:
    """Every card preset."""
    return Rules.preset(request.param)
