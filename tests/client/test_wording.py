"""Lines people read: one of a thing is singular, and numbers are rounded as people would."""

from __future__ import annotations

from parlour.client.line_race import bot_line
from parlour.client.tournament_text import describe, export_markdown
from tests.protocol.test_tournament_verify import honest_export


def test_one_race_is_a_race() -> None:
    bot = {"name": "greedy", "games": ["golf"], "busy": 0, "max_races": 1}
    assert bot_line(bot).endswith("(in 0 of 1 race)")
    assert bot_line({**bot, "max_races": 2}).endswith("(in 0 of 2 races)")
    export = honest_export(entrants=2, deals=1)  # two entrants on one deal: one race
    assert "\n- 1 race; check them all with `parlour verify`" in export_markdown(export)
    summary = {**export["tournament"], "max_moves": 1}
    assert "at most 1 move a game" in describe(summary) and "1 moves" not in describe(summary)
