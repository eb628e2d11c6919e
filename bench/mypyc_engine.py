"""Compile a checkout's rules engine (``games/``) with mypyc into a scratch directory for PYTHONPATH.

The compiled install is setup.py's (``PARLOUR_COMPILE=1``, see README.md); this module builds the same
extension modules into a directory of their own instead, for what runs the compiled engine beside the pure one
without installing it: ``tests/games/test_compiled.py`` and ``bench/engine.py --compiled``. Compiled into DIR,
they are in ``DIR/lib``: put that first on PYTHONPATH and ``parlour.games`` is the compiled engine while every
other ``parlour`` package still comes from the installed Parlour. ``DIR/lib`` holds ``parlour/games/*.so``
(``.pyd`` on Windows), no
``.py``, no ``parlour/__init__.py`` (``parlour`` stays a namespace package), and mypyc's shared runtime module
``<hash>__mypyc.*.so`` at its top, which must stay on the path with it.

mypyc names a module after its file's path and the ``__init__.py`` files above it, so compiling
``games/golf.py`` where it lies would make a module ``games.golf``: the sources are staged as a copy under
``parlour/games/`` (beside a ``parlour/__init__.py`` for the compile only) and compiled there, at ``-O3``.
It needs mypy (the ``test`` extra has it), setuptools and a C compiler, and takes about a minute of one core.

    python bench/mypyc_engine.py DIR          # compile this checkout's games/ into DIR (DIR/lib for PYTHONPATH)
    PYTHONPATH=DIR/lib python -c "import parlour.games.golf as g; print(g.__file__)"
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in the staging directory: argv[1] is where the extension modules go, argv[2] the compiler's scratch space.
# setuptools is imported first: mypyc.build makes setuptools extensions only if it is already imported.
_BUILD = """
import sys
from setuptools import setup
from mypyc.build import mypycify

extensions = mypycify(["--cache-dir", "mypy-cache", "parlour/games"], opt_level="3", target_dir="c")
setup(
    name="parlour-games-compiled",
    packages=[],
    ext_modules=extensions,
    script_args=["build_ext", "--build-lib", sys.argv[1], "--build-temp", sys.argv[2]],
)
"""


def missing_mypyc() -> str | None:
    """Why this Python cannot run mypyc's build (mypy or setuptools not installed), or None when it can."""
    for module, package in (("mypyc", "mypy"), ("setuptools", "setuptools")):
        if importlib.util.find_spec(module) is None:
            return f"{package} is not installed in {sys.executable} (pip install {package}; the test extra has both)"
    return None


def missing_compiler() -> str | None:
    """Why no C extension can be built here, or None when the C compiler Python is configured with is on PATH.

    The compiler is ``$CC`` if set, else the one Python was built with (``sysconfig``'s ``CC``), as setuptools
    picks it. On Windows it answers None: setuptools finds MSVC itself when the build runs.
    """
    if sys.platform == "win32":
        return None
    configured = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    program = shlex.split(configured)[0]
    if shutil.which(program) is None:
        return f"no C compiler: {program!r} (from $CC or Python's configured CC) is not on PATH"
    return None


def compile_engine(into: Path, games: Path = ROOT / "games") -> Path:
    """Compile ``games`` (a checkout's ``games/`` directory) with mypyc; return the directory for PYTHONPATH.

    ``into`` must not exist yet or be empty; the returned directory is ``into / "lib"`` (the staged copy and the
    compiler's files stay in ``into`` too). Raises ``RuntimeError`` with the end of the compiler's output if the
    build fails or makes no extension module for ``parlour.games.golf``.
    """
    stage = into / "stage"
    shutil.copytree(games, stage / "parlour" / "games", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (stage / "parlour" / "__init__.py").touch()
    lib = into / "lib"
    command = [sys.executable, "-c", _BUILD, str(lib), str(into / "temp")]
    done = subprocess.run(command, cwd=stage, capture_output=True, text=True, timeout=1200)
    output = (done.stdout + done.stderr)[-6000:]
    if done.returncode != 0:
        raise RuntimeError(f"mypyc failed (exit status {done.returncode}):\n{output}")
    if not list((lib / "parlour" / "games").glob("golf.*")):
        raise RuntimeError(f"mypyc made no extension module for parlour.games.golf in {lib}:\n{output}")
    return lib


def engine_file(path: Path) -> str:
    """``parlour.games.golf.__file__`` in a fresh interpreter with ``path`` first on PYTHONPATH."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(path), os.environ.get("PYTHONPATH")])))
    code = "import parlour.games.golf as golf; print(golf.__file__)"
    done = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def is_compiled(file: str) -> bool:
    """Whether a module's ``__file__`` is an extension module (``.so``, ``.pyd``), not Python source."""
    return file.endswith((".so", ".pyd"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python bench/mypyc_engine.py",
        description="Compile this checkout's rules engine (games/) with mypyc into DIR; the extension modules go "
        "to DIR/lib, which PYTHONPATH then takes. About a minute of one core; needs mypy, setuptools, a C compiler.",
    )
    parser.add_argument("dir", metavar="DIR", type=Path, help="a directory that does not exist yet, or an empty one")
    args = parser.parse_args(argv)
    into = args.dir.resolve()
    if into.exists() and (not into.is_dir() or any(into.iterdir())):
        parser.error(f"{into} is not an empty directory")
    missing = missing_mypyc() or missing_compiler()
    if missing is not None:
        print(f"{parser.prog}: cannot compile: {missing}", file=sys.stderr)
        return 1
    try:
        lib = compile_engine(into)
    except RuntimeError as error:  # its message ends with the compiler's output
        print(f"{parser.prog}: {error}", file=sys.stderr)
        return 1
    print(f"compiled: PYTHONPATH={lib} gives {engine_file(lib)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
