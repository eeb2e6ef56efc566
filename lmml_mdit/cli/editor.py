"""``lmml lsp``: the language server for editors, over standard input and output."""

from __future__ import annotations

from .arguments import Arguments
from .output import CliError

__all__ = ["cmd_lsp"]


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
