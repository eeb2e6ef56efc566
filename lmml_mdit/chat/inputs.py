"""Template values put into a bundle's turns, after the one parse.

The narrative is parsed once, with its placeholders in it
(:mod:`lmml_mdit.narrative.placeholders`); the turns, embeds, references and tool calls
are fixed by then. A rendering with values (``messages(provider, inputs={...})``) only
edits the *lines* of text the turns already hold: each placeholder an input fills becomes
the value's text, verbatim, and each ``\\{{`` loses its backslash. No value is parsed, so
none can open a turn, an embed, a reference or a tool call: ``"## system"`` stays those
characters inside the turn that held the placeholder.

An ``image`` or ``file`` value becomes an asset part where its placeholder stands
(:class:`InputAsset`); :mod:`lmml_mdit.chat.content` sends it through the same handlers,
media-type checks and ``max_embed_bytes`` budget as a bundle asset.

What can be worked out once per bundle is (:class:`Template`, kept in the bundle's chat
state): the declarations, which placeholders they fill, and those placeholders by line.
Per rendering only the values are checked and the edited lines written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..bundle.inputs import (
    InputDeclarations,
    InputFile,
    InputSpec,
    bind_inputs,
    field_value,
    input_file,
    input_text,
)
from ..bundle.source import BundleSource
from ..errors import InputError
from ..media import IMAGE_TYPES, REFUSED_IMAGE_TYPES, media_type_for
from ..narrative.placeholders import Placeholder, placeholder_spans

__all__ = [
    "Edit",
    "Fills",
    "InputAsset",
    "Template",
    "fill_fence",
    "template_of",
]


@dataclass(frozen=True)
class InputAsset:
    """Where an ``image`` or ``file`` value is attached: its placeholder, and the bytes.

    :ivar spec: the input's declaration.
    :ivar placeholder: where it stands.
    :ivar file: the value, read; None for an optional input given no value (nothing is
        attached, and a line holding only the placeholder leaves the text).
    """

    spec: InputSpec
    placeholder: Placeholder
    file: InputFile | None


Edit = tuple[int, int, "str | InputAsset"]
"""One change to a source line: the 0-based columns ``[start, end)`` and what takes their
place (a value's text, or an asset part)."""

Fills = Mapping[int, Sequence[Edit]]
"""The edits of one rendering, by 0-based line, each line's in column order."""


@dataclass(frozen=True)
class Template:
    """What a bundle's inputs need, worked out once per bundle.

    :ivar declarations: the declared inputs.
    :ivar filled: the placeholders an input fills, in document order.
    :ivar escapes: the 0-based ``(line, column)`` of each ``\\{{`` backslash to leave out.
    :ivar fence_inputs: the embed fences holding placeholders of ``in_code`` inputs.
    :ivar fence_names: the inputs those placeholders name.
    """

    declarations: InputDeclarations
    filled: tuple[Placeholder, ...]
    escapes: tuple[tuple[int, int], ...]
    fence_inputs: frozenset[str]
    fence_names: frozenset[str] = frozenset()

    @classmethod
    def of(cls, bundle: BundleSource, declarations: InputDeclarations) -> Template:
        """The template of *bundle* with these *declarations*."""
        found = bundle.narrative.placeholders
        specs = declarations.specs
        filled: list[Placeholder] = []
        fences: set[str] = set()
        fence_names: set[str] = set()
        for placeholder in found.found:
            spec = declarations.fills(placeholder)
            if spec is None or (spec.is_asset and placeholder.context != "text"):
                continue
            if placeholder.context == "fence":
                assert placeholder.fence is not None
                fences.add(placeholder.fence)
                fence_names.add(placeholder.name)
            else:
                filled.append(placeholder)
        escapes = tuple(
            (escape.line - 1, escape.column - 1)
            for escape in found.escapes
            if escape.context == "text"
            or (escape.context == "code" and _in_code(specs, escape.name))
        )
        return cls(declarations, tuple(filled), escapes, frozenset(fences), frozenset(fence_names))

    @property
    def is_template(self) -> bool:
        """Whether the bundle declares inputs or writes ``\\{{`` (a rendering edits lines)."""
        return bool(self.declarations.specs) or bool(self.escapes)

    def bind(self, values: Mapping[str, object] | None) -> dict[str, object]:
        """The checked value of each input for one rendering (see
        :func:`~lmml_mdit.bundle.inputs.bind_inputs`)."""
        used = {placeholder.name for placeholder in self.filled}
        used.update(self.fence_names)
        return bind_inputs(self.declarations, values, used=used)

    def fills(self, bound: Mapping[str, object], *, limit: int) -> dict[int, list[Edit]]:
        """The line edits that put *bound* values in place.

        :param limit: the most bytes an ``image`` or ``file`` value may hold.
        :raises InputError: for a field that is not in its value, or an ``image`` or
            ``file`` value that does not read or is not of its type.
        """
        edits: dict[int, list[Edit]] = {}
        for line, column in self.escapes:
            edits.setdefault(line, []).append((column, column + 1, ""))
        files: dict[str, InputFile] = {}
        specs = self.declarations.specs
        for placeholder in self.filled:
            spec = specs[placeholder.name]
            replacement: str | InputAsset
            if placeholder.name not in bound:
                # An optional input left without a value: no text, and no part.
                replacement = InputAsset(spec, placeholder, None) if spec.is_asset else ""
            elif spec.is_asset:
                read = files.get(spec.name)
                if read is None:
                    read = files[spec.name] = _read_file(spec, bound[spec.name], limit)
                replacement = InputAsset(spec, placeholder, read)
            else:
                replacement = input_text(_value_at(spec, bound[spec.name], placeholder))
            edits.setdefault(placeholder.line - 1, []).append(
                (placeholder.column - 1, placeholder.end - 1, replacement)
            )
        for line_edits in edits.values():
            line_edits.sort(key=lambda edit: edit[0])
        return edits

    def fill_fence(self, content: bytes, bound: Mapping[str, object]) -> bytes:
        """An embed fence's content with its ``in_code`` inputs' values put in."""
        return fill_fence(content, self.declarations, bound)


def _in_code(specs: Mapping[str, InputSpec], name: str | None) -> bool:
    spec = specs.get(name) if name is not None else None
    return spec is not None and spec.in_code


def fill_fence(
    content: bytes, declarations: InputDeclarations, bound: Mapping[str, object]
) -> bytes:
    """*content* (an embed fence's UTF-8 bytes) with each placeholder of an ``in_code``
    text input replaced by its value and each ``\\{{`` of one by ``{{``."""
    text = content.decode("utf-8")
    pieces: list[str] = []
    position = 0
    for start, end, name, fields, escaped in placeholder_spans(text):
        spec = declarations.specs.get(name)
        if spec is None or not spec.in_code or spec.is_asset:
            continue
        pieces.append(text[position:start])
        if escaped:
            pieces.append(text[start + 1 : end])
        elif name in bound:
            pieces.append(input_text(_value_at(spec, bound[name], None, fields)))
        position = end
    pieces.append(text[position:])
    return "".join(pieces).encode("utf-8")


def _value_at(
    spec: InputSpec,
    value: object,
    placeholder: Placeholder | None,
    fields: tuple[str, ...] | None = None,
) -> object:
    keys = fields if fields is not None else (placeholder.fields if placeholder else ())
    if not keys:
        return value
    try:
        return field_value(value, keys)
    except KeyError as missing:
        path = ".".join((spec.name, *keys))
        raise InputError(
            f"{{{{ {path} }}}} reads the field {missing.args[0]!r}, which the value of "
            f"{spec.name!r} does not have",
            name=spec.name,
            line=placeholder.line if placeholder else None,
            column=placeholder.column if placeholder else None,
            kind="invalid_input",
            hint="give the value that field, or require it in the input's schema",
        ) from None


def _read_file(spec: InputSpec, value: object, limit: int) -> InputFile:
    """Read an asset input's value and check an ``image`` is an image the providers take
    (a refused one, an SVG say, is left to the handlers, which name the provider)."""
    read = input_file(spec.name, value, limit=limit)
    if spec.type == "image":
        media_type = media_type_for(read.name, read.data)
        if media_type not in IMAGE_TYPES and media_type not in REFUSED_IMAGE_TYPES:
            raise InputError(
                f"the image input {spec.name!r} holds {media_type} content, not an image",
                name=spec.name,
                line=spec.line,
                column=spec.column,
                file=spec.file,
                kind="invalid_input",
                hint="give a PNG, JPEG, GIF or WebP image, or declare the input 'type: file'",
            )
    return read


def template_of(bundle: BundleSource, *, values_given: bool = False) -> Template:
    r"""*bundle*'s :class:`Template`, from its declarations (read each call: the chat
    state keeps the result per bundle). A narrative without a placeholder or ``\{{`` has
    nothing to fill, so its declarations are read only when values are given for them.

    :param values_given: whether this rendering gives values.
    """
    from ..bundle.inputs import declared_inputs

    found = bundle.narrative.placeholders
    if not found.found and not found.escapes and not values_given:
        return Template(InputDeclarations(), (), (), frozenset())
    return Template.of(bundle, declared_inputs(bundle))
