"""Limits on what one client may do, keyed by its address or its player id (pure, no I/O).

:class:`Buckets` bounds how fast a key may do something (create identities, create races);
:class:`Backoff` makes failures expensive (wrong join codes, wrong passwords). Both forget a
key once it carries no information any more, so their memory stays bounded by recent activity.
"""

from __future__ import annotations

import ipaddress
from typing import Any

SWEEP_EVERY = 60.0  # seconds between two sweeps of keys that carry no information


def address_of(remote: Any) -> str:
    """The key of a peer's address (a websocket's ``remote_address``): the IP address, or its
    /64 network for IPv6, since one IPv6 host usually holds a whole /64."""
    host = remote[0] if isinstance(remote, tuple) and remote else str(remote)
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(text: str) -> tuple[Network, ...]:
    """Comma-separated addresses or networks (``10.0.0.0/8,::1``); raises ValueError naming a bad one."""
    networks = []
    for part in text.split(","):
        if part.strip():
            try:
                networks.append(ipaddress.ip_network(part.strip(), strict=False))
            except ValueError:
                raise ValueError(f"not an IP address or network: {part.strip()!r}") from None
    return tuple(networks)


def client_address(remote: Any, forwarded_for: str | None, trusted: tuple[Network, ...]) -> str:
    """The key of the client behind a connection: :func:`address_of` its peer, or, when the peer
    is a trusted proxy, of the address that proxy forwarded for: the rightmost address of the
    ``X-Forwarded-For`` header that is not itself a trusted proxy (those to its left were written
    by the client, who may lie)."""
    hops = [address_of(remote)]
    if trusted and forwarded_for:
        hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()] + hops
    for hop in reversed(hops):
        try:
            ip = ipaddress.ip_address(hop)
        except ValueError:
            return address_of(hop)  # not an address: count it as it is
        if not any(ip in network for network in trusted):
            return address_of(hop)
    return address_of(hops[0])  # every hop is a trusted proxy


class Buckets:
    """A token bucket per key: at most ``burst`` at once, then ``rate`` per second."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when counted)
        self._swept = 0.0

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` has a token (0: it has one now). Spends nothing."""
        tokens = self._tokens(key, now)
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def take(self, key: str, now: float) -> None:
        """Spend one token of ``key`` (after :meth:`wait` said 0)."""
        self._buckets[key] = (self._tokens(key, now) - 1, now)
        self._sweep(now)

    def _tokens(self, key: str, now: float) -> float:
        tokens, then = self._buckets.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - then) * self.rate)

    def _sweep(self, now: float) -> None:
        if now - self._swept >= SWEEP_EVERY:
            self._swept = now
            self._buckets = {k: v for k, v in self._buckets.items() if self._tokens(k, now) < self.burst}


class Backoff:
    """Failures per key: the first ``free`` cost nothing; after that each failure makes the key wait
    twice as long before its next try (``base`` seconds, then 2, 4, ... times that, at most ``cap``).
    A key without a failure for ``forget`` seconds starts again from nothing."""

    def __init__(self, free: int, base: float, cap: float, forget: float) -> None:
        self.free = free
        self.base = base
        self.cap = cap
        self.forget = forget
        self._failures: dict[str, tuple[int, float, float]] = {}  # key -> (failures, last one, next try)
        self._swept = 0.0

    def wait(self, key: str, now: float) -> float:
        """Seconds before ``key`` may try again (0: now)."""
        failures, last, next_try = self._failures.get(key, (0, 0.0, 0.0))
        if failures == 0 or now - last >= self.forget:
            return 0.0
        return max(0.0, next_try - now)

    def failed(self, key: str, now: float) -> None:
        """Count one failure of ``key``."""
        failures, last, _ = self._failures.get(key, (0, 0.0, 0.0))
        if now - last >= self.forget:
            failures = 0
        failures += 1
        pause = 0.0 if failures <= self.free else min(self.cap, self.base * 2 ** min(30, failures - self.free - 1))
        self._failures[key] = (failures, now, now + pause)
        if now - self._swept >= SWEEP_EVERY:
            self._swept = now
            self._failures = {k: v for k, v in self._failures.items() if now - v[1] < self.forget}


__all__ = ["Backoff", "Buckets", "address_of"]
