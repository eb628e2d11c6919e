"""Tournaments and leaderboards as text: the lines, tables, progress bar and export files that
``parlour tournament ...`` and ``parlour ratings`` print. Pure: maps in, strings out.

Every string that came from a server goes through :func:`printable` (in tables, CSV and
Markdown alike), so a name cannot act on a terminal or break a table.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from parlour.protocol.text import plural, printable
from parlour.protocol.tournament import Spec, schedule

Summary = Mapping[str, Any]
FORMATS = ("json", "csv", "md")  # what ``parlour tournament export --format`` writes


def number(value: float, places: int = 2) -> str:
    """``2`` for 2.0, ``1.5`` for 1.5, ``66.67`` for 66.6667: at most ``places`` decimals, no trailing zeros."""
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def clock(seconds: float) -> str:
    """``0:07``, ``4:05``, ``1:02:03``."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def games_of(summary: Summary) -> str:
    """The games, with their options where set: ``golf, the-chance (sequence=suit)``."""
    out = []
    for event in summary["events"]:
        options = ", ".join(f"{printable(str(k))}={printable(str(v)).lower()}" for k, v in event["options"].items())
        out.append(printable(event["game"]) + (f" ({options})" if options and _not_default(event) else ""))
    return ", ".join(out)


def _not_default(event: Mapping[str, Any]) -> bool:
    """Whether an event's options differ from its game's defaults (the defaults go unsaid)."""
    from parlour.games import GameError, get_game

    try:
        return dict(event["options"]) != get_game(event["game"]).resolve_options(None)
    except GameError:
        return True


def entrant_names(summary: Summary) -> str:
    """``random, greedy (bots); ann`` style: each entrant by name, bots marked."""
    names = [printable(e["name"]) + (" (bot)" if e["bot"] else "") for e in summary["entrants"]]
    return ", ".join(names) or "none yet"


def describe(summary: Summary) -> str:
    """The tournament in one line: what it is, who plays, how it stands."""
    seats = summary["people"]
    people = f", {plural(seats, 'seat')} for people" if seats else ""
    per = {"mixed": " per game", "head-to-head": " per pair"}.get(summary["format"], "")
    rules = [
        plural(summary["deals"], "deal") + per,
        plural(summary["races"], "race"),
        "rated" if summary["rated"] else "unrated",
        "timed" if summary["timed"] else "untimed (the score alone counts)",
        f"{clock(summary['time_limit'])} a race",
        f"at most {plural(summary['max_moves'], 'move')} a game",
    ]
    kind = f"{summary['format']} of "
    named = "" if summary["name"].startswith(kind) else f" {printable(summary['name'])!r}"
    return (
        f"Tournament {printable(summary['id'])}{named}: {printable(kind)}{games_of(summary)}; {', '.join(rules)}; "
        f"entrants: {entrant_names(summary)}{people}; {printable(summary['status'])}."
    )


def slot_line(summary: Summary, race: str) -> str:
    """A race being played, as ``t1-3 (golf deal 2: random, greedy)``."""
    try:
        spec = Spec.from_map(summary)
        slot = schedule(spec)[int(race.rpartition("-")[2])]
    except (KeyError, ValueError, IndexError, TypeError):
        return printable(race)
    game = printable(spec.events[slot.event].game)
    who = ", ".join(printable(spec.entrants[i].name) for i in slot.entrants)
    return f"{printable(race)} ({game} deal {slot.deal + 1}: {who})"


def time_left(done: int, total: int, elapsed: float) -> float | None:
    """The time the races not yet done will take, at the pace so far (``None`` before the first)."""
    if done <= 0 or elapsed <= 0:
        return None
    return elapsed * (total - done) / done


def progress(done: int, total: int, elapsed: float, left: float | None, width: int = 24) -> str:
    """``[#########...............] 3/8 races, 0:12 so far, about 0:20 left``."""
    filled = width * done // total if total else width
    bar = "#" * filled + "." * (width - filled)
    estimate = "" if left is None or done >= total else f", about {clock(left)} left"
    return f"[{bar}] {done}/{plural(total, 'race')}, {clock(elapsed)} so far{estimate}"


def _header(summary: Summary) -> tuple[list[str], list[str]]:
    """The standings' columns for the format: their titles and the keys of a standings row."""
    if summary["format"] == "head-to-head":
        return ["match wins", "matchpoints", "%"], ["match_wins", "matchpoints", "percentage"]
    if summary["format"] == "mixed":
        games = [printable(e["game"]) + " %" for e in summary["events"]]
        return ["sum of %", "matchpoints", *games], ["percentage", "matchpoints", *(["by_game"] * len(games))]
    return ["%", "matchpoints", "total score"], ["percentage", "matchpoints", "total_score"]


def standings_rows(summary: Summary) -> tuple[list[str], list[list[str]]]:
    """The standings as a table of text: the titles, then one row per entrant, best first."""
    titles, keys = _header(summary)
    rows = []
    for row in summary.get("standings", []):
        values = []
        games = iter(row.get("by_game", []))
        for key in keys:
            value = next(games) if key == "by_game" else row[key]
            values.append(number(value))
        name = printable(row["name"]) + (" (bot)" if row["bot"] else "")
        rows.append([str(row["place"]), name, str(row["deals"]), *values])
    return ["place", "name", "deals", *titles], rows


def table(titles: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain text table: left-aligned text, right-aligned numbers."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(titles, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [cell.rjust(w) if _numeric(cell) else cell.ljust(w) for cell, w in zip(cells, widths, strict=True)]
        return "  ".join(out).rstrip()

    return "\n".join([line(titles), line(["-" * w for w in widths]), *(line(row) for row in rows)])


def _numeric(cell: str) -> bool:
    return cell.replace(".", "", 1).replace("-", "", 1).isdigit()


def standings_text(summary: Summary) -> str:
    """The standings table, or why there is none yet."""
    if not summary.get("standings"):
        return "No standings yet: the tournament has not started."
    titles, rows = standings_rows(summary)
    done = summary.get("done", 0)
    status = "Final standings" if summary["status"] == "finished" else f"Standings after {done} of {summary['races']}"
    return f"{status}:\n{table(titles, rows)}"


def revealed(summary: Summary) -> str:
    """The seed and salt of a finished tournament, and how to check it."""
    tid = printable(summary["id"])
    return (
        f"Seed {printable(summary['seed'])}, salt {printable(summary['salt'])} (commitment "
        f"{printable(summary['commitment'])}). Check every race and standing with: "
        f"parlour tournament export {tid} --format json -o {tid}.json && parlour verify {tid}.json"
    )


# --- export files ----------------------------------------------------------------------

STANDINGS_FIELDS = ["place", "name", "player", "bot", "deals", "matchpoints", "percentage", "total_score", "match_wins"]
RESULT_FIELDS = ["slot", "round", "race", "game", "deal", "table", "entrant", "name", "player", "bot"]
RESULT_FIELDS += ["score", "ended", "time", "moves", "forfeit"]


def export_csv(export: Mapping[str, Any], races: bool = False) -> str:
    """The standings (one row per entrant, best first, each game's percentage last), or with
    ``races`` the results (one row per entrant per race, in schedule order), as CSV."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    summary = export["tournament"]
    if races:
        writer.writerow(RESULT_FIELDS)
        writer.writerows(result_rows(export))
        return out.getvalue()
    games = [f"{printable(e['game'])} %" for e in summary["events"]]
    writer.writerow([*STANDINGS_FIELDS, *games])
    for row in summary.get("standings", []):
        cells = [printable(str(row[key])) if isinstance(row[key], str) else row[key] for key in STANDINGS_FIELDS]
        writer.writerow([*cells, *row["by_game"]])
    return out.getvalue()


def result_rows(export: Mapping[str, Any]) -> list[list[Any]]:
    """One row per entrant per race (``RESULT_FIELDS``), in schedule order."""
    spec = Spec.from_map(export["spec"])
    tournament = export["tournament"]["id"]
    rows = []
    for slot in schedule(spec):
        for result in export["results"].get(str(slot.index), []):
            entrant = spec.entrants[result["entrant"]]
            rows.append(
                [
                    slot.index,
                    slot.round,
                    printable(f"{tournament}-{slot.index}"),
                    printable(spec.events[slot.event].game),
                    slot.deal,
                    slot.table,
                    result["entrant"],
                    printable(entrant.name),
                    printable(entrant.player),
                    entrant.bot,
                    result["score"],
                    printable(result["ended"]),
                    result["time"],
                    result["moves"],
                    result["forfeit"],
                ]
            )
    return rows


def _md(text: object) -> str:
    """A Markdown table cell: printable, with ``|`` escaped."""
    return printable(str(text)).replace("|", "\\|")


def _md_table(titles: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(_md(t) for t in titles) + " |", "|" + "---|" * len(titles)]
    lines += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in rows]
    return lines


def export_markdown(export: Mapping[str, Any]) -> str:
    """A report: what the tournament was, its standings, every race's results, and how to check it."""
    summary = export["tournament"]
    lines = [f"# {_md(summary['name'])}", "", describe(summary), ""]
    titles, rows = standings_rows(summary)
    lines += ["## Standings", "", *_md_table(titles, rows), ""]
    spec = Spec.from_map(export["spec"])
    results = [
        [row[0], row[2], row[3], row[4] + 1, row[7], row[10], row[11] + (" (forfeit)" if row[14] else ""), row[13]]
        + [number(row[12], 3)]
        for row in result_rows(export)
    ]
    lines += [
        "## Races",
        "",
        *_md_table(["slot", "race", "game", "deal", "name", "score", "ended", "moves", "time (s)"], results),
    ]
    lines += [
        "",
        "## Verification",
        "",
        f"- commitment: `{_md(summary['commitment'])}`",
        f"- seed: `{_md(summary.get('seed', ''))}`, salt: `{_md(summary.get('salt', ''))}`",
        f"- {plural(len(schedule(spec)), 'race')}; check them all with `parlour verify` on the JSON export "
        f"(`parlour tournament export {_md(summary['id'])} --format json`).",
    ]
    return "\n".join(lines) + "\n"


# --- leaderboards ----------------------------------------------------------------------


def leaderboard_text(game: str, rows: Sequence[Mapping[str, Any]], who: str) -> str:
    """A game's leaderboard (``who``: ``bots``, ``people`` or ``players``)."""
    if not rows:
        return f"No rated {who} at {printable(game)} yet: rated tournaments make ratings."
    body = [
        [
            str(rank),
            printable(row["name"]) + (" (bot)" if row["bot"] else ""),
            number(row["ordinal"]),
            number(row["mu"]),
            number(row["sigma"]),
            str(row["races"]),
        ]
        for rank, row in enumerate(rows, start=1)
    ]
    titles = ["rank", "name", "rating", "mu", "sigma", "races"]
    note = "rating = mu - 3 sigma (OpenSkill, Plackett-Luce), from rated tournament races"
    return f"Leaderboard of {printable(game)} ({who}):\n{table(titles, body)}\n{note}"


__all__ = [
    "FORMATS",
    "clock",
    "describe",
    "export_csv",
    "export_markdown",
    "leaderboard_text",
    "number",
    "progress",
    "revealed",
    "slot_line",
    "standings_text",
    "table",
    "time_left",
]
