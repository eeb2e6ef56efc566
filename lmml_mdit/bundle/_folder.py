"""The folder of a bare ``.lmml``: the files its references resolve to, never outside it.

A reference names a file by a safe relative name (:func:`~lmml_mdit.bundle.unsafe_reason`
accepts it) whose real path, symbolic links followed, lies inside the folder.
"""

from __future__ import annotations

import os

from ._archive import unsafe_reason

__all__ = ["FolderNames", "folder_files", "path_under"]


class FolderNames:
    """The names a folder's files answer to, as ``known_names`` for the parser: a name is
    in it when it is a safe relative name of a regular file inside *root* (the same rule
    :meth:`Bundle.embed <lmml_mdit.bundle.Bundle.embed>` resolves by, links leading
    outside refused)."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or unsafe_reason(name) is not None:
            return False
        candidate = path_under(self.root, name)
        return candidate is not None and os.path.isfile(candidate)


def path_under(root: str, name: str) -> str | None:
    """The real path of the relative entry name *name* inside the real folder *root*, or
    None when it leads outside (through a symbolic link) or is *root* itself.

    :param name: a name :func:`~lmml_mdit.bundle.unsafe_reason` accepts ('/' separators).
    """
    candidate = os.path.realpath(os.path.join(root, *name.split("/")))
    if candidate == root or os.path.commonpath([root, candidate]) != root:
        return None
    return candidate


def folder_files(root: str, name: str) -> list[str]:
    """The names of the files beside where *name* would lie under *root* (for a
    suggestion), as references would spell them."""
    folder, _, _ = name.rpartition("/")
    try:
        listed = os.listdir(os.path.join(root, *folder.split("/")) if folder else root)
    except OSError:
        return []
    prefix = folder + "/" if folder else ""
    return [prefix + entry for entry in listed if not entry.startswith(".")]
