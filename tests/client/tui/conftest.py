"""What every test of the app shares."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _colour(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app draws in colour, whatever the terminal running the tests asks for (a test of ``NO_COLOR``
    sets it itself), so that the snapshots are the same everywhere."""
    monkeypatch.delenv("NO_COLOR", raising=False)
