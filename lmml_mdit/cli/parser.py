"""The ``lmml`` argument parser: every subcommand, its options and its help.

The chat format and provider names its choices offer come from the chat layer's registry
(:mod:`lmml_mdit.chat.providers`), the one list of them.
"""

from __future__ import annotations

import argparse

from .._version import VERSION_LINE
from ..chat.format_names import EXPORT_PROVIDERS, IMPORT_FORMATS
from ..chat.format_names import PROVIDER_NAMES as PROVIDERS
from ..formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX
from .arguments import Arguments, CommandHandler
from .options import (
    HelpFormatter,
    Parser,
    UsageError,
    add_base_dir,
    add_bundle,
    add_dest,
    add_force,
    add_json,
    add_provider,
    add_quiet,
    add_syntax_options,
    parse_setting,
    positive_int,
    seconds,
)

TYPE_CHECKING = False  # not typing's: ``lmml --help`` reads this module and no more
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = [
    "COMMANDS",
    "EXPORT_PROVIDERS",
    "IMPORT_FORMATS",
    "PROVIDERS",
    "build_parser",
    "parse_arguments",
]


class _Command:
    """What the parser knows of a subcommand besides its options."""

    __slots__ = ("module", "opens_bundles")

    def __init__(self, module: str, *, opens_bundles: bool) -> None:
        self.module = module
        """The module of :mod:`lmml_mdit.cli` its function (``cmd_`` and its name, ``-``
        written ``_``) lives in: imported when the command runs, so ``lmml validate`` loads
        neither the preview nor import and export."""
        self.opens_bundles = opens_bundles
        """Whether it reads bundles, and so takes the syntax options."""


_COMMAND_TABLE: dict[str, _Command] = {
    "new": _Command("rewrite", opens_bundles=False),
    "validate": _Command("inspection", opens_bundles=True),
    "render": _Command("render", opens_bundles=True),
    "turns": _Command("inspection", opens_bundles=True),
    "ls": _Command("inspection", opens_bundles=True),
    "cat": _Command("inspection", opens_bundles=True),
    "pack": _Command("rewrite", opens_bundles=True),
    "inline": _Command("rewrite", opens_bundles=True),
    "to-md": _Command("rewrite", opens_bundles=True),
    "preview": _Command("render", opens_bundles=True),
    "info": _Command("inspection", opens_bundles=True),
    "import": _Command("interchange", opens_bundles=False),
    "export": _Command("interchange", opens_bundles=True),
    "convert": _Command("interchange", opens_bundles=False),
    "lsp": _Command("editor", opens_bundles=False),
    "inputs": _Command("templates", opens_bundles=True),
    "fmt": _Command("toolchain", opens_bundles=False),
    "run": _Command("running", opens_bundles=True),
}
"""Every subcommand, in help order."""

COMMANDS: tuple[str, ...] = tuple(_COMMAND_TABLE)
"""Every subcommand name, in help order."""

SUMMARIES = "--help"
"""``build_parser(SUMMARIES)``: every subcommand's one-line summary and nothing of its
options, which is all ``lmml --help`` prints (and a sixth of the cost of the whole tree)."""


class _Unbuilt:
    """Stands for a subcommand's parser in the summaries: every call on it does nothing."""

    def __getattr__(self, name: str) -> Callable[..., _Unbuilt]:
        return lambda *args, **kwargs: self


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``lmml`` argument parser with every subcommand, or with *only* that one.

    :param only: a subcommand's name: the parser then knows no other, which is how a
        command line naming its subcommand is parsed (building all sixteen costs more
        than some commands take to run).
    """
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

    def wanted(name: str) -> bool:
        return only is None or only == SUMMARIES or name == only

    def command(name: str, summary: str, example: str) -> argparse.ArgumentParser:
        if only == SUMMARIES:
            sub._choices_actions.append(sub._ChoicesPseudoAction(name, (), summary))
            return _Unbuilt()  # type: ignore[return-value]
        command_parser = sub.add_parser(
            name,
            help=summary,
            description=summary[0].upper() + summary[1:] + ".",
            epilog=f"example:\n  {example}",
            formatter_class=HelpFormatter,
        )
        known = _COMMAND_TABLE[name]
        function = "cmd_" + name.replace("-", "_")
        command_parser.set_defaults(handler=CommandHandler(known.module, function))
        if known.opens_bundles:
            add_syntax_options(command_parser)
        return command_parser

    if wanted("new"):
        p = command(
            "new",
            "write a starter narrative (never over an existing file)",
            "lmml new notes/session     # creates notes/session.lmml",
        )
        p.add_argument(
            "path",
            metavar="PATH",
            help="the file to create; .lmml is added unless it ends in .lmml or .lmmlz; "
            "a .lmmlz path makes an archive; - prints the starter",
        )
        p.add_argument(
            "--template",
            action="store_true",
            help="write a template: a starter with declared inputs and their placeholders",
        )
        add_quiet(p)

    if wanted("validate"):
        p = command(
            "validate",
            "check bundles for authoring defects",
            "lmml validate examples/*.lmml examples/*.lmmlz",
        )
        p.add_argument("paths", nargs="+", metavar="PATH", help="bundles to check (- for stdin)")
        add_json(p, "one JSON report on stdout")
        p.add_argument(
            "--strict",
            action="store_true",
            help="exit 1 on warnings too (by default only an error-level defect fails)",
        )
        p.add_argument(
            "--input",
            dest="input_values",
            action="append",
            metavar="NAME=VALUE",
            help="a template input's value, checked too (missing_input, invalid_input); repeatable",
        )
        p.add_argument(
            "--inputs", dest="inputs_file", metavar="FILE", help="a JSON object of input values"
        )
        add_base_dir(p)

    if wanted("render"):
        p = command(
            "render",
            "print a bundle's chat messages (or request body) as JSON",
            "lmml render examples/sales-review.lmmlz --provider anthropic --request",
        )
        add_bundle(p)
        add_provider(p, PROVIDERS, "the API shape")
        p.add_argument(
            "--request",
            action="store_true",
            help="print the whole request body: messages plus settings as parameters",
        )
        p.add_argument("--model", help="the model name for --request")
        p.add_argument(
            "--max-embed-bytes",
            type=positive_int,
            metavar="N",
            help="per-message payload budget; larger embeds are left out",
        )
        p.add_argument(
            "--context",
            choices=("system", "user", "drop"),
            help="what the preamble (context turn) becomes (default: system)",
        )
        p.add_argument(
            "--system",
            choices=("separate", "user", "drop", "raise"),
            help="system content anthropic and gemini keep outside the messages list: print "
            '{"system": ..., "messages": [...]} (separate), send it as user content, drop it, or '
            "fail (the default, unless --request)",
        )
        p.add_argument(
            "--midway-system",
            choices=("user", "hoist", "drop", "raise"),
            help="a system turn after the conversation has started, for anthropic and gemini "
            "(system content up front only): send it as user text marked [system] at its place "
            "(default), move it up front, drop it (each with a warning) or fail",
        )
        p.add_argument(
            "--attachment-lines",
            choices=("drop", "keep"),
            help="a paragraph made only of references (@photo.png): leave it out, its parts "
            "standing in its place (default), or keep it in the text before its parts",
        )
        p.add_argument(
            "--on-omit",
            choices=("warn", "raise"),
            help="an embed over --max-embed-bytes: warn on stderr (default) or fail",
        )
        p.add_argument(
            "--text-embeds",
            choices=("text", "document"),
            help="text assets as text parts or as the provider's document parts "
            "(default: document for anthropic, text elsewhere)",
        )
        p.add_argument(
            "--image-detail", choices=("auto", "low", "high"), help="the OpenAI image detail"
        )
        p.add_argument(
            "-s",
            "--set",
            dest="settings",
            action="append",
            type=parse_setting,
            metavar="KEY=VALUE",
            help="with --request: a setting over the bundle's settings embed, the value read "
            "as YAML (--set max_tokens=300); repeatable",
        )
        p.add_argument(
            "--unknown-settings",
            choices=("pass", "warn", "error"),
            help="with --request: settings keys the provider has no parameter for are left out "
            "with a warning (warn, the default), passed as they are (pass), or fail (error)",
        )
        p.add_argument(
            "-f",
            "--force",
            action="store_true",
            help="render even a bundle with an error-level defect (a missing reference, an "
            "unclosed fence, ...), reporting each as a warning",
        )
        p.add_argument(
            "--strict",
            action="store_true",
            help="fail on a warning every send reports too (a suspicious delimiter), not only "
            "on an error-level defect",
        )
        p.add_argument(
            "--input",
            dest="input_values",
            action="append",
            metavar="NAME=VALUE",
            help="a template input's value (read as its declared type; NAME=@FILE reads a file, "
            "an image or file input's bytes); repeatable",
        )
        p.add_argument(
            "--inputs",
            dest="inputs_file",
            metavar="FILE",
            help="a JSON object of template input values (--input flags win)",
        )
        p.add_argument(
            "--cases",
            metavar="FILE",
            help="a JSONL file of input values: one rendering per line, written as JSON lines in "
            "order; a failed line is reported and the rest go on (exit 1 at the end)",
        )
        p.add_argument(
            "--workers",
            type=positive_int,
            metavar="N",
            help="with --cases: worker processes (default: one per core)",
        )
        p.add_argument(
            "-o",
            "--output",
            metavar="OUT",
            help="where to write the JSON (default: stdout; with --cases, JSON lines)",
        )
        add_base_dir(p)
        add_quiet(p)

    if wanted("turns"):
        p = command(
            "turns",
            "list the turns: number, role, lines, characters, embeds",
            "lmml turns examples/sales-review.lmml",
        )
        add_bundle(p)
        add_json(p, "the rows as JSON")
        add_base_dir(p)

    if wanted("ls"):
        p = command(
            "ls",
            "list assets with size, media type and sha256",
            "lmml ls examples/sales-review.lmmlz",
        )
        add_bundle(p)
        add_json(p, "the rows as JSON")
        add_base_dir(p)

    if wanted("cat"):
        p = command(
            "cat",
            "write one asset's bytes to stdout",
            "lmml cat examples/sales-review.lmmlz chart.png > chart.png",
        )
        add_bundle(p)
        p.add_argument(
            "name",
            metavar="NAME",
            help="the embed or entry name (the narrative's own name prints it)",
        )
        add_base_dir(p)

    for name, extension, summary, example in (
        (
            "pack",
            ARCHIVE_SUFFIX,
            "turn inline fences into archive entries (writes a .lmmlz)",
            "lmml pack examples/sales-review.lmml /tmp/trip-report.lmmlz",
        ),
        (
            "inline",
            NARRATIVE_SUFFIX,
            "turn referenced text assets into fences (writes a .lmml)",
            "lmml inline notes.lmmlz     # writes notes.lmml",
        ),
    ):
        if not wanted(name):
            continue
        p = command(name, summary, example)
        add_bundle(p, "src")
        add_dest(p, extension)
        p.add_argument(
            "--in-place", action="store_true", help="replace SRC itself (never done otherwise)"
        )
        add_force(p)
        add_base_dir(p)
        add_quiet(p)
        if name == "pack":
            p.add_argument(
                "--allow-missing",
                action="store_true",
                help="pack even when a reference resolves to no file (it stays a reference)",
            )
        if name == "inline":
            p.add_argument(
                "--orphans",
                choices=("append", "drop", "error"),
                default="append",
                help="archive entries the narrative never mentions: append them as fences at "
                "the end (default), leave them out, or fail; either way they are named",
            )
            p.add_argument(
                "--keep-binary",
                action="store_true",
                help="inline the text assets and keep each binary one as an archive entry "
                "(writes a .lmmlz when there is one)",
            )

    if wanted("to-md"):
        p = command(
            "to-md",
            "export plain Markdown, embeds replaced by [Image: x] placeholders",
            "lmml to-md examples/sales-review.lmmlz -",
        )
        add_bundle(p, "src")
        add_dest(p, ".md")
        add_force(p)
        add_base_dir(p)
        add_quiet(p)

    if wanted("preview"):
        p = command(
            "preview",
            "write a self-contained HTML preview",
            "lmml preview examples/sales-review.lmmlz -o /tmp/trip.html",
        )
        add_bundle(p)
        p.add_argument(
            "-o",
            "--output",
            metavar="OUT.html",
            help="where to write (default: PATH with .html; - for stdout)",
        )
        p.add_argument(
            "--input",
            dest="input_values",
            action="append",
            metavar="NAME=VALUE",
            help="a template input's value to show in place of its placeholder; repeatable",
        )
        p.add_argument(
            "--inputs", dest="inputs_file", metavar="FILE", help="a JSON object of input values"
        )
        add_base_dir(p)
        add_quiet(p)

    if wanted("info"):
        p = command(
            "info",
            "summarise a bundle: kind, turns, embeds, entries, manifest, settings",
            "lmml info examples/sales-review.lmmlz",
        )
        add_bundle(p)
        add_json(p, "the summary as JSON")
        add_base_dir(p)

    if wanted("import"):
        p = command(
            "import",
            "import chat data (OpenAI, Anthropic, Gemini, ShareGPT) as LMML",
            "lmml import chat.json -o chat.lmmlz",
        )
        p.add_argument(
            "file",
            metavar="FILE",
            help="a .json conversation, a .jsonl dataset (- for stdin) or a .parquet file of "
            "conversation rows",
        )
        p.add_argument(
            "-o",
            "--output",
            dest="out",
            required=True,
            metavar="OUT",
            help="the bundle to write (.lmmlz, or .lmml when it has no binary asset); a folder "
            "for JSONL input, one bundle per line, and for Parquet input, each bundle at its path",
        )
        p.add_argument(
            "--allow-remote",
            action="store_true",
            help="for Parquet input, fetch an asset whose location is a URL (by default only "
            "a local regular file is read)",
        )
        p.add_argument(
            "--format",
            choices=IMPORT_FORMATS,
            help="the input format (detected when omitted)",
        )
        add_quiet(p)

    if wanted("convert"):
        p = command(
            "convert",
            "convert a prompt file (Prompty, dotprompt, .prompt.yml, LangChain) to LMML, or back",
            "lmml convert chat.prompty chat.lmml",
        )
        p.add_argument("src", metavar="SRC", help="a prompt file, or a .lmml/.lmmlz bundle")
        p.add_argument(
            "dest",
            metavar="DEST",
            help="the file to write; its extension names the format (.lmml, .lmmlz, .prompty, "
            ".prompt, .prompt.yml, .json for LangChain)",
        )
        p.add_argument(
            "--lossy",
            action="store_true",
            help="leave out what DEST's format cannot hold, with a warning per item, instead "
            "of refusing",
        )
        add_quiet(p)

    if wanted("export"):
        p = command(
            "export",
            "export a folder of bundles as one JSONL dataset, or as Parquet rows",
            "lmml export runs/ --provider openai --jsonl dataset.jsonl",
        )
        p.add_argument(
            "folder", metavar="DIR", help="the folder of .lmml/.lmmlz bundles (or a URL)"
        )
        add_provider(
            p, EXPORT_PROVIDERS, "with --jsonl, the record shape: a request body, or sharegpt"
        )
        written = p.add_mutually_exclusive_group(required=True)
        written.add_argument(
            "--jsonl", metavar="OUT", help="the JSONL file to write (- for stdout)"
        )
        written.add_argument(
            "--parquet",
            metavar="OUT",
            help="the Parquet file of conversation rows to write (a path or fsspec URL)",
        )
        p.add_argument(
            "--payload",
            dest="payloads",
            action="append",
            choices=EXPORT_PROVIDERS,
            metavar="P",
            help="with --parquet, add provider P's request body as a column (repeatable)",
        )
        p.add_argument(
            "--assets",
            choices=("embed", "reference"),
            default="embed",
            help="with --parquet, store asset bytes in the rows (embed, the default) or where "
            "they live (reference)",
        )
        p.add_argument(
            "--workers",
            type=positive_int,
            metavar="N",
            help="worker processes (default: one per core; never more than the cores or the "
            "bundles)",
        )
        p.add_argument(
            "-f",
            "--force",
            action="store_true",
            help="export bundles with an error-level defect too, reporting each defect as a "
            "warning (by default each such bundle is a failure)",
        )
        p.add_argument(
            "--strict",
            action="store_true",
            help="a bundle with a warning every send reports (a suspicious delimiter) is a "
            "failure too",
        )
        p.add_argument(
            "--unknown-settings",
            choices=("pass", "warn", "error"),
            help="with --jsonl: settings keys the provider has no parameter for are kept as they "
            "are (pass, the default: a dataset line loses nothing), left out with a warning "
            "(warn: each line then passes the provider's SDK), or fail the bundle (error)",
        )
        add_base_dir(p)
        add_quiet(p)

    if wanted("lsp"):
        p = command(
            "lsp",
            "run the language server for editors (LSP over stdin and stdout)",
            "lmml lsp     # started by the editor; see the Editors page of the docs",
        )
        p.add_argument(
            "--debounce",
            type=seconds,
            metavar="SECONDS",
            help="wait this long after the last edit before checking the document again "
            "(default: a fraction of a second; a client's initializationOptions may set it)",
        )
        p.add_argument(
            "--stdio",
            action="store_true",
            help="talk over standard input and output (the only transport, and the default; "
            "accepted because language clients pass it)",
        )

    if wanted("inputs"):
        p = command(
            "inputs",
            "list a template's declared inputs and where each is used",
            "lmml inputs support.lmml",
        )
        add_bundle(p)
        add_json(p, "the inputs as JSON")
        add_base_dir(p)

    if wanted("fmt"):
        p = command(
            "fmt",
            "format narratives with mdformat, every LMML construct kept as written",
            "lmml fmt examples/ --check",
        )
        p.add_argument(
            "paths",
            nargs="+",
            metavar="PATH",
            help="bundles to format in place (.lmml, or the narrative inside a .lmmlz); a folder "
            "means the bundles under it; - formats stdin to stdout",
        )
        p.add_argument(
            "--check",
            action="store_true",
            help="change nothing; exit 1 when a file would be reformatted",
        )
        add_quiet(p)

    if wanted("run"):
        p = command(
            "run",
            "send the conversation to a model, stream the reply, append it to the file",
            "lmml run chat.lmml --provider openai --model gpt-4o-mini",
        )
        add_bundle(p)
        add_provider(p, PROVIDERS, "the API to send to")
        p.add_argument("--model", help="the model (default: the settings' model)")
        p.add_argument(
            "--base-url",
            metavar="URL",
            help="a server speaking the provider's protocol (Ollama, vLLM, LM Studio, "
            "llama.cpp's server, a LiteLLM proxy); a key is then optional",
        )
        p.add_argument(
            "--api-key",
            metavar="KEY",
            help="the API key (default: the SDK's environment variable, such as OPENAI_API_KEY)",
        )
        p.add_argument(
            "--no-stream",
            action="store_true",
            help="wait for the whole reply instead of printing it as it arrives",
        )
        p.add_argument(
            "--tool",
            dest="tool_specs",
            action="append",
            metavar="MODULE:FUNCTION",
            help="a Python function the model may call (declared by the settings' tool of its "
            "name, else by its signature and docstring); repeatable",
        )
        p.add_argument(
            "--max-rounds",
            type=positive_int,
            default=8,
            metavar="N",
            help="at most N requests in one run, with tool calls answered in between (default: 8)",
        )
        p.add_argument(
            "-y", "--yes", action="store_true", help="run tool calls without asking first"
        )
        p.add_argument(
            "--retries",
            type=positive_int,
            default=3,
            metavar="N",
            help="retries of a 429 or 5xx answer, with exponential backoff honouring Retry-After "
            "(default: 3)",
        )
        p.add_argument(
            "--backoff",
            type=seconds,
            default=0.5,
            metavar="SECONDS",
            help="the first retry's delay, doubled for each next one (default: 0.5)",
        )
        p.add_argument(
            "--timeout", type=seconds, metavar="SECONDS", help="the limit for each request"
        )
        p.add_argument(
            "--keep-partial",
            action="store_true",
            help="when the stream is cut or interrupted, write what arrived, marked incomplete",
        )
        p.add_argument(
            "--trace",
            choices=("console", "otlp"),
            help="record OpenTelemetry spans: print them (console) or send them to the "
            "collector the OTEL_EXPORTER_OTLP_* variables name (otlp, the default when "
            "OTEL_EXPORTER_OTLP_ENDPOINT is set)",
        )
        p.add_argument(
            "-o",
            "--output",
            metavar="OUT",
            help="write the conversation with the reply to OUT, leaving PATH as it is",
        )
        p.add_argument(
            "--dry-run",
            action="store_true",
            help="print the request body that would be sent, and send nothing",
        )
        p.add_argument(
            "-s",
            "--set",
            dest="settings",
            action="append",
            type=parse_setting,
            metavar="KEY=VALUE",
            help="a setting over the bundle's settings embed, the value read as YAML; repeatable",
        )
        p.add_argument(
            "-f",
            "--force",
            action="store_true",
            help="send even a bundle with an error-level defect, reporting each as a warning",
        )
        add_base_dir(p)
        add_quiet(p)

    return parser


def parse_arguments(arguments: Sequence[str]) -> Arguments:
    """*arguments* (those after the program name) parsed into an :class:`Arguments`.

    :raises UsageError: for a bad command line, unrecognised arguments included.
    """
    parsed = Arguments()  # filled in place
    named = next((argument for argument in arguments if not argument.startswith("-")), None)
    only = named if named in COMMANDS and arguments[0] == named else None
    _, extra = build_parser(only).parse_known_args(arguments, parsed)
    if extra:
        raise UsageError(
            f"{parsed.command}: unrecognized arguments: {' '.join(extra)} "
            f"(see 'lmml {parsed.command} --help')"
        )
    return parsed
