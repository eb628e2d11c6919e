"""The embedded Valkey server: start/stop, what the parlour server needs of it, persistence, crash recovery."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio

from parlour.server.embedded_redis import (
    DataDirError,
    DataDirInUse,
    EmbeddedRedis,
    RedisStartFailed,
    _process_alive,
    default_data_dir,
)

# Run by a child process: start a server, write a key, report, and wait to be killed.
CHILD = """
import sys, time
from pathlib import Path
import redis
from parlour.server.embedded_redis import EmbeddedRedis

server = EmbeddedRedis(Path(sys.argv[1]), appendfsync="always")
server.start()
redis.Redis.from_url(server.url).set("survivor", "yes")
print("ready", server.pid, flush=True)
time.sleep(60)
"""

# The move-log append: check the log's length, then push.
APPEND = """
if redis.call('LLEN', KEYS[1]) == tonumber(ARGV[1]) then return redis.call('RPUSH', KEYS[1], ARGV[2]) end
return -1
"""


Make = Callable[..., EmbeddedRedis]
Spawn = Callable[[Path], tuple[subprocess.Popen[str], int]]


def kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


@pytest.fixture
def servers() -> Iterator[Make]:
    """Make EmbeddedRedis instances that are stopped after the test."""
    made: list[EmbeddedRedis] = []

    def make(data_dir: Path, **options: object) -> EmbeddedRedis:
        server = EmbeddedRedis(data_dir, **options)  # type: ignore[arg-type]
        made.append(server)
        return server

    yield make
    for server in made:
        server.stop()


@pytest.fixture
def server(tmp_path: Path, servers: Make) -> EmbeddedRedis:
    started = servers(tmp_path / "redis")
    started.start()
    return started


@pytest.fixture
def child_server() -> Iterator[Spawn]:
    """Start a server in a child Python process; return the child and the server's pid. Kills both after."""
    children: list[subprocess.Popen[str]] = []
    server_pids: list[int] = []

    def spawn(data_dir: Path) -> tuple[subprocess.Popen[str], int]:
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(data_dir)], stdout=subprocess.PIPE, text=True)
        children.append(child)
        word, pid = child.stdout.readline().split()  # type: ignore[union-attr]
        assert word == "ready"
        server_pids.append(int(pid))
        return child, int(pid)

    yield spawn
    for child in children:
        child.kill()
        child.wait()
        child.stdout.close()  # type: ignore[union-attr]
    for pid in server_pids:
        if _process_alive(pid):
            kill(pid)


def sigkill_and_wait(child: subprocess.Popen[str]) -> None:
    child.send_signal(signal.SIGKILL)
    child.wait()


def test_start_and_stop(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "redis")
    with server:
        pid = server.pid
        assert pid is not None and _process_alive(pid)
        assert not server.adopted
        assert server.socket_path.is_socket()
        assert redis.Redis.from_url(server.url).ping()
    assert server.pid is None
    assert not _process_alive(pid)
    assert not server.socket_path.exists()
    assert not server.pidfile_path.exists()
    server.stop()  # idempotent


def test_listens_only_on_a_private_socket(server: EmbeddedRedis) -> None:
    assert server.socket_path.stat().st_mode & 0o777 == 0o700
    config = redis.Redis.from_url(server.url).config_get("port")
    assert config == {"port": "0"}


@pytest.mark.asyncio
async def test_asyncio_client_streams_pubsub_and_lua(server: EmbeddedRedis) -> None:
    client = redis.asyncio.from_url(server.url)
    try:
        first = await client.xadd("race:{r1}:events", {"move": "1"})
        await client.xadd("race:{r1}:events", {"move": "2"})
        events = await client.xrange("race:{r1}:events")
        assert [fields for _, fields in events] == [{b"move": b"1"}, {b"move": b"2"}]
        assert events[0][0] == first

        async with client.pubsub() as pubsub:
            await pubsub.subscribe("lobby")
            assert (await pubsub.get_message(timeout=10.0))["type"] == "subscribe"
            assert await client.publish("lobby", b"hello") == 1
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=10.0)
            assert message is not None and message["data"] == b"hello"

        assert await client.eval(APPEND, 1, "log", 0, "m0") == 1
        assert await client.eval(APPEND, 1, "log", 0, "stale") == -1
        sha = await client.script_load(APPEND)
        assert await client.evalsha(sha, 1, "log", 1, "m1") == 2
        assert await client.lrange("log", 0, -1) == [b"m0", b"m1"]
    finally:
        await client.aclose()


@pytest.mark.asyncio
async def test_concurrent_appends_keep_one_order(server: EmbeddedRedis) -> None:
    client = redis.asyncio.from_url(server.url)
    try:
        results = await asyncio.gather(*(client.eval(APPEND, 1, "log", 0, f"m{i}") for i in range(10)))
        assert sorted(results) == [-1] * 9 + [1]
    finally:
        await client.aclose()


@pytest.mark.parametrize("persistent", [True, False])
def test_data_survives_a_restart_only_when_persistent(tmp_path: Path, servers: Make, persistent: bool) -> None:
    first = servers(tmp_path / "redis", persistent=persistent)
    first.start()
    redis.Redis.from_url(first.url).rpush("log", "m0", "m1")
    first.stop()
    second = servers(tmp_path / "redis", persistent=persistent)
    second.start()
    expected = [b"m0", b"m1"] if persistent else []
    assert redis.Redis.from_url(second.url).lrange("log", 0, -1) == expected


def test_adopts_the_server_of_a_killed_parlour_server(tmp_path: Path, servers: Make, child_server: Spawn) -> None:
    data_dir = tmp_path / "redis"
    child, server_pid = child_server(data_dir)

    with pytest.raises(DataDirInUse, match=f"in use by pid {child.pid}") as refused:
        servers(data_dir).start()
    assert refused.value.pid == child.pid

    sigkill_and_wait(child)
    assert _process_alive(server_pid)  # the server outlived the child, in its own session
    adopter = servers(data_dir)
    adopter.start()
    assert adopter.adopted
    assert adopter.pid == server_pid
    assert redis.Redis.from_url(adopter.url).get("survivor") == b"yes"

    adopter.stop()
    assert not _process_alive(server_pid)
    assert not adopter.socket_path.exists()


def test_restarts_after_the_server_itself_was_killed(tmp_path: Path, servers: Make, child_server: Spawn) -> None:
    data_dir = tmp_path / "redis"
    child, server_pid = child_server(data_dir)
    kill(server_pid)
    sigkill_and_wait(child)
    assert str(server_pid) == (data_dir / "redis.pid").read_text().strip()  # stale pidfile
    assert (data_dir / "redis.sock").exists()  # stale socket

    restarted = servers(data_dir)
    restarted.start()
    assert not restarted.adopted
    assert restarted.pid != server_pid
    assert (data_dir / "redis.pid").read_text().strip() == str(restarted.pid)
    assert redis.Redis.from_url(restarted.url).get("survivor") == b"yes"  # written with appendfsync always


def test_ignores_a_pidfile_naming_an_unrelated_live_process(tmp_path: Path, servers: Make) -> None:
    data_dir = tmp_path / "redis"
    data_dir.mkdir()
    (data_dir / "redis.pid").write_text(f"{os.getpid()}\n")  # as if the pid was reused after a reboot
    with socket.socket(socket.AF_UNIX) as stale:
        stale.bind(str(data_dir / "redis.sock"))
    server = servers(data_dir)
    server.start(timeout=5)
    assert not server.adopted
    assert server.pid != os.getpid()


def test_one_user_at_a_time(tmp_path: Path, servers: Make) -> None:
    first = servers(tmp_path / "redis")
    first.start()
    second = servers(tmp_path / "redis")
    with pytest.raises(DataDirInUse, match=f"in use by pid {os.getpid()}"):
        second.start()
    first.stop()
    second.start()
    assert redis.Redis.from_url(second.url).ping()


def test_data_dir_not_writable(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        data_dir = Path("/sys")  # root ignores permission bits, but nobody may create files in sysfs
    else:
        data_dir = tmp_path / "readonly"
        data_dir.mkdir(mode=0o500)
    with pytest.raises(DataDirError, match=f"cannot use {data_dir} as the Redis data dir"):
        EmbeddedRedis(data_dir).start()


def test_data_dir_under_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(DataDirError, match="Not a directory"):
        EmbeddedRedis(tmp_path / "file" / "redis").start()


def test_an_existing_data_dir_with_loose_permissions_becomes_private_at_start(tmp_path: Path, servers: Make) -> None:
    data_dir = tmp_path / "redis"
    data_dir.mkdir(mode=0o755)
    os.chmod(data_dir, 0o755)  # whatever the umask
    servers(data_dir).start()
    assert data_dir.stat().st_mode & 0o777 == 0o700  # the AOF holds the seeds of running races


def test_a_data_dir_with_a_control_character_is_refused_before_anything_starts(tmp_path: Path) -> None:
    data_dir = tmp_path / "two\nlines"
    with pytest.raises(DataDirError, match="control characters"):
        EmbeddedRedis(data_dir).start()
    assert not data_dir.exists()


def test_data_dir_too_long_for_a_socket(tmp_path: Path) -> None:
    with pytest.raises(DataDirError, match="too long"):
        EmbeddedRedis(tmp_path / ("x" * 100)).start()


def test_a_server_that_exits_at_once_fails_with_its_log(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "redis", binary=Path(shutil.which("false") or "/bin/false"))
    with pytest.raises(RedisStartFailed, match="exited with status 1"):
        server.start()
    assert server.pid is None
    with EmbeddedRedis(tmp_path / "redis") as again:  # the failed start released the data dir
        assert again.pid is not None


def test_default_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PARLOUR_DATA_DIR", str(tmp_path / "parlour"))
    assert default_data_dir() == tmp_path / "parlour" / "redis"
    monkeypatch.delenv("PARLOUR_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "parlour" / "redis"
    monkeypatch.setenv("XDG_DATA_HOME", "relative")
    assert default_data_dir() == Path.home() / ".local" / "share" / "parlour" / "redis"
