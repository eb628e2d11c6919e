"""The server raises its open-file limit to fit ``--max-connections`` (each connection is a socket)."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.skipif(sys.platform == "win32", reason="no open-file limit to raise")
def test_the_open_file_limit_is_raised_for_max_connections_up_to_the_hard_limit() -> None:
    script = """
import resource, sys
from parlour.server.main import FILE_RESERVE, raise_file_limit
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (300, 600))
print(raise_file_limit(100), raise_file_limit(0))  # enough already; no cap
print(raise_file_limit(340), resource.getrlimit(resource.RLIMIT_NOFILE)[0])  # raised to 340 + reserve
print(raise_file_limit(1000), resource.getrlimit(resource.RLIMIT_NOFILE)[0])  # only up to the hard limit
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["None None", "None 596", "600 600"]
