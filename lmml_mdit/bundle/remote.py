"""The documented path ``lmml_mdit.bundle.remote``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_remote`` (see docs/architecture.md)."""

from __future__ import annotations

from ._remote import (
    FILE_ID_PROVIDERS,
    MAX_URL_LENGTH,
    REMOTE_SUFFIX,
    RemoteAsset,
    RemoteKind,
    is_remote_name,
    link_target,
    parse_remote,
    remote_entry,
    remote_issues,
)

__all__ = [
    "FILE_ID_PROVIDERS",
    "MAX_URL_LENGTH",
    "REMOTE_SUFFIX",
    "RemoteAsset",
    "RemoteKind",
    "is_remote_name",
    "link_target",
    "parse_remote",
    "remote_entry",
    "remote_issues",
]
