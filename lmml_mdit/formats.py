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


def not_an_archive(path: str, head: bytes) -> str | None:
    """The warning for *path*, named as an archive (``.lmmlz``) but starting with *head*,
    which no zip file starts with; None when the name and the bytes agree.

    Zip or text is told by the bytes, never by the name, so such a file is read as a bare
    narrative; its name is then usually a mistake (a download that saved an HTML error
    page, a narrative renamed by hand). Every command reading the file says it in these
    words: the command line's readers, and ``lmml export`` (``export_folder``).
    """
    if not path.lower().endswith(ARCHIVE_SUFFIX) or head[:4] in ZIP_SIGNATURES:
        return None
    what = "the file is empty" if not head else f"it starts with {head[:4]!r}"
    return (
        f"{path}: not a zip archive ({what}); read as a bare narrative "
        f"(rename it to {NARRATIVE_SUFFIX} if that is what it is)"
    )


PARQUET_SUFFIX: Final = ".parquet"
"""A Parquet file of conversation rows (``lmml export --parquet``)."""

PARQUET_SIGNATURE: Final = b"PAR1"
"""How a Parquet file starts (and ends)."""

OPENAI: Final = "openai"
"""The OpenAI Chat Completions format's name (its module's ``NAME``)."""

DEFAULT_PROVIDER: Final = OPENAI
"""The provider ``provider=`` and ``--provider`` default to. Here, below every layer, so
that a bundle's own methods default to it as the layers above do."""
