"""The identities file: tokens kept per server and profile."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from parlour.client.identity import Identity, IdentityFileError
from tests.conftest import ServerProcess


def save(path: Path, profile: str) -> None:
    Identity("ws://127.0.0.1:8765", profile, path).save(token=f"token-{profile}")


def test_processes_saving_at_once_all_keep_their_token(tmp_path: Path) -> None:
    # House bots start together, and each saves its new token at once.
    path = tmp_path / "identities.json"
    savers = [multiprocessing.Process(target=save, args=(path, f"bot-{i}")) for i in range(12)]
    for saver in savers:
        saver.start()
    for saver in savers:
        saver.join(30)
    assert [saver.exitcode for saver in savers] == [0] * 12
    for i in range(12):
        assert Identity("ws://127.0.0.1:8765", f"bot-{i}", path).token() == f"token-bot-{i}"
    assert len(json.loads(path.read_text())["profiles"]) == 12
    assert path.stat().st_mode & 0o777 == 0o600


def parlour(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A whole ``parlour`` command, its identities under ``home`` by default."""
    return subprocess.run(
        [sys.executable, "-m", "parlour.client.cli", *args],
        env={**os.environ, "XDG_CONFIG_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_damaged_identities_file_is_refused_and_left_as_it_is(server: ServerProcess, tmp_path: Path) -> None:
    for profile in ("ann", "bob"):
        assert parlour(tmp_path, "races", "--server", server.url, "--profile", profile).returncode == 0
    path = tmp_path / "parlour" / "identities.json"
    damaged = path.read_bytes().replace(b'"profiles"', b',"profiles"', 1)  # one stray comma
    path.write_bytes(damaged)
    done = parlour(tmp_path, "races", "--server", server.url, "--profile", "ann")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"parlour: error: the identities file {path} is not valid JSON (Expecting ")
    assert "it was left as it is: fix it, or move it away" in done.stderr and done.stderr.count("\n") == 1
    assert path.read_bytes() == damaged and "You are" not in done.stdout


def test_an_identity_file_that_is_not_identities_is_not_written_over(server: ServerProcess, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping: eggs, milk\n")
    notes.chmod(0o644)
    for command in ("races", "watch", "leave"):
        extra = [] if command == "races" else ["0123456789"]
        done = parlour(tmp_path, command, *extra, "--server", server.url, "--identity", str(notes))
        assert done.returncode == 2 and done.stderr.startswith(f"parlour: error: the identities file {notes} is not")
    listing = tmp_path / "list.json"
    listing.write_text("[1, 2]")
    done = parlour(tmp_path, "bot", "run", "greedy", "--server", server.url, "--identity", str(listing))
    assert done.returncode == 2 and f"the identities file {listing} does not hold a JSON object" in done.stderr
    assert notes.read_text() == "shopping: eggs, milk\n" and notes.stat().st_mode & 0o777 == 0o644
    assert listing.read_text() == "[1, 2]"


def test_an_identity_file_that_is_a_directory_is_named_as_such_not_the_server(
    server: ServerProcess, tmp_path: Path
) -> None:
    mode = tmp_path.stat().st_mode
    done = parlour(tmp_path, "races", "--server", server.url, "--identity", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr == f"parlour: error: cannot read the identities file {tmp_path}: Is a directory\n"
    assert tmp_path.stat().st_mode == mode  # once saving made it 0600: `--identity /tmp` locked everyone out of /tmp


def test_saving_into_a_damaged_file_raises_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "identities.json"
    path.write_bytes(b'{"ws://a:1": "TOKEN",}')
    identity = Identity("ws://a:1", "ann", path)
    with pytest.raises(IdentityFileError, match="is not valid JSON"):
        identity.save(token="new")
    with pytest.raises(IdentityFileError, match="is not valid JSON"):
        identity.token()
    assert path.read_bytes() == b'{"ws://a:1": "TOKEN",}'
    path.write_bytes(b"")  # an empty file holds nothing to lose
    identity.save(token="new")
    assert identity.token() == "new"
