"""Load: N simulated racers against a real server, compared with a bare websocket echo.

For each N (default 10, 100, 500) this starts ``parlour serve`` (embedded Redis, in a
temporary directory) and a bare websockets + msgpack echo server, each its own process.
Then it alternates rounds: N racers in this process playing solo races of the game
(default Golf) with random legal moves, measuring moves per second and each move's round
trip (send to ack); then N connections each sending a small msgpack map to the echo
server and awaiting it. Moves/s, echo/s, p50 and p99 are the medians over the rounds of
each round's figure; ``ratio`` is the quotient of the two rates. Alternating keeps both
measurements under the same machine conditions, and medians keep one slow moment of
this machine (its speed drifts) from standing for the whole run. ``p99_ms_pooled`` is
the 99th percentile of every move of every round together, for comparison.

Where the time goes (Linux, from ``/proc``; ``null`` elsewhere): the CPU time each process
spent per move while the racers race (their connecting, hello and closing left out), median over
the rounds, in microseconds: ``server_us`` (the ``parlour serve`` process), ``redis_us`` (its
child processes: the embedded Redis) and ``client_us`` (this process, the racers);
``echo_server_us`` and ``echo_client_us`` per echoed message, likewise.
A server that keeps one core busy manages at most 1e6 / ``server_us`` moves a second, and
the echo server 1e6 / ``echo_server_us`` messages: their quotient bounds ``ratio``.

    python bench/load.py                     # N = 10, 100, 500; 3 rounds of 4 s + 4 s each
    python bench/load.py --n 100 --seconds 30 --rounds 5 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

import msgpack
import websockets

SERVE = [sys.executable, "-m", "parlour.client.cli", "serve"]
# No countdown, and limits out of the way: the racers measure the server, not its rate limits.
BENCH_LIMITS = ["--countdown", "0", "--rate", "1000000", "--burst", "1000000", "--identity-burst", "1000000",
                "--race-burst", "1000000"]  # fmt: skip
ECHO_PAYLOAD = msgpack.packb({"type": "move", "id": 1, "race": "0123456789", "seq": 12, "move": ["play", "p3"]})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_process(
    command: list[str], ready: str, timeout: float = 60.0, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """Start ``command`` (in ``env``, else this process's environment) and return once it prints ``ready``.

    Its output goes to a temporary file (gone once the process ends), not to a pipe that this
    process would have to drain: a thread here reading the server's log lines (three a race) took
    the interpreter from the racers, and with them the load off the server. Raises if the process
    ends or ``timeout`` seconds pass first, with the last of what it printed.
    """
    with tempfile.TemporaryFile() as output:  # the process keeps its own handle on the file
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, text=True, env=env)
        deadline = time.monotonic() + timeout
        while ready.encode() not in (printed := _read_all(output)):
            if process.poll() is not None or time.monotonic() > deadline:
                if process.poll() is None:
                    process.kill()
                tail = printed.decode(errors="replace")[-2000:]
                raise RuntimeError(f"{command[0]} did not start; it printed:\n{tail}")
            time.sleep(0.02)
    return process


def _read_all(file: IO[bytes]) -> bytes:
    file.seek(0)
    return file.read()


def _stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (``None`` where there is none)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()  # the command name, in parentheses, may hold spaces


def _cpu(fields: list[str]) -> float:
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def cpu_seconds(pid: int) -> float | None:
    """User and system CPU time of process ``pid`` so far, from ``/proc`` (``None`` where there is none)."""
    fields = _stat(pid)
    return None if fields is None else _cpu(fields)


def children_cpu_seconds(pid: int) -> float | None:
    """The CPU time of the live child processes of ``pid`` (the server's embedded Redis), from ``/proc``."""
    if _stat("self") is None:
        return None
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(entry.name)) is not None and int(fields[1]) == pid:
            total += _cpu(fields)
    return total


Costs = tuple[float | None, ...]  # µs of CPU per unit of work, a figure per process (None: unknown)


class CpuMeter:
    """CPU time per unit of work of one process (and its children, if asked), and of this one."""

    def __init__(self, pid: int, children: bool = False) -> None:
        self.pid, self.children = pid, children

    def snapshot(self) -> tuple[float | None, float | None, float]:
        children = children_cpu_seconds(self.pid) if self.children else None
        return cpu_seconds(self.pid), children, time.process_time()

    @staticmethod
    def per_unit(
        before: tuple[float | None, float | None, float], after: tuple[float | None, float | None, float], units: int
    ) -> Costs:
        """Microseconds per unit for each figure of the snapshots (``None`` where one is missing)."""
        return tuple(
            None if a is None or b is None or not units else (b - a) * 1e6 / units
            for a, b in zip(before, after, strict=True)
        )


def stop_process(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()


async def echo_server(port: int) -> None:
    async def echo(ws: Any) -> None:
        async for frame in ws:
            await ws.send(msgpack.packb(msgpack.unpackb(frame)))

    async with websockets.serve(echo, "127.0.0.1", port, compression=None):
        print("echo: listening", flush=True)
        await asyncio.Event().wait()


async def run_echo(url: str, n: int, seconds: float, meter: CpuMeter) -> tuple[float, Costs]:
    """Round trips per second of ``n`` connections echoing a small msgpack map, and the CPU of each
    (``meter``'s) process per round trip while they echo (connecting and closing left out)."""
    conns = [await websockets.connect(url, compression=None) for _ in range(n)]
    done = 0
    before = meter.snapshot()
    start = time.perf_counter()
    deadline = start + seconds

    async def loop(ws: Any) -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            await ws.send(ECHO_PAYLOAD)
            msgpack.unpackb(await ws.recv())
            done += 1

    await asyncio.gather(*(loop(ws) for ws in conns))
    elapsed = time.perf_counter() - start
    costs = CpuMeter.per_unit(before, meter.snapshot(), done)
    await asyncio.gather(*(ws.close() for ws in conns))
    return done / elapsed, costs


class Racer:
    """One connection playing solo races back to back, timing every move."""

    def __init__(self, ws: Any, game: str, seed: int) -> None:
        self.ws = ws
        self.game = game
        self.chooser = random.Random(seed)
        self.next_id = 0
        self.latencies: list[float] = []
        self.events: list[dict[str, Any]] = []  # events that arrived while awaiting a reply

    async def call(self, message: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        await self.ws.send(msgpack.packb({"id": self.next_id, **message}))
        while True:
            reply = msgpack.unpackb(await self.ws.recv())
            if reply.get("id") == self.next_id:
                if reply["type"] == "error":
                    raise RuntimeError(f"{message['type']}: {reply['code']}: {reply['message']}")
                return reply
            if reply["type"] == "start":
                self.events.append(reply)

    async def until(self, kind: str) -> dict[str, Any]:
        for event in self.events:
            if event["type"] == kind:
                self.events.remove(event)
                return event
        while True:
            message = msgpack.unpackb(await self.ws.recv())
            if message["type"] == kind:
                return message

    async def new_race(self) -> tuple[str, dict[str, Any]]:
        race = (await self.call({"type": "create", "game": self.game, "seats": 1}))["race"]["id"]
        await self.call({"type": "ready", "race": race})
        start = await self.until("start")
        return race, start["view"]

    async def play(self, deadline: float) -> None:
        race, view = await self.new_race()
        seq = 0
        while time.perf_counter() < deadline:
            if not view["moves"]:
                race, view = await self.new_race()
                seq = 0
                continue
            sent = time.perf_counter()
            reply = await self.call(
                {"type": "move", "race": race, "seq": seq, "move": self.chooser.choice(view["moves"])}
            )
            self.latencies.append(time.perf_counter() - sent)
            view, seq = reply["view"], reply["seq"]


async def run_racers(
    url: str, n: int, seconds: float, game: str, meter: CpuMeter, kind: type[Racer] = Racer
) -> tuple[float, list[float], Costs]:
    """Moves per second of ``n`` racers, each move's round trip, and the CPU of each of ``meter``'s
    processes per move while they race (connecting, hello and closing left out). ``kind``: the
    racers' class; what it times in ``latencies`` is what is counted."""
    racers = []
    for i in range(n):
        ws = await websockets.connect(url, compression=None, max_size=2**22)
        racer = kind(ws, game, i)
        await racer.call({"type": "hello", "name": f"bench{i}", "bot": True})
        racers.append(racer)
    before = meter.snapshot()
    start = time.perf_counter()
    await asyncio.gather(*(r.play(start + seconds) for r in racers))
    elapsed = time.perf_counter() - start
    latencies = [x for r in racers for x in r.latencies]
    costs = CpuMeter.per_unit(before, meter.snapshot(), len(latencies))
    await asyncio.gather(*(r.ws.close() for r in racers))
    return len(latencies) / elapsed, latencies, costs


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def measure(n: int, seconds: float, game: str, rounds: int) -> dict[str, Any]:
    """Alternate ``rounds`` rounds of racers and of echo (both servers up throughout), so that
    both see the same machine; report the median rate of each and their ratio."""
    with tempfile.TemporaryDirectory(prefix="pl-") as data:
        port, echo_port = free_port(), free_port()
        server = start_process(
            [*SERVE, "--port", str(port), "--data-dir", str(Path(data) / "d"), *BENCH_LIMITS], "listening on"
        )
        echo = start_process([sys.executable, __file__, "--echo-server", str(echo_port)], "echo: listening")
        moves: list[float] = []
        echoes: list[float] = []
        p50s: list[float] = []
        p99s: list[float] = []
        latencies: list[float] = []
        server_cpu, echo_cpu = CpuMeter(server.pid, children=True), CpuMeter(echo.pid)
        racer_costs: list[Costs] = []  # server, redis, client: µs a move
        echo_costs: list[Costs] = []  # echo server, (none), client: µs a message
        url, echo_url = f"ws://127.0.0.1:{port}", f"ws://127.0.0.1:{echo_port}"
        try:
            for _ in range(rounds):
                rate, round_latencies, costs = asyncio.run(run_racers(url, n, seconds / rounds, game, server_cpu))
                racer_costs.append(costs)
                moves.append(rate)
                p50s.append(percentile(round_latencies, 50))
                p99s.append(percentile(round_latencies, 99))
                latencies += round_latencies
                echo_rate, costs = asyncio.run(run_echo(echo_url, n, seconds / rounds, echo_cpu))
                echo_costs.append(costs)
                echoes.append(echo_rate)
        finally:
            stop_process(server)
            stop_process(echo)
    moves_per_s, echo_per_s = statistics.median(moves), statistics.median(echoes)
    return {
        "n": n,
        "game": game,
        "moves_per_s": round(moves_per_s),
        "p50_ms": round(statistics.median(p50s) * 1000, 2),
        "p99_ms": round(statistics.median(p99s) * 1000, 2),
        "echo_per_s": round(echo_per_s),
        "ratio": round(moves_per_s / echo_per_s, 3),
        "rounds": rounds,
        "p99_ms_rounds": [round(x * 1000, 2) for x in p99s],
        "p99_ms_pooled": round(percentile(latencies, 99) * 1000, 2),
        "server_us": median_us(racer_costs, 0),
        "redis_us": median_us(racer_costs, 1),
        "client_us": median_us(racer_costs, 2),
        "echo_server_us": median_us(echo_costs, 0),
        "echo_client_us": median_us(echo_costs, 2),
    }


def median_us(costs: list[Costs], index: int) -> float | None:
    """The median over the rounds of figure ``index`` of ``costs`` (to 0.1 µs; ``None`` if no round has it)."""
    figures = [figure for c in costs if (figure := c[index]) is not None]
    return round(statistics.median(figures), 1) if figures else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, action="append", help="racers (repeatable; default 10, 100, 500)")
    parser.add_argument("--seconds", type=float, default=12.0, help="racing time per N, and echo time (default 12)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of racers and echo (default 3)")
    parser.add_argument("--game", default="golf", help="the game the racers play (default golf)")
    parser.add_argument("--json", action="store_true", help="one JSON object per N")
    parser.add_argument("--echo-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.echo_server:
        asyncio.run(echo_server(args.echo_server))
        return 0
    if not args.json:
        header = (
            f"{'N':>5} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'echo/s':>9} {'ratio':>6} "
            f"{'server us':>9} {'echo us':>8}  p99 ms by round"
        )
        print(f"{header}   ({args.game}, {os.cpu_count()} cpus)")
    for n in args.n or [10, 100, 500]:
        row = measure(n, args.seconds, args.game, args.rounds)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(
                f"{n:>5} {row['moves_per_s']:>9} {row['p50_ms']:>8} {row['p99_ms']:>8} {row['echo_per_s']:>9} "
                f"{row['ratio']:>6} {row['server_us']!s:>9} {row['echo_server_us']!s:>8}  "
                f"{' '.join(str(x) for x in row['p99_ms_rounds'])}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
