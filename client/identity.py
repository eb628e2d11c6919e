"""Who this machine is on each server: identity tokens kept per server and per profile.

The file is ``$XDG_CONFIG_HOME/parlour/identities.json`` (``~/.config/parlour/`` without it),
or the one given with ``--identity FILE``. It maps each server's URL to the token of the
profile ``default`` (the file's format before profiles, still read and written the same), and
keeps the other profiles, the names chosen with ``--name`` and the servers last connected to, the
newest first (``parlour play`` offers them)::

    {"ws://127.0.0.1:8765": "TOKEN",
     "profiles": {"bob": {"ws://127.0.0.1:8765": "TOKEN"}},
     "names": {"default": "ann", "bob": "bob"},
     "recent": ["ws://127.0.0.1:8765"]}

Two profiles are two players: two terminals on one machine race each other with
``--profile ann`` and ``--profile bob``.

A file that exists but cannot be read as such a JSON object (a stray comma, another program's file
given to ``--identity``) is never written over: reading or saving raises :class:`IdentityFileError`.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_PROFILE = "default"
RECENT = 10  # servers kept in "recent"


class IdentityFileError(Exception):
    """The identities file cannot be read or written; the message names it, says why and what to do.
    Nothing was written to it."""


def default_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "parlour" / "identities.json"


@dataclass(frozen=True)
class Identity:
    """One profile's identity on one server, kept in ``path``."""

    server: str
    profile: str = DEFAULT_PROFILE
    path: Path | None = None  # None: the default file

    @property
    def file(self) -> Path:
        return self.path or default_path()

    def _load(self) -> dict[str, Any]:
        try:
            with self.file.open("rb") as handle:
                fcntl.flock(handle, fcntl.LOCK_SH)  # not half-written by a save in another process
                return _parse(self.file, handle.read())
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise IdentityFileError(f"cannot read the identities file {self.file}: {error.strerror}") from None

    def check(self) -> None:
        """Raise :class:`IdentityFileError` now if the file exists and cannot be read (before a screen is
        taken over, say)."""
        self._load()

    def _tokens(self, known: dict[str, Any]) -> dict[str, Any]:
        if self.profile == DEFAULT_PROFILE:
            return known
        profiles = known.setdefault("profiles", {})
        return profiles.setdefault(self.profile, {})

    def token(self) -> str | None:
        """The token kept for this server and profile, if any."""
        token = self._tokens(self._load()).get(self.server)
        return token if isinstance(token, str) else None

    def name(self) -> str | None:
        """The name last chosen with ``--name`` for this profile, if any."""
        name = self._load().get("names", {}).get(self.profile)
        return name if isinstance(name, str) else None

    def recent(self) -> list[str]:
        """The servers connected to last (by any profile), the newest first."""
        recent = self._load().get("recent", [])
        return [server for server in recent if isinstance(server, str)] if isinstance(recent, list) else []

    def save(self, token: str | None = None, name: str | None = None, used: bool = False) -> None:
        """Keep a new token for this server and profile, and/or this profile's chosen name; ``used``: put this
        server first among the recent ones.

        Raises :class:`IdentityFileError`, writing nothing, if the file cannot be read as identities."""
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise IdentityFileError(f"cannot write the identities file {self.file}: {error.strerror}") from None
        with os.fdopen(descriptor, "r+b") as handle:
            # Locked while read, changed and written: processes saving at once (house bots) all keep theirs.
            fcntl.flock(handle, fcntl.LOCK_EX)
            known = _parse(self.file, handle.read())
            os.fchmod(descriptor, 0o600)
            if token is not None:
                self._tokens(known)[self.server] = token
            if name is not None:
                known.setdefault("names", {})[self.profile] = name
            if used:
                recent = known.get("recent") if isinstance(known.get("recent"), list) else []
                known["recent"] = [self.server, *(s for s in recent if s != self.server)][:RECENT]
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps(known, indent=1).encode())


def _parse(path: Path, data: bytes) -> dict[str, Any]:
    """The identities in ``data``, read from ``path``: ``{}`` for an empty file (one just created)."""
    if not data.strip():
        return {}
    try:
        known = json.loads(data.decode())
    except UnicodeDecodeError:
        problem = "is not UTF-8 text"
    except ValueError as error:
        problem = f"is not valid JSON ({error})"
    else:
        if isinstance(known, dict):
            return known
        problem = "does not hold a JSON object"
    raise IdentityFileError(
        f"the identities file {path} {problem}; it was left as it is: fix it, "
        "or move it away to start again with new identities"
    )


def default_name(profile: str = DEFAULT_PROFILE) -> str:
    """The display name when none was ever chosen: the profile's name, or the login name."""
    if profile != DEFAULT_PROFILE:
        return profile[:32]
    import getpass

    try:
        return getpass.getuser()[:32] or "player"
    except Exception:
        return "player"
