"""Rating odds: how often a rated tournament of N deals ranks two built-in bots in their order of strength.

A tournament's ratings come from few races, and where two bots often end a deal on the same score the
ratings need many deals to tell them apart. This estimates, for every game, how often N deals drawn at random
rank each pair right, without a server: it takes every deal's results of random, greedy and search from a
file written by ``bench/bots.py --save`` (``bots/STRENGTH.json``), plays the cheap bots again with the
tournament's move cap where it differs (the arena, in this process), adds the example bot ``eager`` (a
tournament's fourth entrant in the tests) unless ``--no-eager``, and rates each draw of N deals as an
untimed tournament does (``places_with_ties(timed=False)``: score, then a game played out before a conceded
one; replayed in order from fresh ratings). A pair counts as right when the stronger bot's leaderboard row
is above the weaker one's.

    python bench/rating_odds.py                           # ten deals, every game, 1000 draws
    python bench/rating_odds.py --deals 10,30,100 --games chris-cross-pairs

``tests/server/test_tournament_crash.py`` checks the pairs right on at least 9995 draws in 10000 at ten deals;
``bench/ratings.py`` plays the whole order through a server.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from parlour.bots.arena import run_arena
from parlour.games import get_game
from parlour.server.ratings import leaderboard, places_with_ties, replay

BUILT_IN = ("random", "greedy", "search")  # weakest first, as bots/STRENGTH.md measures them
PAIRS = (("search", "greedy"), ("greedy", "random"), ("search", "random"))
EAGER = "parlour_example_bot:EagerBot"  # the example bot, from its source directory
EXAMPLE = Path(__file__).resolve().parents[1] / "bots" / "examples" / "parlour-example-bot"
CONCEDED = ("conceded", "out_of_time")  # a capped arena game ends out of time; a tournament's is conceded


def race_rows(outcomes: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """One deal's results (bot -> the arena's ``[score, ending, moves, ...]``) as a race's results."""
    return [
        {"player": bot, "score": o[0], "ended": "conceded" if o[1] in CONCEDED else o[1], "time": 0.0, "moves": o[2]}
        for bot, o in outcomes.items()
    ]


def deal_places(entry: dict[str, Any], max_moves: int, eager: bool) -> list[dict[str, int]]:
    """Each deal's places (bot -> place) of one measured game, with the cheap bots played again at ``max_moves``
    where the file's cap differs, and eager added."""
    result = entry["result"]
    game = get_game(entry["game"])
    deals = result["deals"]
    index = {bot: result["bots"].index(bot) for bot in BUILT_IN}
    again = [bot for bot in ("random", "greedy") if result["max_moves"] != max_moves] + ([EAGER] if eager else [])
    replayed: list[dict[str, Any]] = []
    if again:
        played = run_arena(
            game, again, len(deals), seed=result["seed"], options=entry["options"], jobs=1, max_moves=max_moves
        )
        replayed = played.to_map()["deals"]
    places = []
    for number, deal in enumerate(deals):
        outcomes = {bot: deal["outcomes"][index[bot]] for bot in BUILT_IN}
        if outcomes["search"][2] > max_moves:  # a rare cycling game: conceded at the cap (its score then unknown)
            outcomes["search"] = [outcomes["search"][0], "out_of_time", max_moves]
        if again:
            assert replayed[number]["seed"] == deal["seed"]
            for bot, outcome in zip(again, replayed[number]["outcomes"], strict=True):
                outcomes["eager" if bot == EAGER else bot] = outcome
        places.append(places_with_ties(race_rows(outcomes), game.higher_is_better, False))
    return places


def odds(places: list[dict[str, int]], deals: int, draws: int, seed: int) -> dict[str, float]:
    """The share of ``draws`` draws of ``deals`` deals whose ratings rank each pair (``"search>greedy"``, ...)
    right, and all of them at once (``"all"``)."""
    rng = random.Random(seed)
    right = {f"{above}>{below}": 0 for above, below in PAIRS} | {"all": 0}
    for _ in range(draws):
        board = [player for player, _ in leaderboard(replay(places[i] for i in rng.sample(range(len(places)), deals)))]
        every = True
        for above, below in PAIRS:
            if board.index(above) < board.index(below):
                right[f"{above}>{below}"] += 1
            else:
                every = False
        right["all"] += every
    return {pair: count / draws for pair, count in right.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=Path("bots/STRENGTH.json"), help="bench/bots.py --save's file")
    parser.add_argument("--deals", default="10", help="deals per game in a tournament, comma-separated (default 10)")
    parser.add_argument("--games", default="", help="games, comma-separated (default every game in the file)")
    parser.add_argument("--draws", type=int, default=1000, help="tournaments drawn per game and size (default 1000)")
    parser.add_argument("--max-moves", type=int, default=500, help="the tournament's move cap (default 500)")
    parser.add_argument("--no-eager", action="store_true", help="rate the three built-in bots alone")
    parser.add_argument("--seed", type=int, default=1, help="the seed of the draws (default 1)")
    parser.add_argument("--json", action="store_true", help="one JSON object per game and size")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.deals.split(",")]
    wanted = {name.strip() for name in args.games.split(",") if name.strip()}
    if not args.no_eager:
        sys.path.insert(0, str(EXAMPLE))
    measured = json.loads(args.results.read_text())["measured"]
    for entry in measured:
        game = get_game(entry["game"])
        if (wanted and game.name not in wanted) or entry["options"] != {o.name: o.default for o in game.options_spec}:
            continue  # a tournament plays each game with its default options
        places = deal_places(entry, args.max_moves, not args.no_eager)
        for size in sizes:
            if size > len(places):
                parser.error(f"{game.name}: {len(places)} deals measured, fewer than {size}")
            shares = odds(places, size, args.draws, args.seed)
            if args.json:
                print(json.dumps({"game": game.name, "deals": size, "draws": args.draws, "right": shares}))
            else:
                cells = "  ".join(f"{pair} {share:.3f}" for pair, share in shares.items())
                print(f"{game.name:18} {size:>4} deals: {cells}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
