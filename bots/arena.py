"""Playing bots in-process on seeded deals: the core of ``parlour arena`` and ``bench/bots.py``.

:func:`play` runs one bot through one deal. The bot only ever receives :class:`Turn` values built
from the player's view, as over the wire; the state stays here.

:func:`run_arena` plays several bots on the same deals (duplicate: every bot plays every deal),
spread over worker processes, and returns an :class:`ArenaResult` whose summaries carry the
statistics of :mod:`parlour.bots.stats`. The deals, and the seed each bot gets on each deal, follow
from the arena's seed alone, so the scores are the same whatever the number of workers (only the
times per move differ). A bot must therefore not carry anything from one bot object to the next.

Times per move are the CPU time of the thread that runs ``choose()`` (``time.thread_time``): what a
move costs on one core, much less swayed than wall time by whatever else the machine runs.
"""

from __future__ import annotations

import hashlib
import importlib
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TextIO

from parlour.bots.base import Bot, Turn
from parlour.bots.registry import BotNotFound, load_bot
from parlour.bots.stats import Interval, Record, head_to_head, mean_interval, wilson_interval
from parlour.games import CONCEDE, Ending, Game, Score, get_game
from parlour.games.base import OptionValue

MAX_MOVES = 3000  # a game still running after this many moves ends out of time (some games allow cycles)


@dataclass(frozen=True, slots=True)
class Played:
    """One bot's game on one deal."""

    score: Score
    ending: Ending
    won: bool
    moves: int
    think: tuple[float, ...]  # CPU seconds each choose() took


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
        t0 = time.thread_time()
        move = bot.choose(turn)
        think.append(time.thread_time() - t0)
        state = game.apply(state, move)
        seq += 1
        if move == CONCEDE:
            break
    ending = state.ended if state.ended is not None else Ending.STUCK
    final = game.view(state, "player")
    bot.finish(final, None)
    return Played(game.score(state), ending, ending is Ending.WON, seq, tuple(think))


# --- the arena --------------------------------------------------------------------------------


class ArenaError(Exception):
    """A bot failed on a deal (an illegal move, an exception): the message names the bot and the deal."""


def bot_class(spec: str) -> type[Bot]:
    """The bot a spec names: an installed bot's name (``greedy``), or ``module:Class`` for a bot not
    installed as a package (``mybots.clever:Clever``, a module on ``sys.path``).
    Raises :class:`BotNotFound`."""
    if ":" not in spec:
        return load_bot(spec)
    module_name, _, class_name = spec.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise BotNotFound(f"cannot load the bot {spec!r}: {type(error).__name__}: {error}") from None
    if not (isinstance(found, type) and issubclass(found, Bot)):
        raise BotNotFound(f"{spec} is not a parlour.bots.Bot subclass")
    return found


def deal_seed(seed: int, index: int) -> int:
    """The seed of the arena's deal ``index`` (128 bits, as ``parlour`` makes new seeds)."""
    return int.from_bytes(hashlib.sha256(f"parlour-arena deal {seed} {index}".encode()).digest()[:16])


def bot_seed(seed: int, index: int) -> int:
    """The seed every bot gets on the arena's deal ``index`` (64 bits)."""
    return int.from_bytes(hashlib.sha256(f"parlour-arena bot {seed} {index}".encode()).digest()[:8])


# Scores only a won game gets, where that is not simply the best end of the game's score range.
_WINNING: dict[str, Callable[[Score, Mapping[str, OptionValue]], bool]] = {
    "cheer": lambda score, options: score > 0,  # 12, 10 or 3 points (1 with win_loss) for a win, else 0
    "the-chance": lambda score, options: score == {"any": 8, "alternate": 42, "suit": 188}[options["sequence"]],
}


def winning_score(game: Game[Any], options: Mapping[str, OptionValue], score: Score) -> bool:
    """Whether only a won game scores ``score`` (how a ceiling, which is a score, counts as a win).

    In Cheer with ``win_loss`` a win that opened two parking spaces scores 0, as a loss does: a
    ceiling of 0 counts as no win.
    """
    if game.name in _WINNING:
        return _WINNING[game.name](score, options)
    low, high = game.score_range
    return score == (high if game.higher_is_better else low)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One bot's game on one arena deal, in brief."""

    score: Score
    ending: Ending
    moves: int
    think: float  # seconds in choose(), all moves together
    think_max: float  # the longest choose(), in seconds


@dataclass(frozen=True, slots=True)
class DealResult:
    """Every bot's game on one deal, in the order of the arena's bots, and the deal's ceiling."""

    index: int
    seed: int
    outcomes: tuple[Outcome, ...]
    ceiling: Score | None  # None: not asked for, or no solver for this game


@dataclass(frozen=True, slots=True)
class Setup:
    """What an arena plays: everything a worker process needs (plain data, so it pickles)."""

    game: str
    bots: tuple[str, ...]  # bot specs, see bot_class
    options: dict[str, OptionValue]
    seed: int
    ceiling: bool
    budget: float
    max_moves: int


class _Table:
    """One process's side of an arena: the game and the bot classes, loaded once."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.game = get_game(setup.game)
        self.classes = [bot_class(spec) for spec in setup.bots]

    def deal(self, index: int) -> DealResult:
        s = self.setup
        seed = deal_seed(s.seed, index)
        outcomes = []
        for spec, cls in zip(s.bots, self.classes, strict=True):
            try:
                played = play(
                    cls(bot_seed(s.seed, index)), self.game, seed, s.options, max_moves=s.max_moves, budget=s.budget
                )
            except Exception as error:
                raise ArenaError(
                    f"{spec} failed on deal {index} (seed {seed}) of {s.game}: {type(error).__name__}: {error}"
                ) from error
            outcomes.append(
                Outcome(played.score, played.ending, played.moves, sum(played.think), max(played.think, default=0.0))
            )
        best = _ceiling(self.game, self.game.deal(seed, s.options)) if s.ceiling else None
        return DealResult(index, seed, tuple(outcomes), best)


def _ceiling(game: Game[Any], state: Any) -> Score | None:
    from parlour.bots.ceiling import ceiling

    try:
        return ceiling(game, state)
    except ModuleNotFoundError as error:  # no built-in module for this game (yet): no ceiling
        if error.name != f"parlour.bots.builtin.{game.name.replace('-', '_')}":
            raise
        return None


_table: _Table | None = None  # a worker process's table, set by _start_worker


def _start_worker(setup: Setup) -> None:
    global _table
    _table = _Table(setup)


def _play_deal(index: int) -> DealResult:
    assert _table is not None, "a worker plays only after _start_worker"
    return _table.deal(index)


class Progress:
    """A one-line progress bar redrawn in place on a terminal (at most ten times a second)."""

    WIDTH = 30

    def __init__(self, stream: TextIO, total: int, label: str = "") -> None:
        self.stream = stream
        self.total = total
        self.label = label
        self.started = time.monotonic()
        self.drawn = 0.0
        self.done = 0

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if now - self.drawn >= 0.1 or self.done == self.total:
            self.drawn = now
            self._draw(now - self.started)

    def _draw(self, elapsed: float) -> None:
        filled = self.WIDTH * self.done // max(1, self.total)
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        eta = f"{int(left) // 60}:{int(left) % 60:02d} left" if self.done < self.total else f"{elapsed:.1f}s"
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(f"\r{self.label}[{bar}] {self.done}/{self.total} deals, {rate:.1f}/s, {eta} ")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def cores() -> int:
    """The cores this process may run on: the arena's default number of workers."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def run_arena(
    game: Game[Any] | str,
    bots: Sequence[str],
    deals: int,
    *,
    seed: int = 0,
    options: Mapping[str, object] | None = None,
    jobs: int | None = None,
    ceiling: bool = False,
    budget: float = 1.0,
    max_moves: int = MAX_MOVES,
    progress: TextIO | None = None,
    label: str = "",
) -> ArenaResult:
    """Play every bot of ``bots`` (specs, see :func:`bot_class`) on the same ``deals`` deals of ``game``.

    ``jobs`` worker processes share the deals (default: one per core; 1 plays in this process).
    With ``ceiling`` each deal's perfect-information ceiling is computed too, where the game has a
    solver. ``progress``: a stream (a terminal's stderr) to draw a progress bar on, after ``label``.
    Raises :class:`BotNotFound` for a bot that is not there or does not play ``game``, and
    :class:`ArenaError` when a bot fails on a deal.
    """
    game = get_game(game) if isinstance(game, str) else game
    if not bots:
        raise ValueError("an arena needs at least one bot")
    if len(set(bots)) != len(bots):
        raise ValueError(f"a bot is named twice: {', '.join(bots)}")
    if deals < 1:
        raise ValueError(f"an arena plays at least one deal, not {deals}")
    for spec in bots:
        if not bot_class(spec).plays(game.name):
            raise BotNotFound(f"the bot {spec!r} does not play {game.name}")
    setup = Setup(game.name, tuple(bots), game.resolve_options(options), seed, ceiling, budget, max_moves)
    jobs = min(deals, jobs or cores())
    bar = Progress(progress, deals, label) if progress is not None else None
    results: list[DealResult] = []
    try:
        if jobs == 1:
            table = _Table(setup)
            for index in range(deals):
                results.append(table.deal(index))
                if bar:
                    bar.advance()
        else:
            chunk = max(1, min(8, deals // (jobs * 8)))
            with multiprocessing.get_context().Pool(jobs, _start_worker, (setup,)) as pool:
                for result in pool.imap_unordered(_play_deal, range(deals), chunk):
                    results.append(result)
                    if bar:
                        bar.advance()
    finally:
        if bar:
            bar.close()
    results.sort(key=lambda r: r.index)
    return ArenaResult(setup, tuple(results))


# --- results --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotSummary:
    """One bot's figures over the arena's deals (intervals: 95%, see :mod:`parlour.bots.stats`)."""

    bot: str
    deals: int
    wins: int  # games that ended won
    win_rate: float
    win_ci: Interval | None
    mean_score: float
    score_ci: Interval | None  # Student's t; None with a single deal
    moves: int
    ms_per_move: float  # mean over every move of every deal
    max_ms: float  # the slowest move


@dataclass(frozen=True, slots=True)
class CeilingSummary:
    """The perfect-information ceiling over the deals that have one: the best score reachable."""

    deals: int
    wins: int  # deals whose ceiling only a won game scores (see winning_score)
    win_rate: float
    win_ci: Interval | None
    mean_score: float
    score_ci: Interval | None


def _score_data(score: Score) -> int | str:
    return score if isinstance(score, int) else f"{score.numerator}/{score.denominator}"


def _score_read(data: int | str) -> Score:
    return data if isinstance(data, int) else Fraction(data)


@dataclass(frozen=True, slots=True)
class ArenaResult:
    """Every deal's results, in deal order, and the figures drawn from them."""

    setup: Setup
    deals: tuple[DealResult, ...]

    def to_map(self) -> dict[str, Any]:
        """Plain data (JSON-ready): the setup and every deal's outcomes; :meth:`from_map` reads it back."""
        s = self.setup
        return {
            "game": s.game,
            "bots": list(s.bots),
            "options": dict(s.options),
            "seed": s.seed,
            "ceiling": s.ceiling,
            "budget": s.budget,
            "max_moves": s.max_moves,
            "deals": [
                {
                    "index": d.index,
                    "seed": str(d.seed),
                    "ceiling": None if d.ceiling is None else _score_data(d.ceiling),
                    "outcomes": [
                        [_score_data(o.score), o.ending.value, o.moves, o.think, o.think_max] for o in d.outcomes
                    ],
                }
                for d in self.deals
            ],
        }

    @classmethod
    def from_map(cls, data: Mapping[str, Any]) -> ArenaResult:
        setup = Setup(
            data["game"],
            tuple(data["bots"]),
            dict(data["options"]),
            int(data["seed"]),
            bool(data["ceiling"]),
            float(data["budget"]),
            int(data["max_moves"]),
        )
        deals = tuple(
            DealResult(
                int(d["index"]),
                int(d["seed"]),
                tuple(
                    Outcome(_score_read(score), Ending(ending), int(moves), float(think), float(think_max))
                    for score, ending, moves, think, think_max in d["outcomes"]
                ),
                None if d["ceiling"] is None else _score_read(d["ceiling"]),
            )
            for d in data["deals"]
        )
        return cls(setup, deals)

    @property
    def game(self) -> Game[Any]:
        return get_game(self.setup.game)

    @property
    def bots(self) -> tuple[str, ...]:
        return self.setup.bots

    def scores(self, bot: str) -> list[Score]:
        """The bot's score on each deal, in deal order."""
        i = self.bots.index(bot)
        return [deal.outcomes[i].score for deal in self.deals]

    def summary(self, bot: str) -> BotSummary:
        i = self.bots.index(bot)
        outcomes = [deal.outcomes[i] for deal in self.deals]
        wins = sum(1 for o in outcomes if o.ending is Ending.WON)
        n = len(outcomes)
        moves = sum(o.moves for o in outcomes)
        scores = [float(o.score) for o in outcomes]
        return BotSummary(
            bot=bot,
            deals=n,
            wins=wins,
            win_rate=wins / n,
            win_ci=wilson_interval(wins, n),
            mean_score=statistics.fmean(scores),
            score_ci=mean_interval(scores),
            moves=moves,
            ms_per_move=1000 * sum(o.think for o in outcomes) / moves if moves else 0.0,
            max_ms=1000 * max((o.think_max for o in outcomes), default=0.0),
        )

    def summaries(self) -> list[BotSummary]:
        return [self.summary(bot) for bot in self.bots]

    def record(self, a: str, b: str) -> Record:
        """Bot ``a``'s head-to-head record against bot ``b`` over the same deals."""
        return head_to_head(self.scores(a), self.scores(b), self.game.better)

    def ceiling(self) -> CeilingSummary | None:
        """The ceiling's figures, or ``None`` if it was not asked for or the game has no solver."""
        known = [deal.ceiling for deal in self.deals if deal.ceiling is not None]
        if not known:
            return None
        game = self.game
        wins = sum(1 for score in known if winning_score(game, self.setup.options, score))
        scores = [float(score) for score in known]
        return CeilingSummary(
            deals=len(known),
            wins=wins,
            win_rate=wins / len(known),
            win_ci=wilson_interval(wins, len(known)),
            mean_score=statistics.fmean(scores),
            score_ci=mean_interval(scores),
        )
