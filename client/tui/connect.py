"""``parlour play``: :class:`LobbyApp` opens :class:`ConnectScreen` (a server, a name and a password, with the
servers used last; or practice offline), then the lobby (:mod:`parlour.client.tui.lobby`)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from parlour.client.connection import Client, ClientError, Disconnected, unreachable_text
from parlour.client.identity import default_name
from parlour.client.line_race import Account, connect
from parlour.client.tui.app import ChooseGameScreen, PlayApp
from parlour.client.tui.lobby import LobbyScreen
from parlour.protocol.text import printable


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

    def __init__(self, account: Account, recent: list[str], name: str, fixed_server: bool = False) -> None:
        """``fixed_server``: the server cannot be changed (a browser session of ``parlour play --web``)."""
        super().__init__()
        self.account = account
        self.recent = recent
        self.name_ = name
        self.fixed_server = fixed_server

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Parlour: connect to a server", style="bold"))
            yield Label("Server")
            yield Input(
                self.account.server, placeholder="ws://host:8765", id="server", disabled=self.fixed_server, compact=True
            )
            yield Label("Your name")
            yield Input(self.name_, placeholder="your name", id="name", max_length=32, compact=True)
            yield Label("Password (only for a private server)")
            yield Input(self.account.password or "", password=True, id="password", compact=True)
            with Horizontal():
                yield Button("Connect", variant="primary", id="connect", compact=True)
                yield Button("Practice offline", id="practice", compact=True)
            if self.recent:
                yield Label("Servers used last (Enter picks one):")
                yield OptionList(*(Option(printable(s), id=s) for s in self.recent), id="recent", compact=True)
            yield Static(id="problem")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#name" if self.fixed_server else "#server", Input).focus()

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
        server = self.account.server if self.fixed_server else self.query_one("#server", Input).value.strip()
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
            self.problem(f"Cannot connect to {printable(account.server)}: {unreachable_text(error)}")
            return
        except Exception as error:  # websockets' handshake errors: a wrong address, not a Parlour server
            self.problem(f"Cannot connect to {printable(account.server)}: {unreachable_text(error)}")
            return
        self.problem("")
        self.app.push_screen(LobbyScreen(client, account))


class LobbyApp(PlayApp):
    """``parlour play``: the connect screen, then the lobby (or practice offline)."""

    def __init__(self, account: Account, fixed_server: bool = False) -> None:
        """``fixed_server``: the connect screen's server cannot be changed (for ``parlour play --web``)."""
        super().__init__()
        self.account = account
        self.fixed_server = fixed_server
        self.clients: list[Client] = []

    def open_first(self) -> None:
        keeper = self.account.keeper
        name = self.account.name or keeper.name() or default_name(self.account.profile)
        recent = [] if self.fixed_server else keeper.recent()
        self.push_screen(ConnectScreen(self.account, recent, name, self.fixed_server))

    async def on_unmount(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, LobbyScreen):
                await screen.client.close()
