"""A bot racing the player in this process, on the same deal: the opponent of a practice race.

:class:`Rival` holds the bot's own game (a state the player's screen never sees) and plays it one move
at a time, as the arena does: the bot gets only its :class:`~parlour.bots.base.Turn` (its view), a game
past ``max_moves`` ends out of time, and a bot error ends its game as conceded (its message kept).
:func:`practice_ranking` ranks the two games as a race ranks its seats.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from parlour.bots.base import Bot, Turn
from parlour.bots.registry import load_bot
from parlour.client.tui.race import Opponent
from parlour.games import Ending, Game
from parlour.protocol.replay import ranked_results
from parlour.protocol.text import plural
from parlour.protocol.tournament import MAX_MOVES


class Rival:
    """``bot`` (an installed bot's name) playing ``game`` on the deal of ``seed``. Raises
    :class:`~parlour.bots.registry.BotNotFound` for a bot that is not installed."""

    def __init__(
        self, bot: str, game: Game[Any], seed: int, options: Mapping[str, Any] | None = None, max_moves: int = MAX_MOVES
    ) -> None:
        self.name = bot
        self.game = game
        self.max_moves = max_moves
        self.bot: Bot = load_bot(bot)(seed)
        self.state = game.deal(seed, options)
        self.moves = 0
        self.problem = ""  # why the bot's game was ended for it, if it was
        self.started_at = time.monotonic()
        self.finished_after: float | None = None  # seconds from the start to the end of its game
        self._started = False

    @property
    def finished(self) -> bool:
        return self.state.ended is not None

    def step(self) -> None:
        """The bot's next move (or the end of its game). Blocking: the bot thinks here."""
        if self.finished:
            return
        view = self.game.view(self.state, "player")
        turn = Turn.of(view, self.moves)
        if not self._started:
            self.bot.start(turn)
            self._started = True
        if self.moves >= self.max_moves:
            self._end(Ending.OUT_OF_TIME)
            return
        try:
            move = self.bot.choose(turn)
            self.state = self.game.apply(self.state, move)
        except Exception as error:  # a bot's bug ends its own game, never the player's
            self.problem = f"{self.name} failed: {type(error).__name__}: {error}"
            self._end(Ending.CONCEDED)
            return
        self.moves += 1
        if self.finished:
            self._done()

    def opponent(self) -> Opponent:
        """The bot as the race panel shows an opponent."""
        ended = None if self.state.ended is None else str(self.state.ended)
        return Opponent(1, self.name, self.game.score(self.state), self.moves, self.finished, ended)

    def result(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "score": self.game.score(self.state),
            "ended": str(self.state.ended),
            "time": self.finished_after or 0.0,
            "moves": self.moves,
        }

    def _end(self, why: Ending) -> None:
        self.state = self.game.end(self.state, why)  # type: ignore[arg-type]
        self._done()

    def _done(self) -> None:
        self.finished_after = round(time.monotonic() - self.started_at, 1)
        self.bot.finish(self.game.view(self.state, "player"), None)


def practice_ranking(game: Game[Any], results: list[dict[str, Any]]) -> list[str]:
    """The ranking lines of a practice race, best first (as a race ranks: score, played out before
    conceded, time, moves)."""
    ranked = ranked_results(results, game.higher_is_better)
    return [
        f"{place}. {r['name']}: score {r['score']} ({r['ended']}, {plural(r['moves'], 'move')}, {r['time']} s)"
        for place, r in enumerate(ranked, 1)
    ]
