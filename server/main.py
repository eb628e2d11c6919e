"""``parlour serve``: start Redis (embedded unless a URL is given), the server, and stop cleanly.

On start the server prints one line, ``parlour: listening on ws://HOST:PORT``, once it
accepts connections (with ``--port 0`` the line names the port it got). SIGTERM and
SIGINT stop it: clients are told, connections close, Redis stops if it is embedded.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
from pathlib import Path

import redis.asyncio as aioredis
from websockets.asyncio.server import serve

from parlour.server.app import Server
from parlour.server.config import Config
from parlour.server.embedded_redis import EmbeddedRedis, default_data_dir
from parlour.server.store import Store


async def serve_forever(config: Config, redis_url: str) -> None:
    """Serve until SIGTERM or SIGINT."""
    # A blocking pool: when every connection is busy, wait for one instead of failing.
    pool = aioredis.BlockingConnectionPool.from_url(redis_url, max_connections=64, timeout=20)
    store = Store(aioredis.Redis(connection_pool=pool))
    await store.ping()
    server = Server(config, store)
    await server.recover()
    stop = asyncio.Event()
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
        close_timeout=1,
    ) as ws_server:
        host, port = next(iter(ws_server.sockets)).getsockname()[:2]
        # Everything so far (modules, recovered races) lives as long as the process: keep it
        # out of the collector's full passes, which otherwise stall every connection.
        gc.freeze()
        print(f"parlour: listening on ws://{host}:{port}", flush=True)
        reaper = asyncio.create_task(server.reap_idle())
        await stop.wait()
        print("parlour: shutting down", flush=True)
        reaper.cancel()
        await server.shutdown()
    await store.close()


def run(config: Config) -> int:
    """Run the server with ``config``; return the process exit status."""
    logging.basicConfig(level=logging.WARNING, format="parlour: %(levelname)s %(name)s: %(message)s")
    logging.getLogger("parlour").setLevel(logging.INFO)  # one line per connection and race event
    embedded = None
    redis_url = config.redis_url
    if redis_url is None:
        data_dir = Path(config.data_dir) if config.data_dir else default_data_dir()
        embedded = EmbeddedRedis(data_dir)
        embedded.start()
        redis_url = embedded.url
        print(f"parlour: data in {data_dir} (embedded Redis)", flush=True)
    try:
        asyncio.run(serve_forever(config, redis_url))
    except OSError as error:
        print(f"parlour: error: cannot serve on {config.host}:{config.port}: {error.strerror}", file=sys.stderr)
        return 1
    finally:
        if embedded is not None:
            embedded.stop()
    return 0
