"""TUI: how soon the Textual app draws its first screen, and how soon a key press shows the board after the
server's acknowledgement.

Everything runs in this process under Textual's Pilot (``App.run_test``, headless, ``--size`` cells, 80x24 by
default), against a real server on loopback: this starts ``parlour serve`` (its own embedded Redis in a temporary
directory, the rate limits out of the way and no countdown, as in load.py) and one ``parlour bot run random``.

- **first screen** (``first_screen_s``): practice, ``PlayApp(GAME, SEED)``, from creating the app to the first
  paint of its game screen with the board laid out: Textual's start, the CSS, composing and laying out the
  screen, and rendering it (Pilot's headless driver renders every update, it only does not write it to a
  terminal). It is the first app of the process, so nothing of Textual is warm. The imports come on top of it:
  ``imports_s`` is the time a fresh interpreter takes to import the app's modules (and with them Textual).
- **race screen** (``race_screen_s``, the median over the races): ``RaceApp`` (what ``parlour play --race GAME
  --bot random`` runs), from creating the app to the first paint of the race's board: connecting, creating the
  race, inviting the bot, its acceptance and the start, then the screen. Mostly the network and the bot.
- **key to board** (``move_ms_p50``, ``move_ms_p99``): in the races, moves chosen at random (``--seed``) from
  the view's legal moves, each made by keys as a person would: the arrow keys to the source and Enter, the arrow
  keys to the destination, then the timed press, the Enter that completes the move (a move made by one press,
  such as turning the stock, is that press alone). The time runs from just before Pilot sends that key to the
  first paint of the screen after the board was redrawn from the server's ``ack`` (the table's ``moves_made``
  went up, and every place's widget shows the ack's view): the app's key handling, the move's round trip to the
  server, the redraw and Textual's next screen update (it paints at most 60 times a second, so up to some 17 ms
  of the figure are that wait). ``ack_ms_p50``/``ack_ms_p99`` are the part up to the ack's arrival.
  A race goes on until ``--moves`` moves are timed or the game has no move left; then it is conceded if need
  be, and the next race starts. The timed moves wait until the bot has finished its own game (in Golf the
  random bot is done within a second; at most 20 s are waited, then a line on stderr says so), so they measure
  the app and the server, not the bot's burst of moves.

How a paint is seen: ``call_after_refresh`` from the screen (after the redraw, or when the screen is shown),
whose callback Textual runs once the screen's next update has been rendered, after any callback queued before it
(at the first screen the footer's recompose, which paints again: the figure is the screen with its footer). The
headless driver renders each update as a terminal would get it and only skips writing it out, so a real terminal
adds that write. The hooks wrap the screen's ``redraw`` and the table's ``play`` on the instance; the app itself
is not changed.

p99 is the nearest-rank percentile: with fewer than 100 moves it is the slowest. Targets (issue 13): first
screen under 1 s, key to board under 50 ms.

    python bench/tui.py                          # Golf, 100 moves, 80x24
    python bench/tui.py --moves 300 --size 120x40 --json
    python bench/tui.py --game the-chance --moves 50

``--json`` prints one object: ``{"game", "size", "moves", "races", "imports_s", "first_screen_s",
"race_screen_s", "move_ms_p50", "move_ms_p99", "move_ms_max", "ack_ms_p50", "ack_ms_p99"}``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from load import BENCH_LIMITS, SERVE, free_port, start_process, stop_process
from textual.app import App
from textual.screen import Screen

from parlour.client.connection import Client
from parlour.client.tui.app import GameScreen, PlayApp
from parlour.client.tui.board import Board, Direction, path
from parlour.client.tui.layouts import layout_for
from parlour.client.tui.picking import presses
from parlour.client.tui.racing import RaceApp, RaceScreen
from parlour.client.tui.widgets import BoardView, PlaceView
from parlour.games import Move, game_names

BOT = "random"
READY = 30.0  # seconds the bot has to come online, a race to start, or to end once conceded
SETTLE = 20.0  # seconds the bot's own game may take before the timed moves start anyway
IMPORTS = "import time; t = time.perf_counter(); import parlour.client.tui.racing; print(time.perf_counter() - t)"
ARROWS: dict[Direction, str] = {"left": "left", "right": "right", "up": "up", "down": "down"}


# --- the server ------------------------------------------------------------------------------------------


@contextlib.contextmanager
def served() -> Iterator[str]:
    """A real server (embedded Redis in a temporary directory, no rate limits, no countdown) and the random
    bot's runner; yields the server's URL and stops both on the way out."""
    with tempfile.TemporaryDirectory() as home:
        port = free_port()
        server = start_process([*SERVE, "--port", str(port), "--data-dir", str(Path(home) / "d"), *BENCH_LIMITS],
                               "listening on")  # fmt: skip
        url = f"ws://127.0.0.1:{port}"
        runner = None
        try:
            bot = [*SERVE[:-1], "bot", "run", BOT, "--max-races", "2", "--identity", str(Path(home) / "ids.json")]
            runner = start_process([*bot, "--server", url], "connected to")
            yield url
        finally:
            for process in (runner, server):
                if process is not None:
                    stop_process(process)


async def bot_online(url: str) -> None:
    """Wait until the bot is in the lobby (RuntimeError after ``READY`` seconds)."""
    async with await Client.connect(url, "bench") as client:
        deadline = time.monotonic() + READY
        while BOT not in {bot["name"] for bot in (await client.lobby()).bots or []}:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the bot did not come online in {READY:.0f} s")
            await asyncio.sleep(0.1)


# --- timing the app --------------------------------------------------------------------------------------


def painted_at(app_class: type[App[None]]) -> type[App[None]]:
    """``app_class``, noting in ``painted`` when the first screen of each type was first painted with its
    board laid out (any screen without a board: once painted)."""

    class Timed(app_class):  # type: ignore[valid-type,misc]
        painted: dict[type[Screen[Any]], float]

        def on_mount(self) -> None:  # runs before app_class's own on_mount (Textual calls both)
            self.painted = {}
            self.screen_change_signal.subscribe(self, self._changed, immediate=True)

        def _changed(self, screen: Screen[Any]) -> None:
            if type(screen) not in self.painted:
                screen.call_after_refresh(self._painted, screen)

        def _painted(self, screen: Screen[Any]) -> None:
            boards = list(screen.query(BoardView)) if screen.is_attached else []
            if boards and not all(board.region.area for board in boards):  # not laid out yet: the next paint
                screen.call_after_refresh(self._painted, screen)
                return
            self.painted.setdefault(type(screen), time.perf_counter())

    return Timed


@dataclass
class Stopwatch:
    """A game screen's moves: when each one's ack arrived and when the board redrawn from it was painted."""

    screen: GameScreen
    acked: dict[int, float] = field(default_factory=dict)
    painted: dict[int, float] = field(default_factory=dict)
    event: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        screen, table = self.screen, self.screen.table
        redraw, play = screen.redraw, table.play
        seen = table.moves_made

        def timed_redraw() -> None:
            nonlocal seen
            redraw()
            if table.moves_made != seen:
                seen = table.moves_made
                screen.call_after_refresh(self._painted, seen)

        async def timed_play(move: Move) -> dict[str, Any]:
            view = await play(move)
            self.acked[table.moves_made] = time.perf_counter()
            return view

        screen.redraw = timed_redraw  # type: ignore[method-assign]
        table.play = timed_play  # type: ignore[method-assign]

    def _painted(self, moves: int) -> None:
        if drawn(self.screen) != self.screen.layout_.board(self.screen.table.view).places():
            self.screen.call_after_refresh(self._painted, moves)  # a new board widget: its own paint
            return
        self.painted.setdefault(moves, time.perf_counter())
        self.event.set()

    async def wait(self, moves: int) -> float:
        """When the board after move number ``moves`` was painted."""
        async with asyncio.timeout(READY):
            while moves not in self.painted:
                self.event.clear()
                await self.event.wait()
        return self.painted[moves]


def drawn(screen: GameScreen) -> list[Any]:
    """The places the board's widgets draw now."""
    return [widget.place for widget in screen.query(PlaceView)]


async def until(condition: Callable[[], bool], what: str, timeout: float = READY) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"not within {timeout:.0f} s: {what}")
        await asyncio.sleep(0.01)


# --- moves by keys ---------------------------------------------------------------------------------------


def keys_to(board: Board, start: str, target: str) -> list[str]:
    """The fewest arrow keys that take the cursor from ``start`` to ``target``."""
    steps = path(board, start, target)
    if steps is None:
        raise RuntimeError(f"the cursor cannot reach {target} from {start}")
    return [ARROWS[direction] for direction in steps]


# --- the runs --------------------------------------------------------------------------------------------


@dataclass
class Figures:
    first_screen: float = 0.0
    race_screens: list[float] = field(default_factory=list)
    moves: list[float] = field(default_factory=list)  # key to painted board, seconds
    acks: list[float] = field(default_factory=list)  # key to ack, seconds


async def first_screen(game: str, seed: int, size: tuple[int, int]) -> float:
    """Seconds from creating a practice app to the first paint of its game screen."""
    started = time.perf_counter()
    app = painted_at(PlayApp)(game, seed)
    async with app.run_test(size=size) as pilot:
        await until(lambda: GameScreen in app.painted, "the practice board is drawn")
        await pilot.press("q")
    return float(app.painted[GameScreen] - started)


async def race(url: str, game: str, wanted: int, chooser: random.Random, size: tuple[int, int], got: Figures) -> int:
    """One race against the bot in ``RaceApp``, timing up to ``wanted`` moves; the moves timed."""
    layout = layout_for(game)
    started = time.perf_counter()
    app = painted_at(RaceApp)(lambda: Client.connect(url, "bench"), game, BOT)
    timed = 0
    async with app.run_test(size=size) as pilot:
        await until(lambda: RaceScreen in app.painted, "the race starts")
        got.race_screens.append(app.painted[RaceScreen] - started)
        screen = app.screen
        assert isinstance(screen, RaceScreen)
        table = screen.race
        watch = Stopwatch(screen)
        message = screen.query_one("#message")
        try:
            await until(lambda: all(o.finished for o in table.opponents.values()), "the bot finishes", SETTLE)
        except RuntimeError:  # a bot still playing only makes the figures noisier
            print(f"tui: the bot is still playing after {SETTLE:.0f} s: timing anyway", file=sys.stderr)
        while timed < wanted and table.view["ended"] is None and app.screen is screen:
            choices = presses(layout, table.view)
            if not choices:
                break
            move, places = chooser.choice(choices)
            for place in places[:-1]:
                await pilot.press(*keys_to(screen.board, screen.cursor, place), "enter")
            await pilot.press(*keys_to(screen.board, screen.cursor, places[-1]))
            before = table.moves_made
            pressed = time.perf_counter()
            await pilot.press("enter")
            # Under load Pilot's press can return before the key is handled: wait for the ack (or the refusal).
            await until(lambda made=before: table.moves_made != made or message.has_class("refused"), "the answer")
            if table.moves_made != before + 1:
                raise RuntimeError(f"{move.text()} by {places} was not made: {table.view.get('ended')}")
            got.moves.append(await watch.wait(table.moves_made) - pressed)
            got.acks.append(watch.acked[table.moves_made] - pressed)
            timed += 1
        if table.view["ended"] is None:
            await pilot.press("c", "c")  # concede: the race ends now (the bot is done), freeing the bot
        await until(lambda: table.end is not None, "the race's end")
    return timed


async def races(url: str, game: str, moves: int, seed: int, size: tuple[int, int], got: Figures) -> None:
    await bot_online(url)
    chooser = random.Random(seed)
    idle = 0
    while len(got.moves) < moves:
        if await race(url, game, moves - len(got.moves), chooser, size, got):
            idle = 0
        else:
            idle += 1
            if idle == 3:
                raise RuntimeError(f"three races of {game} in a row without a move made by keys")


def imports() -> float:
    """Seconds a fresh interpreter takes to import the app's modules (Textual with them)."""
    done = subprocess.run([sys.executable, "-c", IMPORTS], capture_output=True, text=True, check=True, timeout=120)
    return float(done.stdout)


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def size_of(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a size is WIDTHxHEIGHT, like 80x24, not {text!r}") from None
    if width < 40 or height < 12:
        raise argparse.ArgumentTypeError("the smallest size is 40x12")
    return width, height


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=game_names(), default="golf", help="the game (default golf)")
    parser.add_argument("--moves", type=int, default=100, help="moves to time (default 100)")
    parser.add_argument("--size", type=size_of, default=(80, 24), help="the terminal, WIDTHxHEIGHT (default 80x24)")
    parser.add_argument("--seed", type=int, default=1, help="the practice deal and the choice of moves (default 1)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    if not 1 <= args.moves <= 100_000:
        parser.error("--moves is from 1 to 100000")
    width, height = args.size
    if not args.json:
        print(f"tui: {args.game} at {width}x{height}, {args.moves} moves against the {BOT} bot on a local server; "
              f"{os.cpu_count()} cpus")  # fmt: skip
    got = Figures()
    got.first_screen = asyncio.run(first_screen(args.game, args.seed, args.size))
    with served() as url:
        asyncio.run(races(url, args.game, args.moves, args.seed, args.size, got))
    ms = [s * 1000 for s in got.moves]
    acks = [s * 1000 for s in got.acks]
    figures = {
        "game": args.game,
        "size": f"{width}x{height}",
        "moves": len(ms),
        "races": len(got.race_screens),
        "imports_s": round(imports(), 4),
        "first_screen_s": round(got.first_screen, 4),
        "race_screen_s": round(statistics.median(got.race_screens), 4),
        "move_ms_p50": round(statistics.median(ms), 2),
        "move_ms_p99": round(percentile(ms, 99), 2),
        "move_ms_max": round(max(ms), 2),
        "ack_ms_p50": round(statistics.median(acks), 2),
        "ack_ms_p99": round(percentile(acks, 99), 2),
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    f = figures
    rows = [
        f"imports       {f['imports_s']:8.3f} s   the app's modules and Textual, in a fresh interpreter",
        f"first screen  {f['first_screen_s']:8.3f} s   practice: PlayApp created to its board painted (target < 1 s)",
        f"race screen   {f['race_screen_s']:8.3f} s   RaceApp created to the race's board painted (connect, create, "
        f"invite, start), median of {f['races']} races",
        f"key to board  {f['move_ms_p50']:8.1f} ms  p50, {f['move_ms_p99']:.1f} ms p99, {f['move_ms_max']:.1f} ms max, "
        f"over {f['moves']} moves (target < 50 ms)",
        f"key to ack    {f['ack_ms_p50']:8.1f} ms  p50, {f['ack_ms_p99']:.1f} ms p99",
    ]
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
