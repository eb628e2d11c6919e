"""The asyncio client: one websocket to a Parlour server, typed requests and events, automatic resume.

A whole race from one player's side::

    from parlour.client.connection import Client, End, Start

    async with await Client.connect("ws://127.0.0.1:8765", "ada") as client:
        print("keep this token to come back as the same player:", client.token)
        race = (await client.create("golf", seats=2)).race["id"]
        # another player calls: await other.join(race); await other.ready(race)
        await client.ready(race)
        start = await client.next_event(Start, race=race, timeout=60)
        view, seq = start.view, start.seq
        while view["moves"]:  # the legal moves in wire form; empty once this game is over
            ack = await client.move(race, seq, view["moves"][0])
            view, seq = ack.view, ack.seq
        end = await client.next_event(End, race=race, timeout=660)  # when every seat is done, or at time_limit
        print(end.results)

Every request method returns the server's typed reply or raises :class:`ClientError` with
the server's :class:`~parlour.protocol.ErrorCode`. Events (what the server sends unasked)
wait in a queue: read them in order with :meth:`Client.events`, or pick one kind with
:meth:`Client.next_event`.

If the connection drops (the server restarts, the network fails), the client reconnects
by itself, says hello with its token (so it is the same player and keeps its seats),
watches again what it was watching, puts a :class:`Resumed` event in the queue and
re-sends the requests that had no answer yet: their callers just get the answer late.
Moves and undos are safe to re-send (the ``seq`` turns a repeat into a duplicate ack); a
request the server applied just before the drop may be applied again if it has no such
guard: a re-sent ``create`` can make a second race, a re-sent ``leave`` or ``concede``
can be refused (``not_seated``, ``game_over``).
After a :class:`Resumed`, call :meth:`Client.snapshot` for each race in ``resumed.races``
to get its full state (your seat, ``seq`` and view): events sent while you were away
are not sent again. Only when reconnecting fails for ``reconnect_timeout`` seconds do
requests and :meth:`Client.next_event` raise :class:`Disconnected`.

Bots: a program that offers to race people connects with ``bot=True`` and the ``games`` it
plays (``max_races`` at once); it is then listed in ``(await client.lobby()).bots`` and
receives an :class:`Invitation` event whenever someone invites it::

    bot = await Client.connect(url, "greedy", bot=True, games=["golf", "gaps"], max_races=4)
    invitation = await bot.next_event(Invitation, timeout=3600)
    race = invitation.race["id"]
    await bot.join(race)  # or bot.leave(race) to decline
    await bot.ready(race)
    start = await bot.next_event(Start, race=race, timeout=60)  # then moves, as above

A person invites a bot to their race with ``await client.invite(race, "greedy")`` (or
``"*"``: any bot that plays the race's game). A bot's offer is said again in every hello,
so it stays listed across reconnections; an invitation sent while it was away is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self, TypeVar

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from parlour.protocol import ErrorCode, ProtocolError, decode, encode
from parlour.protocol import messages as m
from parlour.protocol.messages import (
    Ack,
    Countdown,
    End,
    Error,
    Invitation,
    Ok,
    Pong,
    Progress,
    RaceInfo,
    Races,
    RaceUpdate,
    ReplayData,
    SnapshotInfo,
    Spectating,
    Start,
    TournamentExportData,
    TournamentInfo,
    Tournaments,
    TournamentUpdate,
    Watch,
    Welcome,
)
from parlour.protocol.text import printable
from parlour.protocol.tournament import MAX_MOVES

CLIENT_NAME = "parlour-client/0.1"
FIRST_DELAY = 0.05  # seconds before the first reconnection attempt; doubled after each failure
MAX_DELAY = 2.0  # the longest wait between two attempts
HANDSHAKE_TIMEOUT = 10.0  # seconds for the websocket opening and for each handshake reply
PACE = 0.9  # the share of the server's message rate the client sends at, at most

R = TypeVar("R", bound=m.Message)


def unreachable_text(error: BaseException) -> str:
    """Why a connection could not be opened, for people: for a server that answered the websocket
    upgrade with an HTTP refusal (503 when it holds all the connections it takes), the status and the
    reason the server gave; otherwise the error's own text."""
    if isinstance(error, InvalidStatus):
        response = error.response
        reason = (response.body or b"").decode("utf-8", "replace").strip()[:200]
        return f"HTTP {response.status_code}" + (f": {printable(reason)}" if reason else "")
    return str(error) or type(error).__name__


# Refusals of a resuming hello that pass: a node shutting down is replaced by another, or restarts.
RETRIED = (ErrorCode.RATE_LIMITED, ErrorCode.UNAVAILABLE, ErrorCode.SHUTTING_DOWN)
E = TypeVar("E")


class ClientError(Exception):
    """The server refused a request. Switch on ``code``; show ``message`` to people.

    ``code`` is an :class:`ErrorCode` (a ``str``, so ``error.code == "stale_seq"`` works),
    or a plain string for a code this client does not know. For ``rate_limited``, wait
    ``retry_after`` seconds before sending again.
    """

    def __init__(self, code: ErrorCode | str, message: str, retry_after: float | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_after = retry_after

    @classmethod
    def from_error(cls, error: Error) -> ClientError:
        """The exception for an ``error`` message from the server."""
        try:
            code: ErrorCode | str = ErrorCode(error.code)
        except ValueError:
            code = error.code
        return cls(code, error.message, error.retry_after)


class Disconnected(ConnectionError):
    """The client is closed: :meth:`Client.close` was called, or the connection was lost for good.

    Raised by requests and :meth:`Client.next_event`; :meth:`Client.events` just ends. To go
    on, connect again with the same token: ``await Client.connect(url, name, token=old.token)``.
    """


@dataclass(frozen=True, slots=True)
class Resumed:
    """A local event (never sent by the server): the client reconnected and said hello again.

    ``races`` are the live races this player is seated in, ``watching`` the races watched
    again. Call :meth:`Client.snapshot` for each race to get its full state, and
    :meth:`Client.spectate` again for a watched race's current boards. Events sent while
    away are lost: a race of yours missing from ``races`` finished meanwhile, and
    :meth:`Client.replay` gives its results.
    """

    races: list[str] = field(default_factory=list)
    watching: list[str] = field(default_factory=list)


ClientEvent = RaceUpdate | Countdown | Start | Progress | End | Watch | Invitation | TournamentUpdate | Error | Resumed


@dataclass(eq=False)
class _Pending:
    """A request waiting for its reply, and the socket it was last sent on."""

    request: m.Request
    future: asyncio.Future[m.Message]
    sent_on: ClientConnection | None = None


class Client:
    """One player's connection to a Parlour server. Make one with :meth:`Client.connect`.

    Attributes: ``player`` (the player id), ``name``, ``token`` (keep it: it brings this
    player back, with their seats, from any later connection), ``races`` (the live races
    the player was seated in at the last welcome), ``watching`` (races being spectated),
    and for a bot the ``games`` it offers and ``max_races``.

    Requests may be made from several tasks at once. Events have one reader at a time:
    either iterate :meth:`events` or call :meth:`next_event`, not both concurrently.
    """

    def __init__(
        self,
        url: str,
        name: str,
        *,
        token: str | None = None,
        bot: bool = False,
        games: Sequence[str] | None = None,
        max_races: int | None = None,
        password: str | None = None,
        reconnect: bool = True,
        reconnect_timeout: float = 30.0,
    ) -> None:
        """Use :meth:`Client.connect`, which also opens the connection."""
        self.url = url
        self.name = name
        self.token = token
        self.bot = bot
        self.games = list(games) if games is not None else None
        self.max_races = max_races
        self.password = password
        self.reconnect = reconnect
        self.reconnect_timeout = reconnect_timeout
        self.player = ""
        self.server = ""
        self.races: list[str] = []
        self.watching: set[str] = set()
        self._ids = itertools.count(1)
        self._ws: ClientConnection | None = None  # None while reconnecting
        self._pending: dict[int, _Pending] = {}
        self._queue: asyncio.Queue[ClientEvent | None] = asyncio.Queue()  # None: closed
        self._held: deque[ClientEvent] = deque()  # events next_event passed over, oldest first
        self._reader: asyncio.Task[None] | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._idle_timeout: float | None = None  # the server's, from the welcome
        self._last_sent = 0.0  # loop time of the last frame sent
        self._rate = 0.0  # the pace of this client's frames, just under the welcome's rate (0: no pacing)
        self._burst = 0.0  # and the frames it may send at once, just under the welcome's burst
        self._tokens = 0.0  # frames it may send now (below 0: frames already waiting their turn)
        self._tokens_at = 0.0  # loop time at which _tokens was counted
        self._closing = False
        self._failure: Disconnected | None = None

    # --- connecting ------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        url: str,
        name: str,
        *,
        token: str | None = None,
        bot: bool = False,
        games: Sequence[str] | None = None,
        max_races: int | None = None,
        password: str | None = None,
        reconnect: bool = True,
        reconnect_timeout: float = 30.0,
    ) -> Client:
        """Open a connection to ``url`` (``ws://host:port``), say hello, and return once welcomed.

        Without ``token`` the server makes a new player and ``client.token`` holds its token:
        keep it. With ``token`` this is that player again (``name`` and ``bot`` are updated),
        and ``client.races`` lists the races to resume (call :meth:`snapshot` for each).
        ``password`` is for private servers. With ``reconnect`` (the default), a lost
        connection is reopened for up to ``reconnect_timeout`` seconds (see :class:`Resumed`).

        A bot (``bot=True``) that gives ``games`` (1 to 16 game names) offers to play them
        when invited, at most ``max_races`` at once (1 to 64, default 1): while connected it
        is listed in the lobby's ``bots`` and gets :class:`Invitation` events. The server
        refuses ``games`` without ``bot`` (``bad_message``) and unknown games (``unknown_game``).

        Raises :class:`ClientError` if the server refuses the hello (``bad_token``,
        ``bad_password``, ...), ``OSError`` or ``TimeoutError`` if it cannot be reached:
        this first connection is not retried.
        """
        client = cls(
            url,
            name,
            token=token,
            bot=bot,
            games=games,
            max_races=max_races,
            password=password,
            reconnect=reconnect,
            reconnect_timeout=reconnect_timeout,
        )
        ws = await client._open(HANDSHAKE_TIMEOUT)
        try:
            welcome = await client._exchange(ws, client._hello(), Welcome)
        except BaseException:
            await ws.close()
            raise
        client._welcomed(welcome)
        client._ws = ws
        client._reader = asyncio.create_task(client._run(ws), name=f"parlour client {name}")
        client._keeper = asyncio.create_task(client._keep_alive(), name=f"parlour client {name} keep-alive")
        return client

    @property
    def connected(self) -> bool:
        """Whether the websocket is open now (false while reconnecting and once closed)."""
        return self._ws is not None and self._failure is None

    async def close(self) -> None:
        """Close the connection for good; the seats stay (reconnect with the token to resume).

        Requests still waiting raise :class:`Disconnected`; :meth:`events` ends. Safe to call twice.
        """
        self._closing = True
        ws = self._ws  # cancelling the reader forgets it
        if self._keeper is not None:
            self._keeper.cancel()
        if self._reader is not None and not self._reader.done():
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if ws is not None:
            await ws.close()
        self._ws = None
        self._shut(Disconnected("the client is closed"))

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    @property
    def reconnecting(self) -> bool:
        """Whether the connection was lost and is being reopened now (requests made meanwhile wait for it,
        and a :class:`Resumed` event follows when it is back)."""
        return bool(self.player) and self._ws is None and self._failure is None and not self._closing

    # --- lobby -----------------------------------------------------------------------

    async def lobby(self, *, limit: int = 50, after: str | None = None) -> Races:
        """One page of the lobby: this player's unfinished races, then the open and live public ones,
        newest first, as race summaries (``reply.races``). ``limit`` is 1 to 100. When more follow,
        ``reply.next`` is set: pass it as ``after`` for the next page (or call :meth:`lobby_all`)."""
        return await self._request(Races, m.Lobby, limit=limit, after=after)

    async def lobby_all(self, limit: int = 100) -> list[dict[str, Any]]:
        """Every race of the lobby, page after page (``limit`` races a page), in the lobby's order."""
        races: list[dict[str, Any]] = []
        after = None
        while True:
            page = await self.lobby(limit=limit, after=after)
            races += page.races
            if page.next is None:
                return races
            after = page.next

    async def create(
        self,
        game: str,
        *,
        options: dict[str, Any] | None = None,
        seats: int = 2,
        time_limit: int = 600,
        public: bool = True,
        undo: bool = False,
        spectator_delay: int = 0,
        live_boards: bool = False,
    ) -> RaceInfo:
        """Create a race of ``game`` and take seat 0. ``reply.race["id"]`` names it.

        ``reply.race["code"]`` is the join code to share for a private race. Next: wait for
        the other seats to fill (``RaceUpdate`` events), then :meth:`ready`. ``live_boards``
        shows spectators the boards while the race runs (``spectator_delay`` seconds late):
        only for friends, since a racer could then watch the others under a second identity.
        """
        return await self._request(
            RaceInfo,
            m.Create,
            game=game,
            options=options,
            seats=seats,
            time_limit=time_limit,
            public=public,
            undo=undo,
            spectator_delay=spectator_delay,
            live_boards=live_boards,
        )

    async def join(self, race: str | None = None, *, code: str | None = None) -> RaceInfo:
        """Take a seat in a public race by its id, or in any race by its join ``code``.

        Joining a race you are seated in returns the same seat. Next: :meth:`ready`.
        """
        if race is None and code is None:
            raise ValueError("join needs a race id or a join code")
        return await self._request(RaceInfo, m.Join, race=race, code=code)

    async def leave(self, race: str) -> Ok:
        """Give up your seat before the start (a countdown stops). Once it runs, :meth:`concede`."""
        return await self._request(Ok, m.Leave, race=race)

    async def ready(self, race: str, ready: bool = True) -> RaceInfo:
        """Say you are (or are no longer) ready. When every seat is ready, ``Countdown`` then ``Start`` follow."""
        return await self._request(RaceInfo, m.Ready, race=race, ready=ready)

    async def invite(self, race: str, bot: str) -> RaceInfo:
        """Invite a bot to a free seat of your race before its start: ``bot`` is a bot's name or
        player id (see ``(await client.lobby()).bots``), or ``"*"`` for any bot that plays the
        race's game (the one with the most races free).

        The seat is kept for the bot for 30 s (the server's setting): ``reply.race["invited"]``
        lists the pending invitations, each ``{"player", "name", "expires_at"}``. The bot takes
        the seat like any joiner (a ``RaceUpdate`` shows it); an invitation that lapses or is
        declined leaves ``invited`` in a ``RaceUpdate``. Inviting a bot invited already renews
        its invitation. Refusals: ``not_seated``, ``race_started``, ``no_such_bot`` (no online
        bot by that name plays the game), ``bot_busy`` (each such bot races all it can now),
        ``race_full`` (no seat left to keep).
        """
        return await self._request(RaceInfo, m.Invite, race=race, bot=bot)

    # --- racing ----------------------------------------------------------------------

    async def move(self, race: str, seq: int, move: Sequence[str | int]) -> Ack:
        """Make ``move`` (wire form, e.g. ``["play", "p3"]``) as entry number ``seq`` of your game.

        ``seq`` is the number of entries so far: ``start.seq`` at first, then the last
        ``ack.seq``. The ack holds your new view (its ``"moves"`` are the legal moves) and
        ``seq``. Sending the same move with the same ``seq`` again is safe: the answer is an
        ack with ``duplicate=True`` and nothing is applied twice. Refusals: ``bad_move``,
        ``illegal_move``, ``stale_seq`` (call :meth:`snapshot` to resynchronise), ``game_over``.
        """
        return await self._request(Ack, m.MakeMove, race=race, seq=seq, move=list(move))

    async def undo(self, race: str, seq: int) -> Ack:
        """Take back your last move, in a race created with ``undo=True``; ``seq`` as for :meth:`move`."""
        return await self._request(Ack, m.Undo, race=race, seq=seq)

    async def concede(self, race: str) -> Ack:
        """End your game in this race now; it is scored as it stands."""
        return await self._request(Ack, m.Concede, race=race)

    async def snapshot(self, race: str) -> SnapshotInfo:
        """The race as you may see it: summary, your seat and, once it runs, your ``seq`` and view.

        Call it after a :class:`Resumed` event, or after ``stale_seq``, to know where you are.
        """
        return await self._request(SnapshotInfo, m.Snapshot, race=race)

    # --- watching --------------------------------------------------------------------

    async def spectate(self, race: str) -> Spectating:
        """Watch a race: the reply has every seat's public board, then ``Watch`` events follow.

        Refused with ``forbidden`` for a racer in their own running race. The client watches
        again by itself after a reconnection.
        """
        reply = await self._request(Spectating, m.Spectate, race=race)
        self.watching.add(race)
        return reply

    async def unspectate(self, race: str) -> Ok:
        """Stop watching a race."""
        self.watching.discard(race)
        return await self._request(Ok, m.Unspectate, race=race)

    async def replay(self, race: str) -> ReplayData:
        """Everything needed to verify a finished race (``not_finished`` before it ends)."""
        return await self._request(ReplayData, m.Replay, race=race)

    async def ping(self) -> Pong:
        """A round trip to the server; ``pong.time`` is the server's clock (unix seconds)."""
        return await self._request(Pong, m.Ping)

    # --- tournaments -----------------------------------------------------------------

    async def tournament_create(
        self,
        games: Sequence[tuple[str, dict[str, Any] | None]] = (),
        *,
        format: str = "duplicate",
        deals: int = 10,
        bots: Sequence[str] = (),
        people: int = 0,
        table_size: int = 8,
        time_limit: int = 600,
        forfeit_after: int = 60,
        rated: bool = False,
        timed: bool = True,
        public: bool = True,
        seed: int | None = None,
        name: str | None = None,
        max_moves: int = MAX_MOVES,
    ) -> TournamentInfo:
        """Create a tournament of ``games`` (``(game, options)`` pairs; a ``mixed`` one without
        games plays all eight) for the online ``bots`` named and ``people`` seats for people.
        It starts at once without people, else once they have all joined (or its creator calls
        :meth:`tournament_start`). ``seed`` makes it reproducible (unrated only); ``timed``
        false ranks by the score alone (no finish time, no move count); a game still going
        after ``max_moves`` moves is conceded. ``reply.tournament["id"]`` names it."""
        return await self._request(
            TournamentInfo,
            m.TournamentCreate,
            name=name,
            format=format,
            games=[{"game": game, "options": options or {}} for game, options in games],
            deals=deals,
            bots=list(bots),
            people=people,
            table_size=table_size,
            time_limit=time_limit,
            forfeit_after=forfeit_after,
            rated=rated,
            timed=timed,
            public=public,
            seed=None if seed is None else f"{seed:x}",
            max_moves=max_moves,
        )

    async def tournament_join(self, tournament: str) -> TournamentInfo:
        """Enter an open tournament. Each of its races then comes as an :class:`Invitation`
        event (with ``tournament`` set): :meth:`join` it before ``expires_at`` or forfeit that deal."""
        return await self._request(TournamentInfo, m.TournamentJoin, tournament=tournament)

    async def tournament_start(self, tournament: str) -> TournamentInfo:
        """Start your open tournament with the people who entered so far."""
        return await self._request(TournamentInfo, m.TournamentStart, tournament=tournament)

    async def tournament_watch(self, tournament: str) -> TournamentInfo:
        """Follow a tournament: its summary now, then :class:`TournamentUpdate` events."""
        return await self._request(TournamentInfo, m.TournamentWatch, tournament=tournament)

    async def tournament_unwatch(self, tournament: str) -> Ok:
        return await self._request(Ok, m.TournamentUnwatch, tournament=tournament)

    async def tournament_export(self, tournament: str) -> TournamentExportData:
        """A finished tournament's export (``not_finished`` before): what ``parlour verify`` checks.

        A long export comes in parts (each within the largest message); they are asked for one after
        the other and returned put together, every race in ``reply.export["races"]``."""
        part = TournamentExportData, m.TournamentExport
        reply = await self._request(*part, tournament=tournament)
        export = dict(reply.export)
        races = list(export["races"])
        while reply.next is not None:
            reply = await self._request(*part, tournament=tournament, first=reply.next)
            races += reply.export["races"]
        export["races"] = races
        return TournamentExportData(id=reply.id, export=export)

    async def tournaments(self, limit: int = 20) -> Tournaments:
        """The newest tournaments' summaries."""
        return await self._request(Tournaments, m.TournamentList, limit=limit)

    async def ratings(self, game: str, *, bots: bool | None = None, limit: int = 100) -> m.Leaderboard:
        """``game``'s leaderboard, best first (``bots``: only bots, or only people)."""
        return await self._request(m.Leaderboard, m.Ratings, game=game, bots=bots, limit=limit)

    # --- events ----------------------------------------------------------------------

    async def events(self) -> AsyncIterator[ClientEvent]:
        """Every event in arrival order: ``async for event in client.events(): ...``.

        Events are :class:`RaceUpdate`, :class:`Countdown`, :class:`Start`, :class:`Progress`,
        :class:`End`, :class:`Watch`, :class:`Invitation` (bots only), :class:`Error` (a notice
        not tied to a request, such as ``shutting_down``) and the local :class:`Resumed`. The
        iteration ends when the client is closed or the connection is lost for good.
        """
        while True:
            if self._held:
                yield self._held.popleft()
                continue
            event = await self._queue.get()
            if event is None:
                self._queue.put_nowait(None)  # every later reader sees the end too
                return
            yield event

    async def next_event(self, type_: type[E], race: str | None = None, timeout: float = 10.0) -> E:
        """The oldest queued or next arriving event of ``type_`` (and of ``race``, if given).

        Other events stay queued, in order, for later calls and for :meth:`events`. Raises
        ``TimeoutError`` after ``timeout`` seconds (naming the events seen meanwhile) and
        :class:`Disconnected` if the client closes first.
        """
        for index, event in enumerate(self._held):
            if _matches(event, type_, race):
                del self._held[index]
                return event  # type: ignore[return-value]
        try:
            async with asyncio.timeout(timeout):
                while True:
                    event = await self._queue.get()
                    if event is None:
                        self._queue.put_nowait(None)
                        raise self._gone()
                    if _matches(event, type_, race):
                        return event  # type: ignore[return-value]
                    self._held.append(event)
        except TimeoutError:
            wanted = type_.__name__ + (f" of race {race}" if race else "")
            seen = ", ".join(_describe(e) for e in self._held) or "none"
            raise TimeoutError(f"no {wanted} event within {timeout} s; queued events: {seen}") from None

    # --- requests --------------------------------------------------------------------

    async def _request(self, reply_type: type[R], kind: type[m.Request], **fields: Any) -> R:
        """Send a request with the next id and wait for its reply, across reconnections."""
        if self._failure is not None:
            raise self._gone()
        request = kind(id=next(self._ids), **fields)
        pending = _Pending(request, asyncio.get_running_loop().create_future())
        self._pending[request.id] = pending
        try:
            if self._ws is not None:  # else _resume sends it once reconnected
                await self._send(self._ws, pending)
            reply = await pending.future
        finally:
            del self._pending[request.id]
        if not isinstance(reply, reply_type):
            raise ClientError("unexpected_reply", f"{request.TYPE} was answered with {reply.TYPE}")
        return reply

    async def _send(self, ws: ClientConnection, pending: _Pending) -> None:
        await self._pace()
        pending.sent_on = ws
        self._last_sent = asyncio.get_running_loop().time()
        with contextlib.suppress(ConnectionClosed):  # the reader notices, reconnects and re-sends
            await ws.send(encode(pending.request))

    def _hello(self) -> m.Hello:
        return m.Hello(
            id=next(self._ids),
            name=self.name,
            bot=self.bot,
            token=self.token,
            password=self.password,
            client=CLIENT_NAME,
            games=self.games,
            max_races=self.max_races if self.games is not None else None,
        )

    def _welcomed(self, welcome: Welcome) -> None:
        self.player = welcome.player
        self.name = welcome.name
        self.server = welcome.server
        self.races = [str(race) for race in welcome.races]
        self._idle_timeout = welcome.idle_timeout
        if welcome.token is not None:
            self.token = welcome.token
        if welcome.rate and welcome.burst:  # a new connection: a full bucket, less the hello
            self._rate = welcome.rate * PACE
            self._burst = max(1.0, welcome.burst - max(1, welcome.burst // 10))
            self._tokens = self._burst - 1
            self._tokens_at = asyncio.get_running_loop().time()
        else:  # an older server: it does not say, so refusals (rate_limited) are the only guide
            self._rate = 0.0

    async def _pace(self) -> None:
        """Wait until one more frame keeps within the connection's rate limit (the welcome's rate and burst).

        Each caller takes its turn at once (the bucket may go below 0) and then waits for it, so
        requests made from several tasks leave in the order they were made, never faster than the
        server takes them. The pace keeps a margin (``PACE`` of the rate, a tenth of the burst),
        since the server counts frames when it reads them, and frames can bunch on the way.
        """
        if not self._rate:
            return
        now = asyncio.get_running_loop().time()
        self._tokens = min(self._burst, self._tokens + (now - self._tokens_at) * self._rate) - 1
        self._tokens_at = now
        if self._tokens < 0:
            await asyncio.sleep(-self._tokens / self._rate)

    async def _open(self, timeout: float) -> ClientConnection:
        return await ws_connect(self.url, compression=None, open_timeout=timeout)

    async def _exchange(self, ws: ClientConnection, request: m.Request, reply_type: type[R]) -> R:
        """Send ``request`` on ``ws`` and read until its reply, handling other frames as usual.

        Used before the reader task owns ``ws``: for the hello and for watching again.
        """
        await self._pace()
        await ws.send(encode(request))
        self._last_sent = asyncio.get_running_loop().time()
        async with asyncio.timeout(HANDSHAKE_TIMEOUT):
            while True:
                message = self._decode(await ws.recv())
                if message is None or getattr(message, "id", None) != request.id:
                    if message is not None:
                        self._dispatch(message)
                    continue
                if isinstance(message, Error):
                    raise ClientError.from_error(message)
                if not isinstance(message, reply_type):
                    raise ClientError("unexpected_reply", f"{request.TYPE} was answered with {message.TYPE}")
                return message

    async def _keep_alive(self) -> None:
        """Send a ``ping`` whenever nothing was sent for a third of the server's idle timeout,
        so a client that only listens (a spectator, a racer thinking) is not closed as idle."""
        loop = asyncio.get_running_loop()
        while self._failure is None:
            if not self._idle_timeout:
                await asyncio.sleep(1.0)  # a later welcome (after a reconnection) may set one
                continue
            interval = self._idle_timeout / 3
            due = self._last_sent + interval
            if loop.time() < due:
                await asyncio.sleep(due - loop.time())
                continue
            try:
                await self.ping()
            except ClientError:
                self._last_sent = loop.time()  # refused (rate limited): it still counted as a message
            except Disconnected:
                return

    # --- the reader ------------------------------------------------------------------

    async def _run(self, ws: ClientConnection) -> None:
        """Read frames until the connection drops, then reconnect (or give up and shut)."""
        failure = Disconnected("the client is closed")
        try:
            while True:
                await self._read(ws)
                self._ws = None
                if self._closing:
                    break
                if not self.reconnect:
                    failure = Disconnected(f"the connection to {self.url} was lost")
                    break
                ws = await self._resume()
        except Disconnected as error:
            failure = error
        finally:
            self._shut(failure)

    async def _read(self, ws: ClientConnection) -> None:
        while True:
            try:
                frame = await ws.recv()
            except ConnectionClosed:
                return
            message = self._decode(frame)
            if message is not None:
                self._dispatch(message)

    def _decode(self, frame: str | bytes) -> m.Message | None:
        try:
            return decode(frame)
        except ProtocolError as error:
            self._queue.put_nowait(Error(code=error.code, message=f"the server sent a bad frame: {error.message}"))
            return None

    def _dispatch(self, message: m.Message) -> None:
        """Resolve the waiting request a reply answers, or queue an event."""
        request_id = getattr(message, "id", None)
        if request_id is None:
            self._queue.put_nowait(message)  # type: ignore[arg-type]
            return
        pending = self._pending.get(request_id)
        if pending is None or pending.future.done():
            return  # the answer to a request its caller stopped waiting for
        if isinstance(message, Error):
            pending.future.set_exception(ClientError.from_error(message))
        else:
            pending.future.set_result(message)

    async def _resume(self) -> ClientConnection:
        """Reconnect with backoff, say hello with the token, watch again, re-send; or raise Disconnected."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.reconnect_timeout
        delay = FIRST_DELAY
        last: BaseException | None = None
        while True:
            wait = delay
            try:
                ws = await self._reopen(max(0.1, min(HANDSHAKE_TIMEOUT, deadline - loop.time())))
                break
            except ClientError as error:
                if error.code not in RETRIED:  # else try again later
                    raise Disconnected(f"the server refused to resume: {error}") from error
                last, wait = error, max(delay, error.retry_after or 0)
            except (OSError, InvalidHandshake, TimeoutError, ConnectionClosed) as error:
                last = error
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise Disconnected(f"could not reconnect to {self.url} within {self.reconnect_timeout} s") from last
            await asyncio.sleep(min(wait, remaining))
            delay = min(delay * 2, MAX_DELAY)
        self._queue.put_nowait(Resumed(races=list(self.races), watching=sorted(self.watching)))
        # Re-send in id order until none is left unsent; a request made meanwhile waits its turn.
        while unsent := [p for _, p in sorted(self._pending.items()) if p.sent_on is not ws and not p.future.done()]:
            for pending in unsent:
                await self._send(ws, pending)
        self._ws = ws
        return ws

    async def _reopen(self, timeout: float) -> ClientConnection:
        """One attempt: open a websocket, say hello with the token, watch again what was watched."""
        ws = await self._open(timeout)
        try:
            self._welcomed(await self._exchange(ws, self._hello(), Welcome))
            for race in sorted(self.watching):
                try:
                    await self._exchange(ws, m.Spectate(id=next(self._ids), race=race), Spectating)
                except ClientError:
                    self.watching.discard(race)  # the race is gone, or watching it is now forbidden
        except BaseException:
            await ws.close()
            raise
        return ws

    def _gone(self) -> Disconnected:
        """A fresh exception saying why the client is closed (one instance per raise keeps tracebacks apart)."""
        failure = self._failure or Disconnected("the client is closed")
        error = Disconnected(*failure.args)
        error.__cause__ = failure.__cause__
        return error

    def _shut(self, failure: Disconnected) -> None:
        """Fail every waiting request and end the event stream (once)."""
        if self._failure is not None:
            return
        self._failure = failure
        self._ws = None
        if self._keeper is not None and self._keeper is not asyncio.current_task():
            self._keeper.cancel()
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(self._gone())
        self._queue.put_nowait(None)


def _race_of(event: object) -> str | None:
    race = getattr(event, "race", None)
    if isinstance(race, dict):
        return race.get("id")
    return race if isinstance(race, str) else None


def _matches(event: object, type_: type, race: str | None) -> bool:
    return isinstance(event, type_) and (race is None or _race_of(event) == race)


def _describe(event: object) -> str:
    race = _race_of(event)
    return type(event).__name__ + (f"({race})" if race else "")


__all__ = [
    "Ack",
    "Client",
    "ClientError",
    "ClientEvent",
    "Countdown",
    "Disconnected",
    "End",
    "Error",
    "Invitation",
    "Ok",
    "Pong",
    "Progress",
    "RaceInfo",
    "RaceUpdate",
    "Races",
    "ReplayData",
    "Resumed",
    "SnapshotInfo",
    "Spectating",
    "Start",
    "Watch",
    "Welcome",
]
