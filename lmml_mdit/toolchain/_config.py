"""mdformat's configuration file, ``.mdformat.toml``, read as mdformat's command line reads
it, so that ``lmml fmt`` formats a file as ``mdformat`` would.

mdformat offers no public call for it; the rules it follows (mdformat 1.0) are: the file
is looked for in the folder of the file being formatted (the working folder for standard
input), then in each parent folder, and the first found is the one read, whole. Its keys
and their values are checked as mdformat checks them. See docs/toolchain.md, "lmml fmt".
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Final, Literal

from ..errors import FormatError

__all__ = ["CONFIG_NAME", "MdformatConfig", "mdformat_config"]

CONFIG_NAME: Final = ".mdformat.toml"
"""The name of mdformat's configuration file."""

EndOfLine = Literal["lf", "crlf", "keep"]

_KEYS: Final = frozenset(
    {
        "wrap",
        "number",
        "end_of_line",
        "validate",
        "exclude",
        "plugin",
        "extensions",
        "codeformatters",
    }
)
"""The keys mdformat accepts at the top level of its configuration file."""

_FORMAT_KEYS: Final = ("wrap", "number", "plugin")
"""The keys that are options of the formatting itself (``format_text``'s *options*)."""

_HINT: Final = f"fix {CONFIG_NAME}: mdformat reads the same file and refuses it too"


@dataclass(frozen=True)
class MdformatConfig:
    """What mdformat's command line takes from ``.mdformat.toml`` for the files of one
    folder.

    :ivar path: the file read, or None when there is none (mdformat's defaults).
    :ivar options: the formatting options it sets (``wrap``, ``number``, ``plugin``), as
        :func:`~lmml_mdit.toolchain.format_text` takes them.
    :ivar end_of_line: ``"lf"`` (the default), ``"crlf"``, or ``"keep"`` (the line ending
        the file's first line has).
    :ivar exclude: glob patterns of the files mdformat leaves alone, relative to the
        folder of :attr:`path` (Python 3.13+, as mdformat).
    """

    path: str | None = None
    options: Mapping[str, object] = field(default_factory=dict)
    end_of_line: EndOfLine = "lf"
    exclude: tuple[str, ...] = ()

    def excludes(self, file: str | os.PathLike[str]) -> bool:
        """Whether mdformat leaves *file* alone: its path relative to the configuration's
        folder matches a pattern of :attr:`exclude` (``PurePath.full_match``).

        :param file: the file's path (relative to the working folder, or absolute).
        """
        if not self.exclude or self.path is None or sys.version_info < (3, 13):
            return False  # (before 3.13, mdformat_config refuses patterns, as mdformat)
        try:
            relative = PurePath(os.path.abspath(file)).relative_to(os.path.dirname(self.path))
        except ValueError:  # outside the configuration's folder
            return False
        return any(relative.full_match(pattern) for pattern in self.exclude)

    def newline(self, original: str) -> str:
        """The line ending mdformat writes for a file that was *original*."""
        if self.end_of_line == "keep":
            first = _LINE_END.search(original)
            return "\r\n" if first is not None and first.group() == "\r\n" else "\n"
        return "\r\n" if self.end_of_line == "crlf" else "\n"


_LINE_END: Final = re.compile(r"\r\n|\r|\n")


def _config_file(folder: str) -> str | None:
    """The ``.mdformat.toml`` in *folder* or its nearest parent that has one, or None."""
    folder = os.path.abspath(folder)
    while True:
        candidate = os.path.join(folder, CONFIG_NAME)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _load(path: str) -> dict[str, object]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # mdformat requires tomli on 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as file:
            loaded: dict[str, object] = tomllib.load(file)
    except tomllib.TOMLDecodeError as error:
        raise FormatError(
            f"invalid TOML: {error}",
            name=path,
            line=getattr(error, "lineno", None),
            column=getattr(error, "colno", None),
            hint=_HINT,
        ) from None
    except OSError as error:
        raise FormatError(f"cannot read it: {error.strerror}", name=path) from None
    return loaded


def _string_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _valid(key: str, value: object) -> bool:
    """Whether *value* is one mdformat accepts for *key*."""
    if key == "wrap":
        return value in ("keep", "no") or (
            isinstance(value, int) and not isinstance(value, bool) and value > 1
        )
    if key == "end_of_line":
        return value in ("lf", "crlf", "keep")
    if key in ("number", "validate"):
        return isinstance(value, bool)
    if key == "plugin":
        return isinstance(value, dict) and all(isinstance(item, dict) for item in value.values())
    return _string_list(value)  # exclude, extensions, codeformatters


def mdformat_config(folder: str | os.PathLike[str]) -> MdformatConfig:
    """The configuration mdformat's command line uses for a file in *folder*: the
    ``.mdformat.toml`` there or in the nearest parent folder holding one.

    :param folder: the folder of the file to format (the working folder for standard
        input).
    :raises FormatError: for a file that is not TOML, or holds a key or a value mdformat
        refuses (``exclude`` too before Python 3.13, as mdformat refuses it there).
    """
    path = _config_file(os.fspath(folder))
    if path is None:
        return MdformatConfig()
    loaded = _load(path)
    for key, value in loaded.items():
        if key not in _KEYS:
            raise FormatError(
                f"unknown key {key!r}; mdformat knows {', '.join(sorted(_KEYS))}",
                name=path,
                hint=_HINT,
            )
        if not _valid(key, value):
            raise FormatError(f"invalid {key!r} value {value!r}", name=path, hint=_HINT)
    if "exclude" in loaded and sys.version_info < (3, 13):
        raise FormatError(
            "'exclude' patterns need Python 3.13 or later, as in mdformat",
            name=path,
            hint="remove 'exclude', or run on Python 3.13+",
        )
    exclude = loaded.get("exclude", [])
    assert isinstance(exclude, list)
    ending = loaded.get("end_of_line")
    end_of_line: EndOfLine = "crlf" if ending == "crlf" else "keep" if ending == "keep" else "lf"
    return MdformatConfig(
        path=path,
        options={key: loaded[key] for key in _FORMAT_KEYS if key in loaded},
        end_of_line=end_of_line,
        exclude=tuple(str(pattern) for pattern in exclude),
    )
