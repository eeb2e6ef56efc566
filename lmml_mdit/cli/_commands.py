"""The ``lmml`` command line: :func:`main` parses the arguments and runs the subcommand.

One small function per subcommand, taking the parsed arguments and returning the exit
status (each declared in its own module, see :mod:`lmml_mdit.cli._table`). Every failure
is one ``lmml: error:`` line, data goes to stdout and messages to stderr, and the layers
above the bundle are imported only when their command runs. See docs/cli.md.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import sys
from collections.abc import Iterator, Sequence

from ..atomic import Terminated, terminate_cleanly
from ..errors import LmmlError
from ..warn import cli_wording
from ._output import (
    STDIO,
    CliError,
    discard_stdout,
    error,
    error_text,
    stdout_discarded,
    warnings_worded,
)
from ._parser import parse_arguments
from ._table import modules

__all__ = ["main"]

_DEBUG_VARIABLE = "LMML_DEBUG"


def _shortcut(argv: list[str]) -> list[str]:
    """``lmml FILE`` (a path where the command goes) means ``lmml turns FILE``."""
    if (
        argv
        and argv[0] not in modules()
        and (argv[0] == STDIO or (not argv[0].startswith("-") and os.path.isfile(argv[0])))
    ):
        return ["turns", *argv]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lmml`` command line and return its exit status.

    :param argv: the arguments after the program name; ``sys.argv[1:]`` by default.
    """
    if sys.stderr is None or sys.stderr.closed:
        # Started with stderr closed: messages have nowhere to go, so they go nowhere
        # (print() would otherwise fall back to stdout and mix them into the data).
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    arguments = _shortcut(list(sys.argv[1:] if argv is None else argv))
    try:
        with terminate_cleanly():
            return _flushed(_run(arguments))
    except Terminated as stop:
        error(str(stop))
        return int(stop.code or 1)


_FULL = frozenset({errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)})
"""The errors of a write that found no room."""


def _output_full(failure: BaseException) -> bool:
    """Whether *failure* is a write that found no room and names no file: every file a
    command writes is written by name (atomically), so that is a print to standard output
    that ``PYTHONUNBUFFERED`` sent straight to a full disk."""
    return (
        isinstance(failure, OSError)
        and not isinstance(failure, LmmlError)  # a library error names its own file
        and failure.filename is None
        and failure.errno in _FULL
    )


def _flushed(status: int) -> int:
    """*status*, once what the command printed has left standard output: a failure there
    (a full disk) is then the command's one error line and status 2, not the
    interpreter's complaint at exit."""
    stream = sys.stdout
    if stream is None or stream.closed:
        return status
    try:
        stream.flush()
    except BrokenPipeError:
        return _broken_pipe()
    except OSError as failure:
        if stdout_discarded():  # its failure is said already
            return status
        discard_stdout()
        error(f"standard output: cannot write: {failure.strerror or failure}")
        return 2
    return status


def _run(arguments: list[str]) -> int:
    try:
        # Warnings while the arguments are read too: checking a format name loads the
        # registry, and with it the installed plugins, one of which may be left out.
        # Library warnings (an orphaned entry, a left-out embed) as one ``lmml: warning:``
        # line, in the command line's words where the warning has them.
        with warnings_worded(cli_wording):
            with _collection_paused():
                args = parse_arguments(arguments)
                handler = args.handler.resolve()
            return handler(args)
    except (LmmlError, OSError, CliError) as failure:
        if isinstance(failure, BrokenPipeError):
            return _broken_pipe()
        if _output_full(failure):
            discard_stdout()
            error(f"standard output: cannot write: {error_text(failure)}")
            return 2
        error(error_text(failure))
        return 2
    except KeyboardInterrupt:
        error("interrupted")
        return 130
    except Exception as failure:
        # A bug, not bad input: still one line, but say so and offer the traceback.
        if os.environ.get(_DEBUG_VARIABLE):
            raise
        error(
            f"internal error ({type(failure).__name__}: {error_text(failure)}); "
            f"set {_DEBUG_VARIABLE}=1 for the traceback"
        )
        return 2


@contextlib.contextmanager
def _collection_paused() -> Iterator[None]:
    """No garbage collection while the command's modules load: importing them allocates
    only objects that live as long as the process (modules, functions, classes), so the
    thirty-odd collections the allocations would trigger find nothing and cost a
    noticeable part of a short command's run."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _broken_pipe() -> int:
    # The reader went away (``lmml cat x a.png | head``): stop quietly, and point stdout at
    # /dev/null so the interpreter's final flush does not complain.
    discard_stdout()
    return 1
