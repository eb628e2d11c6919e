"""Ranking a finished race: the order anyone can check from the published results."""

from __future__ import annotations

from typing import Any

from parlour.protocol.replay import verify_replay
from parlour.server.app import replay_of
from parlour.server.race import Race, Settings


def finished_race(game: str, finishes: list[tuple[list[list[Any]], float]]) -> Race:
    """A race whose seat ``i`` played ``finishes[i][0]`` and conceded at time ``finishes[i][1]``."""
    race = Race(id="r1", settings=Settings(game=game, options={}, seats=len(finishes)), created_by="p0", created_at=0.0)
    for index in range(len(finishes)):
        race.join(f"p{index}", f"player{index}", False)
    race.start(100.0)
    for index, (moves, when) in enumerate(finishes):
        for entry in [*moves, ["concede"]]:
            race.record(index, entry, race.next_state(index, entry), when)
    race.finish(200.0)
    return race


def test_ties_on_score_go_to_the_earlier_published_time_then_to_fewer_moves() -> None:
    turn = [["turn"]]
    race = finished_race("golf", [(turn * 2, 101.0001), (turn, 101.0004), ([], 100.5)])
    # Every Golf score here is 35 (no card played). Seats 0 and 1 both finished at 1.000 s as
    # published: seat 1, with fewer moves, comes first although its game ended 0.3 ms later than seat 0's.
    assert [(r["seat"], r["time"], r["moves"]) for r in race.results or []] == [(2, 0.5, 0), (1, 1.0, 1), (0, 1.0, 2)]
    assert verify_replay(replay_of(race)) == []
