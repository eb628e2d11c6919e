"""Creating a race in the app: :class:`CreateRaceScreen`, a form with every setting of the protocol's
``create`` (the game and its options, seats, time limit, private with a join code, undo, what spectators
see) and a bot to invite, and the pure :func:`settings_from`, which checks what the form holds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select, Static

from parlour.games import GameError, game_names, get_game
from parlour.protocol.text import printable

NO_BOT = ""
ANY_BOT = "*"


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


class CreateRaceScreen(ModalScreen[RaceSettings | None]):
    """Every setting of a new race: game and its options, seats, time limit, private, undo, what spectators
    see, and a bot to invite."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    CreateRaceScreen { align: center middle; }
    CreateRaceScreen > VerticalScroll { width: 76; max-width: 100%; height: auto; max-height: 100%;
                                        border: round $accent; background: $surface; padding: 0 1; }
    CreateRaceScreen Horizontal { height: auto; }
    CreateRaceScreen Horizontal > Label { width: 24; }
    CreateRaceScreen Horizontal > Button { margin: 1 2 0 0; }
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
                yield Select(games, value=self.game, allow_blank=False, id="game", compact=True)
            yield Vertical(id="options")
            with Horizontal():
                yield Label("Seats (1-8)")
                yield Input("2", id="seats", type="integer", compact=True)
            with Horizontal():
                yield Label("Time limit (seconds)")
                yield Input("600", id="time_limit", type="integer", compact=True)
            with Horizontal():
                yield Label("Invite a bot")
                yield Select(self.bot_choices(), value=NO_BOT, allow_blank=False, id="bot", compact=True)
            yield Checkbox("Private: joined only by its code", id="private", compact=True)
            yield Checkbox("Undo allowed", id="undo", compact=True)
            yield Checkbox("Spectators see the boards while it runs (for friends only)", id="live_boards", compact=True)
            with Horizontal():
                yield Label("…this late (seconds)")
                yield Input("0", id="spectator_delay", type="integer", compact=True)
            with Horizontal():
                yield Button("Create", variant="primary", id="create", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
            yield Static(id="problem")
        yield Footer(compact=True)

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
            choice = Select(values, value=spec.default, allow_blank=False, id=f"o-{spec.name}", compact=True)
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
            private=self.query_one("#private", Checkbox).value,
            undo=self.query_one("#undo", Checkbox).value,
            live_boards=self.query_one("#live_boards", Checkbox).value,
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
