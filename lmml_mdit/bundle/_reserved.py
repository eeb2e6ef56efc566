"""How the reserved embeds (RFC 5) decode: ``manifest.json``, ``settings.yaml|.yml|.json``
and the narrative's front matter. Each embed is declared in
:mod:`lmml_mdit.bundle.reserved_embeds`, which reads its decoder here.

All decode to plain JSON-like values. YAML is read by PyYAML's safe loader, narrowed
further (core tags only, :data:`MAX_YAML_DEPTH`, and :data:`MAX_YAML_NODES` /
:data:`MAX_YAML_BYTES` counted with aliases expanded, so an alias bomb is refused); JSON by
:func:`lmml_mdit.jsonio.parse_json`. See docs/bundles.md, "Reserved embeds".
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping
from typing import Any

import yaml

from ..errors import InvalidManifestError, InvalidSettingsError, LmmlError
from ..formats import MANIFEST_NAME
from ..jsonio import number_text_problem, parse_json
from ..jsontypes import JSONObject

__all__ = [
    "FRONT_MATTER_NAME",
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "SETTINGS_NAMES",
    "TEXT_EMBEDS_SETTING",
    "dump_manifest",
    "load_front_matter",
    "load_manifest",
    "load_settings",
    "manifest_digests",
    "sha256_hex",
    "yaml_value_marks",
]

SETTINGS_NAMES = ("settings.yaml", "settings.yml", "settings.json")
"""The names a settings embed may have; a bundle has one at most."""
TEXT_EMBEDS_SETTING = "text_embeds"
"""The settings key that gives the ``text_embeds`` option's default for one bundle (an
import writes ``"document"`` for a text document, so it exports as a document again);
never sent as a request parameter."""
FRONT_MATTER_NAME = "front matter"
"""The name errors and issues give a narrative's YAML front matter."""
FRONT_MATTER_FIRST_LINE = 2
"""The narrative line a front matter's YAML starts on (the block opens on line 1)."""

MAX_YAML_DEPTH = 64
"""Deepest nesting of collections a settings YAML document may have."""

MAX_YAML_NODES = 100_000
"""Most nodes a settings YAML document may have, counting each alias as a full copy."""

MAX_YAML_BYTES = 8 * 1024 * 1024
"""Most characters of scalar text a settings YAML document may have, counting each alias as
a full copy (a 1 MB string named by a few aliases is refused, however small the file)."""

_MERGE_TAG = "tag:yaml.org,2002:merge"

_ALLOWED_TAGS = frozenset(
    f"tag:yaml.org,2002:{kind}"
    for kind in ("null", "bool", "int", "float", "str", "seq", "map", "merge")
)


class _RefusedSettings(yaml.YAMLError):
    """A document PyYAML could read but settings refuse; *mark* is where, if known."""

    def __init__(
        self, message: str, mark: yaml.Mark | None = None, hint: str | None = None
    ) -> None:
        super().__init__(message)
        self.mark = mark
        self.hint = hint


class _OverLimit(_RefusedSettings):
    """A document expanding past the node or text limits, refused by the composer at the
    node that crosses them."""


class _ArrayAtTop(yaml.YAMLError):
    """The document's top level is a sequence: refused at its first event, before the
    sequence is composed (settings and front matter are mappings)."""

    def __init__(self, mark: yaml.Mark) -> None:
        super().__init__("array")
        self.mark = mark


_JSON_TYPE_NAMES = {
    type(None): "null",
    bool: "boolean",
    int: "number",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def _type_name(value: Any) -> str:
    """A JSON/YAML reader's word for *value*'s type: ``null``, ``array``, not NoneType."""
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def _check_size(nodes: int, size: int, mark: Any) -> None:
    """Refuse a document that has expanded to more than the node or text limits (*mark*:
    where, a PyYAML or libyaml mark)."""
    if nodes > MAX_YAML_NODES:
        raise _OverLimit(
            f"the document expands to more than {MAX_YAML_NODES} nodes (an alias bomb?)", mark
        )
    if size > MAX_YAML_BYTES:
        raise _OverLimit(
            f"the document expands to more than {MAX_YAML_BYTES} characters of text "
            "(an alias bomb?)",
            mark,
        )


class _SettingsLoader(yaml.SafeLoader):
    """A safe loader that bounds the document while composing it, before anything is built.

    Each node composed adds its size to running totals, an alias adding the whole size of
    the node it names: at most :data:`MAX_YAML_NODES` nodes and :data:`MAX_YAML_BYTES`
    characters of scalar text, so an alias bomb is refused at the alias that crosses the
    limit, with its line. Nesting is bounded by :data:`MAX_YAML_DEPTH`, tags by the core
    schema; while building, duplicate and non-string keys, over-long numbers and
    non-finite floats are refused, each at its node.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        self._bytes = 0
        # The expanded (nodes, characters) of each finished node an alias may name.
        self._sizes: dict[int, tuple[int, int]] = {}

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        """Refuse flow nesting past :data:`MAX_YAML_DEPTH` as the scanner meets it: each
        open ``[`` or ``{`` keeps a possible key pending, so the scanner would otherwise
        read the whole document before the composer saw its first node."""
        if self.flow_level >= MAX_YAML_DEPTH:
            raise _RefusedSettings(
                f"the document nests deeper than {MAX_YAML_DEPTH} levels", self.get_mark()
            )
        super().fetch_flow_collection_start(TokenClass)

    def _count(self, nodes: int, size: int, mark: yaml.Mark) -> None:
        self._nodes += nodes
        self._bytes += size
        _check_size(self._nodes, self._bytes, mark)

    def compose_node(self, parent: Any, index: Any) -> Any:
        event: Any = self.peek_event()  # type: ignore[no-untyped-call]
        mark: yaml.Mark = event.start_mark
        node: Any
        if parent is None and self._depth == 0 and isinstance(event, yaml.SequenceStartEvent):
            raise _ArrayAtTop(mark)
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)
            size = self._sizes.get(id(node))
            if size is None:  # the alias names a collection still being composed
                raise _RefusedSettings("the document holds a recursive alias", mark)
            self._count(*size, mark)
            return node
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _RefusedSettings(
                    f"the document nests deeper than {MAX_YAML_DEPTH} levels", mark
                )
            before = (self._nodes, self._bytes)
            value = getattr(event, "value", "")
            self._count(1, len(value) if isinstance(value, str) else 0, mark)
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node.tag not in _ALLOWED_TAGS:
            raise _RefusedSettings(
                f"the tag {node.tag!r} is not allowed in settings", node.start_mark
            )
        if event.anchor is not None:
            self._sizes[id(node)] = (self._nodes - before[0], self._bytes - before[1])
        return node

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue  # merged keys may be overridden: that is what merging means
                scalar = isinstance(key_node, yaml.ScalarNode)
                key = self.construct_object(key_node) if scalar else None
                if not isinstance(key, str):
                    raise _RefusedSettings(
                        f"the key {_shown_key(key_node, key)} is not a string; quote it",
                        key_node.start_mark,
                        "mapping keys must be strings",
                    )
                if key in seen:
                    raise _RefusedSettings(
                        f"the key {key!r} appears twice in one mapping",
                        key_node.start_mark,
                        "remove or rename one of the two",
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        _check_number_text(node)
        return int(super().construct_yaml_int(node))

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        _check_number_text(node)
        value = float(super().construct_yaml_float(node))
        if not math.isfinite(value):
            raise _RefusedSettings(
                f"the number {node.value} is not finite",
                node.start_mark,
                "settings take finite numbers; quote it to keep it as a string",
            )
        return value


def _shown_key(node: yaml.Node, key: object) -> str:
    """A mapping key that is not a string, as an error shows it: a scalar's value, or what
    kind of collection it is (``{{ x }}``, a template placeholder, reads as a mapping)."""
    if isinstance(node, yaml.MappingNode):
        return "written as a mapping ({...})"
    if isinstance(node, yaml.SequenceNode):
        return "written as a list ([...])"
    return repr(node.value if key is None else key)


def _check_number_text(node: yaml.ScalarNode) -> None:
    problem = number_text_problem(str(node.value))
    if problem is not None:
        raise _RefusedSettings(problem, node.start_mark, "quote the number to keep it as a string")


_SettingsLoader.add_constructor("tag:yaml.org,2002:int", _SettingsLoader.construct_yaml_int)
_SettingsLoader.add_constructor("tag:yaml.org,2002:float", _SettingsLoader.construct_yaml_float)

# Timestamps stay strings: drop the implicit timestamp resolver from our copy only.
_SettingsLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _check_keys(value: Any, path: str = "") -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise yaml.YAMLError(
                    f"the key {key!r} at {path or 'the top level'} is not a string; quote it"
                )
            _check_keys(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_keys(item, f"{path}[{index}]")


def _decode_text(data: bytes, error: type[LmmlError], name: str, line: int | None) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        raise error(
            f"not valid UTF-8 at byte offset {problem.start}",
            name=name,
            line=line,
            hint="save the file as UTF-8",
        ) from None


def _content_line(first_line: int | None, offset: int) -> int | None:
    """The narrative line of 0-based content line *offset*, or the 1-based entry line."""
    return offset + 1 if first_line is None else first_line + offset


def _load_json(
    data: bytes, error: type[LmmlError], name: str, first_line: int | None
) -> JSONObject:
    text = _decode_text(data, error, name, first_line)
    try:
        value = parse_json(text)
    except json.JSONDecodeError as problem:
        raise error(
            f"not valid JSON: {problem.msg}",
            name=name,
            line=_content_line(first_line, problem.lineno - 1),
            column=problem.colno,
            hint="fix the JSON; keys are distinct, numbers finite and short",
        ) from None
    except RecursionError:
        raise error(
            "the JSON nests too deeply", name=name, line=first_line, hint="flatten it"
        ) from None
    if not isinstance(value, dict):
        leading = text[: len(text) - len(text.lstrip())]
        raise error(
            f"the top level is a JSON {_type_name(value)}, not an object",
            name=name,
            line=_content_line(first_line, leading.count("\n")),
            column=len(leading) - leading.rfind("\n"),
            hint='wrap the values in an object: {"key": ...}',
        )
    return value


def load_manifest(data: bytes, *, name: str = MANIFEST_NAME, line: int | None = None) -> JSONObject:
    """Decode a ``manifest.json`` embed.

    :param data: the embed's bytes.
    :param name: the name used in error messages.
    :param line: the narrative line where the content starts (for an inline fence), or
        None when the bytes are a file of their own (lines then count from 1 in it).
    :raises InvalidManifestError: for invalid UTF-8, invalid JSON or a non-object.
    """
    return _load_json(data, InvalidManifestError, name, line)


def _yaml_error(
    problem: Exception, name: str, first_line: int | None, what: str = "settings"
) -> InvalidSettingsError:
    """The error for what PyYAML (or our limits) refused in the *what* (settings or front
    matter), at its line if known."""
    if isinstance(problem, yaml.MarkedYAMLError):
        mark = problem.problem_mark or problem.context_mark
        message = f"not valid {what} YAML: {problem.problem or problem.context}"
        hint = _fix_yaml_hint(what)
    else:
        mark = problem.mark if isinstance(problem, _RefusedSettings) else None
        message = f"refused {what} YAML: {problem}"
        hint = (problem.hint if isinstance(problem, _RefusedSettings) else None) or (
            "simplify the document; aliases, deep nesting, numbers and custom tags are limited"
        )
    line = _content_line(first_line, mark.line) if mark is not None else first_line
    column = mark.column + 1 if mark is not None else None
    return InvalidSettingsError(message, name=name, line=line, column=column, hint=hint)


def _fix_yaml_hint(what: str) -> str:
    """What to do about invalid YAML in the *what*: settings have a JSON form too."""
    if what == "settings":
        return "fix the YAML, or write the settings as settings.json"
    return "fix the YAML between the --- lines"


try:
    import yaml.cyaml as _cyaml
except ImportError:  # PyYAML built without libyaml
    _cyaml = None  # type: ignore[assignment]
_CParser: Any = getattr(_cyaml, "CParser", None)


def _fast_loader_class() -> type[_SettingsLoader] | None:
    """The settings loader with libyaml's C scanner and parser under it, when PyYAML was
    built with libyaml: the same composer (and so the same limits), constructors and
    resolvers, only the events come from C."""
    if _CParser is None:
        return None
    composer = yaml.composer.Composer

    class FastSettingsLoader(_CParser, _SettingsLoader):  # type: ignore[misc]
        # CParser has a C composer of its own; the bounded Python one must compose.
        check_node = composer.check_node
        get_node = composer.get_node
        get_single_node = composer.get_single_node

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            self._depth = 0
            self._nodes = 0
            self._bytes = 0
            self._sizes = {}

    return FastSettingsLoader


_FastSettingsLoader = _fast_loader_class()

_MEMO_MAX_BYTES = 64 * 1024
"""The largest YAML document whose decoded value is kept for the next read of the same bytes."""

_memo: dict[tuple[bytes, str, int | None, str], JSONObject] = {}


_refused: dict[tuple[bytes, str, int | None, str], InvalidSettingsError] = {}
"""The last few documents refused, by the same key: a refusal is not worked out again."""


def _load_yaml(
    data: bytes, name: str, first_line: int | None, *, what: str = "settings"
) -> JSONObject:
    """The decoded document (a fresh copy): read once for the same bytes, name and line
    (validation, the inputs and the request each read a bundle's settings), and read with
    the C scanner where PyYAML has it."""
    key = (data, name, first_line, what)
    refused = _refused.get(key)
    if refused is not None:
        raise copy.copy(refused)
    known = _memo.get(key)
    if known is None:
        try:
            known = _read_yaml(data, name, first_line, what=what)
        except InvalidSettingsError as refusal:
            if len(_refused) >= 8:
                _refused.pop(next(iter(_refused), key), None)
            _refused[key] = copy.copy(refusal)
            raise
        if len(data) <= _MEMO_MAX_BYTES:
            if len(_memo) >= 32:
                _memo.pop(next(iter(_memo), key), None)  # the oldest, if still there
            _memo[key] = known
    return copy.deepcopy(known)


def _read_yaml(
    data: bytes, name: str, first_line: int | None, *, what: str = "settings"
) -> JSONObject:
    text = _decode_text(data, InvalidSettingsError, name, first_line)
    # libyaml takes a tab as separating space where the Python reader refuses it: a
    # document with a tab is read by the Python reader alone, so the answer is one.
    if (
        _FastSettingsLoader is not None
        and "\t" not in text
        and not yaml.reader.Reader.NON_PRINTABLE.search(text)
    ):
        oversized = _oversized_events(text)
        if oversized is not None:
            raise _yaml_error(oversized, name, first_line, what)
        try:
            value, _ = _compose_and_build(_FastSettingsLoader(text))
        except _OverLimit as refusal:
            # The bounded composer's node or text limit (an alias bomb): it counts the same
            # events in the same order, so it refuses at the same node, with the same mark;
            # reading it again in pure Python would take seconds for nothing.
            raise _yaml_error(refusal, name, first_line, what) from None
        except Exception:
            pass  # any other refusal is read again below, for PyYAML's own words and marks
        else:
            if isinstance(value, dict):
                return value  # anything else is read again below, for its mark
    return _read_yaml_python(text, name, first_line, what)


def _oversized_events(text: str) -> _RefusedSettings | None:
    """The composer's own size refusal, found from libyaml's events alone before anything
    is composed, for a plain document (no alias, tag or deep nesting before the limit,
    a mapping at the top): it counts each node and its text as the composer would. None
    when the document stays within the limits or is not plain; the composer decides then."""
    loader = _CParser(text)
    nodes = size = depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
                continue
            if isinstance(event, yaml.DocumentStartEvent) and nodes:
                return None  # a second document: the composer refuses that first
            if not isinstance(event, yaml.NodeEvent):
                continue
            starts = isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent))
            if isinstance(event, yaml.AliasEvent) or event.anchor is not None:
                return None
            if getattr(event, "tag", None) is not None:
                return None
            if nodes == 0 and not isinstance(event, yaml.MappingStartEvent):
                return None
            if depth + 1 > MAX_YAML_DEPTH:
                return None
            value = getattr(event, "value", "")
            nodes += 1
            size += len(value) if isinstance(value, str) else 0
            try:
                _check_size(nodes, size, event.start_mark)
            except _RefusedSettings as refusal:
                return refusal
            if starts:
                depth += 1
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None


def _compose_and_build(loader: _SettingsLoader) -> tuple[object, yaml.Node | None]:
    """The document *loader* reads (``{}`` when empty) and its top node; the loader is
    disposed of."""
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, None
        value = loader.construct_document(node)
        _check_keys(value)
    finally:
        loader.dispose()
    return value, node


def _read_yaml_python(text: str, name: str, first_line: int | None, what: str) -> JSONObject:
    try:
        loader = _SettingsLoader(text)
    except yaml.reader.ReaderError as problem:
        # The reader refuses control characters before any parsing, so it has no mark.
        raise InvalidSettingsError(
            f"not valid {what} YAML: character {problem.character:#x} is not allowed",
            name=name,
            line=_content_line(first_line, text.count("\n", 0, problem.position)),
            hint="remove the control character"
            + (", or write the settings as settings.json" if what == "settings" else ""),
        ) from None
    try:
        value, node = _compose_and_build(loader)
    except _ArrayAtTop as top:
        raise _not_a_mapping("array", top.mark, name, first_line, what) from None
    except (yaml.YAMLError, RecursionError, ValueError) as problem:
        # ValueError: a malformed number PyYAML's resolver let through (``0b``, ``0x_``).
        raise _yaml_error(problem, name, first_line, what) from None
    if not isinstance(value, dict):
        assert node is not None  # an empty document reads as {}
        raise _not_a_mapping(_type_name(value), node.start_mark, name, first_line, what)
    return value


def _not_a_mapping(
    type_name: str, mark: yaml.Mark, name: str, first_line: int | None, what: str
) -> InvalidSettingsError:
    """The error for a document whose top level is a *type_name*, not a mapping."""
    return InvalidSettingsError(
        f"the top level of the {what} is a YAML {type_name}, not a mapping",
        name=name,
        line=_content_line(first_line, mark.line),
        column=mark.column + 1,
        hint=f"write the {what} as 'key: value' lines",
    )


def yaml_value_marks(text: str, depth: int) -> dict[tuple[str | int, ...], tuple[int, int]]:
    """Where each value of the YAML document *text* starts, as a 0-based (line, column) by
    its path of keys and indexes, down to *depth* levels: the node marks of the settings'
    own bounded loader, so a document it reads is located as it was read.

    :raises ValueError: for a document the loader refuses (``yaml.YAMLError`` is one).
    """
    marks: dict[tuple[str | int, ...], tuple[int, int]] = {}

    def walk(node: yaml.Node, path: tuple[str | int, ...]) -> None:
        marks.setdefault(path, (node.start_mark.line, node.start_mark.column))
        if len(path) >= depth:
            return
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _MERGE_TAG:
                    walk(value_node, (*path, str(key_node.value)))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, (*path, index))

    loader = _SettingsLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.YAMLError as problem:
        raise ValueError(str(problem)) from None
    finally:
        loader.dispose()
    if node is not None:
        walk(node, ())
    return marks


def load_settings(data: bytes, *, name: str, line: int | None = None) -> JSONObject:
    """Decode a settings embed; the format follows the name's extension.

    An empty or comment-only YAML document gives ``{}``.

    :param data: the embed's bytes.
    :param name: ``settings.yaml``, ``settings.yml`` or ``settings.json``.
    :param line: as for :func:`load_manifest`.
    :raises InvalidSettingsError: for undecodable content, a non-mapping, or another name.
    """
    lowered = name.lower()
    if lowered.endswith(".json"):
        return _load_json(data, InvalidSettingsError, name, line)
    if lowered.endswith((".yaml", ".yml")):
        return _load_yaml(data, name, line)
    raise InvalidSettingsError(
        "settings must be YAML (.yaml, .yml) or JSON (.json)",
        name=name,
        line=line,
        hint="rename the embed to settings.yaml or settings.json",
    )


def load_front_matter(text: str) -> JSONObject:
    """Decode a narrative's YAML front matter with the settings' loader and limits.

    :param text: the YAML between the ``---`` lines (it starts on narrative line 2).
    :returns: the mapping; ``{}`` for an empty block.
    :raises InvalidSettingsError: named :data:`FRONT_MATTER_NAME`, with the narrative line,
        for invalid YAML, a document that is not a mapping, or a ``settings`` key whose
        value is not a mapping.
    """
    data = text.encode("utf-8", "surrogatepass")
    value = _load_yaml(data, FRONT_MATTER_NAME, FRONT_MATTER_FIRST_LINE, what="front matter")
    settings = value.get("settings")
    if "settings" in value and not isinstance(settings, dict):
        raise InvalidSettingsError(
            f"the front matter's settings is a YAML {_type_name(settings)}, not a mapping",
            name=FRONT_MATTER_NAME,
            line=FRONT_MATTER_FIRST_LINE,
            hint="write the settings as 'key: value' lines indented under 'settings:'",
        )
    return value


def sha256_hex(data: bytes) -> str:
    """The lowercase hex SHA-256 of *data* (the digest form ``manifest.json`` records)."""
    import hashlib  # loading OpenSSL costs milliseconds a bare .lmml need not pay

    return hashlib.sha256(data).hexdigest()


def manifest_digests(manifest: Mapping[str, object] | None) -> dict[str, str]:
    """The asset digests a manifest records: ``{"assets": {name: {"sha256": hex}}}``."""
    if not manifest:
        return {}
    assets = manifest.get("assets")
    if not isinstance(assets, dict):
        return {}
    return {
        asset: record["sha256"]
        for asset, record in assets.items()
        if isinstance(record, dict) and isinstance(record.get("sha256"), str)
    }


def dump_manifest(manifest: Mapping[str, object]) -> bytes:
    """Serialise a manifest the way :meth:`Bundle.save <lmml_mdit.bundle.Bundle.save>`
    writes it."""
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
