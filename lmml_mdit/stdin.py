"""Standard input, read where a path of ``-`` names it: its byte stream, or one clear
error when the process has none (started with it closed)."""

from __future__ import annotations

import sys

from .errors import StdinClosedError

TYPE_CHECKING = False  # not typing's: the command line reads this module at start-up
if TYPE_CHECKING:
    from typing import BinaryIO

__all__ = ["STDIN_LABEL", "stdin_buffer"]

STDIN_LABEL = "<stdin>"
"""Standard input as messages name it."""


def stdin_buffer() -> BinaryIO:
    """Standard input's byte stream, left open for the caller to read (never to close).

    :raises StdinClosedError: when the process has no standard input, or it is closed.
    """
    stream = sys.stdin
    if stream is None or stream.closed:
        raise StdinClosedError(
            "standard input is closed", name=STDIN_LABEL, hint="give a file instead of -"
        )
    return stream.buffer
