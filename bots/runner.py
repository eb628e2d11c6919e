"""The runner: one bot class as a long-lived client of a server (``parlour bot run NAME``).

It says hello with ``bot: true``, the games it plays and how many races it takes at once, then
accepts every invitation it has room for (``join`` then ``ready``) and plays each race with a bot
object of its own, ``bot_class(seed)``, in a process of its own (:mod:`parlour.bots.worker`), so
that a bot thinking for a long time never starves the connection. The seed is the invitation's
``seed`` when it has one (a tournament race: the same in every run of a reproducible tournament),
else :func:`seed_for` the race's id. A race this runner did not see the invitation of (resumed from
the welcome after the runner itself was restarted) is played with ``seed_for`` its id.

Reproducible play: a race's bot object lives from its first move to the race's end, across lost
connections and sessions, for as long as the runner runs. The bot is asked once for each position
(``seq`` and view): a move chosen but not acknowledged (the connection was lost while the bot
thought, or before the ack came) is sent again, with the same ``seq``, if the server shows the race
still at that position, instead of being chosen again. So a bot that is deterministic for its seed
(see :mod:`parlour.bots.base`) makes, on a race cut by disconnections or by server nodes killed and
restarted, exactly the moves it makes on the same deal uninterrupted, in-process
(:func:`parlour.bots.arena.play`). Only a restart of the runner makes a new bot object, which
starts over from its seed.

For each race: on ``start`` (or, after a reconnection, from a ``snapshot``) the bot gets a
:class:`~parlour.bots.base.Turn` with the time left before the race's deadline and a share of it
as its budget; its move goes out with the ``seq`` of the last ack, and the ack's view and ``seq``
are the next turn's. A move is never sent for a position other than the one the bot saw: after a
reconnection, or a refusal that means the runner is out of step, it asks the server where the
race stands (``snapshot``) before the next move. A re-sent move carries its ``seq``, so the server
never applies it twice.

The client library reconnects by itself (``Resumed``); when it gives up (``reconnect_timeout``),
the session ends and the runner connects again with the same token, with backoff, for as long as it
runs, and resumes its races, each with the bot it had, and those the welcome lists. The token is
kept like a person's (:mod:`parlour.client.identity`), under its own profile, so a restarted runner
is the same player and takes its seats back.

A game still going after the race's move cap is conceded: a tournament's race tells its cap
(``max_moves``) with the invitation and in its summary; other races use :attr:`Settings.max_moves`
(:data:`parlour.bots.arena.MAX_MOVES`, the arena's cap, by default). Some games let a bot move
cards back and forth for ever (random play in German Patience, Gate, The Chance), and such a game
would otherwise run to the race's deadline, its last position, its move count and so its ranking
set by how fast the machine is, not by the bot's moves. The arena ends such a game at the same
count (``run_arena(max_moves=...)``).

SIGTERM or SIGINT stops it: no more invitations, races not started yet are left, running races
get ``STOP_GRACE`` seconds to finish and are then conceded, and :meth:`Runner.run` returns 0. With
``races``, it stops the same way once that many races are over.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import signal
import time
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from parlour.bots.arena import MAX_MOVES
from parlour.bots.base import Bot
from parlour.bots.worker import BotFailed, BotProcess, context
from parlour.client.connection import (
    Client,
    ClientError,
    ClientEvent,
    Disconnected,
    End,
    Error,
    Invitation,
    RaceUpdate,
    Resumed,
    Start,
)
from parlour.client.identity import Identity
from parlour.games import game_names
from parlour.protocol import ErrorCode

log = logging.getLogger("parlour.bot")

MAX_GAMES = 16  # the most games a hello may offer
STOP_GRACE = 5.0  # seconds running races get to finish after SIGTERM before they are conceded
MAX_BUDGET = 1.0  # the most seconds a move's budget is ever given
MOVES_AHEAD = 40  # a move's budget is the time left shared among this many moves (capped at MAX_BUDGET)
FIRST_RETRY = 0.5  # seconds before connecting again after a failure; doubled up to MAX_RETRY
MAX_RETRY = 10.0
PAST_DEADLINE = 5.0  # seconds a bot may think past the race's deadline before its process is ended
REQUEST_TIMEOUT = 5.0  # seconds for a leave or concede while stopping
NOT_RUNNING_WAIT = 0.2  # seconds before asking where a race stands that took no move (it is ending)
PARENT_CHECK = 0.5  # seconds between two checks that the parent process (--parent) still lives
RECONNECT_TIMEOUT = 30.0  # seconds the client library reconnects by itself before the runner opens a new session
WAITING = ("open", "countdown")


def budget_for(time_left: float | None) -> float:
    """The seconds one move should take: the time left shared among ``MOVES_AHEAD`` moves, at most
    ``MAX_BUDGET`` (and at least a hundredth of a second)."""
    if time_left is None:
        return MAX_BUDGET
    return max(0.01, min(MAX_BUDGET, time_left / MOVES_AHEAD))


def seed_for(race: str) -> int:
    """The bot's seed in race ``race`` when no invitation gave one: fixed by the race's id, so the race
    is played alike by a runner started again."""
    return int.from_bytes(hashlib.sha256(race.encode()).digest()[:8], "big")


@dataclass(frozen=True)
class Settings:
    """How a runner connects and what it takes on.

    ``games``: the games offered (at most 16; the bot's own list when empty). ``max_races``: races
    played at once (1 to 64). ``races``: stop once this many races were taken and are over (``None``:
    run until stopped). ``identity``: where the token is kept between runs (``None``: nowhere, a new
    player each run; within a run the runner always reconnects as the same player). ``parent``:
    stop, as on SIGTERM, once the process that started this one is gone. ``reconnect_timeout``: the
    seconds the client library tries to reconnect by itself after the connection drops; past them
    the session ends and the runner connects again (with backoff), keeping its races and their bots.
    ``max_moves``: a game still going after this many moves is conceded, in a race that sets no cap of
    its own (a tournament's race does: see the module's docstring).
    """

    server: str
    name: str
    games: tuple[str, ...] = ()
    max_races: int = 1
    races: int | None = None
    password: str | None = None
    identity: Identity | None = None
    parent: int | None = None
    stop_grace: float = STOP_GRACE
    reconnect_timeout: float = RECONNECT_TIMEOUT
    max_moves: int = MAX_MOVES


@dataclass(frozen=True, eq=False)
class _Choice:
    """The bot's move for the position after ``seq`` entries, whose view was ``view``: asked of the bot once
    (``move`` keeps going if the connection is lost meanwhile) and sent until acknowledged."""

    seq: int
    view: dict[str, Any]
    move: asyncio.Task[list[str | int]]


@dataclass(eq=False)
class _Race:
    """What the runner knows of one race it holds a seat in, kept across sessions until the race is over."""

    id: str
    seed: int  # the bot's: the invitation's, else seed_for(id)
    max_moves: int | None = None  # the race's move cap (a tournament's), from the invitation or the summary
    events: asyncio.Queue[ClientEvent] = field(default_factory=asyncio.Queue)  # this session's
    status: str = "open"  # the summary's, or "gone": expired, unknown to the server, or no seat any more
    game: str = "?"
    deadline: float | None = None  # the server's clock
    seq: int = 0
    view: dict[str, Any] | None = None
    results: list[dict[str, Any]] | None = None
    players: list[str] = field(default_factory=list)  # the seated players' ids
    invited: list[str] = field(default_factory=list)  # the ids of players a seat is still kept for
    tournament: bool = False  # a tournament's race: it starts with whoever took their seats
    stale: bool = False  # reconnected since the last snapshot: ask where the race stands
    task: asyncio.Task[None] | None = None  # playing it in this session
    bot: asyncio.Task[BotProcess] | None = None  # its process, started for the first move, ended with the race
    choice: _Choice | None = None  # the last move asked of the bot, until acknowledged

    @property
    def over(self) -> bool:
        """Whether this seat's game is over (or the race is)."""
        if self.status in ("finished", "gone"):
            return True
        return self.view is not None and not self.view.get("moves")

    def summary(self, summary: Mapping[str, Any]) -> None:
        self.game = str(summary.get("game", self.game))
        self.deadline = summary.get("deadline", self.deadline)
        status = str(summary.get("status", self.status))
        self.status = "gone" if status == "expired" else status
        if summary.get("results") is not None:
            self.results = list(summary["results"])
        if summary.get("players") is not None:
            self.players = [str(seat["player"]) for seat in summary["players"]]
            self.invited = [str(invitation["player"]) for invitation in summary.get("invited", ())]
        self.tournament = self.tournament or summary.get("tournament") is not None
        if summary.get("max_moves") is not None:
            self.max_moves = int(summary["max_moves"])


class Runner:
    """Runs ``bot_class`` on a server with ``settings`` until stopped: ``await Runner(...).run()``."""

    def __init__(self, bot_class: type[Bot], settings: Settings) -> None:
        self.bot_class = bot_class
        self.settings = settings
        self.games = settings.games or tuple(g for g in game_names() if bot_class.plays(g))
        self.races: dict[str, _Race] = {}
        self.taken = 0  # races accepted or resumed by this runner
        self.offset = 0.0  # the server's clock minus ours
        self.waiting: dict[str, Invitation] = {}  # invitations taken once a race ends (oldest first)
        self.token: str | None = None  # this runner's player, once connected (kept in memory without identity)
        self._ctx = context(bot_class)
        self._stopping: asyncio.Event | None = None
        self._idle: asyncio.Event | None = None  # set when races were taken and no race is left
        self._background: set[asyncio.Task[None]] = set()

    def stop(self) -> None:
        """Stop taking invitations and wind down (what SIGTERM does)."""
        if self._stopping is not None and not self._stopping.is_set():
            log.info("stopping")
            self._stopping.set()

    async def run(self) -> int:
        """Connect, play, reconnect when needed; return 0 once stopped, 2 if the server refuses this bot."""
        self._stopping = asyncio.Event()
        self._idle = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop)
        watcher = asyncio.create_task(self._watch_parent()) if self.settings.parent is not None else None
        try:
            return await self._run()
        finally:
            await self._drop_all()  # races kept for a session that never came (stopped while disconnected)
            if watcher is not None:
                watcher.cancel()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)

    async def _run(self) -> int:
        assert self._stopping is not None
        delay = FIRST_RETRY
        while not self._stopping.is_set() and not self._done():
            try:
                client = await self._connect()
            except ClientError as error:
                if error.code not in (ErrorCode.RATE_LIMITED, ErrorCode.UNAVAILABLE, ErrorCode.SHUTTING_DOWN):
                    log.error("the server refused this bot: %s", error)
                    return 2
                log.warning("the server said %s; connecting again in %.1f s", error.code, delay)
            except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed) as error:
                log.warning("cannot reach %s (%s); trying again in %.1f s", self.settings.server, error, delay)
            else:
                delay = FIRST_RETRY
                async with client:
                    await self._session(client)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay)
            delay = min(delay * 2, MAX_RETRY)
        return 0

    async def _connect(self) -> Client:
        """Say hello as this bot, with the kept token if there is one (a new identity if the server
        does not know it), and keep the token."""
        settings = self.settings
        token = self.token
        if token is None and settings.identity is not None:
            token = settings.identity.token()
        while True:
            try:
                client = await Client.connect(
                    settings.server,
                    settings.name,
                    token=token,
                    bot=True,
                    password=settings.password,
                    games=list(self.games),
                    max_races=settings.max_races,
                    reconnect_timeout=settings.reconnect_timeout,
                )
            except ClientError as error:
                if error.code != ErrorCode.BAD_TOKEN or token is None:
                    raise
                log.warning("the server does not know this bot's token: starting as a new player")
                token = None
                continue
            if settings.identity is not None and client.token != token:
                settings.identity.save(token=client.token)
            self.token = client.token
            log.info(
                "connected to %s as %s (player %s), playing %s, %d at a time",
                settings.server,
                client.name,
                client.player,
                ", ".join(self.games),
                settings.max_races,
            )
            return client

    # --- a session: one Client, until it gives up or the runner stops ----------------

    async def _session(self, client: Client) -> None:
        assert self._stopping is not None and self._idle is not None
        with contextlib.suppress(ClientError, Disconnected):
            self.offset = await self._clock(client)
        for race in list(self.races.values()):  # kept from the last session, each with its bot
            log.info("resuming race %s with the same bot", race.id)
            race.events, race.stale = asyncio.Queue(), True  # the last session's events are past
            race.task = asyncio.create_task(self._race(client, race, join=False), name=f"race {race.id}")
        for race in client.races:
            self._resume(client, race)
        dispatcher = asyncio.create_task(self._dispatch(client))
        stopping = asyncio.create_task(self._stopping.wait())
        idle = asyncio.create_task(self._idle.wait())
        try:
            await asyncio.wait([dispatcher, stopping, idle], return_when=asyncio.FIRST_COMPLETED)
            if self._stopping.is_set():
                await self._wind_down(client)
        finally:
            for task in (dispatcher, stopping, idle):
                task.cancel()
            await self._suspend_all()

    async def _clock(self, client: Client) -> float:
        """The server's clock minus ours, from one ping (deadlines are on the server's clock)."""
        sent = time.time()
        pong = await client.ping()
        return pong.time - (sent + time.time()) / 2

    async def _dispatch(self, client: Client) -> None:
        """Hand every event to its race; take invitations. Returns when the client gives up."""
        async for event in client.events():
            if isinstance(event, Invitation):
                self._invited(client, event)
            elif isinstance(event, Resumed):
                log.info("reconnected; resuming %d race(s)", len(self.races))
                with contextlib.suppress(ClientError, Disconnected):
                    self.offset = await self._clock(client)
                for race in self.races.values():
                    race.events.put_nowait(event)
                for race_id in event.races:
                    self._resume(client, race_id)
            elif isinstance(event, Error):
                log.warning("the server says %s: %s", event.code, event.message)
            else:
                race = self.races.get(_race_id(event))
                if race is not None:
                    race.events.put_nowait(event)
        log.warning("the connection to %s is lost", self.settings.server)

    def _invited(self, client: Client, invitation: Invitation) -> None:
        assert self._stopping is not None
        summary = invitation.race
        race_id, game = str(summary["id"]), str(summary.get("game"))
        why_not = None
        if race_id in self.races:
            return  # a second invitation to a race it sits in already
        if self._stopping.is_set():
            why_not = "stopping"
        elif self.settings.races is not None and self.taken >= self.settings.races:
            why_not = f"{self.settings.races} race(s) taken already"
        elif game not in self.games:
            why_not = f"it does not play {game}"
        if why_not is not None:
            log.info("invited by %s to race %s (%s): declined, %s", invitation.by, race_id, game, why_not)
            self._later(self._decline(client, race_id))
            return
        if not self._room():
            log.info("invited by %s to race %s (%s): waiting for one of its races to end", invitation.by, race_id, game)
            self.waiting[race_id] = invitation
            return
        log.info("invited by %s to race %s (%s): joining", invitation.by, race_id, game)
        race = _Race(race_id, seed_for(race_id) if invitation.seed is None else invitation.seed, game=game)
        race.summary(summary)
        if invitation.max_moves is not None:
            race.max_moves = invitation.max_moves
        self._start(client, race, join=True)

    def _room(self) -> bool:
        """Whether the runner plays fewer races than it may at once."""
        return sum(not race.over for race in self.races.values()) < self.settings.max_races

    def _take_waiting(self, client: Client) -> None:
        """Take the invitations that waited for a race to end, oldest first, while there is room
        (an invitation that lapsed meanwhile is dropped: its seat is gone)."""
        while self.waiting and self._room() and not self._stopping_now():
            race_id, invitation = next(iter(self.waiting.items()))
            del self.waiting[race_id]
            if invitation.expires_at <= time.time() + self.offset:
                log.info("race %s: the invitation lapsed while the runner was busy", race_id)
                continue
            self._invited(client, invitation)

    def _stopping_now(self) -> bool:
        return self._stopping is not None and self._stopping.is_set()

    async def _decline(self, client: Client, race: str) -> None:
        """Say no at once (the inviter need not wait for the invitation to lapse)."""
        with contextlib.suppress(ClientError, Disconnected, TimeoutError):
            async with asyncio.timeout(REQUEST_TIMEOUT):
                await client.leave(race)

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background (a reference is kept until it is done)."""
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _resume(self, client: Client, race_id: str) -> None:
        if race_id not in self.races:
            log.info("resuming race %s", race_id)
            # Its invitation came before this runner started (or never came): the seed is the race's own.
            self._start(client, _Race(race_id, seed_for(race_id), stale=True), join=False)

    def _start(self, client: Client, race: _Race, join: bool) -> None:
        self.taken += 1
        self.races[race.id] = race
        race.task = asyncio.create_task(self._race(client, race, join), name=f"race {race.id}")

    def _done(self) -> bool:
        """Whether the runner took as many races as it was asked to, and they are all over."""
        return self.settings.races is not None and self.taken >= self.settings.races and not self.races

    async def _wind_down(self, client: Client) -> None:
        """Leave the races not started, give the running ones ``stop_grace`` seconds, concede the rest."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.stop_grace
        for race in [r for r in self.races.values() if r.status in WAITING]:
            await self._drop(race)
            if client.connected:
                await self._give_up(client, race, leave=True)
        while client.connected and loop.time() < deadline:
            playing = [r.task for r in self.races.values() if not r.over and r.task is not None]
            if not playing:
                break
            await asyncio.wait(playing, timeout=min(0.1, deadline - loop.time()))
        for race in list(self.races.values()):
            unfinished = not race.over
            await self._drop(race)
            if unfinished and client.connected:
                await self._give_up(client, race, leave=False)

    async def _give_up(self, client: Client, race: _Race, leave: bool) -> None:
        """Leave (before the start) or concede, as far as the server answers within ``REQUEST_TIMEOUT``."""
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                if leave:
                    try:
                        await client.leave(race.id)
                        log.info("race %s: left before the start", race.id)
                        return
                    except ClientError as error:
                        if error.code != ErrorCode.RACE_STARTED:
                            raise
                await client.concede(race.id)
                log.info("race %s: conceded, the runner is stopping", race.id)
        except (ClientError, Disconnected, TimeoutError) as error:
            log.info("race %s: not given up (%s)", race.id, error or type(error).__name__)

    async def _drop(self, race: _Race) -> None:
        """Stop playing ``race`` and forget it (its task is cancelled, its bot process ended)."""
        await self._suspend(race)
        self.races.pop(race.id, None)
        await self._release(race)

    async def _drop_all(self) -> None:
        for race in list(self.races.values()):
            await self._drop(race)

    async def _suspend(self, race: _Race) -> None:
        """Stop playing ``race`` in this session; its bot, and a move it is choosing, carry on."""
        if race.task is not None and not race.task.done():
            race.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await race.task

    async def _suspend_all(self) -> None:
        """The session is over: the races not over wait, with their bots, for the next one."""
        for race in list(self.races.values()):
            await self._suspend(race)

    def _finished(self, race: _Race) -> None:
        """``race``'s task ended by itself."""
        assert self._idle is not None
        if self.races.get(race.id) is race:
            del self.races[race.id]
        if self._done():
            self._idle.set()

    # --- one race ----------------------------------------------------------------------

    async def _race(self, client: Client, race: _Race, join: bool) -> None:
        """Play ``race`` on ``client`` to its end, then end its bot and forget it; or, if the connection is
        lost for good first, leave it (and its bot) to the next session."""
        try:
            if join and not await self._take_seat(client, race):
                race.status = "gone"
            while not race.over:
                if race.stale:
                    await self._sync(client, race)
                elif race.status in WAITING or race.view is None:
                    await self._next_event(race)
                    alone = race.players == [client.player] and not race.invited and not race.tournament
                    if race.status in WAITING and alone:
                        log.info("race %s: everyone else left before the start", race.id)
                        await self._give_up(client, race, leave=True)
                        race.status = "gone"
                else:
                    await self._play(client, race)
            if race.status != "gone":
                await self._await_end(client, race)
                self._report(client, race)
            await self._release(race, finish=True, result=self._result(client, race))
        except BotFailed as error:
            log.error("race %s: the bot failed; conceding.\n%s", race.id, error)
            with contextlib.suppress(ClientError, Disconnected):
                await client.concede(race.id)
            await self._release(race)
        except Disconnected:
            return  # the session ends; the next one resumes the race with the same bot
        self._finished(race)
        self._take_waiting(client)

    async def _take_seat(self, client: Client, race: _Race) -> bool:
        """Join and say ready; a refusal that says "later" (rate_limited, unavailable) is waited out."""
        while True:
            try:
                await client.join(race.id)
                await client.ready(race.id)
            except ClientError as error:
                if error.code in (ErrorCode.RATE_LIMITED, ErrorCode.UNAVAILABLE):
                    await asyncio.sleep(error.retry_after or 1.0)
                    continue
                log.info("race %s: could not take the seat: %s", race.id, error)
                return False
            return True

    async def _play(self, client: Client, race: _Race) -> None:
        """One move: the bot chooses for the position it is shown (once: a move not acknowledged is sent
        again, never chosen again), and the move goes out with its ``seq``."""
        assert race.view is not None
        seq = race.seq
        if seq >= (self.settings.max_moves if race.max_moves is None else race.max_moves):
            await self._concede_capped(client, race)
            return
        time_left = None if race.deadline is None else max(0.0, race.deadline - (time.time() + self.offset))
        try:
            async with asyncio.timeout(None if time_left is None else time_left + PAST_DEADLINE):
                choice = await self._choice(race, time_left)
                move = await asyncio.shield(choice.move)  # a lost connection does not stop the bot's thinking
        except TimeoutError:
            raise BotFailed(f"the bot was still thinking {PAST_DEADLINE:.0f} s after the race's deadline") from None
        self._take_events(race)  # what happened while the bot thought
        if race.stale:
            await self._sync(client, race)
        if race.over or (race.seq, race.view) != (choice.seq, choice.view):
            return  # the position moved on: the bot chooses again from the server's
        while True:
            try:
                ack = await client.move(race.id, seq, move)
            except ClientError as error:
                if error.code in (ErrorCode.RATE_LIMITED, ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL):
                    await asyncio.sleep(error.retry_after or 1.0)
                    continue  # the same move with the same seq: applied at most once
                if error.code in (ErrorCode.BAD_MOVE, ErrorCode.ILLEGAL_MOVE):
                    raise BotFailed(f"the server refused the bot's move {move}: {error}") from None
                log.info("race %s: move at seq %d refused (%s); asking where the race stands", race.id, seq, error)
                if error.code == ErrorCode.RACE_NOT_RUNNING:
                    await asyncio.sleep(NOT_RUNNING_WAIT)  # the race is ending: its end is on the way
                race.stale = True  # stale_seq, game_over, race_not_running, unknown_race, not_seated
                return
            race.seq, race.view, race.choice = ack.seq, dict(ack.view), None
            return

    async def _concede_capped(self, client: Client, race: _Race) -> None:
        """Concede a game that has gone on for its cap of moves (the ack's view ends it)."""
        log.info("race %s: still going after %d moves; conceding", race.id, race.seq)
        while True:
            try:
                ack = await client.concede(race.id)
            except ClientError as error:
                if error.code in (ErrorCode.RATE_LIMITED, ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL):
                    await asyncio.sleep(error.retry_after or 1.0)
                    continue
                log.info("race %s: concession refused (%s); asking where the race stands", race.id, error)
                race.stale = True  # game_over (a concession re-sent after a reconnection), race_not_running, ...
                return
            race.seq, race.view, race.choice = ack.seq, dict(ack.view), None
            return

    async def _choice(self, race: _Race, time_left: float | None) -> _Choice:
        """The bot's choice for ``race``'s position: the one asked already if it was for this very position
        (same ``seq``, same view), else a new one."""
        assert race.view is not None
        choice = race.choice
        if choice is not None and (choice.seq, choice.view) == (race.seq, race.view):
            log.info("race %s: the move asked for at seq %d goes out (again), not asked anew", race.id, race.seq)
            return choice
        if choice is not None and not choice.move.done():  # one call at a time: let it answer (unused)
            await asyncio.wait([choice.move])
        if race.bot is None:  # started in a thread: the first one waits for the fork server
            race.bot = asyncio.create_task(asyncio.to_thread(BotProcess, self._ctx, self.bot_class, race.seed))
        try:
            bot = await asyncio.shield(race.bot)
        except OSError as error:
            raise BotFailed(f"the bot's process could not start: {error}") from None
        view = dict(race.view)
        move = asyncio.create_task(bot.choose(view, race.seq, time_left, budget_for(time_left)))
        race.choice = _Choice(race.seq, view, move)
        return race.choice

    async def _release(self, race: _Race, *, finish: bool = False, result: Mapping[str, Any] | None = None) -> None:
        """End ``race``'s bot: with ``finish``, its ``finish`` hook gets the last view and ``result``
        first; else (or if it is still thinking) its process is just ended."""
        choice, bot, race.choice, race.bot = race.choice, race.bot, None, None
        if bot is None:
            return
        if not bot.done():  # still starting, so it never played: ended as soon as it has started
            bot.add_done_callback(_close_started)
            return
        if bot.cancelled() or bot.exception() is not None:
            return
        process = bot.result()
        try:
            if choice is not None and not choice.move.done():
                choice.move.cancel()
                await asyncio.wait([choice.move])  # it stops reading the pipe before the pipe is closed
            elif finish:
                await process.finish(race.view, result)
        finally:
            process.close()

    async def _sync(self, client: Client, race: _Race) -> None:
        """Ask the server where ``race`` stands (after a reconnection or a refusal)."""
        race.stale = False
        try:
            state = await client.snapshot(race.id)
        except ClientError as error:
            if error.code == ErrorCode.UNKNOWN_RACE:
                race.status = "gone"  # expired, or finished and no longer held
            else:  # unavailable, rate_limited: the server cannot tell now
                log.info("race %s: snapshot refused (%s); asking again", race.id, error)
                await asyncio.sleep(error.retry_after or 1.0)
                race.stale = True
            return
        race.summary(state.race)
        if state.seat is None:
            race.status = "gone"
            return
        if state.view is not None:
            race.seq, race.view = state.seq, dict(state.view)

    async def _next_event(self, race: _Race) -> None:
        self._take(race, await race.events.get())

    def _take_events(self, race: _Race) -> None:
        while not race.events.empty():
            self._take(race, race.events.get_nowait())

    def _take(self, race: _Race, event: ClientEvent) -> None:
        if isinstance(event, Start):
            race.status, race.deadline = "running", event.deadline
            race.seq, race.view = event.seq, dict(event.view)
            log.info("race %s: started (%s, seat %d)", race.id, race.game, event.seat)
        elif isinstance(event, RaceUpdate):
            race.summary(event.race)
            if race.status == "running" and race.view is None:
                race.stale = True  # running, but this runner missed the start
        elif isinstance(event, End):
            race.status, race.results = "finished", list(event.results)
        elif isinstance(event, Resumed):
            race.stale = True

    async def _await_end(self, client: Client, race: _Race) -> None:
        """Wait for the race's results, once this seat's game is over (the seat no longer counts as playing)."""
        while race.results is None and race.status != "gone":
            if race.stale:
                await self._sync(client, race)
            else:
                await self._next_event(race)

    def _result(self, client: Client, race: _Race) -> dict[str, Any] | None:
        for result in race.results or ():
            if result.get("player") == client.player:
                return dict(result)
        return None

    def _report(self, client: Client, race: _Race) -> None:
        result = self._result(client, race)
        if result is None:
            log.info("race %s: over", race.id)
        else:
            places = len(race.results or ())
            log.info(
                "race %s: over: %s, score %s, place %s of %d, %s moves",
                race.id,
                result.get("ended"),
                result.get("score"),
                result.get("place"),
                places,
                result.get("moves"),
            )

    async def _watch_parent(self) -> None:
        while os.getppid() == self.settings.parent:
            await asyncio.sleep(PARENT_CHECK)
        log.info("the parent process is gone")
        self.stop()


def _close_started(bot: asyncio.Task[BotProcess]) -> None:
    if not bot.cancelled() and bot.exception() is None:
        bot.result().close()


def _race_id(event: object) -> str | None:
    race = getattr(event, "race", None)
    if isinstance(race, dict):
        return race.get("id")
    return race if isinstance(race, str) else None


async def run_bot(bot_class: type[Bot], settings: Settings) -> int:
    """Run ``bot_class`` with ``settings`` until SIGTERM or SIGINT (or its ``races`` are over)."""
    return await Runner(bot_class, settings).run()


def check_games(bot_class: type[Bot], games: Sequence[str]) -> tuple[str, ...]:
    """``games`` checked: known games that ``bot_class`` plays (``ValueError`` naming the others)."""
    known = set(game_names())
    unknown = [g for g in games if g not in known]
    if unknown:
        raise ValueError(f"no such game: {', '.join(unknown)} (see 'parlour games')")
    unplayed = [g for g in games if not bot_class.plays(g)]
    if unplayed:
        raise ValueError(f"{bot_class.name} does not play {', '.join(unplayed)}")
    return tuple(dict.fromkeys(games))
