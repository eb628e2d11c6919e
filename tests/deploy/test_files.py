"""deploy/'s files agree with each other and with the package, read as text (no containers: always runs).

The containers themselves are tested by test_compose.py (``PARLOUR_CONTAINER_TESTS=1``).
"""

from __future__ import annotations

import argparse
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


def serve_variables() -> set[str]:
    """Every ``PARLOUR_*`` variable ``parlour serve`` reads: one per flag (``--max-races`` is
    ``$PARLOUR_MAX_RACES``), the password's, and any the server's code names itself."""
    from parlour.client.cli import NOT_FROM_ENVIRONMENT, PASSWORD_VARIABLE, build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    serve = commands.choices["serve"]
    names = {"PARLOUR_" + a.dest.upper() for a in serve._actions if a.option_strings}
    names -= {"PARLOUR_" + dest.upper() for dest in NOT_FROM_ENVIRONMENT}
    names.add(PASSWORD_VARIABLE)
    for source in (ROOT / "server").glob("*.py"):
        names.update(re.findall(r"\bPARLOUR_[A-Z][A-Z_]*\b", source.read_text()))
    return names


def test_env_example_holds_every_variable_the_server_reads() -> None:
    example = (DEPLOY / ".env.example").read_text()
    assert "PARLOUR_MAX_RACES" in serve_variables() and "PARLOUR_DATA_DIR" in serve_variables()
    missing = sorted(name for name in serve_variables() if not re.search(rf"\b{name}=", example))
    assert not missing, f"deploy/.env.example does not give {', '.join(missing)}"


NUMBERS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def test_the_readme_names_every_variable_compose_sets_on_the_servers() -> None:
    environment = re.search(r"^    environment:\n(.*?)(?=^    \S)", service("server"), re.MULTILINE | re.DOTALL)
    assert environment, "compose.yaml's server has no environment"
    names = re.findall(r"^      (PARLOUR_[A-Z_]+):", environment[1], re.MULTILINE)
    assert "PARLOUR_REDIS_URL" in names
    readme = (DEPLOY / "README.md").read_text()
    configure = readme.split("\n## Configure\n")[1].split("\n## ")[0]
    assert f"Compose sets {NUMBERS[len(names)]} of them itself" in " ".join(configure.split())
    for name in names:
        assert f"`{name}" in configure, f"deploy/README.md's Configure does not say compose sets {name}"
