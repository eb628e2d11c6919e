"""Racing and watching from a terminal, line by line, before the Textual app exists.

``parlour race create GAME`` creates a race and prints its id and join code; ``parlour race
join CODE`` takes a seat. Either way the player is ready at once: the race starts when every
seat is taken. ``create GAME --bot NAME`` also invites a bot (``parlour races`` lists those
online; ``*`` is any bot that plays GAME) to the race, for you and it by default. Moves are
typed as in ``play-local`` (``?`` lists them); other racers' progress is printed as it comes.
``parlour watch RACE`` prints every racer's board as it changes.

Coming back: the identity token of each server is kept (see :mod:`parlour.client.identity`),
so running the same command again after Ctrl-C or a lost connection resumes the seat:
``join CODE`` of a race you sit in, ``create GAME`` while you have an unfinished race of that
game (``--new`` creates another), and ``parlour race resume [RACE]``. Ctrl-C before the start
leaves the race; during the race it only disconnects (the seat waits for the server's grace
period, then is conceded). The end of standard input during the race (a script's moves ran out,
Ctrl-D) does the same, and the command says so on stderr and ends with status 1: only ``concede``
(or ``quit`` and yes) gives a game up.

Everything a server sends that is printed goes through :func:`printable` first.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from parlour.client.connection import Client, ClientError, Resumed
from parlour.client.identity import DEFAULT_PROFILE, Identity, default_name
from parlour.client.line_play import (
    Command,
    Typing,
    describe_end,
    describe_error,
    describe_game_error,
    read_line,
)
from parlour.client.terminal import Terminal, printable_block
from parlour.games import CONCEDE, GameError, Move, get_game
from parlour.protocol import ErrorCode
from parlour.protocol.messages import Countdown, End, Progress, RaceUpdate, Start, Watch
from parlour.protocol.text import plural, printable

LEAVE_TIMEOUT = 5.0  # seconds to leave a race on Ctrl-C before giving up


class RaceChoiceError(Exception):
    """No race to take part in, or several to choose from: the message says what to type."""


class InputEnded(Exception):
    """Standard input ended before the player's game did. The race is left without conceding: the
    server keeps the seat for its grace period, as after a lost connection."""

    def __init__(self, race_id: str) -> None:
        super().__init__(f"input ended during race {race_id}")
        self.race_id = race_id


def seat_kept(come_back: str) -> str:
    """What becomes of a seat left during the race (Ctrl-C, the end of input), and ``come_back``: the command
    that takes it back."""
    return (
        "the server keeps your seat for its grace period (60 s by default), then concedes your game. "
        f"To come back: {come_back}"
    )


class OutputError(Exception):
    """A file on this machine could not be written; the message names it and says why."""


@dataclass(frozen=True)
class Account:
    """Where to connect and as whom: the options every client command shares."""

    server: str
    name: str | None = None  # None: the name chosen last time for this profile, else a default
    profile: str = DEFAULT_PROFILE
    identity: Path | None = None  # the identities file; None: the default one
    password: str | None = None

    @property
    def keeper(self) -> Identity:
        return Identity(self.server, self.profile, self.identity)


async def connect(account: Account) -> Client:
    """Connect as the player this profile already is on the server, or as a new one.

    A ``--name`` renames the player (the server stores it) and is kept for the profile's next runs.
    """
    keeper = account.keeper
    name = account.name or keeper.name() or default_name(account.profile)
    token = keeper.token()
    try:
        client = await Client.connect(account.server, name, token=token, password=account.password)
    except ClientError as error:
        if error.code != ErrorCode.BAD_TOKEN:
            raise
        client = await Client.connect(account.server, name, password=account.password)
    keeper.save(
        token=client.token if client.token and client.token != token else None,
        name=account.name if account.name and account.name != keeper.name() else None,
        used=True,
    )
    return client


def who(client: Client, account: Account) -> str:
    """The line saying who this is: the name in use, the profile, the server."""
    profile = "" if account.profile == DEFAULT_PROFILE else f", profile {printable(account.profile)}"
    return f"You are {printable(client.name)}{profile} on {printable(account.server)}."


def clock(seconds: float) -> str:
    """``4:05`` for 245 seconds (0:00 once past)."""
    whole = max(0, int(seconds + 0.999))
    return f"{whole // 60}:{whole % 60:02d}"


def describe_race(info: dict[str, Any]) -> str:
    """The race's settings in one line: what a joiner agrees to."""
    options = ", ".join(
        f"{printable(k)}={str(v).lower() if isinstance(v, bool) else printable(str(v))}"
        for k, v in sorted(info.get("options", {}).items())
    )
    parts = [
        printable(info["game"]) + (f" ({options})" if options else ""),
        plural(info["seats"], "seat"),
        f"time limit {clock(info['time_limit'])}",
        "public" if info.get("public") else "private",
        "undo allowed" if info.get("undo") else "no undo",
        spectators(info),
    ]
    return f"Race {printable(info['id'])}: {', '.join(parts)}."


def spectators(info: dict[str, Any]) -> str:
    """What spectators see of the race's boards."""
    if not info.get("live_boards"):
        return "spectators see the boards at the end"
    delay = info.get("spectator_delay", 0)
    return f"spectators see the boards {delay} s late" if delay else "spectators see the boards live"


def seat_list(info: dict[str, Any]) -> str:
    """The seated players (and the bots invited, whose seats are kept for them)."""
    players = info.get("players", [])
    seated = [printable(p["name"]) + (" (ready)" if p["ready"] else "") for p in players]
    invited = [f"{printable(i['name'])} (invited)" for i in info.get("invited", [])]
    return ", ".join(seated + invited) or "none"


async def invite_bots(client: Client, info: dict[str, Any], bots: list[str], term: Terminal) -> None:
    """Invite each of ``bots`` (names or ``*``) to the race ``info`` sums up, saying which bot each went to."""
    for wanted in bots:
        before = {invitation["player"] for invitation in info.get("invited", [])}
        info = (await client.invite(str(info["id"]), wanted)).race
        new = [invitation for invitation in info.get("invited", []) if invitation["player"] not in before]
        if new:
            term.say(f"Invited the bot {printable(new[0]['name'])}; waiting for it to take its seat.")
        else:
            term.say(f"The bot {printable(wanted)} is in the race already.")


async def race(
    account: Account,
    action: str,
    target: str | None,
    settings: dict[str, Any],
    stdin: TextIO,
    stdout: TextIO,
    *,
    new: bool = False,
    save_replay: str | None = None,
    bots: list[str] | None = None,
) -> int:
    """Take part in a race until its results: ``action`` is ``create`` (``target`` the game),
    ``join`` (``target`` the code or id) or ``resume`` (``target`` the race id, or ``None``).
    ``bots``: with ``create``, the bots to invite (names, or ``*``)."""
    term = Terminal(stdin, stdout)
    try:
        async with await connect(account) as client:
            term.say(who(client, account))
            race_id = await choose_race(client, account, action, target, settings, term, new=new, bots=bots or [])
            return await take_part(client, race_id, term, save_replay)
    finally:
        term.close()


async def choose_race(
    client: Client,
    account: Account,
    action: str,
    target: str | None,
    settings: dict[str, Any],
    term: Terminal,
    *,
    new: bool = False,
    bots: list[str] | None = None,
) -> str:
    """The race to take part in: a new one, one joined, or one of the player's own to resume.

    With ``create``, ``bots`` are invited to it (to the one resumed too, while it is open). A
    race just created is left again if an invitation is refused (``no_such_bot``, ...), and
    the refusal raised."""
    mine = {race: (await client.snapshot(race)).race for race in client.races}
    if action == "create":
        assert target is not None
        same = [info for info in mine.values() if info["game"] == target]
        if same and not new:
            if len(same) > 1:
                raise RaceChoiceError(
                    choices(same, account, f"you already have {len(same)} unfinished races of {target}")
                )
            info = same[0]
            term.say(
                f"You already have race {printable(info['id'])} of {printable(target)} ({info['status']}): resuming it."
            )
            term.say("(To create another one as well, add --new.)")
            if bots and info["status"] == "open":
                await invite_bots(client, info, bots, term)
            return str(info["id"])
        info = (await client.create(target, **settings)).race
        term.say(f"Race {printable(info['id'])} created: {plural(info['seats'], 'seat')} of {printable(info['game'])}.")
        if bots:
            try:
                await invite_bots(client, info, bots, term)
            except ClientError:
                with contextlib.suppress(ClientError):  # no race without its bot is left behind
                    await client.leave(str(info["id"]))
                raise
        if not bots or len(info["players"]) + len(bots) < info["seats"]:
            command = f"parlour race join {printable(info['code'])} --server {printable(account.server)}"
            term.say(f"A friend joins with:  {command}")
        return str(info["id"])
    if action == "join":
        assert target is not None
        try:
            info = (await client.join(code=target)).race
        except ClientError as error:
            if error.code != ErrorCode.UNKNOWN_RACE:
                raise
            info = (await client.join(target)).race
        if info["id"] in mine:
            seat = next((p["seat"] for p in info["players"] if p["player"] == client.player), "?")
            term.say(
                f"You already have seat {seat} in race {printable(info['id'])}, as {printable(client.name)}: "
                "resuming it. To race yourself on this machine, join with another --profile."
            )
        else:
            term.say(f"Joined race {printable(info['id'])} ({printable(info['game'])}).")
        return str(info["id"])
    if target is not None:
        return target
    if not mine:
        raise RaceChoiceError(f"you have no unfinished race on {account.server} (profile {account.profile})")
    if len(mine) > 1:
        raise RaceChoiceError(choices(list(mine.values()), account, f"you have {len(mine)} unfinished races"))
    return next(iter(mine))


def choices(races: list[dict[str, Any]], account: Account, why: str) -> str:
    """The error listing the player's races, and how to pick one."""
    lines = [f"{why}:"] + [f"  {race_line(info)}" for info in races]
    lines.append(
        "Resume one with 'parlour race resume RACE' (or create another with 'parlour race create GAME --new')."
    )
    return "\n".join(lines)


def race_line(info: dict[str, Any]) -> str:
    """One race in a list: id, game, status, seats, players, and its code if it is the reader's."""
    taken = f"{len(info.get('players', []))}/{info['seats']}"
    line = f"{printable(info['id'])}  {printable(info['game']):<18} {printable(info['status']):<9} {taken} seats: "
    line += seat_list(info)
    if info.get("code"):
        line += f"  (code {printable(info['code'])})"
    if not info.get("public", True):
        line += "  private"
    return line


async def take_part(client: Client, race_id: str, term: Terminal, save_replay: str | None) -> int:
    """Ready up and wait for the start (or pick the race up where it stands), play, and end with the results."""
    snapshot = await client.snapshot(race_id)
    info = snapshot.race
    term.say(describe_race(info))
    offset = await server_offset(client)
    if snapshot.seat is None:
        term.say(f"You have no seat in race {printable(race_id)}.")
        return 1
    if info["status"] == "finished":
        status = await print_results_if_over(client, race_id, term)
        return status if status else await offer_replay(client, race_id, term, save_replay)
    if info["status"] in ("open", "countdown"):
        started = await wait_for_start(client, race_id, snapshot.seat, info, term)
        if started is None:
            return 1
        view, seq, deadline = started
    else:
        assert snapshot.view is not None
        view, seq, deadline = snapshot.view, snapshot.seq, float(info["deadline"])
        term.say(f"Back in the race at seat {snapshot.seat}, after {plural(seq, 'entry', 'entries')} in your log.")
    kept = seat_kept(f"parlour race resume {printable(race_id)}")
    try:
        status = await play(client, race_id, view, seq, Clock(deadline, offset), info, term)
    except asyncio.CancelledError:  # Ctrl-C during the race: the seat stays, for a while
        term.say(f"You left the running race: {kept}")
        raise
    except InputEnded:
        print(f"parlour: input ended: you left the running race without conceding: {kept}", file=sys.stderr)
        return 1
    if status == 0:
        return await offer_replay(client, race_id, term, save_replay)
    return status


async def server_offset(client: Client) -> float:
    """The server's clock minus this machine's (half a round trip off at most)."""
    before = time.time()
    pong = await client.ping()
    return pong.time - (before + time.time()) / 2


@dataclass(frozen=True)
class Clock:
    """The race's deadline, read on the server's clock."""

    deadline: float
    offset: float

    def left(self) -> float:
        return self.deadline - (time.time() + self.offset)


async def wait_for_start(
    client: Client, race_id: str, seat: int, info: dict[str, Any], term: Terminal
) -> tuple[dict[str, Any], int, float] | None:
    """Say ready (if not yet) and wait for the start: the first view, seq and deadline.

    Ctrl-C here leaves the race, so that no empty race is left behind. ``None`` if the
    race expires (the server removed it: nobody came in time) or the connection is lost
    for good first.
    """
    try:
        me = next((p for p in info["players"] if p["seat"] == seat), None)
        if me is None or not me["ready"]:
            await client.ready(race_id)
        term.say(f"Seats: {seat_list(info)}")
        term.say("You are ready; the race starts when every seat is taken and ready. Ctrl-C leaves the race.")
        invited = {i["player"]: i["name"] for i in info.get("invited", [])}
        async for event in client.events():
            if isinstance(event, Countdown) and event.race == race_id:
                term.say(f"Starting in {round(event.starts_in, 1):g} s...")
            elif isinstance(event, RaceUpdate) and event.race.get("id") == race_id:
                if event.race["status"] == "expired":
                    term.say("The race expired: not every seat was taken and ready in time. Create a new one.")
                    return None
                term.say(f"Seats: {seat_list(event.race)}")
                seated = {p["player"] for p in event.race["players"]}
                still = {i["player"]: i["name"] for i in event.race.get("invited", [])}
                for player, name in invited.items():
                    if player not in still and player not in seated:
                        term.say(
                            f"The bot {printable(name)} did not take its seat (it declined, or the invitation lapsed). "
                            "Ctrl-C leaves the race; 'parlour races' lists the bots online."
                        )
                invited = still
            elif isinstance(event, Start) and event.race == race_id:
                term.say(f"Go! Commitment to the deal: {printable(event.commitment)}")
                return event.view, event.seq, event.deadline
            elif isinstance(event, Resumed):
                term.say("  [reconnected]")
                snapshot = await client.snapshot(race_id)
                if snapshot.race["status"] != "open" and snapshot.race["status"] != "countdown":
                    assert snapshot.view is not None
                    term.say("Go! (The race started while the connection was down.)")
                    return snapshot.view, snapshot.seq, float(snapshot.race["deadline"])
        term.say("The connection to the server is lost.")
        return None
    except asyncio.CancelledError:
        await leave_on_interrupt(client, race_id, term)
        raise


async def leave_on_interrupt(client: Client, race_id: str, term: Terminal) -> None:
    try:
        async with asyncio.timeout(LEAVE_TIMEOUT):
            await client.leave(race_id)
        term.say(f"You left race {printable(race_id)}.")
    except ClientError as error:
        term.say(f"Could not leave race {printable(race_id)}: {describe_error(error.code, printable(error.message))}")
    except (TimeoutError, ConnectionError):
        term.say(f"Could not leave race {printable(race_id)}: the server did not answer. 'parlour leave' can.")


async def play(
    client: Client, race_id: str, view: dict[str, Any], seq: int, deadline: Clock, info: dict[str, Any], term: Terminal
) -> int:
    """The move loop: typed lines become moves; others' progress and the end are printed.

    Returns 0 once the results are printed (even if the time limit ended the race while
    a move was being typed), 1 if the connection was lost for good first. Raises
    :class:`InputEnded` if input ends before the player's game: nothing is conceded.
    """
    game = get_game(str(view["game"]))
    typing = Typing()
    names: dict[int, str] = {p["seat"]: p["name"] for p in info.get("players", [])}
    term.say(printable_block(game.render(view)))

    def prompt() -> str:
        return f"move ({clock(deadline.left())} left)> "

    events = asyncio.create_task(show_events(client, race_id, term, names, prompt))
    try:
        while view["ended"] is None:
            typed = asyncio.ensure_future(term.line(prompt()))
            await asyncio.wait({typed, events}, return_when=asyncio.FIRST_COMPLETED)
            if not typed.done():  # the race is over, or the connection lost, before this game
                typed.cancel()
                return events.result()
            line = typed.result()
            if line is None:
                raise InputEnded(race_id)
            try:
                wanted = read_line(game, line, view, typing)
                if wanted is Command.TIME:
                    wanted = f"Time left: {clock(deadline.left())} of {clock(info['time_limit'])}."
                elif wanted is Command.UNDO or isinstance(wanted, Move):
                    ack = await (
                        client.undo(race_id, seq)
                        if wanted is Command.UNDO
                        else client.concede(race_id)
                        if wanted == CONCEDE
                        else client.move(race_id, seq, wanted.wire())
                    )
                    view, seq = ack.view, ack.seq
                    typing.hints.clear()
                    wanted = printable_block(game.render(view))
            except GameError as error:
                wanted = describe_game_error(error)
            except ClientError as error:
                wanted = describe_error(error.code, printable(error.message))
            if wanted is not None:
                term.say(wanted)
        term.say(describe_end(game, view))
        term.say("Waiting for the others to finish...")
        return await events
    finally:
        events.cancel()


async def show_events(client: Client, race_id: str, term: Terminal, names: dict[int, str], prompt: Any) -> int:
    """Print others' progress, then the results; return 0 once they are printed, 1 if the race or connection is lost."""
    async for event in client.events():
        term.prompt = prompt()  # the clock, as of this line
        if isinstance(event, RaceUpdate) and event.race.get("id") == race_id:
            names.update({p["seat"]: p["name"] for p in event.race["players"]})
        elif isinstance(event, Progress) and event.race == race_id:
            term.say(progress_line(names, event))
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


def progress_line(names: dict[int, str], event: Progress) -> str:
    """A seat's progress in one line: ``  [ann: score 33, 1 move, conceded]``."""
    who_ = printable(names.get(event.seat, f"seat {event.seat}"))
    state = f", {printable(event.ended)}" if event.ended else ""
    return f"  [{who_}: score {event.score}, {plural(event.moves, 'move')}{state}]"


async def print_results_if_over(client: Client, race_id: str, term: Terminal) -> int | None:
    """If the race is over, print its results (from the replay) and return 0; if the server knows
    no such race, say so and return 1; while it runs, return ``None``. For after a reconnection,
    when the race's ``end`` may have been missed, and for watching a finished race."""
    try:
        replay = (await client.replay(race_id)).replay
    except ClientError as error:
        if error.code == ErrorCode.NOT_FINISHED:
            return None
        term.say(f"The race is gone: {printable(error.message)}")
        return 1
    term.say(format_results(replay["results"], replay["seed"], replay["salt"]))
    return 0


def format_results(results: list[dict[str, Any]], seed: str, salt: str) -> str:
    """The results, best first, and the revealed seed and salt (from an ``end`` or a replay)."""
    lines = ["Results:"]
    for r in results:
        lines.append(
            f"  {r['place']}. {printable(r['name'])}: score {r['score']} "
            f"({printable(r['ended'])}, {plural(r['moves'], 'move')}, {r['time']} s)"
        )
    if not seed:
        lines.append("A tournament's race: its seed and replay are published when the tournament ends.")
        return "\n".join(lines)
    lines.append(
        f"Seed {printable(seed)}, salt {printable(salt)}: 'parlour replay' saves the replay; "
        "'parlour verify' checks it."
    )
    return "\n".join(lines)


def replay_file(race_id: str) -> str:
    """The default file a race's replay is saved to."""
    return f"{race_id}.replay.json"


async def save_replay_to(client: Client, race_id: str, path: str) -> dict[str, Any]:
    """Fetch a finished race's replay and write it as JSON to ``path`` (``-``: stdout). Raises
    :class:`OutputError` if the file cannot be written."""
    replay = (await client.replay(race_id)).replay
    text = json.dumps(replay, indent=1) + "\n"
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return replay
    try:
        Path(path).write_text(text)
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
    return replay


async def offer_replay(client: Client, race_id: str, term: Terminal, save_to: str | None) -> int:
    """After the results: save the replay to ``save_to`` if given, else ask on a terminal, else say how."""
    path = save_to
    if path is None and term.interactive:
        default = replay_file(race_id)
        if await term.confirm(f"Save the replay to {default}?", default=True):
            path = default
    if path is None:
        term.say(f"To save the replay: parlour replay {printable(race_id)}")
        return 0
    try:
        await save_replay_to(client, race_id, path)
    except OutputError as error:
        term.say(f"Could not save the replay: {printable(str(error))}")
        return 1
    except ClientError as error:
        term.say(f"Could not save the replay to {path}: {printable(str(error))}")
        return 1
    term.say(f"Replay saved to {path}: check it with  parlour verify {path}")
    return 0


def board_heading(name: str | None, seq: int, view: dict[str, Any]) -> str:
    """The line above a watched board: whose, how many log entries in, the score, how it ended."""
    parts = [printable(name or "?"), f"entry {seq}", f"score {view['score']}"]
    if view.get("ended"):
        parts.append(printable(view["ended"]))
    return f"--- {', '.join(parts)} ---"


async def watch(account: Account, race_id: str, stdout: TextIO) -> int:
    """Print every racer's board as it changes (or, in a race without live boards, their progress
    and then the final boards), until the race ends and, with a spectator delay, until its last
    boards are shown."""
    term = Terminal(sys.stdin, stdout)
    async with await connect(account) as client:
        try:
            spectating = await client.spectate(race_id)
        except ClientError as error:
            if error.code != ErrorCode.UNKNOWN_RACE:
                raise
            hint = f"if it has finished, 'parlour replay {race_id}' saves its replay"
            raise ClientError(error.code, f"{error.message}; {hint}") from None
        info = spectating.race
        game = get_game(info["game"])
        names = {p["seat"]: p["name"] for p in info["players"]}
        delay = info["spectator_delay"]
        behind = f", {delay} s behind" if delay else ""
        term.say(f"Watching race {printable(race_id)}: {printable(info['game'])}, {printable(info['status'])}{behind}")
        seen: dict[int, int] = {}

        def show(seat: int, seq: int, view: dict[str, Any]) -> None:
            seen[seat] = max(seen.get(seat, 0), seq)
            term.say(f"{board_heading(names.get(seat), seq, view)}\n{printable_block(game.render(view))}")

        for board in spectating.boards:
            show(board["seat"], board["seq"], board["view"])
        if info["status"] == "finished" and not delay:
            return await print_results_if_over(client, race_id, term) or 0
        ended: End | None = None
        last: dict[int, int] = {}  # each seat's final seq, once the race is over
        if info["status"] == "finished":
            ended, last = await final_seqs(client, race_id)
        events = aiter(client.events())
        loop = asyncio.get_running_loop()
        give_up = loop.time() + delay + 10 if ended is not None else None
        while ended is None or not all(seen.get(seat, 0) >= seq for seat, seq in last.items()):
            try:
                async with asyncio.timeout_at(give_up):
                    event = await anext(events)
            except (StopAsyncIteration, TimeoutError):
                break
            if isinstance(event, Resumed):
                status = await print_results_if_over(client, race_id, term)
                if status is not None:
                    return status
            elif isinstance(event, Watch) and event.race == race_id:
                show(event.seat, event.seq, event.view)
            elif isinstance(event, Progress) and event.race == race_id:  # a race without live boards
                term.say(progress_line(names, event))
            elif isinstance(event, RaceUpdate) and event.race.get("id") == race_id:
                names.update({p["seat"]: p["name"] for p in event.race["players"]})
            elif isinstance(event, End) and event.race == race_id:
                ended = event
                if delay:
                    term.say(f"The race is over; its last boards follow ({delay} s behind).")
                    last = (await final_seqs(client, race_id))[1]
                    give_up = loop.time() + delay + 10
        if ended is None:
            term.say("The connection to the server is lost.")
            return 1
        term.say(format_results(ended.results, ended.seed, ended.salt))
        return 0


async def final_seqs(client: Client, race_id: str) -> tuple[End, dict[int, int]]:
    """A finished race's results (as an ``end``) and each seat's final ``seq``, from its replay."""
    replay = (await client.replay(race_id)).replay
    end = End(race=race_id, results=replay["results"], seed=replay["seed"], salt=replay["salt"])
    return end, {seat.get("seat", i): len(seat["log"]) for i, seat in enumerate(replay["seats"])}


async def list_races(account: Account, stdout: TextIO) -> int:
    """Print the player's own unfinished races, then the others the lobby shows."""
    term = Terminal(sys.stdin, stdout)
    async with await connect(account) as client:
        term.say(who(client, account))
        page = await client.lobby()
        lobby = page.races
        mine = [info for info in lobby if any(p["player"] == client.player for p in info.get("players", []))]
        for race_id in client.races:  # a race of mine the lobby did not show
            if not any(info["id"] == race_id for info in mine):
                with contextlib.suppress(ClientError):
                    mine.append((await client.snapshot(race_id)).race)
        others = [info for info in lobby if info not in mine]
        term.say(f"Your races ({len(mine)}):" if mine else "Your races: none.")
        for info in mine:
            term.say(f"  {race_line(info)}")
        term.say(f"In the lobby ({len(others)}):" if others else "In the lobby: no other race.")
        for info in others:
            term.say(f"  {race_line(info)}")
        if mine:
            term.say(
                "Resume one with 'parlour race resume RACE'; give one up before its start with 'parlour leave RACE'."
            )
        if any(info["status"] == "open" for info in others):
            term.say("Join one with 'parlour race join RACE'; watch one with 'parlour watch RACE'.")
        bots = page.bots or []
        term.say(f"Bots online ({len(bots)}):" if bots else "Bots online: none.")
        for bot in bots:
            term.say(f"  {bot_line(bot)}")
        if bots:
            term.say("Race one with 'parlour race create GAME --bot NAME' ('--bot *': any bot that plays GAME).")
    return 0


def bot_line(bot: dict[str, Any]) -> str:
    """One bot online in a list: its name, the games it plays, how busy it is."""
    games = ", ".join(printable(game) for game in bot.get("games", []))
    return f"{printable(bot['name']):<16} plays {games}  (in {bot['busy']} of {plural(bot['max_races'], 'race')})"


async def leave(account: Account, race_id: str, stdout: TextIO) -> int:
    """Give up a seat in a race that has not started."""
    term = Terminal(sys.stdin, stdout)
    async with await connect(account) as client:
        try:
            await client.leave(race_id)
        except ClientError as error:
            if error.code != ErrorCode.RACE_STARTED:
                raise
            term.say(
                f"Race {printable(race_id)} has started: it cannot be left. To give up your game, "
                f"'parlour race resume {printable(race_id)}' and type 'concede'."
            )
            return 1
        term.say(f"You left race {printable(race_id)}.")
    return 0


async def fetch_replay(account: Account, race_id: str) -> dict[str, Any]:
    """A finished race's replay, fetched from the server (``not_finished`` before its end)."""
    async with await connect(account) as client:
        return (await client.replay(race_id)).replay


async def save_replay(account: Account, race_id: str, path: str) -> int:
    """``parlour replay``: save a finished race's replay."""
    async with await connect(account) as client:
        await save_replay_to(client, race_id, path)
    where = "stdout" if path == "-" else path
    print(
        f"Saved the replay of race {printable(race_id)} to {where}; check it with: parlour verify {path}",
        file=sys.stderr,
    )
    return 0
