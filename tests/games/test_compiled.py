"""The engine compiled with mypyc plays and rules exactly as the pure engine: its own tests pass against it.

This checkout's ``games/`` is compiled into a temporary directory by ``bench/mypyc_engine.py`` (staged under
``parlour/games/`` and built at ``-O3``, as setup.py's ``PARLOUR_COMPILE=1`` build does), then the engine's
tests run in a fresh interpreter with that directory first on PYTHONPATH. That interpreter first checks that
``parlour.games`` really is the compiled engine (extension modules, not source), and fails otherwise.

It runs a lighter set than the pure run, to stay near 2.5 minutes of one core (the compile takes 45 s of it):
every test of ``tests/games`` (the recorded playouts, the per-game rulings, cards, draws, properties, the
solver), but with 100 conformance playouts per game and option set instead of 300, and without the solver's
26 s cross-check against plain search on 200 boards; the pure run keeps those. Skipped only where no C
compiler is found.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLAYOUTS = "100"  # conformance playouts per game and option set (PARLOUR_PLAYOUTS; the pure run has 300)
LEFT_TO_THE_PURE_RUN = ["tests/games/test_golf_solver.py::test_verdicts_equal_plain_search_on_200_part_played_boards"]

# Runs the tests in the interpreter that checked the engine (-n 0: no workers that could import another one).
CHECK_THEN_TEST = """
import sys
import parlour.games.golf as golf
if not golf.__file__.endswith((".so", ".pyd")):
    sys.exit(f"parlour.games is not the compiled engine: parlour.games.golf is {golf.__file__}")
print(f"compiled engine: {golf.__file__}", flush=True)
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def _mypyc_engine() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mypyc_engine", ROOT / "bench" / "mypyc_engine.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.heavy
def test_the_engine_compiled_with_mypyc_passes_the_engine_tests(tmp_path: Path) -> None:
    mypyc_engine = _mypyc_engine()
    missing = mypyc_engine.missing_compiler()
    if missing:
        pytest.skip(f"cannot compile the engine: {missing}")
    lib = mypyc_engine.compile_engine(tmp_path / "mypyc")

    args = [str(ROOT / "tests" / "games"), "--ignore", __file__, "--noconftest", "-p", "no:cacheprovider"]
    args += ["-q", "-n", "0", *(f"--deselect={node}" for node in LEFT_TO_THE_PURE_RUN)]
    path = os.pathsep.join(filter(None, [str(lib), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path, PARLOUR_PLAYOUTS=PLAYOUTS)
    done = subprocess.run(
        [sys.executable, "-c", CHECK_THEN_TEST, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    tail = (done.stdout + done.stderr)[-8000:]
    assert done.returncode == 0, f"the engine tests failed against the compiled engine in {lib}:\n{tail}"
    assert "compiled engine: " in done.stdout and " passed" in done.stdout, tail


def test_the_engine_says_how_it_was_built() -> None:
    """``engine_build`` (shown by ``parlour --version``) matches what the modules are, pure or compiled."""
    import parlour.games
    import parlour.games.golf

    compiled = parlour.games.golf.__file__.endswith((".so", ".pyd"))
    assert parlour.games.engine_build() == ("mypyc-compiled" if compiled else "pure Python")
