"""The ``parlour`` command line, run as a real process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from parlour.games import game_names, get_game


def parlour(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "parlour.client.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_games_lists_every_game_with_its_options() -> None:
    result = parlour("games")
    assert result.returncode == 0
    for name in game_names():
        assert name in result.stdout
    assert "sequence=alternate|any|suit" in result.stdout
    assert "win_loss=false|true" in result.stdout
    assert "lower is better" in result.stdout


def test_deal_prints_a_layout_that_reads_back() -> None:
    result = parlour("deal", "the-chance", "--seed", "0x2a", "-o", "sequence=suit")
    assert result.returncode == 0
    chance = get_game("the-chance")
    dealt = chance.deal(42, {"sequence": "suit"})
    assert result.stdout == chance.to_text(dealt)
    assert chance.to_text(chance.from_text(result.stdout, {"sequence": "suit"})) == result.stdout


def test_deal_view_hides_the_stock() -> None:
    result = parlour("deal", "golf", "--seed", "5", "--view")
    golf = get_game("golf")
    state = golf.deal(5)
    assert result.stdout.strip() == golf.render(golf.view(state)).strip()
    assert not any(text in result.stdout for text in golf.to_text(state).splitlines()[0].split()[1:])


def test_bad_input_gets_a_clear_error_and_status_2() -> None:
    unknown = parlour("deal", "chess")
    assert unknown.returncode == 2 and "no game called 'chess'" in unknown.stderr and "golf" in unknown.stderr
    option = parlour("deal", "cheer", "-o", "win_loss=perhaps")
    assert option.returncode == 2 and "false, true" in option.stderr
    seed = parlour("deal", "golf", "--seed", str(2**256))
    assert seed.returncode == 2 and "below 2**256" in seed.stderr
    layout = parlour("play-local", "golf", "--layout", "/nonexistent/board.txt")
    assert layout.returncode == 2 and "cannot read" in layout.stderr


def test_play_local_plays_typed_moves_and_reports_the_end(tmp_path: Path) -> None:
    board = tmp_path / "board.txt"
    board.write_text("Talon: KC\nFoundations: 5S\n3C 4H\n2D\n:\n:\n:\n:\n:\n")
    result = parlour("play-local", "golf", "--layout", str(board), stdin="?\nplay p5\n1\np1\np2\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "1. play p1" in out and "2. turn" in out and "play p2" not in out.split("move>")[1]
    assert "IllegalMove: pile 5 is empty" in out
    assert "Game over: won. Score: 0 (lower is better)." in out


def test_play_local_concedes_when_input_ends() -> None:
    result = parlour("play-local", "gaps", "--seed", "3", stdin="nonsense move\n")
    assert result.returncode == 0
    assert "BadMove" in result.stdout or "IllegalMove" in result.stdout
    assert "Game over: conceded." in result.stdout


def test_serve_refuses_a_data_dir_with_a_newline_with_a_clear_error_before_anything_starts(tmp_path: Path) -> None:
    data_dir = tmp_path / "data\ndir"
    result = parlour("serve", "--port", "0", "--data-dir", str(data_dir))
    assert result.returncode == 2 and "listening" not in result.stdout
    assert "must not hold control characters" in result.stderr and "'" in result.stderr  # the path, quoted
    assert not data_dir.exists()
