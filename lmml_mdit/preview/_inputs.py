"""Template inputs in the preview: each placeholder highlighted with its value, its default,
or marked unfilled.

:class:`InputView` knows from the parse which characters of a text token are placeholders
and which a ``\\{{`` kept literal, so the text rule can tell them apart; values are shown
escaped, as text. See docs/templates.md, "Where to call it".
"""

from __future__ import annotations

import base64
import collections
import html
from collections.abc import Callable, Mapping

from ..bundle import BundleSource, Limits
from ..chat import read_messages
from ..errors import LmmlError
from ..media import IMAGE_TYPES, media_type_for
from ..narrative import Placeholder, placeholder_spans
from ..templates import (
    InputDeclarations,
    InputFile,
    InputSpec,
    checked_values,
    declared_inputs,
    field_value,
    input_file,
    input_text,
    misplaced_messages,
)

__all__ = ["InputView"]


class InputView:
    """How one page shows a template's placeholders.

    :param bundle: the bundle rendered.
    :param values: the values given (checked: an undeclared name or a refused value
        raises), or None to show defaults and unfilled placeholders only.
    :param spend: takes an image's size from the page's embedding budget, False once it
        is spent (the image is then named, not shown); None for no budget.
    :param max_image_bytes: the largest image value shown.
    :raises InputError: for a value no input declares, or one its declaration refuses.
    """

    def __init__(
        self,
        bundle: BundleSource,
        values: Mapping[str, object] | None,
        *,
        spend: Callable[[int], bool] | None = None,
        max_image_bytes: int,
    ) -> None:
        self._spend = spend
        self._max_image_bytes = max_image_bytes
        self._files: dict[str, InputFile | LmmlError] = {}
        narrative = bundle.narrative
        self.declarations: InputDeclarations = declared_inputs(bundle)
        self.values = checked_values(self.declarations, values)
        self.roles = frozenset(turn.role for turn in narrative.turns)
        # Per name, in document order: each text occurrence of ``{{ name }}`` that is a
        # placeholder, or None for one kept literal by a ``\\{{``.
        order: list[tuple[int, int, str, Placeholder | None]] = []
        found = self.declarations.placeholders(narrative.placeholders)
        for placeholder in found.found:
            if placeholder.context == "text":
                order.append((placeholder.line, placeholder.column, placeholder.name, placeholder))
        for escape in found.escapes:
            if escape.context == "text" and escape.name is not None:
                order.append((escape.line, escape.column + 1, escape.name, None))
        order.sort(key=lambda item: item[:2])
        self._queues: dict[str, collections.deque[Placeholder | None]] = {}
        for _, _, name, real in order:
            self._queues.setdefault(name, collections.deque()).append(real)

    def text(self, content: str) -> str | None:
        """The HTML of a text token holding placeholders, or None for one without."""
        if "{{" not in content:
            return None
        pieces: list[str] = []
        position = 0
        for start, end, name, fields, escaped in placeholder_spans(content):
            queue = self._queues.get(name)
            real = queue.popleft() if queue else None
            if escaped or real is None:
                continue
            pieces.append(html.escape(content[position:start]))
            spec = self.declarations.specs.get(name)
            if spec is not None and spec.is_messages and not real.holds_turns:
                pieces.append(
                    _mark("lmml-input-unfilled", misplaced_messages(name), content[start:end])
                )
            else:
                pieces.append(self._shown(name, fields, content[start:end]))
            position = end
        if not pieces:
            return None
        pieces.append(html.escape(content[position:]))
        return "".join(pieces)

    def code(self, content: str) -> str | None:
        """The HTML inside a code span holding placeholders of ``in_code`` inputs, or None."""
        if "{{" not in content:
            return None
        specs = self.declarations.specs
        pieces: list[str] = []
        position = 0
        for start, end, name, fields, escaped in placeholder_spans(content):
            spec = specs.get(name)
            if spec is None or not spec.in_code or spec.is_asset:
                continue
            pieces.append(html.escape(content[position:start]))
            if escaped:
                pieces.append(html.escape(content[start + 1 : end]))
            else:
                pieces.append(self._shown(name, fields, content[start:end]))
            position = end
        if not pieces:
            return None
        pieces.append(html.escape(content[position:]))
        return "".join(pieces)

    def _shown(self, name: str, fields: tuple[str, ...], written: str) -> str:
        spec = self.declarations.specs.get(name)
        if spec is None:
            return _mark("lmml-input-undeclared", f"{name}: no input declares it", written)
        if name in self.values:
            return self._value(spec, self.values[name], fields, written, "")
        if spec.has_default:
            return self._value(spec, spec.default, fields, written, " lmml-input-default")
        what = "required, no value" if spec.required else "optional, no value"
        return _mark("lmml-input-unfilled", f"{name}: {what}", written)

    def _value(
        self, spec: InputSpec, value: object, fields: tuple[str, ...], written: str, extra: str
    ) -> str:
        title = f"{spec.name}{' (default)' if extra else ''}"
        if spec.is_messages:
            return self._messages(spec, value, title)
        if spec.is_asset:
            return self._asset(spec, value, title)
        try:
            shown = field_value(value, fields) if fields else value
        except KeyError:
            return _mark(
                "lmml-input-unfilled", f"{spec.name}: the value has no such field", written
            )
        return _mark("lmml-input-filled" + extra, title, input_text(shown))

    def _asset(self, spec: InputSpec, value: object, title: str) -> str:
        read = self._files.get(title)  # one value per title: read once, however often used
        if read is None:
            try:
                read = input_file(spec.name, value, limit=self._max_image_bytes)
            except LmmlError as error:
                read = error
            self._files[title] = read
        if isinstance(read, LmmlError):
            return _mark("lmml-input-unfilled", f"{spec.name}: {read.message}", spec.name)
        media_type = media_type_for(read.name, read.data)
        if (
            media_type in IMAGE_TYPES
            and self._spend is not None
            and not self._spend(len(read.data))
        ):
            return _mark(
                "lmml-input-filled",
                f"{title}: not embedded: the page's budget for embedded assets "
                "(max_embedded_bytes) is spent",
                f"{read.name} ({media_type}, {len(read.data)} B)",
            )
        if media_type in IMAGE_TYPES:
            data = base64.b64encode(read.data).decode("ascii")
            return (
                f'<mark class="lmml-input lmml-input-filled" title="{html.escape(title)}">'
                f'<img class="lmml-image" alt="{html.escape(read.name)}" '
                f'src="data:{media_type};base64,{data}"></mark>'
            )
        return _mark("lmml-input-filled", title, f"{read.name} ({media_type}, {len(read.data)} B)")

    def _messages(self, spec: InputSpec, value: object, title: str) -> str:
        """The turns a ``messages`` value puts in, each its role and text (escaped), inside
        one mark that says they come from the input."""
        try:
            conversation = read_messages(spec, value, roles=self.roles, limits=Limits())
        except LmmlError as error:
            return _mark("lmml-input-unfilled", f"{spec.name}: {error.message}", spec.name)
        turns = conversation.narrative.turns
        shown = "".join(
            f'<span class="lmml-input-turn" data-role="{turn.role}">'
            f'<span class="lmml-input-role">{turn.role}</span>{html.escape(turn.text)}</span>'
            for turn in turns
        )
        label = f"{title}: {len(turns)} turn{'s' if len(turns) != 1 else ''} from this input"
        return (
            f'<mark class="lmml-input lmml-input-filled lmml-input-messages" '
            f'title="{html.escape(label)}">{shown}</mark>'
        )


def _mark(kind: str, title: str, text: str) -> str:
    return (
        f'<mark class="lmml-input {kind}" title="{html.escape(title)}">{html.escape(text)}</mark>'
    )
