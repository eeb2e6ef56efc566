"""One severity for each issue kind: the table every command reads.

``validate``, ``render``, ``export``, the language server, the pre-commit hook and the
Sphinx directive judge an :class:`~lmml_mdit.model.Issue` by :data:`KIND_RULES` alone, so
the same file gets the same verdict from each: ``refused``, ``warned`` or ``validated``.
docs/errors.md prints the table ("One severity for each kind"), and a test keeps the two
equal.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

__all__ = [
    "ERROR_KINDS",
    "KIND_RULES",
    "WARNED_KINDS",
    "OnSend",
    "Severity",
    "severity_of",
]

Severity = Literal["error", "warning"]
OnSend = Literal["refused", "warned", "validated"]

KIND_RULES: Mapping[str, tuple[Severity, OnSend]] = MappingProxyType(
    {
        "unclosed_embed": ("error", "refused"),
        "missing_reference": ("error", "refused"),
        "conflicting_embed": ("error", "refused"),
        "malformed_embed_name": ("error", "refused"),
        "integrity_mismatch": ("error", "refused"),
        "invalid_manifest": ("error", "refused"),
        "invalid_settings": ("error", "refused"),
        "invalid_setting": ("error", "refused"),
        "invalid_front_matter": ("error", "refused"),
        "invalid_input": ("error", "refused"),
        "missing_input": ("error", "refused"),
        "invalid_tool_call": ("error", "refused"),
        "unknown_tool_call_id": ("error", "refused"),
        "unanswered_tool_call": ("error", "refused"),
        "invalid_remote_asset": ("error", "refused"),
        "suspicious_delimiter": ("warning", "warned"),
        "orphaned_entry": ("warning", "validated"),
        "unsent_image": ("warning", "validated"),
        "setting_out_of_range": ("warning", "validated"),
        "undeclared_input": ("warning", "validated"),
        "unused_input": ("warning", "validated"),
        "no_turns": ("warning", "validated"),
    }
)
"""Every issue kind: its severity, and what a send does with it."""

ERROR_KINDS: frozenset[str] = frozenset(
    kind for kind, (severity, _) in KIND_RULES.items() if severity == "error"
)
"""The issue kinds that stop a send (severity ``"error"``)."""

WARNED_KINDS: frozenset[str] = frozenset(
    kind for kind, (_, on_send) in KIND_RULES.items() if on_send == "warned"
)
"""The warning kinds every command that sends or shows a bundle reports."""


def severity_of(kind: str) -> Severity:
    """The severity of the issue kind *kind* (``"warning"`` for a kind not in the table)."""
    rule = KIND_RULES.get(kind)
    return rule[0] if rule is not None else "warning"
