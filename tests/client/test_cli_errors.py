"""Client commands meeting a mistake or a local problem: one clear line naming the real cause (never
"cannot reach" the server for a file of this machine), or a quiet end when stdout's reader goes away.
Real processes and a real server."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

from tests.conftest import ServerProcess


def parlour(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """A whole ``parlour`` command, its identities under ``home``."""
    return subprocess.run(
        [sys.executable, "-m", "parlour.client.cli", *args],
        env={**os.environ, "XDG_CONFIG_HOME": str(home)},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def finished_race(server: ServerProcess, home: Path) -> str:
    """The id of a race of one seat, conceded at once: over, with a replay."""
    done = parlour(home, "race", "create", "golf", "--seats", "1", "--server", server.url, stdin="concede\n")
    assert done.returncode == 0, done.stdout + done.stderr
    found = re.search(r"Race (\w+) created", done.stdout)
    assert found is not None, done.stdout
    return found.group(1)


def test_a_replay_that_cannot_be_written_names_the_file_not_the_server(server: ServerProcess, tmp_path: Path) -> None:
    race = finished_race(server, tmp_path)
    target = tmp_path / "no-such-folder" / "race.json"
    done = parlour(tmp_path, "replay", race, "-o", str(target), "--server", server.url)
    assert done.returncode == 2
    assert done.stderr == f"parlour: error: cannot write {target}: No such file or directory\n"


def test_stdout_closed_by_its_reader_ends_the_command_quietly(server: ServerProcess, tmp_path: Path) -> None:
    for command in (["races"], ["replay", finished_race(server, tmp_path), "-o", "-"]):
        process = subprocess.Popen(
            [sys.executable, "-m", "parlour.client.cli", *command, "--server", server.url],
            env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # as 'head' does once it has its lines: every write now fails with EPIPE
        said = process.stderr.read()
        assert process.wait(60) == 0 and said == "", said


def test_a_server_url_with_a_bad_port_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    for url in ("ws://127.0.0.1:abc", "127.0.0.1:99999", "ws://127.0.0.1:0"):
        for command in (["races"], ["bot", "run", "greedy"], ["race", "join", "CODE"]):
            done = parlour(tmp_path, *command, "--server", url)
            assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
            assert done.stderr.splitlines()[-1].endswith(
                f"error: argument --server: a server's port is a whole number from 1 to 65535, in {url!r}"
                if "://" in url
                else f"in 'ws://{url}'"
            ), done.stderr
    done = parlour(tmp_path, "races", "--server", "ws://:8765")
    assert done.returncode == 2 and "a server's URL names its host" in done.stderr


def test_a_layout_or_board_that_is_not_utf8_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    board = tmp_path / "board.txt"
    board.write_bytes(b"Talon: KC\n\xff\xfe\n")
    for command in (["deal", "golf", "--layout"], ["play-local", "golf", "--layout"], ["solve", "golf", "--board"]):
        done = parlour(tmp_path, *command, str(board))
        assert done.returncode == 2 and done.stderr == f"parlour: error: cannot read {board}: it is not UTF-8 text\n"


def test_verify_dash_reads_the_replay_that_replay_dash_o_dash_writes(server: ServerProcess, tmp_path: Path) -> None:
    race = finished_race(server, tmp_path)
    saved = parlour(tmp_path, "replay", race, "-o", "-", "--server", server.url)
    assert saved.returncode == 0 and "check it with: parlour verify -" in saved.stderr
    checked = parlour(tmp_path, "verify", "-", stdin=saved.stdout)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout == "stdin: OK: golf, 1 seat, commitment, every log and every score check out\n"
    tampered = json.loads(saved.stdout)
    tampered["seed"] = "00" * 16
    checked = parlour(tmp_path, "verify", "-", stdin=json.dumps(tampered))
    assert checked.returncode == 1 and checked.stdout.startswith("stdin: REJECTED\n")
    twice = parlour(tmp_path, "verify", "-", "-", stdin=saved.stdout)
    assert twice.returncode == 2 and twice.stderr == "parlour: error: standard input is read once: give - once\n"


def test_flags_that_would_mean_nothing_are_refused(tmp_path: Path) -> None:
    nowhere = ["--server", "ws://127.0.0.1:9"]  # refused before any connection: no server is needed
    refusals = {
        ("race", "create", "golf", "--delay", "5"): "--delay is for --live-boards",
        ("play", "--bot", "greedy"): "--bot is for --race GAME (a bot online) or --practice (an installed bot)",
        ("play", "--replay", "r.json", "--bot", "greedy"): "--bot is for --race GAME",
        ("play", "--undo"): "--time-limit and --undo are for --race GAME",
        ("play", "--practice", "golf", "--time-limit", "60"): "--time-limit and --undo are for --race GAME",
    }
    for command, complaint in refusals.items():
        done = parlour(tmp_path, *command, *nowhere)
        assert done.returncode == 2 and done.stderr.startswith(f"parlour: error: {complaint}"), done.stderr
        assert done.stderr.count("\n") == 1


def test_watching_a_race_over_for_a_while_points_to_replay(server_factory: type[ServerProcess], tmp_path: Path) -> None:
    server = server_factory("--keep-finished", "0")  # a finished race leaves the server's memory at once
    server.start()
    race = finished_race(server, tmp_path)
    done = parlour(tmp_path, "watch", race, "--server", server.url)
    assert done.returncode == 2 and done.stderr == (
        "parlour: error: the server refused: unknown_race: no race with that id; "
        f"if it has finished, 'parlour replay {race}' saves its replay\n"
    )
    saved = parlour(tmp_path, "replay", race, "-o", "-", "--server", server.url)
    assert saved.returncode == 0 and json.loads(saved.stdout)["race"] == race


def test_web_on_a_port_in_use_says_so_without_announcing_the_address_first(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = parlour(tmp_path, "play", "--web", "--practice", "--port", str(port))
    assert done.returncode == 2 and "serving" not in done.stdout + done.stderr
    assert done.stderr == f"parlour: error: cannot serve on 127.0.0.1:{port}: Address already in use\n"


def test_web_public_url_must_be_an_http_url(tmp_path: Path) -> None:
    for url in ("notaurl", "ftp://cards.example/", "https://", "http://cards.example:99999/"):
        done = parlour(tmp_path, "play", "--web", "--practice", "--public-url", url)
        assert done.returncode == 2 and done.stderr.splitlines()[-1] == (
            f"parlour play: error: argument --public-url: the address browsers use is an http:// or https:// URL, "
            f"not {url!r}"
        )
