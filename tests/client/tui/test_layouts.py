"""Each game's board drawn from views, and the presses that make its moves: no Textual here."""

from __future__ import annotations

import random
from typing import Any

import pytest

from parlour.client.tui.board import Board, card_face, step
from parlour.client.tui.layouts import layout_for, legal_moves
from parlour.client.tui.picking import Clear, Play, Refuse, Select, Selection, press
from parlour.games import Game, IllegalMove, Move, game_names, get_game

SEEDS = (1, 7, 42)


def positions(game: Game[Any], seed: int, moves: int = 40) -> list[dict[str, Any]]:
    """The player's views along a random game from ``seed``'s deal."""
    rng = random.Random(seed)
    state = game.deal(seed)
    views = [game.view(state, "player")]
    for _ in range(moves):
        legal = game.legal_moves(state)
        if not legal:
            break
        state = game.apply(state, rng.choice(legal))
        views.append(game.view(state, "player"))
    return views


def pressing(game_name: str, view: dict[str, Any], move: Move) -> Move | None:
    """The move a player makes by pressing the places ``move`` joins (its source's cards from the
    depth the move takes, as a click does), or ``None`` if no link of it leads there."""
    layout = layout_for(game_name)
    board = layout.board(view)
    for link in layout.link(move, view):
        first = press(layout, view, board, None, link.src, link.count)
        if isinstance(first, Play):
            if first.move == move:
                return move
            continue
        if not link.dst or not isinstance(first, Select):
            continue
        second = press(layout, view, board, first.selection, link.dst, link.count)
        if isinstance(second, Play) and second.move == move:
            return move
    return None


@pytest.mark.parametrize("name", game_names())
def test_every_legal_move_is_made_by_pressing_its_places(name: str) -> None:
    game = get_game(name)
    layout = layout_for(name)
    for seed in SEEDS:
        for view in positions(game, seed):
            board = layout.board(view)
            names = {place.name for place in board.places()}
            for move in legal_moves(view):
                for link in layout.link(move, view):
                    assert link.src in names and link.dst in names | {""}, (move, link)
                assert pressing(name, view, move) == move, (seed, move)


@pytest.mark.parametrize("name", game_names())
def test_a_pair_of_places_sends_only_moves_the_engine_reads(name: str) -> None:
    """Pressing any source then any destination sends a legal move, or one the engine refuses as illegal
    (with its reason), never one it cannot read (a server would answer ``bad_move``)."""
    game = get_game(name)
    layout = layout_for(name)
    for seed in SEEDS[:2]:
        rng = random.Random(seed)
        state = game.deal(seed)
        for _ in range(12):
            view = game.view(state, "player")
            board = layout.board(view)
            names = [p.name for p in board.places() if p.pointable and p.name not in layout.actions]
            for src in names:
                first = press(layout, view, board, None, src)
                if not isinstance(first, Select):
                    continue
                for dst in names:
                    second = press(layout, view, board, first.selection, dst)
                    if isinstance(second, Play) and second.move not in legal_moves(view):
                        with pytest.raises(IllegalMove):
                            game.apply(state, second.move)
            legal = game.legal_moves(state)
            if not legal:
                break
            state = game.apply(state, rng.choice(legal))


@pytest.mark.parametrize("name", game_names())
def test_a_board_shows_every_card_the_view_shows_and_backs_for_the_rest(name: str) -> None:
    game = get_game(name)
    for view in positions(game, 3, 20):
        board = layout_for(name).board(view)
        shown = sorted(card for place in board.places() for card in place.cards if card is not None)
        texts = _cards_in(view["board"])
        assert all(card in texts for card in shown)  # wastes show their top card only
        assert sum(place.down for place in board.places()) == _hidden_count(view["board"])


def _cards_in(data: object) -> list[str]:
    if isinstance(data, str):
        return [data] if len(data) == 2 and data[1] in "CDHS" else []
    if isinstance(data, dict):
        return [c for value in data.values() for c in _cards_in(value)]
    if isinstance(data, list):
        return [c for value in data for c in _cards_in(value)]
    return []


def _hidden_count(board: dict[str, Any]) -> int:
    """The face-down cards a view counts: its stock or deck, and face-down column cards."""
    count = sum(board.get(key, 0) for key in ("stock", "deck"))
    return count + sum(column["down"] for column in board.get("columns", []) if isinstance(column, dict))


def test_the_cursor_steps_along_bands_and_between_them() -> None:
    view = get_game("golf").view(get_game("golf").deal(7), "player")
    board: Board = layout_for("golf").board(view)
    assert board.first() == "p1"
    assert step(board, "p1", "left") == "p7"
    assert step(board, "p1", "right") == "p2"
    assert step(board, "p1", "up") == "s"
    assert step(board, "p7", "up") == "w"
    assert step(board, "w", "down") in ("p5", "p6", "p7")
    assert board.numbered(3) == "p3" and board.numbered(8) is None


def test_grids_keep_the_column_going_up_and_down() -> None:
    view = get_game("gaps").view(get_game("gaps").deal(7), "player")
    board = layout_for("gaps").board(view)
    assert step(board, "b7", "down") == "c7"
    assert step(board, "a13", "up") != "a13"  # to the redeal button's band: the captions are skipped


def test_card_faces_read_without_colour() -> None:
    assert card_face("TD") == ("10♦", True)
    assert card_face("AS") == (" A♠", False)
    assert card_face("KC")[0] != card_face("KS")[0]  # the suit shows as a symbol, not only a colour


def test_a_press_refuses_with_a_reason_when_the_game_has_no_such_move() -> None:
    golf = get_game("golf")
    view = golf.view(golf.deal(7), "player")
    layout = layout_for("golf")
    board = layout.board(view)
    outcome = press(layout, view, board, Selection("p1"), "p2")
    assert isinstance(outcome, Refuse) and "waste" in outcome.reason
    assert isinstance(press(layout, view, board, None, "w"), Refuse)  # nothing moves from the waste
    assert press(layout, view, board, None, "s") == Play(Move("turn"))


def test_pressing_the_selected_place_again_takes_fewer_cards_then_drops_it() -> None:
    cheer = get_game("cheer")
    state = cheer.from_text(
        "c1: KH QH JH\nc2: KC QC JC\nc3: KD QD JD\nc4: KS QS JS\nc5:\nc6:\nc7:\nFoundations: TC TD TH TS\n"
    )
    view = cheer.view(state, "player")
    layout = layout_for("cheer")
    board = layout.board(view)
    first = press(layout, view, board, None, "c1")
    assert isinstance(first, Select) and first.selection == Selection("c1") and "p1" in first.targets
    assert press(layout, view, board, first.selection, "p1") == Play(Move("move", "c1", "p1", 3))
    fewer = press(layout, view, board, first.selection, "c1")
    assert isinstance(fewer, Select) and fewer.selection == Selection("c1", 2)
    assert press(layout, view, board, fewer.selection, "p1") == Play(Move("move", "c1", "p1", 2))
    last = press(layout, view, board, Selection("c1", 1), "c1")
    assert last == Clear()


def test_a_gap_that_one_card_fills_is_filled_by_pressing_it() -> None:
    gaps = get_game("gaps")
    view = gaps.view(gaps.deal(7), "player")
    layout = layout_for("gaps")
    fill = next(m for m in legal_moves(view) if m.kind == "fill")
    assert press(layout, view, layout.board(view), None, fill.src) == Play(fill)
