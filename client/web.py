"""``parlour play --web``: the terminal app served to browsers with textual-serve.

The serving process is a small web server (aiohttp, from textual-serve): ``GET /`` is a page holding a
terminal (xterm.js), ``/ws`` its websocket, ``/static/`` its scripts. Every browser that opens the page
starts one *session*: a process of its own running the app (``parlour play --web-session``), which ends
when the page is closed.

Each session is a new player. Its identity file is in a temporary directory of its own (also its
working directory), removed when the session ends: a browser user never sees or uses the host's
identities, names or recent servers, and two browsers are two players. The session's name starts as
``guest-XXXX`` (editable on the connect screen); its server is the one given to ``--web`` and cannot be
changed from the browser (the host's machine is not a door to other addresses). The server's password
is not passed on (``$PARLOUR_PASSWORD`` is removed from the sessions' environment): browser users type
it on the connect screen, so a link is not a way around a private server's password.

``parlour play --web --practice [GAME]`` serves the practice app instead: no server, no identity.
"""

from __future__ import annotations

import os
import secrets
import shlex
import socket
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEFAULT_WEB_HOST = "127.0.0.1"
DEFAULT_WEB_PORT = 8766  # beside the server's 8765
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
INSTALL_HINT = "parlour play --web needs textual-serve: pip install 'parlour[web]' (or pip install textual-serve)"


class WebUnavailable(Exception):
    """textual-serve is not installed; the message says how to install it."""


def public_url_for(host: str, port: int) -> str:
    """The address browsers are given when ``--public-url`` is not: ``http://HOST:PORT``, with this
    machine's host name when ``host`` listens on every address (a browser cannot reach 0.0.0.0)."""
    if host in WILDCARD_HOSTS:
        host = socket.gethostname()
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    return f"http://{host}:{port}"


def session_command(arguments: Sequence[str]) -> str:
    """The shell command textual-serve runs for each browser: this Python running ``parlour`` with
    ``arguments`` (e.g. ``["play", "--web-session", "--server", URL]``), as the ``parlour`` script would: without
    the current directory first on ``sys.path`` (``-P``), where a ``random.py`` would shadow the standard library's."""
    return shlex.join([sys.executable, "-P", "-m", "parlour.client.cli", *arguments])


def serve(command: str, host: str, port: int, public_url: str) -> None:
    """Serve ``command`` to browsers on ``host:port`` until SIGINT or SIGTERM (then return).

    ``public_url`` is the address the browsers use, without a trailing slash (``https://host/play``
    behind a proxy that strips ``/play``): the page names its scripts and its websocket by it.
    Raises :class:`WebUnavailable` when textual-serve is missing, and ``OSError`` when the address
    cannot be listened on (a port in use), before announcing it.
    """
    try:
        from textual_serve.server import Server
    except ImportError:
        raise WebUnavailable(INSTALL_HINT) from None

    class ParlourServer(Server):
        async def on_startup(self, app: Any) -> None:
            self.console.print(f"parlour: serving the app to browsers on {self.public_url}/ (Ctrl+C stops)")

    # textual-serve announces the address (on_startup) before it listens: a port in use fails here first.
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    with socket.create_server((host, port), family=family):
        pass
    # The sessions inherit this environment: the password stays with the host (see the module's doc).
    os.environ.pop("PARLOUR_PASSWORD", None)
    ParlourServer(command, host=host, port=port, title="Parlour", public_url=public_url.rstrip("/")).serve()


def guest_name() -> str:
    """A browser session's first name: ``guest-`` and four hex digits."""
    return f"guest-{secrets.token_hex(2)}"


def run_session(server: str) -> int:
    """One browser's session: the connect screen (its server fixed) and the lobby, as a new player
    whose identity lives in a temporary directory removed at the end."""
    from parlour.client.line_race import Account
    from parlour.client.tui.connect import LobbyApp

    with tempfile.TemporaryDirectory(prefix="parlour-web-") as home:
        os.chdir(home)
        account = Account(server=server, name=guest_name(), identity=Path(home) / "identities.json")
        LobbyApp(account, fixed_server=True).run()
        os.chdir("/")  # out of the directory before it is removed
    return 0
