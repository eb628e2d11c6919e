"""The game screen at a race: the board as in practice, plus the clock, the opponents' progress and the
race's result; and :class:`RaceApp`, ``parlour play --server URL --race GAME --bot NAME``.

:class:`RaceScreen` is the practice :class:`~parlour.client.tui.app.GameScreen` playing at a
:class:`~parlour.client.tui.race.RaceTable`: a worker reads the client's events into the table (the
other seats' ``progress``, the race's ``end``) and redraws the race line; a timer redraws the clock.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static
from websockets.exceptions import InvalidHandshake

from parlour.bots.ceiling import ceiling_exact
from parlour.client.connection import Client, ClientError, Disconnected, End, Resumed, unreachable_text
from parlour.client.line_race import replay_file, save_replay_to
from parlour.client.tui.app import (
    ENDINGS,
    KEYS_HELP,
    GameScreen,
    HelpScreen,
    OutcomeScreen,
    refusal_text,
    score_text,
)
from parlour.client.tui.race import RaceTable, clock_text, open_race, par, results_text, seed_check
from parlour.client.tui.replay import ReplayScreen, fetch_replay
from parlour.client.tui.replaying import ReplayRefused
from parlour.games import GameError
from parlour.protocol.text import printable

RACE_KEYS_HELP = KEYS_HELP.replace(
    "  u   undo your last move\n", "  u   undo your last move (in a race created with undo)\n"
).replace(
    "  n   a new deal of this game\n", "  c   concede (press it twice): your game ends now, scored as it stands\n"
)
HURRY = 60  # seconds left from which the clock is marked
CONFIRM = 3.0  # seconds within which a second c concedes


class RaceResultScreen(OutcomeScreen):
    """The race is over: this player's ending and score, the ranking, the revealed seed. ``s`` saves the
    replay to ``RACE.replay.json`` in the working directory (as ``parlour replay RACE`` does) and says
    where; ``v`` opens it in a :class:`~parlour.client.tui.replay.ReplayScreen`. Dismissed with
    ``"board"``, ``"lobby"`` (only when the race was entered from the lobby) or ``"quit"``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "save", "Save replay"),
        Binding("v", "watch", "Replay"),
        Binding("escape", "choose('board')", "See the board"),
        Binding("l", "choose('lobby')", "Back to the lobby"),
        Binding("q", "choose('quit')", "Quit"),
    ]

    def __init__(self, table: RaceTable, end: End, lobby: bool = False) -> None:
        super().__init__()
        self.table = table
        self.end = end
        self.lobby = lobby

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.lobby or parameters != ("lobby",)

    def compose(self) -> ComposeResult:
        view = self.table.view
        ended = view.get("ended")
        mine = ENDINGS.get(ended, str(ended)) if ended else "Your game was still going at the end."
        with Vertical():
            yield Static(Text(f"{self.table.game.title}: the race is over", style="bold"))
            yield Static(f"{mine} {score_text(self.table.game.name, view)}.", id="ending")
            yield Static("\n".join(results_text(self.end)), id="ranking")
            if self.end.seed:
                yield Static(seed_check(self.end, self.table.commitment), id="seed")
                yield Static(id="par")
            yield Static(id="saved")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        if self.end.seed and ceiling_exact(self.table.game):
            self.query_one("#par", Static).update("Par: working it out…")
            self.run_worker(self.show_par(), name="par", exclusive=True)

    async def show_par(self) -> None:
        """The deal's par (the best a player seeing every card reaches), from the game's solver."""
        view = self.table.view
        try:
            best = await asyncio.to_thread(par, self.table.game, self.end.seed, dict(view.get("options", {})))
        except ValueError:
            best = None
        text = "Par: unknown." if best is None else f"Par {best}: the best score a player seeing every card reaches."
        for line in self.query("#par").results(Static):  # none once the player has left this screen
            line.update(text)

    async def action_save(self) -> None:
        """Fetch the replay and save it; say where, or why not."""
        path = replay_file(self.table.race_id)
        saved = self.query_one("#saved", Static)
        try:
            await save_replay_to(self.table.client, self.table.race_id, path)
        except (ClientError, Disconnected, OSError) as error:
            saved.update(Text(f"Could not save the replay to {printable(path)}: {printable(str(error))}"))
            return
        where = printable(str(Path(path).absolute()))
        saved.update(Text(f"Replay saved to {where}: check it with  parlour verify {printable(path)}"))

    async def action_watch(self) -> None:
        """Fetch the replay and step through it (Esc comes back here)."""
        saved = self.query_one("#saved", Static)
        try:
            replay = await fetch_replay(self.table.client, self.table.race_id)
        except (ClientError, Disconnected, ReplayRefused) as error:
            saved.update(Text(f"Cannot show the replay: {printable(str(error))}"))
            return
        self.app.push_screen(ReplayScreen(replay))


class RaceScreen(GameScreen):
    """A race's game screen: the practice screen's board and keys, the clock and the opponents.
    ``back_to_lobby``: the lobby is under this screen, and the result screen offers to go back to it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "concede", "Concede (c c)"),
        Binding("l", "lobby", "Lobby", show=False),
    ]
    DEFAULT_CSS = """
    RaceScreen #race { height: auto; background: $boost; padding: 0 1; }
    RaceScreen #race.hurry { color: $warning; text-style: bold; }
    """

    def __init__(self, table: RaceTable, back_to_lobby: bool = False) -> None:
        super().__init__(table)
        self.race: RaceTable = table
        self.back_to_lobby = back_to_lobby
        self.asked_to_concede = -CONFIRM  # when c was pressed first (time.monotonic())

    def above_board(self) -> ComposeResult:
        yield Static(id="race")

    def on_mount(self) -> None:
        super().on_mount()
        self.show_race()
        self.set_interval(0.5, self.show_race)
        self.run_worker(self.listen(), name="race events", exclusive=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo":
            return self.race.allows_undo
        if action == "lobby":
            return self.back_to_lobby and self.race.end is not None
        return super().check_action(action, parameters)

    def race_lines(self) -> str:
        """The clock (and the connection, while it is being reopened), then one line per opponent."""
        lines = [clock_text(self.race.time_left()) if self.race.end is None else "The race is over."]
        if self.race.client.reconnecting:
            lines[0] += "  ·  Connection lost: reconnecting…"
        lines += [opponent.line() for _, opponent in sorted(self.race.opponents.items())]
        return "\n".join(lines)

    def show_race(self) -> None:
        if self.query("#race"):  # not while the screen is being mounted or taken down
            self.put("#race", self.race_lines())
            hurry = self.race.client.reconnecting or (self.race.end is None and self.race.time_left() < HURRY)
            self.query_one("#race", Static).set_class(hurry, "hurry")

    async def listen(self) -> None:
        """Take in the client's events until the race ends (or the client closes)."""
        try:
            async for event in self.race.client.events():
                if isinstance(event, Resumed) and self.race.race_id in event.races:
                    await self.caught_up()
                    continue
                if not self.race.heard(event):
                    continue
                self.show_race()
                if isinstance(event, End):
                    self.race_over()
                    return
        except Disconnected as error:
            self.say(f"The connection is lost: {error}", refused=True)

    async def caught_up(self) -> None:
        """After a reconnection: the seat's view again, from a snapshot."""
        try:
            await self.race.resync()
        except ClientError as error:
            self.say(f"Reconnected, but the race is gone: {printable(error.message)}", refused=True)
            return
        except Disconnected as error:
            self.say(f"The connection is lost: {error}", refused=True)
            return
        self.drop()
        self.redraw()
        self.say("Reconnected.")

    def game_over(self) -> None:
        if self.race.end is not None:
            self.race_over()
        else:
            self.say("Your game is over: waiting for the others to finish.")

    def race_over(self) -> None:
        if self.race.end is not None and not isinstance(self.app.screen, RaceResultScreen):
            self.app.push_screen(RaceResultScreen(self.race, self.race.end, self.back_to_lobby), self.after_race)

    def after_race(self, what: str | None) -> None:
        if what == "quit":
            self.app.exit()
        elif what == "lobby":
            self.action_lobby()

    def action_lobby(self) -> None:
        """Back to the lobby under this screen (once the race is over)."""
        if self.back_to_lobby and self.app.screen is self:
            self.app.pop_screen()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.race.game.name, RACE_KEYS_HELP))

    async def action_concede(self) -> None:
        """The first ``c`` asks; a second within :data:`CONFIRM` seconds concedes."""
        if self.race.view.get("ended") is not None:
            self.game_over()
            return
        now = time.monotonic()
        if now - self.asked_to_concede > CONFIRM:
            self.asked_to_concede = now
            self.say("Press c again to concede: your game ends now, scored as it stands.")
            return
        self.drop()
        try:
            await self.race.concede()
        except GameError as error:
            self.say(refusal_text(error), refused=True)
            return
        self.redraw()
        self.game_over()


class WaitingScreen(Screen[None]):
    """Until the race starts: what is happening, or why it failed."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q,escape", "app.quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Static("Connecting…", id="waiting")
        yield Footer(compact=True)


class RaceApp(App[None]):
    """``parlour play --server URL --race GAME --bot NAME``: race a bot on a server, in the app."""

    TITLE = "Parlour"

    def __init__(
        self,
        connect: Callable[[], Awaitable[Client]],
        game: str,
        bot: str,
        *,
        time_limit: int = 600,
        undo: bool = False,
    ) -> None:
        super().__init__()
        self.connect = connect
        self.game_name = game
        self.bot = bot
        self.time_limit = time_limit
        self.undo = undo
        self.client: Client | None = None
        self.table: RaceTable | None = None

    def on_mount(self) -> None:
        self.push_screen(WaitingScreen())
        self.run_worker(self.open(), name="open the race", exclusive=True)

    def tell(self, text: str) -> None:
        for line in self.screen.query("#waiting").results(Static):  # none once the app is closing
            line.update(Text(text))

    async def open(self) -> None:
        try:
            self.client = await self.connect()
            self.tell(f"Creating a race of {self.game_name} and inviting {self.bot}…")
            self.table = await open_race(
                self.client, self.game_name, self.bot, time_limit=self.time_limit, undo=self.undo
            )
        except ClientError as error:
            self.tell(f"The server refused: {printable(str(error))}")
            return
        except (OSError, TimeoutError, Disconnected, InvalidHandshake) as error:
            self.tell(f"Cannot race: {unreachable_text(error)}")
            return
        await self.switch_screen(RaceScreen(self.table))

    async def on_unmount(self) -> None:
        if self.client is not None:
            await self.client.close()
