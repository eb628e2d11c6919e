"""``parlour play --web``: the app served to browsers by textual-serve.

The first test always runs: the web server starts, serves its page, and stops on SIGTERM. The second
runs only with ``PARLOUR_BROWSER_TESTS=1`` and Debian's ``chromium`` (``apt-get install chromium``):
headless Chromium, driven over the Chrome DevTools Protocol with the ``websockets`` package, opens the
page, waits for the app's terminal (what it draws is read from the page's websocket frames: xterm.js
draws on a canvas), connects to a real server, goes from the lobby to a practice game and saves a
screenshot (to ``$PARLOUR_WEB_SCREENSHOT`` too when set: ``docs/web.png`` was made so).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from textual.widgets import Input

from parlour.client.cli import main
from parlour.client.identity import Identity
from parlour.client.line_race import Account
from parlour.client.tui.connect import ConnectScreen, LobbyApp
from parlour.client.web import guest_name, public_url_for, session_command
from tests.conftest import ServerProcess, free_port

CHROMIUM = os.environ.get("PARLOUR_CHROMIUM", "/usr/bin/chromium")
ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


class WebProcess:
    """``parlour play --web`` as a child process on a free port."""

    def __init__(self, *extra: str) -> None:
        self.port = free_port()
        command = [sys.executable, "-m", "parlour.client.cli", "play", "--web", "--port", str(self.port), *extra]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def page(self, timeout: float = 20.0) -> str:
        """The page at ``/``, once the server answers (AssertionError if it never does)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"parlour play --web exited {self.process.returncode}: {self.output()}")
            try:
                with urllib.request.urlopen(self.url, timeout=5) as response:
                    assert response.status == 200
                    return str(response.read().decode())
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        raise AssertionError(f"parlour play --web never answered: {self.stop()} {self.output()}")

    def stop(self) -> int:
        """SIGTERM and wait; the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        return self.process.returncode

    def output(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.read() if self.process.poll() is not None else ""


@pytest.fixture
def web_process() -> Iterator[type[WebProcess]]:
    made: list[WebProcess] = []

    def make(*extra: str) -> WebProcess:
        made.append(WebProcess(*extra))
        return made[-1]

    yield make  # type: ignore[misc]
    for process in made:
        process.stop()


def test_web_serves_the_page_and_stops(web_process: type[WebProcess]) -> None:
    web = web_process("--server", "ws://127.0.0.1:9")  # no server is needed to serve the page
    page = web.page()
    assert 'class="textual-terminal"' in page
    assert f'data-session-websocket-url="ws://127.0.0.1:{web.port}/ws"' in page
    assert web.stop() == 0
    assert "serving the app to browsers" in web.output()


def test_web_public_url_names_the_proxy_address(web_process: type[WebProcess]) -> None:
    web = web_process("--practice", "--public-url", "https://cards.example/play/")
    page = web.page()
    assert 'data-session-websocket-url="wss://cards.example/play/ws"' in page
    assert "https://cards.example/play/static/js/textual.js" in page


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        (["--name", "ann"], "no --name, --profile or --identity"),
        (["--profile", "bob"], "no --name, --profile or --identity"),
        (["--password", "secret"], "passes no password on"),
        (["--race", "golf", "--bot", "random"], "not --race"),
        (["golf"], "are for practice"),
        (["--practice", "no-such-game"], "no-such-game"),
    ],
)
def test_web_refuses_what_a_browser_session_would_not_get(
    arguments: list[str], complaint: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PARLOUR_PASSWORD", raising=False)
    assert main(["play", "--web", *arguments]) == 2
    assert complaint in capsys.readouterr().err


def test_web_options_need_web(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--practice", "--port", "9000"]) == 2
    assert "are for --web" in capsys.readouterr().err


def test_what_a_browser_session_runs() -> None:
    command = session_command(["play", "--web-session", "--server", "ws://h:1/a b"])
    assert command.startswith(sys.executable) and command.endswith("play --web-session --server 'ws://h:1/a b'")
    assert re.fullmatch(r"guest-[0-9a-f]{4}", guest_name())
    assert public_url_for("127.0.0.1", 8766) == "http://127.0.0.1:8766"
    assert public_url_for("::1", 80) == "http://[::1]:80"
    assert not public_url_for("0.0.0.0", 8766).startswith("http://0.0.0.0")


def test_a_browser_session_started_where_a_module_shadows_the_standard_librarys_runs(tmp_path: Path) -> None:
    """The web server may run in a folder holding a random.py: its sessions import the standard library's."""
    (tmp_path / "random.py").write_text("raise ImportError('this random.py is not the standard library one')\n")
    command = shlex.split(session_command(["games"]))
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "golf" in done.stdout


@pytest.mark.asyncio
async def test_a_browser_session_keeps_to_its_server(tmp_path: Path) -> None:
    """The connect screen of a browser session: its server cannot be edited, no recent server is offered."""
    identities = tmp_path / "identities.json"
    Identity("ws://elsewhere:1", path=identities).save(used=True)
    server = f"ws://127.0.0.1:{free_port()}"  # nothing listens there
    app = LobbyApp(Account(server, "guest-0001", identity=identities), fixed_server=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ConnectScreen)
        assert screen.query_one("#server", Input).disabled
        assert app.focused is screen.query_one("#name", Input)
        assert not screen.query("#recent")
        screen.query_one("#server", Input).value = "ws://elsewhere:1"  # not by typing: it is disabled
        await pilot.press("enter")
        for _ in range(100):
            await pilot.pause(0.05)
            if "Cannot connect" in str(screen.query_one("#problem").render()):
                break
        assert f"Cannot connect to {server}" in str(screen.query_one("#problem").render())


class DevTools:
    """A page of headless Chromium driven through the DevTools Protocol: commands, and what the page's
    websockets received (as text without terminal escapes)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.ids = itertools.count(1)
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.received = ""
        self.changed = asyncio.Event()
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        async for raw in self.connection:
            message = json.loads(raw)
            if "id" in message:
                self.replies.pop(message["id"]).set_result(message)
            elif message.get("method") == "Network.webSocketFrameReceived":
                response = message["params"]["response"]
                data = response["payloadData"]
                if response["opcode"] == 2:
                    data = base64.b64decode(data).decode("utf-8", "replace")
                self.received += ANSI.sub("", data)
                self.changed.set()

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self.ids)
        self.replies[number] = asyncio.get_running_loop().create_future()
        await self.connection.send(json.dumps({"id": number, "method": method, "params": params}))
        reply = await asyncio.wait_for(self.replies[number], 30)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return dict(reply.get("result", {}))

    async def wait_for(self, text: str, timeout: float = 30.0) -> None:
        """Until the app has drawn ``text`` since the last :meth:`forget`."""
        deadline = time.monotonic() + timeout
        while text not in self.received:
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the app never drew {text!r}; it drew: {self.received[-2000:]!r}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    def forget(self) -> None:
        self.received = ""

    async def key(self, key: str, code: str, key_code: int, text: str = "", modifiers: int = 0) -> None:
        """Press and release a key (``modifiers``: 2 is Ctrl)."""
        down = {"key": key, "code": code, "windowsVirtualKeyCode": key_code, "modifiers": modifiers}
        await self.send("Input.dispatchKeyEvent", type="keyDown" if text else "rawKeyDown", text=text, **down)
        await self.send("Input.dispatchKeyEvent", type="keyUp", **down)

    async def screenshot(self, path: Path) -> None:
        shot = await self.send("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))


@contextlib.asynccontextmanager
async def chromium(profile: Path, width: int = 860, height: int = 600) -> AsyncIterator[DevTools]:
    """Headless Chromium with one blank page, driven through :class:`DevTools`."""
    command = [
        CHROMIUM,
        "--headless=new",
        "--no-sandbox",  # tests may run as root
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
        "--no-first-run",
        "about:blank",
    ]
    browser = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert browser.stderr is not None
        port = None
        for line in browser.stderr:  # "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID"
            if found := re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line):
                port = int(found[1])
                break
        assert port is not None, "chromium did not start its DevTools server"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as response:
            pages = [target for target in json.load(response) if target["type"] == "page"]
        async with websockets.connect(pages[0]["webSocketDebuggerUrl"], max_size=None) as connection:
            tools = DevTools(connection)
            await tools.send("Page.enable")
            await tools.send("Network.enable")
            try:
                yield tools
            finally:
                tools.reader.cancel()
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()


@pytest.mark.skipif(
    os.environ.get("PARLOUR_BROWSER_TESTS") != "1",
    reason="opens headless Chromium: set PARLOUR_BROWSER_TESTS=1 (needs Debian's chromium)",
)
@pytest.mark.asyncio
async def test_browser_reaches_the_lobby_and_a_practice_game(
    server: ServerProcess, web_process: type[WebProcess], tmp_path: Path
) -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"PARLOUR_BROWSER_TESTS=1 needs chromium at {CHROMIUM} (apt-get install chromium)")
    web = web_process("--server", server.url)
    await asyncio.to_thread(web.page)
    async with chromium(tmp_path / "chromium") as page:
        await page.send("Page.navigate", url=web.url)
        await page.wait_for("Parlour: connect to a server")
        await page.wait_for("guest-")  # the name field: this session's own player
        await page.send("Runtime.evaluate", expression="document.querySelector('.xterm-helper-textarea').focus()")
        page.forget()
        await page.key("Enter", "Enter", 13, text="\r")  # the name field has the focus: connect
        await page.wait_for("You are guest-")  # the lobby
        await page.wait_for("creates one")
        page.forget()
        await page.key("p", "KeyP", 80, text="p")
        await page.wait_for("Practice: choose a game")
        page.forget()
        await page.key("Enter", "Enter", 13, text="\r")
        await page.wait_for("arrows and Enter, or the mouse")  # the game screen's first message
        await asyncio.sleep(0.5)  # the canvas draws what the terminal received
        shot = tmp_path / "web.png"
        await page.screenshot(shot)
    assert shot.read_bytes().startswith(b"\x89PNG")
    if copy := os.environ.get("PARLOUR_WEB_SCREENSHOT"):
        shutil.copyfile(shot, copy)
    assert web.stop() == 0
