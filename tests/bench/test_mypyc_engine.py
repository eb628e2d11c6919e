"""``bench/mypyc_engine.py``'s command line: its help, and one line where it cannot compile (the compile
itself is tested by tests/games/test_compiled.py)."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "mypyc_engine.py"


def run(python: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_help_is_help_not_a_directory_to_compile_into(tmp_path: Path) -> None:
    done = run(sys.executable, "--help", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("usage: python bench/mypyc_engine.py"), done.stderr
    assert "DIR/lib" in done.stdout
    assert list(tmp_path.iterdir()) == []  # no directory named --help, nothing compiled


def test_a_directory_with_something_in_it_is_refused(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("mine")
    done = run(sys.executable, str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.splitlines()[-1].endswith(f"{tmp_path} is not an empty directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]


def test_without_mypy_it_says_so_in_one_line(tmp_path: Path) -> None:
    bare = tmp_path / "bare"  # a Python with nothing installed: no mypy
    venv.create(bare, with_pip=False)
    done = run(str(bare / "bin" / "python"), str(tmp_path / "mc"), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("python bench/mypyc_engine.py: cannot compile: mypy is not installed in ")
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert not (tmp_path / "mc").exists()
