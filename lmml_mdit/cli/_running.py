"""``lmml run``: send a conversation, stream the reply, append it to the file.

The reply streams to stdout as it arrives (a tool call is shown once complete); messages
go to stderr. The file is written atomically after each complete round, so Ctrl-C or a
network failure leaves it as the last complete round left it (exactly as it was, for a
one-round run). Exit status: 0 sent and written, 1 refused by the provider or cut off, 2 a
local error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Literal

from ..errors import ProviderConnectionError, ProviderError, StreamCutError
from ..formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX
from ._arguments import Arguments
from ._options import (
    FormatChoices,
    add_base_dir,
    add_bundle,
    add_provider,
    add_quiet,
    add_send_anyway,
    add_sending,
    add_settings,
    positive_int,
)
from ._output import (
    STDIO,
    CliError,
    ends_in_separator,
    ensure_folder,
    error,
    error_text,
    info,
    named_for_other_kind,
    stdout_json,
    warn,
)
from ._sources import open_source
from ._table import command

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..conversation import ToolCall
    from ..run import Document, Reply, ReplyEvent

__all__ = ["RunArguments", "cmd_run"]


def _show(event: ReplyEvent) -> None:
    from ..run import TextDelta

    if isinstance(event, TextDelta):
        sys.stdout.write(event.text)
    else:
        arguments = json.dumps(event.arguments, ensure_ascii=False)
        sys.stdout.write(f"\n[tool call] {event.name}({arguments})\n")
    sys.stdout.flush()


def _show_turns(reply: Reply) -> None:
    """Each assistant message of the run, whole (``--no-stream``): its text, its calls."""
    from ..conversation import TextPart, ToolCall

    for turn in reply.turns:
        if turn.role != "assistant":
            continue
        text = "".join(part.text for part in turn.parts if isinstance(part, TextPart))
        if text:
            sys.stdout.write(text + "\n")
        for part in turn.parts:
            if isinstance(part, ToolCall):
                arguments = json.dumps(part.arguments, ensure_ascii=False)
                sys.stdout.write(f"[tool call] {part.name}({arguments})\n")


def _asker(args: RunArguments) -> object:
    """The approval asked before each tool call: none with --yes; a question on a terminal;
    else every call declined (nobody to ask)."""
    if args.yes:
        return None
    interactive = sys.stdin is not None and sys.stdin.isatty()

    def approve(call: ToolCall) -> bool:
        if not interactive:
            warn(f"tool call {call.name} not run: no terminal to ask on (pass --yes to allow)")
            return False
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        sys.stderr.write(f"lmml: run {call.name}({arguments})? [y/N] ")
        sys.stderr.flush()
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    return approve


_OTLP_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
_OTLP_PACKAGES = "opentelemetry-sdk and opentelemetry-exporter-otlp-proto-http"


def _start_tracing(args: RunArguments) -> None:
    """``--trace console`` prints spans; ``--trace otlp``, or an OTLP endpoint in the
    standard ``OTEL_EXPORTER_OTLP_*`` variables, sends them to that collector."""
    if args.trace == "console":
        from ..run import setup_console

        try:
            setup_console()
        except ImportError:
            raise CliError("--trace console needs opentelemetry-sdk (the trace extra)") from None
        return
    exporters = os.environ.get("OTEL_TRACES_EXPORTER", "").lower()
    variable = next((name for name in _OTLP_VARIABLES if os.environ.get(name)), None)
    if "otlp" in exporters.split(","):
        variable = variable or "OTEL_TRACES_EXPORTER"
    elif exporters == "none":
        variable = None
    if args.trace != "otlp" and variable is None:
        return
    from ..run import setup_otlp

    try:
        setup_otlp()
    except ImportError:
        if args.trace == "otlp":
            raise CliError(f"--trace otlp needs {_OTLP_PACKAGES}") from None
        warn(f"{variable} is set, but sending spans there needs {_OTLP_PACKAGES}: not traced")


class RunArguments(Arguments):
    """``lmml run``'s own options, typed (the parser sets each)."""

    base_url: str | None
    api_key: str | None
    no_stream: bool
    tool_specs: list[str] | None
    max_rounds: int
    yes: bool
    keep_partial: bool
    trace: Literal["console", "otlp"] | None
    dry_run: bool


def _run_options(parser: argparse.ArgumentParser) -> None:
    """``lmml run``'s own options."""
    add_bundle(parser)
    add_provider(parser, FormatChoices("providers"), "the API to send to")
    parser.add_argument("--model", help="the model (default: the settings' model)")
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="a server speaking the provider's protocol (Ollama, vLLM, LM Studio, "
        "llama.cpp's server, a LiteLLM proxy); a key is then optional",
    )
    parser.add_argument(
        "--api-key",
        metavar="KEY",
        help="the API key (default: the SDK's environment variable, such as OPENAI_API_KEY)",
    )
    parser.add_argument(
        "--no-stream",
        action="store_true",
        help="wait for the whole reply instead of printing it as it arrives",
    )
    parser.add_argument(
        "--tool",
        dest="tool_specs",
        action="append",
        metavar="MODULE:FUNCTION",
        help="a Python function the model may call (declared by the settings' tool of its "
        "name, else by its signature and docstring); repeatable",
    )
    parser.add_argument(
        "--max-rounds",
        type=positive_int,
        default=8,  # RunOptions.max_rounds, a test checks: the parser loads no run module
        metavar="N",
        help="at most N requests in one run, with tool calls answered in between "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "-y", "--yes", action="store_true", help="run tool calls without asking first"
    )
    add_sending(parser, "the limit for each request")
    parser.add_argument(
        "--keep-partial",
        action="store_true",
        help="when the stream is cut or interrupted, write what arrived, marked incomplete",
    )
    parser.add_argument(
        "--trace",
        choices=("console", "otlp"),
        help="record OpenTelemetry spans: print them (console) or send them to the "
        "collector the OTEL_EXPORTER_OTLP_* variables name (otlp, the default when "
        "OTEL_EXPORTER_OTLP_ENDPOINT is set)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write the conversation with the reply to OUT, leaving PATH as it is",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the request body that would be sent, and send nothing",
    )
    add_settings(
        parser, "a setting over the bundle's settings embed, the value read as YAML; repeatable"
    )
    add_send_anyway(
        parser, "send even a bundle with an error-level defect, reporting each as a warning"
    )
    add_base_dir(parser)
    add_quiet(parser)


def _say_written(
    args: RunArguments, written: Sequence[Document], destination: str, stop: str
) -> None:
    """After a run stopped by *stop*: what it wrote to *destination* before, if anything
    (whole rounds, and what arrived of a cut reply with ``--keep-partial``)."""
    if not written:
        return
    replies = written[-1].replies
    partial = bool(replies) and replies[-1].get("incomplete") is True
    rounds = len(written) - (1 if partial else 0)
    said = f"the rounds before {stop}" if rounds else ""
    if partial:
        arrived = "what arrived, marked incomplete"
        said = f"{said} and {arrived}" if said else arrived
        said += ","
    info(args, f"wrote {said} to {destination}")


def _refuse_other_kind(out: str, kind: str) -> None:
    """Refuse an OUT named for the other bundle kind, before anything is sent: the run
    writes the source's kind, and the file would not hold what its name says (``pack``
    and ``inline`` refuse such a DEST too)."""
    if kind == "zip":
        suffix, what = ARCHIVE_SUFFIX, "an archive"
    else:
        suffix, what = NARRATIVE_SUFFIX, "a bare narrative"
    if named_for_other_kind(out, suffix):
        raise CliError(
            f"{out}: lmml run writes {what} here, as the source is; give an OUT ending in {suffix}"
        )


@command(
    order=180,
    summary="send the conversation to a model, stream the reply, append it to the file",
    example="lmml run chat.lmml --provider openai --model gpt-4o-mini",
    opens_bundles=True,
    options=_run_options,
)
def cmd_run(args: RunArguments) -> int:
    """``lmml run PATH``: see the module's docstring."""
    from ..run import RunOptions, load_tool, run

    if args.max_rounds < 1:
        raise CliError("--max-rounds must be 1 or more (one request, then one per tool round)")
    if args.path == STDIO and args.output is None and not args.dry_run:
        raise CliError("lmml run -: a conversation read from stdin needs -o OUT to write to")
    if args.output == STDIO and not args.dry_run:
        raise CliError(
            "lmml run -o -: the reply goes to standard output as it arrives; "
            "give -o the file to write the conversation to"
        )
    _start_tracing(args)
    tools = {}
    for spec in args.tool_specs or []:
        function = load_tool(spec)
        tools[spec.rpartition(":")[2].rpartition(".")[2]] = function
    source = open_source(args.path, args)
    if args.output is not None and not args.dry_run:
        if ends_in_separator(args.output):  # refused before the send, not after the reply
            ensure_folder(args.output)
        _refuse_other_kind(args.output, source.bundle.kind)
        source.refuse_over_folder_file(args.output, "give another -o OUT")
    request_options: dict[str, object] = {"strict": not args.force}
    if args.settings:
        request_options["settings"] = dict(args.settings)
    destination = args.output if args.output is not None else args.path
    written: list[Document] = []

    def commit(document: Document) -> None:
        if args.output is not None:
            ensure_folder(destination)  # as every command's OUT, once there is a reply
        document.save(destination)
        written.append(document)

    options = RunOptions(
        args.provider,
        model=args.model,
        stream=not args.no_stream,
        tools=tools or None,
        max_rounds=args.max_rounds,
        base_url=args.base_url,
        api_key=args.api_key,
        timeout=args.timeout,
        retries=args.retries,
        backoff=args.backoff,
        approve=_asker(args),  # type: ignore[arg-type]
        on_event=_show if not args.no_stream else None,
        keep_partial=args.keep_partial,
        commit=commit,
        request_options=request_options,
    )
    from ._render import warnings_said

    with source.about(), warnings_said(source):
        if args.dry_run:
            from ..run import dry_run_body

            stdout_json(dry_run_body(source.bundle, options))
            return 0
        try:
            reply = run(source.bundle, options)
        except (ProviderError, ProviderConnectionError, StreamCutError) as failure:
            sys.stdout.write("\n" if not args.no_stream else "")
            _say_written(args, written, destination, "the failure")
            error(error_text(failure))
            return 1
        except KeyboardInterrupt:
            sys.stdout.write("\n" if not args.no_stream else "")
            _say_written(args, written, destination, "the interruption")
            raise
    if args.no_stream:
        _show_turns(reply)
    else:
        sys.stdout.write("\n")
    sys.stdout.flush()
    if reply.stopped:
        warn(reply.stopped)
    tokens = ""
    if reply.usage.input_tokens is not None:
        tokens = f", {reply.usage.input_tokens} in / {reply.usage.output_tokens} out tokens"
    rounds = f"{reply.rounds} rounds" if reply.rounds > 1 else "the reply"
    info(args, f"wrote {rounds} to {destination} ({reply.model or args.provider}{tokens})")
    return 0
