"""``parlour serve``: start Redis (embedded unless a URL is given), the server, and stop cleanly.

On start the server prints one line, ``parlour: listening on ws://HOST:PORT``, once it
accepts connections (with ``--port 0`` the line names the port it got). SIGTERM and
SIGINT stop it: clients are told, connections close, Redis stops if it is embedded.

The embedded Redis is supervised: if its process dies, the server logs it and starts a
new one on the same data (it reloads the append-only file), and requests meanwhile get
``unavailable``. If that fails, or it died ``MAX_DEATHS`` times within ``DEATH_WINDOW``
seconds, the server prints one line saying so and exits with status 1.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import secrets
import signal
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.connection import parse_url
from redis.exceptions import RedisClusterException, RedisError
from websockets.asyncio.server import serve

from parlour.server.app import Server
from parlour.server.config import Config
from parlour.server.connection import CLOSE_TIMEOUT, Peer
from parlour.server.embedded_redis import EmbeddedRedis, EmbeddedRedisError, default_data_dir
from parlour.server.logs import announce, announce_error, configure
from parlour.server.store import UNAVAILABLE, Store, TooOld

# The cyclic collector's thresholds (CPython's default: 700, 10, 10). Nearly everything a move
# allocates is freed by reference counting, yet every 700 allocations a young pass ran, and the
# passes over the older generations grew with the races and connections held: with 1,000 racers
# the defaults cost about 15% of the moves a second (bench/README.md, "Server hot path"). A young
# pass every 50,000 allocations leaves at most that many objects' worth of cyclic garbage waiting.
GC_THRESHOLDS = (50_000, 20, 100)

log = logging.getLogger("parlour.server")
SUPERVISE_EVERY = 0.2  # seconds between two checks that the embedded Redis still runs
MAX_DEATHS = 5  # deaths of the embedded Redis within DEATH_WINDOW seconds before the server gives up
DEATH_WINDOW = 60.0
CONNECT_TIMEOUT = 5.0  # seconds to connect to Redis (redis-py's default, kept where its socket timeout is off)


class RedisLost(Exception):
    """The embedded Redis died and could not be brought back: the server must stop."""


class BadRedisUrl(ValueError):
    """A Redis URL the server cannot use, found before anything starts (the message says why)."""


class CannotReachRedis(Exception):
    """The Redis did not answer at the start, or not as a Redis: the message names its URL and the cause."""


def check_redis_url(url: str | None, cluster: bool) -> None:
    """Raise `BadRedisUrl` unless the server can connect by ``url`` (``None``: the embedded Redis):
    a ``redis://``, ``rediss://`` or ``unix://`` URL redis-py reads, and with ``cluster`` (a node of a
    Redis Cluster) a ``redis://`` or ``rediss://`` one, since the embedded Redis is no cluster and
    redis-py's cluster client takes no unix socket. Nothing is connected to."""
    if url is None:
        if cluster:
            raise BadRedisUrl("--redis-cluster needs --redis-url, a node of the cluster: the embedded Redis is none")
        return
    try:
        parse_url(url)
    except ValueError as error:
        raise BadRedisUrl(f"--redis-url {shown_url(url)!r}: {error}") from None
    if cluster and urlsplit(url).scheme == "unix":
        raise BadRedisUrl(f"--redis-cluster needs a redis:// or rediss:// URL, not {shown_url(url)!r}")


async def supervise(embedded: EmbeddedRedis) -> None:
    """Restart the embedded Redis whenever its process dies; raise `RedisLost` if that fails."""
    deaths: deque[float] = deque()
    while True:
        await asyncio.sleep(SUPERVISE_EVERY)
        if embedded.alive():
            continue
        now = time.monotonic()
        deaths.append(now)
        while deaths[0] < now - DEATH_WINDOW:
            deaths.popleft()
        if len(deaths) >= MAX_DEATHS:
            died = f"the embedded Redis died {len(deaths)} times in {DEATH_WINDOW:.0f} s; see {embedded.log_path}"
            raise RedisLost(died)
        log.error("the embedded Redis (pid %s) died; starting it again on %s", embedded.pid, embedded.data_dir)
        try:
            await asyncio.to_thread(embedded.restart)
        except EmbeddedRedisError as error:
            first = str(error).splitlines()[0]
            failed = f"the embedded Redis died and did not start again: {first}; see {embedded.log_path}"
            raise RedisLost(failed) from None
        log.warning("the embedded Redis runs again (pid %s), on the same data", embedded.pid)


Beside = Callable[[str, int], Coroutine[None, None, None]]

FILE_RESERVE = 256  # open files the server needs beside its connections: Redis, logs, the listening socket


def raise_file_limit(connections: int) -> int | None:
    """Raise this process's soft open-file limit (up to the hard one) to fit ``connections`` sockets and
    :data:`FILE_RESERVE`; return the soft limit if it is still too low, else ``None`` (also for no cap,
    0, and where there is no such limit)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + FILE_RESERVE
    if connections <= 0 or soft == resource.RLIM_INFINITY or soft >= wanted:
        return None
    raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if raised > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    return soft if soft < wanted else None


async def connect(config: Config, redis_url: str) -> Store:
    """The store on the Redis at ``redis_url``, once it answered; raise `CannotReachRedis` if it does not
    answer, or not as a Redis (`TooOld` if it is older than the server needs)."""
    client: aioredis.Redis | RedisCluster
    batches: aioredis.Redis | None = None  # on a Cluster the batches go by slot, through the cluster client
    name = f"parlour:{config.node}"  # what CLIENT LIST shows of this node's connections
    try:
        if config.redis_cluster:
            client = RedisCluster.from_url(redis_url, max_connections=64, client_name=name)
        else:
            # A blocking pool: when every connection is busy, wait for one instead of failing.
            pool = aioredis.BlockingConnectionPool.from_url(redis_url, max_connections=64, timeout=20, client_name=name)
            client = aioredis.Redis(connection_pool=pool)
            # The write batches (one at a time) on a connection of their own, which the store bounds itself.
            batches = aioredis.Redis.from_url(
                redis_url, client_name=name, socket_timeout=None, socket_connect_timeout=CONNECT_TIMEOUT
            )
        store = Store(client, config.redis_prefix, config.node, batches)
        await store.ping()
        await store.check_version()
    except (RedisError, RedisClusterException) as error:
        raise CannotReachRedis(f"cannot reach Redis at {shown_url(redis_url)}: {error}") from None
    return store


async def serve_forever(
    config: Config, redis_url: str, embedded: EmbeddedRedis | None = None, beside: Beside | None = None
) -> None:
    """Serve until SIGTERM or SIGINT; raise `RedisLost` if ``embedded`` (supervised) cannot be kept running.

    ``beside(host, port)`` is started once the server listens and cancelled once it has shut down
    (``parlour serve --house-bots`` runs its bots so)."""
    store = await connect(config, redis_url)
    server = Server(config, store)
    # With a Redis of its own, no other node can hold its races.
    running = asyncio.create_task(server.run(alone=embedded is not None))
    started = asyncio.create_task(server.started.wait())
    await asyncio.wait([running, started], return_when=asyncio.FIRST_COMPLETED)
    if running.done():
        running.result()  # raises why it stopped
    stop = asyncio.Event()
    companion: asyncio.Task[None] | None = None
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with serve(
        server.handle,
        config.host,
        config.port,
        process_request=server.process_request,
        max_size=config.max_frame,
        compression=None,
        ping_interval=20,
        ping_timeout=20,
        close_timeout=CLOSE_TIMEOUT,
        create_connection=Peer,
        write_limit=config.max_backlog,  # past it, Peer closes the connection
    ) as ws_server:
        host, port = next(iter(ws_server.sockets)).getsockname()[:2]
        # Everything so far (modules, recovered races) lives as long as the process: keep it
        # out of the collector's full passes, which otherwise stall every connection.
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        short = raise_file_limit(config.max_connections)
        if short is not None:
            log.warning(
                "the open-file limit is %d: beyond about %d connections, new ones fail to open"
                " (raise it with ulimit -n, or set --max-connections lower)",
                short,
                max(0, short - FILE_RESERVE),
            )
        announce(f"listening on ws://{host}:{port}")
        if beside is not None:
            companion = asyncio.create_task(beside(host, port))
        reaper = asyncio.create_task(server.reap_idle())
        stopping = asyncio.create_task(stop.wait())
        watched = {stopping}
        if embedded is not None:
            watched.add(asyncio.create_task(supervise(embedded)))
        done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        announce("shutting down")
        for task in (reaper, *watched):
            task.cancel()
        await server.shutdown()
        running.cancel()
    if companion is not None:
        companion.cancel()
        try:
            await companion
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("what ran beside the server failed")
    await store.close()
    for task in done:
        task.result()  # raises RedisLost if the supervisor gave up


def shown_url(url: str) -> str:
    """``url`` with its password, if any, masked: fit for a log line."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def run(config: Config, beside: Beside | None = None) -> int:
    """Run the server with ``config`` (and ``beside``, see :func:`serve_forever`); return the exit status.

    Raises `BadRedisUrl` before anything starts if ``config``'s Redis settings cannot work (see
    :func:`check_redis_url`), and `EmbeddedRedisError` if the embedded Redis does not start."""
    check_redis_url(config.redis_url, config.redis_cluster)
    # The node's id: its name and a suffix, unique even if several nodes are given one name.
    config = replace(config, node=f"{config.node}-{secrets.token_hex(3)}")
    configure(config.log_format, config.node)
    embedded = None
    redis_url = config.redis_url
    if redis_url is None:
        data_dir = Path(config.data_dir) if config.data_dir else default_data_dir()
        embedded = EmbeddedRedis(data_dir)
        embedded.start()
        redis_url = embedded.url
        announce(f"data in {data_dir} (embedded Redis)")
    try:
        asyncio.run(serve_forever(config, redis_url, embedded, beside))
    except OSError as error:
        announce_error(f"cannot serve on {config.host}:{config.port}: {error.strerror}")
        return 1
    except (RedisLost, TooOld, CannotReachRedis) as error:
        announce_error(str(error))
        return 1
    except UNAVAILABLE as error:  # at the start, once it answered: it went away
        announce_error(f"cannot reach Redis at {shown_url(redis_url)}: {error}")
        return 1
    finally:
        if embedded is not None:
            embedded.stop()
    return 0
