"""Fixtures shared by the test packages: real server processes with a real Redis.

By default every server process starts its own embedded Redis in a temporary data
directory. Set ``PARLOUR_TEST_REDIS_URL`` to run them against another Redis instead
(each test then flushes that database first: give it a database of its own; the tests then run
one at a time, ``-n auto`` starting one worker).

The suite runs in parallel (``-n auto`` in pyproject.toml): most tests wait on servers, sockets
and timers rather than compute, so two workers on two cores finish well before one. Tests marked
``heavy`` go first, so that the others share the remaining workers while they run.

Several servers on one store (the nodes of a multi-node deployment): ``shared_redis`` is the URL of
one Redis for the whole test, ``valkey_cluster`` a Redis Cluster of three primaries, and
``server_factory(..., redis_url=URL)`` makes a server that uses the given URL.
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
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from parlour.server.embedded_redis import EmbeddedRedis, RedisNotInstalled, find_server_binary
from tests.redis_cluster import ValkeyCluster

REDIS_URL = os.environ.get("PARLOUR_TEST_REDIS_URL")
MAX_WORKERS = 4  # more workers than this only contend for the cores the servers and bots they start need


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker per core and one more, at most ``MAX_WORKERS``; one against a shared
    ``PARLOUR_TEST_REDIS_URL``, which every test flushes.

    The extra worker fills the waits: many tests spend their time waiting on server processes, bots and
    timers (the whole suite kept two cores about 60% busy with a worker per core). On two cores, one run
    each at the same hour: three workers 523 s, two workers 674 s, for the same CPU time."""
    if REDIS_URL:
        return 1
    return min(MAX_WORKERS, (os.cpu_count() or 1) + 1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The ``heavy`` tests first (a stable sort: the rest keep their order)."""
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


@pytest.fixture(autouse=True)
def ctrl_c_as_a_terminal_sends_it() -> Iterator[None]:
    """Every test starts with Ctrl-C as a terminal gives it to a program: SIGINT handled by Python's
    default handler and not blocked. A test run started in the background by a non-interactive shell
    (``.ci/run &``) inherits an ignored SIGINT, as POSIX has it, and so would the ``parlour`` commands the
    tests start: those sent Ctrl-C would never see it (``asyncio.run`` only takes Ctrl-C over from the
    default handler), and their tests fail. Put right here, with a warning on each worker's first test."""
    changed = []
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        changed.append(f"SIGINT's handler was {signal.getsignal(signal.SIGINT)!r}")
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []):
        changed.append("SIGINT was blocked")
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    if changed:
        warnings.warn(f"put right before this test: {'; '.join(changed)}", stacklevel=1)
    yield


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """A ``parlour serve`` child process on a fixed port, restartable on the same data.

    Its store: ``redis_url`` if given, else ``PARLOUR_TEST_REDIS_URL`` if set, else an embedded Redis in
    ``data_dir``.
    """

    def __init__(self, data_dir: Path, *extra: str, redis_url: str | None = None) -> None:
        self.data_dir = data_dir
        self.redis_url = redis_url or REDIS_URL
        self.port = free_port()
        self.extra = list(extra)
        self.process: subprocess.Popen[str] | None = None
        self.cwd: Path | None = None  # the directory it runs in (None: this process's)
        self.output: list[str] = []
        self.reader: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        storage = ["--redis-url", self.redis_url] if self.redis_url else ["--data-dir", str(self.data_dir)]
        # -P, as the parlour script runs: the current directory is not first on sys.path.
        command = [sys.executable, "-P", "-m", "parlour.client.cli", "serve", "--port", str(self.port), *storage]
        self.process = subprocess.Popen(
            [*command, *self.extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            cwd=self.cwd,
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

    def metrics(self) -> dict[str, float]:
        """Every sample of its ``/metrics`` page, by name with labels: ``{'parlour_moves_total': 3.0,
        'parlour_errors_total{code="bad_move"}': 1.0, ...}``."""
        with urllib.request.urlopen(f"{self.http}/metrics", timeout=5) as response:
            text = response.read().decode()
        samples = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                samples[name] = float(value)
        return samples

    def cleanup(self) -> None:
        """Stop the server and any embedded Redis it left behind."""
        self.stop()
        if os.environ.get("PARLOUR_TEST_SHOW_OUTPUT"):  # to debug: every server's output, after the test
            sys.stderr.write(f"--- server on port {self.port}:\n" + "".join(self.output))
        pidfile = self.data_dir / "redis.pid"
        with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
            os.kill(int(pidfile.read_text().strip()), signal.SIGKILL)


def flush_test_redis() -> None:
    if REDIS_URL:
        import redis

        redis.Redis.from_url(REDIS_URL).flushdb()


@pytest.fixture
def server_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[type[ServerProcess]]:
    """Make server processes (``factory(*extra_args, redis_url=None)``); all are cleaned up after the test."""
    made: list[ServerProcess] = []
    flush_test_redis()

    def make(*extra: str, redis_url: str | None = None) -> ServerProcess:
        # A short path: the embedded Redis's unix socket lives in it.
        data_dir = Path(tmp_path_factory.mktemp("srv", numbered=True))
        proc = ServerProcess(data_dir, "--countdown", "0.2", *extra, redis_url=redis_url)
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


@pytest.fixture
def shared_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of one Redis for several servers of a test: ``PARLOUR_TEST_REDIS_URL`` (flushed), else
    an embedded Redis (no persistence) started for the test and stopped after it."""
    if REDIS_URL:
        flush_test_redis()
        yield REDIS_URL
        return
    embedded = EmbeddedRedis(Path(tmp_path_factory.mktemp("redis", numbered=True)), persistent=False)
    embedded.start()
    try:
        yield embedded.url
    finally:
        embedded.stop()


@pytest.fixture
def valkey_cluster() -> Iterator[ValkeyCluster]:
    """A Redis Cluster of three primaries (valkey-server), started for the test and stopped after it;
    the test is skipped where no server binary exists. Servers use it with
    ``server_factory("--redis-cluster", redis_url=valkey_cluster.url)``."""
    try:
        find_server_binary()
    except RedisNotInstalled as error:
        pytest.skip(f"no Redis Cluster can be started here: {error}")
    with ValkeyCluster(primaries=3) as cluster:
        yield cluster
