"""Other prompt-file formats in and out of LMML: Prompty (``.prompty``),
dotprompt (``.prompt``) and GitHub Models prompt files (``.prompt.yml``)
and LangChain ``ChatPromptTemplate`` JSON.

:func:`import_prompt_file` writes a prompt file as an LMML template (and its test data as a
cases file beside it); :func:`convert` goes either way, a prompt file to LMML or an LMML
bundle to a prompt file. See :doc:`/promptfiles`.
"""

from __future__ import annotations

import codecs
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import atomic_write_bytes
from ..errors import PromptFileError
from ..errors import PromptFileWarning as PromptFileWarning
from ..formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX
from . import _dotprompt, _github, _langchain, _prompty
from ._shared import HEAD_SIZE, Prompt, declare_used, lmml_text, read_bundle

if TYPE_CHECKING:
    from ..bundle import BaseDir
    from ..syntax import DelimiterMode, ReferenceMode

__all__ = [
    "PROMPT_FORMATS",
    "PromptFileWarning",
    "cases_path",
    "convert",
    "detect_prompt_format",
    "import_prompt_file",
]

_FORMATS = {
    "prompty": _prompty,
    "dotprompt": _dotprompt,
    "github": _github,
    "langchain": _langchain,
}
PROMPT_FORMATS: tuple[str, ...] = tuple(_FORMATS)
"""The prompt-file format names :func:`convert` and ``lmml import`` know."""

_MAX_BYTES = 16 * 1024 * 1024


def detect_prompt_format(path: str) -> str | None:
    """The prompt format of the file *path*: by its extension, else by its content (for a
    local file); None when it is none of them."""
    lowered = path.lower()
    if lowered.endswith(_github.SUFFIXES):
        return "github"
    for name, module in _FORMATS.items():
        if lowered.endswith(module.SUFFIX) and module is not _langchain:
            return name
    if lowered.endswith((NARRATIVE_SUFFIX, ARCHIVE_SUFFIX, ".jsonl")):
        return None
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as stream:
            # A character the window cuts in two is left for the rest of the file.
            head = codecs.getincrementaldecoder("utf-8")().decode(stream.read(HEAD_SIZE))
    except (OSError, UnicodeDecodeError):
        return None
    for name, module in _FORMATS.items():
        if module.looks_like(head):
            return name
    return None


def _read_prompt(path: str, format: str | None) -> tuple[str, Prompt]:
    name = format or detect_prompt_format(path)
    if name not in _FORMATS:
        raise PromptFileError(
            "not a prompt file of a known format",
            name=path,
            hint=f"give a file of one of: {', '.join(PROMPT_FORMATS)}",
        )
    size = os.path.getsize(path)
    if size > _MAX_BYTES:
        raise PromptFileError(
            f"the file is larger than {_MAX_BYTES} bytes", name=path, hint="split it"
        )
    try:
        with open(path, "rb") as stream:
            text = stream.read().decode("utf-8")
    except UnicodeDecodeError as problem:
        raise PromptFileError(
            f"not valid UTF-8 at byte offset {problem.start}", name=path, hint="save it as UTF-8"
        ) from None
    prompt = _FORMATS[name].read(text, path)
    declare_used(prompt)
    return name, prompt


def cases_path(bundle_path: str) -> str:
    """The cases file beside a bundle: ``x.lmmlz`` has ``x.cases.jsonl``."""
    folder, base = os.path.split(bundle_path)
    stem = base.rsplit(".", 1)[0] if "." in base else base
    return os.path.join(folder, f"{stem}.cases.jsonl")


def import_prompt_file(
    source: str | os.PathLike[str], target: str | os.PathLike[str], *, format: str | None = None
) -> list[Path]:
    """Write the prompt file *source* as the LMML template *target* (``.lmml``, or
    ``.lmmlz`` to bundle its media), and its test data as ``STEM.cases.jsonl`` beside it.

    :returns: the files written, the bundle first.
    :raises PromptFileError: for logic LMML lacks (naming file, line and construct), an
        input type LMML lacks, media that is not a local file, or media for a ``.lmml``.
    """
    source, target = os.fspath(source), os.fspath(target)
    _, prompt = _read_prompt(source, format)
    return _write_lmml(prompt, target, source)


def _write_lmml(prompt: Prompt, target: str, source: str) -> list[Path]:
    from ..bundle import Bundle

    text = lmml_text(prompt, source)
    stem = os.path.basename(target).rsplit(".", 1)[0] or "prompt"
    if target.lower().endswith(ARCHIVE_SUFFIX):
        bundle = Bundle.from_zip(stem, text, dict(prompt.assets))
    elif prompt.assets:
        raise PromptFileError(
            f"the prompt has media ({', '.join(sorted(prompt.assets))}) a .lmml cannot hold",
            name=target,
            hint=f"write a {ARCHIVE_SUFFIX} to bundle it",
        )
    else:
        bundle = Bundle.from_text(stem, text)
    bundle.save(target)
    written = [Path(target)]
    if prompt.cases:
        lines = "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in prompt.cases)
        cases = cases_path(target)
        atomic_write_bytes(cases, lines.encode("utf-8"))
        written.append(Path(cases))
    return written


def convert(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    lossy: bool = False,
    base_dir: BaseDir = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
) -> list[Path]:
    """Convert between a prompt file and LMML, the direction given by the two names: a
    prompt file to ``.lmml``/``.lmmlz`` (as :func:`import_prompt_file`), an LMML bundle to
    a prompt file named by its extension, or one prompt format to another.

    What the target cannot hold is refused naming it; with *lossy* it is left out with one
    :class:`~lmml_mdit.errors.PromptFileWarning` per item. *base_dir*, *delimiters* and
    *references* read an LMML source as :func:`lmml_mdit.open` does (a bare ``.lmml``
    sees its own folder by default; ``base_dir=False`` turns that off).

    :returns: the files written, the converted file first (then media, cases).
    :raises PromptFileError: as above.
    """
    source, target = os.fspath(source), os.fspath(target)
    target_format = _target_format(target)
    if target_format is None:
        if not target.lower().endswith((NARRATIVE_SUFFIX, ARCHIVE_SUFFIX)):
            raise PromptFileError(
                "the target's extension names no format",
                name=target,
                hint=f"end it with {NARRATIVE_SUFFIX}, {ARCHIVE_SUFFIX} or a prompt file's",
            )
        return import_prompt_file(source, target)
    module = _FORMATS[target_format]
    if source.lower().endswith((NARRATIVE_SUFFIX, ARCHIVE_SUFFIX)):
        prompt = _read_lmml(source, module.NAME, lossy, base_dir, delimiters, references)
    else:
        _, prompt = _read_prompt(source, None)
    text, media = module.write(prompt, target, lossy)
    folder = os.path.dirname(target)
    for name, data in media.items():
        path = os.path.join(folder, name)
        if os.path.exists(path) and Path(path).read_bytes() != data:
            raise PromptFileError(
                "a different file of this name is in the way of a media file",
                name=path,
                hint="move it, or write the prompt file elsewhere",
            )
    atomic_write_bytes(target, text.encode("utf-8"))
    written = [Path(target)]
    for name, data in media.items():
        path = os.path.join(folder, name)
        atomic_write_bytes(path, data)
        written.append(Path(path))
    return written


def _target_format(target: str) -> str | None:
    lowered = target.lower()
    if lowered.endswith(_github.SUFFIXES):
        return "github"
    return next(
        (name for name, module in _FORMATS.items() if lowered.endswith(module.SUFFIX)), None
    )


def _read_lmml(
    source: str,
    target_name: str,
    lossy: bool,
    base_dir: BaseDir,
    delimiters: DelimiterMode,
    references: ReferenceMode,
) -> Prompt:
    from ..chat import open as open_bundle

    with open_bundle(
        source, base_dir=base_dir, delimiters=delimiters, references=references
    ) as bundle:
        prompt = read_bundle(bundle, lossy, target_name)
    cases = cases_path(source)
    if os.path.isfile(cases):
        from ..jsonio import load_json

        for number, line in enumerate(Path(cases).read_text("utf-8").splitlines(), 1):
            if line.strip():
                value = load_json(
                    line,
                    error_class=PromptFileError,
                    name=f"{cases}:{number}",
                    subject="a case",
                    hint="write one JSON object per line",
                )
                if not isinstance(value, dict):
                    raise PromptFileError("a case is not a JSON object", name=cases, line=number)
                prompt.cases.append(value)
    return prompt
