"""Fixtures shared by the test modules."""

from __future__ import annotations

import compileall
import contextlib
from pathlib import Path

import pytest
from _wire_server import server, wire_server
from test_preview_browser import browser

__all__ = ["browser", "server", "wire_server"]

PACKAGE = Path(__file__).resolve().parent.parent / "lmml_mdit"


@pytest.fixture(scope="session", autouse=True)
def _package_bytecode() -> None:
    """The package's bytecode written once, before any test: the suite starts hundreds of
    ``python -m lmml_mdit`` processes, and where ``PYTHONDONTWRITEBYTECODE`` is set (as on
    CI) each of them would otherwise compile every module it imports from source again.
    Python checks each file's stamp as usual, so an edited module is never read stale."""
    with contextlib.suppress(OSError):
        compileall.compile_dir(PACKAGE, quiet=1)
