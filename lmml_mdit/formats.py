"""The names of LMML's file formats, and the chat format a request defaults to: the one
place each is written.

Every module that names a bundle's file suffix, the archive's reserved manifest entry, the
zip signature or the default provider imports it from here.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: ``lmml --help`` reads this module and no more
if TYPE_CHECKING:
    from typing import Final

NARRATIVE_SUFFIX: Final = ".lmml"
"""A bare narrative: LMML text, its assets beside it."""

ARCHIVE_SUFFIX: Final = ".lmmlz"
"""A zip archive holding the narrative and its assets."""

BUNDLE_SUFFIXES: Final = (NARRATIVE_SUFFIX, ARCHIVE_SUFFIX)
"""Both bundle suffixes, as :meth:`str.endswith` takes them."""


def other_kind_suffix(path: str, kind: str) -> str | None:
    """The suffix *path* ends in (any case) when it names the other bundle kind than *kind*
    (``"zip"`` or ``"text"``): a bundle of *kind* written there would not hold what its
    name says. None otherwise."""
    other = NARRATIVE_SUFFIX if kind == "zip" else ARCHIVE_SUFFIX
    return other if path.lower().endswith(other) else None


MANIFEST_NAME: Final = "manifest.json"
"""The reserved manifest entry of an archive (RFC 5)."""

ZIP_SIGNATURES: Final = (b"PK\x03\x04", b"PK\x05\x06")
"""How a zip file starts: a local file header, or the end record of an empty archive."""

PARQUET_SUFFIX: Final = ".parquet"
"""A Parquet file of conversation rows (``lmml export --parquet``)."""

PARQUET_SIGNATURE: Final = b"PAR1"
"""How a Parquet file starts (and ends)."""

OPENAI: Final = "openai"
"""The OpenAI Chat Completions format's name (its module's ``NAME``)."""

DEFAULT_PROVIDER: Final = OPENAI
"""The provider ``provider=`` and ``--provider`` default to. Here, below every layer, so
that a bundle's own methods default to it as the layers above do."""
