"""Cluster: the same racers against 1, 2 and 3 server nodes sharing one Redis, in one run.

This starts one embedded Redis (Valkey, in a temporary directory), as many ``parlour serve
--redis-url`` nodes on it as the largest count asked for, and one more ``parlour serve`` with its own
embedded Redis, as `load.py` runs it: the baseline. Racers (this process, `load.py`'s client) play
races of ``--seats`` seats (default Golf, random legal moves) back to back: each race's racers are
seated in a row, and racer i connects to node i mod N, so the racers of one race sit on different
nodes and the events of their moves must cross nodes. A racer whose game is over waits for the
race's end; at the time limit the racers still playing concede, so no race is left running.

Rounds alternate over the settings (the baseline, then each node count; every other round in
reverse), so that all see the same machine; moves/s, p50 and p99 are the medians over the rounds of
each round's figure, as in `load.py`. ``crossed`` is the share of the moves stored by the nodes whose
events went to another node: ``parlour_moves_crossed_total`` over ``parlour_moves_total``, each summed
over the nodes and counted over the rounds (n/a if the nodes do not export the first). ``vs load.py``
is a node count's rate over the baseline's, from the same run: one node must not be much slower.

    python bench/cluster.py                          # 100 racers, 1, 2 and 3 nodes, 3 rounds of 4 s each
    python bench/cluster.py --racers 10 --seconds 4 --nodes 1,2 --json

``--json`` prints the baseline first, ``{"baseline": "load.py", "moves_per_s", "p50_ms", "p99_ms"}``,
then one object per node count: ``{"nodes", "moves_per_s", "p50_ms", "p99_ms", "crossed",
"vs_load_py"}`` (``crossed`` null when not exported), or ``{"nodes", "error"}`` if that count failed.
A node count fails when a request is refused: a server whose races live in one node's memory refuses
a join from another node with ``unknown_race``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets
from load import BENCH_LIMITS, SERVE, Racer, free_port, percentile, start_process, stop_process

from parlour.server.embedded_redis import EmbeddedRedis

BASELINE = 0  # the settings' keys: 0 is the baseline, N > 0 is N nodes on the shared Redis
ROUND_SLACK = 30.0  # seconds a round may run past its time limit (the last races' ends) before it fails


class Seat(Racer):
    """A racer in races of several seats: `Racer` (load.py) plays solo races only."""

    async def play_race(self, race: str, view: dict[str, Any], deadline: float) -> None:
        """Move until the game is over, or concede at ``deadline``; then wait for the race's end."""
        seq = 0
        while view["moves"] and time.perf_counter() < deadline:
            sent = time.perf_counter()
            reply = await self.call(
                {"type": "move", "race": race, "seq": seq, "move": self.chooser.choice(view["moves"])}
            )
            self.latencies.append(time.perf_counter() - sent)
            view, seq = reply["view"], reply["seq"]
        if view["moves"]:
            await self.call({"type": "concede", "race": race})
        await self.until("end")


async def play_races(seats: list[Seat], game: str, deadline: float) -> None:
    """Race ``seats`` against each other until ``deadline``: the first creates each race, the others join."""
    host, *guests = seats
    while time.perf_counter() < deadline:
        race = (await host.call({"type": "create", "game": game, "seats": len(seats)}))["race"]["id"]
        for guest in guests:
            await guest.call({"type": "join", "race": race})
        await asyncio.gather(*(seat.call({"type": "ready", "race": race}) for seat in seats))
        views = [start["view"] for start in await asyncio.gather(*(seat.until("start") for seat in seats))]
        await asyncio.gather(*(seat.play_race(race, view, deadline) for seat, view in zip(seats, views, strict=True)))


async def run_round(urls: list[str], racers: int, seats: int, seconds: float, game: str) -> tuple[float, list[float]]:
    """Moves per second and every move's round trip of ``racers`` racers, racer i on ``urls[i % len(urls)]``."""
    players: list[Seat] = []
    try:
        for i in range(racers):
            ws = await websockets.connect(urls[i % len(urls)], compression=None, max_size=2**22)
            players.append(Seat(ws, game, i))
            await players[-1].call({"type": "hello", "name": f"bench{i}", "bot": True})
        start = time.perf_counter()
        async with asyncio.timeout(seconds + ROUND_SLACK), asyncio.TaskGroup() as tasks:
            for first in range(0, racers, seats):
                tasks.create_task(play_races(players[first : first + seats], game, start + seconds))
        elapsed = time.perf_counter() - start
    except ExceptionGroup as failed:
        raise failed.exceptions[0] from None
    finally:
        await asyncio.gather(*(player.ws.close() for player in players))
    latencies = [x for player in players for x in player.latencies]
    return len(latencies) / elapsed, latencies


def counters(port: int) -> collections.Counter[str]:
    """A node's /metrics, each sample summed over its labels."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    totals: collections.Counter[str] = collections.Counter()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            sample, _, value = line.rpartition(" ")
            totals[sample.partition("{")[0]] += float(value)
    return totals


@dataclass
class Setting:
    """One setting's servers and its figures so far."""

    urls: list[str]
    ports: list[int]
    rates: list[float] = field(default_factory=list)
    p50s: list[float] = field(default_factory=list)
    p99s: list[float] = field(default_factory=list)
    moves: float = 0.0  # parlour_moves_total over the nodes and the rounds
    crossed: float | None = None  # parlour_moves_crossed_total likewise; None while no node exports it
    error: str | None = None

    def measure(self, racers: int, seats: int, seconds: float, game: str) -> None:
        before = [counters(port) for port in self.ports]
        try:
            rate, latencies = asyncio.run(run_round(self.urls, racers, seats, seconds, game))
        except (RuntimeError, OSError, TimeoutError, websockets.ConnectionClosed) as error:
            self.error = f"{type(error).__name__}: {error}" if not isinstance(error, RuntimeError) else str(error)
            return
        after = [counters(port) for port in self.ports]
        self.rates.append(rate)
        self.p50s.append(percentile(latencies, 50))
        self.p99s.append(percentile(latencies, 99))
        for old, new in zip(before, after, strict=True):
            self.moves += new["parlour_moves_total"] - old["parlour_moves_total"]
            if "parlour_moves_crossed_total" in new:
                crossed = new["parlour_moves_crossed_total"] - old["parlour_moves_crossed_total"]
                self.crossed = (self.crossed or 0.0) + crossed

    def figures(self) -> dict[str, Any]:
        return {
            "moves_per_s": round(statistics.median(self.rates)),
            "p50_ms": round(statistics.median(self.p50s) * 1000, 2),
            "p99_ms": round(statistics.median(self.p99s) * 1000, 2),
        }


def measure(
    racers: int, seats: int, seconds: float, rounds: int, game: str, node_counts: list[int]
) -> dict[int, Setting]:
    """Every setting, the baseline (key `BASELINE`) and each node count, measured in alternating rounds."""
    with tempfile.TemporaryDirectory(prefix="pc-") as data:
        redis = EmbeddedRedis(Path(data) / "redis")
        redis.start()
        servers = []
        try:
            ports = [free_port() for _ in range(max(node_counts) + 1)]
            own = [*SERVE, "--port", str(ports[0]), "--data-dir", f"{data}/own", *BENCH_LIMITS]
            servers.append(start_process(own, "listening on"))
            for i, port in enumerate(ports[1:], 1):
                node = [*SERVE, "--port", str(port), "--redis-url", redis.url, "--node", f"node{i}", *BENCH_LIMITS]
                servers.append(start_process(node, "listening on"))
            urls = [f"ws://127.0.0.1:{port}" for port in ports]
            settings = {BASELINE: Setting(urls[:1], ports[:1])}
            settings |= {n: Setting(urls[1 : n + 1], ports[1 : n + 1]) for n in node_counts}
            for turn in range(rounds):
                # Every other round runs the settings in reverse, so that none always comes first.
                for setting in list(settings.values())[:: -1 if turn % 2 else 1]:
                    if setting.error is None:
                        setting.measure(racers, seats, seconds / rounds, game)
        finally:
            for server in servers:
                stop_process(server)
            redis.stop()
    return settings


def report(settings: dict[int, Setting], as_json: bool) -> None:
    baseline = settings[BASELINE]
    if baseline.error is not None:
        print(f"cluster: the baseline failed: {baseline.error}", file=sys.stderr)
        return
    if as_json:
        print(json.dumps({"baseline": "load.py", **baseline.figures()}))
    else:
        row = baseline.figures()
        print(f"{'load.py':>7} {row['moves_per_s']:>9} {row['p50_ms']:>8} {row['p99_ms']:>8}  (one server, own Redis)")
    for nodes, setting in settings.items():
        if nodes == BASELINE:
            continue
        if setting.error is not None:
            why = setting.error
            if "unknown_race" in why:
                why += " (a race's racers are on different nodes: this server keeps a race on the node that made it)"
            print(json.dumps({"nodes": nodes, "error": why}) if as_json else f"{nodes:>7}  failed: {why}", flush=True)
            continue
        row = setting.figures()
        crossed = None if setting.crossed is None else round(setting.crossed / max(setting.moves, 1), 3)
        versus = round(row["moves_per_s"] / baseline.figures()["moves_per_s"], 3)
        if as_json:
            print(json.dumps({"nodes": nodes, **row, "crossed": crossed, "vs_load_py": versus}), flush=True)
        else:
            shown = "n/a" if crossed is None else crossed
            print(
                f"{nodes:>7} {row['moves_per_s']:>9} {row['p50_ms']:>8} {row['p99_ms']:>8} {shown:>8} {versus:>11}",
                flush=True,
            )


def node_counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"node counts are whole numbers separated by commas, not {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"a node count is at least 1, not {text!r}")
    return sorted(set(counts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--racers", type=int, default=100, help="racers in every setting (default 100)")
    parser.add_argument("--seats", type=int, default=2, help="racers per race (default 2; 1: solo, as load.py)")
    parser.add_argument("--nodes", type=node_counts, default=[1, 2, 3], help="node counts (default 1,2,3)")
    parser.add_argument("--seconds", type=float, default=12.0, help="racing time per setting (default 12)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds over the settings (default 3)")
    parser.add_argument("--game", default="golf", help="the game the racers play (default golf)")
    parser.add_argument("--json", action="store_true", help="one JSON object per setting")
    args = parser.parse_args(argv)
    if args.racers < 1 or args.seats < 1:
        parser.error("--racers and --seats are at least 1")
    cpus = os.cpu_count() or 1
    if not args.json:
        print(
            f"cluster: {args.racers} racers in races of {args.seats} ({args.game}), node i of N takes racers i, "
            f"i+N, ...; rounds: {args.rounds} of {args.seconds / args.rounds:g} s per setting; one Redis; {cpus} cpus"
        )
        if cpus < max(args.nodes) + 2:
            print(
                f"cluster: {cpus} cpus for the nodes, Redis and the racers: more nodes cannot scale here; "
                "they show what crossing nodes costs, not what nodes add"
            )
        print(f"{'nodes':>7} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'crossed':>8} {'vs load.py':>11}")
    settings = measure(args.racers, args.seats, args.seconds, args.rounds, args.game, args.nodes)
    report(settings, args.json)
    failed = [setting for setting in settings.values() if setting.error is not None]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
