"""Fixtures shared by the test modules."""

from __future__ import annotations

import compileall
import contextlib
import logging
from pathlib import Path

import pytest
from _sdk_clients import only_this_tests_objects
from _wire_server import server, wire_server
from test_preview_browser import browser

__all__ = ["browser", "only_this_tests_objects", "server", "wire_server"]

PACKAGE = Path(__file__).resolve().parent.parent / "lmml_mdit"


@pytest.fixture(scope="session", autouse=True)
def _package_bytecode() -> None:
    """The package's bytecode written once, before any test: the suite starts hundreds of
    ``python -m lmml_mdit`` processes, and where ``PYTHONDONTWRITEBYTECODE`` is set (as on
    CI) each of them would otherwise compile every module it imports from source again.
    Python checks each file's stamp as usual, so an edited module is never read stale."""
    with contextlib.suppress(OSError):
        compileall.compile_dir(PACKAGE, quiet=1)


# Ray Data's cluster metrics poller is a daemon thread that outlives ray.shutdown() and logs
# each failed poll (in its poller and util modules) at DEBUG with its traceback. On Python
# 3.11, formatting a traceback parses source with ast in that thread, and ast's constructor
# keeps its recursion depth in state shared between threads: an ast.parse in a test at that
# moment fails with "SystemError: AST constructor recursion depth mismatch" (CPython
# gh-106905). Those records are dropped.
for _logger in ("ray.data._internal.usage.poller", "ray.data._internal.usage.util"):
    logging.getLogger(_logger).disabled = True
