"""The commands that present a bundle: ``render`` (chat messages or a request body as
JSON) and ``preview`` (an HTML page); and the ``--set KEY=VALUE`` values
``render --request`` takes."""

from __future__ import annotations

import argparse
import json
import os
import warnings
from collections.abc import Sequence

from .arguments import Arguments
from .output import STDIO, CliError, deliver, stdout_json, warn
from .sources import Source, bundle_stem, located, open_source, same_file
from .templates import given_inputs

__all__ = ["cmd_preview", "cmd_render", "parse_setting"]


def cmd_render(args: Arguments) -> int:
    """``lmml render PATH``: the chat messages, or the whole request body, as JSON.

    Omissions (an embed over ``--max-embed-bytes``) are printed as ``lmml: warning:``
    lines on stderr; with ``--on-omit raise`` they fail the command instead.
    """
    from ..chat.outgoing import render_payload, to_request

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
    options = {name: value for name, value in given.items() if value is not None}
    options["strict"] = not args.force
    if args.cases is not None:
        from .templates import render_case_file

        return render_case_file(args, options)
    if args.workers is not None:
        raise CliError("--workers only applies with --cases")
    source = open_source(args.path, args)
    inputs = given_inputs(args, source)
    if inputs is not None:
        options["inputs"] = inputs
    result: object
    with source.about(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
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
                    f"{source.label}: {args.provider} keeps system content outside the "
                    "messages list (add --request for the whole request body, or --system "
                    "separate|user|drop)"
                )
            else:
                result = payload.messages
    _print_warnings(source, caught)
    if args.output is not None and args.output != STDIO:
        text = json.dumps(result, ensure_ascii=False, indent=2) + "\n"
        deliver(args, args.output, text.encode("utf-8"), f"Wrote {args.output}")
        return 0
    stdout_json(result)
    return 0


def _print_warnings(source: Source, caught: Sequence[warnings.WarningMessage]) -> None:
    """Each caught library warning as one ``lmml: warning:`` line about the bundle as typed;
    a defect sent anyway (``--force``) located as ``validate`` locates it."""
    from ..bundle.bundle import DefectWarning

    for warning in caught:
        message = warning.message
        if isinstance(message, DefectWarning):
            text = message.error.format(cli=True, hint=False)
        else:
            text = str(message)
        warn(located(source.label, text, source.aliases))


def cmd_preview(args: Arguments) -> int:
    """``lmml preview PATH [-o OUT.html]``: one self-contained HTML page."""
    from ..preview.page import render_html

    out = args.output
    if out is None:
        out = STDIO if args.path == STDIO else bundle_stem(args.path) + ".html"
    if out != STDIO and args.path != STDIO and os.path.exists(out) and same_file(args.path, out):
        raise CliError(f"{out}: refusing to write the preview over the source")
    source = open_source(args.path, args)
    inputs = given_inputs(args, source)
    with source.about():
        page = render_html(source.bundle, inputs=inputs).encode("utf-8")
    deliver(args, out, page, f"Wrote {out}")
    return 0


# -- --set KEY=VALUE ----------------------------------------------------------------------

_MAX_SETTING_DEPTH = 100
"""How deeply a ``--set`` value may nest; real settings nest two or three levels."""

_MAX_SETTING_ITEMS = 100_000
"""How many values a ``--set`` value may hold once its YAML aliases are written out as
copies, as the JSON request will (ten nested aliases of ten items are ten billion)."""


def parse_setting(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` as ``(key, value)``, the value read as YAML (``max_tokens=300`` gives
    the number 300, an empty value the empty string).

    :raises argparse.ArgumentTypeError: without ``=`` or a key, or for a value that is no
        JSON value (see :func:`_not_json`).
    """
    import yaml

    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    parsed: object
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    except (RecursionError, ValueError, OverflowError) as error:
        # PyYAML recurses once per nesting level and converts integers with int().
        what = "nests too deeply" if isinstance(error, RecursionError) else "cannot be read"
        raise argparse.ArgumentTypeError(f"{key.strip()}: the value {what}") from None
    reason = _not_json(parsed)
    if reason is not None:
        raise argparse.ArgumentTypeError(
            f"{key.strip()}: {reason}; a setting must be a JSON value (quote it to pass text: "
            f"--set '{key.strip()}=\"...\"')"
        )
    return key.strip(), parsed


def _not_json(value: object) -> str | None:
    """Why *value* (from YAML) is no JSON value, or None when it is one: a date, a set, a
    non-finite float, a key that is not a string, a structure that contains itself, nests
    past :data:`_MAX_SETTING_DEPTH` or holds more than :data:`_MAX_SETTING_ITEMS` values.
    Walked without recursion, within that budget."""
    pending: list[tuple[object, int, frozenset[int]]] = [(value, 0, frozenset())]
    visited = 0
    while pending:
        item, depth, inside = pending.pop()
        visited += 1
        if visited > _MAX_SETTING_ITEMS:
            return f"the value holds more than {_MAX_SETTING_ITEMS:,} items (aliases counted)"
        if isinstance(item, (dict, list)):
            if id(item) in inside:
                return "the value contains itself"
            if depth >= _MAX_SETTING_DEPTH:
                return f"the value nests deeper than {_MAX_SETTING_DEPTH} levels"
            children: list[object]
            if isinstance(item, dict):
                if not all(isinstance(key, str) for key in item):
                    return "a mapping key is not a string"
                children = list(item.values())
            else:
                children = list(item)
            below = inside | {id(item)}
            pending.extend((child, depth + 1, below) for child in children)
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return f"{item} is not a JSON number"
        elif item is not None and not isinstance(item, (str, int, bool)):
            return f"a {type(item).__name__} is not a JSON value"
    return None
