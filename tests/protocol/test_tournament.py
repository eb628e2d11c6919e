"""The tournament rules: schedule, deal seeds, matchpoints and standings (pure)."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import fields
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlour.bots import arena
from parlour.protocol.messages import TournamentCreate
from parlour.protocol.tournament import (
    MAX_MOVES,
    MAX_MOVES_LIMIT,
    Entrant,
    Format,
    Result,
    Spec,
    TournamentError,
    deal_seed,
    make_spec,
    matchpoints,
    schedule,
    standings,
)


def entrants(n: int) -> list[Entrant]:
    return [Entrant(f"p{i}", f"player {i}", bot=i % 2 == 0) for i in range(n)]


def result(entrant: int, score: float, *, ended: str = "stuck", time: float = 10.0, moves: int = 5) -> Result:
    return Result(entrant, score, ended, time, moves)


@given(n=st.integers(2, 20), size=st.integers(2, 8), deals=st.integers(1, 4))
def test_a_duplicate_schedule_seats_every_entrant_once_on_every_deal(n: int, size: int, deals: int) -> None:
    spec = make_spec("duplicate", [("golf", None)], deals, entrants(n), size)
    slots = schedule(spec)
    assert [s.index for s in slots] == list(range(len(slots)))
    for deal in range(deals):
        on_deal = [s for s in slots if s.deal == deal]
        seated = [e for s in on_deal for e in s.entrants]
        assert sorted(seated) == list(range(n))
        assert all(len(s.entrants) <= size for s in on_deal)
        assert max(len(s.entrants) for s in on_deal) - min(len(s.entrants) for s in on_deal) <= 1
        assert {s.round for s in on_deal} == {deal}


@given(n=st.integers(2, 11), deals=st.integers(1, 3))
def test_head_to_head_plays_every_pair_on_every_deal_one_race_at_a_time(n: int, deals: int) -> None:
    spec = make_spec("head-to-head", [("gaps", None)], deals, entrants(n))
    slots = schedule(spec)
    games = Counter((s.entrants, s.deal) for s in slots)
    assert set(games) == {(pair, d) for pair in itertools.combinations(range(n), 2) for d in range(deals)}
    assert set(games.values()) == {1}
    for _, in_round in itertools.groupby(slots, key=lambda s: s.round):
        seated = [e for s in in_round for e in s.entrants]
        assert len(seated) == len(set(seated))


def test_a_mixed_schedule_plays_each_game_in_turn() -> None:
    spec = make_spec("mixed", [("golf", None), ("the-chance", {"sequence": "suit"})], 2, entrants(3))
    slots = schedule(spec)
    assert [(s.event, s.deal, s.round) for s in slots] == [(0, 0, 0), (0, 1, 1), (1, 0, 2), (1, 1, 3)]
    assert spec.events[1].options == {"sequence": "suit"}


def test_deal_seeds_differ_by_deal_event_and_tournament_and_repeat_for_the_same() -> None:
    seeds = {deal_seed(s, e, "golf", d) for s in (1, 2) for e in (0, 1) for d in range(5)}
    assert len(seeds) == 20
    assert deal_seed(7, 0, "golf", 3) == deal_seed(7, 0, "golf", 3)
    assert all(0 <= s < 2**256 for s in seeds)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("knockout", [("golf", None)], 2, entrants(2)), "no tournament format"),
        (("duplicate", [("chess", None)], 2, entrants(2)), "chess"),
        (("duplicate", [("golf", {"wrap": True})], 2, entrants(2)), "no option"),
        (("duplicate", [("golf", None), ("gaps", None)], 2, entrants(2)), "plays one game"),
        (("mixed", [("golf", None), ("golf", {})], 2, entrants(2)), "listed twice"),
        (("duplicate", [("golf", None)], 0, entrants(2)), "deals"),
        (("duplicate", [("golf", None)], 2, entrants(1)), "at least two"),
        (("duplicate", [("golf", None)], 2, [*entrants(2), Entrant("p0", "again")]), "twice"),
        (("duplicate", [("golf", None)], 2, entrants(2), 9), "table size"),
        (("duplicate", [("golf", None)], 2, entrants(2), 8, True, 0), "move cap"),
        (("duplicate", [("golf", None)], 2, entrants(2), 8, True, MAX_MOVES_LIMIT + 1), "move cap"),
    ],
)
def test_a_tournament_that_cannot_be_held_is_refused_saying_why(args: tuple, says: str) -> None:
    with pytest.raises(TournamentError, match=says):
        make_spec(*args)


def test_a_spec_reads_back_from_its_map() -> None:
    spec = make_spec(
        "mixed", [("cheer", {"win_loss": True}), ("carpet", None)], 3, entrants(4), 3, timed=False, max_moves=400
    )
    assert Spec.from_map(spec.to_map()) == spec
    assert spec.to_map()["max_moves"] == 400


def test_the_move_cap_is_the_arenas_unless_given() -> None:
    assert make_spec("duplicate", [("golf", None)], 2, entrants(2)).max_moves == MAX_MOVES == arena.MAX_MOVES
    assert TournamentCreate(id=1).max_moves == MAX_MOVES  # the wire's default and limits are the same
    assert {f.name: f for f in fields(TournamentCreate)}["max_moves"].metadata["limits"] == (1, MAX_MOVES_LIMIT)


def test_matchpoints_beat_in_the_games_direction_with_ties_halved_and_forfeits_last() -> None:
    golf = [result(0, 3), result(1, 7), result(2, 3), Result(3, 0, "conceded", 0.0, 0, forfeit=True)]
    assert matchpoints(golf, higher_is_better=False) == {0: Fraction(5, 2), 1: 1, 2: Fraction(5, 2), 3: 0}
    assert matchpoints(golf[:3], higher_is_better=True) == {0: Fraction(1, 2), 1: 2, 2: Fraction(1, 2)}


def test_at_an_equal_score_a_played_out_game_then_the_earlier_then_the_shorter_wins() -> None:
    rows = [
        result(0, 5, ended="conceded", time=1.0),
        result(1, 5, time=9.0),
        result(2, 5, time=4.0, moves=9),
        result(3, 5, time=4.0, moves=3),
    ]
    assert matchpoints(rows, higher_is_better=True) == {0: 0, 1: 1, 2: 2, 3: 3}


def test_untimed_matchpoints_count_the_score_and_concession_alone() -> None:
    """An untimed tournament measures play, not speed: equal scores of played-out games tie, however many
    moves each took and whenever it ended; a conceded game still ranks below them, a better score above."""
    rows = [
        result(0, 5, ended="conceded", time=1.0, moves=1),
        result(1, 5, time=9.0, moves=40),
        result(2, 5, time=4.0, moves=9),
        result(3, 5, time=4.0, moves=3),
        result(4, 6, time=20.0, moves=300),
    ]
    assert matchpoints(rows, higher_is_better=True, timed=False) == {
        0: 0,
        1: Fraction(2),
        2: Fraction(2),
        3: Fraction(2),
        4: 4,
    }


@given(st.lists(st.tuples(st.integers(0, 3), st.booleans(), st.integers(0, 2)), min_size=1, max_size=8))
def test_a_deal_hands_out_one_matchpoint_per_pair(rows: list[tuple[int, bool, int]]) -> None:
    results = [Result(i, s, "conceded" if c else "won", float(t), 1) for i, (s, c, t) in enumerate(rows)]
    points = matchpoints(results, higher_is_better=True)
    n = len(rows)
    assert sum(points.values()) == Fraction(n * (n - 1), 2)


def test_duplicate_standings_rank_by_percentage_then_total_score_across_tables() -> None:
    spec = make_spec("duplicate", [("golf", None)], 2, entrants(4), table_size=2)
    # Deal 0: tables (0, 1) and (2, 3); deal 1 the same. Golf: lower is better.
    results = {
        0: [result(0, 2), result(1, 5)],
        1: [result(2, 5), result(3, 9)],
        2: [result(0, 4), result(1, 4)],
        3: [result(2, 1), result(3, 4)],
    }
    rows = standings(spec, results)
    # Deal 0: 0 beats all (3), 1 and 2 tie (1.5 each), 3 nothing. Deal 1: 2 beats all (3);
    # 0, 1, 3 tie on 4 (1 each). Totals: 0 4, 1 2.5, 2 4.5, 3 1 of 6 possible.
    assert [(r.entrant, r.place, r.matchpoints) for r in rows] == [
        (2, 1, Fraction(9, 2)),
        (0, 2, 4),
        (1, 3, Fraction(5, 2)),
        (3, 4, 1),
    ]
    assert rows[0].percentage == 75
    assert rows[0].total_score == 6 and rows[0].deals == 2


def test_equal_rows_share_a_place_and_the_total_score_breaks_percentage_ties() -> None:
    spec = make_spec("duplicate", [("gaps", None)], 2, entrants(3))
    results = {0: [result(0, 10), result(1, 5), result(2, 1)], 1: [result(0, 1), result(1, 6), result(2, 10)]}
    rows = standings(spec, results)
    # 0 and 2 each have 2 of 4; 0 scored 11, 2 scored 11: they share first place. 1 has 2 of 4 too,
    # with 11 as well: all three share it.
    assert {(r.entrant, r.place) for r in rows} == {(0, 1), (1, 1), (2, 1)}
    results[1] = [result(0, 1), result(1, 7), result(2, 10)]
    rows = standings(spec, results)
    assert [(r.entrant, r.place) for r in rows] == [(1, 1), (0, 2), (2, 2)]


def test_mixed_standings_sum_each_games_percentage() -> None:
    spec = make_spec("mixed", [("golf", None), ("gaps", None)], 1, entrants(2))
    # Golf: 0 wins; Gaps: 1 wins by a huge score, which must not outweigh the Golf deal.
    results = {0: [result(0, 1), result(1, 20)], 1: [result(0, 0), result(1, 48)]}
    rows = standings(spec, results)
    assert [(r.entrant, r.percentage, r.by_game) for r in rows] == [
        (0, 100, (Fraction(100), Fraction(0))),
        (1, 100, (Fraction(0), Fraction(100))),
    ]
    assert rows[0].place == rows[1].place == 1


def test_head_to_head_counts_a_match_once_its_deals_are_played_and_halves_a_draw() -> None:
    spec = make_spec("head-to-head", [("golf", None)], 2, entrants(3))
    by_pair = {(s.entrants, s.deal): s.index for s in schedule(spec)}

    def play(pair: tuple[int, int], deal: int, a: int, b: int) -> tuple[int, list[Result]]:
        return by_pair[pair, deal], [result(pair[0], a), result(pair[1], b)]

    results = dict([play((0, 1), 0, 1, 9), play((0, 2), 0, 9, 1), play((0, 2), 1, 1, 9), play((1, 2), 0, 1, 9)])
    rows = {r.entrant: r for r in standings(spec, results)}
    assert [rows[i].match_wins for i in range(3)] == [Fraction(1, 2), 0, Fraction(1, 2)]  # only 0-2 is done: a draw
    results.update([play((0, 1), 1, 1, 9), play((1, 2), 1, 1, 9)])
    rows_list = standings(spec, results)
    assert [(r.entrant, r.match_wins, r.place) for r in rows_list] == [
        (0, Fraction(3, 2), 1),
        (1, 1, 2),
        (2, Fraction(1, 2), 3),
    ]
    assert rows_list[0].percentage == 75


def test_no_results_yet_gives_everyone_the_first_place_at_zero() -> None:
    spec = make_spec("duplicate", [("golf", None)], 3, entrants(3))
    rows = standings(spec, {})
    assert {r.place for r in rows} == {1}
    assert all(r.percentage == 0 and r.deals == 0 for r in rows)
    assert rows[0].to_map()["percentage"] == 0.0
    assert Format(spec.format) is Format.DUPLICATE
