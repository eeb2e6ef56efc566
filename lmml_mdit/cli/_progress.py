"""The one progress display of the ``lmml`` command line.

The library reports progress through a callback (:class:`lmml_mdit.chat.Progress`)
and draws nothing; this counter draws it, for the commands' own loops too.
"""

from __future__ import annotations

import sys

from ._output import shown

__all__ = ["ProgressLine"]

_WIDTH = 80


class ProgressLine:
    """``label: done/total detail`` on stderr, redrawn in place, only when stderr is a
    terminal (and, when the total is known up front, only for more than one item); nothing
    in pipes, logs or CI.

    An instance is a :class:`~lmml_mdit.chat.Progress` callback, *total* then
    given per call (None when it is not known in advance); :meth:`step` is for a loop of
    a known *total*. Use it as a context manager, or call :meth:`close`, to clear the line.
    """

    def __init__(self, label: str, total: int | None = None) -> None:
        self.label = label
        self.total = total
        self.active = sys.stderr.isatty() and (total is None or total > 1)
        self.drawn = False

    def step(self, done: int, detail: str = "") -> None:
        """Item *done* of the total given at construction, *detail* naming it."""
        self(done, self.total, detail)

    def __call__(self, done: int, total: int | None, detail: str) -> None:
        if self.active:
            count = f"{done}/{total}" if total else str(done)
            line = f"\r{self.label}: {count} {shown(detail)[-50:]}"
            sys.stderr.write(line.ljust(_WIDTH)[:120])
            sys.stderr.flush()
            self.drawn = True

    def close(self) -> None:
        """Clear the line, so the next message starts on a clean one."""
        if self.drawn:
            sys.stderr.write("\r" + " " * _WIDTH + "\r")
            sys.stderr.flush()
            self.drawn = False

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
