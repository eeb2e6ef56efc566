"""``lmml lsp``: the language server for editors, over standard input and output."""

from __future__ import annotations

import argparse
import math

from .arguments import Arguments
from .output import CliError

__all__ = ["cmd_lsp", "seconds"]


def seconds(text: str) -> float:
    """*text* as a number of seconds, 0 or more, for ``type=``.

    :raises argparse.ArgumentTypeError: otherwise.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds: {text!r}")
    return value


def cmd_lsp(args: Arguments) -> int:
    """``lmml lsp``: serve LSP on stdio until the client exits; 0 then.

    The server needs the ``lsp`` extra; without it this fails with the command to install it.
    """
    try:
        from ..lsp.server import serve
    except ImportError as error:
        raise CliError(
            f"the language server needs the lsp extra ({error.name or error} is not installed); "
            "run: pip install 'lmml-mdit[lsp]'"
        ) from None
    if args.debounce is None:
        serve()
    else:
        serve(debounce=args.debounce)
    return 0
