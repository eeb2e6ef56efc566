"""A conversation record you edit in code: :class:`Transcript`.

Messages organised around their *author*, plus the assets their content refers to; roles
come only when it is rendered from a point of view (``pov``). The class holds and edits the
messages; rendering (:class:`~lmml_mdit.transcript.Renderable`), the JSON file
format and LMML reading and writing live in modules of their own. See docs/transcript.md.
"""

from __future__ import annotations

import copy as _copy
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, overload

from ..chat import DEFAULT_PROVIDER
from ..errors import (
    LmmlError,
    MessageNotFoundError,
    ReadOnlyTranscriptError,
    TranscriptError,
    TranscriptIndexError,
    TranscriptTypeError,
)
from ..formats import BUNDLE_SUFFIXES
from ..jsontypes import JSONObject
from . import _jsonfile, _reading, _writing
from ._message import Message, MessageRef, Pov, check_asset, check_message
from ._rendering import Renderable
from ._source import SourceNarrative

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..bundle import Bundle
    from ..run import AsyncReplyStream, Reply, ReplyStream, SendOptions, StreamOptions

__all__ = ["Transcript"]

READ_ONLY_HINT = "call .copy() for a mutable transcript"


def _metadata_arguments(keywords: dict[str, object]) -> JSONObject:
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


class Transcript(Renderable):
    """An ordered, editable list of :class:`Message` plus the assets they refer to.

    ``len``, iteration, ``t[i]`` (a :class:`Message`) and ``t[i:j]`` (a new
    :class:`Transcript` sharing the messages and copying the assets) work as on a list.
    Two transcripts are equal when their messages and assets are.

    Rendering from a point of view (:meth:`render_roles`, :meth:`render_templated`) comes
    from :class:`~lmml_mdit.transcript.Renderable`.

    :param messages: the initial messages (held by reference).
    :param assets: name -> bytes for every ``@name`` the contents use.
    """

    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self, messages: Iterable[Message] = (), *, assets: Mapping[str, bytes] | None = None
    ) -> None:
        self._messages: list[Message] = [check_message(message) for message in messages]
        self._assets: dict[str, bytes] = {}
        for name, data in (assets or {}).items():
            check_asset(name, data)
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
        return self._position(ref)

    def _position(self, ref: object) -> int:
        """:meth:`resolve_index` for any object (a keyword argument, say): the checks
        refuse what is not a :class:`MessageRef`."""
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
            check_message(message)  # its fields may have been changed in place
            prefix = f"[{position}] "
            first, *rest = message.content.split("\n")
            lines.append(f"{prefix}{message.author}: {first}")
            lines.extend(" " * len(prefix) + line for line in rest)
            if metadata:
                lines.extend(f"      · {key}: {value}" for key, value in message.metadata.items())
        return "\n".join(lines)

    # -- editing ---------------------------------------------------------------------

    def append(
        self, author: str | None = None, content: str | None = None, /, **metadata: object
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
        given_author: object = author
        given_content: object = content
        if author is None and "author" in metadata:
            given_author = metadata.pop("author")
        if content is None and "content" in metadata:
            given_content = metadata.pop("content")
        if not isinstance(given_author, str) or not isinstance(given_content, str):
            raise TranscriptTypeError(
                f"author and content must be strings, not {type(given_author).__name__} and "
                f"{type(given_content).__name__}",
                hint='call append("alice", "text", key=value)',
            )
        message = Message(given_author, given_content, _metadata_arguments(metadata))
        messages.append(message)
        return message

    def extend(self, messages: Iterable[Message]) -> Transcript:
        """Append existing :class:`Message` objects (by reference); return ``self``."""
        target = self._writable("extend")
        target.extend(check_message(message) for message in list(messages))
        return self

    def edit(
        self,
        ref: MessageRef | None = None,
        /,
        content: str | None = None,
        *,
        author: str | None = None,
        drop: Iterable[str] | str = (),
        **metadata: object,
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
        given_ref: object = ref
        if ref is None and "ref" in metadata:
            given_ref = metadata.pop("ref")
        for label, value in (("content", content), ("author", author)):
            if value is not None and not isinstance(value, str):
                raise TranscriptTypeError(f"{label} must be a string, not {type(value).__name__}")
        if given_ref is None:
            raise TranscriptTypeError(
                "edit needs the message to edit: an int or a Message", hint="edit(-1, 'text')"
            )
        updates = _metadata_arguments(metadata)
        message = self._sequence()[self._position(given_ref)]
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
        check_asset(name, data)
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
        return _ExtendedView(self, tuple(check_message(message) for message in extra))

    # -- JSON files ------------------------------------------------------------------

    def to_dict(self) -> JSONObject:
        """The JSON form :meth:`save` writes (metadata deep-copied, assets base64; see
        :mod:`lmml_mdit.transcript._jsonfile`).

        :raises TranscriptFormatError: for metadata JSON cannot hold losslessly.
        """
        return _jsonfile.dump_data(self, self._assets)

    @classmethod
    def from_dict(cls, data: object, *, name: str | None = None) -> Transcript:
        """Build a transcript from its JSON form, checking version and shape.

        :param name: the file name, for error messages.
        :raises TranscriptFormatError: for a wrong version, a missing or extra key, or a
            value of the wrong type.
        """
        messages, assets = _jsonfile.load_data(data, name)
        return cls(messages, assets=assets)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the transcript as UTF-8 JSON (:meth:`to_dict`), atomically.

        A path ending in ``.lmml`` or ``.lmmlz`` writes LMML instead (see
        :meth:`save_lmml`).

        :raises TranscriptFormatError: for metadata JSON cannot hold losslessly; nothing is
            written then.
        :raises WriteError: (an :class:`OSError`) when *path* is not a regular file or the
            folder cannot be written; the old file is unchanged.
        """
        if os.fspath(path).endswith(BUNDLE_SUFFIXES):
            self.save_lmml(path)
            return
        _jsonfile.write_file(path, self.to_dict())

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        base_dir: str | os.PathLike[str] | Literal[False] | None = None,
    ) -> Transcript:
        """Read a transcript :meth:`save` wrote (JSON), or an ``.lmml``/``.lmmlz`` bundle
        (whose near-miss delimiters warn, as :meth:`from_bundle` says).

        :param base_dir: the folder a ``.lmml``'s references resolve against: by default
            the file's own folder (its files become assets); ``False`` for none.
        :raises TranscriptError: when the file cannot be read.
        :raises TranscriptFormatError: when it is not UTF-8 JSON of this format and version.
        """
        if os.fspath(path).endswith(BUNDLE_SUFFIXES):
            return cls._from_contents(_reading.read_file(path, base_dir=base_dir))
        messages, assets = _jsonfile.read_file(path)
        return cls(messages, assets=assets)

    # -- LMML ------------------------------------------------------------------------

    @classmethod
    def from_bundle(
        cls, bundle: Bundle, *, inputs: Mapping[str, object] | None = None
    ) -> Transcript:
        """Read a bundle's turns as messages (see :mod:`lmml_mdit.transcript._reading`).

        The transcript remembers the narrative, so that :meth:`to_bundle` and :meth:`save`
        write unedited turns back byte for byte.

        A template's values (see :doc:`/templates`) are written into the messages as
        escaped text (an ``image`` or ``file`` one as an asset referenced where its
        placeholder stood; :func:`lmml_mdit.templates.filled_bundle`); the transcript then
        remembers the filled narrative.

        A near-miss delimiter (``**Assistant:**`` on a line of its own) warns a
        :class:`~lmml_mdit.DefectWarning`, as every send does: the turn it was meant to
        open is read as part of the message before it.

        :raises InputError: for values :meth:`Bundle.messages` would refuse.
        :raises TranscriptTypeError: when *bundle* is not a :class:`~lmml_mdit.Bundle`.

        :raises TranscriptFormatError: for a malformed transcript record in ``manifest.json``.
        :raises InvalidManifestError: when ``manifest.json`` is not a JSON object.
        """
        from ..bundle import Bundle
        from ..templates import filled_bundle

        if not isinstance(bundle, Bundle):
            raise TranscriptTypeError(
                f"from_bundle needs a Bundle, not {type(bundle).__name__}",
                hint="open a file with lmml_mdit.open(path), or use Transcript.load(path)",
            )
        bundle.warn_defects()  # a near-miss delimiter: the turn meant is read into another
        return cls._from_contents(_reading.read_bundle(filled_bundle(bundle, inputs)))

    @classmethod
    def _from_contents(cls, contents: _reading.TranscriptContents) -> Transcript:
        transcript = cls(contents.messages, assets=contents.assets)
        transcript._source = contents.source
        return transcript

    def to_bundle(
        self,
        name: str | None = None,
        *,
        kind: Literal["zip", "text"] | None = None,
        pov: str | Pov | None = None,
    ) -> Bundle:
        """Write the transcript as a bundle that :meth:`from_bundle` reads back equal (see
        :mod:`lmml_mdit.transcript._writing`).

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
        :raises TranscriptTypeError: for a *name* that is not a string.
        """
        return _writing.write_bundle(
            list(self), self.assets, name, source=self._source, kind=kind, pov=pov
        )

    def send(self, provider: str = DEFAULT_PROVIDER, **options: Unpack[SendOptions]) -> Reply:
        """Send the transcript (as :meth:`to_bundle` writes it) through the provider's SDK,
        append the reply and any tool turns, and return the
        :class:`~lmml_mdit.run.Reply`; takes :meth:`Bundle.send
        <lmml_mdit.bundle.Bundle.send>`'s options (see :doc:`/run`).

        :raises ReadOnlyTranscriptError: on a :meth:`with_extra` view, before anything is
            sent (the reply could not be appended).
        """
        self._writable("send")
        from ..run import send_transcript  # imported here: running sits above

        return send_transcript(self, provider, **options)

    async def asend(
        self, provider: str = DEFAULT_PROVIDER, **options: Unpack[SendOptions]
    ) -> Reply:
        """:meth:`send` with the SDK's asyncio client."""
        self._writable("asend")
        from ..run import asend_transcript  # imported here: running sits above

        return await asend_transcript(self, provider, **options)

    def stream(
        self, provider: str = DEFAULT_PROVIDER, **options: Unpack[StreamOptions]
    ) -> ReplyStream:
        """:meth:`send` read live (see :meth:`Bundle.stream
        <lmml_mdit.bundle.Bundle.stream>`): the reply and any tool turns are appended
        when the stream ends, not when it is abandoned or fails."""
        self._writable("stream")
        from ..run import stream_transcript  # imported here: running sits above

        return stream_transcript(self, provider, **options)

    def astream(
        self, provider: str = DEFAULT_PROVIDER, **options: Unpack[StreamOptions]
    ) -> AsyncReplyStream:
        """:meth:`stream` with the SDK's asyncio client."""
        self._writable("astream")
        from ..run import astream_transcript  # imported here: running sits above

        return astream_transcript(self, provider, **options)

    def _repr_html_(self) -> str | None:
        """The notebook view: the preview's turn cards of :meth:`to_bundle` (None, so the
        notebook shows the text form instead, when the transcript cannot be written)."""
        from ..preview import render_html

        try:
            return render_html(self.to_bundle(), fragment=True)
        except LmmlError:
            return None

    def _repr_markdown_(self) -> str | None:
        """The notebook's Markdown view of :meth:`to_bundle` (see
        :func:`lmml_mdit.preview.display_markdown`), or None as for HTML."""
        from ..preview import display_markdown

        try:
            return display_markdown(self.to_bundle())
        except LmmlError:
            return None

    def to_lmml(self) -> str:
        """The LMML narrative of the turns: headings and contents, no manifest, no assets."""
        return _writing.narrative_text(list(self), self.assets)

    def save_lmml(self, path: str | os.PathLike[str]) -> None:
        """Save as ``.lmmlz`` (a zip bundle) or ``.lmml`` (text; assets as inline fences).

        :raises TranscriptError: for another extension.
        """
        _writing.save_file(list(self), self.assets, path, source=self._source)


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
