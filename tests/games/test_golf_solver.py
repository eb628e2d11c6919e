"""The Golf solver, checked two ways on seeded boards.

1. Every winning line it returns replays through the engine itself to a won game.
2. Every verdict equals that of ``plain_search`` below: an exhaustive search with no
   pruning and no cleverness, slow but plainly correct.

Both checks run on 200 boards part-played from seeded deals (8 to 16 seeded random
moves in, preferring pile plays); check 1 also runs on the 200 full deals of seeds 0-199. The plain search
needs about ten minutes for full deals, so comparing verdicts on those 200 full deals
runs only with ``PARLOUR_SLOW_TESTS=1``.
"""

from __future__ import annotations

import json
import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.client.cli import main
from parlour.games import Ending, Move, get_game
from parlour.games.cards import cards_text, standard_deck
from parlour.games.golf import PLAY, TURN, GolfState
from parlour.games.golf_solver import fewest, solve

GOLF = get_game("golf")
SEEDS = range(200)
SLOW = os.environ.get("PARLOUR_SLOW_TESTS") == "1"


def part_played(seed: int) -> GolfState:
    """The deal of ``seed`` after 8 to 16 moves chosen by ``seed``: a random pile play
    when there is one, else a turn (plain random moves ruin nearly every board)."""
    chooser = random.Random(seed)
    state = GOLF.deal(seed)
    for _ in range(chooser.randint(8, 16)):
        legal = GOLF.legal_moves(state)
        if not legal:
            break
        plays = [m for m in legal if m.kind == "play"]
        state = GOLF.apply(state, chooser.choice(plays or legal))
    return state


def check_line(state: GolfState, label: str) -> bool:
    """Solve ``state``; a winning line must win through the engine. Return the verdict."""
    solution = solve(state)
    if solution.winnable:
        for move in solution.line:
            state = GOLF.apply(state, move)
        assert state.ended is Ending.WON, f"{label}: the winning line does not win"
    else:
        assert solution.line == ()
    return solution.winnable


def plain_search(state: GolfState) -> bool:
    """Whether any sequence of legal moves empties the tableau: try them all (see :func:`plain_fewest`)."""
    return plain_fewest(state) == 0


def test_winning_lines_replay_to_a_win_on_200_deals() -> None:
    verdicts = [check_line(GOLF.deal(seed), f"seed {seed}") for seed in SEEDS]
    assert 0.3 < sum(verdicts) / len(verdicts) < 0.6  # published solvers: about 44%


def test_verdicts_equal_plain_search_on_200_part_played_boards() -> None:
    verdicts = []
    for seed in SEEDS:
        state = part_played(seed)
        verdict = check_line(state, f"part-played seed {seed}")
        assert verdict == plain_search(state), f"part-played seed {seed}: the verdicts differ"
        verdicts.append(verdict)
    assert 20 < sum(verdicts) < 180  # both verdicts are well represented


@pytest.mark.skipif(not SLOW, reason="about ten minutes; set PARLOUR_SLOW_TESTS=1")
def test_verdicts_equal_plain_search_on_200_full_deals() -> None:
    for seed in SEEDS:
        state = GOLF.deal(seed)
        assert check_line(state, f"seed {seed}") == plain_search(state), f"seed {seed}: the verdicts differ"


def test_solver_on_a_layout_from_another_solver(tmp_path: pytest.TempPathFactory) -> None:
    layout = (
        "Talon: 6D KC KS AH AC KD 4S 8D 8H JD TC AD QH 4C JS 2C\nFoundations: 5S\n"
        "9D TS 5C 7D 7H\n3S 6S 5D QC 7S\n9S 6C 3H JC 9H\nQD 7C 5H 3C QS\n"
        "AS KH 2H TH TD\n4H 8C 6H 2D 2S\n9C 4D 8S JH 3D\n"
    )
    state = GOLF.from_text(layout)
    solution = solve(state)
    assert solution.winnable == plain_search(state)


def test_solver_decides_finished_and_hopeless_states() -> None:
    won = GOLF.from_text("Talon:\nFoundations: 5S\n:\n:\n:\n:\n:\n:\n:\n")
    assert solve(won).winnable and solve(won).line == ()
    stuck = GOLF.from_text("Talon:\nFoundations: 5S\nKH\n:\n:\n:\n:\n:\n:\n")
    assert not solve(stuck).winnable
    # The last king can only follow a queen, and no queen is left to come.
    kings = GOLF.from_text("Talon: 2C\nFoundations: JS\nKH\n:\n:\n:\n:\n:\n:\n")
    assert not solve(kings).winnable and not plain_search(kings)


def test_solve_command_prints_json_per_board(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    board = tmp_path / "b.txt"
    board.write_text(GOLF.to_text(GOLF.deal(1)))
    assert main(["solve", "golf", "--board", str(board), "--seed", "3", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["board"] for r in rows] == [str(board), "3"]
    assert rows[0]["winnable"] is solve(GOLF.deal(1)).winnable
    assert rows[1]["winnable"] is False and rows[1]["line"] == []
    state = GOLF.deal(1)
    for text in rows[0]["line"]:
        state = GOLF.apply(state, GOLF.parse_move(text))
    assert (state.ended is Ending.WON) == rows[0]["winnable"]


def plain_fewest(state: GolfState) -> int:
    """The fewest cards any sequence of legal moves leaves in the piles: try them all.

    A position is the pile heights, the cards turned and the waste top's rank; the rest
    of the state is fixed by those. Each position is searched at most once.
    """
    piles = [[c % 13 for c in pile] for pile in state.piles]
    stock = [c % 13 for c in state.stock]
    seen: set[tuple[tuple[int, ...], int, int]] = set()
    todo = [(tuple(len(p) for p in piles), 0, state.waste[-1] % 13)]
    best = sum(todo[0][0])
    while todo:
        position = todo.pop()
        if position in seen:
            continue
        seen.add(position)
        heights, turned, top = position
        best = min(best, sum(heights))
        if best == 0:
            return 0
        for i, h in enumerate(heights):
            if h > 0 and abs(piles[i][h - 1] - top) == 1:
                todo.append((heights[:i] + (h - 1,) + heights[i + 1 :], turned, piles[i][h - 1]))
        if turned < len(stock):
            todo.append((heights, turned + 1, stock[turned]))
    return best


def test_fewest_equals_plain_search_and_its_line_reaches_its_score() -> None:
    for seed in range(0, 200, 10):
        state = part_played(seed)
        for _ in range(6):  # six turns further on, for a plain search of seconds, not minutes
            if state.ended is None and state.stock:
                state = GOLF.apply(state, Move("turn"))
        best = fewest(state)
        assert best.exact
        assert best.score == plain_fewest(state), f"part-played seed {seed}"
        for move in best.line:
            state = GOLF.apply(state, move)
        assert state.ended is not None and GOLF.score(state) == best.score, f"part-played seed {seed}"


def first_line_to(state: GolfState, score: int) -> tuple[Move, ...]:
    """The first line in move order (pile plays from the first pile on, then the turn) that leaves ``score``
    cards in the piles, then every turn still to come (none once the piles are empty): a plain depth-first
    search. A position searched before cannot reach ``score`` the second time either."""
    piles = [[c % 13 for c in pile] for pile in state.piles]
    stock = [c % 13 for c in state.stock]
    seen: set[tuple[tuple[int, ...], int, int]] = set()
    line: list[Move] = []

    def search(heights: tuple[int, ...], turned: int, top: int) -> bool:
        if (heights, turned, top) in seen:
            return False
        seen.add((heights, turned, top))
        if sum(heights) == score:
            return True
        for i, h in enumerate(heights):
            if h > 0 and abs(piles[i][h - 1] - top) == 1:
                line.append(PLAY[i])
                if search(heights[:i] + (h - 1,) + heights[i + 1 :], turned, piles[i][h - 1]):
                    return True
                line.pop()
        if turned < len(stock):
            line.append(TURN)
            if search(heights, turned + 1, stock[turned]):
                return True
            line.pop()
        return False

    assert search(tuple(len(p) for p in piles), 0, state.waste[-1] % 13)
    turns = len(stock) - line.count(TURN) if score else 0
    return (*line, *[TURN] * turns)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    heights=st.lists(st.integers(0, 4), min_size=7, max_size=7),
    stock=st.integers(0, 8),
)
def test_fewest_on_small_boards_is_the_plain_best_and_the_first_line_to_it(
    seed: int, heights: list[int], stock: int
) -> None:
    deck = standard_deck()
    random.Random(seed).shuffle(deck)
    piles = []
    for h in heights:
        piles.append(deck[:h])
        del deck[:h]
    text = f"Talon: {cards_text(deck[:stock])}\nFoundations: {cards_text(deck[stock : stock + 1])}\n"
    state = GOLF.from_text(text + "".join(f": {cards_text(p)}\n" for p in piles))
    best = fewest(state)
    assert best.exact and best.score == plain_fewest(state)
    if state.ended is None:
        assert best.line == first_line_to(state, best.score)


def test_fewest_with_a_limit_answers_a_line_it_found() -> None:
    state = GOLF.deal(0)
    best = fewest(state, limit=50)
    assert not best.exact and best.positions == 50
    for move in best.line:
        state = GOLF.apply(state, move)
    assert state.ended is not None and GOLF.score(state) == best.score >= fewest(GOLF.deal(0)).score
