"""The race server: one node, an asyncio process serving websockets, with its state in Redis.

A thin loop around the sans-I/O pieces: :mod:`parlour.protocol` reads and writes the
frames, :mod:`parlour.server.race` keeps the rules of a race, :mod:`parlour.server.store`
keeps everything in Redis. A move is acknowledged only once its log entry is in Redis,
so a restart loses no acknowledged move. ``GET /healthz`` and ``GET /metrics`` are
served on the same port.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from dataclasses import replace
from http import HTTPStatus
from typing import Any

import msgpack
from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request as HttpRequest
from websockets.http11 import Response as HttpResponse

from parlour.games import CONCEDE, BadOptions, UnknownGame, get_game
from parlour.protocol import ErrorCode, ProtocolError, encode
from parlour.protocol import messages as m
from parlour.protocol.codec import decode_map, message_from_map
from parlour.protocol.messages import PROTOCOL_VERSION, REQUESTS, Message
from parlour.protocol.replay import REPLAY_FORMAT
from parlour.protocol.text import name_problem, plural, printable
from parlour.server.bots import MAX_LISTED, OnlineBot, choose, merge, offer
from parlour.server.bus import Bus
from parlour.server.config import Config
from parlour.server.connection import Connection, close_soon, close_within
from parlour.server.director import LEASE_PREFIX, Director
from parlour.server.limits import Backoff, Buckets, address_of, client_address
from parlour.server.logs import Ids
from parlour.server.metrics import Metrics
from parlour.server.race import CONCEDE_WIRE, SEED_BITS, UNDO, Race, Settings, Status, read_code
from parlour.server.store import UNAVAILABLE, LogConflict, Player, RaceClosed, Store, VersionConflict, decode_race

SERVER_NAME = "parlour/0.1"
log = logging.getLogger("parlour.server")
RETRY = 1.0  # seconds before trying again what Redis could not do (and the retry_after of `unavailable`)
LEASE = 5.0  # seconds a race's lease lasts unless its node renews it: another node then runs its timers
BEAT = 1.0  # seconds between a node's heartbeats (it renews its leases and takes those that ran out)
BOT_LISTING = 2 * LEASE  # seconds a node's list of bots lasts in Redis unless the node writes it again
CONNECTIONS_RETRY_AFTER = 5  # seconds, the Retry-After of a 503 for too many connections

# Wrong join codes (per player and per address) and wrong passwords (per address): 5 are free,
# then each one doubles the wait before the next try, from 1 s up to 5 min; 10 min without one
# forgets them.
GUESSES = {"free": 5, "base": 1.0, "cap": 300.0, "forget": 600.0}


class Server:
    """One server node: its connections, and the races it holds in memory.

    Redis holds the truth and any number of nodes may share it. A node holds in memory the
    races its connections play or watch, kept up to date by the events other nodes publish
    (:mod:`parlour.server.bus`), and the races whose lease it holds, whose timers it runs
    (start, deadline, grace, expiry). A move is applied on the node where its player is
    connected and stored by the append script, the only arbiter; a race-wide change is
    saved over the record's version (compare and set), so each happens once whichever
    nodes try it, and every node then tells its own connections (:meth:`_took`).
    """

    def __init__(self, config: Config, store: Store) -> None:
        self.config = config
        self.store = store
        self.node = store.node
        self.races: dict[str, Race] = {}
        self.loading: dict[str, asyncio.Task[Race | None]] = {}
        self.early: dict[str, list[list[Any]]] = {}  # events of races being loaded, applied once they are
        self.held: set[str] = set()  # races whose lease this node holds: it runs their timers
        self.live_nodes: set[str] = {self.node}
        self.alone = False  # no other node uses this Redis (see run)
        self.connections: set[Connection] = set()
        self.by_player: dict[str, set[Connection]] = defaultdict(set)
        self.watchers: dict[str, set[Connection]] = defaultdict(set)
        self.locks: dict[tuple[str, int], asyncio.Lock] = defaultdict(asyncio.Lock)  # per seat: its entries
        self.race_locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)  # per race: joins, leaves, readies, start
        self.draws: dict[str, tuple[int, bytes]] = {}  # race id -> the seed and salt it will start with
        # Boards of seats in races with a spectator delay, oldest first, from the last one
        # past the delay on: what spectators may still be shown.
        self.history: dict[tuple[str, int], deque[tuple[float, int, Any]]] = defaultdict(deque)
        self.timers: dict[Any, asyncio.TimerHandle] = {}
        self.running: set[asyncio.Task[None]] = set()  # timers that fired and still work, and other chores
        self.metrics = Metrics(self._gauges, self.node)
        self.closing = False
        self.started = asyncio.Event()  # set once the node's first heartbeat is done
        self.replays: dict[str, dict[str, Any]] = {}  # built replays of finished races in memory
        self.building: dict[str, asyncio.Task[dict[str, Any]]] = {}  # replays being rebuilt from the logs
        self.new_identities = Buckets(config.identity_rate, config.identity_burst)  # by address
        self.new_races = Buckets(config.race_rate, config.race_burst)  # by player
        self.wrong_codes = Backoff(**GUESSES)  # by player and by address
        self.wrong_passwords = Backoff(**GUESSES)  # by address
        self.bots: set[str] = set()  # players with a bot connection here that offers games
        self.bots_written = asyncio.Lock()  # one write of this node's bots to Redis at a time
        self.rng = random.Random()  # which of several equally free bots an invitation goes to
        self.bus = Bus(store.redis, store.keys, self.node, self._on_event, self._on_gap, self._on_direct)
        self.lease = LEASE
        self.director = Director(self)
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
            m.Invite: self.on_invite,
            m.Ping: self.on_ping,
            m.TournamentCreate: self.director.on_create,
            m.TournamentJoin: self.director.on_join,
            m.TournamentStart: self.director.on_start,
            m.TournamentWatch: self.director.on_watch,
            m.TournamentUnwatch: self.director.on_unwatch,
            m.TournamentExport: self.director.on_export,
            m.TournamentList: self.director.on_list,
            m.Ratings: self.director.on_ratings,
        }

    # --- start and stop --------------------------------------------------------------

    async def run(self, alone: bool = False) -> None:
        """Take part in the cluster of nodes until cancelled: follow other nodes' events, beat
        once every ``BEAT`` seconds, keep this node's leases and take those that ran out.
        ``alone``: no other node uses this Redis (an embedded one), so this one takes every race
        at once instead of waiting for the leases of its last run to run out, and follows no
        race's channel: no other node publishes there.

        The first beat has happened once :attr:`started` is set. Raises if Redis cannot be
        reached at the start.
        """
        try:
            orphans = await self.store.lease_orphans()
            if orphans:
                log.info("%s had no lease: any node may take them now", plural(orphans, "race"))
            self.alone = alone
            await self.bus.subscribe_node()  # before any bot connects here: invitations for them
            if alone:
                await self._take_every_race()
            while True:
                try:
                    await self._beat()
                except UNAVAILABLE as error:
                    log.warning("cannot reach Redis to renew this node's leases (%s)", error)
                self.started.set()
                await asyncio.sleep(BEAT)
        finally:
            await self.bus.close()

    async def _take_every_race(self) -> None:
        races = await self.store.active_race_ids()
        races += [LEASE_PREFIX + t for t in await self.director.store.active()]
        if races:
            await self.store.take_leases(LEASE, races)
            for race_id in races:
                await self._take_over(race_id, "")

    async def _beat(self) -> None:
        lost, live = await self.store.heartbeat(sorted(self.held), LEASE)
        for race_id in lost:
            log.warning("another node took the lease", extra=Ids(race=race_id))
            self.held.discard(race_id)
            if race_id.startswith(LEASE_PREFIX):
                self.director.lost(race_id.removeprefix(LEASE_PREFIX))
                continue
            race = self.races.get(race_id)
            if race is not None:
                self._stop_clock(race)
                for key in [("open", race_id), ("abandoned", race_id), *self._lapses(race)]:
                    self._cancel(key)
        live = {self.node} if self.alone else live | {self.node}  # alone: earlier runs are dead
        gone = self.live_nodes - live
        self.live_nodes = live
        if gone:
            log.info("nodes gone: %s; checking who is still connected", ", ".join(sorted(gone)))
            for race_id in sorted(self.held):
                race = self.races.get(race_id)
                if race is not None:
                    self._spawn(self._check_presence(race), ("presence", race_id))
        if self.closing:
            return
        for race_id, before in (await self.store.take_leases(LEASE)).items():
            await self._take_over(race_id, before)
        self.director.beat()
        if self.bots:
            await self._list_bots()

    async def _take_over(self, race_id: str, before: str) -> None:
        """Hold a race whose lease this node just took: run its timers from now on, and tell each
        bot it still keeps a seat for of its invitation again (or direct the tournament whose lease
        it is)."""
        if race_id.startswith(LEASE_PREFIX):
            self.held.add(race_id)
            await self.director.take_over(race_id.removeprefix(LEASE_PREFIX))
            return
        race = await self._get(race_id)
        if race is None or race.status is Status.FINISHED:
            await self.store.give_leases([race_id], hand=False)
            return
        self.held.add(race_id)
        if before and before != self.node:
            self.metrics.leases_taken += 1
            log.info("lease taken over from node %s", before, extra=Ids(race=race_id))
        self._plan(race)
        if race.status is Status.OPEN:
            # The node that invited them may have died before telling them (a tournament's director
            # stores a race with its invitations, then tells the entrants): tell them again.
            for invitation in race.invited:
                self._spawn(self._invite_anywhere(invitation.player, race), ("invite", race.id, invitation.player))

    async def shutdown(self) -> None:
        """Hand this node's races to the other nodes, tell every client the server is going
        away and close their connections."""
        self.closing = True
        for handle in self.timers.values():
            handle.cancel()
        self.timers.clear()
        for task in self.running:
            task.cancel()
        try:
            await self.store.give_leases(sorted(self.held), hand=True)
            self.metrics.leases_released += len(self.held)
            if self.held:
                tournaments = sum(1 for key in self.held if key.startswith(LEASE_PREFIX))
                counts = ((len(self.held) - tournaments, "race"), (tournaments, "tournament"))
                held = " and ".join(plural(count, word) for count, word in counts if count)
                if self.alone:
                    log.info("left %s for this node's next start: no other node uses its Redis", held)
                else:
                    log.info("handed %s over to the other nodes", held)
        except UNAVAILABLE as error:  # their leases run out instead
            if self.alone:
                log.warning("cannot give the races' leases up (%s): the next start takes them back anyway", error)
            else:
                log.warning("cannot hand the races over (%s): other nodes take them in %s s", error, LEASE)
        self.held.clear()
        if self.bots:
            try:  # at once, rather than once this node's heartbeat is old
                await self.store.drop_bots()
            except UNAVAILABLE as error:
                log.warning("cannot unlist this node's bots (%s): they drop out in %s s", error, LEASE)
        farewell = m.Error(code=ErrorCode.SHUTTING_DOWN, message="the server is shutting down; reconnect soon")
        self._broadcast(self.connections, farewell)
        closing = [asyncio.create_task(close_within(c.ws, 1001, "server shutting down")) for c in self.connections]
        if closing:
            await asyncio.wait(closing)

    def _gauges(self) -> dict[str, float]:
        by_status: dict[str, int] = defaultdict(int)
        seated: set[str] = set()
        for race in self.races.values():
            by_status[race.status.value] += 1
            if race.status is not Status.FINISHED:
                seated.update(seat.player for seat in race.seats)
        gauges: dict[str, float] = {
            "connections": len(self.connections),
            "players_connected": len(self.by_player),
            "players_seated": len(seated),  # players with a seat in an unfinished race held here
            "races_watched": len(self.watchers),
            "races_held": len(self.held),
            "nodes_live": len(self.live_nodes),
            "bots_connected": len(self.bots),
        }
        for status in Status:
            if status is Status.EXPIRED:  # an expired race leaves memory at once
                continue
            gauges[f"races_{status.value}"] = by_status[status.value]
        return gauges

    # --- http ------------------------------------------------------------------------

    async def process_request(self, connection: ServerConnection, request: HttpRequest) -> HttpResponse | None:
        """Answer ``/healthz`` and ``/metrics``; let websocket upgrades through while fewer than
        ``max_connections`` are open (connections whose handshake is under way are not counted, so
        a burst of them may pass the cap by as many)."""
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
        cap = self.config.max_connections
        if cap and len(self.connections) >= cap:
            self.metrics.connections_refused += 1
            response = connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "too many connections; try again later\n")
            response.headers["Retry-After"] = str(CONNECTIONS_RETRY_AFTER)
            return response
        return None

    # --- the connection loop ---------------------------------------------------------

    async def handle(self, ws: ServerConnection) -> None:
        self.metrics.connections_total += 1
        forwarded = ws.request.headers.get_all("X-Forwarded-For") if ws.request is not None else []
        address = client_address(ws.remote_address, ",".join(forwarded), self.config.trusted_proxies)
        conn = Connection(ws, self.config.rate, self.config.burst, number=self.metrics.connections_total)
        conn.address = address
        self.connections.add(conn)
        via = "" if address == address_of(ws.remote_address) else f" (for {address})"
        log.info("connection opened from %s%s", _address(ws), via, extra=Ids(connection=conn.number))
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
            now = time.monotonic()
            wait = conn.take(now)
            raw = decode_map(frame)
            if type(raw.get("id")) is int:
                request_id = raw["id"]
            if self.closing:  # a connection opened during the shutdown missed the farewell notice
                raise ProtocolError(ErrorCode.SHUTTING_DOWN, "the server is shutting down; reconnect soon")
            if wait is not None:  # refused after reading the id, so the client knows which request
                # Only a frame sent before the wait it was last given counts towards the close: a client
                # that waits each `retry_after` out as told is slowed down, never closed.
                ignored_the_wait = now < conn.retry_at
                conn.retry_at = now + wait
                limited = ProtocolError(ErrorCode.RATE_LIMITED, "too many messages; slow down", retry_after=wait)
                return self._refuse(conn, request_id, limited, counts=ignored_the_wait)
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
            log.exception("request %s failed", request_id, extra=_ids(conn))
            return self._refuse(conn, request_id, ProtocolError(ErrorCode.INTERNAL, "the server failed; try again"))

    def _refuse(self, conn: Connection, request_id: int | None, error: ProtocolError, counts: bool = True) -> bool:
        """Send ``error``; return True if the connection has been refused too much to stay open.

        ``counts``: whether this refusal counts towards that close.
        """
        self.metrics.errors[error.code.value] += 1
        conn.send(m.Error(code=error.code, message=error.message, id=request_id, retry_after=error.retry_after))
        return conn.refuse(time.monotonic()) if counts else False

    def _disconnected(self, conn: Connection) -> None:
        self.connections.discard(conn)
        log.info("connection closed", extra=_ids(conn))
        for race_id in list(conn.watching):
            self._unwatch(conn, race_id)
        for tournament in list(conn.tournaments):
            self.director.unwatch(conn, tournament)
        if conn.player is None:
            return
        peers = self.by_player.get(conn.player.id, set())
        peers.discard(conn)
        if not peers:
            self.by_player.pop(conn.player.id, None)
        if conn.games and not self.closing:  # a node that stops unlists its bots all at once
            self._spawn(self._list_bot(conn.player.id), ("bot", conn.player.id))
        if not self.closing:  # a node that stops hands over all at once
            self._spawn(self._went_away(conn.player.id, last=not peers), ("away", conn.player.id))

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
        games = _offered_games(msg)
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
        live = await self.store.unfinished_races(player.id)
        # Counted last, once nothing can fail: _disconnected (which runs only once this frame is
        # answered) takes the count back for a connection that has a player.
        await self.store.connected(player.id)  # the grace and expiry timers, on any node, ask
        conn.player = player
        self.by_player[player.id].add(conn)
        log.info("connection identified as %s", printable(player.name), extra=_ids(conn))
        if games:
            conn.games, conn.max_races = games, msg.max_races or 1
            self.bots.add(player.id)
            try:  # listed before the welcome: an invitation may follow at once
                await self._list_bot(player.id)
            except UNAVAILABLE as error:  # the next heartbeat lists it
                log.warning("cannot list the bot yet (%s)", error, extra=_ids(conn))
            self._spawn(self._invitations_again(conn), ("invitations", conn.number))
        return m.Welcome(
            id=msg.id,
            player=player.id,
            name=player.name,
            bot=player.bot,
            server=f"{SERVER_NAME} ({self.node})",
            token=token,
            races=live,
            idle_timeout=self.config.idle_timeout or None,
            rate=conn.rate,
            burst=conn.burst,
        )

    async def on_lobby(self, conn: Connection, msg: m.Lobby) -> Message:
        """One page of the lobby, across every node: the player's own unfinished races, then
        the public ones, newest first.

        The order is by the key (0 for the player's own races, 1 for the others; -created_at;
        id), and the cursor names the last key shown, so a page costs its own size, not the
        lobby's.
        """
        player = self._player(conn)
        after = _read_cursor(msg.after) if msg.after is not None else None
        page: list[tuple[tuple[int, float, str], Race]] = []
        if after is None or after[0] == 0:
            mine = await self.store.load_records(await self.store.unfinished_races(player.id))
            for race in sorted(mine, key=lambda r: (-r.created_at, r.id)):
                key = (0, -race.created_at, race.id)
                if race.status is not Status.FINISHED and (after is None or key > after):
                    page.append((key, race))
        before = (-after[1], after[2]) if after is not None and after[0] == 1 else None
        while len(page) <= msg.limit:
            listed = await self.store.listed(before, msg.limit + 1 - len(page))
            if not listed:
                break
            before = listed[-1]
            for race in await self.store.load_records([race_id for _, race_id in listed]):
                if race.status is not Status.FINISHED and race.seat_of(player.id) is None:
                    page.append(((1, -race.created_at, race.id), race))
        shown = page[: msg.limit]
        more = len(page) > msg.limit
        first = msg.after is None
        bots = [bot.listing() for bot in (await self._online_bots())[:MAX_LISTED]] if first else None
        return m.Races(
            id=msg.id,
            races=[race.summary(player.id) for _, race in shown],
            next=_cursor(shown[-1][0]) if more else None,
            bots=bots,
            tournaments=await self.director.lobby() if first else None,
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
        await self._check_race_limit(conn)
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
        # Both first: no stored race is without a lease, and this node hears of every change to it.
        await asyncio.gather(self.store.take_leases(LEASE, [race.id]), self._watch_race(race.id))
        self.held.add(race.id)
        try:
            race.version = await self.store.save_race(race)
        except BaseException:
            self.held.discard(race.id)
            self._spawn(self._unwatch_race(race.id), ("unwatch", race.id))
            raise
        self.new_races.take(player.id, time.monotonic())  # once stored: a create refused as unavailable does not count
        self._adopt(race)
        self._plan(race)
        log.info("race created: %s for %d", game.name, settings.seats, extra=Ids(race=race.id, player=player.id))
        return m.RaceInfo(id=msg.id, race=race.summary(player.id))

    async def on_join(self, conn: Connection, msg: m.Join) -> Message:
        player = self._player(conn)
        race_id = await self._race_of_code(conn, msg.code) if msg.code is not None else msg.race
        race = await self._get(race_id) if race_id else None
        if race is None or (msg.code is None and not await self._may_name(race, player.id)):
            raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no open race with that id or code")
        async with self.race_locks[race.id]:
            if self.races.get(race.id) is not race:  # it was deleted or expired while this waited
                raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no open race with that id or code")
            if race.seat_of(player.id) is None:
                await self._check_race_limit(conn)
                joined_at = time.time()

                def take_seat(race: Race) -> int:
                    seat = race.join(player.id, player.name, player.bot)
                    race.joined_at = joined_at
                    self._tournament_countdown(race, joined_at)
                    return seat

                seat = await self._change(race, take_seat)
                log.info("race joined, seat %d", seat, extra=Ids(race=race.id, player=player.id))
        return m.RaceInfo(id=msg.id, race=race.summary(player.id))

    async def on_leave(self, conn: Connection, msg: m.Leave) -> Message:
        player = self._player(conn)
        race = await self._known(msg.race)
        async with self.race_locks[race.id]:
            if self.races.get(race.id) is not race:  # it was deleted or expired while this waited
                raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no race with that id")
            declined = race.seat_of(player.id) is None and race.invitation_of(player.id) is not None
            now = time.time()

            def leave(race: Race) -> None:
                race.leave(player.id)
                self._tournament_countdown(race, now)

            await self._change(race, leave, gone=(player.id,))
            log.info("invitation declined" if declined else "race left", extra=Ids(race=race.id, player=player.id))
            await self._expire_if_empty(race)
        return m.Ok(id=msg.id)

    async def on_ready(self, conn: Connection, msg: m.Ready) -> Message:
        player = self._player(conn)
        race = await self._known(msg.race)
        if race.tournament is not None:  # its entrants are ready as they join; the race starts without a say
            race.seated(player.id)
            return m.RaceInfo(id=msg.id, race=race.summary(player.id))
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
                self.metrics.countdowns += 1
        return m.RaceInfo(id=msg.id, race=race.summary(player.id))

    async def _change(self, race: Race, change: Callable[[Race], Any], gone: tuple[str, ...] = ()) -> Any:
        """Make ``change`` to the race, stored first, over the version this node holds: to a copy,
        which is saved, and only then to the race itself (:meth:`_took`), so a save that fails
        changes nothing (it raises, and nothing is sent). If another node saved the race
        meanwhile, this node takes its record in and tries ``change`` again on it.

        Under the race's lock; ``change`` may change the seats and the race's own fields but
        not the seats' games or logs (which the copy shares), and may raise ``ProtocolError``.
        A change that leaves no seat deletes the race. ``gone``: players the change unseats.
        Returns what ``change`` returns.
        """
        while True:
            draft = _draft(race)
            result = change(draft)
            try:
                if draft.seats:
                    seated = [seat.player for seat in draft.seats] != [seat.player for seat in race.seats]
                    invited = [(i.player, i.expires_at) for i in draft.invited] != [
                        (i.player, i.expires_at) for i in race.invited
                    ]
                    draft.version = await self.store.save_race(draft, gone, reindex=seated or invited)
                else:
                    await self.store.delete_race(draft, gone)
            except VersionConflict:
                await self._refresh(race)
                if self.races.get(race.id) is not race:
                    raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no race with that id") from None
                continue
            await self._took(race, draft if draft.seats else None)
            return result

    async def _refresh(self, race: Race) -> None:
        """Take in the race's record as Redis has it now (another node saved it)."""
        await self._took(race, await self.store.load_record(race.id))

    async def _took(self, race: Race, new: Race | None, synced: bool = False) -> None:
        """Bring ``race`` up to ``new``, its record as just saved (by this node or another;
        ``None``: deleted), and tell this node's connections what changed. Every race-wide
        change reaches every node's connections through here, once. An older record than
        the one held is ignored.

        ``synced``: the seats' logs in memory are the final ones (else a finished race's
        are read again from Redis first).
        """
        if new is None:
            if self.races.get(race.id) is race and race.status is not Status.EXPIRED:
                race.status = Status.EXPIRED
                self._announce(race)
                self._forget(race)
                self._release(race.id)
            return
        if new.version <= race.version:
            return
        if new.status is Status.FINISHED and race.status is not Status.FINISHED and not synced:
            if race.status in (Status.OPEN, Status.COUNTDOWN):  # its start never reached this node
                race.seats = [replace(seat) for seat in new.seats]
                race.start(new.started_at or 0.0, new.seed, new.salt)
            async with self._all_seats(race):  # the closed logs: read what this node lacks of them
                for index in range(len(race.seats)):
                    await self._resync(race, index)
            if new.version <= race.version:  # taken in meanwhile
                return
        # From here on nothing waits: the race changes all at once.
        before = race.status
        race.version = new.version
        if before in (Status.OPEN, Status.COUNTDOWN):
            race.seats = [replace(seat) for seat in new.seats]
            race.settings = replace(new.settings)  # a tournament's race loses seats given up
        race.starts_at, race.joined_at = new.starts_at, new.joined_at
        race.invited = [replace(invitation) for invitation in new.invited]
        if new.status in (Status.RUNNING, Status.FINISHED) and before in (Status.OPEN, Status.COUNTDOWN):
            if all(seat.state is not None for seat in race.seats):  # this node's own start: dealt already
                race.status, race.started_at, race.deadline = Status.RUNNING, new.started_at, new.deadline
                race.seed, race.salt = new.seed, new.salt
            else:
                race.start(new.started_at or 0.0, new.seed, new.salt)
        if new.status is Status.FINISHED:
            if before is not Status.FINISHED:
                race.finish(new.ended_at or time.time())
                race.results = new.results
                self._ended(race)
            return
        race.status = new.status
        if race.status is Status.COUNTDOWN and before is Status.OPEN:
            starts_in = max(0.0, (race.starts_at or 0.0) - time.time())
            self._send_seats(race, m.Countdown(race=race.id, starts_in=starts_in))
        if race.status is Status.RUNNING and before is not Status.RUNNING:
            self._started(race)
        else:
            self._announce(race)
        if race.id in self.held:
            self._plan(race)

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
        before the race ends, or refused (``race_not_running``) and not stored. The append
        script is the arbiter between nodes: if another node stored this seat's entry first,
        this one is refused (``stale_seq``) and the seat is read again from Redis.
        """
        player = self._player(conn)
        race = self.races.get(race_id) or await self._known(race_id)
        try:
            index, seen = race.check_entry(player.id, seq, time.time())
            behind = False
        except ProtocolError as error:
            if error.code is not ErrorCode.STALE_SEQ:
                raise
            # Beyond the log this node holds: another node may have stored the entries before it.
            seated = race.seat_of(player.id)
            assert seated is not None  # stale_seq comes after not_seated
            index, behind = seated, True
        resynced = False
        async with self.locks[(race.id, index)]:
            if behind:
                resynced = await self._resync(race, index)
            now = time.time()
            index, seen = race.check_entry(player.id, seq, now)
            seat = race.seats[index]
            seq = seat.seq if seq is None else seq
            if not seen:
                state = race.next_state(index, entry)
                try:
                    stored = await self.store.append(
                        race.id, index, seq, entry, now if state.ended is not None else None
                    )
                except RaceClosed:
                    message = "the race is ending: it takes no more entries"
                    raise ProtocolError(ErrorCode.RACE_NOT_RUNNING, message) from None
                except LogConflict as conflict:
                    # Redis holds entries this node lacks (another node's, or a write whose reply
                    # was lost): take them in.
                    resynced = await self._resync(race, index)
                    if seq >= seat.seq:
                        message = f"the log already holds {plural(conflict.length, 'entry', 'entries')}"
                        raise ProtocolError(ErrorCode.STALE_SEQ, message) from None
                    seen = True
                else:
                    race.record(index, entry, state, now)
                    if stored.crossed:
                        self.metrics.events_published += 1
                        if entry != CONCEDE_WIRE:  # counted as moves_total counts
                            self.metrics.moves_crossed += 1
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

    async def _resync(self, race: Race, index: int, tell: bool = False) -> bool:
        """Apply the entries that Redis holds beyond the seat's log in memory; return whether there were any.
        With ``tell``, this node's connections get the seat's `progress` after each one, as for an entry
        made here (the spec promises one for every entry, also when this node missed its event).

        The caller holds the seat's lock. Raises if the stored log does not extend the one in memory.
        """
        seat = race.seats[index]
        stored = await self.store.load_log(race.id, index)
        if [tuple(entry) for entry in stored[: seat.seq]] != seat.log:
            raise RuntimeError(f"race {race.id} seat {index}: the stored log is not the one in memory")
        if len(stored) == seat.seq:
            return False
        finished = await self.store.load_finished(race.id)
        for entry in stored[seat.seq :]:
            state = race.next_state(index, entry)
            race.record(index, entry, state, finished.get(index, time.time()))
            if tell:
                self._progress(race, index, None)
        return True

    def _acknowledge(self, conn: Connection, ack: m.Ack, entry: list[Any]) -> None:
        """Send ``ack``; count a move or undo, and how long since its request arrived."""
        conn.send(ack)
        if entry != CONCEDE_WIRE:
            self.metrics.observe_move(time.perf_counter() - conn.frame_started)

    async def _after_entry(self, race: Race, index: int, origin: Connection | None = None) -> None:
        """Tell this node's racers (but the mover's connection) and spectators; finish if all are done."""
        self._progress(race, index, origin)
        if race.seats[index].state.ended is not None:
            self._cancel(("grace", race.id, index))
            if race.all_over():
                await self._finish(race)

    def _progress(self, race: Race, index: int, origin: Connection | None) -> None:
        """Send this node's connections the seat's progress (and its board, where spectators see boards)."""
        others = [c for s in race.seats for c in self.by_player.get(s.player, ()) if c is not origin]
        if not race.settings.live_boards:  # spectators who see no boards follow the race as racers do
            others += self._spectators(race)
        if others:  # no message is built for nobody: this runs on every move
            self._broadcast(others, m.Progress(race=race.id, **race.progress(index)))
        self._watch(race, index)

    def _on_event(self, race_id: str, event: list[Any]) -> None:
        """An event another node published about a race this node holds (see :mod:`parlour.server.bus`)."""
        self.metrics.events_received += 1
        if race_id in self.loading:
            self.early.setdefault(race_id, []).append(event)
        else:
            self._apply_event(race_id, event)

    def _apply_event(self, race_id: str, event: list[Any]) -> None:
        race = self.races.get(race_id)
        if race is None:
            return
        kind = event[0]
        if kind == "e":
            _, _, index, seq, entry, finished_at = event
            self._remote_entry(race, index, seq, entry, finished_at)
        elif kind == "r":
            _, _, version, record = event
            if version > race.version:
                new = decode_race(msgpack.unpackb(record)) if record else None
                if new is not None:
                    new.version = version
                self._spawn(self._took(race, new), ("record", race_id, version))
        elif kind == "a" and race.id in self.held:
            self._away(race, event[2])

    def _remote_entry(self, race: Race, index: int, seq: int, entry: list[Any], finished_at: float | None) -> None:
        """Apply an entry another node stored (in order: a gap, or this seat busy here, reads the log again)."""
        if race.status is not Status.RUNNING or index >= len(race.seats):
            return
        seat = race.seats[index]
        if seq < seat.seq:
            return  # already applied (read from Redis)
        if seq == seat.seq and not self.locks[(race.id, index)].locked():
            try:
                state = race.next_state(index, entry)
            except ProtocolError:
                message = "seat %d: entry %d from another node does not apply; reading the log"
                log.warning(message, index, seq, extra=Ids(race=race.id))
            else:
                race.record(index, entry, state, finished_at or time.time())
                self._progress(race, index, None)
                self._remote_over(race, index)
                return
        self._spawn(self._catch_up(race, index), ("catch-up", race.id, index))

    async def _catch_up(self, race: Race, index: int) -> None:
        async with self.locks[(race.id, index)]:
            if race.status is Status.RUNNING and await self._resync(race, index, tell=True):
                self._remote_over(race, index)

    async def _catch_up_seats(self, race: Race) -> None:
        for index in range(len(race.seats)):
            await self._catch_up(race, index)

    def _remote_over(self, race: Race, index: int) -> None:
        """After entries another node stored (and this node told of): if the seat's game is over, its grace
        ends, and a race now over is finished here too when this node holds it."""
        if race.seats[index].state.ended is not None:
            self._cancel(("grace", race.id, index))
            if race.all_over() and race.id in self.held:  # the mover's node finishes it too: one wins
                self._spawn(self._finish(race), ("finish", race.id))

    async def _on_gap(self) -> None:
        """Events from other nodes may have been lost: read every race held in memory again."""
        log.warning("events from other nodes may have been lost: reading %s again", plural(len(self.races), "race"))
        for race in list(self.races.values()):
            try:
                # The seats first: a race that finished meanwhile still tells its moves before its end.
                caught_up = race.status is Status.RUNNING
                if caught_up:
                    await self._catch_up_seats(race)
                await self._refresh(race)
                if race.status is Status.RUNNING and not caught_up:
                    await self._catch_up_seats(race)
            except Exception as error:
                log.warning("cannot read the race again (%s)", error, extra=Ids(race=race.id))

    async def on_snapshot(self, conn: Connection, msg: m.Snapshot) -> Message:
        player = self._player(conn)
        race = await self._known(msg.race)
        index = race.seat_of(player.id)
        if index is None or race.status in (Status.OPEN, Status.COUNTDOWN):
            return m.SnapshotInfo(id=msg.id, race=race.summary(player.id), seat=index)
        await self._catch_up(race, index)  # this node's copy of the seat may lag the stored log
        seat = race.seats[index]
        view = race.game.view(seat.state, "player")
        return m.SnapshotInfo(id=msg.id, race=race.summary(player.id), seat=index, seq=seat.seq, view=view)

    async def on_spectate(self, conn: Connection, msg: m.Spectate) -> Message:
        player = self._player(conn)
        race = await self._known(msg.race)
        if race.status is Status.RUNNING and race.seat_of(player.id) is not None:
            raise ProtocolError(ErrorCode.FORBIDDEN, "a racer cannot watch their own race while it runs")
        self.watchers[race.id].add(conn)
        conn.watching.add(race.id)
        # A tournament's boards wait for its end: other tables may still be playing the same deal.
        hidden = race.tournament is not None and not await self.director.finished(race.tournament)
        boards = []
        if race.status in (Status.RUNNING, Status.FINISHED) and not hidden:  # _delayed: which boards they may see
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
        return m.ReplayData(id=msg.id, replay=await self.replay_data(msg.race))

    async def replay_data(self, race_id: str) -> dict[str, Any]:
        """A finished race's replay, built once per race: kept in memory with the race, and in
        Redis for after. ``unknown_race``, or ``not_finished`` before the race ends."""
        race = self.races.get(race_id)
        if race is not None and race.status is not Status.FINISHED:
            raise ProtocolError(ErrorCode.NOT_FINISHED, "the replay is published when the race ends")
        record = race or await self.store.load_record(race_id)
        if record is not None and record.tournament is not None and not await self.director.finished(record.tournament):
            raise ProtocolError(ErrorCode.NOT_FINISHED, "a tournament's races are published when the tournament ends")
        replay = self.replays.get(race_id)
        if replay is None:
            task = self.building.get(race_id)
            if task is None:  # concurrent requests share one build
                task = self.building[race_id] = asyncio.ensure_future(self._build_replay(race_id, race))
                task.add_done_callback(lambda _: self.building.pop(race_id, None))
            replay = await asyncio.shield(task)
        return replay

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
            log.exception("the replay was built but not kept in Redis", extra=Ids(race=race_id))
        return replay

    async def on_ping(self, conn: Connection, msg: m.Ping) -> Message:
        return m.Pong(id=msg.id, time=time.time())

    # --- bots ------------------------------------------------------------------------

    async def on_invite(self, conn: Connection, msg: m.Invite) -> Message:
        """Keep a free seat of the requester's open race for a bot, and tell the bot (on
        whatever node its connections are). Inviting a bot invited already renews the
        invitation and tells it again; inviting a bot seated already changes nothing."""
        player = self._player(conn)
        race = await self._known(msg.race)
        async with self.race_locks[race.id]:
            if self.races.get(race.id) is not race:  # it was deleted or expired while this waited
                raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no race with that id")
            if race.seat_of(player.id) is None:
                raise ProtocolError(ErrorCode.NOT_SEATED, "only a racer seated in the race may invite to it")
            if race.status is not Status.OPEN:
                raise ProtocolError(ErrorCode.RACE_STARTED, "the race has started: it takes no more players")
            bot = choose(await self._online_bots(), msg.bot, race, self.rng)
            if race.seat_of(bot.player) is None:
                expires_at = time.time() + self.config.invite_timeout
                await self._change(race, lambda race: race.invite(bot.player, bot.name, expires_at, player.name))
                self.metrics.invitations += 1
                log.info("bot %s invited", bot.player, extra=Ids(race=race.id, player=player.id))
                await self._send_invitation(bot, race)
        return m.RaceInfo(id=msg.id, race=race.summary(player.id))

    async def _may_name(self, race: Race, player: str) -> bool:
        """Whether ``player`` may join ``race`` by its id: it is public, or they are seated in
        it or invited to it (as the store has it: this node's copy may lag an invitation)."""
        if race.settings.public or race.seat_of(player) is not None or race.invitation_of(player) is not None:
            return True
        await self._refresh(race)
        return race.invitation_of(player) is not None

    async def _online_bots(self) -> list[OnlineBot]:
        """The bots with a connection on a live node, and how busy each is."""
        bots = merge(await self.store.online_bots(self.live_nodes))
        for bot, busy in zip(bots, await self.store.busy([bot.player for bot in bots], time.time()), strict=True):
            bot.busy = busy
        return bots

    def _bot_offer(self, player: str) -> dict[str, Any] | None:
        """What ``player``'s bot connections to this node offer (``None``: they offer nothing)."""
        offering = [conn for conn in self.by_player.get(player, ()) if conn.games]
        if not offering:
            return None
        latest = max(offering, key=lambda conn: conn.number)
        assert latest.player is not None
        games = set().union(*(conn.games for conn in offering))
        return offer(games, max(conn.max_races for conn in offering), latest.player.name)

    async def _list_bot(self, player: str) -> None:
        """Bring this node's entry for ``player`` in Redis up to date with its connections here."""
        async with self.bots_written:
            entry = self._bot_offer(player)
            if entry is not None:
                await self.store.put_bots({player: entry}, BOT_LISTING, every=False)
            else:
                self.bots.discard(player)
                await self.store.drop_bot(player)

    async def _list_bots(self) -> None:
        """Write this node's whole list of bots again (at each heartbeat): it lasts ``BOT_LISTING`` s."""
        async with self.bots_written:
            entries = {}
            for player in list(self.bots):
                entry = self._bot_offer(player)
                if entry is None:
                    self.bots.discard(player)
                else:
                    entries[player] = entry
            await self.store.put_bots(entries, BOT_LISTING, every=True)

    async def _send_invitation(self, bot: OnlineBot, race: Race) -> None:
        """Send the bot its invitation to ``race``: on this node, or through the nodes its connections are on."""
        await self._deliver_anywhere(bot.player, _invitation(race, bot.player), bot.nodes)

    async def _invite_anywhere(self, player: str, race: Race) -> None:
        """Send ``player`` their invitation to ``race`` on every live node they are connected to."""
        nodes = await self.store.live_nodes_of(player, self.live_nodes)
        await self._deliver_anywhere(player, _invitation(race, player), nodes)

    async def _deliver_anywhere(self, player: str, event: m.Invitation, nodes: Iterable[str]) -> None:
        for node in nodes:
            if node == self.node:
                self._deliver_invitation(player, event)
            else:
                await self.store.send_to_node(node, ["i", self.node, player, event.to_wire()])
                self.metrics.events_published += 1

    async def _tell_nodes(self, event: list[Any]) -> None:
        """Send ``event`` to every live node's own channel (this node's at once)."""
        for node in sorted(self.live_nodes):
            if node == self.node:
                self._on_direct(event)
            else:
                await self.store.send_to_node(node, event)
                self.metrics.events_published += 1

    async def _invitations_again(self, conn: Connection) -> None:
        """Send a bot connection that just said hello the invitations still pending for its player
        (made while it was away, or told to a connection that is gone), after the welcome."""
        player = self._player(conn)
        now = time.time()
        for race in await self.store.load_records(await self.store.invitations(player.id, now)):
            invitation = race.invitation_of(player.id)
            if invitation is None or invitation.expires_at <= now or race.status is not Status.OPEN:
                continue  # taken, declined or lapsed meanwhile
            if race.settings.game in conn.games or race.tournament is not None:
                conn.send(_invitation(race, player.id))

    def _on_direct(self, event: list[Any]) -> None:
        """An event another node sent to this node's own channel (see :mod:`parlour.server.bus`)."""
        self.metrics.events_received += 1
        if event[0] == "i":
            _, _, player, wire = event
            self._deliver_invitation(player, m.Invitation.from_wire(wire))  # type: ignore[arg-type]
        elif event[0] == "t":
            _, tournament, summary = event
            self.director.deliver(tournament, summary)

    def _deliver_invitation(self, player: str, invitation: m.Invitation) -> None:
        """Send ``invitation`` to ``player``'s connections here that offer its game (a tournament's:
        to every connection of theirs)."""
        game = invitation.race.get("game")
        to = [c for c in self.by_player.get(player, ()) if invitation.tournament or game in c.games]
        self._broadcast(to, invitation)

    async def _lapse(self, race: Race, player: str) -> None:
        """``player``'s invitation to ``race`` was not taken in time: it lapses (unless renewed)."""
        async with self.race_locks[race.id]:  # not while a join, leave, ready or start is being stored
            if self.races.get(race.id) is not race:
                return

            def lapse(race: Race) -> None:
                now = time.time()
                if not race.lapse(player, now):
                    raise _Unchanged
                self._tournament_countdown(race, now)

            try:
                await self._change(race, lapse, gone=(player,))
            except _Unchanged:  # taken, declined or renewed meanwhile
                return
            log.info("invitation of %s lapsed", player, extra=Ids(race=race.id))
            await self._expire_if_empty(race)

    def _tournament_countdown(self, race: Race, now: float) -> None:
        """In a tournament's race, begin the countdown once every entrant still expected is seated
        (they are ready as they join): at once if they are all bots."""
        if race.tournament is not None and race.status is Status.OPEN and race.all_ready():
            wait = 0.0 if all(seat.bot for seat in race.seats) else self.config.countdown
            race.begin_countdown(now + wait)

    async def _expire_if_empty(self, race: Race) -> None:
        """A tournament's race that every entrant gave up (or let lapse) expires: all forfeit."""
        if race.tournament is not None and race.settings.seats == 0 and self.races.get(race.id) is race:
            await self._expire(race, "every entrant gave up the seat")

    def _lapses(self, race: Race) -> list[tuple[str, str, str]]:
        """The keys of the race's invitation timers."""
        return [("lapse", race.id, invitation.player) for invitation in race.invited]

    # --- the clock: on the node that holds the race's lease ---------------------------

    def _plan(self, race: Race) -> None:
        """Set the race's timers as its status asks (this node holds its lease), the grace
        periods and the expiry of its absent players' races included."""
        if not race.seats or not all(self.by_player.get(seat.player) for seat in race.seats):
            self._spawn(self._check_presence(race), ("presence", race.id))  # else every player is here
        if race.status is Status.OPEN:
            self._cancel(("start", race.id))
            self._schedule_open_expiry(race)
            for invitation in race.invited:
                key = ("lapse", race.id, invitation.player)
                self._schedule(key, invitation.expires_at, self._lapse, race, invitation.player)
        elif race.status is Status.COUNTDOWN:
            self._schedule(("start", race.id), race.starts_at or time.time(), self._start, race)
        elif race.status is Status.RUNNING:
            self._cancel(("start", race.id))
            for key in [("open", race.id), ("abandoned", race.id)]:
                self._cancel(key)
            now = time.time()
            if race.closed_at is not None:  # it stopped taking entries, on this node or before a crash
                self._schedule(("finish", race.id), now, self._finish, race, race.closed_at)
            elif race.all_over():  # it ended when its last game did
                ended = max(seat.finished_at or now for seat in race.seats)
                self._schedule(("finish", race.id), now, self._finish, race, ended)
            else:
                self._schedule(("deadline", race.id), race.deadline or now, self._deadline, race)

    async def _check_presence(self, race: Race) -> None:
        """Start the grace period of each racer, or the expiry of a waiting race, whose players
        have no connection on any live node (unless one runs already)."""
        if race.status is Status.RUNNING:
            for index, seat in enumerate(race.seats):
                key = ("grace", race.id, index)
                if seat.state.ended is None and key not in self.timers and not await self._online(seat.player):
                    self._schedule(key, time.time() + self.config.grace, self._grace, race, index)
        elif race.status in (Status.OPEN, Status.COUNTDOWN):
            waiting = ("abandoned", race.id) not in self.timers
            if waiting and not await self._attended(race):
                when = time.time() + self.config.abandoned_timeout
                self._schedule(("abandoned", race.id), when, self._abandoned, race)

    def _away(self, race: Race, player: str) -> None:
        """``player`` lost their last connection to some node: their grace period (or the
        race's abandonment) starts now; when it ends, the timer asks whether they came back."""
        index = race.seat_of(player)
        if index is None:
            return
        now = time.time()
        if race.status is Status.RUNNING and race.seats[index].state.ended is None:
            self._schedule(("grace", race.id, index), now + self.config.grace, self._grace, race, index)
        elif race.status in (Status.OPEN, Status.COUNTDOWN):
            self._schedule(("abandoned", race.id), now + self.config.abandoned_timeout, self._abandoned, race)

    async def _went_away(self, player: str, last: bool) -> None:
        """A connection of ``player`` to this node closed: count it; if it was their ``last``
        here, tell the nodes that hold the player's races (their grace periods start)."""
        await self.store.disconnected(player)
        if not last:
            return
        for race_id in await self.store.unfinished_races(player):
            race = self.races.get(race_id)
            if race is not None and race_id in self.held:
                self._away(race, player)
            else:
                await self.store.publish_away(race_id, player)
                self.metrics.events_published += 1

    async def _online(self, player: str) -> bool:
        """Whether ``player`` has a connection to any live node."""
        return bool(self.by_player.get(player)) or await self.store.online(player, self.live_nodes)

    async def _attended(self, race: Race) -> bool:
        """Whether any seated player of the race has a connection to any live node."""
        for seat in race.seats:
            if await self._online(seat.player):
                return True
        return False

    async def _start(self, race: Race) -> None:
        """Deal the race: stored first (over the record's version), so a race is dealt once,
        whichever nodes try; every node then tells its own racers (:meth:`_took`).

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
            draft = _draft(race)
            draft.start(time.time(), seed, salt)
            try:
                draft.version = await self.store.save_race(draft, reindex=False)
            except VersionConflict:
                del self.draws[race.id]
                await self._refresh(race)
                return
            del self.draws[race.id]
            self.metrics.races_started += 1
            await self._took(race, draft)

    def _started(self, race: Race) -> None:
        """Tell this node's racers and spectators that the race started."""
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
        self._announce(race)
        for index in range(len(race.seats)):
            self._watch(race, index)  # the opening boards, where spectators see boards
        log.info("race started", extra=Ids(race=race.id))

    async def _deadline(self, race: Race) -> None:
        if race.status is Status.RUNNING:
            await self._finish(race, race.deadline, deadline=True)

    async def _grace(self, race: Race, index: int) -> None:
        """A racer stayed away past the grace period: their game is conceded."""
        seat = race.seats[index]
        if race.status is not Status.RUNNING or await self._online(seat.player):
            return
        async with self.locks[(race.id, index)]:
            await self._resync(race, index)  # their last moves may have been made on another node
            now = time.time()
            if seat.state.ended is not None or not race.taking_entries(now):
                return
            entry = CONCEDE.wire()
            state = race.next_state(index, entry)
            try:
                await self.store.append(race.id, index, seat.seq, entry, now)
            except (RaceClosed, LogConflict):  # the race ended, or a move came in: not away after all
                return
            race.record(index, entry, state, now)
        await self._after_entry(race, index)

    async def _finish(self, race: Race, now: float | None = None, deadline: bool = False) -> None:
        """End the race as of ``now`` (default: the present), save it, tell everyone.

        The race stops taking entries at once; then this waits for the entries on their way
        (it takes every seat's lock), closes the race in Redis (no entry can be appended
        after that, from any node), ranks exactly the stored logs and saves the results over
        the record's version: if another node finished it first, its record is taken in
        (the same results: the closed logs decide them). If Redis cannot be reached, the race
        stays closed and this tries again in ``RETRY`` seconds.
        """
        if race.status is Status.FINISHED:
            return
        if race.closed_at is None:
            race.closed_at = time.time() if now is None else now
        self._stop_clock(race)
        async with self._all_seats(race):
            if race.status is Status.FINISHED:  # another call finished it meanwhile
                return
            try:
                ended_at, lengths = await self.store.close_race(race.id, len(race.seats), race.closed_at)
                for index, length in enumerate(lengths):
                    if length != race.seats[index].seq:
                        await self._resync(race, index)
                draft = _draft(race)
                draft.finish(ended_at)
                draft.version = await self.store.save_race(draft)
            except UNAVAILABLE as error:
                log.warning("cannot close the race (%s); trying again in %s s", error, RETRY, extra=Ids(race=race.id))
                self._schedule(("finish", race.id), time.time() + RETRY, self._finish, race, None, deadline)
                return
            except VersionConflict:
                draft = None
        if draft is None:
            await self._refresh(race)
            return
        self.metrics.races_finished += 1
        if deadline:
            self.metrics.deadlines += 1
        await self._took(race, draft, synced=True)

    def _ended(self, race: Race) -> None:
        """Tell this node's racers and spectators the results; forget the race in a while.

        A tournament's race keeps its seed and boards until the tournament ends: other tables
        may still be playing the same deal."""
        hidden = race.tournament is not None
        end = m.End(
            race=race.id,
            results=race.results or [],
            seed="" if hidden else f"{race.seed:x}",
            salt="" if hidden else (race.salt or b"").hex(),
            commitment=race.commitment or "",
        )
        self._send_seats(race, end)
        spectators = self._spectators(race)
        if spectators and not race.settings.live_boards and not hidden:  # the boards they could not see: now final
            for index, seat in enumerate(race.seats):
                view = race.game.view(seat.state, "public")
                self._broadcast(spectators, m.Watch(race=race.id, seat=index, seq=seat.seq, view=view))
        self._broadcast(spectators, end)
        self._announce(race)
        self._stop_clock(race)
        self._release(race.id)
        log.info("race finished", extra=Ids(race=race.id))
        self.director.race_ended(race)
        self._schedule(("evict", race.id), time.time() + self.config.keep_finished, self._evict, race)

    def _release(self, race_id: str) -> None:
        """Give up the lease of a race that is over."""
        if race_id in self.held:
            self.held.discard(race_id)
            self._spawn(self.store.give_leases([race_id], hand=False), ("release", race_id))

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
            if self.races.get(race.id) is race and waiting and not await self._attended(race):
                await self._expire(race, "none of its players is connected")

    async def _expire(self, race: Race, why: str) -> None:
        """Remove a race that will not be played: delete it from Redis first, over the version
        held (if Redis cannot be reached this raises, nothing changes and the timer tries again;
        if another node changed the race meanwhile, its change is taken in and the timers set
        again), then tell its players and spectators and forget it."""
        try:
            await self.store.delete_race(race)
        except VersionConflict:
            await self._refresh(race)
            return
        log.info("race expired: %s", why, extra=Ids(race=race.id))
        self.metrics.races_expired += 1
        await self._took(race, None)

    async def _race_of_code(self, conn: Connection, text: str) -> str | None:
        """The id of the race with join code ``text``; wrong codes cost the guesser (player and address)."""
        code = read_code(text)
        if code is None:  # no join code looks like this: not a guess
            return None
        player, address, now = self._player(conn).id, conn.address, time.monotonic()
        wait = max(self.wrong_codes.wait(player, now), self.wrong_codes.wait(address, now))
        if wait > 0:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many wrong join codes; wait", retry_after=wait)
        race_id = await self.store.race_by_code(code)
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

    async def _known(self, race_id: str) -> Race:
        """The race, from memory or else from Redis; ``unknown_race`` if there is none."""
        race = self.races.get(race_id) or await self._get(race_id)
        if race is None:
            raise ProtocolError(ErrorCode.UNKNOWN_RACE, "no race with that id")
        return race

    async def _get(self, race_id: str) -> Race | None:
        """The race held in memory, or else read from Redis and held from now on (this node
        then follows its events); ``None`` if there is no such race, or it finished more than
        ``keep_finished`` seconds ago (its replay stays in Redis).

        A race that cannot be rebuilt from Redis is logged, set aside (its keys stay in Redis,
        listed in ``races:broken``) and reported as ``None``.
        """
        race = self.races.get(race_id)
        if race is not None:
            return race
        task = self.loading.get(race_id)
        if task is None:  # concurrent requests share one load
            task = self.loading[race_id] = asyncio.ensure_future(self._load(race_id))
            task.add_done_callback(lambda _: self.loading.pop(race_id, None))
        return await asyncio.shield(task)

    async def _load(self, race_id: str) -> Race | None:
        # Follow its events first, so that nothing stored after the read below is missed: what
        # arrives meanwhile waits in `early` and is applied once the race is held.
        await self._watch_race(race_id)
        try:
            race = await self.store.load_race(race_id)
        except UNAVAILABLE:
            self.early.pop(race_id, None)
            await self._unwatch_race(race_id)
            raise
        except Exception as error:
            self.early.pop(race_id, None)
            await self._unwatch_race(race_id)
            if await self.store.set_aside(race_id):  # once: a race set aside before is not news
                why = f"{type(error).__name__}: {error}"
                log.error("race cannot be recovered, set aside: %s", why, extra=Ids(race=race_id))
            return None
        gone = race is not None and race.status is Status.FINISHED
        if gone and (race.ended_at or 0.0) + self.config.keep_finished <= time.time():
            race = None  # past the time a finished race is held (its replay is still there)
        if race is None:
            self.early.pop(race_id, None)
            await self._unwatch_race(race_id)
            return None
        held = self.races.get(race_id)
        if held is not None:  # created on this node while this read it (a tournament's race): one copy only
            self.loading.pop(race_id, None)
            for event in self.early.pop(race_id, []):
                self._apply_event(race_id, event)
            return held
        self._adopt(race)
        if race.status is Status.FINISHED:
            when = (race.ended_at or time.time()) + self.config.keep_finished
            self._schedule(("evict", race.id), when, self._evict, race)
        self.loading.pop(race_id, None)
        for event in self.early.pop(race_id, []):
            self._apply_event(race_id, event)
        return race

    async def _watch_race(self, race_id: str) -> None:
        """Follow a race's events from other nodes (before this node reads it). Alone (see
        :meth:`run`) there are none to follow: Redis only notes that this node holds the race."""
        if self.alone:
            await self.store.watch_race(race_id)
        else:
            await asyncio.gather(self.bus.subscribe(race_id), self.store.watch_race(race_id))

    async def _unwatch_race(self, race_id: str) -> None:
        await self.store.unwatch_race(race_id)
        await self.bus.unsubscribe(race_id)  # nothing to do where it was not subscribed

    def _adopt(self, race: Race) -> None:
        self.races[race.id] = race
        shown_late = race.settings.live_boards and race.settings.spectator_delay > 0
        if race.status in (Status.RUNNING, Status.FINISHED) and shown_late:
            # The boards before it are not known (read from Redis): the current one is shown once
            # it is `spectator_delay` old, counted from now, as if it had been reached now.
            for index, seat in enumerate(race.seats):
                self.history[(race.id, index)] = deque([(time.time(), seat.seq, seat.state)])

    def _forget(self, race: Race) -> None:
        """Drop a race from memory (its record stays in Redis: replays load it from there)."""
        if self.races.get(race.id) is race:
            del self.races[race.id]
            self._spawn(self._unwatch_race(race.id), ("unwatch", race.id))
        self.watchers.pop(race.id, None)
        self.race_locks.pop(race.id, None)
        self.draws.pop(race.id, None)
        self.replays.pop(race.id, None)
        for key in [("start", race.id), ("open", race.id), ("abandoned", race.id), *self._lapses(race)]:
            self._cancel(key)
        for index in range(len(race.seats)):
            self.history.pop((race.id, index), None)
            self.locks.pop((race.id, index), None)

    @contextlib.asynccontextmanager
    async def _all_seats(self, race: Race) -> AsyncIterator[None]:
        """Hold every seat's lock of the race: no entry of this node is on its way meanwhile."""
        async with contextlib.AsyncExitStack() as locked:
            for index in range(len(race.seats)):
                await locked.enter_async_context(self.locks[(race.id, index)])
            yield

    def _spawn(self, work: Coroutine[Any, Any, Any], key: Any) -> None:
        """Run ``work`` in the background; a failure is logged under ``key`` (Redis away: a warning)."""
        task = asyncio.get_running_loop().create_task(self._chore(key, work))
        self.running.add(task)
        task.add_done_callback(self.running.discard)

    async def _chore(self, key: Any, work: Coroutine[Any, Any, Any]) -> None:
        try:
            await work
        except UNAVAILABLE as error:
            log.warning("%s: cannot reach Redis (%s)", key, error)
        except Exception:
            log.exception("%s failed", key)

    def _unwatch(self, conn: Connection, race_id: str) -> None:
        """Stop ``conn`` watching ``race_id``; nothing is kept for a race nobody watches."""
        conn.watching.discard(race_id)
        watchers = self.watchers.get(race_id)
        if watchers is not None:
            watchers.discard(conn)
            if not watchers:
                del self.watchers[race_id]

    async def _check_race_limit(self, conn: Connection) -> None:
        """Refuse a new seat to a player with ``max_races`` unfinished races already (a bot
        connection that offers more races at once may take that many)."""
        mine = await self.store.count_races(self._player(conn).id)
        if mine >= max(self.config.max_races, conn.max_races):
            raise ProtocolError(ErrorCode.TOO_MANY_RACES, f"you are already in {plural(mine, 'race')} (the limit)")

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


def _invitation(race: Race, player: str) -> m.Invitation:
    """The invitation event telling ``player`` of the seat ``race`` keeps for them."""
    invitation = race.invitation_of(player)
    assert invitation is not None
    return m.Invitation(
        race=race.summary(player),
        by=invitation.by,
        expires_at=invitation.expires_at,
        seed=invitation.seed,
        tournament=race.tournament,
        max_moves=race.max_moves,
    )


def _draft(race: Race) -> Race:
    """A copy of ``race`` to try a change on: copies of its settings (a tournament's race loses
    a seat when an entrant gives it up), of the seats (sharing their games and logs, which a
    change before the start does not touch) and of the invitations."""
    return replace(
        race,
        settings=replace(race.settings),
        seats=[replace(seat) for seat in race.seats],
        invited=[replace(i) for i in race.invited],
    )


class _Unchanged(Exception):
    """Raised by a change that finds nothing to do: :meth:`Server._change` then saves nothing."""


def _offered_games(msg: m.Hello) -> frozenset[str]:
    """The games a hello offers to play as a bot (none: not offered); ``bad_message`` or
    ``unknown_game`` if the offer is not one."""
    if msg.games is None:
        if msg.max_races is not None:
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "hello: 'max_races' goes with 'games'")
        return frozenset()
    if not msg.bot:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "hello: only a bot offers 'games': say 'bot': true")
    try:
        return frozenset(get_game(name).name for name in msg.games)
    except UnknownGame as error:
        raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"hello: {error}") from None


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


def _ids(conn: Connection) -> Ids:
    """The ids of a connection's log lines: the connection's, and its player's once known."""
    if conn.player is None:
        return Ids(connection=conn.number)
    return Ids(connection=conn.number, player=conn.player.id)


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


__all__ = ["Server", "replay_of"]
