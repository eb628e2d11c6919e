"""Random-playout speed of every game, measured the way search uses the engine.

Four figures per game, one core, one process:

- fresh deals (the original figure): each playout deals a new seed and makes uniformly random legal
  moves (legal-move generation is part of every move) until the game ends, or for at most ``--cap``
  moves, after which it concedes. Keys ``moves_per_s``, ``games_per_s``, ``moves_per_game``,
  ``capped``, ``games``.
- mid-game positions: playouts from a fixed pool of positions halfway through the first 120 moves of
  random games (halfway through the game if it ends sooner). Keys ``mid_moves_per_s``,
  ``mid_moves_per_playout``.
- drawn states: playouts from states the bots' determinization draws (``game.draw(view, rng)``) from
  the player's view of those positions; the draw itself is timed apart. Keys ``drawn_moves_per_s``,
  ``drawn_moves_per_playout``.
- determinization: ``game.draw`` calls per second on the player's views of those positions. Key
  ``draws_per_s``.

Seconds are this process's CPU seconds (``time.process_time``), so that other work on a shared
machine counts less. Every run does the same work (fixed seeds), so two revisions of the engine that rule alike do equal
work and their figures compare. ``--compare REV`` measures this checkout and REV in one run: it checks
REV out into a temporary git worktree and runs each measurement in a fresh interpreter (``python -S``,
the engine found through PYTHONPATH) alternating between the two revisions, ``--rounds`` times, keeping
each revision's best figure; the ratios (this checkout / REV) come from that one run.

``--compiled`` first compiles this checkout's engine with mypyc into a temporary directory (about a minute;
``bench/mypyc_engine.py``, which needs mypy and a C compiler), and that compiled engine is what "this
checkout" measures, in fresh interpreters as with ``--compare``; with ``--compare REV``, REV stays pure, so
the ratios are the compiled engine now against the pure engine then (``--compare HEAD`` for compiled against
pure alike). Every row says ``"compiled": true`` or ``false``: whether the game's module was an extension
module in the process that measured it (``before`` says it for REV).

    python bench/engine.py                 # every game, a table
    python bench/engine.py --game golf --seconds 5
    python bench/engine.py --json          # one JSON object per game
    python bench/engine.py --compare 0d4d8b5 --json
    python bench/engine.py --compiled --compare HEAD --game golf   # compiled against pure, this checkout
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_MOVES_PER_S = 20_000
TARGET_DRAWS_PER_S = 20_000
POOL = 64  # mid-game positions per game
MID_HORIZON = 120  # a mid-game position lies halfway through at most this many moves
FIGURES = ("moves_per_s", "mid_moves_per_s", "drawn_moves_per_s", "draws_per_s")
ROOT = Path(__file__).resolve().parent.parent
# Time is this process's CPU time: on a shared, busy machine wall time also counts the other processes'
# turns on the core, which moved figures by 4x from one run to the next.
_clock = time.process_time


def playouts(name: str, options: dict[str, Any], seconds: float, cap: int) -> dict[str, Any]:
    """Run random playouts of one game from fresh deals for ``seconds`` and return the figures."""
    from parlour.games import get_game

    game = get_game(name)
    chooser = random.Random(12345)
    moves = games = capped = 0
    seed = 0
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        made = _playout_from(game, game.deal(seed, options), chooser, cap)
        seed += 1
        moves += made
        capped += made == cap  # stopped at the cap (the game would be conceded)
        games += 1
    elapsed = _clock() - start
    return {
        "game": name,
        "options": options,
        "moves_per_s": round(moves / elapsed),
        "games_per_s": round(games / elapsed, 1),
        "moves_per_game": round(moves / games, 1),
        "capped": capped,
        "games": games,
    }


def mid_game_positions(name: str, options: dict[str, Any], count: int = POOL) -> list[Any]:
    """``count`` unfinished positions, each halfway through the first MID_HORIZON moves of a random game."""
    from parlour.games import get_game

    game = get_game(name)
    chooser = random.Random(777)
    positions = []
    for seed in range(10**6, 10**6 + count):
        states = [game.deal(seed, options)]
        for _ in range(MID_HORIZON):
            legal = game.legal_moves(states[-1])
            if not legal:
                break
            states.append(game.apply(states[-1], chooser.choice(legal)))
        live = [s for s in states if s.ended is None]
        positions.append(live[len(live) // 2])
    return positions


def _playout_from(game: Any, state: Any, chooser: random.Random, cap: int) -> int:
    """Random moves from ``state`` until the game ends or ``cap`` moves; the number of moves made."""
    moves = 0
    for _ in range(cap):
        legal = game.legal_moves(state)
        if not legal:
            break
        state = game.apply(state, chooser.choice(legal))
        moves += 1
    return moves


def search_figures(name: str, options: dict[str, Any], seconds: float, cap: int) -> dict[str, Any]:
    """Playouts from mid-game positions and from drawn states, and draws per second."""
    from parlour.games import get_game

    game = get_game(name)
    positions = mid_game_positions(name, options)
    views = [game.view(state, "player") for state in positions]

    chooser = random.Random(4242)
    moves = runs = 0
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        moves += _playout_from(game, positions[runs % len(positions)], chooser, cap)
        runs += 1
    mid_elapsed = _clock() - start
    mid = (moves, runs, mid_elapsed)

    drawer = random.Random(99)
    draws = 0
    start = _clock()
    deadline = start + seconds
    while _clock() < deadline:
        game.draw(views[draws % len(views)], drawer)
        draws += 1
    draw_elapsed = _clock() - start

    chooser = random.Random(4343)
    drawer = random.Random(98)
    moves = runs = 0
    playing = 0.0
    deadline = _clock() + seconds
    while _clock() < deadline:
        state = game.draw(views[runs % len(views)], drawer)
        begin = _clock()
        moves += _playout_from(game, state, chooser, cap)
        playing += _clock() - begin
        runs += 1
    return {
        "mid_moves_per_s": round(mid[0] / mid[2]),
        "mid_moves_per_playout": round(mid[0] / mid[1], 1),
        "drawn_moves_per_s": round(moves / playing) if playing else 0,
        "drawn_moves_per_playout": round(moves / runs, 1),
        "draws_per_s": round(draws / draw_elapsed),
    }


def measure(name: str, seconds: float, cap: int) -> dict[str, Any]:
    """Every figure of one game with its default options, in this process; ``compiled`` says whether the game's
    module is an extension module (mypyc) rather than Python source."""
    from parlour.games import get_game

    row = playouts(name, {}, seconds, cap)
    row.update(search_figures(name, {}, seconds, cap))
    module = sys.modules[type(get_game(name)).__module__]
    row["compiled"] = str(module.__file__).endswith((".so", ".pyd"))
    return row


# --- comparing with another revision -----------------------------------------------------------


def _engine_path(checkout: Path, into: Path) -> Path:
    """A directory to put on PYTHONPATH so that ``parlour.games`` is ``checkout/games``."""
    package = into / "parlour"
    package.mkdir(parents=True)
    (package / "games").symlink_to(checkout / "games", target_is_directory=True)
    return into


def _measure_in(engine: Path, name: str, seconds: float, cap: int) -> dict[str, Any]:
    """``measure`` in a fresh interpreter whose ``parlour.games`` comes from ``engine``."""
    env = dict(os.environ, PYTHONPATH=str(engine), PYTHONHASHSEED="0")
    command = [sys.executable, "-S", str(Path(__file__).resolve())]
    command += ["--worker", "--game", name, "--seconds", str(seconds), "--cap", str(cap)]
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def compare(
    names: list[str], rev: str, seconds: float, cap: int, rounds: int, here_engine: Path | None = None
) -> list[dict[str, Any]]:
    """Each game measured here and at ``rev``, alternating, best of ``rounds`` each; with ratios.

    ``here_engine``: the PYTHONPATH directory whose ``parlour.games`` is "here" (the compiled engine of
    ``--compiled``); by default this checkout's ``games/``, as REV's is."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="engine-compare-") as tmp:
        base = Path(tmp) / "checkout"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(base), rev],
            check=True,
            capture_output=True,
        )
        try:
            here_path = here_engine or _engine_path(ROOT, Path(tmp) / "here")
            then_path = _engine_path(base, Path(tmp) / "then")
            for name in names:
                here: dict[str, Any] = {}
                then: dict[str, Any] = {}
                for i in range(rounds):
                    order = [(here, here_path), (then, then_path)]
                    for best, path in order if i % 2 == 0 else reversed(order):
                        row = _measure_in(path, name, seconds, cap)
                        if not best:
                            best.update(row)
                        for key in FIGURES:
                            best[key] = max(best[key], row[key])
                row = dict(here)
                row["before"] = {"rev": rev, "compiled": then["compiled"], **{key: then[key] for key in FIGURES}}
                row["ratio"] = {key: round(here[key] / then[key], 2) for key in FIGURES if then[key]}
                rows.append(row)
                if not sys.stdout.isatty():
                    print(f"measured {name}", file=sys.stderr, flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", action="append", help="a game to measure (repeatable; default: all)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per figure per game (default 2)")
    parser.add_argument("--cap", type=int, default=2000, help="moves before a playout concedes (default 2000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per game")
    parser.add_argument("--compare", metavar="REV", help="measure REV too, in the same run, and print ratios")
    parser.add_argument("--rounds", type=int, default=2, help="with --compare: runs per revision (default 2)")
    parser.add_argument(
        "--compiled", action="store_true", help="measure this checkout's engine compiled with mypyc (REV stays pure)"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.game[0], args.seconds, args.cap)))
        return 0
    with tempfile.TemporaryDirectory(prefix="engine-mypyc-") as tmp:
        compiled = _compile(Path(tmp)) if args.compiled else None
        if args.compare:
            names = args.game or _game_names_at(ROOT)
            rows = compare(names, args.compare, args.seconds, args.cap, args.rounds, compiled)
        elif compiled:
            names = args.game or _game_names_at(ROOT)
            rows = [_measure_in(compiled, name, args.seconds, args.cap) for name in names]
        else:
            from parlour.games import game_names

            rows = [measure(name, args.seconds, args.cap) for name in (args.game or game_names())]
    if compiled and not all(row["compiled"] for row in rows):
        print("the compiled engine was not the one measured (see the rows' 'compiled')", file=sys.stderr)
        return 1
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    if compiled:
        print("this checkout's engine compiled with mypyc" + (f"; {args.compare} pure" if args.compare else ""))
    header = f"{'game':<18} {'moves/s':>8} {'mid/s':>8} {'drawn/s':>8} {'draws/s':>8} {'mv/game':>8} {'capped':>9}"
    if args.compare:
        header += f"   ratio vs {args.compare}: fresh  mid  drawn  draws"
    print(header)
    slow = []
    for row in rows:
        line = (
            f"{row['game']:<18} {row['moves_per_s']:>8} {row['mid_moves_per_s']:>8} {row['drawn_moves_per_s']:>8} "
            f"{row['draws_per_s']:>8} {row['moves_per_game']:>8} {row['capped']:>4}/{row['games']:<4}"
        )
        if args.compare:
            line += "   " + "  ".join(f"{row['ratio'].get(key, 0):>5}" for key in FIGURES)
        print(line)
        if row["moves_per_s"] < TARGET_MOVES_PER_S or row["draws_per_s"] < TARGET_DRAWS_PER_S:
            slow.append(row["game"])
    if slow:
        print(f"below {TARGET_MOVES_PER_S} moves/s or {TARGET_DRAWS_PER_S} draws/s: {', '.join(slow)}", file=sys.stderr)
    return 0


def _compile(into: Path) -> Path:
    """This checkout's engine compiled with mypyc into ``into``; the directory to put on PYTHONPATH."""
    from mypyc_engine import compile_engine  # bench/mypyc_engine.py, beside this script

    print("compiling the engine with mypyc (about a minute)", file=sys.stderr, flush=True)
    return compile_engine(into)


def _game_names_at(checkout: Path) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="engine-names-") as tmp:
        path = _engine_path(checkout, Path(tmp))
        env = dict(os.environ, PYTHONPATH=str(path))
        code = "import json; from parlour.games import game_names; print(json.dumps(game_names()))"
        done = subprocess.run([sys.executable, "-S", "-c", code], env=env, check=True, capture_output=True, text=True)
        return json.loads(done.stdout)


if __name__ == "__main__":
    sys.exit(main())
