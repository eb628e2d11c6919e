"""Bots: the :class:`Bot` interface, the built-in bots, discovery of installed bots, the runner and the arena.

Write a bot by subclassing :class:`Bot`; make it installable by naming it in your package's
``parlour.bots`` entry-point group (see ``bots/examples/``). :func:`installed_bots` lists every bot
found, :func:`load_bot` finds one by name.
"""

from parlour.bots.base import Bot, Turn
from parlour.bots.registry import BotNotFound, installed_bots, load_bot

__all__ = ["Bot", "BotNotFound", "Turn", "installed_bots", "load_bot"]
