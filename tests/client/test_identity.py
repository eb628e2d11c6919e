"""The identities file: tokens kept per server and profile."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

from parlour.client.identity import Identity


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
