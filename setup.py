"""Build hook: the pure package by default; with ``PARLOUR_COMPILE=1``, the rules engine compiled with mypyc.

pyproject.toml holds the metadata and the package list; this file only adds extension modules, and only when
``PARLOUR_COMPILE=1`` is set. A plain ``pip install .`` builds exactly the pure package and never needs mypy.
The compiled build needs mypy (which brings mypyc) and a C compiler in the environment that builds:

    pip install "mypy>=1.11" "setuptools>=77"
    PARLOUR_COMPILE=1 pip install --no-build-isolation .

Every module of ``parlour.games`` becomes an extension module (``parlour/games/*.so``, ``.pyd`` on Windows;
the ``.py`` files are installed beside them and unused), plus mypyc's shared runtime module
``<hash>__mypyc.*.so`` at the top of site-packages. mypyc names a module after its file's path, so the sources
are first copied to ``build/mypyc/src/parlour/games/`` (``games/golf.py`` compiled where it lies would become a
module ``games.golf``). The compiled engine must rule exactly as the pure one: ``tests/games/test_compiled.py``
checks it. Editable installs stay pure (the compiled modules would be written into ``games/``).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent
STAGE = ROOT / "build" / "mypyc"


def compiled_engine() -> list[Extension]:
    """mypyc's extension modules for ``parlour.games``, from a copy of ``games/`` staged as ``parlour/games/``."""
    if {"develop", "editable_wheel"} & set(sys.argv[1:]):
        sys.exit("PARLOUR_COMPILE=1 is for regular installs: an editable one would put the compiled modules in games/")
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit(
            'PARLOUR_COMPILE=1 needs mypy in the building environment: pip install "mypy>=1.11" "setuptools>=77", '
            "then PARLOUR_COMPILE=1 pip install --no-build-isolation ."
        )
    source = STAGE / "src"
    shutil.rmtree(source, ignore_errors=True)
    shutil.copytree(ROOT / "games", source / "parlour" / "games", ignore=shutil.ignore_patterns("__pycache__"))
    (source / "parlour" / "__init__.py").touch()  # for mypyc's module names only; not installed
    options = ["--cache-dir", str(STAGE / "mypy-cache")]
    return mypycify([*options, str(source / "parlour" / "games")], opt_level="3", target_dir=str(STAGE / "c"))


setup(ext_modules=compiled_engine() if os.environ.get("PARLOUR_COMPILE") == "1" else [])
