"""deploy/'s files agree with each other and with the package, read as text (no containers: always runs).

The containers themselves are tested by test_compose.py (``PARLOUR_CONTAINER_TESTS=1``).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def service(name: str) -> str:
    """The text of one service of compose.yaml (up to the next top-level or service key)."""
    text = (DEPLOY / "compose.yaml").read_text()
    found = re.search(rf"^  {name}:\n(.*?)(?=^  \S|^\S)", text, re.MULTILINE | re.DOTALL)
    assert found, f"compose.yaml has no service {name!r}"
    return found[1]


def test_the_image_holds_every_package_and_the_web_extra() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    for folder in pyproject["tool"]["setuptools"]["package-dir"].values():
        assert f"\nCOPY {folder} {folder}\n" in dockerfile, f"the Dockerfile does not copy {folder}/"
    assert "install '.[web]'" in dockerfile
    assert "web" in pyproject["project"]["optional-dependencies"]


def test_the_web_service_is_optional_and_behind_the_proxy_on_play() -> None:
    web = service("web")
    assert 'profiles: ["web"]' in web  # started only with --profile web
    assert "env_file" not in web  # the server's password stays out of the browser sessions
    command = re.search(r"command: \[(.*?)\]", web, re.DOTALL)
    assert command
    arguments = re.findall(r'"([^"]*)"', command[1])
    assert arguments[:2] == ["play", "--web"]
    port = arguments[arguments.index("--port") + 1]
    assert arguments[arguments.index("--host") + 1] == "0.0.0.0"
    assert arguments[arguments.index("--server") + 1] == "ws://proxy:8080"
    assert arguments[arguments.index("--public-url") + 1].endswith("/play}")
    assert f'"{port}"' in web.split("expose:")[1].split("\n")[1]

    haproxy = (DEPLOY / "haproxy.cfg").read_text()
    assert "use_backend web if { path_beg /play/ }" in haproxy
    assert "http-request replace-path ^/play(/.*)$ \\1" in haproxy
    assert re.search(rf"^\s+server web web:{port} ", haproxy, re.MULTILINE)
    assert "bind :8080" in haproxy
