"""The race server: one asyncio process serving websockets, with its state in Redis.

A thin loop around the sans-I/O pieces: :mod:`parlour.protocol` reads and writes the
frames, :mod:`parlour.server.race` keeps the rules of a race, :mod:`parlour.server.store`
keeps everything in Redis. A move is acknowledged only once its log entry is in Redis,
so a restart loses no acknowledged move. ``GET /healthz`` and ``GET /metrics`` are
served on the same port.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import secrets
import time
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.http11 import Request as HttpRequest
from websockets.http11 import Response as HttpResponse
from websockets.protocol import OPEN

from parlour.games import CONCEDE, BadOptions, UnknownGame, get_game
from parlour.protocol import ErrorCode, ProtocolError, encode
from parlour.protocol import messages as m
from parlour.protocol.codec import decode_map, message_from_map
from parlour.protocol.messages import PROTOCOL_VERSION, REQUESTS, Message
from parlour.protocol.replay import REPLAY_FORMAT
from parlour.protocol.text import name_problem, printable
from parlour.server.config import Config
from parlour.server.limits import Backoff, Buckets, address_of
from parlour.server.metrics import Metrics
from parlour.server.race import CONCEDE_WIRE, SEED_BITS, UNDO, Race, Settings, Status, read_code
from parlour.server.store import UNAVAILABLE, LogConflict, Player, RaceClosed, Store

SERVER_NAME = "parlour/0.1"
log = logging.getLogger("parlour.server")
FLOOD_CLOSE = 500  # the refusal count at which a connection is closed (1008)
RETRY = 1.0  # seconds before trying again what Redis could not do (and the retry_after of `unavailable`)
REFUSALS_FORGIVEN = 10.0  # refusals per second the count forgets
CLOSE_TIMEOUT = 1.0  # seconds a closing handshake may take before the TCP connection is cut
READ_SIZE = 16 * 1024  # bytes read from a socket at once, and parsed into frames without a pause
PING_RATE = 1.0  # WebSocket Pings a second a peer may send on average
PING_BURST = 20  # WebSocket Pings a peer may send at once

# Wrong join codes (per player and per address) and wrong passwords (per address): 5 are free,
# then each one doubles the wait before the next try, from 1 s up to 5 min; 10 min without one
# forgets them.
GUESSES = {"free": 5, "base": 1.0, "cap": 300.0, "forget": 600.0}


class Peer(ServerConnection):
    """A server connection that keeps one peer from holding up the others.

    - One read from its socket, and the frames the library parses from it before anything
      else runs, is at most ``READ_SIZE`` bytes instead of asyncio's 256 KiB.
    - ``serve(..., write_limit=max_backlog)`` makes the transport call :meth:`pause_writing`
      once more than ``max_backlog`` bytes wait to be sent: the connection is then closed
      (1008) instead of buffering more, and nothing is queued for it any longer.
    - WebSocket Pings (answered inside the library, so no rate limit of ours sees them) have
      a bucket of their own; a peer that empties it is closed (1008) and not read any more.
    """

    ping_tokens: float = PING_BURST
    pinged_at: float = 0.0
    flooded: bool = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # The size CPython's selector transport passes to recv() (an instance attribute
        # shadows its class default; another event loop ignores it). Shrinking the socket's
        # SO_RCVBUF instead also shrinks the TCP window and stalls the connection.
        transport.max_size = READ_SIZE  # type: ignore[attr-defined]
        super().connection_made(transport)

    def process_event(self, event: Any) -> None:
        if isinstance(event, Frame) and event.opcode is Opcode.PING and not self.flooded:
            now = time.monotonic()
            self.ping_tokens = min(PING_BURST, self.ping_tokens + (now - self.pinged_at) * PING_RATE)
            self.pinged_at = now
            self.ping_tokens -= 1
            if self.ping_tokens < 0 and self.protocol.state is OPEN:
                self.flooded = True
                self.transport.pause_reading()  # whatever else it sends is not even parsed
                close_soon(self, 1008, "too many pings")
        super().process_event(event)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.protocol.state is OPEN:
            close_soon(self, 1008, "too far behind: read your messages")


_closing: set[asyncio.Task[None]] = set()  # closes under way that nobody awaits


def close_soon(ws: ServerConnection, code: int, reason: str) -> None:
    """Start :func:`close_within` without waiting for it."""
    task = asyncio.get_running_loop().create_task(close_within(ws, code, reason))
    _closing.add(task)
    task.add_done_callback(_closing.discard)


async def close_within(ws: ServerConnection, code: int, reason: str) -> None:
    """Close ``ws`` with ``code``; cut the TCP connection if that takes over ``CLOSE_TIMEOUT`` s.

    ``ws.close()`` alone waits without limit while the peer does not read what is queued for it.
    """
    try:
        async with asyncio.timeout(CLOSE_TIMEOUT):
            await ws.close(code, reason)
    except TimeoutError:
        ws.transport.abort()


@dataclass(eq=False)
class Connection:
    """One websocket and what the server knows of its peer."""

    ws: ServerConnection
    rate: float
    burst: int
    player: Player | None = None
    watching: set[str] = field(default_factory=set)
    tokens: float = 0.0
    stamp: float = field(default_factory=time.monotonic)  # when the last frame arrived
    refusals: float = 0.0  # a leaky count: +1 a refusal, -REFUSALS_FORGIVEN a second
    refused_at: float = 0.0  # monotonic time of the last refusal
    frame_started: float = 0.0  # perf_counter when the frame being served arrived
    number: int = 0  # counts connections since the server started; names this one in the log
    reaped: bool = False  # told it was idle, and closing

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)

    @property
    def address(self) -> str:
        """The peer's address, as the limits on identities and guesses count it."""
        return address_of(self.ws.remote_address)

    def take(self, now: float) -> float | None:
        """Spend one message from the bucket; return the wait in seconds if it is empty."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return None
        return (1 - self.tokens) / self.rate

    def refuse(self, now: float) -> bool:
        """Count one refusal; return True once the connection has too many to stay open."""
        forgiven = (now - self.refused_at) * REFUSALS_FORGIVEN
        self.refusals = max(0.0, self.refusals - forgiven) + 1
        self.refused_at = now
        return self.refusals >= FLOOD_CLOSE

    def send(self, message: Message) -> None:
        """Queue ``message`` for the peer without waiting (a closed or closing connection drops it).

        A peer that lets too much pile up is closed (:class:`Peer`), so this never waits.
        """
        broadcast([self.ws], encode(message))


class Server:
    """Every race and connection of this node."""

    def __init__(self, config: Config, store: Store) -> None:
        self.config = config
        self.store = store
        self.races: dict[str, Race] = {}
        self.codes: dict[str, str] = {}
        self.connections: set[Connection] = set()
        self.by_player: dict[str, set[Connection]] = defaultdict(set)
        self.watchers: dict[str, set[Connection]] = defaultdict(set)
        self.locks: dict[tuple[str, int], asyncio.Lock] = defaultdict(asyncio.Lock)  # per seat: its entries
        self.race_locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)  # per race: joins, leaves, readies, start
        self.draws: dict[str, tuple[int, bytes]] = {}  # race id -> the seed and salt it will start with
        # Boards of seats in races with a spectator delay, oldest first, from the last one
        # past the delay on: what spectators may still be shown.
        self.history: dict[tuple[str, int], deque[tuple[float, int, Any]]] = defaultdict(deque)
        self.unfinished: dict[str, set[str]] = defaultdict(set)  # player -> ids of their unfinished races
        self.timers: dict[Any, asyncio.TimerHandle] = {}
        self.running: set[asyncio.Task[None]] = set()  # timers that fired and still work
        self.metrics = Metrics(self._gauges)
        self.closing = False
        # Public unfinished races as (created_at, id), oldest first: the lobby pages through it.
        self.listed: list[tuple[float, str]] = []
        self.replays: dict[str, dict[str, Any]] = {}  # built replays of finished races in memory
        self.building: dict[str, asyncio.Task[dict[str, Any]]] = {}  # replays being rebuilt from the logs
        self.new_identities = Buckets(config.identity_rate, config.identity_burst)  # by address
        self.new_races = Buckets(config.race_rate, config.race_burst)  # by player
        self.wrong_codes = Backoff(**GUESSES)  # by player and by address
        self.wrong_passwords = Backoff(**GUESSES)  # by address
        self.handlers: dict[type[Message], Callable[[Connection, Any], Awaitable[Message | None]]] = {
            m.Lobby: self.on_lobby,
            m.Create: self.on_create,
            m.Join: self.on_join,
            m.Leave: self.on_leave,
            m.Ready: self.on_ready,
            m.MakeMove: self.on_move,
            m.Undo: self.on_undo,
            m.Concede: self.on_concede,
            m.Snapshot: self.on_snapshot,
            m.Spectate: self.on_spectate,
            m.Unspectate: self.on_unspectate,
            m.Replay: self.on_replay,
            m.Ping: self.on_ping,
        }

    # --- start and stop --------------------------------------------------------------

    async def recover(self) -> None:
        """Rebuild every unfinished race from Redis (after a restart or a crash).

        A race that fails to load or rebuild is logged, with its id and why, and set aside
        (its keys stay in Redis, listed in ``parlour:races:broken``): the others start anyway.
        Raises if Redis cannot be reached.
        """
        for race_id in await self.store.active_race_ids():
            try:
                await self._recover(race_id)
            except UNAVAILABLE:
                raise
            except Exception as error:
                log.error("race %s cannot be recovered, set aside: %s: %s", race_id, type(error).__name__, error)
                stale = self.races.get(race_id)
                if stale is not None:
                    self._stop_clock(stale)
                    self._forget(stale)
                await self.store.set_aside(race_id)

    async def _recover(self, race_id: str) -> None:
        now = time.time()
        race = await self.store.load_race(race_id)
        if race is None:
            return
        self._adopt(race)
        if race.status is Status.RUNNING:
            if race.closed_at is not None:  # it stopped taking entries before the restart
                await self._finish(race, race.closed_at)
                return
            if race.all_over():  # it ended when its last game did
                await self._finish(race, max(seat.finished_at or now for seat in race.seats))
                return
            if (race.deadline or now) <= now:
                await self._finish(race, race.deadline)
                return
            self._schedule(("deadline", race.id), race.deadline or now, self._deadline, race)
            for index, seat in enumerate(race.seats):
                if seat.state.ended is None:
                    self._schedule(("grace", race.id, index), now + self.config.grace, self._grace, race, index)
        elif race.status is Status.COUNTDOWN:
            self._schedule(("start", race.id), max(now, race.starts_at or now), self._start, race)
        if race.status in (Status.OPEN, Status.COUNTDOWN):  # nobody is connected yet
            self._schedule_open_expiry(race)
            self._schedule(("abandoned", race.id), now + self.config.abandoned_timeout, self._abandoned, race)

    async def shutdown(self) -> None:
        """Tell every client the server is going away and close their connections."""
        self.closing = True
        for handle in self.timers.values():
            handle.cancel()
        self.timers.clear()
        for task in self.running:
            task.cancel()
        farewell = m.Error(code=ErrorCode.SHUTTING_DOWN, message="the server is shutting down; reconnect soon")
        self._broadcast(self.connections, farewell)
        closing = [asyncio.create_task(close_within(c.ws, 1001, "server shutting down")) for c in self.connections]
        if closing:
            await asyncio.wait(closing)

    def _gauges(self) -> dict[str, float]:
        by_status = defaultdict(int)
        for race in self.races.values():
            by_status[race.status.value] += 1
        gauges: dict[str, float] = {
            "connections": len(self.connections),
            "players_connected": len(self.by_player),
            "players_seated": len(self.unfinished),  # players with a seat in an unfinished race
            "races_watched": len(self.watchers),
        }
        for status in Status:
            if status is Status.EXPIRED:  # an expired race leaves memory at once
                continue
            gauges[f"races_{status.value}"] = by_status[status.value]
        return gauges

    # --- http ------------------------------------------------------------------------

    async def process_request(self, connection: ServerConnection, request: HttpRequest) -> HttpResponse | None:
        """Answer ``/healthz`` and ``/metrics``; let websocket upgrades through."""
        if request.path == "/healthz":
            try:
                healthy = await asyncio.wait_for(self.store.ping(), timeout=2)
            except Exception:
                healthy = False
            if healthy and not self.closing:
                return connection.respond(HTTPStatus.OK, "ok\n")
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "unavailable\n")
        if request.path == "/metrics":
            response = connection.respond(HTTPStatus.OK, self.metrics.render())
            del response.headers["Content-Type"]  # setting a header adds one: Headers is a multidict
            response.headers["Content-Type"] = "text/plain; version=0.0.4; charset=utf-8"
            return response
        return None

    # --- the connection loop ---------------------------------------------------------

    async def handle(self, ws: ServerConnection) -> None:
        self.metrics.connections_total += 1
        conn = Connection(ws, self.config.rate, self.config.burst, number=self.metrics.connections_total)
        self.connections.add(conn)
        log.info("connection %d opened from %s", conn.number, _address(ws))
        try:
            async for frame in ws:
                refused_too_much = await self._serve_frame(conn, frame)
                if self.closing:  # the frame was answered with shutting_down
                    await close_within(ws, 1001, "server shutting down")
                    return
                if refused_too_much:
                    await close_within(ws, 1008, "too many refused messages")
                    return
                await asyncio.sleep(0)  # frames already received must not keep other connections waiting
        except ConnectionClosed:
            pass
        finally:
            self._disconnected(conn)

    async def reap_idle(self) -> None:
        """Close connections that sent nothing for ``idle_timeout`` seconds (none if it is 0);
        runs until cancelled. Each is told once, though its close may take up to a second."""
        if self.config.idle_timeout <= 0:
            return
        period = max(0.05, min(30.0, self.config.idle_timeout / 4))
        while True:
            await asyncio.sleep(period)
            cutoff = time.monotonic() - self.config.idle_timeout
            idle = [c for c in self.connections if c.stamp < cutoff and not c.reaped]
            for conn in idle:
                conn.reaped = True
                self._refuse(conn, None, ProtocolError(ErrorCode.IDLE_TIMEOUT, "no message for too long"))
                close_soon(conn.ws, 1000, "idle timeout")  # a peer that does not read must not hold up the rest

    async def _serve_frame(self, conn: Connection, frame: str | bytes) -> bool:
        """Serve one frame; return True if the connection has been refused too much to stay open."""
        conn.frame_started = time.perf_counter()
        request_id = None
        try:
            wait = conn.take(time.monotonic())
            raw = decode_map(frame)
            if type(raw.get("id")) is int:
                request_id = raw["id"]
            if self.closing:  # a connection opened during the shutdown missed the farewell notice
                raise ProtocolError(ErrorCode.SHUTTING_DOWN, "the server is shutting down; reconnect soon")
            if wait is not None:  # refused after reading the id, so the client knows which request
                raise ProtocolError(ErrorCode.RATE_LIMITED, "too many messages; slow down", retry_after=wait)
            message = message_from_map(raw, REQUESTS)
            if isinstance(message, m.Hello):
                reply = await self.on_hello(conn, message)
            elif conn.player is None:
                raise ProtocolError(ErrorCode.NOT_IDENTIFIED, "say hello first")
            else:
                reply = await self.handlers[type(message)](conn, message)
            if reply is not None:
                conn.send(reply)
            return False
        except ProtocolError as error:
            return self._refuse(conn, request_id, error)
        except UNAVAILABLE:
            unavailable = ProtocolError(
                ErrorCode.UNAVAILABLE, "the server cannot reach its storage right now; try again", retry_after=RETRY
            )
            return self._refuse(conn, request_id, unavailable)
        except Exception:
            log.exception("request %s failed", request_id)
            return self._refuse(conn, request_id, ProtocolError(ErrorCode.INTERNAL, "the server failed; try again"))

    def _refuse(self, conn: Connection, request_id: int | None, error: ProtocolError) -> bool:
        """Send ``error``; return True if the connection has been refused too much to stay open."""
        self.metrics.errors[error.code.value] += 1
        conn.send(m.Error(code=error.code, message=error.message, id=request_id, retry_after=error.retry_after))
        return conn.refuse(time.monotonic())

    def _disconnected(self, conn: Connection) -> None:
        self.connections.discard(conn)
        log.info("connection %d closed", conn.number)
        for race_id in list(conn.watching):
            self._unwatch(conn, race_id)
        if conn.player is None:
            return
        peers = self.by_player.get(conn.player.id, set())
        peers.discard(conn)
        if not peers:
            self.by_player.pop(conn.player.id, None)
        if peers or self.closing:
            return
        now = time.time()
        for race_id in self.unfinished.get(conn.player.id, ()):
            race = self.races.get(race_id)
            if race is None:
                continue
            index = race.seat_of(conn.player.id)
            if race.status is Status.RUNNING and index is not None and race.seats[index].state.ended is None:
                self._schedule(("grace", race.id, index), now + self.config.grace, self._grace, race, index)
            elif race.status in (Status.OPEN, Status.COUNTDOWN) and not self._attended(race):
                self._schedule(("abandoned", race.id), now + self.config.abandoned_timeout, self._abandoned, race)

    # --- identity and lobby ----------------------------------------------------------

    async def on_hello(self, conn: Connection, msg: m.Hello) -> Message:
        if conn.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_IDENTIFIED, "this connection already said hello")
        if msg.version != PROTOCOL_VERSION:
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_VERSION, f"this server speaks protocol version {PROTOCOL_VERSION}"
            )
        address, now = conn.address, time.monotonic()
        if self.config.password is not None:
            wait = self.wrong_passwords.wait(address, now)
            if wait > 0:
                raise ProtocolError(ErrorCode.RATE_LIMITED, "too many wrong passwords; wait", retry_after=wait)
            if not secrets.compare_digest((msg.password or "").encode(), self.config.password.encode()):
                self.wrong_passwords.failed(address, now)
                raise ProtocolError(ErrorCode.BAD_PASSWORD, "this server needs its password in the hello")
        problem = name_problem(msg.name)
        if problem is not None:
            raise ProtocolError(ErrorCode.BAD_NAME, problem)
        token = None
        if msg.token is None:
            wait = self.new_identities.wait(address, now)
            if wait > 0:
                raise ProtocolError(ErrorCode.RATE_LIMITED, "too many new identities from here; wait", retry_after=wait)
            player, token = await self.store.create_player(msg.name, msg.bot)
            self.new_identities.take(address, time.monotonic())  # once stored: an unavailable hello does not count
        else:
            found = await self.store.player_by_token(msg.token)
            if found is None:
                raise ProtocolError(ErrorCode.BAD_TOKEN, "no identity has this token; say hello without one")
            player = found
            if (player.name, player.bot) != (msg.name, msg.bot):
                await self.store.rename(player.id, msg.name, msg.bot)
                player = Player(player.id, msg.name, msg.bot)
        conn.player = player
        self.by_player[player.id].add(conn)
        log.info("connection %d identified as %s (%s)", conn.number, player.id, printable(player.name))
        live = sorted(race_id for race_id in self.unfinished.get(player.id, ()) if race_id in self.races)
        for race_id in live:
            self._cancel(("grace", race_id, self.races[race_id].seat_of(player.id)))
            self._cancel(("abandoned", race_id))
        return m.Welcome(
            id=msg.id,
            player=player.id,
            name=player.name,
            bot=player.bot,
            server=f"{SERVER_NAME} ({self.config.node})",
            token=token,
            races=live,
            idle_timeout=self.config.idle_timeout or None,
        )

    async def on_lobby(self, conn: Connection, msg: m.Lobby) -> Message:
        """One page of the lobby: the player's own unfinished races, then the public ones, newest first.

        The order is by the key (0 for the player's own races, 1 for the others; -created_at; id),
        and the cursor names the last key shown, so a page costs its own size, not the lobby's.
        """
        player = self._player(conn)
        after = _read_cursor(msg.after) if msg.after is not None else None
        page: list[tuple[tuple[int, float, str], Race]] = []
        mine = [self.races[r] for r in self.unfinished.get(player.id, ()) if r in self.races]
        for race in sorted(mine, key=lambda r: (-r.created_at, r.id)):
            key = (0, -race.created_at, race.id)
            if race.status is not Status.FINISHED and (after is None or key > after):
                page.append((key, race))
        stop = len(self.listed)
        if after is not None and after[0] == 1:
            stop = bisect.bisect_left(self.listed, (-after[1], after[2]))
        for index in range(stop - 1, -1, -1):
            if len(page) > msg.limit:
                break
            created_at, race_id = self.listed[index]
            race = self.races[race_id]
            if race.status is not Status.FINISHED and race.seat_of(player.id) is None:
                page.append(((1, -created_at, race_id), race))
        shown = page[: msg.limit]
        more = len(page) > msg.limit
        return m.Races(
            id=msg.id,
            races=[race.summary(player.id) for _, race in shown],
            next=_cursor(shown[-1][0]) if more else None,
        )

    async def on_create(self, conn: Connection, msg: m.Create) -> Message:
        player = self._player(conn)
        try:
            game = get_game(msg.game)
            options = game.resolve_options(msg.options)
        except UnknownGame as error:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, str(error)) from None
        except BadOptions as error:
            raise ProtocolError(ErrorCode.BAD_OPTIONS, str(error)) from None
        self._check_race_limit(player)
        now = time.monotonic()
        wait = self.new_races.wait(player.id, now)
        if wait > 0:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "you are creating races too fast; wait", retry_after=wait)
        settings = Settings(
            game=game.name,
            options=options,
            seats=msg.seats,
            time_limit=msg.time_limit,
            public=msg.public,
            undo=msg.undo,
            spectator_delay=msg.spectator_delay,
            live_boards=msg.live_boards,
        )
        race = Race(id=secrets.token_hex(5), settings=settings, created_by=player.id, created_at=time.time())
        race.join(player.id, player.name, player.bot)
        await self.store.save_race(race)
        self.new_races.take(player.id, time.monotonic())  # once stored: a create refused as unavailable does not count
        self._adopt(race)  # notes the creator's seat too
        self._schedule_open_expiry(race)
        log.info("race %s created by %s: %s for %d", race.id, player.id, game.name, settings.seats)
        return m.RaceInfo(id=msg.id, race=race.summary(player.id))

    async def on_join(self, conn: Connection, msg: m.Join) -> Message:
        player = self._player(conn)
        race_id = self._race_of_code(conn, msg.code) if msg.code is not None else msg.race
        race = self.races.get(race_id or "")
        if race is None or (msg.code is None and not race.settings.public and race.seat_of(player.id) is None):
            raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no open race with that id or code")
        async with self.race_locks[race.id]:
            if self.races.get(race.id) is not race:  # it was deleted or expired while this waited
                raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no open race with that id or code")
            if race.seat_of(player.id) is None:
                self._check_race_limit(player)
                joined_at = time.time()

                def take_seat(race: Race) -> int:
                    seat = race.join(player.id, player.name, player.bot)
                    race.joined_at = joined_at
                    return seat

                seat = await self._change(race, take_seat)
                self._schedule_open_expiry(race)
                self.unfinished[player.id].add(race.id)
                log.info("race %s joined by %s, seat %d", race.id, player.id, seat)
            self._cancel(("abandoned", race.id))  # the joiner is here
        self._announce(race)
        return m.RaceInfo(id=msg.id, race=race.summary(player.id))

    async def on_leave(self, conn: Connection, msg: m.Leave) -> Message:
        player = self._player(conn)
        race = self._race(msg.race)
        async with self.race_locks[race.id]:
            if self.races.get(race.id) is not race:  # it was deleted or expired while this waited
                raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no race with that id")
            draft = _draft(race)  # stored first, as in _change
            draft.leave(player.id)
            if draft.seats:
                await self.store.save_race(draft)
            else:
                await self.store.delete_race(race.id)  # the last seat left: the race goes
            race.leave(player.id)
            self._settled(player.id, race.id)
            self._cancel(("start", race.id))
            log.info("race %s left by %s", race.id, player.id)
            if race.seats:
                self._announce(race)
                if not self._attended(race):  # the leaver was the last of its players connected
                    when = time.time() + self.config.abandoned_timeout
                    self._schedule(("abandoned", race.id), when, self._abandoned, race)
            else:
                self._forget(race)
                log.info("race %s deleted: no seat left", race.id)
        return m.Ok(id=msg.id)

    async def on_ready(self, conn: Connection, msg: m.Ready) -> Message:
        player = self._player(conn)
        race = self._race(msg.race)
        starts_at = 0.0  # set once the race's lock is held: waiting for it must not shorten the countdown

        def ready(race: Race) -> bool:
            """Set the flag; begin the countdown if every seat is now ready (and say so)."""
            if race.set_ready(player.id, msg.ready) and race.status is Status.OPEN:
                race.begin_countdown(starts_at)
                return True
            return False

        async with self.race_locks[race.id]:
            if self.races.get(race.id) is not race:  # it was deleted or expired while this waited
                raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no race with that id")
            starts_at = time.time() + self.config.countdown
            if await self._change(race, ready):
                self._schedule(("start", race.id), starts_at, self._start, race)
                self._send_seats(race, m.Countdown(race=race.id, starts_in=self.config.countdown))
            elif not msg.ready:
                self._cancel(("start", race.id))
        self._announce(race)
        return m.RaceInfo(id=msg.id, race=race.summary(player.id))

    async def _change(self, race: Race, change: Callable[[Race], Any]) -> Any:
        """Make ``change`` to the race, stored first: to a copy, which is saved, and only then to
        the race itself, so a save that fails changes nothing (it raises, and nothing is sent).

        Under the race's lock; ``change`` must do the same to the copy and to the race, and may
        change the seats and the race's own fields but not the seats' games or logs (which the
        copy shares). Returns what ``change`` returns.
        """
        draft = _draft(race)
        change(draft)
        await self.store.save_race(draft)
        return change(race)

    # --- play ------------------------------------------------------------------------

    async def on_move(self, conn: Connection, msg: m.MakeMove) -> None:
        if list(msg.move) == UNDO:
            raise ProtocolError(ErrorCode.BAD_MOVE, "take a move back with the 'undo' request")
        await self._entry(conn, msg.id, msg.race, msg.seq, list(msg.move))

    async def on_undo(self, conn: Connection, msg: m.Undo) -> None:
        await self._entry(conn, msg.id, msg.race, msg.seq, list(UNDO))

    async def on_concede(self, conn: Connection, msg: m.Concede) -> None:
        await self._entry(conn, msg.id, msg.race, None, CONCEDE.wire())

    async def _entry(self, conn: Connection, request_id: int, race_id: str, seq: int | None, entry: list[Any]) -> None:
        """Check, persist, apply and acknowledge one log entry (a move, an undo or a concession).

        ``seq`` None (a ``concede`` request): the entry goes at the end of the log as it is once
        the seat's lock is held, so it is never a duplicate.

        Under the seat's lock, which :meth:`_finish` takes too: an entry is stored and applied
        before the race ends, or refused (``race_not_running``) and not stored.
        """
        player = self._player(conn)
        race = self._race(race_id)
        index, seen = race.check_entry(player.id, seq, time.time())
        resynced = False
        async with self.locks[(race.id, index)]:
            now = time.time()
            index, seen = race.check_entry(player.id, seq, now)
            seat = race.seats[index]
            seq = seat.seq if seq is None else seq
            if not seen:
                state = race.next_state(index, entry)
                try:
                    await self.store.append(race.id, index, seq, entry, now if state.ended is not None else None)
                except RaceClosed:
                    message = "the race is ending: it takes no more entries"
                    raise ProtocolError(ErrorCode.RACE_NOT_RUNNING, message) from None
                except LogConflict as conflict:
                    # Redis holds entries this node lacks (a write whose reply was lost): take them in.
                    resynced = await self._resync(race, index)
                    if seq >= seat.seq:
                        message = f"the log already holds {conflict.length} entries"
                        raise ProtocolError(ErrorCode.STALE_SEQ, message) from None
                    seen = True
                else:
                    race.record(index, entry, state, now)
            if seen:
                if seat.log[seq] != tuple(entry):
                    raise ProtocolError(ErrorCode.STALE_SEQ, f"entry {seq} is already another move")
                view = race.game.view(seat.state, "player")
                self._acknowledge(
                    conn, m.Ack(id=request_id, race=race.id, seq=seat.seq, view=view, duplicate=True), entry
                )
                if not resynced:
                    return
        if not seen:
            # Acknowledged first: finishing the race waits for Redis again, and the mover need not.
            view = race.game.view(seat.state, "player")
            self._acknowledge(conn, m.Ack(id=request_id, race=race.id, seq=seat.seq, view=view), entry)
        await self._after_entry(race, index, conn)

    async def _resync(self, race: Race, index: int) -> bool:
        """Apply the entries that Redis holds beyond the seat's log in memory; return whether there were any.

        The caller holds the seat's lock. Raises if the stored log does not extend the one in memory.
        """
        seat = race.seats[index]
        stored = await self.store.load_log(race.id, index)
        if [tuple(entry) for entry in stored[: seat.seq]] != seat.log:
            raise RuntimeError(f"race {race.id} seat {index}: the stored log is not the one in memory")
        if len(stored) == seat.seq:
            return False
        finished = await self.store.load_finished(race.id)
        missing = len(stored) - seat.seq
        log.warning("race %s seat %s: taking in %s entries stored but not applied", race.id, index, missing)
        for entry in stored[seat.seq :]:
            state = race.next_state(index, entry)
            race.record(index, entry, state, finished.get(index, time.time()))
        return True

    def _acknowledge(self, conn: Connection, ack: m.Ack, entry: list[Any]) -> None:
        """Send ``ack``; count a move or undo, and how long since its request arrived."""
        conn.send(ack)
        if entry != CONCEDE_WIRE:
            self.metrics.observe_move(time.perf_counter() - conn.frame_started)

    async def _after_entry(self, race: Race, index: int, origin: Connection | None = None) -> None:
        """Tell the other racers (and the mover's other connections), the spectators; finish if all are done."""
        seat = race.seats[index]
        others = [c for s in race.seats for c in self.by_player.get(s.player, ()) if c is not origin]
        if not race.settings.live_boards:  # spectators who see no boards follow the race as racers do
            others += self._spectators(race)
        if others:  # no message is built for nobody: this runs on every move
            self._broadcast(others, m.Progress(race=race.id, **race.progress(index)))
        self._watch(race, index)
        if seat.state.ended is not None:
            self._cancel(("grace", race.id, index))
            if race.all_over():
                await self._finish(race)

    async def on_snapshot(self, conn: Connection, msg: m.Snapshot) -> Message:
        player = self._player(conn)
        race = self._race(msg.race)
        index = race.seat_of(player.id)
        if index is None or race.status in (Status.OPEN, Status.COUNTDOWN):
            return m.SnapshotInfo(id=msg.id, race=race.summary(player.id), seat=index)
        seat = race.seats[index]
        view = race.game.view(seat.state, "player")
        return m.SnapshotInfo(id=msg.id, race=race.summary(player.id), seat=index, seq=seat.seq, view=view)

    async def on_spectate(self, conn: Connection, msg: m.Spectate) -> Message:
        player = self._player(conn)
        race = self._race(msg.race)
        if race.status is Status.RUNNING and race.seat_of(player.id) is not None:
            raise ProtocolError(ErrorCode.FORBIDDEN, "a racer cannot watch their own race while it runs")
        self.watchers[race.id].add(conn)
        conn.watching.add(race.id)
        boards = []
        if race.status in (Status.RUNNING, Status.FINISHED):  # _delayed says which boards spectators may see
            cutoff = time.time() - race.settings.spectator_delay
            for index in range(len(race.seats)):
                shown = self._delayed(race, index, cutoff)
                if shown is not None:
                    seq, state = shown
                    boards.append({"seat": index, "seq": seq, "view": race.game.view(state, "public")})
        return m.Spectating(id=msg.id, race=race.summary(), boards=boards)

    async def on_unspectate(self, conn: Connection, msg: m.Unspectate) -> Message:
        self._unwatch(conn, msg.race)
        return m.Ok(id=msg.id)

    async def on_replay(self, conn: Connection, msg: m.Replay) -> Message:
        """The replay is built once per race: kept in memory with the race, and in Redis for after."""
        race = self.races.get(msg.race)
        if race is not None and race.status is not Status.FINISHED:
            raise ProtocolError(ErrorCode.NOT_FINISHED, "the replay is published when the race ends")
        replay = self.replays.get(msg.race)
        if replay is None:
            task = self.building.get(msg.race)
            if task is None:  # concurrent requests share one build
                task = self.building[msg.race] = asyncio.ensure_future(self._build_replay(msg.race, race))
                task.add_done_callback(lambda _: self.building.pop(msg.race, None))
            replay = await asyncio.shield(task)
        return m.ReplayData(id=msg.id, replay=replay)

    async def _build_replay(self, race_id: str, race: Race | None) -> dict[str, Any]:
        """The replay of a finished race: from memory, else as kept in Redis, else rebuilt from the logs (and kept)."""
        if race is None:
            kept = await self.store.load_replay(race_id)
            if kept is not None:
                return kept
            race = await self.store.load_race(race_id)
            if race is None:
                raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no race with that id")
            if race.status is not Status.FINISHED:
                raise ProtocolError(ErrorCode.NOT_FINISHED, "the replay is published when the race ends")
        replay = replay_of(race)
        self.metrics.replays_built += 1
        if race_id in self.races:
            self.replays[race_id] = replay
        try:
            await self.store.save_replay(race_id, replay)
        except Exception:  # only a cache: the next request builds it again
            log.exception("the replay of race %s was built but not kept in Redis", race_id)
        return replay

    async def on_ping(self, conn: Connection, msg: m.Ping) -> Message:
        return m.Pong(id=msg.id, time=time.time())

    # --- the clock -------------------------------------------------------------------

    async def _start(self, race: Race) -> None:
        """Deal the race and tell its racers: stored first, so a race is never dealt twice.

        If Redis cannot store it, this raises and the timer tries again (the race stays in
        countdown meanwhile, taking no moves) with the same seed and salt: the failed save may
        have reached Redis.
        """
        async with self.race_locks[race.id]:
            if race.status is not Status.COUNTDOWN or self.races.get(race.id) is not race:
                return
            if race.id not in self.draws:
                self.draws[race.id] = (secrets.randbits(SEED_BITS), secrets.token_bytes(16))
            seed, salt = self.draws[race.id]
            now = time.time()
            draft = _draft(race)
            draft.start(now, seed, salt)
            await self.store.save_race(draft)
            race.start(now, seed, salt)
            del self.draws[race.id]
        # A racer may not watch their own live race, even if they watched it before the start:
        # every racer stops watching before any opening board goes out.
        for seat in race.seats:
            for conn in self.by_player.get(seat.player, ()):
                self._unwatch(conn, race.id)
        for index, seat in enumerate(race.seats):
            start = m.Start(
                race=race.id,
                seat=index,
                commitment=race.commitment or "",
                deadline=race.deadline or 0,
                seq=0,
                view=race.game.view(seat.state, "player"),
            )
            self._send_player(seat.player, start)
            if not self.by_player.get(seat.player):
                self._schedule(("grace", race.id, index), time.time() + self.config.grace, self._grace, race, index)
        self._announce(race)
        for index in range(len(race.seats)):
            self._watch(race, index)  # the opening boards, where spectators see boards
        log.info("race %s started", race.id)
        self._schedule(("deadline", race.id), race.deadline or 0, self._deadline, race)
        if race.all_over():
            await self._finish(race)

    async def _deadline(self, race: Race) -> None:
        if race.status is Status.RUNNING:
            await self._finish(race, race.deadline)

    async def _grace(self, race: Race, index: int) -> None:
        """A racer stayed away past the grace period: their game is conceded."""
        seat = race.seats[index]
        if race.status is not Status.RUNNING or self.by_player.get(seat.player):
            return
        async with self.locks[(race.id, index)]:
            now = time.time()
            if seat.state.ended is not None or not race.taking_entries(now):
                return
            entry = CONCEDE.wire()
            state = race.next_state(index, entry)
            try:
                await self.store.append(race.id, index, seat.seq, entry, now)
            except RaceClosed:
                return
            race.record(index, entry, state, now)
        await self._after_entry(race, index)

    async def _finish(self, race: Race, now: float | None = None) -> None:
        """End the race as of ``now`` (default: the present), tell everyone, save it.

        The race stops taking entries at once; then this waits for the entries on their way
        (it takes every seat's lock), closes the race in Redis (no entry can be appended
        after that, from any node) and ranks exactly the stored logs. If Redis cannot be
        reached, the race stays closed and this tries again in ``RETRY`` seconds.

        Telling comes before saving the record: it adds nothing the closed logs do not
        decide, so if the save fails it is tried again, and a restart finishes the race to
        the same results.
        """
        if race.status is Status.FINISHED:
            return
        if race.closed_at is None:
            race.closed_at = time.time() if now is None else now
        self._stop_clock(race)
        async with contextlib.AsyncExitStack() as locked:
            for index in range(len(race.seats)):
                await locked.enter_async_context(self.locks[(race.id, index)])
            if race.status is Status.FINISHED:  # another call finished it meanwhile
                return
            try:
                ended_at, lengths = await self.store.close_race(race.id, len(race.seats), race.closed_at)
                for index, length in enumerate(lengths):
                    if length != race.seats[index].seq:
                        await self._resync(race, index)
            except UNAVAILABLE as error:
                log.warning("race %s: cannot close it (%s); trying again in %s s", race.id, error, RETRY)
                self._schedule(("finish", race.id), time.time() + RETRY, self._finish, race)
                return
            results = race.finish(ended_at)
        for seat in race.seats:
            self._settled(seat.player, race.id)
        end = m.End(
            race=race.id,
            results=results,
            seed=f"{race.seed:x}",
            salt=(race.salt or b"").hex(),
            commitment=race.commitment or "",
        )
        self._send_seats(race, end)
        spectators = self._spectators(race)
        if spectators and not race.settings.live_boards:  # the boards they could not see: now final
            for index, seat in enumerate(race.seats):
                view = race.game.view(seat.state, "public")
                self._broadcast(spectators, m.Watch(race=race.id, seat=index, seq=seat.seq, view=view))
        self._broadcast(spectators, end)
        self._announce(race)
        log.info("race %s finished", race.id)
        self._schedule(("evict", race.id), time.time() + self.config.keep_finished, self._evict, race)
        await self._save_finished(race)

    async def _save_finished(self, race: Race) -> None:
        """Save a finished race's record, trying again every ``RETRY`` seconds while Redis is away."""
        try:
            await self.store.save_race(race)
        except UNAVAILABLE as error:
            log.warning("race %s finished but its record is not saved yet (%s); trying again", race.id, error)
            self._schedule(("save", race.id), time.time() + RETRY, self._save_finished, race)
        except Exception:
            log.exception("race %s finished but its record was not saved; a restart finishes it again", race.id)

    async def _evict(self, race: Race) -> None:
        self._forget(race)

    def _stop_clock(self, race: Race) -> None:
        """Cancel the race's timers of play: its start, deadline, finish retry and grace periods."""
        graces = [("grace", race.id, index) for index in range(len(race.seats))]
        for key in [("start", race.id), ("deadline", race.id), ("finish", race.id), *graces]:
            self._cancel(key)

    def _schedule_open_expiry(self, race: Race) -> None:
        when = (race.joined_at or race.created_at) + self.config.open_timeout
        self._schedule(("open", race.id), when, self._open_expired, race)

    async def _open_expired(self, race: Race) -> None:
        """Nobody joined the race for ``open_timeout``: it expires (in a countdown, once that stops)."""
        async with self.race_locks[race.id]:  # not while a join, leave, ready or start is being stored
            if self.races.get(race.id) is not race:
                return
            if race.status is Status.OPEN:
                await self._expire(race, "nobody joined it for too long")
            elif race.status is Status.COUNTDOWN:
                self._schedule(("open", race.id), max(time.time(), race.starts_at or 0) + 1, self._open_expired, race)

    async def _abandoned(self, race: Race) -> None:
        """None of the race's players came back within ``abandoned_timeout``: it expires."""
        async with self.race_locks[race.id]:  # not while a join, leave, ready or start is being stored
            waiting = race.status in (Status.OPEN, Status.COUNTDOWN)
            if self.races.get(race.id) is race and waiting and not self._attended(race):
                await self._expire(race, "none of its players is connected")

    async def _expire(self, race: Race, why: str) -> None:
        """Remove a race that will not be played: delete it from Redis first (if Redis cannot be
        reached this raises, nothing changes and the timer tries again), then tell its players
        and spectators and forget it."""
        await self.store.delete_race(race.id)
        log.info("race %s expired: %s", race.id, why)
        race.status = Status.EXPIRED
        self._announce(race)
        self.metrics.races_expired += 1
        self._forget(race)

    def _attended(self, race: Race) -> bool:
        """Whether any seated player of the race has a connection."""
        return any(self.by_player.get(seat.player) for seat in race.seats)

    def _race_of_code(self, conn: Connection, text: str) -> str | None:
        """The id of the race with join code ``text``; wrong codes cost the guesser (player and address)."""
        code = read_code(text)
        if code is None:  # no join code looks like this: not a guess
            return None
        player, address, now = self._player(conn).id, conn.address, time.monotonic()
        wait = max(self.wrong_codes.wait(player, now), self.wrong_codes.wait(address, now))
        if wait > 0:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many wrong join codes; wait", retry_after=wait)
        race_id = self.codes.get(code)
        if race_id is None:
            self.wrong_codes.failed(player, now)
            self.wrong_codes.failed(address, now)
        return race_id

    def _schedule(self, key: Any, when: float, action: Callable[..., Awaitable[None]], *args: Any) -> None:
        """Run ``action(*args)`` at unix time ``when``, replacing any timer under ``key``.

        A waiting timer is a bare loop handle (no task), so thousands of them cost little;
        once it fires, :meth:`_cancel` no longer stops it.
        """
        self._cancel(key)
        loop = asyncio.get_running_loop()
        self.timers[key] = loop.call_at(loop.time() + max(0.0, when - time.time()), self._fire, key, action, args)

    def _fire(self, key: Any, action: Callable[..., Awaitable[None]], args: tuple[Any, ...]) -> None:
        self.timers.pop(key, None)
        task = asyncio.get_running_loop().create_task(self._run_timer(key, action, args))
        self.running.add(task)
        task.add_done_callback(self.running.discard)

    async def _run_timer(self, key: Any, action: Callable[..., Awaitable[None]], args: tuple[Any, ...]) -> None:
        """Run a timer's action; if Redis could not be reached, run it again in ``RETRY`` seconds."""
        try:
            await action(*args)
        except UNAVAILABLE as error:
            if not self.closing:
                log.warning("timer %s: cannot reach Redis (%s); trying again in %s s", key, error, RETRY)
                self._schedule(key, time.time() + RETRY, action, *args)
        except Exception:
            log.exception("timer %s failed", key)

    def _cancel(self, key: Any) -> None:
        handle = self.timers.pop(key, None)
        if handle is not None:
            handle.cancel()

    # --- helpers ---------------------------------------------------------------------

    def _player(self, conn: Connection) -> Player:
        assert conn.player is not None
        return conn.player

    def _race(self, race_id: str) -> Race:
        race = self.races.get(race_id)
        if race is None:
            raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no race with that id")
        return race

    def _adopt(self, race: Race) -> None:
        self.races[race.id] = race
        self.codes[race.code] = race.id
        if race.settings.public and race.status is not Status.FINISHED:
            bisect.insort(self.listed, (race.created_at, race.id))
        if race.status is not Status.FINISHED:
            for seat in race.seats:
                self.unfinished[seat.player].add(race.id)
        shown_late = race.settings.live_boards and race.settings.spectator_delay > 0
        if race.status in (Status.RUNNING, Status.FINISHED) and shown_late:
            # The boards before it are not known (after a restart): the current one is shown once
            # it is `spectator_delay` old, counted from now, as if it had been reached now.
            for index, seat in enumerate(race.seats):
                self.history[(race.id, index)] = deque([(time.time(), seat.seq, seat.state)])

    def _forget(self, race: Race) -> None:
        """Drop a race from memory (its record stays in Redis: replays load it from there)."""
        self.races.pop(race.id, None)
        self.codes.pop(race.code, None)
        self.watchers.pop(race.id, None)
        self.race_locks.pop(race.id, None)
        self.draws.pop(race.id, None)
        self.replays.pop(race.id, None)
        for key in [("start", race.id), ("open", race.id), ("abandoned", race.id)]:
            self._cancel(key)
        where = bisect.bisect_left(self.listed, (race.created_at, race.id))
        if where < len(self.listed) and self.listed[where] == (race.created_at, race.id):
            del self.listed[where]
        for index, seat in enumerate(race.seats):
            self._settled(seat.player, race.id)
            self.history.pop((race.id, index), None)
            self.locks.pop((race.id, index), None)

    def _settled(self, player: str, race_id: str) -> None:
        """Note that ``player`` has no unfinished seat in ``race_id`` (any more)."""
        races = self.unfinished.get(player)
        if races is not None:
            races.discard(race_id)
            if not races:
                del self.unfinished[player]

    def _unwatch(self, conn: Connection, race_id: str) -> None:
        """Stop ``conn`` watching ``race_id``; nothing is kept for a race nobody watches."""
        conn.watching.discard(race_id)
        watchers = self.watchers.get(race_id)
        if watchers is not None:
            watchers.discard(conn)
            if not watchers:
                del self.watchers[race_id]

    def _check_race_limit(self, player: Player) -> None:
        mine = len(self.unfinished.get(player.id, ()))
        if mine >= self.config.max_races:
            raise ProtocolError(ErrorCode.TOO_MANY_RACES, f"you are already in {mine} races (the limit)")

    def _announce(self, race: Race) -> None:
        """Send every seated player and spectator a ``race_update``, once per connection."""
        for seat in race.seats:
            self._send_player(seat.player, m.RaceUpdate(race=race.summary(seat.player)))
        spectators = self._spectators(race)
        if spectators:
            self._broadcast(spectators, m.RaceUpdate(race=race.summary()))

    def _spectators(self, race: Race) -> list[Connection]:
        """The connections watching ``race`` whose player holds no seat in it: a seated player's
        connections get each event as a racer, so never twice."""
        watchers = self.watchers.get(race.id)
        if not watchers:
            return []
        seated = {seat.player for seat in race.seats}
        return [c for c in watchers if c.player is not None and c.player.id not in seated]

    def _send_seats(self, race: Race, message: Message) -> None:
        for seat in race.seats:
            self._send_player(seat.player, message)

    def _send_player(self, player: str, message: Message) -> None:
        self._broadcast(self.by_player.get(player, ()), message)

    def _broadcast(self, conns: Iterable[Connection], message: Message) -> None:
        sockets = [c.ws for c in conns]
        if sockets:
            broadcast(sockets, encode(message))

    def _watch(self, race: Race, index: int) -> None:
        """Send spectators the seat's new public view, after the race's delay, if the race
        shows live boards (otherwise they get the final boards when it ends).

        A delayed update goes to whoever watches when it falls due, so a spectator who
        arrives during the delay still sees every board after the one it was shown.
        """
        if not race.settings.live_boards:
            return
        seat = race.seats[index]
        seq, state = seat.seq, seat.state
        delay = race.settings.spectator_delay
        if delay > 0:
            now = time.time()
            history = self.history[(race.id, index)]
            history.append((now, seq, state))
            while len(history) > 1 and history[1][0] <= now - delay:  # boards nobody can be shown again
                history.popleft()
        elif not self.watchers.get(race.id):
            return

        def send() -> None:
            watchers = self.watchers.get(race.id)
            if watchers:
                view = race.game.view(state, "public")
                self._broadcast(self._spectators(race), m.Watch(race=race.id, seat=index, seq=seq, view=view))

        if delay <= 0:
            send()
        else:
            asyncio.get_running_loop().call_later(delay, send)

    def _delayed(self, race: Race, index: int, cutoff: float) -> tuple[int, Any] | None:
        """The seat's board a spectator may see: with live boards its latest from no later than
        ``cutoff`` (its current one without a delay); otherwise its final one, once the race is over."""
        seat = race.seats[index]
        if not race.settings.live_boards:
            return (seat.seq, seat.state) if race.status is Status.FINISHED else None
        if race.settings.spectator_delay <= 0:
            return seat.seq, seat.state
        shown = None
        for stamp, seq, state in self.history[(race.id, index)]:
            if stamp > cutoff:
                break
            shown = (seq, state)
        return shown


def _draft(race: Race) -> Race:
    """A copy of ``race`` to try a change on: its own list of seats, copies of the seats
    (sharing their games and logs, which a change before the start does not touch)."""
    return replace(race, seats=[replace(seat) for seat in race.seats])


def _cursor(key: tuple[int, float, str]) -> str:
    """The lobby cursor after the race with order ``key`` (opaque to clients)."""
    return f"{key[0]}:{-key[1]!r}:{key[2]}"


def _read_cursor(text: str) -> tuple[int, float, str]:
    group, _, rest = text.partition(":")
    created, _, race_id = rest.partition(":")
    try:
        key = (int(group), -float(created), race_id)
    except ValueError:
        key = (-1, 0.0, "")
    if key[0] not in (0, 1) or not race_id or key[1] != key[1] or abs(key[1]) == float("inf"):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "lobby: 'after' must be the 'next' of an earlier reply")
    return key


def _address(ws: ServerConnection) -> str:
    """The peer's host and port, for the log."""
    peer = ws.remote_address
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else str(peer)


def replay_of(race: Race) -> dict[str, Any]:
    """Everything needed to verify a finished race: ``parlour verify`` reads this."""
    return {
        "format": REPLAY_FORMAT,
        "race": race.id,
        "game": race.settings.game,
        "options": dict(race.settings.options),
        "seed": f"{race.seed:x}",
        "salt": (race.salt or b"").hex(),
        "commitment": race.commitment or "",
        "started_at": race.started_at,
        "ended_at": race.ended_at,
        "settings": race.settings.to_map(),
        "seats": [
            {"seat": i, "player": s.player, "name": s.name, "bot": s.bot, "log": [list(e) for e in s.log]}
            for i, s in enumerate(race.seats)
        ],
        "results": race.results or [],
    }


__all__ = ["Connection", "Peer", "Server", "replay_of"]
