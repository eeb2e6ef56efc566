"""Template values given as text: ``NAME=VALUE`` (the command line's ``--input``) read as the
declared type of its input, ``@PATH`` reading a file and ``@@`` a literal ``@``."""

from __future__ import annotations

from ._declarations import InputDeclarations

__all__ = ["assigned_value"]


def assigned_value(declarations: InputDeclarations, text: str) -> tuple[str, object]:
    """The input name and value ``NAME=VALUE`` gives, the value read as the input's
    declared type (:meth:`~lmml_mdit.templates.InputSpec.from_text`); ``NAME=@PATH`` reads
    the text of the file *PATH* (an ``image``, ``file`` or ``messages`` value keeps the
    path, read where it is used) and ``NAME=@@...`` stands for a value starting with ``@``.

    :raises ValueError: saying what is wrong, starting with what was given
        (``NAME: ...``), for the command line to put its flag before.
    :raises InputError: for a ``messages`` value that starts like JSON and is not valid
        JSON (:meth:`~lmml_mdit.templates.InputSpec.from_text`).
    """
    name, equals, raw = text.partition("=")
    name = name.strip()
    if not equals or not name:
        raise ValueError(f"{text}: expected NAME=VALUE (or NAME=@FILE)")
    spec = declarations.specs.get(name)
    malformed = declarations.malformed(name) if spec is None else None
    if malformed is not None:
        where = f" (line {malformed.line})" if malformed.line is not None else ""
        raise ValueError(f"{name}: its declaration{where} does not read: {malformed.message}")
    if spec is None:
        declared = ", ".join(declarations.specs) or "none"
        raise ValueError(f"{name}: no input of that name is declared (declared: {declared})")
    from_file = raw.startswith("@") and not raw.startswith("@@")
    if raw.startswith("@@"):
        raw = raw[1:]
    if from_file:
        path = raw[1:]
        if spec.is_part:
            return name, path  # read by the renderer, as any path value is
        try:
            with open(path, encoding="utf-8") as stream:
                raw = stream.read()
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise ValueError(f"{name}=@{path}: cannot read: {reason or error}") from None
    try:
        return name, spec.from_text(raw)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
