"""The built-in bots' play, one module per game (named as the game's module in ``parlour.games``).

Each module defines ``Greedy`` and ``Search`` (:class:`~parlour.bots.base.Bot` subclasses for that
one game) and ``ceiling(state) -> Score | None``: the best score reachable on a deal by a player who
sees every card (used for measurement and par only; it never plays in a race), or ``None`` where no
such solver exists, and ``CEILING_EXACT``: whether that score is the exact best (else a reachable
score, a lower bound on the best). The ``greedy`` and ``search`` bots pick the module by the game's name.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def module_for(game: str) -> ModuleType:
    """The built-in play for ``game`` (a game name such as ``"german-patience"``)."""
    return importlib.import_module(f"parlour.bots.builtin.{game.replace('-', '_')}")
