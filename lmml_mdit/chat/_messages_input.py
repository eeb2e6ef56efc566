"""A ``messages`` input's value read into the turns it puts in.

A value is a list of chat messages in any format :func:`~lmml_mdit.import_messages`
reads, or the path of a ``.lmml``, ``.lmmlz`` or ``.json`` file holding a conversation. It
becomes a bundle of its own (through the import writer, so each turn's text is escaped as
``lmml import`` escapes it and read back before use): the template's turns never see its
text, so nothing in a message can add a turn, an embed or a tool call.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Set

from ..bundle import TEXT_EMBEDS_SETTING, Bundle, BundleSource, Limits
from ..errors import InputError, LmmlError
from ..formats import BUNDLE_SUFFIXES
from ..jsonio import parse_json
from ..model import Issue
from ..templates import (
    InputSpec,
    ValuesPath,
    declared_inputs,
    value_problem,
    values_file_path,
)

__all__ = ["MESSAGES_SUFFIXES", "messages_issues", "read_messages"]

MESSAGES_SUFFIXES = (*BUNDLE_SUFFIXES, ".json")
"""The files a ``messages`` value may name."""


def _refused(spec: InputSpec, why: str, hint: str, value: object = None) -> InputError:
    place = value if isinstance(value, ValuesPath) else None
    return InputError(
        f"the messages input {spec.name!r} {why}",
        name=spec.name,
        kind="invalid_input",
        hint=hint,
        file=place.file if place is not None else spec.file,
        line=place.line if place is not None else spec.line,
        column=place.column if place is not None else spec.column,
    )


def read_messages(spec: InputSpec, value: object, *, roles: Set[str], limits: Limits) -> Bundle:
    """The bundle holding *value*'s conversation, its turns checked against the roles.

    :param roles: the roles its turns may have when the input declares none (the
        template's own).
    :raises InputError: (``invalid_input``) for a value that does not read as a
        conversation, one carrying settings or inputs, or a turn of a role not allowed.
    """
    if isinstance(value, (str, os.PathLike)):
        bundle = _from_file(spec, value, limits)
    elif isinstance(value, (list, dict)):
        bundle = _from_payload(spec, value, "the value")
    else:
        raise _refused(
            spec,
            f"is given {type(value).__name__}",
            "give a list of chat messages, or the path of a .lmml, .lmmlz or .json file",
        )
    allowed = set(spec.roles) if spec.roles is not None else set(roles)
    for turn in bundle.narrative.turns:
        if turn.role not in allowed:
            raise _refused(
                spec,
                f"holds a turn of the role {turn.role!r}, and the template takes only "
                f"{', '.join(sorted(allowed)) or 'no'} turns from it",
                "declare the roles it may hold on the input (roles: "
                f"[{', '.join(sorted(allowed | {turn.role}))}]), or leave that message out",
                value,
            )
    return bundle


def _from_payload(spec: InputSpec, payload: object, shown: str) -> Bundle:
    from ._importer import read_conversation
    from ._writer import write_bundle

    try:
        conversation = read_conversation(payload)
    except LmmlError as error:
        raise _refused(
            spec,
            f"does not read as a conversation ({shown}): {error.message}",
            error.hint or "give a list of chat messages in a format lmml import reads",
        ) from None
    if conversation.settings:
        keys = ", ".join(sorted(conversation.settings))
        raise _refused(
            spec,
            f"is a request body with settings ({keys}), which a messages input does not carry",
            "give only its messages list, and put the settings in the template",
        )
    try:
        return write_bundle(conversation, name=spec.name)
    except LmmlError as error:
        hint = error.hint or "give messages lmml import can write"
        raise _refused(spec, f"cannot be written as turns: {error.message}", hint) from None


def _from_file(spec: InputSpec, value: str | os.PathLike[str], limits: Limits) -> Bundle:
    path = values_file_path(spec.name, value)
    shown = value.path if isinstance(value, ValuesPath) else os.fspath(value)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in MESSAGES_SUFFIXES:
        raise _refused(
            spec,
            f"names {shown!r}, which is not a .lmml, .lmmlz or .json file",
            "give the path of a conversation file, or the messages list itself",
            value,
        )
    if suffix == ".json":
        try:
            with open(path, "rb") as stream:
                data = stream.read(limits.max_entry_size + 1)
        except OSError as error:
            raise _refused(
                spec,
                f"names {shown!r}, which cannot be read ({error.strerror or error})",
                "give the path of a readable file",
                value,
            ) from None
        if len(data) > limits.max_entry_size:
            raise _refused(
                spec,
                f"names {shown!r}, which holds more than max_entry_size "
                f"({limits.max_entry_size} bytes)",
                "give a smaller file",
                value,
            )
        try:
            payload = parse_json(data)
        except (ValueError, RecursionError) as error:  # JSONDecodeError, UnicodeDecodeError
            why = "nests too deeply to read" if isinstance(error, RecursionError) else None
            raise _refused(
                spec,
                f"names {shown!r}, which {why or f'is not JSON ({error})'}",
                "fix the file",
                value,
            ) from None
        return _from_payload(spec, payload, shown)
    from ._opening import open as open_bundle

    try:
        bundle = open_bundle(path, limits=limits)
        declared = sorted(set(bundle.settings or {}) - {TEXT_EMBEDS_SETTING})
        if declared_inputs(bundle).declared:
            declared.append("inputs")
    except LmmlError as error:
        raise _refused(
            spec,
            f"names {shown!r}, which does not open: {error.message}",
            error.hint or "fix the file",
            value,
        ) from None
    if declared:
        raise _refused(
            spec,
            f"names {shown!r}, which has settings or inputs ({', '.join(declared)}); a "
            "messages value is a conversation only",
            "give a bundle without settings, or its turns exported as a messages list",
            value,
        )
    return bundle


def messages_issues(bundle: BundleSource, values: Mapping[str, object]) -> list[Issue]:
    """An ``invalid_input`` issue for each ``messages`` value in *values* that
    :func:`read_messages` refuses (what ``validate`` adds for values given to it)."""
    declarations = declared_inputs(bundle)
    roles = frozenset(turn.role for turn in bundle.narrative.turns)
    issues: list[Issue] = []
    for name, spec in declarations.specs.items():
        value = values.get(name)
        if not spec.is_messages or value is None or value_problem(spec, value) is not None:
            continue  # no value, or one the bundle's own checks report
        try:
            read_messages(spec, value, roles=roles, limits=Limits())
        except InputError as error:
            message = error.message + (f" ({error.hint})" if error.hint else "")
            issues.append(
                Issue("invalid_input", name, spec.line, spec.column, message, file=spec.file)
            )
    return issues
