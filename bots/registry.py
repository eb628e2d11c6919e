"""Finding bots: every installed package's ``parlour.bots`` entry points, the built-in bots included.

A package offers a bot with one line in its ``pyproject.toml``::

    [project.entry-points."parlour.bots"]
    mybot = "mypackage.bot:MyBot"

The entry point's name is the bot's name; it loads a :class:`~parlour.bots.base.Bot` subclass.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

from parlour.bots.base import Bot

GROUP = "parlour.bots"


class BotNotFound(LookupError):
    """No installed bot has the name asked for (the message lists those that exist)."""


@dataclass(frozen=True)
class BotEntry:
    """One installed bot: its name, where it comes from, and its class once loaded."""

    name: str
    source: str  # "module:Class", as the entry point says
    package: str  # the distribution that installed it
    bot: type[Bot] | None  # None when loading failed
    error: str | None = None  # why loading failed


def _entries() -> list[EntryPoint]:
    return sorted(entry_points(group=GROUP), key=lambda e: e.name)


def _load(entry: EntryPoint) -> BotEntry:
    package = entry.dist.name if entry.dist is not None else "?"
    try:
        loaded = entry.load()
    except Exception as exc:  # a broken third-party package must not hide the others
        return BotEntry(entry.name, entry.value, package, None, f"{type(exc).__name__}: {exc}")
    if not (isinstance(loaded, type) and issubclass(loaded, Bot)):
        return BotEntry(entry.name, entry.value, package, None, f"{entry.value} is not a parlour.bots.Bot subclass")
    return BotEntry(entry.name, entry.value, package, loaded)


def installed_bots() -> list[BotEntry]:
    """Every bot in the ``parlour.bots`` entry-point group, by name; broken ones carry their error."""
    return [_load(entry) for entry in _entries()]


def load_bot(name: str) -> type[Bot]:
    """The bot class installed as ``name``; :class:`BotNotFound` lists the names there are."""
    for entry in _entries():
        if entry.name == name:
            found = _load(entry)
            if found.bot is None:
                raise BotNotFound(f"bot {name!r} is installed but does not load: {found.error}")
            return found.bot
    names = ", ".join(e.name for e in _entries()) or "none"
    raise BotNotFound(f"no bot called {name!r} is installed; bots: {names}")
