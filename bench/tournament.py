"""Tournament: races and moves per second of a random-bot tournament through the server, beside the same
tournament played in-process by the arena, and the ratio.

Through the server: this starts ``parlour serve`` (its own embedded Redis in a temporary directory, the rate
limits out of the way as in load.py) and two ``parlour bot run random`` processes (named ``random-1`` and
``random-2``), creates a reproducible, unrated, untimed tournament of the two (``mixed`` over ``--games``,
``--deals`` deals each, seed ``--seed``), and times it from its creation to its end. In-process: the arena
(``bots/arena.py`` ``run_arena``, in this process) plays as many deals of each game with two random bots.
A race is one deal played by both bots; moves are both bots' moves. The arena draws deals of its own, so
the deals differ; random play cycles for ever in some games: the tournament's move cap (``--max-moves``,
default 3000, the arena's) is told to the bots, who concede there, and the arena stops at the same count,
so a deal costs alike on both sides.

``vs arena`` is the server's rate over the arena's: what the server, the bot processes and the network
cost a tournament of bots that think no time at all.

    python bench/tournament.py                           # all eight games, 10 deals each
    python bench/tournament.py --games golf,gaps --deals 3 --json
    python bench/tournament.py --max-moves 500         # cycling games cut at 500 moves

``--json`` prints one object: ``{"games", "deals", "seed", "max_moves", "server": {"races", "moves", "seconds",
"races_per_s", "moves_per_s"}, "arena": {the same}, "vs_arena": {"races_per_s", "moves_per_s"}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from load import BENCH_LIMITS, SERVE, free_port, start_process, stop_process

from parlour.bots.arena import run_arena
from parlour.client.connection import Client, TournamentUpdate
from parlour.games import game_names
from parlour.protocol.tournament import MAX_MOVES, MAX_MOVES_LIMIT

BOTS = ("random-1", "random-2")
ARENA_BOTS = ("random", "parlour.bots.random_bot:RandomBot")  # two random bots (the arena wants two specs)
READY = 30.0  # seconds the bots have to come online


@dataclass(frozen=True)
class Figures:
    """How fast one side played the tournament."""

    races: int
    moves: int
    seconds: float

    def row(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "seconds": round(self.seconds, 4),
            "races_per_s": round(self.races / self.seconds, 3),
            "moves_per_s": round(self.moves / self.seconds, 1),
        }


async def play_mixed(
    client: Client,
    bots: Iterable[str],
    games: list[str],
    deals: int,
    max_moves: int,
    *,
    seed: int | None = None,
    rated: bool = False,
) -> tuple[str, float]:
    """Create an untimed ``mixed`` tournament of the online ``bots`` and wait for its end (a count of races done
    on a terminal's stderr meanwhile); its id and the seconds from its creation to its end."""
    started = time.perf_counter()
    created = await client.tournament_create(
        [(game, None) for game in games],
        format="mixed",
        deals=deals,
        bots=list(bots),
        seed=seed,
        rated=rated,
        timed=False,
        max_moves=max_moves,
    )
    tournament_id = created.tournament["id"]
    summary = (await client.tournament_watch(tournament_id)).tournament
    while summary["status"] != "finished":
        summary = (await client.next_event(TournamentUpdate, timeout=3600)).tournament
        if sys.stderr.isatty():
            print(f"\r{summary.get('done', 0)}/{summary['races']} races", end="", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    return tournament_id, time.perf_counter() - started


async def tournament(url: str, games: list[str], deals: int, seed: int, max_moves: int) -> Figures:
    """Create the tournament of the online bots ``BOTS`` and wait for its end; its figures."""
    async with await Client.connect(url, "bench") as client:
        await online(client, BOTS)
        tournament_id, seconds = await play_mixed(client, BOTS, games, deals, max_moves, seed=seed)
        export = (await client.tournament_export(tournament_id)).export
    rows = [row for slot in export["results"].values() for row in slot]
    if any(row["forfeit"] for row in rows):
        raise RuntimeError("a bot missed a race: the figures would not be a tournament's")
    return Figures(len(export["results"]), sum(row["moves"] for row in rows), seconds)


@contextlib.contextmanager
def served(bots: dict[str, str]) -> Iterator[str]:
    """A real server (its own embedded Redis in a temporary directory, the rate limits out of the way) and a
    ``parlour bot run`` process for each of ``bots`` (entrant name -> installed bot); yields the server's URL.
    Everything is stopped on the way out."""
    with tempfile.TemporaryDirectory() as home:
        port = free_port()
        server = start_process([*SERVE, "--port", str(port), "--data-dir", str(Path(home) / "d"), *BENCH_LIMITS],
                               "listening on")  # fmt: skip
        url = f"ws://127.0.0.1:{port}"
        identities = str(Path(home) / "identities.json")  # each runner its own player, kept here
        runners = []
        try:
            for name, bot in bots.items():
                command = [*SERVE[:-1], "bot", "run", bot, "--name", name, "--profile", name]
                runners.append(start_process([*command, "--identity", identities, "--server", url], "connected to"))
            yield url
        finally:
            for process in [*runners, server]:
                stop_process(process)


async def online(client: Client, bots: Iterable[str]) -> None:
    """Wait until every one of ``bots`` is in the lobby (RuntimeError after ``READY`` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + READY
    while {bot["name"] for bot in (await client.lobby()).bots or []} < set(bots):
        if loop.time() > deadline:
            raise RuntimeError(f"the bots did not come online in {READY:.0f} s")
        await asyncio.sleep(0.1)


def through_the_server(games: list[str], deals: int, seed: int, max_moves: int) -> Figures:
    """The tournament on a real server with real bot runner processes."""
    with served({name: "random" for name in BOTS}) as url:
        return asyncio.run(tournament(url, games, deals, seed, max_moves))


def in_process(games: list[str], deals: int, seed: int, max_moves: int) -> Figures:
    """The same number of deals of each game, two random bots, played by the arena in this process with the
    same move cap."""
    started = time.perf_counter()
    moves = 0
    for game in games:
        result = run_arena(game, ARENA_BOTS, deals, seed=seed, jobs=1, max_moves=max_moves)
        moves += sum(outcome.moves for deal in result.deals for outcome in deal.outcomes)
    return Figures(len(games) * deals, moves, time.perf_counter() - started)


def game_list(text: str) -> list[str]:
    games = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(games) - set(game_names()))
    if unknown or not games:
        raise argparse.ArgumentTypeError(
            f"no such game: {', '.join(unknown) or text!r} (games: {', '.join(game_names())})"
        )
    return list(dict.fromkeys(games))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=game_list, default=game_names(), help="games, comma-separated (default all)")
    parser.add_argument("--deals", type=int, default=10, help="deals of each game (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="the tournament's seed, and the arena's (default 1)")
    parser.add_argument(
        "--max-moves", type=int, default=MAX_MOVES, help=f"the move cap, both sides (default {MAX_MOVES})"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    if not 1 <= args.deals <= 1000:
        parser.error("--deals is from 1 to 1000")
    if not 1 <= args.max_moves <= MAX_MOVES_LIMIT:
        parser.error(f"--max-moves is from 1 to {MAX_MOVES_LIMIT}")
    if not args.json:
        print(
            f"tournament: two random bots, {args.deals} deals of {', '.join(args.games)}, at most {args.max_moves} "
            f"moves a game; {os.cpu_count()} cpus"
        )
    server = through_the_server(args.games, args.deals, args.seed, args.max_moves)
    arena = in_process(args.games, args.deals, args.seed, args.max_moves)
    rows = {"server": server.row(), "arena": arena.row()}
    versus = {key: float(f"{rows['server'][key] / rows['arena'][key]:.4g}") for key in ("races_per_s", "moves_per_s")}
    if args.json:
        head = {"games": args.games, "deals": args.deals, "seed": args.seed, "max_moves": args.max_moves}
        print(json.dumps({**head, **rows, "vs_arena": versus}))
        return 0
    print(f"{'':8} {'races':>6} {'moves':>8} {'seconds':>8} {'races/s':>9} {'moves/s':>9}")
    for name, row in rows.items():
        print(
            f"{name:8} {row['races']:>6} {row['moves']:>8} {row['seconds']:>8.2f} "
            f"{row['races_per_s']:>9.2f} {row['moves_per_s']:>9.0f}"
        )
    print(f"{'vs arena':8} {'':>6} {'':>8} {'':>8} {versus['races_per_s']:>9.4g} {versus['moves_per_s']:>9.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
