"""Helpers for tests that run several server nodes on one store: players whose every event is
recorded, seats that play random legal moves, and the race-wide counters of /metrics summed over nodes.

A node is a `ServerProcess` started with ``redis_url`` (see ``server_factory`` and ``shared_redis`` in
tests/conftest.py). The counters named here are the ones every node reports for the steps of a race that
must happen once across all nodes: summed over the nodes, each counts how many times its step happened.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from parlour.client.connection import Client, ClientEvent
from parlour.protocol.messages import Progress, Start
from tests.conftest import ServerProcess

E = TypeVar("E")

COUNTDOWNS = "parlour_countdowns_total"
STARTS = "parlour_races_started_total"
DEADLINES = "parlour_deadlines_total"
FINISHES = "parlour_races_finished_total"
NODE_INFO = "parlour_node_info"


def start_nodes(make: Callable[..., ServerProcess], redis_url: str, *extra: str, count: int = 3) -> list[ServerProcess]:
    """``count`` started servers on the Redis at ``redis_url``, each with the flags ``extra``.

    ``make`` is the ``server_factory`` fixture, which cleans them up after the test.
    """
    nodes = [make(*extra, redis_url=redis_url) for _ in range(count)]
    for node in nodes:
        node.start()
    return nodes


def counter(samples: Mapping[str, float], name: str) -> float:
    """Metric ``name`` in one node's /metrics samples, summed over its labels; an AssertionError if absent."""
    values = [value for key, value in samples.items() if key == name or key.startswith(name + "{")]
    assert values, f"/metrics has no {name}"
    return sum(values)


def node_id(samples: Mapping[str, float]) -> str:
    """The node id that a node's /metrics samples give in ``parlour_node_info{node="..."} 1``."""
    ids = [key.partition('node="')[2].rpartition('"')[0] for key in samples if key.startswith(NODE_INFO + "{")]
    assert len(ids) == 1 and ids[0], f"/metrics should name one node in {NODE_INFO}, not {ids}"
    return ids[0]


async def metrics(nodes: Sequence[ServerProcess]) -> list[dict[str, float]]:
    """Every node's /metrics samples, in the order of ``nodes``."""
    return [await asyncio.to_thread(node.metrics) for node in nodes]


async def expect_counts(
    nodes: Sequence[ServerProcess],
    expected: Mapping[str, float],
    before: Sequence[Mapping[str, float]] = (),
    settle: float = 1.0,
    timeout: float = 30.0,
) -> None:
    """Check that each counter of ``expected``, summed over ``nodes`` (plus the samples ``before``, taken from
    nodes since stopped), equals its expected value: wait up to ``timeout`` s until every sum reaches its
    value (a node may count a step just after the clients heard of it), then ``settle`` s more, and compare
    (so that a step done a second time by a slower node is seen)."""

    async def sums() -> tuple[dict[str, float], list[dict[str, float]]]:
        samples = [*before, *await metrics(nodes)]
        return {name: sum(counter(s, name) for s in samples) for name in expected}, samples

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while any(total < expected[name] for name, total in (await sums())[0].items()) and loop.time() < deadline:
        await asyncio.sleep(0.1)
    await asyncio.sleep(settle)
    totals, samples = await sums()
    per_node = {name: [counter(s, name) for s in samples] for name in expected}
    assert totals == dict(expected), f"summed over the nodes: {totals}; per node: {per_node}"


class Player:
    """A client library connection (``client``) and every event it received, in order (``events``).

    A background task reads the events as they come, so use `first` and `every` to look at them, never the
    client's own ``next_event`` or ``events``. Make one with `Player.connect`; `close` it at the end.
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        self.events: list[ClientEvent] = []
        self.arrived_at: list[float] = []  # the event loop's clock when each event came
        self._arrived = asyncio.Condition()
        self._reader = asyncio.create_task(self._read(), name=f"events of {client.name}")

    @classmethod
    async def connect(cls, node: ServerProcess, name: str, token: str | None = None) -> Player:
        return cls(await Client.connect(node.url, name, token=token))

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        async for event in self.client.events():
            async with self._arrived:
                self.events.append(event)
                self.arrived_at.append(loop.time())
                self._arrived.notify_all()

    def when(self, type_: type, where: Callable[[Any], bool] = lambda _: True) -> list[float]:
        """When each event of ``type_`` for which ``where`` holds came (the event loop's clock)."""
        return [at for at, e in zip(self.arrived_at, self.events, strict=True) if isinstance(e, type_) and where(e)]

    def every(self, type_: type[E], race: str | None = None) -> list[E]:
        """Every event of ``type_`` (about ``race``, if given) received so far, in order."""
        return [e for e in self.events if isinstance(e, type_) and (race is None or _race_of(e) == race)]

    async def first(
        self,
        type_: type[E],
        race: str | None = None,
        where: Callable[[E], bool] = lambda _: True,
        timeout: float = 30.0,
    ) -> E:
        """The first event of ``type_`` (about ``race``) for which ``where`` holds, received already or within
        ``timeout`` seconds; a TimeoutError naming the events received otherwise."""

        def found() -> E | None:
            return next((e for e in self.every(type_, race) if where(e)), None)

        try:
            async with asyncio.timeout(timeout), self._arrived:
                await self._arrived.wait_for(lambda: found() is not None)
        except TimeoutError:
            seen = ", ".join(type(e).__name__ for e in self.events) or "none"
            raise TimeoutError(
                f"{self.client.name}: no such {type_.__name__} in {timeout} s; received: {seen}"
            ) from None
        event = found()
        assert event is not None
        return event

    def progress(self, race: str, seat: int) -> list[int]:
        """The ``moves`` of every `Progress` about ``seat`` received so far, in order."""
        return [p.moves for p in self.every(Progress, race) if p.seat == seat]

    async def close(self) -> None:
        await self.client.close()
        await self._reader


@dataclass
class Seat:
    """One racer's game in a race: its view and ``seq`` now, and every entry acknowledged (``log``)."""

    player: Player
    race: str
    view: dict[str, Any]
    seq: int = 0
    log: list[list[Any]] = field(default_factory=list)

    @classmethod
    async def started(cls, player: Player, race: str, timeout: float = 30.0) -> Seat:
        """The seat as the `Start` event gave it."""
        start = await player.first(Start, race, timeout=timeout)
        return cls(player, race, start.view, start.seq)

    async def play(self, rng: random.Random, moves: int | None = None, pause: float = 0.0) -> None:
        """Make random legal moves, ``pause`` seconds apart, until ``moves`` are made or the game is over.

        An ack may be a duplicate (a move re-sent by the client library after a reconnection that the
        server had stored already): either way the entry is in the log once.
        """
        made = 0
        while self.view["moves"] and (moves is None or made < moves):
            move = rng.choice(self.view["moves"])
            ack = await self.player.client.move(self.race, self.seq, move)
            assert ack.seq == self.seq + 1, f"the ack of entry {self.seq} says seq {ack.seq}"
            self.log.append(move)
            self.view, self.seq = ack.view, ack.seq
            made += 1
            if pause:
                await asyncio.sleep(pause)


def _race_of(event: object) -> str | None:
    race = getattr(event, "race", None)
    if isinstance(race, dict):
        return race.get("id")
    return race if isinstance(race, str) else None
