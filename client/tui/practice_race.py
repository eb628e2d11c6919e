"""Practice against a bot in this process, on the same deal: ``parlour play --practice GAME --bot NAME``.

:class:`PracticeRaceScreen` is the practice game screen with the bot's progress above the board (its
:class:`~parlour.client.tui.rival.Rival` moves every ``pace`` seconds in a worker thread, so a bot that
thinks long never freezes the screen); once the player's game is over the bot plays on at full speed,
and :class:`PracticeRaceResultScreen` ranks the two games as a race would.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Static

from parlour.client.tui.app import ENDINGS, GameScreen, OutcomeScreen, score_text
from parlour.client.tui.practice import Practice
from parlour.client.tui.rival import Rival, practice_ranking

PACE = 1.0  # seconds between two of the bot's moves while the player plays


class PracticeRaceResultScreen(OutcomeScreen):
    """Both games are over: the player's ending and score, and the ranking. Dismissed with ``"new"`` (a new
    deal against the same bot), ``"board"`` or ``"quit"``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('new')", "New race"),
        Binding("escape", "choose('board')", "See the board"),
        Binding("q", "choose('quit')", "Quit"),
    ]

    def __init__(self, title: str, ending: str, ranking: list[str]) -> None:
        super().__init__()
        self.title_ = title
        self.ending = ending
        self.ranking = ranking

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"{self.title_}: the race is over", style="bold"))
            yield Static(self.ending, id="ending")
            yield Static("\n".join(self.ranking), id="ranking")
        yield Footer(compact=True)


class PracticeRaceScreen(GameScreen):
    """The practice screen racing ``rival`` on the same deal; ``new_race`` makes the next deal's pair."""

    DEFAULT_CSS = """
    PracticeRaceScreen #race { height: auto; background: $boost; padding: 0 1; }
    """

    def __init__(
        self, table: Practice, rival: Rival, new_race: Callable[[], tuple[Practice, Rival]], pace: float = PACE
    ) -> None:
        super().__init__(table, new_table=lambda: new_race()[0])
        self.practice = table
        self.rival = rival
        self.new_race = new_race
        self.pace = pace
        self.started = time.monotonic()
        self.my_time: float | None = None

    def above_board(self) -> ComposeResult:
        yield Static(id="race")

    def on_mount(self) -> None:
        super().on_mount()
        self.show_rival()
        self.run_worker(self.play_rival(), name="the bot", exclusive=True)

    def rival_text(self) -> str:
        line = f"Racing {self.rival.name} on the same deal. " + self.rival.opponent().line()
        return line + (f"\n{self.rival.problem}" if self.rival.problem else "")

    def show_rival(self) -> None:
        if self.query("#race"):
            self.put("#race", self.rival_text())

    async def play_rival(self) -> None:
        """The bot's moves, one every ``pace`` seconds while the player plays, then at full speed."""
        while not self.rival.finished:
            await asyncio.to_thread(self.rival.step)
            self.show_rival()
            if self.table.view["ended"] is None:
                await asyncio.sleep(self.pace)
        if self.table.view["ended"] is not None:
            self.show_result()

    def game_over(self) -> None:
        if self.my_time is None:
            self.my_time = round(time.monotonic() - self.started, 1)
        if self.rival.finished:
            self.show_result()
        else:
            self.say(f"Your game is over: {self.rival.name} plays on to its end.")

    def show_result(self) -> None:
        if isinstance(self.app.screen, PracticeRaceResultScreen):
            return
        view = self.table.view
        mine = {
            "name": "you",
            "score": view["score"],
            "ended": str(view["ended"]),
            "time": self.my_time or 0.0,
            "moves": self.table.moves_made,
        }
        ranking = practice_ranking(self.table.game, [mine, self.rival.result()])
        ending = f"{ENDINGS.get(view['ended'], str(view['ended']))} {score_text(self.table.game.name, view)}."
        self.app.push_screen(PracticeRaceResultScreen(self.table.game.title, ending, ranking), self.after_result)

    async def action_undo(self) -> None:
        await super().action_undo()
        if self.table.view["ended"] is None:
            self.my_time = None  # the game goes on: its time is taken again at its end

    def action_new_deal(self) -> None:
        table, rival = self.new_race()
        self.app.switch_screen(PracticeRaceScreen(table, rival, self.new_race, self.pace))
