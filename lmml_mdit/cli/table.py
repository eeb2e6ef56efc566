"""The ``lmml`` subcommands: where each one's function lives, its one-line summary and its
example, and the top-level help built from them alone.

``lmml --help`` reads this module and the parser's pieces in :mod:`~lmml_mdit.cli.options`,
and nothing of any subcommand's options (:mod:`~lmml_mdit.cli.parser`).
"""

from __future__ import annotations

import argparse

from .._version import VERSION_LINE
from .options import HelpFormatter, Parser

__all__ = ["COMMANDS", "TABLE", "Command", "summary_parser", "top_parser"]


class Command:
    """What the parser knows of a subcommand besides its options."""

    __slots__ = ("example", "module", "opens_bundles", "summary")

    def __init__(self, module: str, *, opens_bundles: bool, summary: str, example: str) -> None:
        self.module = module
        """The module of :mod:`lmml_mdit.cli` its function (``cmd_`` and its name, ``-``
        written ``_``) lives in: imported when the command runs, so ``lmml validate`` loads
        neither the preview nor import and export."""
        self.opens_bundles = opens_bundles
        """Whether it reads bundles, and so takes the syntax options."""
        self.summary = summary
        """Its line in ``lmml --help``; with a capital and a full stop, its description."""
        self.example = example
        """The example closing its own help."""


TABLE: dict[str, Command] = {
    "new": Command(
        "rewrite",
        opens_bundles=False,
        summary="write a starter narrative (never over an existing file)",
        example="lmml new notes/session     # creates notes/session.lmml",
    ),
    "validate": Command(
        "inspection",
        opens_bundles=True,
        summary="check bundles for authoring defects",
        example="lmml validate examples/*.lmml examples/*.lmmlz",
    ),
    "render": Command(
        "render",
        opens_bundles=True,
        summary="print a bundle's chat messages (or request body) as JSON",
        example="lmml render examples/sales-review.lmmlz --provider anthropic --request",
    ),
    "turns": Command(
        "inspection",
        opens_bundles=True,
        summary="list the turns: number, role, lines, characters, embeds",
        example="lmml turns examples/sales-review.lmml",
    ),
    "ls": Command(
        "inspection",
        opens_bundles=True,
        summary="list assets with size, media type and sha256",
        example="lmml ls examples/sales-review.lmmlz",
    ),
    "cat": Command(
        "inspection",
        opens_bundles=True,
        summary="write one asset's bytes to stdout",
        example="lmml cat examples/sales-review.lmmlz chart.png > chart.png",
    ),
    "pack": Command(
        "rewrite",
        opens_bundles=True,
        summary="turn inline fences into archive entries (writes a .lmmlz)",
        example="lmml pack examples/sales-review.lmml /tmp/trip-report.lmmlz",
    ),
    "inline": Command(
        "rewrite",
        opens_bundles=True,
        summary="turn referenced text assets into fences (writes a .lmml)",
        example="lmml inline notes.lmmlz     # writes notes.lmml",
    ),
    "to-md": Command(
        "rewrite",
        opens_bundles=True,
        summary="export plain Markdown, embeds replaced by [Image: x] placeholders",
        example="lmml to-md examples/sales-review.lmmlz -",
    ),
    "preview": Command(
        "render",
        opens_bundles=True,
        summary="write a self-contained HTML preview",
        example="lmml preview examples/sales-review.lmmlz -o /tmp/trip.html",
    ),
    "info": Command(
        "inspection",
        opens_bundles=True,
        summary="summarise a bundle: kind, turns, embeds, entries, manifest, settings",
        example="lmml info examples/sales-review.lmmlz",
    ),
    "import": Command(
        "interchange",
        opens_bundles=False,
        summary="import chat data (OpenAI, Anthropic, Gemini, ShareGPT) as LMML",
        example="lmml import chat.json -o chat.lmmlz",
    ),
    "convert": Command(
        "interchange",
        opens_bundles=False,
        summary="convert a prompt file (Prompty, dotprompt, .prompt.yml, LangChain) to LMML, "
        "or back",
        example="lmml convert chat.prompty chat.lmml",
    ),
    "export": Command(
        "interchange",
        opens_bundles=True,
        summary="export a folder of bundles as one JSONL dataset, or as Parquet rows",
        example="lmml export runs/ --provider openai --jsonl dataset.jsonl",
    ),
    "lsp": Command(
        "editor",
        opens_bundles=False,
        summary="run the language server for editors (LSP over stdin and stdout)",
        example="lmml lsp     # started by the editor; see the Editors page of the docs",
    ),
    "inputs": Command(
        "templates",
        opens_bundles=True,
        summary="list a template's declared inputs and where each is used",
        example="lmml inputs support.lmml",
    ),
    "fmt": Command(
        "toolchain",
        opens_bundles=False,
        summary="format narratives with mdformat, every LMML construct kept as written",
        example="lmml fmt examples/ --check",
    ),
    "run": Command(
        "running",
        opens_bundles=True,
        summary="send the conversation to a model, stream the reply, append it to the file",
        example="lmml run chat.lmml --provider openai --model gpt-4o-mini",
    ),
    "eval": Command(
        "evaluation",
        opens_bundles=True,
        summary="send every case to every target and check the answers against their expect",
        example="lmml eval prompt.lmml --cases cases.jsonl --target openai:gpt-4o-mini",
    ),
}
"""Every subcommand, in help order."""

COMMANDS: tuple[str, ...] = tuple(TABLE)
"""Every subcommand name, in help order."""


def top_parser() -> tuple[Parser, argparse._SubParsersAction[Parser]]:
    """The ``lmml`` parser without its subcommands, and the action they are added to."""
    parser = Parser(
        prog="lmml",
        description="Work with LMML bundles (.lmml narratives and .lmmlz archives).",
        epilog=(
            "examples:\n"
            "  lmml validate examples/sales-review.lmmlz\n"
            "  lmml render examples/sales-review.lmmlz --provider anthropic\n"
            "  lmml COMMAND --help    (every command has its own help and example)"
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    return parser, sub


def summary_parser() -> Parser:
    """The ``lmml`` parser as ``lmml --help`` shows it: every subcommand's summary, none of
    their options (a sixth of the cost of the whole tree)."""
    parser, sub = top_parser()
    for name, known in TABLE.items():
        sub._choices_actions.append(sub._ChoicesPseudoAction(name, (), known.summary))
    return parser
