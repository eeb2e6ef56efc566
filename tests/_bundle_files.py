"""Bundle files on disk for the tests: a bare ``.lmml`` beside its assets, a ``.lmmlz``."""

from __future__ import annotations

import zipfile
from pathlib import Path


def write_chat(folder: Path, text: str, **files: bytes) -> Path:
    """``folder/chat.lmml`` holding *text*, with each of *files* written beside it."""
    path = folder / "chat.lmml"
    path.write_text(text, encoding="utf-8")
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return path


def make_zip(
    path: Path, narrative: str, entries: dict[str, bytes], *, name: str | None = None
) -> Path:
    """An archive at *path*: the narrative entry (*name*, else named after the archive) and
    *entries*, in that order."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(name or path.stem + ".lmml", narrative)
        for entry, data in entries.items():
            archive.writestr(entry, data)
    return path
