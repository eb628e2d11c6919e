"""An arena's results for people (a table per bot and the head-to-head matrix) and for programs
(one JSON-ready record per bot): what ``parlour arena`` prints."""

from __future__ import annotations

from typing import Any

from parlour.bots.arena import ArenaResult, BotSummary, CeilingSummary
from parlour.bots.ceiling import ceiling_exact
from parlour.bots.stats import Interval
from parlour.games import get_game


def percent(rate: float) -> str:
    return f"{100 * rate:.1f}%"


def rate_ci_text(ci: Interval | None) -> str:
    return "-" if ci is None else f"[{percent(ci[0])}, {percent(ci[1])}]"


def score_ci_text(ci: Interval | None) -> str:
    return "-" if ci is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def options_text(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items()) or "none"


def arena_text(result: ArenaResult) -> str:
    """The table of every bot (and the ceiling, if computed), then the head-to-head matrix."""
    setup = result.setup
    name = max(len("(ceiling)"), *(len(b) for b in result.bots)) + 1
    lines = [
        f"{setup.game} (options: {options_text(setup.options)}), {len(result.deals)} deals from seed {setup.seed}",
        "",
        f"{'bot':<{name}} {'win rate':>8}  {'95% CI':<16} {'mean score':>10}  {'95% CI (t)':<18} "
        f"{'ms/move':>8} {'max ms':>8}",
    ]
    for s in result.summaries():
        lines.append(
            f"{s.bot:<{name}} {percent(s.win_rate):>8}  {rate_ci_text(s.win_ci):<16} {s.mean_score:>10.2f}  "
            f"{score_ci_text(s.score_ci):<18} {s.ms_per_move:>8.3f} {s.max_ms:>8.2f}"
        )
    if setup.ceiling:
        best = result.ceiling()
        if best is None:
            lines.append(f"{'(ceiling)':<{name}} no perfect-information solver for {setup.game}")
        else:
            lines.append(
                f"{'(ceiling)':<{name}} {percent(best.win_rate):>8}  {rate_ci_text(best.win_ci):<16} "
                f"{best.mean_score:>10.2f}  {score_ci_text(best.score_ci):<18} "
                + ("exact" if ceiling_exact(get_game(setup.game)) else "a bound: what a search seeing every card found")
            )
    if len(result.bots) > 1:
        width = max(16, *(len(b) + 2 for b in result.bots))  # a cell reads like "100.0% (100.0%)"
        lines += [
            "",
            "head to head: the share of deals where the row's score beats the column's (ties in brackets)",
            " " * name + "".join(f"{b:>{width}}" for b in result.bots),
        ]
        for a in result.bots:
            cells = []
            for b in result.bots:
                record = result.record(a, b)
                cells.append("-" if a == b else f"{percent(record.beats_share)} ({percent(record.ties_share)})")
            lines.append(f"{a:<{name}}" + "".join(f"{c:>{width}}" for c in cells))
    return "\n".join(lines)


def _interval(ci: Interval | None, digits: int) -> list[float] | None:
    return None if ci is None else [round(ci[0], digits), round(ci[1], digits)]


def arena_records(result: ArenaResult) -> list[dict[str, Any]]:
    """One record per bot: ``bot``, ``game``, ``options``, ``seed``, ``deals``, ``wins``, ``win_rate``,
    ``win_ci`` [low, high], ``mean_score``, ``score_ci`` (Student's t; null with one deal),
    ``ms_per_move``, ``max_ms``, ``head_to_head`` ({other bot: {"beats": share, "ties": share}}) and,
    when the ceiling was asked for, ``ceiling`` (null where the game has no solver, else ``deals``,
    ``win_rate``, ``win_ci``, ``mean_score``, ``score_ci``, and ``exact``: false where the ceiling is only a
    reachable score, a lower bound on the best)."""
    setup = result.setup
    records = []
    best = result.ceiling() if setup.ceiling else None
    for s in result.summaries():
        record: dict[str, Any] = {
            "bot": s.bot,
            "game": setup.game,
            "options": setup.options,
            "seed": setup.seed,
            **_bot_fields(s),
            "head_to_head": {
                other: {"beats": round(r.beats_share, 4), "ties": round(r.ties_share, 4)}
                for other in result.bots
                if other != s.bot
                for r in [result.record(s.bot, other)]
            },
        }
        if setup.ceiling:
            record["ceiling"] = None if best is None else _ceiling_fields(best, ceiling_exact(get_game(setup.game)))
        records.append(record)
    return records


def _bot_fields(s: BotSummary) -> dict[str, Any]:
    return {
        "deals": s.deals,
        "wins": s.wins,
        "win_rate": round(s.win_rate, 4),
        "win_ci": _interval(s.win_ci, 4),
        "mean_score": round(s.mean_score, 4),
        "score_ci": _interval(s.score_ci, 4),
        "ms_per_move": round(s.ms_per_move, 4),
        "max_ms": round(s.max_ms, 3),
    }


def _ceiling_fields(c: CeilingSummary, exact: bool) -> dict[str, Any]:
    return {
        "exact": exact,
        "deals": c.deals,
        "win_rate": round(c.win_rate, 4),
        "win_ci": _interval(c.win_ci, 4),
        "mean_score": round(c.mean_score, 4),
        "score_ci": _interval(c.score_ci, 4),
    }
