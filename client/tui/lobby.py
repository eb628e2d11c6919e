"""The app on a server: the connect screen, the lobby, creating and joining races, the room before the start.

``parlour play`` opens :class:`ConnectScreen` (server, name, password; the servers used last, and practice
offline). Connected, :class:`LobbyScreen` lists the races (the player's own first, then the open and running
public ones), the public tournaments and the bots online, asking the server again every few seconds (the
lobby is not pushed). From there :class:`CreateRaceScreen` sets up a race with every setting the protocol
has, :class:`JoinCodeScreen` joins a private one, and :class:`RoomScreen` waits, ready, for the seats to
fill and the start, then hands over to the race screen.

The pure parts (:class:`RaceSettings`, :func:`settings_from`, :func:`race_cells`, :func:`lobby_notes`) read
and check values; the screens do the I/O.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Input, Label, OptionList, Select, Static, Switch
from textual.widgets.option_list import Option

from parlour.client.connection import Client, ClientError, Countdown, Disconnected, RaceUpdate, Resumed, Start
from parlour.client.identity import default_name
from parlour.client.line_race import Account, clock, connect, describe_race, seat_list, server_offset
from parlour.client.tui.app import ChooseGameScreen, PlayApp
from parlour.client.tui.race import RaceTable
from parlour.client.tui.racing import RaceScreen
from parlour.games import GameError, game_names, get_game
from parlour.protocol.text import printable

REFRESH = 3.0  # seconds between two lobby requests
NO_BOT = ""
ANY_BOT = "*"


# --- the pure parts ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RaceSettings:
    """A race to create: every setting of the protocol's ``create``, and the bot to invite (if any)."""

    game: str
    options: dict[str, Any] = field(default_factory=dict)
    seats: int = 2
    time_limit: int = 600
    public: bool = True
    undo: bool = False
    live_boards: bool = False
    spectator_delay: int = 0
    bot: str = NO_BOT  # a bot's name, ANY_BOT, or NO_BOT

    def create_args(self) -> dict[str, Any]:
        """The keyword arguments of :meth:`Client.create`."""
        return {
            "options": self.options or None,
            "seats": self.seats,
            "time_limit": self.time_limit,
            "public": self.public,
            "undo": self.undo,
            "live_boards": self.live_boards,
            "spectator_delay": self.spectator_delay,
        }


class SettingsError(ValueError):
    """A race setting that cannot be: the message says which and why."""


def _whole(text: str, what: str, low: int, high: int) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise SettingsError(f"{what} must be a whole number, from {low} to {high}") from None
    if not low <= value <= high:
        raise SettingsError(f"{what} must be from {low} to {high}")
    return value


def settings_from(
    game: str,
    options: Mapping[str, object],
    seats: str,
    time_limit: str,
    *,
    private: bool = False,
    undo: bool = False,
    live_boards: bool = False,
    spectator_delay: str = "0",
    bot: str = NO_BOT,
) -> RaceSettings:
    """The settings a form gave, checked (text fields as typed); :class:`SettingsError` says what is wrong.

    The bounds are the protocol's; the server checks them again."""
    try:
        resolved = get_game(game).resolve_options(options)
    except GameError as error:
        raise SettingsError(str(error)) from None
    count = _whole(seats, "seats", 1, 8)
    if bot != NO_BOT and count < 2:
        raise SettingsError("a race with a bot needs at least two seats")
    return RaceSettings(
        game=game,
        options=dict(resolved),
        seats=count,
        time_limit=_whole(time_limit, "the time limit (seconds)", 10, 86400),
        public=not private,
        undo=undo,
        live_boards=live_boards,
        spectator_delay=_whole(spectator_delay, "the spectator delay (seconds)", 0, 3600) if live_boards else 0,
        bot=bot,
    )


def race_cells(info: Mapping[str, Any], player: str) -> tuple[str, str, str, str, str, str]:
    """One lobby row: game, seats taken, who, status (``yours`` marked), time limit, id."""
    mine = any(p.get("player") == player for p in info.get("players", []))
    taken = f"{len(info.get('players', []))}/{info['seats']}"
    try:
        title = get_game(str(info["game"])).title
    except GameError:
        title = printable(str(info["game"]))
    status = printable(str(info["status"])) + (", yours" if mine else "")
    if not info.get("public", True):
        status += ", private"
    return title, taken, seat_list(dict(info)), status, clock(float(info["time_limit"])), printable(str(info["id"]))


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


def table_from_snapshot(client: Client, race: dict[str, Any], seat: int, seq: int, view: dict[str, Any]) -> RaceTable:
    """The table of a race that started while this app was not looking (resumed from the lobby)."""
    start = Start(race=str(race["id"]), seat=seat, deadline=float(race.get("deadline", 0.0)), seq=seq, view=view)
    return RaceTable(client, race, start)


# --- the screens --------------------------------------------------------------------------------


class ConnectScreen(Screen[None]):
    """Where to play: a server (with a name and a password), or practice offline."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "practice", "Practice offline"),
        Binding("escape", "app.quit", "Quit"),
    ]
    DEFAULT_CSS = """
    ConnectScreen { align: center middle; }
    ConnectScreen > Vertical { width: 76; max-width: 100%; height: auto; max-height: 100%;
                               border: round $accent; padding: 0 1; }
    ConnectScreen Input { margin: 0 0 0 0; }
    ConnectScreen #recent { height: auto; max-height: 8; }
    ConnectScreen #problem { color: $error; text-style: bold; height: auto; }
    ConnectScreen Horizontal { height: auto; }
    """

    def __init__(self, account: Account, recent: list[str], name: str) -> None:
        super().__init__()
        self.account = account
        self.recent = recent
        self.name_ = name

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Parlour: connect to a server", style="bold"))
            yield Label("Server")
            yield Input(self.account.server, placeholder="ws://host:8765", id="server")
            yield Label("Your name")
            yield Input(self.name_, placeholder="your name", id="name", max_length=32)
            yield Label("Password (only for a private server)")
            yield Input(self.account.password or "", password=True, id="password")
            with Horizontal():
                yield Button("Connect", variant="primary", id="connect")
                yield Button("Practice offline", id="practice")
            if self.recent:
                yield Label("Servers used last (Enter picks one):")
                yield OptionList(*(Option(printable(s), id=s) for s in self.recent), id="recent")
            yield Static(id="problem")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#server", Input).focus()

    def problem(self, text: str) -> None:
        self.query_one("#problem", Static).update(Text(text))

    @on(OptionList.OptionSelected, "#recent")
    def picked(self, event: OptionList.OptionSelected) -> None:
        assert event.option.id is not None
        self.query_one("#server", Input).value = event.option.id
        self.query_one("#connect", Button).focus()

    @on(Button.Pressed, "#practice")
    def action_practice(self) -> None:
        self.app.push_screen(ChooseGameScreen())

    @on(Input.Submitted)
    @on(Button.Pressed, "#connect")
    def connect(self) -> None:
        server = self.query_one("#server", Input).value.strip()
        name = self.query_one("#name", Input).value.strip()
        password = self.query_one("#password", Input).value or None
        if not server.startswith(("ws://", "wss://")):
            self.problem("The server is a ws:// or wss:// address, e.g. ws://127.0.0.1:8765.")
            return
        account = Account(server, name or None, self.account.profile, self.account.identity, password)
        self.problem(f"Connecting to {printable(server)}…")
        self.run_worker(self.open(account), exclusive=True, name="connect")

    async def open(self, account: Account) -> None:
        try:
            client = await connect(account)
        except ClientError as error:
            hint = " (give the server's password)" if error.code == "bad_password" else ""
            self.problem(f"The server refused: {printable(error.message)}{hint}")
            return
        except (OSError, TimeoutError, Disconnected) as error:
            self.problem(f"Cannot connect to {printable(account.server)}: {error or type(error).__name__}")
            return
        except Exception as error:  # websockets' handshake errors: a wrong address, not a Parlour server
            self.problem(f"Cannot connect to {printable(account.server)}: {error}")
            return
        self.problem("")
        self.app.push_screen(LobbyScreen(client, account))


class LobbyScreen(Screen[None]):
    """The races, tournaments and bots of the server, refreshed every few seconds."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "create", "Create a race"),
        Binding("j", "join_code", "Join by code"),
        Binding("enter", "open", "Join/resume", show=False),
        Binding("r", "refresh", "Refresh"),
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
        table.add_columns("Game", "Seats", "Who", "Status", "Time", "Race")
        yield table
        with VerticalScroll(id="notes"):
            yield Static(id="bots")
        yield Static("Enter joins the race under the cursor (or resumes yours); c creates one.", id="message")
        yield Footer()

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
        try:
            page = await self.client.lobby(limit=100)
        except ClientError as error:
            self.say(f"The lobby is not available: {printable(error.message)}", refused=True)
            return
        except Disconnected as error:
            self.say(f"The connection is lost: {error}", refused=True)
            return
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
        except ClientError as error:
            self.say(f"The server refused: {printable(error.message)}", refused=True)
            return
        await self.enter(info)

    def action_join_code(self) -> None:
        self.app.push_screen(JoinCodeScreen(), self.join_code)

    def join_code(self, code: str | None) -> None:
        if code:
            self.run_worker(self.join(None, code), exclusive=True, group="act")

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
        except ClientError as error:
            self.say(f"The server refused: {printable(error.message)}", refused=True)
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


class CreateRaceScreen(ModalScreen[RaceSettings | None]):
    """Every setting of a new race: game and its options, seats, time limit, private, undo, what spectators
    see, and a bot to invite."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    CreateRaceScreen { align: center middle; }
    CreateRaceScreen > VerticalScroll { width: 76; max-width: 100%; height: auto; max-height: 100%;
                                        border: round $accent; background: $surface; padding: 0 1; }
    CreateRaceScreen Horizontal { height: auto; }
    CreateRaceScreen Horizontal > Label { width: 24; padding: 1 0 0 0; }
    CreateRaceScreen Horizontal > Input { width: 1fr; }
    CreateRaceScreen Horizontal > Select { width: 1fr; }
    CreateRaceScreen #options { height: auto; }
    CreateRaceScreen #problem { color: $error; text-style: bold; height: auto; }
    """

    def __init__(self, bots: list[dict[str, Any]], game: str | None = None) -> None:
        super().__init__()
        self.bots = bots
        self.game = game or game_names()[0]

    def compose(self) -> ComposeResult:
        games = [(get_game(name).title, name) for name in game_names()]
        with VerticalScroll():
            yield Static(Text("A new race", style="bold"))
            with Horizontal():
                yield Label("Game")
                yield Select(games, value=self.game, allow_blank=False, id="game")
            yield Vertical(id="options")
            with Horizontal():
                yield Label("Seats (1-8)")
                yield Input("2", id="seats", type="integer")
            with Horizontal():
                yield Label("Time limit (seconds)")
                yield Input("600", id="time_limit", type="integer")
            with Horizontal():
                yield Label("Invite a bot")
                yield Select(self.bot_choices(), value=NO_BOT, allow_blank=False, id="bot")
            with Horizontal():
                yield Label("Private (join code)")
                yield Switch(False, id="private")
            with Horizontal():
                yield Label("Undo allowed")
                yield Switch(False, id="undo")
            with Horizontal():
                yield Label("Spectators see boards")
                yield Switch(False, id="live_boards")
            with Horizontal():
                yield Label("…this late (seconds)")
                yield Input("0", id="spectator_delay", type="integer")
            with Horizontal():
                yield Button("Create", variant="primary", id="create")
                yield Button("Cancel", id="cancel")
            yield Static(id="problem")
        yield Footer()

    def bot_choices(self) -> list[tuple[str, str]]:
        playing = [b for b in self.bots if self.game in b.get("games", [])]
        return [
            ("no bot", NO_BOT),
            ("any bot that plays it", ANY_BOT),
            *((printable(str(b["name"])), str(b["name"])) for b in playing),
        ]

    async def on_mount(self) -> None:
        await self.show_options()
        self.query_one("#game", Select).focus()

    async def show_options(self) -> None:
        """One choice per option of the chosen game, at its default."""
        box = self.query_one("#options", Vertical)
        await box.remove_children()
        for spec in get_game(self.game).options_spec:
            values = [(str(v).lower() if isinstance(v, bool) else str(v), v) for v in spec.values]
            choice = Select(values, value=spec.default, allow_blank=False, id=f"o-{spec.name}")
            await box.mount(Horizontal(Label(spec.name), choice))

    @on(Select.Changed, "#game")
    async def game_changed(self, event: Select.Changed) -> None:
        if event.value != self.game and isinstance(event.value, str):
            self.game = event.value
            await self.show_options()
            self.query_one("#bot", Select).set_options(self.bot_choices())

    def settings(self) -> RaceSettings:
        options = {
            spec.name: self.query_one(f"#o-{spec.name}", Select).value for spec in get_game(self.game).options_spec
        }
        return settings_from(
            self.game,
            options,
            self.query_one("#seats", Input).value,
            self.query_one("#time_limit", Input).value,
            private=self.query_one("#private", Switch).value,
            undo=self.query_one("#undo", Switch).value,
            live_boards=self.query_one("#live_boards", Switch).value,
            spectator_delay=self.query_one("#spectator_delay", Input).value or "0",
            bot=str(self.query_one("#bot", Select).value),
        )

    @on(Button.Pressed, "#create")
    @on(Input.Submitted)
    def create(self) -> None:
        try:
            settings = self.settings()
        except SettingsError as error:
            self.query_one("#problem", Static).update(Text(f"Cannot create: {error}."))
            return
        self.dismiss(settings)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class JoinCodeScreen(ModalScreen[str | None]):
    """The join code of a private race (its creator shares it)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    JoinCodeScreen { align: center middle; }
    JoinCodeScreen > Vertical { width: 50; height: auto; border: round $accent; background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("The race's join code (Enter joins):")
            yield Input(id="code", max_length=64)
        yield Footer()

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class RoomScreen(Screen[None]):
    """A race before its start: its settings, who sits and who is ready; this player is ready at once.
    The race screen takes over at the start; leaving gives the seat up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "ready", "Ready / not ready"),
        Binding("l,escape", "leave", "Leave the race"),
    ]
    DEFAULT_CSS = """
    RoomScreen { align: center middle; }
    RoomScreen > Vertical { width: 80; max-width: 100%; height: auto; border: round $accent; padding: 0 1; }
    RoomScreen #news { color: $text-muted; }
    """

    def __init__(self, client: Client, info: dict[str, Any], ready: bool = True) -> None:
        super().__init__()
        self.client = client
        self.info = info
        self.race_id = str(info["id"])
        self.ready = ready

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="settings")
            yield Static(id="seats")
            yield Static(id="news")
        yield Footer()

    def on_mount(self) -> None:
        self.show()
        self.run_worker(self.wait(), name="room", exclusive=True)

    def show(self, news: str | None = None) -> None:
        self.query_one("#settings", Static).update(Text(describe_race(self.info)))
        code = f"  Join code: {printable(str(self.info['code']))}" if self.info.get("code") else ""
        state = "You are ready" if self.ready else "You are not ready (r)"
        self.query_one("#seats", Static).update(Text(f"Seats: {seat_list(self.info)}\n{state}.{code}"))
        if news is not None:
            self.query_one("#news", Static).update(Text(news))

    async def wait(self) -> None:
        """Say ready, then follow the race's events until it starts (or is gone)."""
        try:
            if self.ready:
                self.info = dict((await self.client.ready(self.race_id)).race)
            self.show("The race starts when every seat is taken and ready.")
            async for event in self.client.events():
                if isinstance(event, RaceUpdate) and event.race.get("id") == self.race_id:
                    self.info = dict(event.race)
                    if self.info["status"] == "expired":
                        self.show("The race expired: not every seat was taken and ready in time.")
                        return
                    self.show()
                elif isinstance(event, Countdown) and event.race == self.race_id:
                    self.show(f"Starting in {event.starts_in:g} s…")
                elif isinstance(event, Start) and event.race == self.race_id:
                    offset = await server_offset(self.client)
                    summary = dict((await self.client.snapshot(self.race_id)).race)
                    self.app.switch_screen(RaceScreen(RaceTable(self.client, summary, event, offset), True))
                    return
                elif isinstance(event, Resumed) and self.race_id in event.races:
                    snapshot = await self.client.snapshot(self.race_id)
                    self.info = dict(snapshot.race)
                    if snapshot.view is not None and snapshot.seat is not None:
                        table = table_from_snapshot(
                            self.client, self.info, snapshot.seat, snapshot.seq, dict(snapshot.view)
                        )
                        table.offset = await server_offset(self.client)
                        self.app.switch_screen(RaceScreen(table, True))
                        return
                    self.show("Reconnected.")
        except ClientError as error:
            self.show(f"The server refused: {printable(error.message)}")
        except Disconnected as error:
            self.show(f"The connection is lost: {error}")

    async def action_ready(self) -> None:
        try:
            self.info = dict((await self.client.ready(self.race_id, not self.ready)).race)
        except ClientError as error:
            self.show(f"The server refused: {printable(error.message)}")
            return
        self.ready = not self.ready
        self.show()

    async def action_leave(self) -> None:
        with contextlib.suppress(ClientError, Disconnected):
            await self.client.leave(self.race_id)
        self.app.pop_screen()


class LobbyApp(PlayApp):
    """``parlour play``: the connect screen, then the lobby (or practice offline)."""

    def __init__(self, account: Account) -> None:
        super().__init__()
        self.account = account
        self.clients: list[Client] = []

    def open_first(self) -> None:
        keeper = self.account.keeper
        name = self.account.name or keeper.name() or default_name(self.account.profile)
        self.push_screen(ConnectScreen(self.account, keeper.recent(), name))

    async def on_unmount(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, LobbyScreen):
                await screen.client.close()
