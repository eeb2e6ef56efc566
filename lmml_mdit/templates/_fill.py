"""Template values put into a bundle's turns, after the one parse.

A rendering with values only edits the lines of text the turns already hold: a filled
placeholder becomes the value's text, verbatim, so no value can open a turn, an embed or
a reference. ``image``/``file`` values become :class:`InputAsset` parts, ``messages``
values :class:`InputMessages` turns; what is fixed per bundle is kept in a
:class:`Template`. See docs/templates.md.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

from ..bundle import Bundle, BundleContents, Limits
from ..errors import InputError
from ..media import IMAGE_TYPES, REFUSED_IMAGE_TYPES, media_type_for
from ..narrative import Placeholder, placeholder_spans
from ._declarations import InputDeclarations, InputSpec, declared_inputs
from ._issues import misplaced_messages, stranded_in_code, structure_fence
from ._values import InputFile, bind_inputs, field_value, input_file, input_text

__all__ = [
    "Edit",
    "Fills",
    "InputAsset",
    "InputMessages",
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

    @property
    def given(self) -> bool:
        """Whether the input has a value (an optional one may have none)."""
        return self.file is not None


@dataclass(frozen=True)
class InputMessages:
    """Where a ``messages`` value's turns go: its placeholder, and the conversation.

    :ivar spec: the input's declaration.
    :ivar placeholder: where it stands (alone on its line, at the top level).
    :ivar bundle: the conversation as a bundle of its own; None for an optional input given
        no value (nothing is put in, and the line leaves the text).
    """

    spec: InputSpec
    placeholder: Placeholder
    bundle: Bundle | None

    @property
    def given(self) -> bool:
        """Whether the input has a value (an optional one may have none)."""
        return self.bundle is not None


Edit = tuple[int, int, "str | InputAsset | InputMessages"]
"""One change to a source line: the 0-based columns ``[start, end)`` and what takes their
place (a value's text, or an asset part)."""

Fills = Mapping[int, "str | Sequence[Edit]"]
"""What one rendering makes of each edited line, by 0-based line: its finished text, or its
edits in column order (a line with an asset value, which cuts the text there)."""


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
    lines: tuple[str, ...] = field(default=(), repr=False)
    lmml_escapes: Mapping[int, Sequence[int]] = field(default_factory=dict, repr=False)
    roles: frozenset[str] = frozenset()
    """The roles of the template's own turns (what a ``messages`` input takes by default)."""
    stranded: tuple[tuple[Placeholder, str], ...] = ()
    """The placeholders of ``in_code`` inputs in a fence read as structure (the settings, a
    tool call, a provider item), with what reads it: no value can go there, so a rendering
    refuses (:meth:`bind`)."""

    @classmethod
    def of(cls, bundle: BundleContents, declarations: InputDeclarations) -> Template:
        """The template of *bundle* with these *declarations*."""
        found = declarations.placeholders(bundle.narrative.placeholders)
        specs = declarations.specs
        filled: list[Placeholder] = []
        fences: set[str] = set()
        fence_names: set[str] = set()
        stranded: list[tuple[Placeholder, str]] = []
        narrative = bundle.narrative
        for placeholder in found.found:
            spec = declarations.fills(placeholder)
            if spec is None or (spec.is_part and placeholder.context != "text"):
                continue
            what = structure_fence(narrative, placeholder)
            if what is not None:
                stranded.append((placeholder, what))
            elif placeholder.context == "fence":
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
        return cls(
            declarations,
            tuple(filled),
            escapes,
            frozenset(fences),
            frozenset(fence_names),
            lines=tuple(narrative.lines) if filled or escapes else (),
            lmml_escapes=narrative.escape_columns,
            roles=frozenset(turn.role for turn in narrative.turns),
            stranded=tuple(stranded),
        )

    @property
    def is_template(self) -> bool:
        """Whether the bundle declares inputs or writes ``\\{{`` (a rendering edits lines)."""
        return bool(self.declarations.specs) or bool(self.escapes)

    def bind(self, values: Mapping[str, object] | None) -> dict[str, object]:
        """The checked value of each input for one rendering (see
        :func:`~lmml_mdit.templates.bind_inputs`).

        :raises InputError: also for an ``in_code`` placeholder in a fence read as
            structure (:attr:`stranded`), which no value can reach.
        """
        if self.stranded:
            placeholder, what = self.stranded[0]
            raise InputError(
                stranded_in_code(placeholder.name, placeholder, what),
                name=placeholder.name,
                line=placeholder.line,
                column=placeholder.column,
                kind="invalid_input",
                hint="move {{ " + placeholder.path + " }} into the turn's text, or write the "
                "value into the fence",
            )
        return bind_inputs(self.declarations, values, used=self.used)

    @functools.cached_property
    def used(self) -> frozenset[str]:
        """The inputs a placeholder this template fills names."""
        return frozenset(placeholder.name for placeholder in self.filled) | self.fence_names

    @functools.cached_property
    def _text_lines(self) -> dict[int, tuple[str | tuple[InputSpec, Placeholder], ...]]:
        """Each edited line that holds no asset input, compiled once: its text (LMML
        escapes and ``\\{{`` backslashes already left out) between its placeholders."""
        by_line: dict[int, list[tuple[int, int, str | tuple[InputSpec, Placeholder]]]] = {}
        for line, column in self.escapes:
            by_line.setdefault(line, []).append((column, column + 1, ""))
        asset_lines: set[int] = set()
        for line, start, end, spec, placeholder, is_asset in self._places:
            if is_asset:
                asset_lines.add(line)
            by_line.setdefault(line, []).append((start, end, (spec, placeholder)))
        compiled: dict[int, tuple[str | tuple[InputSpec, Placeholder], ...]] = {}
        for line, changes in by_line.items():
            if line in asset_lines:
                continue
            text = self.lines[line]
            changes.extend(
                (column, column + 1, "")
                for column in self.lmml_escapes.get(line, ())
                if text[column : column + 1] == "\\"
            )
            changes.sort(key=lambda change: change[0])
            parts: list[str | tuple[InputSpec, Placeholder]] = []
            position = 0
            for start, end, slot in changes:
                parts.append(text[position:start])
                if not isinstance(slot, str):
                    parts.append(slot)
                position = end
            parts.append(text[position:])
            compiled[line] = tuple(part for part in parts if part != "")
        return compiled

    def lines_for(self, bound: Mapping[str, object], *, limit: int) -> dict[int, str | list[Edit]]:
        """What each edited line becomes: its finished text, or, for a line holding an
        ``image`` or ``file`` input, its edits (:meth:`fills`), cut there for the part.

        :raises InputError: as :meth:`fills`.
        """
        slots, plans = self._line_plans
        texts: list[str] = []
        for spec, placeholder in slots:  # each value's text once, in the lines' order
            if spec.name not in bound:
                texts.append("")  # an optional input left without a value
            else:
                texts.append(input_text(_value_at(spec, bound[spec.name], placeholder), spec.name))
        out: dict[int, str | list[Edit]] = {}
        for line, parts, places in plans:
            if not places:
                out[line] = parts[0]
                continue
            filled = parts.copy()
            for position, slot in places:
                filled[position] = texts[slot]
            out[line] = "".join(filled)
        if self._cut_lines:
            out.update(self._edits(bound, limit, self._cut_places, self._cut_lines))
        return out

    @functools.cached_property
    def _line_plans(
        self,
    ) -> tuple[
        tuple[tuple[InputSpec, Placeholder], ...],
        tuple[tuple[int, list[str], tuple[tuple[int, int], ...]], ...],
    ]:
        """:attr:`_text_lines` made ready to fill: the distinct ``(spec, placeholder)``
        slots whose texts a rendering works out (one per input and fields, in the order the
        lines name them), and per line its pieces with a blank at each slot, as
        ``(line, pieces, ((position, slot), ...))``."""
        slot_of: dict[tuple[str, tuple[str, ...]], int] = {}
        slots: list[tuple[InputSpec, Placeholder]] = []
        plans: list[tuple[int, list[str], tuple[tuple[int, int], ...]]] = []
        for line, compiled in self._text_lines.items():
            parts: list[str] = []
            places: list[tuple[int, int]] = []
            for part in compiled:
                if isinstance(part, str):
                    parts.append(part)
                    continue
                spec, placeholder = part
                key = (spec.name, placeholder.fields)
                slot = slot_of.get(key)
                if slot is None:
                    slot = slot_of[key] = len(slots)
                    slots.append(part)
                places.append((len(parts), slot))
                parts.append("")
            plans.append((line, parts if places else ["".join(parts)], tuple(places)))
        return tuple(slots), tuple(plans)

    @functools.cached_property
    def _edited_lines(self) -> frozenset[int]:
        return frozenset(line for line, *_ in self._places) | {line for line, _ in self.escapes}

    @functools.cached_property
    def _cut_lines(self) -> frozenset[int]:
        """The edited lines not finished as text: those an asset or messages input cuts."""
        return self._edited_lines - self._text_lines.keys()

    @functools.cached_property
    def _cut_places(self) -> list[tuple[int, int, int, InputSpec, Placeholder, bool]]:
        """:attr:`_places` on :attr:`_cut_lines`, in document order."""
        return [place for place in self._places if place[0] in self._cut_lines]

    def fills(
        self, bound: Mapping[str, object], *, limit: int, lines: Set[int] | None = None
    ) -> dict[int, list[Edit]]:
        """The line edits that put *bound* values in place.

        :param lines: only these 0-based lines' edits (all by default).

        :param limit: the most bytes an ``image`` or ``file`` value may hold.
        :raises InputError: for a field that is not in its value, or an ``image`` or
            ``file`` value that does not read or is not of its type.
        """
        places = self._places if lines is None else [p for p in self._places if p[0] in lines]
        return self._edits(bound, limit, places, lines)

    def _edits(
        self,
        bound: Mapping[str, object],
        limit: int,
        places: Sequence[tuple[int, int, int, InputSpec, Placeholder, bool]],
        lines: Set[int] | None,
    ) -> dict[int, list[Edit]]:
        """:meth:`fills` of *places* (in document order) and of the ``\\{{`` escapes on
        *lines* (all for None)."""
        edits: dict[int, list[Edit]] = {}
        for line, column in self.escapes:
            if lines is None or line in lines:
                edits.setdefault(line, []).append((column, column + 1, ""))
        files: dict[str, InputFile] = {}
        conversations: dict[str, Bundle] = {}
        for line, start, end, spec, placeholder, is_asset in places:
            replacement: str | InputAsset | InputMessages
            name = spec.name
            if spec.is_messages:
                from ..chat import read_messages  # read through import

                _check_alone(spec, placeholder)
                held = conversations.get(name)
                if held is None and name in bound:
                    held = conversations[name] = read_messages(
                        spec, bound[name], roles=self.roles, limits=Limits(max_entry_size=limit)
                    )
                replacement = InputMessages(spec, placeholder, held)
            elif name not in bound:
                # An optional input left without a value: no text, and no part.
                replacement = InputAsset(spec, placeholder, None) if is_asset else ""
            elif is_asset:
                read = files.get(name)
                if read is None:
                    read = files[name] = _read_file(spec, bound[name], limit)
                replacement = InputAsset(spec, placeholder, read)
            elif placeholder.fields:
                replacement = input_text(_value_at(spec, bound[name], placeholder), name)
            else:
                replacement = input_text(bound[name], name)
            found = edits.get(line)
            if found is None:
                edits[line] = [(start, end, replacement)]
            else:
                found.append((start, end, replacement))
        if self.escapes:
            for line_edits in edits.values():
                line_edits.sort(key=lambda edit: edit[0])
        return edits

    @functools.cached_property
    def _places(self) -> tuple[tuple[int, int, int, InputSpec, Placeholder, bool], ...]:
        """Each filled placeholder as ``(line, start, end, spec, placeholder, is_asset)``,
        0-based, in document order (so a line's edits come in column order)."""
        specs = self.declarations.specs
        return tuple(
            (p.line - 1, p.column - 1, p.end - 1, specs[p.name], p, specs[p.name].is_part)
            for p in self.filled
        )

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
        if spec is None or not spec.in_code or spec.is_part:
            continue
        pieces.append(text[position:start])
        if escaped:
            pieces.append(text[start + 1 : end])
        elif name in bound:
            pieces.append(input_text(_value_at(spec, bound[name], None, fields), name))
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


def _check_alone(spec: InputSpec, placeholder: Placeholder) -> None:
    """Refuse a ``messages`` placeholder that shares its line or stands in a container."""
    if placeholder.holds_turns:
        return
    raise InputError(
        misplaced_messages(spec.name),
        name=spec.name,
        line=placeholder.line,
        column=placeholder.column,
        kind="invalid_input",
        hint="move {{ " + spec.name + " }} to a line of its own at the top level",
    )


def _read_file(spec: InputSpec, value: object, limit: int) -> InputFile:
    """Read an asset input's value and check an ``image`` is an image the providers take
    (a refused one, an SVG say, is left to the handlers, which name the provider).

    A value that does not read is refused at the input's declaration, as every other
    refused value is, unless the error already names its place (a values file's line).
    """
    try:
        read = input_file(spec.name, value, limit=limit)
    except InputError as error:
        if error.file is not None or error.line is not None:
            raise
        raise InputError(
            error.message,
            name=spec.name,
            line=spec.line,
            column=spec.column,
            file=spec.file,
            kind=error.kind,
            hint=error.hint,
            cli_hint=error.cli_hint,
        ) from None
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


def template_of(bundle: BundleContents, *, values_given: bool = False) -> Template:
    r"""*bundle*'s :class:`Template`, from its declarations (read each call: the chat
    state keeps the result per bundle). A narrative without a placeholder or ``\{{`` has
    nothing to fill, so its declarations are read only when values are given for them.

    :param values_given: whether this rendering gives values.
    """
    found = bundle.narrative.placeholders
    if not found.found and not found.escapes and not values_given:
        return Template(InputDeclarations(), (), (), frozenset())
    return Template.of(bundle, declared_inputs(bundle))
