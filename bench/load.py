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

    python bench/load.py                     # N = 10, 100, 500; 3 rounds of 4 s + 4 s each
    python bench/load.py --n 100 --seconds 30 --rounds 5 --json
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

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


def start_process(command: list[str], ready: str) -> subprocess.Popen[str]:
    """Start ``command`` and return once it prints ``ready``; its later output is read and
    dropped (the server logs a line per race event: a full pipe would stop it)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if ready in line:
            threading.Thread(target=collections.deque, args=(process.stdout, 0), daemon=True).start()
            return process
    raise RuntimeError(f"{command[0]} did not start")


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


async def run_echo(url: str, n: int, seconds: float) -> float:
    """Round trips per second of ``n`` connections echoing a small msgpack map."""
    conns = [await websockets.connect(url, compression=None) for _ in range(n)]
    done = 0
    deadline = time.perf_counter() + seconds

    async def loop(ws: Any) -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            await ws.send(ECHO_PAYLOAD)
            msgpack.unpackb(await ws.recv())
            done += 1

    start = time.perf_counter()
    await asyncio.gather(*(loop(ws) for ws in conns))
    elapsed = time.perf_counter() - start
    await asyncio.gather(*(ws.close() for ws in conns))
    return done / elapsed


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


async def run_racers(url: str, n: int, seconds: float, game: str) -> tuple[float, list[float]]:
    racers = []
    for i in range(n):
        ws = await websockets.connect(url, compression=None, max_size=2**22)
        racer = Racer(ws, game, i)
        await racer.call({"type": "hello", "name": f"bench{i}", "bot": True})
        racers.append(racer)
    start = time.perf_counter()
    await asyncio.gather(*(r.play(start + seconds) for r in racers))
    elapsed = time.perf_counter() - start
    await asyncio.gather(*(r.ws.close() for r in racers))
    latencies = [x for r in racers for x in r.latencies]
    return len(latencies) / elapsed, latencies


def percentile(values: list[float], q: float) -> float:
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
        try:
            for _ in range(rounds):
                rate, round_latencies = asyncio.run(run_racers(f"ws://127.0.0.1:{port}", n, seconds / rounds, game))
                moves.append(rate)
                p50s.append(percentile(round_latencies, 50))
                p99s.append(percentile(round_latencies, 99))
                latencies += round_latencies
                echoes.append(asyncio.run(run_echo(f"ws://127.0.0.1:{echo_port}", n, seconds / rounds)))
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
    }


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
        header = f"{'N':>5} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'echo/s':>9} {'ratio':>6}  p99 ms by round"
        print(f"{header}   ({args.game}, {os.cpu_count()} cpus)")
    for n in args.n or [10, 100, 500]:
        row = measure(n, args.seconds, args.game, args.rounds)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(
                f"{n:>5} {row['moves_per_s']:>9} {row['p50_ms']:>8} {row['p99_ms']:>8} {row['echo_per_s']:>9} "
                f"{row['ratio']:>6}  {' '.join(str(x) for x in row['p99_ms_rounds'])}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
