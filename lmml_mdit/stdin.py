"""Standard input, read where a path of ``-`` names it: its byte stream, or one clear
error when the process has none (started with it closed)."""

from __future__ import annotations

import io
import sys

from .errors import StdinClosedError

TYPE_CHECKING = False  # not typing's: the command line reads this module at start-up
if TYPE_CHECKING:
    from typing import BinaryIO

__all__ = ["STDIN_LABEL", "STDIN_NAME", "stdin_buffer"]

STDIN_LABEL = "<stdin>"
"""Standard input as messages name it."""

STDIN_NAME = "stdin"
"""The name of a bundle read from standard input (its narrative ``stdin.lmml``), and of
one imported from it into a folder (``stdin.lmmlz``)."""


def stdin_buffer() -> BinaryIO:
    """Standard input's byte stream, left open for the caller to read (never to close).

    A stand-in for ``sys.stdin`` without a byte stream (an IDE's or a notebook's text
    stream) is read whole and given as UTF-8 bytes.

    :raises StdinClosedError: when the process has no standard input, or it is closed.
    """
    stream = sys.stdin
    if stream is None or getattr(stream, "closed", False):
        raise StdinClosedError(
            "standard input is closed", name=STDIN_LABEL, hint="give a file instead of -"
        )
    buffer: BinaryIO | None = getattr(stream, "buffer", None)
    if buffer is None:
        return io.BytesIO(stream.read().encode("utf-8"))
    return buffer
