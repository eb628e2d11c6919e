"""Ratings: does a rated tournament through the server rank the built-in bots as their strength says?

This starts ``parlour serve`` (its own embedded Redis) and a ``parlour bot run`` process for each of ``--bots``
(weakest first: by default random, greedy, search, the order ``bots/STRENGTH.md`` measures), creates one rated,
untimed ``mixed`` tournament of them over ``--games`` with ``--deals`` deals of each, and waits for its end.
Then, for every game, it prints the leaderboard ``parlour ratings GAME`` shows, whether it ranks the bots in
their order of strength (strongest first), and whether replaying the tournament's exported results in the
order the races ended gives the same ratings (it must: a difference is a bug, and the exit status is 1).

Ten deals of a game do not always tell two bots apart: where they often end on the same score (Chris Cross
Pairs' search and greedy both win most deals) the ratings need many races to separate them. The crash test
(``tests/server/test_tournament_crash.py``) checks on ten deals the pairs that ten deals tell apart; this
program shows the whole order on as many deals as it takes. The tournament is untimed (ranked by score
alone) and its games are capped at ``--max-moves`` (default 500: random play cycles for ever in German
Patience, Gate and The Chance, and no built-in bot's game runs longer without cycling).

    python bench/ratings.py                               # all eight games, 100 deals each (some 30 minutes)
    python bench/ratings.py --games golf,gaps --deals 20 --json

``--json`` prints one object: ``{"games", "deals", "bots", "max_moves", "seconds", "ratings": {game:
{"leaderboard": [{"name", "mu", "sigma", "ordinal", "races"}, ...], "in_order": bool, "recomputed": bool}}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from tournament import game_list, online, play_mixed, served

from parlour.client.connection import Client
from parlour.games import game_names, get_game
from parlour.protocol.tournament import MAX_MOVES_LIMIT, Spec, schedule
from parlour.server.ratings import places_with_ties, replay

DEFAULT_BOTS = ("random", "greedy", "search")


async def rated_tournament(
    url: str, bots: list[str], games: list[str], deals: int, max_moves: int
) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]], float]:
    """Play the rated tournament; its export, each game's leaderboard and the seconds it took."""
    async with await Client.connect(url, "bench") as client:
        await online(client, bots)
        tournament_id, seconds = await play_mixed(client, bots, games, deals, max_moves, rated=True)
        export = (await client.tournament_export(tournament_id)).export
        boards = {game: list((await client.ratings(game)).ratings) for game in games}
    return export, boards, seconds


def recomputed(export: dict[str, Any], game: str) -> dict[str, tuple[float, float, int]]:
    """``game``'s ratings replayed from the export: its races in the order they ended, ranked as an untimed
    tournament ranks them."""
    spec = Spec.from_map(export["spec"])
    slots = schedule(spec)
    ended = sorted(
        (race for race in export["races"] if spec.events[slots[race["slot"]].event].game == game),
        key=lambda race: race["replay"]["ended_at"],
    )
    higher = get_game(game).higher_is_better
    ratings = replay(places_with_ties(race["replay"]["results"], higher, False) for race in ended)
    return {player: (rating.mu, rating.sigma, rating.races) for player, rating in ratings.items()}


def report(export: dict[str, Any], boards: dict[str, list[dict[str, Any]]], bots: list[str]) -> dict[str, Any]:
    """Per game: the leaderboard, whether it is in the bots' order of strength, whether it replays alike."""
    out = {}
    for game, board in boards.items():
        stored = {row["player"]: (row["mu"], row["sigma"], row["races"]) for row in board}
        out[game] = {
            "leaderboard": [{k: row[k] for k in ("name", "mu", "sigma", "ordinal", "races")} for row in board],
            "in_order": [row["name"] for row in board] == bots[::-1],
            "recomputed": stored == recomputed(export, game),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=game_list, default=game_names(), help="games, comma-separated (default all)")
    parser.add_argument("--deals", type=int, default=100, help="deals of each game (default 100)")
    parser.add_argument(
        "--bots",
        default=",".join(DEFAULT_BOTS),
        help=f"installed bots, weakest first (default {','.join(DEFAULT_BOTS)})",
    )
    parser.add_argument("--max-moves", type=int, default=500, help="the tournament's move cap (default 500)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    bots = [name.strip() for name in args.bots.split(",") if name.strip()]
    if len(bots) < 2 or len(set(bots)) != len(bots):
        parser.error("--bots names two or more different bots")
    if not 1 <= args.deals <= 1000:
        parser.error("--deals is from 1 to 1000")
    if not 1 <= args.max_moves <= MAX_MOVES_LIMIT:
        parser.error(f"--max-moves is from 1 to {MAX_MOVES_LIMIT}")
    with served({name: name for name in bots}) as url:
        export, boards, seconds = asyncio.run(rated_tournament(url, bots, args.games, args.deals, args.max_moves))
    ratings = report(export, boards, bots)
    if args.json:
        head = {"games": args.games, "deals": args.deals, "bots": bots, "max_moves": args.max_moves}
        print(json.dumps({**head, "seconds": round(seconds, 1), "ratings": ratings}))
    else:
        print(
            f"a rated, untimed tournament of {', '.join(bots)}: {args.deals} deals of each game, at most "
            f"{args.max_moves} moves a game, {len(export['races'])} races in {seconds:.0f} s\n"
        )
        print(f"{'game':18} {'leaderboard (ordinal)':48} {'in order':>8} {'replays':>8}")
        for game, row in ratings.items():
            board = ", ".join(f"{r['name']} {r['ordinal']:.1f}" for r in row["leaderboard"])
            in_order, same = "yes" if row["in_order"] else "NO", "same" if row["recomputed"] else "DIFFERS"
            print(f"{game:18} {board:48} {in_order:>8} {same:>8}")
        in_order = sum(row["in_order"] for row in ratings.values())
        print(f"\n{in_order} of {len(ratings)} games rank the bots in their order of strength ({' < '.join(bots)})")
    return 0 if all(row["recomputed"] for row in ratings.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
