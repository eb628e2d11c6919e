"""Tournaments as text (pure): numbers, the progress bar and its time left, tables and export files
that no name can break, and the progress display on a terminal and off one."""

from __future__ import annotations

import csv
import io
from typing import Any

from parlour.client.terminal import CLEAR_LINE
from parlour.client.tournament_cli import Progress
from parlour.client.tournament_text import (
    clock,
    describe,
    export_csv,
    export_markdown,
    number,
    progress,
    slot_line,
    standings_text,
    time_left,
)
from tests.protocol.test_tournament_verify import honest_export


def test_numbers_and_clocks_read_as_people_write_them() -> None:
    assert [number(v) for v in (2.0, 1.5, 66.6667, 0.0, -0.001, 100)] == ["2", "1.5", "66.67", "0", "0", "100"]
    assert [clock(s) for s in (0, 7.4, 245, 3723)] == ["0:00", "0:07", "4:05", "1:02:03"]


def test_the_progress_bar_estimates_the_time_left_at_the_pace_so_far() -> None:
    assert time_left(0, 10, 30.0) is None
    assert time_left(2, 10, 30.0) == 120.0
    assert (
        progress(2, 8, 30.0, time_left(2, 8, 30.0))
        == "[######..................] 2/8 races, 0:30 so far, about 1:30 left"
    )
    assert progress(8, 8, 95.0, 0.0) == "[########################] 8/8 races, 1:35 so far"
    assert progress(0, 1, 0.0, None) == "[........................] 0/1 race, 0:00 so far"


def test_names_cannot_act_on_a_terminal_or_break_a_table() -> None:
    export = honest_export(entrants=2)
    for entrant in (*export["tournament"]["entrants"], *export["spec"]["entrants"]):
        entrant["name"] = 'evil\x1b[2J|,"x'
    for row in export["tournament"]["standings"]:
        row["name"] = 'evil\x1b[2J|,"x'
    summary = export["tournament"]
    for text in (
        describe(summary),
        standings_text(summary),
        slot_line(summary, "t0123456789-0"),
        export_markdown(export),
    ):
        assert "\x1b" not in text and "evil\\x1b[2J" in text
    assert "evil\\x1b[2J\\|" in export_markdown(export)  # a '|' would end the Markdown cell
    rows = list(csv.reader(io.StringIO(export_csv(export))))
    assert rows[1][1] == 'evil\\x1b[2J|,"x' and len(rows[1]) == len(rows[0])


def test_each_format_has_its_standings_columns() -> None:
    duplicate = standings_text(honest_export(entrants=2)["tournament"]).splitlines()
    assert duplicate[1].split() == ["place", "name", "deals", "%", "matchpoints", "total", "score"]
    mixed = honest_export("mixed", (("golf", None), ("gaps", None)), entrants=2)["tournament"]
    assert standings_text(mixed).splitlines()[1].split() == [
        "place", "name", "deals", "sum", "of", "%", "matchpoints", "golf", "%", "gaps", "%",
    ]  # fmt: skip
    pairs = honest_export("head-to-head", entrants=3)["tournament"]
    assert standings_text(pairs).splitlines()[1].split() == [
        "place",
        "name",
        "deals",
        "match",
        "wins",
        "matchpoints",
        "%",
    ]
    assert standings_text({**pairs, "standings": []}) == "No standings yet: the tournament has not started."


class Screen(io.StringIO):
    """What a terminal would be shown."""

    def isatty(self) -> bool:
        return True


def summary(done: int, status: str = "running", **more: Any) -> dict[str, Any]:
    return {"status": status, "done": done, "races": 4, "started_at": 1000.0, "entrants": [], "people": 0, **more}


def test_on_a_terminal_the_bar_is_redrawn_in_place_with_lines_above_it() -> None:
    screen = Screen()
    shown = Progress(screen, offset=0.0)
    shown.update(summary(1, ended_at=1010.0))
    shown.say("Playing: t1-1")
    shown.close()
    shown.say("Final standings:")  # below the bar, which stays as it was
    bar = "[######..................] 1/4 races, 0:10 so far, about 0:30 left"
    assert screen.getvalue() == f"{CLEAR_LINE}{bar}{CLEAR_LINE}Playing: t1-1\n{CLEAR_LINE}{bar}\nFinal standings:\n"


def test_elsewhere_a_line_each_time_a_race_is_done() -> None:
    out = io.StringIO()
    shown = Progress(out)
    shown.update(summary(0, "open", people=2))  # nothing while people enter
    for done in (1, 1, 2):
        shown.update(summary(done, ended_at=1010.0))
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("[######") and lines[1].startswith("[############.")
