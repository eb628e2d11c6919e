"""Fixtures shared by the test packages: real server processes with a real Redis.

By default every server process starts its own embedded Redis in a temporary data
directory. Set ``PARLOUR_TEST_REDIS_URL`` to run them against another Redis instead
(each test then flushes that database first: give it a database of its own).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

REDIS_URL = os.environ.get("PARLOUR_TEST_REDIS_URL")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """A ``parlour serve`` child process on a fixed port, restartable on the same data."""

    def __init__(self, data_dir: Path, *extra: str) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.extra = list(extra)
        self.process: subprocess.Popen[str] | None = None
        self.output: list[str] = []
        self.reader: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> None:
        storage = ["--redis-url", REDIS_URL] if REDIS_URL else ["--data-dir", str(self.data_dir)]
        command = [sys.executable, "-m", "parlour.client.cli", "serve", "--port", str(self.port), *storage]
        self.process = subprocess.Popen(
            [*command, *self.extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
        )
        deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.output.append(line)
            if "listening on" in line:
                # The server logs every connection and race: keep reading, or a full pipe blocks it.
                self.reader = threading.Thread(target=self._drain, args=(self.process.stdout,), daemon=True)
                self.reader.start()
                return
        self.kill()
        raise RuntimeError("the server did not start:\n" + "".join(self.output))

    def _drain(self, stdout: typing.IO[str]) -> None:
        for line in stdout:
            self.output.append(line)

    def kill(self) -> None:
        """SIGKILL: no clean-up at all (the embedded Redis outlives it, as after a crash)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> int | None:
        """SIGTERM and wait; return the exit status."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.reader is not None:
            self.reader.join(10)
        elif self.process.stdout is not None:
            self.output += self.process.stdout.readlines()
        return self.process.returncode

    def cleanup(self) -> None:
        """Stop the server and any embedded Redis it left behind."""
        self.stop()
        pidfile = self.data_dir / "redis.pid"
        with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
            os.kill(int(pidfile.read_text().strip()), signal.SIGKILL)


def flush_test_redis() -> None:
    if REDIS_URL:
        import redis

        redis.Redis.from_url(REDIS_URL).flushdb()


@pytest.fixture
def server_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[type[ServerProcess]]:
    """Make server processes (``factory(*extra_args)``); all are cleaned up after the test."""
    made: list[ServerProcess] = []
    flush_test_redis()

    def make(*extra: str) -> ServerProcess:
        # A short path: the embedded Redis's unix socket lives in it.
        data_dir = Path(tmp_path_factory.mktemp("srv", numbered=True))
        proc = ServerProcess(data_dir, "--countdown", "0.2", *extra)
        made.append(proc)
        return proc

    yield make  # type: ignore[misc]
    for proc in made:
        proc.cleanup()


@pytest.fixture
def server(server_factory: type[ServerProcess]) -> ServerProcess:
    """A running server with default settings (a 0.2 s countdown)."""
    proc = server_factory()
    proc.start()
    return proc
