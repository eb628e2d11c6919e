"""The lobby in the app: :class:`LobbyScreen` lists the races (the player's own first, then the open and
running public ones), the public tournaments and the bots online, asking the server again every few
seconds (the lobby is not pushed); from it a race is created, joined (by the cursor, or by code with
:class:`AskScreen`) or resumed, and a finished race's replay opened by its id. :func:`race_cells` and
:func:`lobby_notes` are its pure parts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Input, Label, Static

from parlour.client.connection import Client, ClientError, Disconnected
from parlour.client.line_race import Account, clock, seat_list, server_offset
from parlour.client.tui.app import ChooseGameScreen
from parlour.client.tui.race import trouble
from parlour.client.tui.racing import RaceScreen
from parlour.client.tui.replay import ReplayScreen, fetch_replay
from parlour.client.tui.replaying import ReplayRefused
from parlour.client.tui.room import RoomScreen, table_from_snapshot
from parlour.client.tui.settings import NO_BOT, CreateRaceScreen, RaceSettings
from parlour.client.tui.tv import TVScreen
from parlour.games import GameError, get_game
from parlour.protocol.text import printable

REFRESH = 3.0  # seconds between two lobby requests


def race_cells(info: Mapping[str, Any], player: str) -> tuple[str, str, str, str, str, str]:
    """One lobby row: game, status (``yours`` marked), seats taken, time limit, who, id (the widest last, so
    that a narrow terminal cuts those)."""
    mine = any(p.get("player") == player for p in info.get("players", []))
    taken = f"{len(info.get('players', []))}/{info['seats']}"
    try:
        title = get_game(str(info["game"])).title
    except GameError:
        title = printable(str(info["game"]))
    status = printable(str(info["status"])) + (", yours" if mine else "")
    if not info.get("public", True):
        status += ", private"
    return title, status, taken, clock(float(info["time_limit"])), seat_list(dict(info)), printable(str(info["id"]))


def lobby_notes(tournaments: list[dict[str, Any]], bots: list[dict[str, Any]]) -> str:
    """The lines under the races: the public tournaments and the bots online."""
    lines = []
    if tournaments:
        lines.append("Tournaments:")
        for t in tournaments:
            name = printable(str(t.get("name") or t["id"]))
            entrants = len(t.get("entrants", []))
            lines.append(f"  {name}  ({printable(str(t.get('status', '')))}, {entrants} entrants)  id {t['id']}")
    if bots:
        lines.append("Bots online (invite one when you create a race):")
        for bot in bots:
            games = ", ".join(printable(str(g)) for g in bot.get("games", []))
            lines.append(f"  {printable(str(bot['name']))}: plays {games} (in {bot['busy']} of {bot['max_races']})")
    else:
        lines.append("No bot is online.")
    return "\n".join(lines)


class LobbyScreen(Screen[None]):
    """The races, tournaments and bots of the server, refreshed every few seconds."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "create", "Create"),
        Binding("j", "join_code", "Join code"),
        Binding("v", "replay", "Replay"),
        Binding("enter", "open", "Join/resume", show=False),
        Binding("w", "watch", "Watch"),
        Binding("f", "follow", "Follow"),
        Binding("r", "refresh", "Refresh", show=False),  # it refreshes itself
        Binding("p", "practice", "Practice"),
        Binding("q", "app.quit", "Quit"),
    ]
    DEFAULT_CSS = """
    LobbyScreen #who { height: 1; background: $panel; padding: 0 1; }
    LobbyScreen DataTable { height: 1fr; }
    LobbyScreen #notes { height: auto; max-height: 10; padding: 0 1; }
    LobbyScreen #message { height: auto; padding: 0 1; }
    LobbyScreen #message.refused { color: $error; text-style: bold; }
    """

    def __init__(self, client: Client, account: Account) -> None:
        super().__init__()
        self.client = client
        self.account = account
        self.races: dict[str, dict[str, Any]] = {}
        self.bots: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield Static(id="who")
        table: DataTable[str] = DataTable(cursor_type="row", zebra_stripes=True, id="races")
        table.add_columns("Game", "Status", "Seats", "Time", "Who", "Race")
        yield table
        with VerticalScroll(id="notes"):
            yield Static(id="bots")
        yield Static("Enter joins the race under the cursor (or resumes yours); c creates one.", id="message")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        who = f"You are {printable(self.client.name)} on {printable(self.account.server)}"
        self.query_one("#who", Static).update(Text(who))
        self.refresh_lobby()
        self.set_interval(REFRESH, self.refresh_lobby)

    def say(self, text: str, refused: bool = False) -> None:
        message = self.query_one("#message", Static)
        message.update(Text(text))
        message.set_class(refused, "refused")

    @work(exclusive=True, group="lobby")
    async def refresh_lobby(self) -> None:
        """Ask for the lobby's first page and show it (keeping the cursor on the same race); not while
        another screen is on top (a race, the room), whose requests come first."""
        if self.races and self.app.screen is not self:
            return
        lost = self.client.reconnecting
        if lost:
            self.say("Connection lost: reconnecting…", refused=True)
        try:
            page = await self.client.lobby(limit=100)
        except ClientError as error:
            self.say(f"The lobby is not available: {printable(error.message)}", refused=True)
            return
        except Disconnected as error:
            self.say(f"The connection is lost: {error}", refused=True)
            return
        if lost:
            self.say("Reconnected.")
        mine = [r for r in page.races if any(p.get("player") == self.client.player for p in r.get("players", []))]
        others = [r for r in page.races if r not in mine]
        self.races = {str(r["id"]): r for r in mine + others}
        self.bots = list(page.bots or [])
        table = self.query_one("#races", DataTable)
        current = self.current_race()
        table.clear()
        for race_id, info in self.races.items():
            table.add_row(*race_cells(info, self.client.player), key=race_id)
        if current in self.races:
            table.move_cursor(row=list(self.races).index(current))
        notes = lobby_notes(list(page.tournaments or []), self.bots)
        if not self.races:
            notes = "No race is open or running: c creates one.\n" + notes
        self.query_one("#bots", Static).update(Text(notes))

    def current_race(self) -> str | None:
        table = self.query_one("#races", DataTable)
        if not self.races or table.cursor_row < 0 or table.cursor_row >= table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def action_watch(self) -> None:
        """Race TV on the race under the cursor."""
        race_id = self.current_race()
        if race_id is None:
            self.say("No race here to watch: f follows whatever race is running.", refused=True)
            return
        self.app.push_screen(TVScreen(self.client, race_id))

    def action_follow(self) -> None:
        """Race TV following the most active live race, then the next."""
        self.app.push_screen(TVScreen(self.client, follow=True))

    def action_refresh(self) -> None:
        self.refresh_lobby()

    def action_practice(self) -> None:
        self.app.push_screen(ChooseGameScreen())

    def action_create(self) -> None:
        self.app.push_screen(CreateRaceScreen(self.bots), self.created)

    def created(self, settings: RaceSettings | None) -> None:
        if settings is not None:
            self.run_worker(self.create(settings), exclusive=True, group="act")

    async def create(self, settings: RaceSettings) -> None:
        try:
            info = (await self.client.create(settings.game, **settings.create_args())).race
            if settings.bot != NO_BOT:
                info = (await self.client.invite(str(info["id"]), settings.bot)).race
        except (ClientError, Disconnected) as error:
            self.say(trouble(error), refused=True)
            return
        await self.enter(info)

    def action_join_code(self) -> None:
        self.app.push_screen(AskScreen("The race's join code (Enter joins):"), self.join_code)

    def join_code(self, code: str | None) -> None:
        if code:
            self.run_worker(self.join(None, code), exclusive=True, group="act")

    def action_replay(self) -> None:
        self.app.push_screen(AskScreen("A finished race's id (Enter shows its replay):"), self.replay)

    def replay(self, race_id: str | None) -> None:
        if race_id:
            self.run_worker(self.show_replay(race_id), exclusive=True, group="act")

    async def show_replay(self, race_id: str) -> None:
        try:
            replay = await fetch_replay(self.client, race_id)
        except (ClientError, Disconnected) as error:
            self.say(trouble(error), refused=True)
            return
        except ReplayRefused as error:
            self.say(str(error), refused=True)
            return
        self.app.push_screen(ReplayScreen(replay))

    @on(DataTable.RowSelected)
    def action_open(self) -> None:
        race_id = self.current_race()
        if race_id is None:
            self.say("No race here: c creates one.", refused=True)
            return
        self.run_worker(self.join(race_id, None), exclusive=True, group="act")

    async def join(self, race_id: str | None, code: str | None) -> None:
        """Join (or resume) the race ``race_id``, or the one of join code ``code``."""
        info = self.races.get(race_id or "")
        seated = info is not None and any(p.get("player") == self.client.player for p in info.get("players", []))
        try:
            if info is not None and seated and info["status"] not in ("open", "countdown"):
                await self.resume(str(info["id"]))
                return
            if info is not None and not seated and info["status"] not in ("open",):
                self.say(f"Race {printable(str(info['id']))} is {printable(str(info['status']))}: no seat to take.")
                return
            joined = (await self.client.join(race_id, code=code)).race
        except (ClientError, Disconnected) as error:
            self.say(trouble(error), refused=True)
            return
        await self.enter(joined)

    async def resume(self, race_id: str) -> None:
        snapshot = await self.client.snapshot(race_id)
        if snapshot.view is None or snapshot.seat is None:
            self.say("That race has no seat of yours any more.", refused=True)
            return
        table = table_from_snapshot(self.client, dict(snapshot.race), snapshot.seat, snapshot.seq, dict(snapshot.view))
        table.offset = await server_offset(self.client)
        self.app.push_screen(RaceScreen(table, back_to_lobby=True))

    async def enter(self, info: dict[str, Any]) -> None:
        self.app.push_screen(RoomScreen(self.client, info))


class AskScreen(ModalScreen[str | None]):
    """One line to type (a join code, a race id): dismissed with what was typed, or ``None``."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    AskScreen { align: center middle; }
    AskScreen > Vertical { width: 50; height: auto; border: round $accent; background: $surface; padding: 0 1; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question)
            yield Input(id="answer", max_length=64, compact=True)
        yield Footer(compact=True)

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
