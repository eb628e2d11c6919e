"""``parlour play``: the Textual app. So far: practice, any game played offline against the engine.

:class:`PlayApp` opens a game chooser, or a game at once. :class:`GameScreen` plays at a
:class:`~parlour.client.tui.practice.Table` and only ever sees its views: it draws the board from the
view through the game's layout, turns presses (keys or clicks) into moves with
:func:`~parlour.client.tui.picking.press`, and shows why a refused move was refused, leaving the
board as it was.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from parlour.client.line_play import describe_game_error
from parlour.client.tui.board import Board, Direction, step
from parlour.client.tui.layouts import Layout, layout_for
from parlour.client.tui.picking import Clear, Play, Refuse, Select, Selection, counts_from, press
from parlour.client.tui.practice import Practice, Table
from parlour.client.tui.race import Refused
from parlour.client.tui.widgets import BoardView, Marks, PlaceView
from parlour.games import GameError, Move, game_names, get_game
from parlour.protocol.text import plural

ENDINGS = {
    "won": "Won!",
    "stuck": "Stuck: no move can change anything any more.",
    "lost": "Lost: a rule ended the game.",
    "conceded": "Conceded.",
    "out_of_time": "Out of time.",
}

KEYS_HELP = """\
[b]Moving[/b]
  arrows        move the cursor between piles and cells
  Enter, Space  select the card under the cursor, then press where it goes
                (the selected pile again takes fewer cards; Esc drops it)
  mouse         click a card, then where it goes (a click deep in a column
                takes the cards from there up)
  1-9           press the main row's 1st to 9th pile
  s             turn the stock (or deal)
  f             send the selected card (or the cursor's) to the foundations
  r / e         redeal (Gaps) / settle the step (Chris-Cross Pairs)
[b]Help[/b]
  h   a hint: the greedy bot's move, marked *
  u   undo your last move
  n   a new deal of this game
  ?   this help          q   quit
  ctrl+t  light or dark  ctrl+p  every command
[b]Marks[/b]  ▸ the cursor  • selected  → may go there  * the hint
"""


def refusal_text(error: GameError) -> str:
    """A refused move or undo, worded as the server words it (the server's own words in a race)."""
    return str(error) if isinstance(error, Refused) else describe_game_error(error)


def score_text(game_name: str, view: dict[str, Any]) -> str:
    """``Score 12 (lower is better)``."""
    direction = "higher" if get_game(game_name).higher_is_better else "lower"
    return f"Score {view['score']} ({direction} is better)"


class HelpScreen(ModalScreen[None]):
    """The keys and the game's rules in one line; any of Esc, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90; max-width: 100%; height: auto; max-height: 100%;
                                  border: round $accent; background: $surface; padding: 0 1; }
    """

    def __init__(self, game_name: str, keys: str = KEYS_HELP) -> None:
        super().__init__()
        self.game_name = game_name
        self.keys = keys

    def compose(self) -> ComposeResult:
        game = get_game(self.game_name)
        with VerticalScroll():
            yield Static(Text.from_markup(f"[b]{game.title}[/b]: ") + Text(game.summary))
            yield Static(Text.from_markup(self.keys), id="keys")
        yield Footer(compact=True)


class OutcomeScreen(ModalScreen[str]):
    """A box over the board once a game or race is over, dismissed with what to do next: the word its
    bindings give ``choose`` (``"new"``, ``"board"``, ``"quit"``, ...)."""

    DEFAULT_CSS = """
    OutcomeScreen { align: center middle; }
    OutcomeScreen > Vertical { width: 70; max-width: 100%; height: auto; border: double $accent;
                               background: $surface; padding: 1 2; }
    """

    def action_choose(self, what: str) -> None:
        self.dismiss(what)


class ResultScreen(OutcomeScreen):
    """The game is over: how it ended and the score. Dismissed with what to do next: ``"new"``,
    ``"undo"``, ``"board"`` (look at the board) or ``"quit"``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('new')", "New deal"),
        Binding("u", "choose('undo')", "Undo last move"),
        Binding("escape", "choose('board')", "See the board"),
        Binding("q", "choose('quit')", "Quit"),
    ]
    DEFAULT_CSS = """
    ResultScreen > Vertical { width: 60; }
    """

    def __init__(self, game_name: str, view: dict[str, Any], moves: int) -> None:
        super().__init__()
        self.game_name = game_name
        self.view = view
        self.moves = moves

    def compose(self) -> ComposeResult:
        title = get_game(self.game_name).title
        ending = ENDINGS.get(self.view["ended"], self.view["ended"])
        with Vertical():
            yield Static(Text(f"{title}: game over", style="bold"))
            yield Static(ending, id="ending")
            yield Static(f"{score_text(self.game_name, self.view)} after {plural(self.moves, 'move')}.", id="score")
        yield Footer(compact=True)


class GameScreen(Screen[None]):
    """One game at a table: the board, the game's counters, a message line and the footer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor('left')", "Left", show=False),
        Binding("right", "cursor('right')", "Right", show=False),
        Binding("up", "cursor('up')", "Up", show=False),
        Binding("down", "cursor('down')", "Down", show=False),
        Binding("enter,space", "press", "Pick"),
        Binding("escape", "clear", "Drop", show=False),
        Binding("s", "place('s')", "Stock"),
        Binding("f", "foundation", "Home"),
        Binding("r", "place('redeal')", "Redeal"),
        Binding("e", "place('settle')", "Settle"),
        Binding("h", "hint", "Hint"),
        Binding("u,ctrl+z", "undo", "Undo"),
        Binding("n", "new_deal", "New deal"),
        Binding("question_mark,f1", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
        *(Binding(str(n), f"number({n})", f"Pile {n}", show=False) for n in range(1, 10)),
    ]
    DEFAULT_CSS = """
    GameScreen { layout: vertical; }
    GameScreen #title { height: 1; background: $panel; padding: 0 1; }
    GameScreen #table { height: 1fr; padding: 0 1; }
    GameScreen #status { height: 1; color: $text-muted; padding: 0 1; }
    GameScreen #message { height: 1; padding: 0 1; }
    GameScreen #message.refused { color: $error; text-style: bold; }
    GameScreen.roomy #table { padding: 1 2; }
    GameScreen.roomy BoardView > Horizontal { margin: 0 0 1 0; }
    GameScreen.roomy PlaceView { margin: 0 2 0 0; }
    """

    def __init__(self, table: Table, new_table: Callable[[], Table] | None = None) -> None:
        super().__init__()
        self.table = table
        self.new_table = new_table
        self.layout_: Layout = layout_for(table.game.name)
        self.board: Board = self.layout_.board(table.view)
        self.cursor = self.board.first()
        self.selection: Selection | None = None
        self.targets: frozenset[str] = frozenset()
        self.hinted: frozenset[str] = frozenset()

    # --- drawing -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield from self.above_board()
        with VerticalScroll(id="table"):
            yield BoardView(self.board)
        yield Static(self.board.status, id="status")
        yield Static(id="message")
        yield Footer(compact=True)

    def above_board(self) -> ComposeResult:
        """Widgets between the title and the board (a race's clock and opponents); none here."""
        yield from ()

    def on_mount(self) -> None:
        self.fit()
        self.redraw()
        self.say(f"{self.table.game.title}: arrows and Enter, or the mouse. h for a hint, ? for help.")

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Spread the board out on a big terminal (80x24 gets the compact board)."""
        width, height = self.app.size
        self.set_class(width >= 110 and height >= 36, "roomy")

    def redraw(self) -> None:
        """Draw the board from the table's view, with the cursor, selection, targets and hint."""
        view = self.table.view
        self.board = self.layout_.board(view)
        title = f"{self.table.game.title}  ·  {self.table.origin}  ·  {score_text(self.table.game.name, view)}"
        self.put("#title", f"{title}  ·  {plural(self.table.moves_made, 'move')}")
        self.put("#status", self.board.status)
        board_view = self.query_one(BoardView)
        if not board_view.show(self.board, self.marks()):
            board_view.remove()
            replacement = BoardView(self.board)
            self.query_one("#table").mount(replacement)
            self.call_after_refresh(lambda: replacement.show(self.board, self.marks()))

    def marks(self) -> dict[str, Marks]:
        marks: dict[str, Marks] = {}
        chosen = 0
        if self.selection is not None:
            counts = counts_from(self.layout_.links(self.table.view), self.selection.place)
            chosen = self.selection.count or (counts[0] if counts else -1)
        for place in self.board.places():
            name = place.name
            marks[name] = Marks(
                cursor=name == self.cursor,
                selected=chosen if self.selection is not None and name == self.selection.place else 0,
                target=name in self.targets,
                hinted=name in self.hinted,
            )
        return marks

    def say(self, text: str, refused: bool = False) -> None:
        """Show ``text`` on the message line (as an error if ``refused``)."""
        self.put("#message", text)
        self.query_one("#message", Static).set_class(refused, "refused")

    def put(self, selector: str, text: str) -> None:
        """Show ``text`` in one line's widget (only if it changed: an update lays the screen out again)."""
        widget = self.query_one(selector, Static)
        if str(widget.render()) != text:
            widget.update(Text(text))

    # --- pressing ----------------------------------------------------------------------

    async def press_place(self, name: str, count: int = 0) -> None:
        """A press on place ``name`` (``count`` cards from its top, 0 for the whole place)."""
        view = self.table.view
        if view["ended"] is not None:
            self.game_over()
            return
        self.hinted = frozenset()
        outcome = press(self.layout_, view, self.board, self.selection, name, count)
        if isinstance(outcome, Select):
            self.selection, self.targets = outcome.selection, outcome.targets
            label = self._label(outcome.selection.place)
            self.say(outcome.note or f"{label} selected: now choose where it goes (Esc to drop it).")
        elif isinstance(outcome, Clear):
            self.drop()
            self.say("")
        elif isinstance(outcome, Refuse):
            self.drop()
            self.say(outcome.reason, refused=True)
        elif isinstance(outcome, Play):
            await self.send(outcome.move)
        self.redraw()

    async def send(self, move: Move) -> None:
        """Make ``move`` at the table; a refusal shows its reason and changes nothing."""
        self.drop()
        try:
            view = await self.table.play(move)
        except GameError as error:
            self.say(refusal_text(error), refused=True)
            return
        self.say(f"Played {move.text()}.")
        if view["ended"] is not None:
            self.redraw()
            self.game_over()

    def drop(self) -> None:
        self.selection, self.targets = None, frozenset()

    def _label(self, name: str) -> str:
        place = self.board.place(name)
        return (place.label if place and place.label else name) if place else name

    def game_over(self) -> None:
        """This player's game ended: show the result."""
        self.show_result()

    def show_result(self) -> None:
        self.app.push_screen(
            ResultScreen(self.table.game.name, self.table.view, self.table.moves_made), self.after_result
        )

    async def after_result(self, what: str | None) -> None:
        if what == "new":
            self.action_new_deal()
        elif what == "undo":
            await self.action_undo()
        elif what == "quit":
            self.app.exit()

    # --- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        names = {place.name for place in self.board.places()}
        if action == "place":
            return parameters[0] in names and parameters[0] in self.layout_.actions
        if action == "foundation":
            return "f" in names
        if action == "new_deal":
            return self.new_table is not None
        return True

    def action_cursor(self, direction: Direction) -> None:
        self.cursor = step(self.board, self.cursor, direction)
        self.redraw()

    async def action_press(self) -> None:
        await self.press_place(self.cursor)

    async def action_place(self, name: str) -> None:
        if self.board.place(name) is not None:
            await self.press_place(name)

    async def action_number(self, number: int) -> None:
        name = self.board.numbered(number)
        if name is not None:
            self.cursor = name
            await self.press_place(name)

    async def action_foundation(self) -> None:
        if self.selection is None:
            await self.press_place(self.cursor)
            if self.selection is None:
                return
        await self.press_place("f")

    def action_clear(self) -> None:
        self.drop()
        self.say("")
        self.redraw()

    async def action_undo(self) -> None:
        self.drop()
        self.hinted = frozenset()
        try:
            await self.table.undo()
        except GameError as error:
            self.say(refusal_text(error), refused=True)
        else:
            self.say("Took the last move back.")
        self.redraw()

    def action_hint(self) -> None:
        move = self.table.hint()
        if move is None:
            self.say("No legal move left.", refused=True)
            return
        links = self.layout_.link(move, self.table.view)
        self.hinted = frozenset(name for link in links for name in (link.src, link.dst) if name)
        self.say(f"Hint: {move.text()} (marked *).")
        self.redraw()

    def action_new_deal(self) -> None:
        if self.new_table is not None:
            self.app.switch_screen(GameScreen(self.new_table(), self.new_table))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.table.game.name))

    @on(PlaceView.Pressed)
    async def clicked(self, message: PlaceView.Pressed) -> None:
        if message.name:
            self.cursor = message.name
            await self.press_place(message.name, message.count)


class ChooseGameScreen(Screen[None]):
    """Pick a game to practise. Escape goes back to the screen below, if any."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back"), Binding("q", "app.quit", "Quit")]
    DEFAULT_CSS = """
    ChooseGameScreen { align: center middle; }
    ChooseGameScreen > Vertical { width: 90; max-width: 100%; height: auto; max-height: 100%; }
    ChooseGameScreen OptionList { height: auto; max-height: 20; }
    """

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Practice: choose a game (Enter), played here against the engine.", style="bold"))
            options = []
            for name in game_names():
                game = get_game(name)
                options.append(Option(Text.assemble((game.title, "bold"), f"  {game.summary}"), id=name))
            yield OptionList(*options)
        yield Footer(compact=True)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:  # the default screen, then a screen that opened this one
            self.app.pop_screen()
        else:
            self.app.exit()

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        app = self.app
        assert isinstance(app, PlayApp)
        assert event.option.id is not None
        app.open_practice(event.option.id)


class PlayApp(App[None]):
    """``parlour play --practice [GAME] [--bot NAME]``: practise a game offline (racing an in-process bot on
    the same deal when ``bot`` names one), or choose the game first."""

    TITLE = "Parlour"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+t", "toggle_theme", "Light/dark", show=False)]

    def __init__(
        self,
        game: str | None = None,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        bot: str | None = None,
        pace: float = 1.0,
    ):
        super().__init__()
        self.game_name = game
        self.seed = seed
        self.options = options or {}
        self.bot = bot
        self.pace = pace

    def on_mount(self) -> None:
        self.open_first()

    def action_toggle_theme(self) -> None:
        """Light if dark, dark if light (the command palette, ctrl+p, lists every theme)."""
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"

    def open_first(self) -> None:
        """The first screen: the game chooser, or the game given."""
        if self.game_name is None:
            self.push_screen(ChooseGameScreen())
        else:
            self.open_practice(self.game_name, self.seed)

    def open_practice(self, game: str, seed: int | None = None) -> None:
        """Open a practice game of ``game`` on the deal of ``seed`` (a fresh one if ``None``), against the
        app's bot if it has one."""
        options = self.options if game == self.game_name else {}
        if self.bot is not None:
            self.open_practice_race(game, seed, options, self.bot)
            return

        def new_table() -> Table:
            return Practice(game, secrets.randbits(32), options)

        first = new_table() if seed is None else Practice(game, seed, options)
        self.push_screen(GameScreen(first, new_table))

    def open_practice_race(self, game: str, seed: int | None, options: dict[str, Any], bot: str) -> None:
        # Imported here: the practice race's screen is built on this module's GameScreen.
        from parlour.client.tui.practice_race import PracticeRaceScreen
        from parlour.client.tui.rival import Rival

        def pair(seed: int) -> tuple[Practice, Rival]:
            table = Practice(game, seed, options)
            return table, Rival(bot, table.game, seed, options)

        def new_race() -> tuple[Practice, Rival]:
            return pair(secrets.randbits(32))

        table, rival = pair(secrets.randbits(32) if seed is None else seed)
        self.push_screen(PracticeRaceScreen(table, rival, new_race, self.pace))
