"""``lmml lsp``: the language server for editors, over standard input and output."""

from __future__ import annotations

import argparse

from ._arguments import Arguments
from ._options import seconds
from ._output import CliError
from ._table import command

__all__ = ["LspArguments", "cmd_lsp"]


class LspArguments(Arguments):
    """``lmml lsp``'s own options, typed (the parser sets each)."""

    debounce: float | None
    stdio: bool


def _lsp_options(parser: argparse.ArgumentParser) -> None:
    """``lmml lsp``'s own options."""
    parser.add_argument(
        "--debounce",
        type=seconds,
        metavar="SECONDS",
        help="wait this long after the last edit before checking the document again "
        "(default: a fraction of a second; a client's initializationOptions may set it)",
    )
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="talk over standard input and output (the only transport, and the default; "
        "accepted because language clients pass it)",
    )


@command(
    order=150,
    summary="run the language server for editors (LSP over stdin and stdout)",
    example="lmml lsp     # started by the editor; see the Editors page of the docs",
    options=_lsp_options,
)
def cmd_lsp(args: LspArguments) -> int:
    """``lmml lsp``: serve LSP on stdio until the client exits; 0 then.

    The server needs the ``lsp`` extra; without it this fails with the command to install it.
    """
    try:
        from ..lsp import serve
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
