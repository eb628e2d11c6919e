"""The ``parlour`` command line, run as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from parlour.client.line_play import HELP
from parlour.games import engine_build, game_names, get_game


def parlour(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "parlour.client.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


GOLF_BOARD = "Talon: KC\nFoundations: 5S\n3C 4H\n2D\n:\n:\n:\n:\n:\n"  # a Golf deal near its end


def golf_board(tmp_path: Path) -> Path:
    """:data:`GOLF_BOARD` in a file, for ``--layout``."""
    board = tmp_path / "board.txt"
    board.write_text(GOLF_BOARD)
    return board


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
    board = golf_board(tmp_path)
    result = parlour("play-local", "golf", "--layout", str(board), stdin="?\nplay p5\n#1\np1\np2\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "#1 play p1" in out and "#2 turn" in out and "play p2" not in out.split("move>")[1]
    assert "Game over: won. Score: 0 (lower is better)." in out


def test_the_same_error_words_locally_and_in_races(tmp_path: Path) -> None:
    """A refusal reads as the server's error code and message, as ``parlour race`` prints them."""
    board = golf_board(tmp_path)
    out = parlour("play-local", "golf", "--layout", str(board), stdin="play p5\nplay p9\n").stdout
    assert "illegal_move: pile 5 is empty" in out
    assert "bad_move: " in out and "BadMove" not in out and "IllegalMove" not in out


def test_a_bare_number_is_a_move_and_listed_moves_are_picked_with_a_hash(tmp_path: Path) -> None:
    board = tmp_path / "board.txt"
    board.write_text("Talon: KC\nFoundations: 5S\n9C\n4H\n:\n:\n:\n:\n:\n")  # only pile 2 can play
    out = parlour("play-local", "golf", "--layout", str(board), stdin="?\n1\n#1\nboard\n").stdout
    assert "#1 play p2" in out and "#2 turn" in out
    assert "illegal_move: 9C" in out  # '1' is pile 1, not the first listed move
    assert out.count("Waste: 4H") == 2  # '#1' played pile 2, and 'board' shows it
    assert "'?'" in HELP and "#N" in HELP


def test_the_chance_takes_a_move_without_a_count_when_only_one_count_is_possible() -> None:
    chance = get_game("the-chance")
    for seed in range(200):
        state = chance.deal(seed)
        counted = [m for m in chance.legal_moves(state) if m.count]
        alone = [m for m in counted if [(n.src, n.dst) for n in counted].count((m.src, m.dst)) == 1]
        if alone:
            break
    move = alone[0]
    out = parlour("play-local", "the-chance", "--seed", str(seed), stdin=f"move {move.src} {move.dst}\nboard\n").stdout
    after = chance.render(chance.view(chance.apply(state, move), "player"))
    assert "bad_move" not in out and after in out


def test_play_local_takes_moves_back_with_undo(tmp_path: Path) -> None:
    board = golf_board(tmp_path)
    out = parlour("play-local", "golf", "--layout", str(board), stdin="undo\np1\nundo\nboard\n").stdout
    assert "illegal_move: there is no move to undo" in out
    assert out.count("Waste: 5S") == 3 and out.count("Waste: 4H") == 1  # the start, after undo, and 'board'


def test_quit_asks_before_it_concedes() -> None:
    out = parlour("play-local", "golf", "--seed", "3", stdin="quit\nn\nquit\ny\n").stdout
    assert out.count("Concede? [y/N]") == 2 and "Not conceded: play on." in out
    assert "Game over: conceded." in out


def test_plurals_one_card_and_one_move() -> None:
    golf = get_game("golf")
    board = golf.from_text(GOLF_BOARD)
    assert "Stock: 1 card\n" in golf.render(golf.view(board, "player"))
    from parlour.client.line_race import format_results

    text = format_results([{"place": 1, "name": "ann", "score": 3, "ended": "won", "moves": 1, "time": 2.0}], "0", "0")
    assert "1 move," in text and "1 moves" not in text


def test_version_is_the_installed_package_version() -> None:
    from importlib.metadata import version

    result = parlour("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"parlour {version('parlour')} (engine: {engine_build()})"


def test_serve_help_shows_the_defaults() -> None:
    out = " ".join(parlour("serve", "--help").stdout.split())
    for default in ("(default: 60.0)", "(default: 600.0)", "(default: 3.0)", "(default: 200)", "(default: 5)"):
        assert default in out
    assert "~/.local/share/parlour/redis" in out


def test_a_seed_beside_a_layout_is_refused(tmp_path: Path) -> None:
    board = golf_board(tmp_path)
    for command in ("deal", "play-local"):
        result = parlour(command, "golf", "--layout", str(board), "--seed", "5")
        assert result.returncode == 2 and "--seed or --layout, not both" in result.stderr


def test_play_local_concedes_when_input_ends() -> None:
    result = parlour("play-local", "gaps", "--seed", "3", stdin="nonsense move\n")
    assert result.returncode == 0
    assert "bad_move" in result.stdout or "illegal_move" in result.stdout
    assert "Game over: conceded." in result.stdout


def test_serve_refuses_a_data_dir_with_a_newline_with_a_clear_error_before_anything_starts(tmp_path: Path) -> None:
    data_dir = tmp_path / "data\ndir"
    result = parlour("serve", "--port", "0", "--data-dir", str(data_dir))
    assert result.returncode == 2 and "listening" not in result.stdout
    assert "must not hold control characters" in result.stderr and "'" in result.stderr  # the path, quoted
    assert not data_dir.exists()


def test_every_serve_setting_can_come_from_a_parlour_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from parlour.client.cli import build_parser
    from tests.conftest import free_port

    port = free_port()
    environment = {
        **os.environ,
        "PARLOUR_PORT": str(port),
        "PARLOUR_MAX_RACES": "9",
        "PARLOUR_DATA_DIR": str(tmp_path),
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "parlour.client.cli", "serve"],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(2)]
        assert f"parlour: listening on ws://127.0.0.1:{port}\n" in lines, lines
    finally:
        server.terminate()
        server.wait(20)
    assert server.returncode == 0
    for name, value in {"PARLOUR_MAX_RACES": "9", "PARLOUR_RATE": "2.5", "PARLOUR_REDIS_URL": "redis://r/1"}.items():
        monkeypatch.setenv(name, value)
    args = build_parser().parse_args(["serve"])
    assert (args.max_races, args.rate, args.redis_url, args.port) == (9, 2.5, "redis://r/1", 8765)
    assert build_parser().parse_args(["serve", "--max-races", "3"]).max_races == 3  # a flag still wins
    assert "[$PARLOUR_IDLE_TIMEOUT]" in " ".join(parlour("serve", "--help").stdout.split())
    refused = subprocess.run(
        [sys.executable, "-m", "parlour.client.cli", "serve"],
        env={**os.environ, "PARLOUR_PORT": "eighty"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and "argument --port: not a whole number: 'eighty'" in refused.stderr


def test_a_redis_that_does_not_answer_at_the_start_is_one_clear_line_without_its_password() -> None:
    from tests.conftest import free_port

    url = f"redis://user:hunter2@127.0.0.1:{free_port()}/0"  # nothing listens there
    done = parlour("serve", "--port", "0", "--redis-url", url)
    assert done.returncode == 1
    assert done.stderr.startswith(
        f"parlour: error: cannot reach Redis at redis://user:***@127.0.0.1:{url.split(':')[-1]}"
    )
    assert "hunter2" not in done.stdout + done.stderr and "Traceback" not in done.stderr
