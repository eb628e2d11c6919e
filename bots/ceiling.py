"""Perfect-information ceilings: the best score a player who sees every card can reach on a deal.

For measurement and "par" only: a ceiling reads the real state, so it never plays in a race.
"""

from __future__ import annotations

from typing import Any

from parlour.bots.builtin import module_for
from parlour.games import Game, Score


def ceiling(game: Game[Any], state: Any) -> Score | None:
    """The best score reachable from ``state`` with every card known, or ``None`` if ``game`` has no solver."""
    solve = getattr(module_for(game.name), "ceiling", None)
    return None if solve is None else solve(state)


def ceiling_exact(game: Game[Any]) -> bool:
    """Whether ``game``'s ceiling is the exact best score (else it is a reachable score: a lower bound on the best).

    Only an exact ceiling can show that a rate is out of reach; a lower bound shows what is reachable.
    """
    return bool(getattr(module_for(game.name), "CEILING_EXACT", False))
