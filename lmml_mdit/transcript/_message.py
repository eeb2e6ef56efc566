"""A transcript's turn and what it must hold: :class:`Message`, :class:`Pov` and the checks.

A message is organised around its *author* (a name); its role comes only when it is
rendered from a point of view (:class:`Pov`), except for the turns whose role is pinned
(:data:`PINNED_ROLES`). The checks here refuse, before anything is written, what a file
could not give back: a field of the wrong type, metadata a JSON round trip would change, an
asset name an archive could not hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol, Union, runtime_checkable

from ..bundle import unsafe_reason
from ..errors import TranscriptError, TranscriptFormatError, TranscriptTypeError
from ..formats import MANIFEST_NAME
from ..jsonio import number_text_problem
from ..jsontypes import JSONObject
from ..text import is_unicode

__all__ = [
    "MAX_METADATA_DEPTH",
    "PINNED_ROLES",
    "Message",
    "MessageRef",
    "Pov",
    "check_asset",
    "check_message",
    "check_metadata",
    "check_saveable",
    "check_text",
    "pinned_role",
    "pov_roles",
]

PINNED_ROLES: dict[str, str] = {"system": "system", "tool": "tool", "context": "system"}
"""Roles rendered the same for every pov (``context``, the LMML preamble, renders as system,
as :mod:`lmml_mdit.chat` sends it by default)."""


@dataclass
class Message:
    """One committed turn.

    :ivar author: who wrote it: a participant name, or a role word (``user``, ``assistant``,
        ``system``, ``tool``, ``context``) for turns read from a plain LMML document.
    :ivar content: the visible Markdown text; ``@name`` refers to a transcript asset.
    :ivar metadata: everything not authoritative (reasoning, token counts, tool trails),
        JSON values only. ``metadata["role"]`` pins the turn's role (see
        :data:`PINNED_ROLES`) and names the role its LMML heading gets.

    Messages are mutable and held by reference: ``transcript[0].content = "..."`` edits the
    transcript. Equality compares the three fields; :meth:`Transcript.resolve_index` finds a
    message by identity instead.
    """

    author: str
    content: str
    metadata: JSONObject = field(default_factory=dict)


MessageRef = Union[Message, int]  # noqa: UP007 - a runtime alias on Python 3.10
"""A message position (negatives count from the end) or the :class:`Message` itself."""


@runtime_checkable
class Pov(Protocol):
    """A point of view: a name and the roles its own and the others' turns take."""

    name: str
    self_role: str
    others_role: str


def pov_roles(pov: object) -> tuple[str, str, str]:
    """*pov* as ``(name, self_role, others_role)``: a name string takes ``assistant`` for
    its own turns and ``user`` for the others'.

    :raises TranscriptTypeError: for a *pov* of another shape.
    """
    if isinstance(pov, str):
        return pov, "assistant", "user"
    try:
        name, self_role, others_role = pov.name, pov.self_role, pov.others_role  # type: ignore[attr-defined]
    except AttributeError:
        raise TranscriptTypeError(
            f"pov must be a name or an object with name, self_role and others_role, "
            f"not {type(pov).__name__}",
            hint='pass pov="alice"',
        ) from None
    for value in (name, self_role, others_role):
        if not isinstance(value, str):
            raise TranscriptTypeError(
                f"pov.name, pov.self_role and pov.others_role must be strings, "
                f"not {type(value).__name__}"
            )
    return name, self_role, others_role


def pinned_role(message: Message) -> str | None:
    """The role *message* renders as for every pov, or None when it is swapped by pov."""
    role = message.metadata.get("role")
    if isinstance(role, str) and role in PINNED_ROLES:
        return PINNED_ROLES[role]
    return PINNED_ROLES.get(message.author)


def _where(path: str) -> str:
    return path or "metadata"


MAX_METADATA_DEPTH = 100
"""How deep metadata may nest (lists and dicts): the JSON reader and writer recurse once
per level, so deeper values could not be saved and read back."""


def check_text(text: str, what: str) -> None:
    """Refuse *text* (named *what*) when it holds a lone surrogate.

    :raises TranscriptFormatError: saying so.
    """
    if not is_unicode(text):
        raise TranscriptFormatError(
            f"{what} holds a lone surrogate, which is not valid Unicode",
            hint="fix the text (the leftover of a broken decode) before saving",
        )


def _check_integer(value: int, where: str) -> None:
    """Refuse an integer that would not read back: written longer than the JSON reader
    takes (:func:`~lmml_mdit.jsonio.number_text_problem`), or past Python's digit limit
    for ``str(int)``."""
    if value.bit_length() < 3 * 640:  # far below any digit limit Python allows
        return
    try:
        text: str | None = str(value)
    except ValueError:
        text = None
    if text is None or number_text_problem(text) is not None:
        digits = int(value.bit_length() * 0.30103) + 1  # without converting it
        raise TranscriptFormatError(
            f"{where} is an integer of about {digits} digits, which JSON cannot hold",
            hint="store it as a string",
        )


def check_metadata(value: object, path: str = "", depth: int = 0) -> None:
    """Check that *value* survives a JSON round trip unchanged.

    Allowed: ``None``, ``bool``, ``int`` (within Python's digit limit for ``str()``, past
    which the json module can neither write nor read it), finite ``float``, ``str`` (valid
    Unicode),
    ``list`` and ``dict`` with string keys, nested at most :data:`MAX_METADATA_DEPTH`
    levels. A tuple, a set, NaN or any other object would come back different (or not at
    all), so it is refused.

    :raises TranscriptFormatError: naming the path of the first value that is refused.
    """
    if isinstance(value, str):
        check_text(value, _where(path))
        return
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        _check_integer(value, _where(path))
        return
    if isinstance(value, (list, dict)) and depth >= MAX_METADATA_DEPTH:
        raise TranscriptFormatError(
            f"{_where(path)} nests deeper than {MAX_METADATA_DEPTH} levels",
            hint="flatten the metadata, or store the deep value as a JSON string",
        )
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TranscriptFormatError(
                f"{_where(path)} is {value!r}, which JSON cannot hold",
                hint="store it as a string or None",
            )
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            check_metadata(item, f"{path}[{index}]", depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TranscriptFormatError(
                    f"{_where(path)} has a {type(key).__name__} key {key!r}; keys must be strings",
                    hint="use string keys",
                )
            check_text(key, f"a key of {_where(path)}")
            check_metadata(item, f"{path}[{key!r}]", depth + 1)
        return
    raise TranscriptFormatError(
        f"{_where(path)} is a {type(value).__name__}, which a JSON round trip would not give back",
        hint="use a list, dict, str, number, bool or None",
    )


def check_asset(name: object, data: object) -> None:
    """Refuse an asset whose name no archive entry could take, or whose data is not bytes.

    :raises TranscriptTypeError: for a name that is not a str, or data that is not bytes.
    :raises TranscriptError: for an unsafe name, or ``manifest.json``.
    """
    if not isinstance(name, str):
        raise TranscriptTypeError(f"an asset name must be a str, not {type(name).__name__}")
    reason = unsafe_reason(name)
    if reason is None and not is_unicode(name):
        reason = "the name holds a lone surrogate, which is not valid Unicode"
    if reason is not None:
        raise TranscriptError(f"unsafe asset name: {reason}", name=name)
    if name == MANIFEST_NAME:
        raise TranscriptError(
            f"{MANIFEST_NAME} is reserved for the transcript's own metadata",
            name=name,
            hint="give the asset another name",
        )
    if not isinstance(data, (bytes, bytearray)):
        raise TranscriptTypeError(f"asset data must be bytes, not {type(data).__name__}", name=name)


def check_message(message: object) -> Message:
    """*message* when it is a :class:`Message` with string author and content and dict
    metadata (its fields may have been set in place).

    :raises TranscriptTypeError: naming what is wrong.
    """
    if not isinstance(message, Message):
        raise TranscriptTypeError(
            f"a transcript holds Message objects, not {type(message).__name__}",
            hint='build one with Message("alice", "text")',
        )
    if not isinstance(message.author, str) or not isinstance(message.content, str):
        raise TranscriptTypeError(
            f"a message's author and content must be strings, not "
            f"{type(message.author).__name__} and {type(message.content).__name__}"
        )
    if not isinstance(message.metadata, dict):
        raise TranscriptTypeError(
            f"a message's metadata must be a dict, not {type(message.metadata).__name__}"
        )
    return message


def check_saveable(message: Message, position: int) -> None:
    """Check that *message* (changed in place since it was added, perhaps) can be written
    and read back: string author and content, JSON-safe dict metadata.

    :raises TranscriptFormatError: naming the message and what is wrong.
    """
    for label, value in (("author", message.author), ("content", message.content)):
        if not isinstance(value, str):
            raise TranscriptFormatError(
                f"message {position} {label} is a {type(value).__name__}, not a string"
            )
        check_text(value, f"message {position} {label}")
    if not isinstance(message.metadata, dict):
        raise TranscriptFormatError(
            f"message {position} metadata is a {type(message.metadata).__name__}, not a dict",
            hint="set message.metadata to a dict",
        )
    check_metadata(message.metadata, f"message {position} metadata")
