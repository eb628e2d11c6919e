"""Bots online: what their connections offer, and which one an invitation goes to (no I/O).

A connection that says ``bot: true`` with ``games`` offers to play those games, at most
``max_races`` at once. Each node lists its bot connections in the store, by player (see
:mod:`parlour.server.store`); :func:`merge` puts the lists of the live nodes together, one
:class:`OnlineBot` per bot player, and :func:`choose` picks the bot an ``invite`` names.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from parlour.protocol import ErrorCode, ProtocolError
from parlour.server.race import Race

ANY_BOT = "*"  # an invite's ``bot`` that means any online bot playing the race's game
MAX_LISTED = 100  # the most bots a lobby reply lists


@dataclass
class OnlineBot:
    """One bot player with a connection on some live node.

    ``games`` and ``max_races`` are what its connections offer (their union, and the
    largest); ``nodes`` are the nodes those connections are on; ``busy`` counts its
    unfinished races and pending invitations.
    """

    player: str
    name: str
    games: set[str] = field(default_factory=set)
    max_races: int = 1
    nodes: list[str] = field(default_factory=list)
    busy: int = 0

    @property
    def free(self) -> int:
        """How many more races it takes."""
        return self.max_races - self.busy

    def listing(self) -> dict[str, Any]:
        """The bot as the lobby reply's ``bots`` shows it."""
        return {
            "player": self.player,
            "name": self.name,
            "games": sorted(self.games),
            "max_races": self.max_races,
            "busy": self.busy,
        }


def offer(games: Iterable[str], max_races: int, name: str) -> dict[str, Any]:
    """One node's entry for a bot player: what its connections there offer."""
    return {"name": name, "games": sorted(set(games)), "max_races": max_races}


def merge(listed: Iterable[tuple[str, str, dict[str, Any]]]) -> list[OnlineBot]:
    """One :class:`OnlineBot` per player from the (node, player, entry) of the live nodes, by
    name then player id (``busy`` left at 0)."""
    bots: dict[str, OnlineBot] = {}
    for node, player, entry in listed:
        bot = bots.get(player)
        if bot is None:
            bot = bots[player] = OnlineBot(player, str(entry["name"]), max_races=int(entry["max_races"]))
        bot.games.update(str(game) for game in entry["games"])
        bot.max_races = max(bot.max_races, int(entry["max_races"]))
        bot.nodes.append(node)
    return sorted(bots.values(), key=lambda bot: (bot.name, bot.player))


def choose(bots: list[OnlineBot], wanted: str, race: Race, rng: random.Random) -> OnlineBot:
    """The bot an ``invite`` of ``race`` naming ``wanted`` (a name, a player id, or ``*``) goes to.

    A bot named (by name or id) that is seated in the race or invited to it already is
    chosen again (the invite then changes nothing, or renews the invitation). Otherwise
    the bot must play the race's game and have a race free (``busy`` < ``max_races``); of
    those, one with the most races free, at random among equals. With ``*`` the bots seated
    in the race or invited to it are left out. Raises ``no_such_bot`` or ``bot_busy``.
    """
    game = race.settings.game
    if wanted == ANY_BOT:
        named = [b for b in bots if race.seat_of(b.player) is None and race.invitation_of(b.player) is None]
        who = "online bot"
    else:
        named = [b for b in bots if wanted in (b.name, b.player)]
        for bot in named:
            if race.seat_of(bot.player) is not None or race.invitation_of(bot.player) is not None:
                return bot
        who = f"online bot named {wanted!r}"
    players = [b for b in named if game in b.games]
    if not players:
        if named and wanted != ANY_BOT:
            games = ", ".join(sorted(set().union(*(b.games for b in named))))
            raise ProtocolError(ErrorCode.NO_SUCH_BOT, f"no {who} plays {game} (it plays {games})")
        other = " other" if wanted == ANY_BOT and any(game in b.games for b in bots) else ""
        raise ProtocolError(ErrorCode.NO_SUCH_BOT, f"no{other} {who} plays {game}")
    most = max(bot.free for bot in players)
    if most <= 0:
        raise ProtocolError(ErrorCode.BOT_BUSY, f"every {who} that plays {game} is racing all it can; try later")
    return rng.choice([bot for bot in players if bot.free == most])


__all__ = ["ANY_BOT", "MAX_LISTED", "OnlineBot", "choose", "merge", "offer"]
