"""The values a parse yields: embeds and turns.

These are plain frozen dataclasses with no behaviour beyond their fields, shared by the
syntax rules (which create :class:`Embed` values) and everything above them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .severity import ERROR_KINDS, Severity, severity_of

__all__ = [
    "ERROR_KINDS",
    "MESSAGE_ROLES",
    "ROLES",
    "Embed",
    "EmbedKind",
    "Issue",
    "Role",
    "Severity",
    "Turn",
]

Role = Literal["context", "user", "assistant", "system", "tool"]
"""A turn's role: ``context`` is the synthetic preamble, the rest are message roles."""

EmbedKind = Literal["inline", "external"]

ROLES: tuple[Role, ...] = ("context", "user", "assistant", "system", "tool")
"""Every role a turn can have, the synthetic ``context`` first."""

MESSAGE_ROLES: tuple[Role, ...] = ("user", "assistant", "system", "tool")
"""The roles a delimiter can name (every role but ``context``)."""


@dataclass(frozen=True, slots=True)
class Embed:
    """One occurrence of an embed in a narrative.

    :ivar name: the asset name, e.g. ``report.pdf`` or ``data/table.csv``.
    :ivar kind: ``"inline"`` for an ``@@@name`` fence, ``"external"`` for an ``@name``
        reference.
    :ivar content: the fence's bytes (UTF-8), or ``None`` for an external reference.
    :ivar line: the 1-based source line of the ``@@@`` opening line or of the ``@``.
    :ivar column: the 1-based column (in characters) of the ``@`` or ``@@@``.
    :ivar closed: ``False`` for a fence that runs to the end of its container unclosed.
    """

    name: str
    kind: EmbedKind
    content: bytes | None
    line: int
    column: int
    closed: bool = True

    @property
    def is_inline(self) -> bool:
        """Whether this is an inline fence."""
        return self.kind == "inline"


@dataclass(frozen=True)
class Turn:
    """One role turn of a narrative.

    :ivar role: ``context`` for text before the first delimiter, else the delimiter's role.
    :ivar text: the turn's source lines verbatim (line endings as ``\\n``), leading and
        trailing blank lines removed.
    :ivar embeds: the distinct embeds whose first occurrence lies in this turn (or on the
        delimiter line that opens it), in document order.
    :ivar start_line: the first 1-based line of the turn's region (the line after its
        delimiter).
    :ivar end_line: the last line of the region; ``start_line - 1`` for an empty turn.
    :ivar delimiter_line: the 1-based line of the delimiter that opened the turn, or
        ``None`` for a ``context`` turn.
    :ivar heading: the delimiter heading's text (``Turn 1 -- user``), or ``None`` for a
        comment delimiter or a ``context`` turn.
    """

    role: Role
    text: str
    embeds: tuple[Embed, ...] = field(default=())
    start_line: int = 1
    end_line: int = 0
    delimiter_line: int | None = None
    heading: str | None = None


@dataclass(frozen=True)
class Issue:
    """One authoring defect found by validation.

    :ivar kind: the defect, e.g. ``missing_reference``, ``orphaned_entry``,
        ``malformed_embed_name``, ``conflicting_embed``, ``unclosed_embed``.
    :ivar name: the embed or entry concerned.
    :ivar line: the 1-based narrative line, or ``None`` when the defect has no line (an
        orphaned archive entry).
    :ivar column: the 1-based column, where known.
    :ivar message: what is wrong and what to do, for a person.
    :ivar file: the file *line* counts in when it is not the narrative, e.g.
        ``settings.yaml`` for a line inside that archive entry; None for the narrative.
    :ivar cli_message: *message* as the command line words it (naming flags, not Python
        arguments), when the two differ.
    :ivar forceable: whether a send with ``strict=False`` (``--force``) goes on past an
        error-level defect of this kind; False where the build refuses it all the same
        (a ``messages`` placeholder that does not stand alone on its line, a field read
        from an input that has none).
    """

    kind: str
    name: str
    line: int | None
    column: int | None
    message: str
    file: str | None = None
    cli_message: str | None = None
    forceable: bool = True

    @property
    def severity(self) -> Severity:
        """The kind's severity in the one table, :data:`lmml_mdit.severity.KIND_RULES`:
        ``"error"`` stops a send, ``"warning"`` does not."""
        return severity_of(self.kind)

    def record(self) -> dict[str, str | int | None]:
        """The issue as a JSON object: ``kind``, ``severity``, ``name``, ``line``,
        ``column``, ``file`` and ``message`` (what ``lmml validate --json`` prints, in the
        command line's words there, and what a dataset row holds)."""
        return {
            "kind": self.kind,
            "severity": self.severity,
            "name": self.name,
            "line": self.line,
            "column": self.column,
            "file": self.file,
            "message": self.message,
        }
