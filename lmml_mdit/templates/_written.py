"""A template's values written into its narrative, for :meth:`Transcript.from_bundle
<lmml_mdit.transcript.Transcript.from_bundle>` with ``inputs=``.

The lines are those of the one filling (:meth:`Template.fills
<lmml_mdit.templates.Template.fills>`); each is written in and the narrative read again,
escaping every construct that starts inside a value until none does, so the bundle sends
what ``messages(inputs=...)`` sends (but for the text no turn holds: docs/templates.md,
"Limits"); an ``image`` or ``file`` value becomes an asset. The result is checked to have
exactly the original's turns and embeds (plus the input assets).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..bundle import Bundle, is_reference_name
from ..errors import InputError
from ..media import extension_for, media_type_for
from ..syntax import reference
from ..text import normalize_newlines
from ._declarations import InputDeclarations
from ._fill import InputAsset, InputMessages, template_of

__all__ = ["filled_bundle"]


def _asset_name(value: InputAsset, taken: set[str]) -> str:
    """A name for an input's asset that a reference can write and no entry has."""
    assert value.file is not None
    name = value.file.name
    if not is_reference_name(name) or name in taken:
        name = value.spec.name + extension_for(media_type_for(name, value.file.data))
    stem, extension = os.path.splitext(name)
    count = 1
    while name in taken or not is_reference_name(name):
        count += 1
        name = f"{stem or 'input'}-{count}{extension}"
    taken.add(name)
    return name


def filled_bundle(bundle: Bundle, inputs: Mapping[str, object] | None) -> Bundle:
    """*bundle* with its template's values written in (escaped), as a new bundle; *bundle*
    itself when no values are given (its placeholders then stay as written).

    :raises InputError: for values :meth:`Bundle.messages
        <lmml_mdit.bundle.Bundle.messages>` would refuse, or (never expected) a
        filled narrative whose turns or embeds differ from the original's.
    """
    if inputs is None:
        return bundle  # read as written: the template stays a template
    template = template_of(bundle, values_given=True)
    try:
        bound = template.bind(inputs)
        fills = template.fills(bound, limit=bundle.limits.max_entry_size)
    except InputError as error:
        error.locate(bundle.file_name)
        raise
    narrative = bundle.narrative
    assets: dict[str, bytes] = {}
    taken = set(bundle.entries) | set(narrative.first_embeds)
    written: dict[str, str] = {}
    lines: list[str] = []
    spans: list[list[list[int]]] = []  # per written line, its value spans [start, end)
    for number, line in enumerate(narrative.lines):
        edits = fills.get(number)
        if not edits:
            lines.append(line)
            spans.append([])
            continue
        current: list[str] = []
        current_spans: list[list[int]] = []
        position = 0
        first_written = len(lines)  # a value's newlines write lines before the last
        left_out = False  # an optional input given no value stood on the line
        for start, end, replacement in edits:
            current.append(line[position:start])
            position = end
            if isinstance(replacement, str):
                if end - start == 1 and line[start:end] == "\\":
                    current.append("\\")  # a \{{ stays: a transcript keeps its escapes
                    continue
                # As the parse will read it: the spans must count the lines it sees.
                value = normalize_newlines(replacement)
            elif not replacement.given:
                left_out = True  # an optional input given no value
                continue
            elif isinstance(replacement, InputMessages):
                raise InputError(
                    f"the messages input {replacement.spec.name!r} cannot be written into a "
                    "Transcript yet",
                    name=replacement.spec.name,
                    line=replacement.placeholder.line,
                    column=replacement.placeholder.column,
                    file=bundle.file_name,
                    kind="invalid_input",
                    hint="render it with messages() or to_request(), or give the Transcript "
                    "the conversation's turns with its own methods",
                )
            else:
                file = replacement.file
                assert file is not None  # given, as checked above
                name = written.get(replacement.spec.name)
                if name is None:
                    name = written[replacement.spec.name] = _asset_name(replacement, taken)
                    assets[name] = file.data
                current.append(reference(name))  # the bundle's own reference, not a value
                continue
            for index, piece in enumerate(value.split("\n")):
                if index:
                    lines.append("".join(current))
                    spans.append(current_spans)
                    current, current_spans = [], []
                offset = sum(len(text) for text in current)
                current.append(piece)
                current_spans.append([offset, offset + len(piece)])
        current.append(line[position:])
        if left_out and not "".join([*lines[first_written:], *current]).strip():
            # Left with only white space by an input given no value: the line leaves the
            # text, as messages() sends it.
            del lines[first_written:], spans[first_written:]
            continue
        lines.append("".join(current))
        spans.append(current_spans)
    trailing = "\n" if narrative.source.endswith("\n") else ""
    entries: dict[str, bytes] | None = None
    if bundle.kind == "zip" or assets:
        entries = {name: bundle.read(name) for name in bundle.entries}
        entries.update(assets)
    for _ in range(_MAX_ROUNDS):
        text = "\n".join(lines) + trailing
        syntax = bundle.narrative  # read the filled text as the template was read
        if entries is not None:
            filled = Bundle.from_zip(
                bundle.name,
                text,
                entries,
                delimiters=syntax.delimiters,
                references=syntax.references,
            )
        else:
            filled = Bundle.from_text(
                bundle.name,
                text,
                base_dir=bundle.base_dir,
                delimiters=syntax.delimiters,
                references=syntax.references,
            )
        if _escape_forged(filled, template.declarations, lines, spans):
            continue
        if _same_structure(bundle, filled, set(assets)):
            break
        # Nothing starts inside a value, yet a turn or an embed went missing: a value
        # opened a block that ran on over the author's lines (an HTML comment, a code
        # fence). Escape what opens such blocks at the start of a value's lines.
        if not _escape_openers(lines, spans):
            break
    _check_same_structure(bundle, filled, set(assets))
    return filled


_BLOCK_OPENERS = ("<", "```", "~~~")
"""What opens a block that can run on past its own line (HTML blocks, code fences)."""


def _escape_openers(lines: list[str], spans: list[list[list[int]]]) -> bool:
    """Put a backslash before each block opener at the start of a line inside a value;
    whether any was put."""
    changed = False
    for line, line_spans in enumerate(spans):
        if not line_spans:
            continue
        text = lines[line]
        first = len(text) - len(text.lstrip())
        if not _inside(line_spans, first) or not text.startswith(_BLOCK_OPENERS, first):
            continue
        _insert_backslash(lines, spans, line, first)
        changed = True
    return changed


def _insert_backslash(
    lines: list[str], spans: list[list[list[int]]], line: int, column: int
) -> None:
    lines[line] = lines[line][:column] + "\\" + lines[line][column:]
    for span in spans[line]:
        if span[0] >= column:
            span[0] += 1
        if span[1] > column:
            span[1] += 1


_MAX_ROUNDS = 64
"""How many times the filled narrative is read again after escaping what a value opened
(as many as :func:`lmml_mdit.chat.escape_text` allows). Each round escapes every
construct found, so two or three rounds are usual; but an inline fence a value opens hides
the next one behind it, so values holding many ``@@@`` lines take a round for each."""


def _inside(spans: list[list[int]], column: int) -> bool:
    return any(start <= column < end for start, end in spans)


def _escape_forged(
    filled: Bundle,
    declarations: InputDeclarations,
    lines: list[str],
    spans: list[list[list[int]]],
) -> bool:
    """Put a backslash before each construct of *filled* that starts inside a value (an
    embed, a reference, a placeholder, a role delimiter), in *lines* (and its *spans*);
    whether any was."""
    narrative = filled.narrative
    spots: set[tuple[int, int]] = set()
    for embed in narrative.embeds:
        line, column = embed.line - 1, embed.column - 1
        if line < len(spans) and _inside(spans[line], column):
            spots.add((line, column))
    for placeholder in narrative.placeholders.found:
        # A {{ name }} in text, or in code where an in_code input would fill it (a {{ that
        # opens no placeholder, or one in code no input fills, stays as the value wrote it).
        if placeholder.context != "text" and declarations.fills(placeholder) is None:
            continue
        line, column = placeholder.line - 1, placeholder.column - 1
        if line < len(spans) and _inside(spans[line], column):
            spots.add((line, column))
    for delimiter in narrative.index.delimiters:
        held = range(delimiter.start, min(delimiter.end, len(spans)))
        if not any(spans[line] for line in held):
            continue  # the template's own delimiter
        # LMML's own escape, which the sent text leaves out: a backslash before the line
        # that would be a delimiter (a setext heading's underline, ``\\---``), even where
        # the template wrote that line's start and the value only its role.
        setext = delimiter.kind == "heading" and delimiter.end - delimiter.start > 1
        line = delimiter.end - 1 if setext else delimiter.start
        text = lines[line]
        spots.add((line, len(text) - len(text.lstrip())))
    for line, column in sorted(spots, reverse=True):
        _insert_backslash(lines, spans, line, column)
    return bool(spots)


def _same_structure(original: Bundle, filled: Bundle, added: set[str]) -> bool:
    """Whether *filled* has *original*'s turns (by role) and embeds (by name, in order),
    the input assets *added* aside."""
    before = original.narrative
    after = filled.narrative
    same_turns = [turn.role for turn in before.turns] == [turn.role for turn in after.turns]
    names_before = [embed.name for embed in before.embeds]
    names_after = [embed.name for embed in after.embeds if embed.name not in added]
    return same_turns and names_before == names_after


def _check_same_structure(original: Bundle, filled: Bundle, added: set[str]) -> None:
    if not _same_structure(original, filled, added):
        raise InputError(
            "a value would change the conversation's turns or embeds once written as LMML",
            name=original.file_name,
            kind="invalid_input",
            hint="report the value as a bug in lmml_mdit: values are escaped to stay text",
        )
