"""Memory: bytes per idle connection, per racer in a running race and per finished race, server and Redis.

Each of three phases starts its own ``parlour serve`` (embedded Redis in a temporary directory, the rate
limits out of the way as in load.py, no countdown, ``--keep-finished 3600`` so that no finished race leaves
memory during the run), warms it up with a few items of the phase's kind, takes a baseline reading, then
adds items until each size of ``--sizes`` and takes a reading at each:

- ``idle``: connections that said hello (``Client.connect``: a new player each) and then do nothing but the
  client's keep-alive pings.
- ``racers``: 2-seat Golf races, both seats joined and ready, each seat having made ``--moves`` random legal
  moves; the race keeps running. A racer's figure is all it costs: its connection, its seat, half its race.
- ``finished``: 2-seat Golf races played to the end (``--moves`` moves per seat, then both concede) by
  ``--pairs`` pairs of clients, one race after another: the connections are the same throughout, so the
  growth is the finished races the server keeps.

A reading is the server process's resident set (``VmRSS`` in /proc/PID/status: the parlour server alone,
the embedded Redis is a process of its own) and the bytes of the embedded Redis's data: the sum of ``MEMORY
USAGE key SAMPLES 0`` over every key, read over its unix socket ``<data dir>/redis.sock`` (its ``used_memory``
is read too but only shown in ``readings``: client and AOF buffers make it move by hundreds of KB from one
reading to the next), each after a second's pause. Bytes per item is the slope
between the smallest and the largest size, (reading at the largest - reading at the smallest) / (their
difference in items), so fixed costs (the interpreter, the warm-up, pools) cancel. RSS counts pages, not
objects: memory freed inside the Python heap is reused before RSS grows, so small sizes give noisy figures.

What bounds each (see server/app.py and server/config.py), printed with the figures:

- a connection: no cap on their number; each one's unsent bytes are capped by ``max_backlog`` (1 MiB) and its
  frames by ``max_frame`` (16 KiB); a connection silent for ``idle_timeout`` (600 s) is closed.
- a racer: a player sits in at most ``max_races`` (5) open or running races; a race ends at its time limit.
- a finished race in the server: held ``keep_finished`` seconds (60 s by default) after its end, then
  evicted (its replay comes from Redis): a bound in time, not in number (races finishing per second x 60 s).
- a finished race in Redis: kept for good (the record, the seats' logs, later the replay): the archive.

    python bench/memory.py                             # sizes 200 and 800, under a minute
    python bench/memory.py --sizes 500,2000 --moves 10
    python bench/memory.py --json

``--json`` prints one object: ``idle_connection_bytes``, ``racer_bytes``, ``finished_race_bytes_server``
(RSS slopes), ``idle_connection_bytes_redis``, ``racer_bytes_redis``, ``finished_race_bytes_redis``
(slopes of Redis's data bytes), ``finished_races_held`` (the server's ``parlour_races_finished`` gauge at the
end), ``sizes``, ``measure`` and ``readings`` (per phase, each size's ``rss``, ``redis`` (data bytes) and
``redis_used_memory``, the baseline first as size 0).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import redis
from load import BENCH_LIMITS, SERVE, free_port, start_process, stop_process

from parlour.client.connection import Client, ClientError, End, Start

GAME = "golf"
KEEP_FINISHED = 3600.0  # seconds: longer than any run, so that every finished race is still held when read
SETTLE = 1.0  # seconds between the last item added and a reading
BATCH = 50  # items set up at once


class Server:
    """A ``parlour serve`` with an embedded Redis in a temporary directory, and its memory readings."""

    def __init__(self, data: Path) -> None:
        self.data = data / "d"
        self.port = free_port()
        command = [*SERVE, "--port", str(self.port), "--data-dir", str(self.data), *BENCH_LIMITS]
        self.process = start_process([*command, "--keep-finished", str(KEEP_FINISHED)], "listening on")
        self.redis = redis.Redis(unix_socket_path=str(self.data / "redis.sock"))

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def rss(self) -> int:
        """The server process's resident set in bytes (VmRSS)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS in /proc/PID/status")

    def used_memory(self) -> int:
        """The embedded Redis's used_memory in bytes: its data and its overheads (client buffers, AOF buffer)."""
        return int(self.redis.info("memory")["used_memory"])

    def data_bytes(self) -> int:
        """The bytes of every key in the embedded Redis: the sum of ``MEMORY USAGE key SAMPLES 0`` (exact)."""
        total = 0
        keys = list(self.redis.scan_iter(count=1000))
        for start in range(0, len(keys), 1000):
            pipe = self.redis.pipeline(transaction=False)
            for key in keys[start : start + 1000]:
                pipe.memory_usage(key, samples=0)
            total += sum(x or 0 for x in pipe.execute())  # None: the key expired meanwhile
        return total

    def gauge(self, name: str) -> float:
        """One sample of the server's /metrics page, e.g. ``parlour_races_finished``."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as response:
            for line in response.read().decode().splitlines():
                if line.startswith(name + " ") or line.startswith(name + "{"):
                    return float(line.rpartition(" ")[2])
        raise KeyError(name)

    def stop(self) -> None:
        self.redis.close()
        stop_process(self.process)


async def reading(server: Server, n: int) -> dict[str, int]:
    await asyncio.sleep(SETTLE)
    return {"n": n, "rss": server.rss(), "redis": server.data_bytes(), "redis_used_memory": server.used_memory()}


async def connect(url: str, name: str) -> Client:
    return await Client.connect(url, name, reconnect=False)


async def play(pair: tuple[Client, Client], moves: int, chooser: random.Random, finish: bool) -> None:
    """One 2-seat Golf race of ``pair``: create, join, ready, ``moves`` moves per seat; if ``finish``,
    both concede and the race ends."""
    first, second = pair
    created = (await first.create(GAME, seats=2, public=False)).race
    race = created["id"]
    await second.join(code=created["code"])
    await asyncio.gather(first.ready(race), second.ready(race))

    async def seat(client: Client) -> None:
        start = await client.next_event(Start, race=race, timeout=30)
        seq, view = start.seq, start.view
        for _ in range(moves):
            if not view["moves"]:
                break
            ack = await client.move(race, seq, chooser.choice(view["moves"]))
            seq, view = ack.seq, ack.view
        if finish:
            try:
                await client.concede(race)
            except ClientError as error:  # its game was over already
                if error.code != "game_over":
                    raise

    await asyncio.gather(seat(first), seat(second))
    if finish:
        await first.next_event(End, race=race, timeout=30)
        await second.next_event(End, race=race, timeout=30)


async def grow(
    server: Server, sizes: list[int], warmup: int, add: Callable[[int], Awaitable[None]]
) -> list[dict[str, int]]:
    """Call ``add(count)`` (it sets up ``count`` more items) up to ``warmup``, read the baseline (n=0), then up
    to each size in turn, reading at each."""
    await add(warmup)
    readings = [await reading(server, 0)]
    done = 0
    for size in sizes:
        while done < size:
            count = min(BATCH, size - done)
            await add(count)
            done += count
        readings.append(await reading(server, size))
    return readings


async def idle_phase(server: Server, sizes: list[int], warmup: int) -> list[dict[str, int]]:
    clients: list[Client] = []

    async def add(count: int) -> None:
        start = len(clients)
        clients.extend(await asyncio.gather(*(connect(server.url, f"idle{start + i}") for i in range(count))))

    try:
        return await grow(server, sizes, warmup, add)
    finally:
        await asyncio.gather(*(c.close() for c in clients))


async def racer_phase(server: Server, sizes: list[int], warmup: int, moves: int) -> list[dict[str, int]]:
    clients: list[Client] = []
    chooser = random.Random(1)

    async def add(count: int) -> None:  # count racers: count // 2 races (sizes are even)
        start = len(clients)
        new = await asyncio.gather(*(connect(server.url, f"racer{start + i}") for i in range(count)))
        clients.extend(new)
        pairs = [(new[i], new[i + 1]) for i in range(0, len(new) - 1, 2)]
        await asyncio.gather(*(play(pair, moves, chooser, finish=False) for pair in pairs))

    try:
        return await grow(server, sizes, warmup, add)
    finally:
        await asyncio.gather(*(c.close() for c in clients))


async def finished_phase(
    server: Server, sizes: list[int], warmup: int, moves: int, pairs: int
) -> tuple[list[dict[str, int]], float]:
    """The readings, and how many finished races the server says it holds at the end (its gauge)."""
    clients = await asyncio.gather(*(connect(server.url, f"finisher{i}") for i in range(2 * pairs)))
    couples = [(clients[i], clients[i + 1]) for i in range(0, len(clients), 2)]
    chooser = random.Random(2)

    async def add(count: int) -> None:  # count races, spread over the pairs, each pair's one after another
        async def run(couple: tuple[Client, Client], races: int) -> None:
            for _ in range(races):
                await play(couple, moves, chooser, finish=True)
                for client in couple:  # events passed over while waiting for others: the bench's, not the server's
                    client._held.clear()

        shares = [count // pairs + (1 if i < count % pairs else 0) for i in range(pairs)]
        await asyncio.gather(*(run(couple, share) for couple, share in zip(couples, shares, strict=True)))

    try:
        readings = await grow(server, sizes, warmup, add)
        return readings, server.gauge("parlour_races_finished")
    finally:
        await asyncio.gather(*(c.close() for c in clients))


def slope(readings: list[dict[str, int]], key: str) -> int:
    """Bytes per item between the smallest and the largest size."""
    low, high = readings[1], readings[-1]
    return round((high[key] - low[key]) / (high["n"] - low["n"]))


def run_phase(name: str, work: Callable[[Server], Awaitable[Any]]) -> Any:
    with tempfile.TemporaryDirectory(prefix="pl-") as data:
        server = Server(Path(data))
        try:
            return asyncio.run(work(server))
        finally:
            server.stop()


def measure(sizes: list[int], warmup: int, moves: int, pairs: int) -> dict[str, Any]:
    started = time.perf_counter()
    idle = run_phase("idle", lambda s: idle_phase(s, sizes, warmup))
    racers = run_phase("racers", lambda s: racer_phase(s, sizes, warmup, moves))
    finished, held = run_phase("finished", lambda s: finished_phase(s, sizes, warmup, moves, pairs))
    return {
        "idle_connection_bytes": slope(idle, "rss"),
        "racer_bytes": slope(racers, "rss"),
        "finished_race_bytes_server": slope(finished, "rss"),
        "idle_connection_bytes_redis": slope(idle, "redis"),
        "racer_bytes_redis": slope(racers, "redis"),
        "finished_race_bytes_redis": slope(finished, "redis"),
        "finished_races_held": int(held),
        "sizes": sizes,
        "warmup": warmup,
        "moves": moves,
        "pairs": pairs,
        "game": GAME,
        "measure": (
            "server: VmRSS of its process; redis: sum of MEMORY USAGE over every key; "
            "bytes per item: slope between the smallest and the largest size"
        ),
        "readings": {"idle": idle, "racers": racers, "finished": finished},
        "seconds": round(time.perf_counter() - started, 1),
    }


BOUNDS = {
    "idle connection": "no cap on their number; unsent bytes <= max_backlog (1 MiB) each; closed after idle_timeout "
    "(600 s) without a message",
    "racer": "at most max_races (5) open or running races per player; a race ends at its time limit",
    "finished race, server": "held keep_finished (60 s) after its end, then evicted: bounded in time, not in number",
    "finished race, Redis": "kept for good (record, logs, replay once built): the archive, unbounded",
}


def report(figures: dict[str, Any]) -> None:
    rows = [
        ("idle connection", figures["idle_connection_bytes"], figures["idle_connection_bytes_redis"]),
        ("racer", figures["racer_bytes"], figures["racer_bytes_redis"]),
        ("finished race, server", figures["finished_race_bytes_server"], None),
        ("finished race, Redis", None, figures["finished_race_bytes_redis"]),
    ]
    low, high = figures["sizes"][0], figures["sizes"][-1]
    print(f"bytes per item, slope from N={low} to N={high} (server: VmRSS; Redis: MEMORY USAGE of every key)")
    print(f"{'':<22} {'server':>9} {'Redis':>9}  bounded by")
    for name, server, store in rows:
        shown = [f"{x:>9}" if x is not None else f"{'':>9}" for x in (server, store)]
        print(f"{name:<22} {shown[0]} {shown[1]}  {BOUNDS[name]}")
    print(f"finished races held by the server at the end: {figures['finished_races_held']} ({figures['seconds']} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="200,800", help="items at each reading, even, comma-separated (200,800)")
    parser.add_argument("--warmup", type=int, default=20, help="items set up before the baseline (default 20)")
    parser.add_argument("--moves", type=int, default=3, help="moves per seat in each race (default 3)")
    parser.add_argument("--pairs", type=int, default=10, help="client pairs playing the finished races (default 10)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        sizes = sorted(int(x) for x in args.sizes.split(","))
    except ValueError:
        parser.error("--sizes: comma-separated integers, e.g. 100,400")
    if len(sizes) < 2 or sizes[0] <= 0 or len(set(sizes)) != len(sizes) or any(x % 2 for x in [*sizes, args.warmup]):
        parser.error("--sizes: two or more different positive even sizes; --warmup even too (racers come in pairs)")
    if args.pairs < 1 or args.moves < 0:
        parser.error("--pairs must be 1 or more and --moves 0 or more")
    figures = measure(sizes, args.warmup, args.moves, args.pairs)
    if args.json:
        print(json.dumps(figures))
    else:
        report(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
