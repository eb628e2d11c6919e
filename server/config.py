"""The server's settings, with the defaults a new user gets."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from pathlib import Path

from parlour.server.limits import Network


@dataclass(frozen=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None  # None: start the embedded Redis under data_dir
    redis_prefix: str = "parlour"  # every key starts with it: instances sharing a Redis use different ones
    redis_cluster: bool = False  # redis_url names a node of a Redis Cluster
    data_dir: Path | None = None  # None: the default data directory
    password: str | None = None  # a private server asks every hello for it
    max_frame: int = 16 * 1024  # bytes; larger frames close the connection (1009)
    max_backlog: int = 1024 * 1024  # bytes waiting to be sent to a connection before it is closed (1008)
    max_connections: int = 10_000  # websocket connections open at once; more are answered 503 (0: no cap)
    rate: float = 50.0  # messages per second a connection may send on average
    burst: int = 200  # messages a connection may send at once
    max_races: int = 5  # open and live races a player may be seated in
    idle_timeout: float = 600.0  # seconds without a message before the server closes (0: never)
    grace: float = 60.0  # seconds a disconnected racer keeps the seat before conceding
    countdown: float = 3.0  # seconds between every seat ready and the start
    keep_finished: float = 60.0  # seconds a finished race stays in memory (replays come from Redis after)
    node: str = field(default_factory=socket.gethostname)  # the node's name: in the welcome and every log line
    log_format: str = "text"  # the log's format: "text" or "json" (see parlour.server.logs)
    open_timeout: float = 1800.0  # seconds an open race waits for a new player before it expires
    abandoned_timeout: float = 300.0  # seconds an open race stays once none of its players is connected
    identity_rate: float = 0.2  # new identities per second one address may create on average
    identity_burst: int = 60  # new identities one address may create at once
    race_rate: float = 0.5  # races per second one player may create on average
    race_burst: int = 30  # races one player may create at once
    invite_timeout: float = 30.0  # seconds an invited bot has to take its seat before the invitation lapses
    # Proxies whose X-Forwarded-For is believed: the limits per address then count the client's.
    trusted_proxies: tuple[Network, ...] = ()
