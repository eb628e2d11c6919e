"""``parlour tournament ...`` and ``parlour ratings``: tournaments from a terminal.

``create`` asks the server for a tournament of online bots and seats for people, and with
``--watch`` follows it to its end; ``join ID`` enters one as a person and plays each of its races
as ``parlour race`` does (each comes as an invitation when its round begins: take it within the
tournament's forfeit time, or forfeit the deal); ``watch ID`` follows one as a spectator;
``standings ID`` prints where it stands; ``export ID`` saves a finished one (JSON for ``parlour
verify``, CSV or Markdown for people); ``start ID`` starts one's own open tournament with the
people entered so far; ``list`` lists the newest. ``parlour ratings GAME`` prints a leaderboard.

Following a tournament shows a progress bar (races done of all, time so far, an estimate of the
time left at the pace so far): on a terminal one line redrawn in place, elsewhere a line each
time a race is done. Connections, identities and errors are those of ``parlour race``
(:mod:`parlour.client.line_race`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections import deque
from typing import Any, TextIO

from parlour.client.connection import Client, ClientError, Resumed
from parlour.client.line_race import (
    Account,
    Clock,
    InputEnded,
    connect,
    describe_race,
    play,
    seat_kept,
    server_offset,
    wait_for_start,
    who,
)
from parlour.client.terminal import CLEAR_LINE, Terminal
from parlour.client.tournament_text import (
    describe,
    export_csv,
    export_markdown,
    leaderboard_text,
    progress,
    revealed,
    slot_line,
    standings_text,
    time_left,
)
from parlour.protocol import ErrorCode
from parlour.protocol.messages import Invitation, TournamentUpdate
from parlour.protocol.text import printable

Summary = dict[str, Any]


class Progress:
    """A tournament's progress as it comes: on a terminal, one bar redrawn in place (every
    second too, for the time left) with other lines printed above it; elsewhere, one line each
    time the number of races done changes."""

    def __init__(self, stdout: TextIO, offset: float = 0.0) -> None:
        self.stdout = stdout
        self.offset = offset  # the server's clock minus this machine's
        self.live = _isatty(stdout)
        self.summary: Summary | None = None
        self.seen = (-1, "")  # races done and status last printed
        self.elapsed = 0.0  # seconds from the start to the last update
        self.updated = 0.0  # when the last update came (this machine's monotonic clock)
        self.drawn = False
        self.closed = False

    def say(self, text: str) -> None:
        """Print a line (above the bar)."""
        self.stdout.write((CLEAR_LINE if self.drawn else "") + text + "\n")
        self.drawn = False
        self.draw()

    def update(self, summary: Summary) -> None:
        """Take the tournament's new summary; print the progress if it changed."""
        self.summary = summary
        now = time.time() + self.offset
        started = summary.get("started_at")
        end = summary.get("ended_at", now)
        self.elapsed = end - started if started is not None else 0.0
        self.updated = time.monotonic()
        changed = (summary.get("done", 0), summary["status"]) != self.seen
        self.seen = (summary.get("done", 0), summary["status"])
        if self.live:
            self.draw()
        elif changed and summary["status"] != "open":
            self.stdout.write(self.line() + "\n")
            self.stdout.flush()

    def line(self) -> str:
        assert self.summary is not None
        done, total = self.summary.get("done", 0), self.summary["races"]
        if self.summary["status"] == "open":
            people = sum(not e["bot"] for e in self.summary["entrants"])
            return f"Waiting for people to enter: {people} of {self.summary['people']}."
        since = 0.0 if self.summary["status"] == "finished" else time.monotonic() - self.updated
        estimate = time_left(done, total, self.elapsed)
        left = None if estimate is None else max(0.0, estimate - since)
        return progress(done, total, self.elapsed + since, left)

    def draw(self) -> None:
        """Draw the bar again (on a terminal, until :meth:`close`)."""
        if self.live and self.summary is not None and not self.closed:
            self.stdout.write(CLEAR_LINE + self.line())
            self.drawn = True
        self.stdout.flush()

    def close(self) -> None:
        """Leave the bar where it stands: lines said from now on go below it."""
        self.closed = True
        if self.drawn:
            self.stdout.write("\n")
            self.stdout.flush()
            self.drawn = False


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


async def follow(
    client: Client, tournament: str, out: Progress, show_standings: bool = False, introduce: bool = True
) -> Summary | None:
    """Watch a tournament until it is finished, printing its progress and each round's races
    (with ``show_standings``, the standings each time a race is done; with ``introduce``, what
    it is first); return its final summary, or ``None`` if the connection is lost for good first."""
    summary = (await client.tournament_watch(tournament)).tournament
    if introduce:
        out.say(describe(summary))
    if summary["status"] != "finished":
        out.say(f"Commitment to the tournament's seed: {printable(summary['commitment'])} (revealed at the end).")
    ticker = asyncio.create_task(_tick(out)) if out.live else None
    playing: list[str] = []
    done = summary.get("done", 0)
    try:
        events = aiter(client.events())
        while True:
            if summary.get("playing") and summary["playing"] != playing:
                playing = summary["playing"]
                out.say("Playing: " + "; ".join(slot_line(summary, race) for race in playing))
            if show_standings and summary.get("done", 0) != done and summary["status"] != "finished":
                done = summary.get("done", 0)
                out.say(standings_text(summary))
            out.update(summary)
            if summary["status"] == "finished":
                return summary
            try:
                event = await anext(events)
            except StopAsyncIteration:
                return None
            if isinstance(event, TournamentUpdate) and event.tournament.get("id") == tournament:
                summary = event.tournament
            elif isinstance(event, Resumed):  # events were lost meanwhile; watch again
                summary = (await client.tournament_watch(tournament)).tournament
    finally:
        if ticker is not None:
            ticker.cancel()
        out.close()


async def _tick(out: Progress) -> None:
    while True:
        await asyncio.sleep(1)
        out.draw()


def the_end(summary: Summary) -> str:
    return f"{standings_text(summary)}\n{revealed(summary)}"


async def create(account: Account, settings: dict[str, Any], watch: bool, stdout: TextIO) -> int:
    """``parlour tournament create``: create it (``settings`` are :meth:`Client.tournament_create`'s
    arguments), say how others enter and watch, and with ``watch`` follow it to its end."""
    async with await connect(account) as client:
        out = Progress(stdout, await server_offset(client))
        out.say(who(client, account))
        summary = (await client.tournament_create(**settings)).tournament
        tid = printable(summary["id"])
        server = printable(account.server)
        out.say(f"Created. {describe(summary)}")
        if summary["people"]:
            out.say(
                f"People enter with:  parlour tournament join {tid} --server {server}\n"
                f"It starts once every seat for people is taken, or when you run:  parlour tournament start {tid}"
            )
        if not watch:
            out.say(f"Follow it with:  parlour tournament watch {tid} --server {server}")
            return 0
        final = await follow(client, summary["id"], out, introduce=False)
    return _ended(final, out)


def _ended(final: Summary | None, out: Progress) -> int:
    """Print how a followed tournament ended (its final standings, or the lost connection); the exit status."""
    if final is None:
        out.say("The connection to the server is lost.")
        return 1
    out.say(the_end(final))
    return 0


async def watch(account: Account, tournament: str, stdout: TextIO, show_standings: bool) -> int:
    """``parlour tournament watch``: follow a tournament to its end, then print the standings."""
    async with await connect(account) as client:
        out = Progress(stdout, await server_offset(client))
        final = await follow(client, tournament, out, show_standings)
    return _ended(final, out)


async def standings(account: Account, tournament: str, stdout: TextIO, as_json: bool) -> int:
    """``parlour tournament standings``: where a tournament stands now."""
    async with await connect(account) as client:
        summary = (await client.tournament_watch(tournament)).tournament
        with contextlib.suppress(ClientError):
            await client.tournament_unwatch(tournament)
    if as_json:
        stdout.write(json.dumps(summary, indent=1) + "\n")
        return 0
    lines = [describe(summary), standings_text(summary)]
    if summary["status"] == "finished":
        lines.append(revealed(summary))
    stdout.write("\n".join(lines) + "\n")
    return 0


async def export(account: Account, tournament: str, form: str, races: bool) -> str:
    """``parlour tournament export``: a finished tournament as JSON (what ``parlour verify``
    checks), CSV (the standings, or with ``races`` every race's results) or Markdown."""
    async with await connect(account) as client:
        data = (await client.tournament_export(tournament)).export
    if form == "json":
        return json.dumps(data, indent=1) + "\n"
    if form == "csv":
        return export_csv(data, races)
    return export_markdown(data)


async def start(account: Account, tournament: str, stdout: TextIO) -> int:
    """``parlour tournament start``: start one's own open tournament with the people entered so far."""
    async with await connect(account) as client:
        summary = (await client.tournament_start(tournament)).tournament
    stdout.write(f"{describe(summary)}\n")
    return 0


async def list_tournaments(account: Account, stdout: TextIO, limit: int) -> int:
    """``parlour tournament list``: the newest tournaments."""
    async with await connect(account) as client:
        found = (await client.tournaments(limit)).tournaments
    if not found:
        stdout.write("No tournaments yet.\n")
        return 0
    for summary in found:
        done = f"{summary.get('done', 0)}/{summary['races']}" if "done" in summary else f"{summary['races']}"
        stdout.write(
            f"{printable(summary['id'])}  {printable(summary['status']):<8} {printable(summary['format']):<12} "
            f"{done:>7} {'race ' if summary['races'] == 1 else 'races'}  {printable(summary['name'])}\n"
        )
    stdout.write(
        "Follow one with 'parlour tournament watch ID'; see its standings with 'parlour tournament standings ID'.\n"
    )
    return 0


async def ratings(account: Account, game: str, bots: bool | None, limit: int, stdout: TextIO) -> int:
    """``parlour ratings``: a game's leaderboard (``bots``: only bots, or only people)."""
    async with await connect(account) as client:
        board = await client.ratings(game, bots=bots, limit=limit)
    who_ = "players" if bots is None else "bots" if bots else "people"
    stdout.write(leaderboard_text(board.game, board.ratings, who_) + "\n")
    return 0


# --- playing as an entrant ---------------------------------------------------------------


async def join(account: Account, tournament: str, stdin: TextIO, stdout: TextIO) -> int:
    """``parlour tournament join``: enter a tournament (or come back to one entered) and play each
    of its races as it comes, until the tournament ends. The end of input during a race leaves it
    without conceding (said on stderr, status 1), as in ``parlour race``."""
    term = Terminal(stdin, stdout)
    try:
        async with await connect(account) as client:
            term.say(who(client, account))
            summary = (await client.tournament_join(tournament)).tournament
            term.say(f"You are an entrant. {describe(summary)}")
            summary = (await client.tournament_watch(tournament)).tournament
            term.say(
                f"Each of your races comes when its round begins: take it within {summary['forfeit_after']:g} s "
                "or forfeit that deal. Type moves as in 'parlour race'. Ctrl-C stops; run this again to come back."
            )
            if summary["status"] == "open":
                term.say("The tournament starts once every seat for people is taken (or its creator starts it).")
            try:
                return await play_tournament(client, tournament, summary, term)
            except InputEnded as ended:
                print(
                    f"parlour: input ended: you left race {printable(ended.race_id)} without conceding (and a race "
                    "not taken in time is forfeited): " + seat_kept(f"parlour tournament join {printable(tournament)}"),
                    file=sys.stderr,
                )
                return 1
    finally:
        term.close()


async def play_tournament(client: Client, tournament: str, summary: Summary, term: Terminal) -> int:
    """Play the entrant's races of ``tournament`` as they come; print the final standings."""
    tried: set[str] = set()
    mine = [race for race in client.races if race.startswith(f"{tournament}-")]  # seated before a restart
    waiting: deque[str] = deque([*mine, *summary.get("playing", [])])
    status, done = summary["status"], summary.get("done", 0)
    events = aiter(client.events())

    def news(new: Summary) -> None:
        """Say what changed since the last summary (the start, races done), before the next race is played."""
        nonlocal summary, status, done
        summary = new
        if summary["status"] == "running" and status != "running":
            term.say("The tournament has started.")
        status = summary["status"]
        if summary.get("done", 0) != done:
            done = summary.get("done", 0)
            term.say(f"Tournament: {progress(done, summary['races'], _elapsed(summary), None)}")

    while True:
        while waiting:
            race = waiting.popleft()
            if race in tried:
                continue
            tried.add(race)
            if await play_race(client, race, term):
                news((await client.tournament_watch(tournament)).tournament)
                waiting.extend(summary.get("playing", []))
        if status == "finished":
            term.say(the_end(summary))
            return 0
        try:
            event = await anext(events)
        except StopAsyncIteration:
            term.say("The connection to the server is lost.")
            return 1
        if isinstance(event, Invitation) and event.tournament == tournament:
            if status == "open":  # its first race comes before the news that it started
                status = "running"
                term.say("The tournament has started.")
            # A seat is kept for us: try again a race named by a summary before it existed (the start's
            # update names the first round's races while the director is still creating them).
            tried.discard(str(event.race["id"]))
            waiting.append(str(event.race["id"]))
        elif isinstance(event, TournamentUpdate) and event.tournament.get("id") == tournament:
            news(event.tournament)
            waiting.extend(summary.get("playing", []))
        elif isinstance(event, Resumed):  # invitations may have come meanwhile: the round's races say
            news((await client.tournament_watch(tournament)).tournament)
            waiting.extend([*event.races, *summary.get("playing", [])])


def _elapsed(summary: Summary) -> float:
    started = summary.get("started_at")
    return 0.0 if started is None else summary.get("ended_at", time.time()) - started


async def play_race(client: Client, race: str, term: Terminal) -> bool:
    """Take the seat kept for the entrant in a tournament's race (or the one taken before) and
    play it to its end; ``False`` if the race holds no seat for them (another table's, or given up)."""
    try:
        await client.join(race)
    except ClientError as error:
        if error.code in (ErrorCode.UNKNOWN_RACE, ErrorCode.RACE_STARTED, ErrorCode.RACE_FULL):
            return False
        raise
    snapshot = await client.snapshot(race)
    info = snapshot.race
    if snapshot.seat is None or info["status"] == "finished":
        return False
    term.say(describe_race(info))
    offset = await server_offset(client)
    if info["status"] in ("open", "countdown"):
        started = await wait_for_start(client, race, snapshot.seat, info, term)
        if started is None:
            return True
        view, seq, deadline = started
    else:
        assert snapshot.view is not None
        view, seq, deadline = snapshot.view, snapshot.seq, float(info["deadline"])
        term.say(f"Back in race {printable(race)} at seat {snapshot.seat}.")
    await play(client, race, view, seq, Clock(deadline, offset), info, term)
    return True


__all__ = [
    "Progress",
    "create",
    "export",
    "follow",
    "join",
    "list_tournaments",
    "play_race",
    "ratings",
    "standings",
    "start",
    "watch",
]
