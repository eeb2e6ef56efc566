"""Warnings, reported at the line of the code that called into the package.

A warning raised deep inside the package (a setting left out while a request is built, an
item dropped while messages are written) is about the caller's call, so it names the
caller's file and line whatever path led to it: a fixed ``stacklevel`` would point inside
the package as soon as the call came through another public function. Every warning class
of the package derives from :class:`LmmlWarning`, so one filter silences or raises them all.
"""

from __future__ import annotations

import sys
import warnings

from .errors import LmmlWarning

__all__ = ["LmmlWarning", "cli_wording", "warn"]


_PACKAGE = __name__.partition(".")[0]


def _in_package(module: object) -> bool:
    return isinstance(module, str) and (module == _PACKAGE or module.startswith(_PACKAGE + "."))


def cli_wording(message: Warning | str) -> str:
    """A warning as the command line words it: its ``cli_message`` where it has one
    (naming flags, not Python arguments), else its text."""
    cli_message = getattr(message, "cli_message", None)
    return cli_message if isinstance(cli_message, str) else str(message)


def warn(warning: Warning) -> None:
    """Issue *warning* at the first frame outside the package.

    :param warning: the warning, an instance of its category.
    """
    level = 2  # the caller of this function
    frame = sys._getframe(1)
    while frame.f_back is not None and _in_package(frame.f_globals.get("__name__")):
        frame = frame.f_back
        level += 1
    warnings.warn(warning, stacklevel=level)
