"""The commands that present a bundle: ``render`` (chat messages or a request body as
JSON) and ``preview`` (an HTML page). The ``--set KEY=VALUE`` values ``render --request``
takes are read by :func:`lmml_mdit.cli._options.parse_setting`."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, cast

from ._arguments import Arguments
from ._options import (
    FormatChoices,
    add_base_dir,
    add_bundle,
    add_provider,
    add_quiet,
    add_send_anyway,
    add_settings,
    positive_int,
)
from ._output import (
    STDIO,
    CliError,
    deliver,
    issue_line,
    missing_summary,
    stdout_json,
    warn,
    warnings_worded,
)
from ._sources import Source, bundle_stem, located, open_source, refuse_over_input, same_file
from ._table import command
from ._templates import given_inputs

if TYPE_CHECKING:
    from ..chat import (
        AttachmentLines,
        ContextPlacement,
        ImageDetail,
        MidwaySystem,
        OnOmit,
        RequestOptions,
        SystemPlacement,
        TextEmbeds,
    )

__all__ = [
    "RenderArguments",
    "caught_warnings",
    "cmd_preview",
    "cmd_render",
    "print_warnings",
    "report_refusals",
    "warnings_said",
]


class RenderArguments(Arguments):
    """``lmml render``'s own options, typed (the parser sets each)."""

    request: bool
    max_embed_bytes: int | None
    context: ContextPlacement | None
    system: SystemPlacement | None
    midway_system: MidwaySystem | None
    attachment_lines: AttachmentLines | None
    on_omit: OnOmit | None
    text_embeds: TextEmbeds | None
    image_detail: ImageDetail | None


def _render_options(parser: argparse.ArgumentParser) -> None:
    """``lmml render``'s own options; each choice is the library option's own values, in
    their order (:mod:`lmml_mdit.chat`)."""
    from ..chat import (
        ATTACHMENT_LINES_CHOICES,
        CONTEXT_CHOICES,
        IMAGE_DETAIL_CHOICES,
        MIDWAY_SYSTEM_CHOICES,
        ON_OMIT_CHOICES,
        SYSTEM_CHOICES,
        TEXT_EMBEDS_CHOICES,
        UNKNOWN_SETTINGS_CHOICES,
    )

    add_bundle(parser)
    add_provider(parser, FormatChoices("providers", plugins=True), "the API shape")
    parser.add_argument(
        "--request",
        action="store_true",
        help="print the whole request body: messages plus settings as parameters",
    )
    parser.add_argument("--model", help="the model name for --request")
    parser.add_argument(
        "--max-embed-bytes",
        type=positive_int,
        metavar="N",
        help="per-message payload budget; larger embeds are left out",
    )
    parser.add_argument(
        "--context",
        choices=CONTEXT_CHOICES,
        help="what the preamble (context turn) becomes (default: system)",
    )
    parser.add_argument(
        "--system",
        choices=SYSTEM_CHOICES,
        help="system content a provider keeps outside its messages list (docs/cli.md): "
        "print "
        '{"system": ..., "messages": [...]} (separate), send it as user content, drop it, or '
        "fail (the default, unless --request)",
    )
    parser.add_argument(
        "--midway-system",
        choices=MIDWAY_SYSTEM_CHOICES,
        help="a system turn after the conversation has started, for a provider that takes "
        "system content up front only: send it as user text marked [system] at its place "
        "(default), move it up front, drop it (each with a warning) or fail",
    )
    parser.add_argument(
        "--attachment-lines",
        choices=ATTACHMENT_LINES_CHOICES,
        help="a paragraph made only of references (@photo.png): leave it out, its parts "
        "standing in its place (default), or keep it in the text before its parts",
    )
    parser.add_argument(
        "--on-omit",
        choices=ON_OMIT_CHOICES,
        help="an embed over --max-embed-bytes: warn on stderr (default) or fail",
    )
    parser.add_argument(
        "--text-embeds",
        choices=TEXT_EMBEDS_CHOICES,
        help="text assets as text parts or as the provider's document parts "
        "(default: each provider's own, docs/messages.md)",
    )
    parser.add_argument(
        "--image-detail", choices=IMAGE_DETAIL_CHOICES, help="the OpenAI image detail"
    )
    add_settings(
        parser,
        "with --request: a setting over the bundle's settings embed, the value read as YAML "
        "(--set max_tokens=300); repeatable",
    )
    parser.add_argument(
        "--unknown-settings",
        choices=UNKNOWN_SETTINGS_CHOICES,
        help="with --request: settings keys the provider has no parameter for are left out "
        "with a warning (warn, the default), passed as they are (pass), or fail (error)",
    )
    add_send_anyway(
        parser,
        "render even a bundle with an error-level defect (a missing reference, an unclosed "
        "fence, ...), reporting each as a warning; an embed the provider cannot take still "
        "fails",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="fail on a warning every send reports too (a suspicious delimiter), not only "
        "on an error-level defect",
    )
    parser.add_argument(
        "--input",
        dest="input_values",
        action="append",
        metavar="NAME=VALUE",
        help="a template input's value (read as its declared type; NAME=@FILE reads a file, "
        "an image or file input's bytes); repeatable",
    )
    parser.add_argument(
        "--inputs",
        dest="inputs_file",
        metavar="FILE",
        help="a JSON object of template input values (- for stdin; --input flags win)",
    )
    parser.add_argument(
        "--cases",
        metavar="FILE",
        help="a JSONL, CSV or Parquet file of input values: one rendering per case, written "
        "as JSON lines in order; a failed case is reported and the rest go on (exit 1 at the "
        "end)",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="with --cases: worker processes (default: one per core)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="where to write the JSON (default: stdout; with --cases, JSON lines)",
    )
    add_base_dir(parser, values="--inputs or --cases")
    add_quiet(parser)


@command(
    order=30,
    summary="print a bundle's chat messages (or request body) as JSON",
    example=(
        "lmml render examples/sales-review.lmmlz --provider anthropic --request"
        " --model claude-sonnet-4-5"
    ),
    opens_bundles=True,
    options=_render_options,
)
def cmd_render(args: RenderArguments) -> int:
    """``lmml render PATH``: the chat messages, or the whole request body, as JSON.

    Omissions (an embed over ``--max-embed-bytes``) are printed as ``lmml: warning:``
    lines on stderr; with ``--on-omit raise`` they fail the command instead.
    """
    from ..chat import render_payload, system_outside, to_request

    if not args.request:
        for flag, value in (("model", args.model), ("unknown-settings", args.unknown_settings)):
            if value is not None:
                raise CliError(f"--{flag} only applies with --request")
        if args.settings:
            raise CliError("--set only applies with --request")
    given: dict[str, object] = {
        "context": args.context,
        "midway_system": args.midway_system,
        "max_embed_bytes": args.max_embed_bytes,
        "on_omit": args.on_omit,
        "text_embeds": args.text_embeds,
        "image_detail": args.image_detail,
        "attachment_lines": args.attachment_lines,
        "unknown_settings": args.unknown_settings,
        "settings": dict(args.settings) if args.settings else None,
    }
    # argparse's choices checked each value: the command line is where untyped text turns typed
    options = cast("RequestOptions", {k: v for k, v in given.items() if v is not None})
    if args.strict and args.force:
        raise CliError("--strict and --force cannot be given together")
    refuse_over_input(
        args.output,
        [
            (args.path, "the source"),
            (args.cases, "the --cases file"),
            (args.inputs_file, "the --inputs file"),
        ],
        "give another -o OUT",
    )
    options["strict"] = not args.force
    if args.cases is not None:
        from ._templates import render_case_file

        if args.request:
            if args.system is not None:
                options["system"] = args.system
        else:
            # As without --cases: system content the provider keeps outside the messages
            # list fails (each case that has some), rather than leave the line without it.
            options["system"] = args.system if args.system is not None else "raise"
        return render_case_file(args, options)
    if args.workers is not None:
        raise CliError("--workers only applies with --cases")
    source = open_source(args.path, args)
    source.refuse_over_folder_file(args.output, "give another -o OUT")
    inputs = given_inputs(args, source)
    if inputs is not None:
        options["inputs"] = inputs
    result: object
    caught: list[warnings.WarningMessage] = []
    try:
        with (
            source.about(),
            caught_warnings(strict=args.strict) as caught,
        ):
            if args.request:
                if args.system is not None:
                    options["system"] = args.system
                result = to_request(source.bundle, args.provider, model=args.model, **options)
            else:
                if args.system not in (None, "separate"):
                    options["system"] = args.system
                payload = render_payload(source.bundle, args.provider, **options)
                if payload.system and args.system == "separate":
                    result = {"system": payload.system, "messages": payload.messages}
                elif payload.system:
                    raise CliError(
                        f"{source.label}: {system_outside(args.provider)} (add --request for "
                        "the whole request body, or --system separate|user|drop)"
                    )
                else:
                    result = payload.messages
    finally:
        print_warnings(source, caught)  # a refusal still shows what was found before it
    if args.output is not None and args.output != STDIO:
        text = json.dumps(result, ensure_ascii=False, indent=2) + "\n"
        deliver(args, args.output, text.encode("utf-8"), f"Wrote {args.output}")
        return 0
    stdout_json(result)
    return 0


@contextlib.contextmanager
def caught_warnings(*, strict: bool = False) -> Iterator[list[warnings.WarningMessage]]:
    """Every library warning raised in the block, for :func:`print_warnings`; with
    *strict* (``--strict``), a :class:`DefectWarning` fails the block instead, as the
    :class:`~lmml_mdit.errors.DefectError` it carries."""
    from ..bundle import DefectWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if strict:
            warnings.simplefilter("error", DefectWarning)
        try:
            yield caught
        except DefectWarning as raised:
            raise raised.error from None


def _warning_text(message: Warning | str) -> str:
    """A library warning in the command line's words: a defect sent anyway (``--force``)
    as ``validate`` words it, a missing setting with its option."""
    from ..bundle import DefectWarning
    from ..warn import cli_wording

    if isinstance(message, DefectWarning):
        return message.error.format(cli=True, hint=False)
    return cli_wording(message)


@contextlib.contextmanager
def warnings_said(source: Source) -> Iterator[None]:
    """Each library warning raised in the block said at once, as :func:`print_warnings`
    says it, for a command whose output goes on while it works (``run``)."""

    with warnings_worded(
        lambda message: located(source.label, _warning_text(message), source.aliases)
    ):
        yield


def print_warnings(source: Source, caught: Sequence[warnings.WarningMessage]) -> None:
    """Each caught library warning as one ``lmml: warning:`` line about the bundle as typed;
    a defect sent anyway (``--force``) located as ``validate`` locates it, and the missing
    references counted by name."""
    from ..bundle import DefectWarning

    sent_anyway = []
    for warning in caught:
        message = warning.message
        if isinstance(message, DefectWarning):
            sent_anyway.append(message.error.issue)
        warn(located(source.label, _warning_text(message), source.aliases))
    summary = missing_summary(sent_anyway)
    if summary is not None:
        warn(f"{source.label}: {summary}")


def report_refusals(source: Source) -> None:
    """For a command that shows a bundle (``preview``, ``turns``): one ``lmml: warning:``
    line for each error-level defect, which a send would refuse, as ``validate`` words it
    (what one command refuses, every command reports), and the missing references counted
    by name."""
    from ..severity import ERROR_KINDS

    with source.about():
        refused = [issue for issue in source.bundle.validate() if issue.kind in ERROR_KINDS]
    for issue in refused:
        warn(issue_line(source.label, issue, archive=source.bundle.kind == "zip"))
    summary = missing_summary(refused)
    if summary is not None:
        warn(f"{source.label}: {summary}")


def _preview_options(parser: argparse.ArgumentParser) -> None:
    """``lmml preview``'s own options."""
    add_bundle(parser)
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT.html",
        help="where to write (default: PATH with .html; - for stdout)",
    )
    parser.add_argument(
        "--input",
        dest="input_values",
        action="append",
        metavar="NAME=VALUE",
        help="a template input's value to show in place of its placeholder; repeatable",
    )
    parser.add_argument(
        "--inputs",
        dest="inputs_file",
        metavar="FILE",
        help="a JSON object of input values (- for stdin)",
    )
    add_base_dir(parser, values="--inputs")
    add_quiet(parser)


@command(
    order=100,
    summary="write a self-contained HTML preview",
    example="lmml preview examples/sales-review.lmmlz -o /tmp/trip.html",
    opens_bundles=True,
    options=_preview_options,
)
def cmd_preview(args: Arguments) -> int:
    """``lmml preview PATH [-o OUT.html]``: one self-contained HTML page."""
    from ..preview import render_html

    out = args.output
    if out is None:
        out = STDIO if args.path == STDIO else bundle_stem(args.path) + ".html"
    if out != STDIO and args.path != STDIO and os.path.exists(out) and same_file(args.path, out):
        raise CliError(f"{out}: refusing to write the preview over the source (give -o OUT.html)")
    refuse_over_input(out, [(args.inputs_file, "the --inputs file")], "give another -o OUT.html")
    source = open_source(args.path, args)
    source.refuse_over_folder_file(out, "give another -o OUT.html")
    inputs = given_inputs(args, source)
    with source.about(), caught_warnings() as caught:
        page = render_html(source.bundle, inputs=inputs).encode("utf-8")
    print_warnings(source, caught)
    report_refusals(source)
    deliver(args, out, page, f"Wrote {out}")
    return 0
