"""How strong each built-in bot is at each game: the arena on the same deals for every bot.

For every game and option set (Cheer with win_loss false and true, The Chance with each sequence
rule, the others as they come) and every built-in bot (random, greedy, search), over --deals
identical deals: the win rate and the mean score with 95% confidence intervals, the mean and the
longest time per move, and the perfect-information ceiling (the best score a player who sees every
card reaches) where the game has a solver. A bot whose per-game module is not written yet is
listed as such.

    python bench/bots.py                                  # every game, 500 deals, a table
    python bench/bots.py --markdown bots/STRENGTH.md      # the same, written as bots/STRENGTH.md
    python bench/bots.py --games golf --bots random,greedy --deals 100 --json

--save FILE keeps every deal's raw results (JSON); --reuse FILE takes a game and option set from
such a file, when it was measured with the same bots, deals, seed and budget, instead of playing
it again, except the games named by --measure. So after a change to one game's bots:

    python bench/bots.py --reuse bots/STRENGTH.json --measure golf --save bots/STRENGTH.json --markdown bots/STRENGTH.md

re-measures Golf only and rewrites the table; each game's row of the provenance table says when,
at which commit and on what machine it was measured.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from parlour.bots import BotNotFound, Turn
from parlour.bots.arena import ArenaResult, BotSummary, bot_class, cores, run_arena, winning_score
from parlour.bots.ceiling import ceiling_exact
from parlour.bots.report import arena_records, options_text, percent, rate_ci_text, score_ci_text
from parlour.bots.stats import Interval, mean_interval, wilson_interval
from parlour.games import Game, Score, game_names, get_game
from parlour.games.base import OptionValue

BUILT_IN = ("random", "greedy", "search")
COMMAND = "python bench/bots.py --save bots/STRENGTH.json --markdown bots/STRENGTH.md"


def option_sets(game: Game[Any]) -> list[dict[str, OptionValue]]:
    """Every combination of the game's option values (one empty set for a game without options)."""
    names = [o.name for o in game.options_spec]
    return [
        dict(zip(names, values, strict=True)) for values in itertools.product(*(o.values for o in game.options_spec))
    ]


def not_ready(spec: str, game: Game[Any], options: dict[str, OptionValue]) -> str | None:
    """Why the bot cannot play this game yet (its built-in module is not written), or None if it can."""
    cls = bot_class(spec)
    if not cls.plays(game.name):
        return "does not play it"
    try:
        cls(0).start(Turn.of(game.view(game.deal(0, options), "player"), 0))
    except ModuleNotFoundError as error:
        if not (error.name or "").startswith("parlour.bots.builtin."):
            raise
        return "not written yet"
    except AttributeError as error:
        if not (isinstance(error.obj, ModuleType) and error.obj.__name__.startswith("parlour.bots.builtin.")):
            raise
        return f"not written yet ({error.name} missing)"
    return None


@dataclass(frozen=True)
class Odds:
    """A human's odds at a game, from the seeds, and what they count."""

    text: str
    rate: float  # the rate the text stands for (an upper bound where it says "under")
    counts: str  # what a hit is, for the table
    hit: Callable[[Game[Any], dict[str, OptionValue], Score], bool]


# The human odds the seeds give, each beside the game's default options.
HUMAN_ODDS = {
    "cheer": Odds(
        "a high score about half the time",
        0.5,
        "a win with at most one parking space (10 or 12 points)",
        lambda g, o, s: s >= 10,
    ),
    "gaps": Odds("about 1 win in 20", 1 / 20, "a win", winning_score),
    "german-patience": Odds("about 1 win in 50", 1 / 50, "a win", winning_score),
    "golf": Odds("under 1 win in 20", 1 / 20, "a win", winning_score),
    "carpet": Odds("most games", 0.5, "a win", winning_score),
}


@dataclass(frozen=True)
class Provenance:
    """When, at which commit and where a game and option set was measured."""

    measured: str  # UTC, ISO 8601, to the minute
    commit: str  # the git commit of the code measured ("+" when it had changes not committed), or "unknown"
    machine: str
    jobs: int

    @classmethod
    def now(cls, jobs: int) -> Provenance:
        return cls(datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), git_commit(), machine(), jobs)


@dataclass(frozen=True)
class Measured:
    """One game and option set: the arena's result, the bots that could not play, and its provenance."""

    game: Game[Any]
    options: dict[str, OptionValue]
    result: ArenaResult | None  # None when no bot could play
    missing: dict[str, str]  # bot: why it did not play
    provenance: Provenance

    def to_map(self) -> dict[str, Any]:
        """Plain data (JSON-ready) for ``--save``; :func:`read_saved` reads it back."""
        return {
            "game": self.game.name,
            "options": dict(self.options),
            "result": None if self.result is None else self.result.to_map(),
            "missing": dict(self.missing),
            "provenance": vars(self.provenance),
        }

    @classmethod
    def from_map(cls, data: dict[str, Any]) -> Measured:
        result = None if data["result"] is None else ArenaResult.from_map(data["result"])
        return cls(get_game(data["game"]), data["options"], result, data["missing"], Provenance(**data["provenance"]))


# What a saved measurement must match to be reused: game, options, bots, deals, seed, budget.
Key = tuple[str, str, tuple[str, ...], int, int, float]


def key(game: str, options: dict[str, OptionValue], bots: Sequence[str], deals: int, seed: int, budget: float) -> Key:
    return (game, json.dumps(options, sort_keys=True), tuple(bots), deals, seed, budget)


def saved_key(m: Measured, bots: Sequence[str], deals: int, seed: int, budget: float) -> Key | None:
    """The key ``m`` answers for, or None if it was measured otherwise than asked (other bots, deals...)."""
    if m.result is None:
        return None
    setup = m.result.setup
    played = [bot for bot in bots if bot not in m.missing]
    if list(setup.bots) != played or len(m.result.deals) != deals or setup.seed != seed or setup.budget != budget:
        return None
    return key(m.game.name, m.options, bots, deals, seed, budget)


def read_saved(path: Path) -> list[Measured]:
    """The measurements a ``--save`` wrote to ``path``."""
    data = json.loads(path.read_text())
    return [Measured.from_map(item) for item in data["measured"]]


def saved_beyond(saved: dict[Key, Measured], measured: Sequence[Measured]) -> list[Measured]:
    """The saved measurements of game and option sets not in ``measured`` (yet)."""
    done = {(m.game.name, json.dumps(m.options, sort_keys=True)) for m in measured}
    return [m for m in saved.values() if (m.game.name, json.dumps(m.options, sort_keys=True)) not in done]


def write_saved(path: Path, measured: Sequence[Measured]) -> None:
    path.write_text(json.dumps({"measured": [m.to_map() for m in measured]}, separators=(",", ":")) + "\n")


def git_commit() -> str:
    """The commit of this checkout, "+" added when it has changes not committed; "unknown" outside git."""
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=here, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=here, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+" if dirty else "")


def measure(
    game: Game[Any],
    options: dict[str, OptionValue],
    bots: Sequence[str],
    deals: int,
    seed: int,
    jobs: int | None,
    budget: float,
    progress: bool,
) -> Measured:
    missing = {bot: why for bot in bots if (why := not_ready(bot, game, options)) is not None}
    playing = [bot for bot in bots if bot not in missing]
    provenance = Provenance.now(jobs or cores())
    if not playing:
        return Measured(game, options, None, missing, provenance)
    label = f"{game.name} {options_text(options)} "
    result = run_arena(
        game,
        playing,
        deals,
        seed=seed,
        options=options,
        jobs=jobs,
        ceiling=True,
        budget=budget,
        progress=sys.stderr if progress else None,
        label=label,
    )
    return Measured(game, options, result, missing, provenance)


# --- output ------------------------------------------------------------------------------------

HEADER = """# How strong the bots are

Generated; do not edit by hand. Regenerate it with `{regenerate}`
(every game and option set, every built-in bot, 500 deals from seed 0). `bots/STRENGTH.json` keeps
every deal's results: `--reuse bots/STRENGTH.json --measure GAME` measures one game again and
takes the others from there (see `bench/bots.py`).

This one came from `{command}`:
{deals} deals from seed {seed}, the same deals for every bot; where, when and at which commit
each game was measured is listed at the end. Times are per move, in milliseconds of CPU time
(each move runs on one core).

Columns:

- **win rate**: the share of deals the bot won, with its 95% Wilson interval. A win is the game's
  own: every card home (Golf: the piles cleared), whatever it scores (in Cheer a win that opened two
  parking spaces scores 3 points, 0 with `win_loss`).
- **mean score**: the bot's mean score by the game's own rule (Golf: lower is better), with its 95%
  Student's t interval.
- **ms/move** and **max ms**: the mean time a move took over every move of every deal, and the
  longest.
- **ceiling**: a player who sees every card (a solver, or a strong search where no exact solver is
  feasible; used only for measurement, it never plays a race): its win rate counts the deals whose
  best reachable score only a won game gets, and its mean score is the mean of the best score
  reachable. "ceiling (exact)" is a solver's exact best; "ceiling (a bound)" is the best a strong
  search found seeing every card: reachable, so the true best is at least that (it shows what can be
  done, never that more cannot). "no solver" where the game has none.

A human's odds, as the seeds give them:

{odds}

The table after the first sets the best bot (the strongest one listed, on a tie) beside them, with
the ceiling where doubling them would take more than a player seeing every card can do. The next
says whether each bot beats the one before it in mean score with 95% intervals apart; where the two
intervals overlap, it also gives the mean gain on the same deals (each deal is played by both bots)
with its 95% interval: an interval clear of 0 says the stronger bot does better deal by deal, and
that the deals' spread, not the bots, makes the two means' intervals overlap.
"""

# Why a game's figures look as they do, where the numbers alone mislead (Markdown, under the tables).
NOTES = {
    "golf": """**Golf: about 24%, not clearly 25%.** The search bot's share of wins depends on the deals
more than its interval suggests: on the 500 deals above it wins 126 (25.2%), on the next 500
(`parlour arena golf --bots search --deals 500 --seed 1`) 112 (22.4%), so about 23.8% over
1000; the bot before it won 117 on each. Measured against exact blind play (every chain end
valued exactly from positions with 9 and 10 stock cards left, 400 positions each) it gives away
about 0.3 points of win rate per decision, most of it from its rollout policy rather than from
too few rollouts; exact play from 12 stock cards left on deals 0-199 wins 22.3% where the bot
before this one won 19.0%, so a blind player's optimum is probably 25-28%. A player who sees
every card wins about 44% (the ceiling).""",
    "the-chance": """**The Chance: the deal decides most of the score.** A won game scores far more than any
lost one: under `suit` a win scores 4 x (52 - 5) = 188 and a loss n - 5 for its n cards home (a
loss usually puts about five home, so scores near 0); under `alternate` 42 against (n - 10) / 2.
So a mean over 500 deals is mostly the number of wins times 188 / 500 (or 42 / 500), and the
wins are few: even the ceiling, which sees every card, wins only the share in its row above.
Two bots whose win counts differ by a handful of deals then have overlapping intervals for their
means whatever their skill; the gain on the same deals (the last table) is the fair comparison.
Under `any` a win earns nothing beyond its cards, and the intervals separate.""",
    "german-patience": """**German Patience: a human's "1 in 50" is not doubled here, and nothing here shows that it
cannot be.** Doubling it means winning 4% of deals. `search`, which sees only what a racer sees,
wins 1 of the 500: it places about 77 of the 104 cards and ends with the rest buried on the one
waste pile, which gives its cards back only in the reverse of the order they went on, with no
second pass through the stock. Where it loses its chances, measured by starting the ceiling's beam
(which sees the stock) from the positions `search` reached on deals 0-14: from the deal the beam
places 89.1 cards on average, from `search`'s position after 16 cards turned 88.7, after 32 88.1,
after 48 83.3, after 64 80.8, after 80 76.6, and `search` ends at 76.0. So its first 32 turns give
nothing away; from there on, not seeing which cards come next, it keeps back or builds on the wrong
ones. (Weighing its options two cards ahead instead of one between turns 16 and 48 placed 1.1 cards more
on deals 0-39, 77.6 against 76.5, at four times the time a move, and won none. Every bound of its
search doubled, 4x the time: 77.2 cards against 76.9 on deals 0-59, no win either way. On deals
0-99, where `search` places 77.6 and wins none: a bonus for each waste card lying on the card one
rank above it, so that one pile can take both in turn, gained 0.1 to 0.6 cards at weights up to 600
(a card in a pile is worth 500; within noise, the 95% interval of the gain +-1.3) and lost 3.0 at
1000; random playouts by `greedy` in place of the one-card outlook (16 to 64 playouts of 12 to 48
cards) placed 74.6 to 76.7, one win in the three runs.) The ceiling is a beam search that sees the
whole stock, not an exact solver: two decks make exact search far too large (a perfect-information
win test written for it decided none of 100 whole deals in minutes each). Its wins show what a
seeing player reaches at least, never what nobody can; so the table neither shows 4% reached nor
rules it out. It does say how hard 4% is: a player who sees every card and searches wins about that
often. And wins come only with sight of most of the stock. A player who sees the next K stock cards
and no more, planning with the ceiling's beam over them, on deals 0-99 (`python
bench/german_patience_sight.py --sight 1 --sight 4 --sight 8`; K=0 is `search`): K=0 places 77.6
cards and wins none, K=1 78.2 and none, K=4 83.4 and 1 (1% [0.2%, 5.4%]), K=8 86.4 [85.0, 87.8] and
1, the whole stock (the ceiling) 88.6 and 4. Seeing a card ahead is worth less than a card placed;
seeing eight is worth nine cards, and still one win in a hundred. Doubling a human's 1 in 50 asks a
bot that sees no card ahead to win as often as a search that sees all 96. (A blind player that
drew the next 3 cards 8 times at random and let that beam vote on its move placed 76.1 cards on
deals 0-19, against `search`'s 77.3.)""",
}


def interval_cell(value: float, ci: Interval | None, percent_rate: bool) -> str:
    if percent_rate:
        return f"{percent(value)} {rate_ci_text(ci)}"
    return f"{value:.2f} {score_ci_text(ci)}"


def rows(measured: Measured) -> list[list[str]]:
    """The table rows of one game and option set: one per bot, then the ceiling."""
    head = [measured.game.name, options_text(measured.options)]
    out = []
    if measured.result is not None:
        for s in measured.result.summaries():
            out.append(
                [
                    *head,
                    s.bot,
                    interval_cell(s.win_rate, s.win_ci, True),
                    interval_cell(s.mean_score, s.score_ci, False),
                    f"{s.ms_per_move:.3f}",
                    f"{s.max_ms:.1f}",
                ]
            )
    for bot, why in measured.missing.items():
        out.append([*head, bot, why, "", "", ""])
    best = measured.result.ceiling() if measured.result is not None else None
    if best is None:
        out.append([*head, "ceiling", "no solver", "", "", ""])
    else:
        out.append(
            [
                *head,
                "ceiling (exact)" if ceiling_exact(measured.game) else "ceiling (a bound)",
                interval_cell(best.win_rate, best.win_ci, True),
                interval_cell(best.mean_score, best.score_ci, False),
                "",
                "",
            ]
        )
    return out


COLUMNS = ["game", "options", "bot", "win rate [95% CI]", "mean score [95% CI]", "ms/move", "max ms"]
ODDS_COLUMNS = [
    "game",
    "a human's odds (seeds)",
    "counted as",
    "best bot",
    "best bot's rate [95% CI]",
    "ceiling",
    "doubled?",
]


def hit_rate(odds: Odds, m: Measured, scores: Sequence[Score]) -> tuple[float, Interval | None]:
    """The share of ``scores`` that count as what ``odds`` counts, with its Wilson interval."""
    hits = sum(1 for s in scores if odds.hit(m.game, m.options, s))
    return hits / len(scores), wilson_interval(hits, len(scores))


def odds_rows(measured: Sequence[Measured]) -> list[list[str]]:
    """Per game with human odds (its default options): the best bot's rate of what the odds count, and the ceiling's."""
    out = []
    for m in measured:
        odds = HUMAN_ODDS.get(m.game.name)
        if odds is None or m.result is None or m.options != m.game.resolve_options():
            continue
        result = m.result

        rates = {bot: hit_rate(odds, m, result.scores(bot)) for bot in result.bots}
        best = max(reversed(result.bots), key=lambda bot: rates[bot][0])  # the bots come weakest first
        ceilings = [d.ceiling for d in result.deals if d.ceiling is not None]
        ceiling = hit_rate(odds, m, ceilings) if ceilings else None
        target = 2 * odds.rate
        if rates[best][0] >= target:
            verdict = "yes"
        elif ceiling is not None and ceiling[0] < target and ceiling_exact(m.game):
            verdict = f"impossible: 2 x {percent(odds.rate)} is above the ceiling's {percent(ceiling[0])}"
        elif target >= 1:
            verdict = f"only by winning every deal: 2 x {percent(odds.rate)} is {percent(target)}"
        elif ceiling is not None and ceiling[0] < target:
            verdict = (
                f"no; the ceiling's {percent(ceiling[0])} is under 2 x {percent(odds.rate)}, "
                "but it is only a lower bound, so it proves nothing"
            )
        else:
            verdict = "no"
        out.append(
            [
                m.game.name,
                odds.text,
                odds.counts,
                best,
                interval_cell(*rates[best], True),
                "no solver" if ceiling is None else interval_cell(*ceiling, True),
                verdict,
            ]
        )
    return out


ORDER_COLUMNS = ["game", "options", "mean score, each bot against the one before it"]


def paired_gain(game: Game[Any], weaker: Sequence[Score], stronger: Sequence[Score]) -> tuple[float, Interval | None]:
    """How much better ``stronger`` scored than ``weaker`` on the same deal, averaged over the deals (by the
    game's rule: positive is better, also where lower scores are), with its 95% Student's t interval."""
    sign = 1.0 if game.higher_is_better else -1.0
    gains = [sign * (float(s) - float(w)) for w, s in zip(weaker, stronger, strict=True)]
    return statistics.fmean(gains), mean_interval(gains)


def order_verdict(
    game: Game[Any], weaker: BotSummary, stronger: BotSummary, gain: tuple[float, Interval | None]
) -> str:
    """Whether ``stronger`` beats ``weaker`` in mean score with the two 95% intervals apart (the issue's bar);
    where they overlap, also the paired gain on the same deals and whether its interval is clear of 0."""
    ahead = game.better(stronger.mean_score, weaker.mean_score)
    apart = (
        stronger.score_ci is not None
        and weaker.score_ci is not None
        and (stronger.score_ci[0] > weaker.score_ci[1] or stronger.score_ci[1] < weaker.score_ci[0])
    )
    if not ahead:
        return f"{stronger.bot} not above {weaker.bot}"
    if apart:
        return f"{stronger.bot} above {weaker.bot}, intervals apart"
    mean, ci = gain
    clear = ci is not None and ci[0] > 0
    paired = f"{mean:+.2f} {score_ci_text(ci)}, {'clear of 0' if clear else 'not clear of 0'}"
    return f"{stronger.bot} above {weaker.bot}, intervals overlap; gain on the same deals {paired}"


def order_rows(measured: Sequence[Measured]) -> list[list[str]]:
    """Per game and option set: whether each bot beats the bot before it in mean score (`order_verdict`)."""
    out = []
    for m in measured:
        if m.result is None or len(m.result.bots) < 2:
            continue
        result = m.result
        verdicts = [
            order_verdict(
                m.game, weaker, stronger, paired_gain(m.game, result.scores(weaker.bot), result.scores(stronger.bot))
            )
            for weaker, stronger in itertools.pairwise(result.summaries())
        ]
        out.append([m.game.name, options_text(m.options), "; ".join(verdicts)])
    return out


def markdown_table(columns: Sequence[str], table: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in table]
    return "\n".join(lines)


def plain_table(columns: Sequence[str], table: Sequence[Sequence[str]]) -> str:
    widths = [max(len(c), *(len(row[i]) for row in table)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in table]
    return "\n".join(lines)


PROVENANCE_COLUMNS = ["game", "options", "measured", "commit", "machine", "workers"]


def provenance_rows(measured: Sequence[Measured]) -> list[list[str]]:
    return [
        [m.game.name, options_text(m.options), p.measured, p.commit, p.machine, str(p.jobs)]
        for m in measured
        for p in [m.provenance]
    ]


def markdown(
    header: str,
    table: list[list[str]],
    odds: list[list[str]],
    order: list[list[str]],
    games: Sequence[str],
    provenance: list[list[str]],
) -> str:
    """The whole of bots/STRENGTH.md; ``games``: the games measured (their `NOTES` follow the tables)."""
    text = header + "\n" + markdown_table(COLUMNS, table) + "\n"
    if odds:
        text += "\n## Beside a human's odds\n\n" + markdown_table(ODDS_COLUMNS, odds) + "\n"
    if order:
        text += "\n## Each bot against the one before it\n\n" + markdown_table(ORDER_COLUMNS, order) + "\n"
    notes = [NOTES[game] for game in games if game in NOTES]
    if notes:
        text += "\n## Notes\n\n" + "\n\n".join(notes) + "\n"
    if provenance:
        text += "\n## Where and when\n\n" + markdown_table(PROVENANCE_COLUMNS, provenance) + "\n"
    return text


def machine() -> str:
    return f"{platform.machine()} with {os.cpu_count()} cores, Python {platform.python_version()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", help="games, comma-separated (default: all)")
    parser.add_argument("--bots", default=",".join(BUILT_IN), help="bots, comma-separated (default: the built-in ones)")
    parser.add_argument("--deals", type=int, default=500, help="deals per game and option set (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="the seed the deals follow from (default 0)")
    parser.add_argument("--jobs", type=int, help="worker processes (default: one per core)")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds a move may take at most (default 1)")
    parser.add_argument("--json", action="store_true", help="one JSON object per bot per game and option set")
    parser.add_argument("--markdown", metavar="PATH", help="also write the tables as Markdown to PATH")
    parser.add_argument("--save", metavar="PATH", help="write every deal's raw results to PATH (JSON)")
    parser.add_argument(
        "--reuse",
        metavar="PATH",
        help="take each game and option set measured alike (same bots, deals, seed, budget) from PATH, a --save file",
    )
    parser.add_argument("--measure", help="with --reuse: games, comma-separated, to measure again all the same")
    args = parser.parse_args(argv)
    if args.measure and not args.reuse:
        parser.error("--measure goes with --reuse")
    games = (
        [get_game(name.strip()) for name in args.games.split(",")]
        if args.games
        else [get_game(n) for n in game_names()]
    )
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    progress = sys.stderr.isatty()
    saved: dict[Key, Measured] = {}
    if args.reuse:
        try:
            found = read_saved(Path(args.reuse))
        except (OSError, ValueError, KeyError, TypeError) as error:
            parser.error(f"cannot read {args.reuse}: {type(error).__name__}: {error}")
        for m in found:
            if (k := saved_key(m, bots, args.deals, args.seed, args.budget)) is not None:
                saved[k] = m
    again = {name.strip() for name in (args.measure or "").split(",") if name.strip()}
    for name in again:
        get_game(name)  # an unknown game fails here, before anything is measured
    measured: list[Measured] = []
    try:
        for game in games:
            for options in option_sets(game):
                reused = saved.get(key(game.name, options, bots, args.deals, args.seed, args.budget))
                if reused is not None and game.name not in again:
                    measured.append(reused)
                else:
                    measured.append(
                        measure(game, options, bots, args.deals, args.seed, args.jobs, args.budget, progress)
                    )
                    if args.save:  # after each game, so that a run cut short keeps what it measured
                        write_saved(Path(args.save), [*measured, *saved_beyond(saved, measured)])
    except BotNotFound as error:
        parser.error(str(error))
    if args.save:
        write_saved(Path(args.save), measured)
    table = [row for m in measured for row in rows(m)]
    odds = odds_rows(measured)
    order = order_rows(measured)
    if args.json:
        for m in measured:
            for record in arena_records(m.result) if m.result is not None else []:
                print(json.dumps(record))
            for bot, why in m.missing.items():
                print(json.dumps({"bot": bot, "game": m.game.name, "options": m.options, "missing": why}))
    else:
        print(plain_table(COLUMNS, table))
        for columns, extra in [(ODDS_COLUMNS, odds), (ORDER_COLUMNS, order)]:
            if extra:
                print()
                print(plain_table(columns, extra))
    if args.markdown:
        command = " ".join(["python bench/bots.py", *(sys.argv[1:] if argv is None else argv)])
        header = HEADER.format(
            command=command,
            regenerate=COMMAND,
            odds="\n".join(f"- {get_game(name).title}: {o.text}" for name, o in HUMAN_ODDS.items()),
            deals=args.deals,
            seed=args.seed,
        )
        text = markdown(header, table, odds, order, [game.name for game in games], provenance_rows(measured))
        Path(args.markdown).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
