"""Ranking a finished race: the order anyone can check from the published results."""

from __future__ import annotations

from typing import Any

from parlour.protocol.replay import ranked_results, verify_replay
from parlour.server.app import replay_of
from parlour.server.race import CODE_ALPHABET, CODE_LENGTH, Race, Settings, new_code, read_code


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


def test_a_conceded_seat_ranks_below_a_seat_that_played_its_game_out_to_the_same_score() -> None:
    race = Race(id="r2", settings=Settings(game="golf", options={}, seats=3), created_by="p0", created_at=0.0)
    for index in range(3):
        race.join(f"p{index}", f"player{index}", False)
    race.start(100.0)
    # Seat 0 is abandoned: conceded for absence, with no move, right after the start.
    race.record(0, ["concede"], race.next_state(0, ["concede"]), 100.5)
    # Seats 1 and 2 play on (turning the stock leaves all 35 cards in the piles) until the deadline.
    for entry in [["turn"]] * 3:
        race.record(1, entry, race.next_state(1, entry), 110.0)
    race.record(2, ["turn"], race.next_state(2, ["turn"]), 120.0)
    race.finish(700.0)
    ranked = [(r["seat"], r["score"], r["ended"], r["moves"]) for r in race.results or []]
    # All score 35: the played-out games first (fewer moves breaks their tie), the concession last
    # although it ended 599.5 s earlier.
    assert ranked == [(2, 35, "out_of_time", 1), (1, 35, "out_of_time", 3), (0, 35, "conceded", 0)]
    assert verify_replay(replay_of(race)) == []

    # verify applies the same rule: places that put the early concession first are refused.
    tampered = replay_of(race)
    for result, place in zip(tampered["results"], [2, 3, 1], strict=True):
        result["place"] = place
    assert any("places" in problem for problem in verify_replay(tampered))


def test_a_better_score_still_beats_a_concession_only_at_equal_scores_does_the_concession_go_last() -> None:
    rows = [
        {"seat": 0, "score": 33, "ended": "conceded", "time": 5.0, "moves": 2},
        {"seat": 1, "score": 34, "ended": "stuck", "time": 4.0, "moves": 1},
        {"seat": 2, "score": 33, "ended": "out_of_time", "time": 600.0, "moves": 9},
    ]
    assert [r["seat"] for r in ranked_results(rows, higher_is_better=False)] == [2, 0, 1]
    assert [r["seat"] for r in ranked_results(rows, higher_is_better=True)] == [1, 2, 0]


def test_join_codes_take_every_character_at_every_place_and_read_back_as_themselves() -> None:
    codes = [new_code() for _ in range(3000)]
    assert all(len(code) == CODE_LENGTH and read_code(code) == code for code in codes)
    for place in range(CODE_LENGTH):  # 3000 codes miss a character at a place with odds of about e**-94
        assert {code[place] for code in codes} == set(CODE_ALPHABET), place
    assert len(set(codes)) == len(codes)
