"""Playing bots in-process on seeded deals: the core of ``parlour arena`` and ``bench/bots.py``.

:func:`play` runs one bot through one deal. The bot only ever receives :class:`Turn` values built
from the player's view, as over the wire; the state stays here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from parlour.bots.base import Bot, Turn
from parlour.games import CONCEDE, Ending, Game, Score, get_game

MAX_MOVES = 3000  # a game still running after this many moves ends out of time (some games allow cycles)


@dataclass(frozen=True, slots=True)
class Played:
    """One bot's game on one deal."""

    score: Score
    ending: Ending
    won: bool
    moves: int
    think: tuple[float, ...]  # seconds each choose() took


def play(
    bot: Bot,
    game: Game[Any] | str,
    seed: int,
    options: Mapping[str, object] | None = None,
    *,
    max_moves: int = MAX_MOVES,
    budget: float = 1.0,
) -> Played:
    """``bot`` plays the deal of ``seed`` to its end (or to ``max_moves`` moves, then out of time).

    A move the bot returns that is not legal raises the game's :class:`IllegalMove`: a bot bug.
    """
    game = get_game(game) if isinstance(game, str) else game
    state = game.deal(seed, options)
    think: list[float] = []
    seq = 0
    started = False
    while state.ended is None:
        if seq >= max_moves:
            state = game.end(state, Ending.OUT_OF_TIME)
            break
        turn = Turn.of(game.view(state, "player"), seq, None, budget)
        if not started:
            bot.start(turn)
            started = True
        if not turn.moves:
            break
        t0 = time.perf_counter()
        move = bot.choose(turn)
        think.append(time.perf_counter() - t0)
        state = game.apply(state, move)
        seq += 1
        if move == CONCEDE:
            break
    ending = state.ended if state.ended is not None else Ending.STUCK
    final = game.view(state, "player")
    bot.finish(final, None)
    return Played(game.score(state), ending, ending is Ending.WON, seq, tuple(think))
