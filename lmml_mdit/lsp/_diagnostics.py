"""Issues and open failures as LSP diagnostics.

Each :class:`~lmml_mdit.model.Issue` becomes one diagnostic: its range covers what it is
about (``@name``, ``@@@name``, the word at fault, else the rest of its line), its severity is
the issue's (error or warning), its code the issue's kind, and its message says what to do.
An issue whose line counts in another file (a line inside ``settings.yaml``) stands on the
narrative's first mention of that file and names the place. A text that cannot be opened at
all (invalid UTF-8, a binary file) gives one error diagnostic at the place it names.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from ..bundle import unsaved_wording
from ..errors import LmmlError
from ..model import Issue
from ..syntax import MARKER, SIGIL
from ._document import Analysis
from ._positions import Columns

__all__ = ["SOURCE", "diagnostics", "failure_diagnostic", "issue_diagnostic", "issue_span"]

SOURCE = "lmml"
"""The ``source`` every diagnostic of this server names."""

_SEVERITIES = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


def issue_span(issue: Issue, lines: Sequence[str], line: int, column: int) -> tuple[int, int]:
    """The code point columns ``[start, end)`` an issue about *issue.name* covers on the
    0-based *line*, from its 0-based *column*: the ``@@@name``, ``@name`` or word there, else
    the rest of the line."""
    text = lines[line] if 0 <= line < len(lines) else ""
    for shown in (MARKER + issue.name, SIGIL + issue.name, issue.name):
        if shown and text.startswith(shown, column):
            return column, column + len(shown)
    return column, max(column, len(text.rstrip()))


def _anchor(issue: Issue, analysis: Analysis) -> tuple[int, int] | None:
    """The 0-based (line, column) of the narrative where *issue* is shown, or None for
    the start of the document."""
    if issue.file is None and issue.line is not None:
        return issue.line - 1, (issue.column or 1) - 1
    narrative = analysis.narrative
    mention = narrative.embed(issue.name) if narrative is not None else None
    if mention is not None:
        return mention.line - 1, mention.column - 1
    return None


def _message(issue: Issue, analysis: Analysis) -> str:
    """*issue*'s message as an editor words it: as the command line does (an editor runs
    commands, not Python), and for a reference an unsaved document cannot resolve, the fix
    an editor has (saving it)."""
    bundle = analysis.bundle
    if (
        issue.kind == "missing_reference"
        and bundle is not None
        and bundle.kind == "text"
        and analysis.path is None
        and bundle.base_dir is None
    ):
        return unsaved_wording(bundle, issue.name)
    return issue.cli_message or issue.message


def issue_diagnostic(issue: Issue, analysis: Analysis, columns: Columns) -> types.Diagnostic:
    """The diagnostic for one *issue* of *analysis*."""
    message = _message(issue, analysis)
    if issue.file is not None and issue.line is not None:
        where = f"{issue.file}:{issue.line}" + (f":{issue.column}" if issue.column else "")
        message = f"{where}: {message}"
    anchor = _anchor(issue, analysis)
    if anchor is None:
        span = columns.span(0, 0, len(columns.line(0).rstrip()))
    else:
        line, column = anchor
        start, end = issue_span(issue, columns.lines, line, column)
        span = columns.span(line, start, end)
    return types.Diagnostic(
        range=span,
        message=message,
        severity=_SEVERITIES[issue.severity],
        code=issue.kind,
        source=SOURCE,
        data={"name": issue.name, "kind": issue.kind},
    )


def failure_diagnostic(error: LmmlError, columns: Columns) -> types.Diagnostic:
    """The error diagnostic for a text that could not be opened or validated; its hint
    worded as the command line words it (``lmml import FILE``, never a Python call)."""
    advice = error.advice(cli=True)
    message = error.message + (f" ({advice})" if advice else "")
    line = (error.line or 1) - 1
    start = (error.column or 1) - 1
    span = columns.span(line, start, max(start, len(columns.line(line).rstrip())))
    return types.Diagnostic(
        range=span,
        message=message,
        severity=types.DiagnosticSeverity.Error,
        code=error.kind or type(error).__name__,
        source=SOURCE,
    )


def diagnostics(analysis: Analysis, columns: Columns) -> list[types.Diagnostic]:
    """Every diagnostic of *analysis*: its issues in order, then any failure."""
    found = [issue_diagnostic(issue, analysis, columns) for issue in analysis.issues]
    if analysis.failure is not None:
        found.append(failure_diagnostic(analysis.failure, columns))
    return found
