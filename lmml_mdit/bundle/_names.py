"""What a bundle and its parts are called: the bundle's name, its narrative entry's, and
which asset names an ``@name`` reference can spell."""

from __future__ import annotations

from typing import Final

from ..formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX
from ..syntax import writes_as_reference

__all__ = [
    "DEFAULT_NAME",
    "REMOTE_SUFFIX",
    "bundle_name",
    "is_reference_name",
    "is_remote_name",
    "narrative_entry_name",
]

DEFAULT_NAME: Final = "untitled"
"""The name of a bundle given none (bytes or a stream without ``name=``)."""

REMOTE_SUFFIX: Final = ".remote.json"
"""The end of every remote asset's name (:mod:`lmml_mdit.bundle._remote`)."""


def bundle_name(name: str) -> str:
    """A bundle name without folder or extension: ``a/session.lmmlz`` gives ``session``."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    lowered = base.lower()
    for suffix in (ARCHIVE_SUFFIX, NARRATIVE_SUFFIX):
        if lowered.endswith(suffix) and len(base) > len(suffix):
            return base[: -len(suffix)]
    return base


def narrative_entry_name(file_name: str) -> str:
    """The narrative entry an archive file should hold (RFC 3.2): the basename minus its
    trailing ``z``; ``session.lmmlz`` gives ``session.lmml``; a name without the ``.lmmlz``
    extension gets ``.lmml`` appended unless it already ends so."""
    base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    lowered = base.lower()
    if lowered.endswith(ARCHIVE_SUFFIX):
        return base[:-1]
    if lowered.endswith(NARRATIVE_SUFFIX):
        return base
    return base + NARRATIVE_SUFFIX


def is_reference_name(name: str) -> bool:
    """Whether ``@name`` can read back as a reference to exactly *name* once the reader
    knows *name* (as a zip's entry names are known): the name's syntax alone."""
    return writes_as_reference(name, frozenset({name}))


def is_remote_name(name: str) -> bool:
    """Whether the embed *name* is a remote asset's."""
    return name.endswith(REMOTE_SUFFIX) and len(name) > len(REMOTE_SUFFIX)
