"""The replay rebuilt as positions (pure): the engine's views, the timeline, the cursor, the refusals."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.client.tui.replaying import (
    Cursor,
    ReplayRefused,
    at_end,
    ending_text,
    just_made,
    last_step,
    moved,
    other_seat,
    positions_of,
    shown,
    toggled,
)
from parlour.games import Move, game_names, get_game
from tests.client.tui.replays import made_replay, played_log

SEED = 7


def golf_replay() -> dict[str, Any]:
    """Ada plays 6 moves, takes the last back and concedes; bob plays 4 and runs out of time."""
    return made_replay(
        "golf", SEED, [[*played_log("golf", SEED, 6, 1), ["undo"], ["concede"]], played_log("golf", SEED, 4, 2)]
    )


def engine_view(game_name: str, seed: int, log: list[list[Any]]) -> dict[str, Any]:
    """The player view after ``log`` (undo included), straight from the engine."""
    game = get_game(game_name)
    states = [game.deal(seed)]
    for entry in log:
        if entry == ["undo"]:
            states.pop()
        else:
            states.append(game.apply(states[-1], Move.from_wire(entry)))
    return game.view(states[-1], "player")


def test_every_position_is_the_engines_view_after_that_many_entries() -> None:
    document = golf_replay()
    replay = positions_of(document)
    assert [s.name for s in replay.seats] == ["ada", "bob"] and replay.seats[1].bot
    for seat, raw in zip(replay.seats, document["seats"], strict=True):
        log = raw["log"]
        for position in seat.positions[: len(log) + 1]:
            assert position.view == engine_view("golf", SEED, log[: position.number])
            assert position.entry == (log[position.number - 1] if position.number else None)
    ada, bob = replay.seats
    assert [p.text for p in ada.positions[:1] + ada.positions[-2:]] == ["the deal", "undo", "concede"]
    assert ada.positions[-2].moves == 5 and ada.positions[-1].moves == 5 == ada.result["moves"]
    assert ada.positions[-1].view["ended"] == "conceded"
    assert ada.positions[-2].move is None and ada.positions[1].move == Move.from_wire(document["seats"][0]["log"][0])
    assert ada.positions[1].before == ada.positions[0].view
    # bob's game was still running after his last entry: it ends by time, one position more.
    assert len(bob.positions) == 4 + 2 and bob.positions[-1].text == "out of time"
    assert bob.positions[-1].view["ended"] == "out_of_time" and bob.positions[-1].entry is None
    assert bob.positions[-1].view["score"] == bob.result["score"]


def test_the_timeline_goes_by_entry_number_seat_by_seat() -> None:
    replay = positions_of(golf_replay())
    assert replay.timeline[:4] == ((0, 1), (1, 1), (0, 2), (1, 2))
    assert replay.timeline[-3:] == ((0, 6), (0, 7), (0, 8))  # ada's last three, after bob's end
    assert replay.end == 8 + 5
    assert replay.points[0] == (0, 0) and replay.points[3] == (2, 1) and replay.points[-1] == (8, 5)
    assert all(replay.point_of(s, n) == t + 1 for t, (s, n) in enumerate(replay.timeline))


def test_the_cursor_steps_toggles_and_switches_seats_at_the_same_moment() -> None:
    replay = positions_of(golf_replay())
    alone = Cursor()
    assert moved(replay, alone, -1) == alone and last_step(replay, alone) == 8
    assert moved(replay, alone, 100).step == 8 and at_end(replay, moved(replay, alone, 100))
    at3 = moved(replay, alone, 3)
    together = toggled(replay, at3)
    assert together == Cursor(True, 0, 5)  # ada's 3rd entry is the timeline's 5th
    assert [p.number for _, p in shown(replay, together)] == [3, 2]
    assert toggled(replay, together) == at3
    assert other_seat(replay, at3, 1) == Cursor(False, 1, 2)  # bob had made 2 entries by then
    assert other_seat(replay, at3, 2) == at3
    assert other_seat(replay, together, 1) == Cursor(True, 1, 5)
    seat, position = just_made(replay, moved(replay, together, 1))  # type: ignore[misc]
    assert (seat.name, position.number) == ("bob", 3)
    assert just_made(replay, alone) is None
    assert ending_text(replay.seats[0]) == "2nd place: score 34, conceded, 5 moves, 10.0 s"


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(game_names()),
    st.integers(0, 2**32),
    st.lists(st.integers(0, 30), min_size=1, max_size=3),
    st.booleans(),
    st.integers(0, 40),
    st.integers(0, 40),
    st.integers(0, 2),
)
def test_forward_n_then_back_n_returns_to_the_same_position(
    name: str, seed: int, lengths: list[int], together: bool, start: int, n: int, seat: int
) -> None:
    logs = [played_log(name, seed, length, pick) for pick, length in enumerate(lengths)]
    replay = positions_of(made_replay(name, seed, logs))
    cursor = moved(replay, Cursor(together, seat % len(logs)), start)
    ahead = moved(replay, cursor, n)
    if cursor.step + n <= last_step(replay, cursor):
        assert moved(replay, ahead, -n) == cursor
        assert shown(replay, moved(replay, ahead, -n)) == shown(replay, cursor)
    else:
        assert at_end(replay, ahead)
    assert toggled(replay, toggled(replay, cursor)).together == cursor.together
    for seat_replay, position in shown(replay, cursor):
        log = logs[seat_replay.seat]
        if position.number <= len(log):
            assert position.view == engine_view(name, seed, log[: position.number])


def test_a_dishonest_or_malformed_replay_is_refused_with_its_problems() -> None:
    document = golf_replay()
    changed = copy.deepcopy(document)
    changed["seed"] = f"{SEED + 1:x}"
    with pytest.raises(ReplayRefused) as refused:
        positions_of(changed)
    assert any("commitment" in problem for problem in refused.value.problems)

    changed = copy.deepcopy(document)
    changed["seats"][1]["log"].insert(0, ["play", "p9"])
    with pytest.raises(ReplayRefused) as refused:
        positions_of(changed)
    assert any("seat 1: entry 0" in problem for problem in refused.value.problems)

    changed = copy.deepcopy(document)
    changed["results"][0]["score"] = 1
    with pytest.raises(ReplayRefused, match="the result says score 1"):
        positions_of(changed)

    for bad in ({}, {"format": "parlour-replay-1"}, []):
        with pytest.raises(ReplayRefused):
            positions_of(bad)  # type: ignore[arg-type]
