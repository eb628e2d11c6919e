"""A server's connections: one websocket each, and what the server knows of its peer.

:class:`Peer` keeps one peer from holding up the others (reads, writes and Pings are bounded);
:class:`Connection` carries the peer's identity, its rate limit and its count of refusals;
:func:`close_within` closes a websocket without waiting on a peer that does not read.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN

from parlour.protocol import encode
from parlour.protocol.messages import Message
from parlour.server.store import Player

FLOOD_CLOSE = 500  # the refusal count at which a connection is closed (1008)
REFUSALS_FORGIVEN = 10.0  # refusals per second the count forgets
CLOSE_TIMEOUT = 1.0  # seconds a closing handshake may take before the TCP connection is cut
READ_SIZE = 16 * 1024  # bytes read from a socket at once, and parsed into frames without a pause
PING_RATE = 1.0  # WebSocket Pings a second a peer may send on average
PING_BURST = 20  # WebSocket Pings a peer may send at once


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
        # shadows its class default). Another event loop's transport (uvloop's) has no such
        # attribute and may refuse new ones: it keeps its own read size. Shrinking the socket's
        # SO_RCVBUF instead also shrinks the TCP window and stalls the connection.
        if hasattr(transport, "max_size"):
            transport.max_size = READ_SIZE
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
    tournaments: set[str] = field(default_factory=set)  # the tournaments it watches
    tokens: float = 0.0
    stamp: float = field(default_factory=time.monotonic)  # when the last frame arrived
    refusals: float = 0.0  # a leaky count: +1 a refusal, -REFUSALS_FORGIVEN a second
    refused_at: float = 0.0  # monotonic time of the last refusal
    retry_at: float = 0.0  # monotonic time before which the last `rate_limited` asked it not to send
    frame_started: float = 0.0  # perf_counter when the frame being served arrived
    number: int = 0  # counts connections since the server started; names this one in the log
    reaped: bool = False  # told it was idle, and closing
    address: str = ""  # the client's address, as the limits on identities and guesses count it
    games: frozenset[str] = frozenset()  # a bot connection: the games it offers to play when invited
    max_races: int = 0  # a bot connection: how many races it plays at once

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)

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


__all__ = ["CLOSE_TIMEOUT", "Connection", "Peer", "close_soon", "close_within"]
