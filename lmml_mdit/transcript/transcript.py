"""A conversation record you edit in code: :class:`Message` and :class:`Transcript`.

A transcript is a list of messages organised around their *author* (a name), plus the
assets (name -> bytes) their Markdown content refers to with ``@name``. It stores no roles
for the dialogue: roles come when it is rendered from a point of view (``pov``), where the
pov's own turns take ``self_role`` (``assistant``) and everyone else's take ``others_role``
(``user``). Turns whose role is pinned keep it for every pov: an author (or
``metadata["role"]``) of ``system``, ``tool`` or ``context``.

Writing to and reading from LMML lives in :mod:`lmml_mdit.transcript.lmml`; the JSON file
format (``save``/``load``) lives here.
"""

from __future__ import annotations

import base64
import binascii
import copy as _copy
import json
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Protocol, Union, overload, runtime_checkable

from ..atomic import atomic_write_bytes
from ..bundle.archive import unsafe_reason
from ..chat.template import ChatMessage, detect_template_flags, flatten
from ..errors import (
    ChatTemplateError,
    MessageNotFoundError,
    ReadOnlyTranscriptError,
    TranscriptError,
    TranscriptFormatError,
    TranscriptIndexError,
    TranscriptTypeError,
)
from ..jsonio import load_json, number_text_problem
from ..text import is_unicode

if TYPE_CHECKING:
    from ..bundle.bundle import Bundle
    from .lmml import SourceNarrative

__all__ = [
    "PINNED_ROLES",
    "SCHEMA_VERSION",
    "Message",
    "MessageRef",
    "Pov",
    "Transcript",
    "check_metadata",
    "check_saveable",
]

SCHEMA_VERSION = 1
"""The version :meth:`Transcript.save` writes and the only one :meth:`Transcript.load` reads."""

FORMAT_NAME = "lmml_mdit.transcript"
"""The ``format`` field of a saved transcript file."""

PINNED_ROLES: dict[str, str] = {"system": "system", "tool": "tool", "context": "system"}
"""Roles rendered the same for every pov (``context``, the LMML preamble, renders as system,
as :mod:`lmml_mdit.chat.outgoing` sends it by default)."""

READ_ONLY_HINT = "call .copy() for a mutable transcript"


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
    metadata: dict[str, Any] = field(default_factory=dict)


MessageRef = Union[Message, int]  # noqa: UP007 - a runtime alias on Python 3.10
"""A message position (negatives count from the end) or the :class:`Message` itself."""


@runtime_checkable
class Pov(Protocol):
    """A point of view: a name and the roles its own and the others' turns take."""

    name: str
    self_role: str
    others_role: str


def _pov_roles(pov: object) -> tuple[str, str, str]:
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


def _check_text(text: str, what: str) -> None:
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


def check_metadata(value: Any, path: str = "", depth: int = 0) -> None:
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
        _check_text(value, _where(path))
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
            _check_text(key, f"a key of {_where(path)}")
            check_metadata(item, f"{path}[{key!r}]", depth + 1)
        return
    raise TranscriptFormatError(
        f"{_where(path)} is a {type(value).__name__}, which a JSON round trip would not give back",
        hint="use a list, dict, str, number, bool or None",
    )


def _check_asset(name: object, data: object) -> None:
    if not isinstance(name, str):
        raise TranscriptTypeError(f"an asset name must be a str, not {type(name).__name__}")
    reason = unsafe_reason(name)
    if reason is None and not is_unicode(name):
        reason = "the name holds a lone surrogate, which is not valid Unicode"
    if reason is not None:
        raise TranscriptError(f"unsafe asset name: {reason}", name=name)
    if name == "manifest.json":
        raise TranscriptError(
            "manifest.json is reserved for the transcript's own metadata",
            name=name,
            hint="give the asset another name",
        )
    if not isinstance(data, (bytes, bytearray)):
        raise TranscriptTypeError(f"asset data must be bytes, not {type(data).__name__}", name=name)


def _check_message(message: object) -> Message:
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
        _check_text(value, f"message {position} {label}")
    if not isinstance(message.metadata, dict):
        raise TranscriptFormatError(
            f"message {position} metadata is a {type(message.metadata).__name__}, not a dict",
            hint="set message.metadata to a dict",
        )
    check_metadata(message.metadata, f"message {position} metadata")


def _metadata_arguments(keywords: dict[str, Any]) -> dict[str, Any]:
    """The metadata keyword arguments of append/edit: a ``metadata=`` mapping is merged in
    (so any key can be set), the other keywords override it."""
    explicit = keywords.pop("metadata", None)
    if explicit is None:
        return dict(keywords)
    if not isinstance(explicit, Mapping):
        raise TranscriptTypeError(
            f"metadata= must be a mapping, not {type(explicit).__name__}",
            hint="pass metadata={'key': value} or key=value",
        )
    return {**explicit, **keywords}


class Transcript:
    """An ordered, editable list of :class:`Message` plus the assets they refer to.

    ``len``, iteration, ``t[i]`` (a :class:`Message`) and ``t[i:j]`` (a new
    :class:`Transcript` sharing the messages and copying the assets) work as on a list.
    Two transcripts are equal when their messages and assets are.

    :param messages: the initial messages (held by reference).
    :param assets: name -> bytes for every ``@name`` the contents use.
    """

    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self, messages: Iterable[Message] = (), *, assets: Mapping[str, bytes] | None = None
    ) -> None:
        self._messages: list[Message] = [_check_message(message) for message in messages]
        self._assets: dict[str, bytes] = {}
        for name, data in (assets or {}).items():
            _check_asset(name, data)
            self._assets[name] = bytes(data)
        # Bumped whenever turns are removed, so a with_extra() view can tell its base moved.
        self._generation = 0
        # The narrative from_bundle() read (to write unedited turns back as they were).
        self._source: SourceNarrative | None = None

    # -- reading ---------------------------------------------------------------------

    def _sequence(self) -> Sequence[Message]:
        return self._messages

    def _writable(self, operation: str) -> list[Message]:
        return self._messages

    @property
    def messages(self) -> tuple[Message, ...]:
        """The messages, as a tuple (a snapshot; the Message objects are shared)."""
        return tuple(self._sequence())

    @property
    def assets(self) -> Mapping[str, bytes]:
        """The assets (read-only mapping; change them with :meth:`add_asset` and
        :meth:`remove_asset`)."""
        return MappingProxyType(self._assets)

    @property
    def is_read_only(self) -> bool:
        """Whether this is a read-only :meth:`with_extra` view."""
        return False

    def __len__(self) -> int:
        return len(self._sequence())

    def __iter__(self) -> Iterator[Message]:
        return iter(self._sequence())

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> Transcript: ...

    def __getitem__(self, index: int | slice) -> Message | Transcript:
        if isinstance(index, slice):
            part = Transcript(list(self._sequence())[index], assets=self._assets)
            part._source = self._source  # the messages are shared, so their origins hold
            return part
        return self._sequence()[self.resolve_index(index)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Transcript):
            return NotImplemented
        return (
            len(self) == len(other)
            and all(a == b for a, b in zip(self, other, strict=True))
            and dict(self.assets) == dict(other.assets)
        )

    def __repr__(self) -> str:
        assets = f", assets={sorted(self.assets)!r}" if self.assets else ""
        return f"{type(self).__name__}({list(self)!r}{assets})"

    def __str__(self) -> str:
        """The LMML narrative of the turns (see :meth:`to_lmml`)."""
        return self.to_lmml()

    def resolve_index(self, ref: MessageRef) -> int:
        """The ``[0, len)`` position of *ref*.

        :param ref: an ``int`` (negatives count from the end) or a :class:`Message`, found
            by identity (an equal but distinct message does not match).
        :raises TranscriptTypeError: (a :class:`TypeError`) for anything else, ``bool``
            included.
        :raises TranscriptIndexError: (an :class:`IndexError`) for an int out of range.
        :raises MessageNotFoundError: (a :class:`ValueError`) for a message not in it.
        """
        sequence = self._sequence()
        if isinstance(ref, Message):
            for position, message in enumerate(sequence):
                if message is ref:
                    return position
            raise MessageNotFoundError(
                "message is not in this transcript",
                hint="messages are matched by identity; pass the object itself or its index",
            )
        if isinstance(ref, bool) or not isinstance(ref, int):
            raise TranscriptTypeError(
                f"a message reference must be an int or a Message, not {type(ref).__name__}"
            )
        length = len(sequence)
        position = ref + length if ref < 0 else ref
        if not 0 <= position < length:
            raise TranscriptIndexError(
                f"message index {ref} out of range for transcript of length {length}"
            )
        return position

    def pretty(self, metadata: bool = False) -> str:
        """A debugging dump: one ``[i] author: content`` block per turn.

        Continuation lines of multi-line content are indented under the first. With
        *metadata*, each metadata item follows as ``      · key: value``. Lines are joined
        with ``\\n``; an empty transcript gives ``""``.
        """
        lines: list[str] = []
        for position, message in enumerate(self):
            _check_message(message)  # its fields may have been changed in place
            prefix = f"[{position}] "
            first, *rest = message.content.split("\n")
            lines.append(f"{prefix}{message.author}: {first}")
            lines.extend(" " * len(prefix) + line for line in rest)
            if metadata:
                lines.extend(f"      · {key}: {value}" for key, value in message.metadata.items())
        return "\n".join(lines)

    # -- editing ---------------------------------------------------------------------

    def append(
        self, author: str | None = None, content: str | None = None, /, **metadata: Any
    ) -> Message:
        """Append a turn and return it.

        *author* and *content* may be given by position or by keyword
        (``append(author="alice", content="hi")``). A keyword ``author`` or ``content``
        after both were given by position is a metadata key, as is every other keyword;
        ``metadata={...}`` merges a mapping in, for any key at all.

        :raises ReadOnlyTranscriptError: on a :meth:`with_extra` view (before building
            anything).
        :raises TranscriptTypeError: when *author* or *content* is missing or not a string,
            or ``metadata=`` is not a mapping.
        """
        messages = self._writable("append")
        if author is None and "author" in metadata:
            author = metadata.pop("author")
        if content is None and "content" in metadata:
            content = metadata.pop("content")
        if not isinstance(author, str) or not isinstance(content, str):
            raise TranscriptTypeError(
                f"author and content must be strings, not {type(author).__name__} and "
                f"{type(content).__name__}",
                hint='call append("alice", "text", key=value)',
            )
        message = Message(author, content, _metadata_arguments(metadata))
        messages.append(message)
        return message

    def extend(self, messages: Iterable[Message]) -> Transcript:
        """Append existing :class:`Message` objects (by reference); return ``self``."""
        target = self._writable("extend")
        target.extend(_check_message(message) for message in list(messages))
        return self

    def edit(
        self,
        ref: MessageRef | None = None,
        /,
        content: str | None = None,
        *,
        author: str | None = None,
        drop: Iterable[str] | str = (),
        **metadata: Any,
    ) -> Message:
        """Edit a turn in place and return it.

        Only what is passed changes: *content* and *author* replace the old values when not
        None (``""`` does clear the content); *metadata* keys are merged over the existing
        ones; keys listed in *drop* (a key or an iterable of keys) are removed after the
        merge (an absent key is ignored). *ref* may be given by position or as ``ref=``;
        a ``ref`` keyword after a positional *ref* is a metadata key. ``metadata={...}``
        merges a mapping in, for any key (``content``, ``author`` and ``drop`` included).

        :raises ReadOnlyTranscriptError: on a :meth:`with_extra` view.
        :raises TranscriptTypeError: for a *content* or *author* that is not a string, or
            ``metadata=`` that is not a mapping; see :meth:`resolve_index` for *ref*.
        """
        self._writable("edit")
        if ref is None and "ref" in metadata:
            ref = metadata.pop("ref")
        for label, value in (("content", content), ("author", author)):
            if value is not None and not isinstance(value, str):
                raise TranscriptTypeError(f"{label} must be a string, not {type(value).__name__}")
        if ref is None:
            raise TranscriptTypeError(
                "edit needs the message to edit: an int or a Message", hint="edit(-1, 'text')"
            )
        updates = _metadata_arguments(metadata)
        message = self._sequence()[self.resolve_index(ref)]
        if content is not None:
            message.content = content
        if author is not None:
            message.author = author
        message.metadata.update(updates)
        for key in (drop,) if isinstance(drop, str) else drop:
            message.metadata.pop(key, None)
        return message

    def truncate(self, length: int) -> Transcript:
        """Keep the first *length* turns (a count, clamped to ``[0, len]``; a negative one
        counts from the end, ``-1`` dropping the last turn). Returns ``self``.

        :raises ReadOnlyTranscriptError: on a :meth:`with_extra` view.
        :raises TranscriptTypeError: when *length* is not an int.
        """
        messages = self._writable("truncate")
        if isinstance(length, bool) or not isinstance(length, int):
            raise TranscriptTypeError(f"length must be an int, not {type(length).__name__}")
        if length < 0:
            length = max(0, len(messages) + length)
        if length < len(messages):
            del messages[length:]
            self._generation += 1
        return self

    def rewind(self, *, to: MessageRef) -> Transcript:
        """Make the turn *to* the last one, dropping every turn after it. Returns ``self``.

        :raises ReadOnlyTranscriptError: on a :meth:`with_extra` view.
        """
        self._writable("rewind")
        return self.truncate(self.resolve_index(to) + 1)

    def clear(self) -> Transcript:
        """Drop every turn (assets stay). Returns ``self``.

        :raises ReadOnlyTranscriptError: on a :meth:`with_extra` view.
        """
        messages = self._writable("clear")
        if messages:
            messages.clear()
            self._generation += 1
        return self

    def add_asset(self, name: str, data: bytes) -> None:
        """Add or replace the asset *name*.

        :raises TranscriptError: for an unsafe name or ``manifest.json``.
        :raises ReadOnlyTranscriptError: on a :meth:`with_extra` view.
        """
        self._writable("add_asset")
        _check_asset(name, data)
        self._assets[name] = bytes(data)

    def remove_asset(self, name: str) -> None:
        """Remove the asset *name*.

        :raises KeyError: when there is none.
        :raises ReadOnlyTranscriptError: on a :meth:`with_extra` view.
        """
        self._writable("remove_asset")
        del self._assets[name]

    def copy(self) -> Transcript:
        """A mutable, independent copy: new messages with deep-copied metadata, same assets.

        Works on a :meth:`with_extra` view too. ``t.copy() == t``.
        """
        messages = list(self)
        copied = Transcript(
            [
                Message(message.author, message.content, _copy.deepcopy(message.metadata))
                for message in messages
            ],
            assets=self._assets,
        )
        if self._source is not None:
            copied._source = self._source.renamed(messages, copied._messages)
        return copied

    def with_extra(self, *extra: Message) -> Transcript:
        """A read-only view: this transcript's turns followed by *extra*.

        Costs O(len(extra)): the turns are not copied. The view is a snapshot of the length:
        turns appended to this transcript later do not show in it, and after this transcript
        is truncated or cleared the view refuses to be read (``TranscriptError``). Every
        mutator of the view raises :class:`~lmml_mdit.errors.ReadOnlyTranscriptError`;
        ``copy()`` gives a mutable transcript. A view compares equal to any transcript with
        the same messages and assets.
        """
        return _ExtendedView(self, tuple(_check_message(message) for message in extra))

    # -- rendering -------------------------------------------------------------------

    def render_roles(
        self,
        *,
        pov: str | Pov,
        parts: bool = False,
        fold_system: bool = False,
        merge: bool = False,
        user_first: bool = False,
        label_authors: bool | None = None,
        handlers: Mapping[str, Any] | None = None,
    ) -> list[ChatMessage]:
        """The turns as ``[{"role", "content"}]`` from *pov*'s point of view.

        *pov*'s own turns take its ``self_role`` (``assistant`` for a name string), the
        others' take ``others_role`` (``user``); pinned turns keep their role
        (:data:`PINNED_ROLES`). The flags select the flattening steps of
        :func:`lmml_mdit.chat.template.flatten` for strict templates.

        :param pov: a name, or any object with ``name``, ``self_role`` and ``others_role``.
        :param parts: give each content as a list of content parts, every ``@name`` of a
            carried asset turned into parts by :mod:`lmml_mdit.chat.handlers`.
        :param label_authors: ``None`` labels parts only where a merged run has several
            authors; ``True`` also prefixes every other author's unmerged turn with
            ``"{author}: "``; ``False`` never labels.
        :param handlers: per-call asset handlers for *parts* (see
            :func:`lmml_mdit.chat.handlers.build_parts`).
        :raises TranscriptTypeError: for a *pov* of the wrong shape.
        """
        name, self_role, others_role = _pov_roles(pov)
        rendered: list[ChatMessage] = []
        cache: Any = None
        if parts:
            from ..chat.handlers import Base64Cache
            from .parts import content_parts

            cache = Base64Cache()
        for message in self:
            _check_message(message)  # its fields may have been changed in place
            pinned = pinned_role(message)
            author: str | None = None
            if pinned is not None:
                role = pinned
            elif message.author == name:
                role = self_role
            else:
                role = others_role
                author = message.author
            content: Any = message.content
            if label_authors and author is not None:
                content = f"{author}: {content}"
                author = None
            if parts:
                content = content_parts(content, self.assets, handlers=handlers, cache=cache)
            entry: ChatMessage = {"role": role, "content": content}
            if author is not None and label_authors is not False:
                entry["author"] = author
            rendered.append(entry)
        return flatten(
            rendered,
            fold_system=fold_system,
            merge=merge,
            user_first=user_first,
            label_authors=label_authors is not False,
        )

    def render_templated(
        self,
        *,
        pov: str | Pov,
        tokenizer: Any = None,
        add_generation_prompt: bool = False,
        tokenize: bool = False,
        fold_system: bool | None = None,
        merge: bool | None = None,
        user_first: bool | None = None,
        label_authors: bool | None = None,
        **template_kwargs: Any,
    ) -> Any:
        """Render the turns through a tokenizer's chat template.

        Only ``tokenizer.apply_chat_template`` is needed (any object with it works; nothing
        imports ``transformers``). Flattening flags left as ``None`` are detected from the
        template (:func:`lmml_mdit.chat.template.detect_template_flags`): a template without a
        system role gets *fold_system*, a strict one gets *merge* and *user_first*. Pass
        ``False`` to see the raw role-swapped view.

        :param pov: as for :meth:`render_roles`.
        :param tokenizer: the tokenizer; defaults to ``pov.tokenizer``.
        :param add_generation_prompt: append the template's assistant opening.
        :param tokenize: return token ids instead of a string.
        :param template_kwargs: forwarded to ``apply_chat_template`` (``tools``,
            ``enable_thinking``, ``chat_template``, ...).
        :raises TranscriptTypeError: when there is no tokenizer with ``apply_chat_template``.
        :raises ChatTemplateError: when the template refuses the messages.
        """
        if tokenizer is None:
            tokenizer = getattr(pov, "tokenizer", None)
        apply = getattr(tokenizer, "apply_chat_template", None)
        if not callable(apply):
            raise TranscriptTypeError(
                "render_templated needs a tokenizer: an object with apply_chat_template",
                hint="pass tokenizer=AutoTokenizer.from_pretrained(...) or a pov with .tokenizer",
            )
        if fold_system is None or merge is None or user_first is None:
            flags = detect_template_flags(
                tokenizer, render=lambda view, **kw: apply(view, **kw, **template_kwargs)
            )
            if fold_system is None:
                fold_system = not flags.supports_system_role
            if merge is None:
                merge = flags.requires_alternating_roles
            if user_first is None:
                user_first = flags.requires_alternating_roles
        view = self.render_roles(
            pov=pov,
            fold_system=fold_system,
            merge=merge,
            user_first=user_first,
            label_authors=label_authors,
        )
        try:
            return apply(
                view,
                tokenize=tokenize,
                add_generation_prompt=add_generation_prompt,
                **template_kwargs,
            )
        except Exception as error:
            raise ChatTemplateError(
                f"the chat template refused the view: {error}",
                hint="pass merge=True, user_first=True or fold_system=True (or leave them "
                "None to detect them)",
            ) from error

    # -- JSON files ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON form :meth:`save` writes (metadata deep-copied, assets base64).

        :raises TranscriptFormatError: for metadata JSON cannot hold losslessly.
        """
        messages = []
        for position, message in enumerate(self):
            check_saveable(message, position)
            messages.append(
                {
                    "author": message.author,
                    "content": message.content,
                    "metadata": _copy.deepcopy(message.metadata),
                }
            )
        return {
            "format": FORMAT_NAME,
            "schema_version": SCHEMA_VERSION,
            "messages": messages,
            "assets": {
                name: base64.b64encode(data).decode("ascii") for name, data in self._assets.items()
            },
        }

    @classmethod
    def from_dict(cls, data: Any, *, name: str | None = None) -> Transcript:
        """Build a transcript from its JSON form, checking version and shape.

        :param name: the file name, for error messages.
        :raises TranscriptFormatError: for a wrong version, a missing or extra key, or a
            value of the wrong type.
        """
        return _from_dict(cls, data, name)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the transcript as UTF-8 JSON (:meth:`to_dict`), atomically.

        A path ending in ``.lmml`` or ``.lmmlz`` writes LMML instead (see
        :meth:`save_lmml`).

        :raises TranscriptFormatError: for metadata JSON cannot hold losslessly; nothing is
            written then.
        :raises WriteError: (an :class:`OSError`) when *path* is not a regular file or the
            folder cannot be written; the old file is unchanged.
        """
        if os.fspath(path).endswith((".lmml", ".lmmlz")):
            self.save_lmml(path)
            return
        text = json.dumps(self.to_dict(), ensure_ascii=False, indent=2, allow_nan=False)
        atomic_write_bytes(path, (text + "\n").encode("utf-8"))

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        base_dir: str | os.PathLike[str] | Literal[False] | None = None,
    ) -> Transcript:
        """Read a transcript :meth:`save` wrote (JSON), or an ``.lmml``/``.lmmlz`` bundle.

        :param base_dir: the folder a ``.lmml``'s references resolve against: by default
            the file's own folder (its files become assets); ``False`` for none.
        :raises TranscriptError: when the file cannot be read.
        :raises TranscriptFormatError: when it is not UTF-8 JSON of this format and version.
        """
        name = os.fspath(path)
        if name.endswith((".lmml", ".lmmlz")):
            from .lmml import load_lmml

            return load_lmml(path, base_dir=base_dir)
        try:
            with open(path, "rb") as stream:
                raw = stream.read()
        except OSError as error:
            raise TranscriptError(
                f"cannot read the transcript: {error.strerror or error}", name=name
            ) from None
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise TranscriptFormatError(
                f"invalid UTF-8 at byte offset {error.start}",
                name=name,
                line=raw.count(b"\n", 0, error.start) + 1,
                hint="save transcripts with Transcript.save",
            ) from None
        data = load_json(
            text,
            error_class=TranscriptFormatError,
            name=name,
            subject="the transcript",
            hint="save transcripts with Transcript.save",
            lone_surrogates=True,  # refused later, naming their place
        )
        return _from_dict(cls, data, name)

    # -- LMML ------------------------------------------------------------------------

    @classmethod
    def from_bundle(cls, bundle: Bundle) -> Transcript:
        """Read a bundle's turns as messages (see :mod:`lmml_mdit.transcript.lmml`).

        The transcript remembers the narrative, so that :meth:`to_bundle` and :meth:`save`
        write unedited turns back byte for byte.
        """
        from .lmml import transcript_from_bundle

        return transcript_from_bundle(bundle)

    def to_bundle(
        self,
        name: str | None = None,
        *,
        kind: Literal["zip", "text"] | None = None,
        pov: str | Pov | None = None,
    ) -> Bundle:
        """Write the transcript as a bundle that :meth:`from_bundle` reads back equal.

        A transcript read with :meth:`from_bundle` is written back as it was read (same
        kind): unedited turns as their own lines, the manifest and other entries as they
        were; edited turns are rewritten and new ones follow the file's delimiter style.

        :param name: the bundle name (``session``); defaults to the name of the bundle it
            was read from.
        :param kind: ``"zip"`` (assets as entries, for ``.lmmlz``) or ``"text"`` (assets as
            inline fences, for ``.lmml``); defaults to the kind it was read from, else zip.
        :param pov: gives named authors without ``metadata["role"]`` their heading role
            (its own turns ``assistant``); without it they are ``user`` turns.
        :raises TranscriptFormatError: for metadata JSON cannot hold losslessly.
        :raises NotInlinableError: (text) for an asset a fence cannot hold exactly.
        """
        from .lmml import transcript_to_bundle

        return transcript_to_bundle(self, name, kind=kind, pov=pov)

    def to_lmml(self) -> str:
        """The LMML narrative of the turns: headings and contents, no manifest, no assets."""
        from .lmml import narrative_text

        return narrative_text(self)

    def save_lmml(self, path: str | os.PathLike[str]) -> None:
        """Save as ``.lmmlz`` (a zip bundle) or ``.lmml`` (text; assets as inline fences).

        :raises TranscriptError: for another extension.
        """
        from .lmml import save_lmml

        save_lmml(self, path)


class _ExtendedView(Transcript):
    """The read-only result of :meth:`Transcript.with_extra`."""

    def __init__(self, base: Transcript, extra: tuple[Message, ...]) -> None:
        # No super().__init__: nothing is copied.
        self._base = base
        self._base_length = len(base)
        self._base_generation = base._generation
        self._extra = extra
        self._messages = []
        self._assets = base._assets
        self._generation = 0
        # The base's turns are shared: unedited ones are written back as they were read.
        self._source = base._source

    def _check_base(self) -> None:
        if self._base._generation != self._base_generation:
            raise TranscriptError(
                "the transcript this with_extra() view extends lost turns after the view was made",
                hint="call with_extra() again on the transcript as it is now",
            )

    def _sequence(self) -> Sequence[Message]:
        self._check_base()
        return _Concat(self._base, self._base_length, self._extra)

    def _writable(self, operation: str) -> list[Message]:
        raise ReadOnlyTranscriptError(
            f"cannot {operation}: this is a read-only with_extra() view", hint=READ_ONLY_HINT
        )

    @property
    def is_read_only(self) -> bool:
        return True


class _Concat(Sequence[Message]):
    """``base[:length] + extra`` without copying *base*."""

    def __init__(self, base: Transcript, length: int, extra: tuple[Message, ...]) -> None:
        self._base = base
        self._length = length
        self._extra = extra

    def __len__(self) -> int:
        return self._length + len(self._extra)

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...

    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise TranscriptIndexError(
                f"message index {index} out of range for transcript of length {len(self)}"
            )
        if index < self._length:
            return self._base._sequence()[index]
        return self._extra[index - self._length]

    def __iter__(self) -> Iterator[Message]:
        base = self._base._sequence()
        for index in range(self._length):
            yield base[index]
        yield from self._extra


_MESSAGE_KEYS = frozenset({"author", "content", "metadata"})
_TOP_KEYS = frozenset({"format", "schema_version", "messages", "assets"})


def _from_dict(cls: type[Transcript], data: Any, name: str | None) -> Transcript:
    def fail(message: str) -> TranscriptFormatError:
        return TranscriptFormatError(
            message, name=name, hint="save transcripts with Transcript.save"
        )

    if not isinstance(data, dict):
        raise fail(f"a transcript file holds a JSON object, not {type(data).__name__}")
    version = data.get("schema_version")
    if version is None:
        raise fail("the transcript has no schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise fail(f"schema_version must be an integer, not {version!r}")
    if version != SCHEMA_VERSION:
        raise TranscriptFormatError(
            f"transcript schema_version {version} is not supported (this lmml_mdit reads "
            f"{SCHEMA_VERSION})",
            name=name,
            hint="upgrade lmml_mdit" if version > SCHEMA_VERSION else "re-save it",
        )
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise fail(f"unknown top-level keys: {', '.join(sorted(unknown))}")
    if data.get("format", FORMAT_NAME) != FORMAT_NAME:
        raise fail(f"format is {data['format']!r}, not {FORMAT_NAME!r}")
    raw_messages = data.get("messages")
    if not isinstance(raw_messages, list):
        raise fail("the transcript has no messages list")
    messages: list[Message] = []
    for position, raw in enumerate(raw_messages):
        if not isinstance(raw, dict):
            raise fail(f"message {position} is not an object")
        missing = _MESSAGE_KEYS - set(raw)
        if missing:
            raise fail(f"message {position} lacks {', '.join(sorted(missing))}")
        extra = set(raw) - _MESSAGE_KEYS
        if extra:
            raise fail(f"message {position} has unknown keys: {', '.join(sorted(extra))}")
        author, content, metadata = raw["author"], raw["content"], raw["metadata"]
        if not isinstance(author, str) or not isinstance(content, str):
            raise fail(f"message {position}: author and content must be strings")
        if not isinstance(metadata, dict):
            raise fail(f"message {position}: metadata must be an object")
        try:
            # NaN, Infinity and lone surrogates ("\\udcff") parse (Python's json accepts
            # them) but would not save again.
            _check_text(author, f"message {position} author")
            _check_text(content, f"message {position} content")
            check_metadata(metadata, f"message {position} metadata")
        except TranscriptFormatError as error:
            raise fail(error.message) from None
        messages.append(Message(author, content, _copy.deepcopy(metadata)))
    raw_assets = data.get("assets", {})
    if not isinstance(raw_assets, dict):
        raise fail("assets must be an object of name -> base64")
    assets: dict[str, bytes] = {}
    for asset_name, encoded in raw_assets.items():
        if not isinstance(encoded, str):
            raise fail(f"asset {asset_name!r} is not a base64 string")
        try:
            assets[asset_name] = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise fail(f"asset {asset_name!r} is not valid base64") from None
    try:
        return cls(messages, assets=assets)
    except TranscriptError as error:
        raise fail(error.message) from None
