"""The ``lmml`` argument parser: every subcommand, its options and its help.

The chat format and provider names its choices offer come from the chat layer's registry
(:mod:`lmml_mdit.chat.providers`), the one list of them.
"""

from __future__ import annotations

import argparse

from ..formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX
from ..modes import DELIMITER_MODES, REFERENCE_MODES
from .arguments import Arguments, CommandHandler
from .options import (
    FormatChoices,
    HelpFormatter,
    UsageError,
    add_base_dir,
    add_bundle,
    add_dest,
    add_force,
    add_json,
    add_provider,
    add_quiet,
    parse_setting,
    positive_int,
    seconds,
)
from .table import COMMANDS, TABLE, summary_parser, top_parser

TYPE_CHECKING = False  # not typing's, which a subcommand's ``--help`` would pay for
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "COMMANDS",
    "build_parser",
    "parse_arguments",
]


def __getattr__(name: str) -> tuple[str, ...]:
    """``PROVIDERS``, ``IMPORT_FORMATS`` and ``EXPORT_PROVIDERS``: the registry's names, read
    when asked for (building the parser loads no format)."""
    if name not in ("PROVIDERS", "IMPORT_FORMATS", "EXPORT_PROVIDERS"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..chat import providers

    found: tuple[str, ...] = getattr(providers, "PROVIDER_NAMES" if name == "PROVIDERS" else name)
    return found


SUMMARIES = "--help"
"""``build_parser(SUMMARIES)``: every subcommand's one-line summary and nothing of its
options, which is all ``lmml --help`` prints (:func:`~lmml_mdit.cli.table.summary_parser`)."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``lmml`` argument parser with every subcommand, or with *only* that one.

    :param only: a subcommand's name: the parser then knows no other, which is how a
        command line naming its subcommand is parsed (building all of them costs more
        than some commands take to run); :data:`SUMMARIES` for the top-level help alone.
    """
    if only == SUMMARIES:
        return summary_parser()
    parser, sub = top_parser()

    def wanted(name: str) -> bool:
        return only is None or name == only

    def command(name: str) -> argparse.ArgumentParser:
        known = TABLE[name]
        command_parser = sub.add_parser(
            name,
            help=known.summary,
            description=known.summary[0].upper() + known.summary[1:] + ".",
            epilog=f"example:\n  {known.example}",
            formatter_class=HelpFormatter,
        )
        function = "cmd_" + name.replace("-", "_")
        command_parser.set_defaults(handler=CommandHandler(known.module, function))
        if known.opens_bundles:
            _add_syntax_options(command_parser)
        return command_parser

    if wanted("new"):
        p = command("new")
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
        p = command("validate")
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
        p = command("render")
        add_bundle(p)
        add_provider(p, FormatChoices("providers", plugins=True), "the API shape")
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
        p = command("turns")
        add_bundle(p)
        add_json(p, "the rows as JSON")
        add_base_dir(p)

    if wanted("ls"):
        p = command("ls")
        add_bundle(p)
        add_json(p, "the rows as JSON")
        add_base_dir(p)

    if wanted("cat"):
        p = command("cat")
        add_bundle(p)
        p.add_argument(
            "name",
            metavar="NAME",
            help="the embed or entry name (the narrative's own name prints it)",
        )
        add_base_dir(p)

    for name, extension in (("pack", ARCHIVE_SUFFIX), ("inline", NARRATIVE_SUFFIX)):
        if not wanted(name):
            continue
        p = command(name)
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
        p = command("to-md")
        add_bundle(p, "src")
        add_dest(p, ".md")
        add_force(p)
        add_base_dir(p)
        add_quiet(p)

    if wanted("preview"):
        p = command("preview")
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
        p = command("info")
        add_bundle(p)
        add_json(p, "the summary as JSON")
        add_base_dir(p)

    if wanted("import"):
        p = command("import")
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
            choices=FormatChoices("formats", plugins=True),
            help="the input format (detected when omitted)",
        )
        add_quiet(p)

    if wanted("convert"):
        p = command("convert")
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
        p = command("export")
        p.add_argument(
            "folder", metavar="DIR", help="the folder of .lmml/.lmmlz bundles (or a URL)"
        )
        add_provider(
            p,
            FormatChoices("formats"),
            "with --jsonl, the record shape: a request body, or sharegpt",
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
            choices=FormatChoices("formats"),
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
        p = command("lsp")
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
        p = command("inputs")
        add_bundle(p)
        add_json(p, "the inputs as JSON")
        add_base_dir(p)

    if wanted("fmt"):
        p = command("fmt")
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
        p = command("run")
        add_bundle(p)
        add_provider(p, FormatChoices("providers"), "the API to send to")
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

    if wanted("eval"):
        from .evaluation import rate

        p = command("eval")
        add_bundle(p)
        p.add_argument(
            "--cases",
            metavar="CASES",
            help="the cases: a JSONL, CSV or Parquet file, or hf:NAME / hf:FOLDER "
            "(none: PATH is a folder of bundles, each one case)",
        )
        p.add_argument(
            "--target",
            dest="targets",
            action="append",
            required=True,
            metavar="PROVIDER:MODEL[@URL]",
            help="where to send every case; repeatable",
        )
        p.add_argument(
            "--concurrency",
            type=positive_int,
            default=8,
            metavar="N",
            help="at most N requests in flight (default: 8)",
        )
        p.add_argument(
            "--rate",
            dest="rates",
            action="append",
            type=rate,
            metavar="TARGET=N/min",
            help="at most N requests a minute to TARGET; repeatable",
        )
        p.add_argument(
            "--out",
            dest="results",
            metavar="RESULTS",
            help="the results file, appended to and resumed (default: CASES' stem "
            "+ .results.jsonl)",
        )
        p.add_argument(
            "--report",
            metavar="REPORT.html",
            help="write a self-contained HTML page of the results: cases by targets",
        )
        p.add_argument(
            "--save-conversations",
            metavar="DIR",
            help="write each case's conversation with its answer appended, as a bundle in DIR",
        )
        p.add_argument(
            "--cache",
            metavar="DIR",
            help="the answer cache (default: .lmml-eval-cache beside CASES)",
        )
        p.add_argument(
            "--no-cache", action="store_true", help="send every case again, refreshing the cache"
        )
        p.add_argument(
            "--fail-under",
            type=float,
            metavar="RATE",
            help="exit 1 only when the pass rate (0 to 1) is under RATE",
        )
        p.add_argument(
            "--judge", metavar="PROVIDER:MODEL[@URL]", help="the target of judge assertions"
        )
        p.add_argument(
            "--retries",
            type=positive_int,
            default=3,
            metavar="N",
            help="retries of a 429 or 5xx answer (default: 3)",
        )
        p.add_argument(
            "--ray",
            metavar="ADDRESS",
            help="evaluate on the Ray cluster at ADDRESS ('auto': the running one); "
            "--concurrency is then per target across the cluster",
        )
        add_base_dir(p)
        add_quiet(p)

    return parser


def _add_syntax_options(parser: argparse.ArgumentParser) -> None:
    """``--delimiters`` and ``--references``, for every command that opens a bundle."""
    parser.add_argument(
        "--delimiters",
        choices=DELIMITER_MODES,
        default=Arguments.delimiters,
        help="role headings: strict (default: the heading is only the role, 'Role:', "
        "'Turn N' with any of - -- : en/em dash then the role, or 'NAME -- role') or loose "
        "(a role word anywhere in it)",
    )
    parser.add_argument(
        "--references",
        choices=REFERENCE_MODES,
        default=Arguments.references,
        help="@name: assets (default: a name with a known file extension, such as "
        "@chart.png, or a file the bundle has) or any (every @name, as RFC 4.1 reads it)",
    )


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
