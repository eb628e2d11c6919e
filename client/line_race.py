"""Racing and watching from a terminal, line by line, before the Textual app exists.

``parlour race --server URL create GAME`` creates a race and prints its id and join code;
``parlour race --server URL join CODE`` takes a seat. Either way the player is ready at
once: the race starts when every seat is taken. Moves are typed as in ``play-local``
(``?`` lists them); other racers' progress is printed as it comes. ``parlour watch
--server URL RACE`` prints every racer's board as it changes.

The identity token of each server is kept in ``$XDG_CONFIG_HOME/parlour/identities.json``
(or ``~/.config/parlour/``), so running again resumes the same player and seats.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, TextIO

from parlour.client.connection import Client, ClientError, Resumed
from parlour.client.line_play import describe_end, read_line
from parlour.games import CONCEDE, GameError, Move, get_game
from parlour.protocol import ErrorCode
from parlour.protocol.messages import Countdown, End, Progress, RaceUpdate, Start, Watch


def identities_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "parlour" / "identities.json"


def load_token(server: str) -> str | None:
    try:
        return json.loads(identities_path().read_text()).get(server)
    except (OSError, ValueError):
        return None


def save_token(server: str, token: str) -> None:
    path = identities_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        known = json.loads(path.read_text())
    except (OSError, ValueError):
        known = {}
    known[server] = token
    path.write_text(json.dumps(known, indent=1))
    path.chmod(0o600)


async def connect(server: str, name: str) -> Client:
    """Connect as the player this machine already is on ``server``, or as a new one."""
    token = load_token(server)
    try:
        client = await Client.connect(server, name, token=token)
    except ClientError as error:
        if error.code != "bad_token":
            raise
        client = await Client.connect(server, name)
    if client.token and client.token != token:
        save_token(server, client.token)
    return client


class Terminal:
    """Lines in and lines out. A daemon thread reads the lines, so events keep printing while
    a line is awaited, and giving up on one (the race ended) leaves nothing to wait for at exit."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self._lines: asyncio.Queue[str | None] | None = None

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    async def line(self) -> str | None:
        """The next line typed, or ``None`` once input has ended."""
        if self._lines is None:
            self._lines = asyncio.Queue()
            reader = threading.Thread(target=self._read, args=(asyncio.get_running_loop(), self._lines), daemon=True)
            reader.start()
        return await self._lines.get()

    def _read(self, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None]) -> None:
        while True:
            line = self.stdin.readline()
            try:
                loop.call_soon_threadsafe(lines.put_nowait, line or None)
            except RuntimeError:  # the loop is closed: nobody is reading any more
                return
            if not line:
                return


async def race(
    server: str, name: str, action: str, target: str, settings: dict[str, Any], stdin: TextIO, stdout: TextIO
) -> int:
    """Create (``action == "create"``, ``target`` the game) or join (``target`` the code or id) and race."""
    term = Terminal(stdin, stdout)
    async with await connect(server, name) as client:
        if action == "create":
            info = (await client.create(target, **settings)).race
            term.say(f"Race {info['id']} created: {info['seats']} seats of {info['game']}.")
            term.say(f"A friend joins with:  parlour race --server {server} join {info['code']}")
        else:
            try:
                info = (await client.join(code=target)).race
            except ClientError as error:
                if error.code != "unknown_race":
                    raise
                info = (await client.join(target)).race
            term.say(f"Joined race {info['id']} ({info['game']}).")
        race_id = info["id"]
        await client.ready(race_id)
        term.say("You are ready; the race starts when every seat is taken and ready.")
        start = await wait_for_start(client, race_id, term)
        return await play(client, race_id, start, term)


async def wait_for_start(client: Client, race_id: str, term: Terminal) -> Start:
    async for event in client.events():
        if isinstance(event, Countdown) and event.race == race_id:
            term.say(f"Starting in {event.starts_in:g} s...")
        elif isinstance(event, RaceUpdate) and event.race.get("id") == race_id:
            players = ", ".join(p["name"] + (" (ready)" if p["ready"] else "") for p in event.race["players"])
            term.say(f"Seats: {players}")
        elif isinstance(event, Start) and event.race == race_id:
            term.say(f"Go! Commitment to the deal: {event.commitment}")
            return event
    raise ConnectionError("the connection ended before the race started")


async def play(client: Client, race_id: str, start: Start, term: Terminal) -> int:
    """The move loop: typed lines become moves; others' progress and the end are printed.

    Returns 0 once the results are printed (even if the time limit ended the race while
    a move was being typed), 1 if the connection was lost for good first.
    """
    game = get_game(str(start.view["game"]))
    view, seq = start.view, start.seq
    hints: list[Move] = []
    names: dict[int, str] = {}
    term.say(game.render(view))
    events = asyncio.create_task(show_events(client, race_id, term, names))
    try:
        while view["ended"] is None:
            term.stdout.write("move> ")
            term.stdout.flush()
            typing = asyncio.ensure_future(term.line())
            await asyncio.wait({typing, events}, return_when=asyncio.FIRST_COMPLETED)
            if not typing.done():  # the race is over, or the connection lost, before this game
                typing.cancel()
                term.say("")
                return events.result()
            line = typing.result()
            try:
                wanted = CONCEDE if line is None else read_line(game, line, view, hints)
                if isinstance(wanted, Move):
                    ack = await (
                        client.concede(race_id) if wanted == CONCEDE else client.move(race_id, seq, wanted.wire())
                    )
                    view, seq = ack.view, ack.seq
                    hints.clear()
                    wanted = game.render(view)
            except (GameError, ClientError) as error:
                wanted = f"{getattr(error, 'code', type(error).__name__)}: {getattr(error, 'message', error)}"
            if wanted is not None:
                term.say(wanted)
        term.say(describe_end(game, view))
        term.say("Waiting for the others to finish...")
        return await events
    finally:
        events.cancel()


async def show_events(client: Client, race_id: str, term: Terminal, names: dict[int, str]) -> int:
    """Print others' progress, then the results; return 0 once they are printed, 1 if the race or connection is lost."""
    async for event in client.events():
        if isinstance(event, RaceUpdate) and event.race.get("id") == race_id:
            names.update({p["seat"]: p["name"] for p in event.race["players"]})
        elif isinstance(event, Progress) and event.race == race_id:
            who = names.get(event.seat, f"seat {event.seat}")
            state = f", {event.ended}" if event.ended else ""
            term.say(f"  [{who}: score {event.score}, {event.moves} moves{state}]")
        elif isinstance(event, Resumed):
            term.say("  [reconnected]")
            status = await print_results_if_over(client, race_id, term)
            if status is not None:
                return status
        elif isinstance(event, End) and event.race == race_id:
            term.say(format_results(event.results, event.seed, event.salt))
            return 0
    term.say("The connection to the server is lost.")
    return 1


async def print_results_if_over(client: Client, race_id: str, term: Terminal) -> int | None:
    """If the race is over, print its results (from the replay) and return 0; if the server knows
    no such race, say so and return 1; while it runs, return ``None``. For after a reconnection,
    when the race's ``end`` may have been missed, and for watching a finished race."""
    try:
        replay = (await client.replay(race_id)).replay
    except ClientError as error:
        if error.code == ErrorCode.NOT_FINISHED:
            return None
        term.say(f"The race is gone: {error.message}")
        return 1
    term.say(format_results(replay["results"], replay["seed"], replay["salt"]))
    return 0


def format_results(results: list[dict[str, Any]], seed: str, salt: str) -> str:
    """The results, best first, and the revealed seed and salt (from an ``end`` or a replay)."""
    lines = ["Results:"]
    for r in results:
        lines.append(
            f"  {r['place']}. {r['name']}: score {r['score']} ({r['ended']}, {r['moves']} moves, {r['time']} s)"
        )
    lines.append(f"Seed {seed}, salt {salt}: check the deal with 'parlour verify' on the replay.")
    return "\n".join(lines)


def board_heading(name: str | None, seq: int, view: dict[str, Any]) -> str:
    """The line above a watched board: whose, how many log entries in, the score, how it ended."""
    parts = [name or "?", f"entry {seq}", f"score {view['score']}"]
    if view.get("ended"):
        parts.append(view["ended"])
    return f"--- {', '.join(parts)} ---"


async def watch(server: str, name: str, race_id: str, stdout: TextIO) -> int:
    """Print every racer's board as it changes (or, in a race without live boards, their progress
    and then the final boards), until the race ends."""
    term = Terminal(sys.stdin, stdout)
    async with await connect(server, name) as client:
        spectating = await client.spectate(race_id)
        info = spectating.race
        game = get_game(info["game"])
        names = {p["seat"]: p["name"] for p in info["players"]}
        delay = info["spectator_delay"]
        term.say(
            f"Watching race {race_id}: {info['game']}, {info['status']}" + (f", {delay} s behind" if delay else "")
        )
        for board in spectating.boards:
            term.say(
                f"{board_heading(names.get(board['seat']), board['seq'], board['view'])}\n{game.render(board['view'])}"
            )
        if info["status"] == "finished":
            return await print_results_if_over(client, race_id, term) or 0
        async for event in client.events():
            if isinstance(event, Resumed):
                status = await print_results_if_over(client, race_id, term)
                if status is not None:
                    return status
            elif isinstance(event, Watch) and event.race == race_id:
                term.say(f"{board_heading(names.get(event.seat), event.seq, event.view)}\n{game.render(event.view)}")
            elif isinstance(event, Progress) and event.race == race_id:  # a race without live boards
                who = names.get(event.seat, f"seat {event.seat}")
                state = f", {event.ended}" if event.ended else ""
                term.say(f"  [{who}: score {event.score}, {event.moves} moves{state}]")
            elif isinstance(event, RaceUpdate) and event.race.get("id") == race_id:
                names.update({p["seat"]: p["name"] for p in event.race["players"]})
            elif isinstance(event, End) and event.race == race_id:
                term.say(format_results(event.results, event.seed, event.salt))
                return 0
    term.say("The connection to the server is lost.")
    return 1
