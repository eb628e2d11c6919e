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
