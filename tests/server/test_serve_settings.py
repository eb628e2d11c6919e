"""``parlour serve``'s settings checked before anything starts, and a Redis that cannot be used at the start:
each one line and a non-zero exit status, never a traceback. Real ``parlour serve`` processes."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from parlour.client.cli import build_parser
from tests.conftest import free_port


def serve(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    """``parlour serve ARGS`` with its embedded Redis's data in ``data_dir``, run to its end."""
    command = [sys.executable, "-m", "parlour.client.cli", "serve", "--data-dir", str(data_dir), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def refused_before_anything_started(done: subprocess.CompletedProcess[str], data_dir: Path, complaint: str) -> None:
    """Status 2, one line of complaint (argparse's usage before it aside), and no Redis started."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "listening" not in done.stdout
    assert done.stderr.splitlines()[-1].endswith(complaint), done.stderr
    assert not data_dir.exists()  # the embedded Redis never started


@pytest.mark.parametrize("port", ["99999", "-1", "65536"])
def test_a_port_out_of_range_is_refused_before_redis_starts(port: str, tmp_path: Path) -> None:
    done = serve("--port", port, data_dir=tmp_path / "data")
    refused_before_anything_started(done, tmp_path / "data", f"argument --port: must be from 0 to 65535, not {port}")


def test_a_redis_url_of_another_scheme_is_refused_without_its_password(tmp_path: Path) -> None:
    done = serve("--port", "0", "--redis-url", "foo://user:hunter2@bar", data_dir=tmp_path / "data")
    refused_before_anything_started(
        done, tmp_path / "data", "--redis-url 'foo://user:***@bar': Redis URL must specify one of the following "
        "schemes (redis://, rediss://, unix://)",
    )  # fmt: skip
    assert "hunter2" not in done.stderr


def test_a_cluster_needs_a_redis_url_of_its_own(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    done = serve("--port", "0", "--redis-cluster", data_dir=data_dir)
    refused_before_anything_started(done, data_dir, "--redis-cluster needs --redis-url, a node of the cluster: the "
                                    "embedded Redis is none")  # fmt: skip
    done = serve("--port", "0", "--redis-cluster", "--redis-url", "unix:///tmp/redis.sock", data_dir=data_dir)
    complaint = "--redis-cluster needs a redis:// or rediss:// URL, not 'unix:///tmp/redis.sock'"
    refused_before_anything_started(done, data_dir, complaint)


@contextlib.contextmanager
def not_a_redis() -> Iterator[int]:
    """A port where something answers, but not as a Redis: it greets every connection as a web server
    would. Yields the port."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = int(listener.getsockname()[1])

    def answer() -> None:
        while True:
            try:
                peer, _ = listener.accept()
            except OSError:  # closed: the test is over
                return
            with peer, contextlib.suppress(OSError):
                peer.recv(4096)
                peer.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        listener.close()
        thread.join(5)


def one_line_naming(done: subprocess.CompletedProcess[str], url: str) -> str:
    """The one line a server that cannot use its Redis prints (status 1); returns it."""
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "listening" not in done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"parlour: error: cannot reach Redis at {url}: "), done.stderr
    return lines[0]


def test_a_cluster_node_that_does_not_answer_is_one_line(tmp_path: Path) -> None:
    url = f"redis://127.0.0.1:{free_port()}"  # nothing listens there
    done = serve("--port", "0", "--redis-cluster", "--redis-url", url, data_dir=tmp_path / "data")
    assert "Redis Cluster cannot be connected" in one_line_naming(done, url)


@pytest.mark.parametrize("cluster", [False, True])
def test_something_that_answers_but_not_as_a_redis_is_one_line(cluster: bool, tmp_path: Path) -> None:
    with not_a_redis() as port:
        url = f"redis://127.0.0.1:{port}"
        done = serve("--port", "0", "--redis-url", url, *(["--redis-cluster"] if cluster else []), data_dir=tmp_path)
    assert "Protocol error" in one_line_naming(done, url)


def test_a_message_rate_of_0_is_refused_before_anything_starts(tmp_path: Path) -> None:
    """Once, a server took --rate 0 --burst 0 and failed every request with a ZeroDivisionError."""
    done = serve("--port", "0", "--rate", "0", "--burst", "0", data_dir=tmp_path / "data")
    refused_before_anything_started(done, tmp_path / "data", "argument --rate: must be more than 0, not 0")
    done = serve("--port", "0", "--burst", "0", data_dir=tmp_path / "data")
    refused_before_anything_started(done, tmp_path / "data", "argument --burst: must be from 1 to 1000000000, not 0")


REFUSED = [
    ("--rate", "0", "must be more than 0, not 0"),
    ("--rate", "-2", "must be more than 0, not -2"),
    ("--rate", "nan", "not a finite number: 'nan'"),
    ("--rate", "fast", "not a number: 'fast'"),
    ("--burst", "0", "must be from 1 to 1000000000, not 0"),
    ("--identity-rate", "0", "must be more than 0, not 0"),
    ("--identity-burst", "0", "must be from 1 to 1000000000, not 0"),
    ("--race-rate", "-0.5", "must be more than 0, not -0.5"),
    ("--race-burst", "-1", "must be from 1 to 1000000000, not -1"),
    ("--countdown", "-1", "must be at least 0, not -1"),
    ("--countdown", "inf", "not a finite number: 'inf'"),
    ("--max-races", "-1", "must be from 1 to 1000000000, not -1"),
    ("--max-races", "0", "must be from 1 to 1000000000, not 0"),
    ("--grace", "-1", "must be at least 0, not -1"),
    ("--idle-timeout", "-5", "must be at least 0, not -5"),
    ("--keep-finished", "-1", "must be at least 0, not -1"),
    ("--open-timeout", "0", "must be more than 0, not 0"),
    ("--abandoned-timeout", "-1", "must be at least 0, not -1"),
    ("--invite-timeout", "0", "must be more than 0, not 0"),
    ("--max-frame", "0", "must be from 1 to 2147483647, not 0"),
    ("--max-backlog", "-1", "must be from 1 to 2147483647, not -1"),
]


@pytest.mark.parametrize(("flag", "value", "complaint"), REFUSED)
def test_a_setting_out_of_its_range_is_refused_by_the_flags_name(
    flag: str, value: str, complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["serve", flag, value])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"parlour serve: error: argument {flag}: {complaint}"


def test_a_setting_from_the_environment_is_checked_as_the_flag_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PARLOUR_RATE", "0")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve"])
    assert (
        capsys.readouterr().err.splitlines()[-1] == "parlour serve: error: argument --rate: must be more than 0, not 0"
    )
    assert build_parser().parse_args(["serve", "--rate", "0.5"]).rate == 0.5  # a flag still wins


def test_the_edges_of_each_range_are_taken() -> None:
    args = build_parser().parse_args(
        ["serve", "--port", "0", "--countdown", "0", "--idle-timeout", "0", "--grace", "0", "--max-connections", "0",
         "--rate", "0.01", "--burst", "1", "--max-races", "1", "--keep-finished", "0", "--abandoned-timeout", "0"]
    )  # fmt: skip
    assert (args.port, args.countdown, args.idle_timeout, args.grace, args.max_connections) == (0, 0, 0, 0, 0)
    assert (args.rate, args.burst, args.max_races, args.keep_finished, args.abandoned_timeout) == (0.01, 1, 1, 0, 0)
    assert build_parser().parse_args(["serve", "--port", "65535"]).port == 65535


def test_a_bots_stop_grace_is_0_or_more(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bot", "run", "random", "--stop-grace", "-1"])
    assert capsys.readouterr().err.splitlines()[-1].endswith("argument --stop-grace: must be at least 0, not -1")
    assert build_parser().parse_args(["bot", "run", "random", "--stop-grace", "0"]).stop_grace == 0
