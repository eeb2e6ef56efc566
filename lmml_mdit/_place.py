"""Where an error lies, as data: the file its line counts in, an archive's entry named apart
from its archive (an error's text joins them as ``bundle.lmmlz!settings.yaml``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .errors import LmmlError, file_location, location

__all__ = ["Place"]


@dataclass(frozen=True)
class Place:
    """Where an error lies: :meth:`~lmml_mdit.errors.LmmlError.place` with the archive
    and its entry apart.

    :ivar file: the file the line counts in (the archive, for a line inside an entry), or
        ``""`` when the error names none.
    :ivar line: the 1-based line, or None.
    :ivar column: the 1-based column, or None.
    :ivar entry: the archive entry the line counts in, or None.
    """

    file: str
    line: int | None = None
    column: int | None = None
    entry: str | None = None

    @classmethod
    def of(cls, error: LmmlError) -> Place:
        """Where *error* lies (:meth:`~lmml_mdit.errors.LmmlError.place`, whose FILE
        :attr:`named` gives)."""
        if error._file is None:
            return cls(error.name or "", error.line, error.column)
        return cls(error._file, error.line, error.column, error._entry)

    @property
    def named(self) -> str:
        """The file as an error names it: ``bundle.lmmlz!settings.yaml`` for an entry."""
        if self.entry is None:
            return self.file
        return file_location(self.file, self.entry, archive=True)

    def as_tuple(self) -> tuple[str, int | None, int | None]:
        """``(FILE, LINE, COL)``, FILE as :attr:`named`."""
        return self.named, self.line, self.column

    def said_as(self, file: str) -> str:
        """``FILE:LINE:COL`` with *file* standing for :attr:`file` (an entry still after it,
        as ``FILE!ENTRY:LINE``)."""
        return str(dataclasses.replace(self, file=file))

    def __str__(self) -> str:
        return location(*self.as_tuple())
