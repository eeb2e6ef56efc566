"""The package's layers: every import goes down the declared order, and no import cycles.

The order is the one ``docs/architecture.md`` draws. A module's layer is its subpackage
(``lmml_mdit.chat._content`` is in ``chat``); the top-level modules below every subpackage
(``errors``, ``model``, ``text``, ...) are the ``foundation``; the package's ``__init__`` and
``__main__`` are the ``surface`` that re-exports everything.

An import is any ``import`` statement (at the top, in a function, or for the type checker
only) and any name of a module's lazy table (:func:`lmml_mdit.lazy.lazy_attributes`), which
imports its module on first use.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.util import resolve_name
from pathlib import Path

import pytest

import lmml_mdit

LAYERS = (
    "foundation",
    "syntax",
    "conversation",
    "narrative",
    "bundle",
    "templates",
    "chat",
    "preview",
    "transcript",
    "run",
    "toolchain",
    "promptfiles",
    "dataset",
    "eval",
    "ray",
    "lsp",
    "cli",
    "surface",
)
"""Bottom to top: a module may import its own layer and the layers before it."""

DELEGATIONS = {
    (
        "lmml_mdit.bundle._bundle",
        "lmml_mdit.chat",
    ): "Bundle.messages, Bundle.to_request, Bundle.validate(inputs=)",
    ("lmml_mdit.templates._fill", "lmml_mdit.chat"): "a messages value, read by import",
    (
        "lmml_mdit.conversation._messages",
        "lmml_mdit.chat",
    ): "ChatConversation.from_bundle, to_bundle, to_lmml",
    ("lmml_mdit.bundle._validation", "lmml_mdit.templates"): "Bundle.validate's input issues",
    ("lmml_mdit.bundle._packing", "lmml_mdit.templates"): "Bundle.pack's filled fences",
    (
        "lmml_mdit.bundle._setting_values",
        "lmml_mdit.chat",
    ): "Bundle.validate's check of tools, tool choice and structured output",
    ("lmml_mdit.bundle._bundle", "lmml_mdit.preview"): "Bundle.render_html, Bundle._repr_markdown_",
    ("lmml_mdit.bundle._bundle", "lmml_mdit.run"): "Bundle.send, Bundle.asend",
    ("lmml_mdit.transcript._transcript", "lmml_mdit.run"): "Transcript.send, Transcript.asend",
    ("lmml_mdit.syntax._frontmatter", "lmml_mdit.bundle"): "the plugin's front matter",
    (
        "lmml_mdit.severity",
        "lmml_mdit.bundle.reserved_embeds",
    ): "the severity table's first read: the reserved embeds declare their kinds",
    ("lmml_mdit.bundle.inputs", "lmml_mdit.templates"): (
        "the templates' names at their old path, imported on first use"
    ),
}
"""The upward imports allowed: thin methods that hand a bundle to the layer above, imported
inside the method (so the lower layer loads without the upper one), or names imported on
first use."""

TYPED_DELEGATIONS = {
    ("lmml_mdit.bundle._bundle", "lmml_mdit.run"): (
        "the types Bundle.send and Bundle.stream return, their typed options"
    ),
    ("lmml_mdit.bundle.inputs", "lmml_mdit.templates"): "the templates' names at their old path",
    ("lmml_mdit.transcript._transcript", "lmml_mdit.run"): (
        "the types Transcript.send and Transcript.stream return, their typed options"
    ),
    ("lmml_mdit.bundle._bundle", "lmml_mdit.chat"): "Bundle.messages' typed options",
    ("lmml_mdit.conversation._messages", "lmml_mdit.bundle"): (
        "the bundle ChatConversation.from_bundle reads and to_bundle returns"
    ),
    ("lmml_mdit.conversation._messages", "lmml_mdit.chat"): (
        "ChatConversation.from_bundle's typed options"
    ),
}
"""Upward imports for the type checker only (under ``if TYPE_CHECKING:``, never run): the
return types of the delegations."""

PACKAGE = Path(lmml_mdit.__file__).parent


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int
    nested: bool  # inside a function: runs on call, not on import
    typing_only: bool = False  # under ``if TYPE_CHECKING:``: never runs
    lazy: bool = False  # a name of the module's table for ``lazy_attributes``: on first use
    names: tuple[str, ...] = ()  # the names ``from target import ...`` takes


def _modules() -> dict[str, Path]:
    found = {"lmml_mdit": PACKAGE / "__init__.py"}
    for info in pkgutil.walk_packages(lmml_mdit.__path__, "lmml_mdit."):
        module = importlib.import_module(info.name)
        assert module.__file__ is not None
        found[info.name] = Path(module.__file__)
    return found


MODULES = _modules()

# Each module parsed once, at collection, before any test starts a thread: every check
# below walks these trees rather than parsing again while a test's threads may run.
TREES = {module: ast.parse(path.read_text(encoding="utf-8")) for module, path in MODULES.items()}


def layer_of(module: str) -> str:
    parts = module.split(".")
    if module == "lmml_mdit" or parts[1] == "__main__":
        return "surface"
    if len(parts) == 2 and MODULES[module].name != "__init__.py":
        return "foundation"
    return parts[1]


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(module: str) -> Iterator[Import]:
    tree = TREES[module]
    nested_lines: set[int] = set()
    typing_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    typing_lines.add(inner.lineno)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    nested_lines.add(inner.lineno)
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, node)
            names = [target, *(f"{target}.{alias.name}" for alias in node.names)]
        for name in names:
            if name in MODULES and name != module:
                yield Import(
                    module,
                    name,
                    node.lineno,
                    node.lineno in nested_lines,
                    node.lineno in typing_lines,
                    names=tuple(alias.name for alias in node.names)
                    if isinstance(node, ast.ImportFrom) and name == names[0]
                    else (),
                )


def _lazy_table(module: str) -> dict[str, str]:
    """Each name *module* imports on first use (its table for
    :func:`lmml_mdit.lazy.lazy_attributes`), by the module it comes from."""
    getter = vars(sys.modules[module]).get("__getattr__")
    if getattr(getter, "__qualname__", None) != "lazy_attributes.<locals>.__getattr__":
        return {}
    found = inspect.getclosurevars(getter).nonlocals
    return {name: resolve_name(where, found["package"]) for name, where in found["names"].items()}


LAZY_TABLES = {module: _lazy_table(module) for module in MODULES}


def lazy_imports_of(module: str) -> Iterator[Import]:
    """The imports *module*'s lazy table makes on first use: nested imports, as a
    function's would be (a name in the table is a string, which no ``import`` statement
    shows)."""
    if not LAZY_TABLES[module]:
        return
    line = next(
        node.lineno
        for node in ast.walk(TREES[module])
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("lazy_attributes")
    )
    for target in sorted(set(LAZY_TABLES[module].values())):
        if target in MODULES and target != module:
            yield Import(module, target, line, nested=True, lazy=True)


ALL_IMPORTS = [
    found for module in MODULES for found in (*imports_of(module), *lazy_imports_of(module))
]


def test_a_lazy_table_counts_as_imports() -> None:
    """The names a package imports on first use are imports too: each table is read."""
    lazy = {(found.source, found.target) for found in ALL_IMPORTS if found.lazy}
    assert ("lmml_mdit", "lmml_mdit.bundle") in lazy
    assert ("lmml_mdit.bundle.inputs", "lmml_mdit.templates") in lazy


def test_every_module_has_a_declared_layer() -> None:
    assert {layer_of(module) for module in MODULES} <= set(LAYERS)


def test_imports_only_go_down() -> None:
    upward = [
        f"{found.source}:{found.line} imports {found.target} "
        f"({layer_of(found.source)} -> {layer_of(found.target)})"
        for found in ALL_IMPORTS
        if LAYERS.index(layer_of(found.target)) > LAYERS.index(layer_of(found.source))
        and not (found.nested and (found.source, found.target) in DELEGATIONS)
        and not (found.typing_only and (found.source, found.target) in TYPED_DELEGATIONS)
    ]
    assert upward == []


def test_every_delegation_is_still_used() -> None:
    used = {(found.source, found.target) for found in ALL_IMPORTS if found.nested}
    assert set(DELEGATIONS) <= used


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(edges.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def _import_edges() -> dict[str, set[str]]:
    """Which module each module's loading runs. A name taken from a module with a lazy
    table (``from lmml_mdit.chat import BodyWriter``) is an edge to the module that defines
    it; the table itself is no edge, since it imports nothing until a name is read."""
    edges: dict[str, set[str]] = {module: set() for module in MODULES}
    for found in ALL_IMPORTS:
        if (found.source, found.target) in DELEGATIONS or found.typing_only or found.lazy:
            continue
        table = LAZY_TABLES[found.target]
        edges[found.source].add(found.target)
        for name in found.names:
            if table.get(name) in MODULES and table[name] != found.source:
                edges[found.source].add(table[name])
    return edges


def test_no_import_cycle() -> None:
    assert _cycles(_import_edges()) == []


def test_a_cycle_through_a_lazy_table_is_found() -> None:
    """A name read through a package's lazy table is an import of its own module."""
    edges = _import_edges()
    # preview._page: ``from ..bundle import ..., parse_remote``, defined in bundle._remote.
    assert "lmml_mdit.bundle._remote" in edges["lmml_mdit.preview._page"]
    planted = {**edges, "lmml_mdit.bundle._remote": {"lmml_mdit.preview._page"}}
    pair = {"lmml_mdit.bundle._remote", "lmml_mdit.preview._page"}
    assert any(pair <= set(cycle) for cycle in _cycles(planted))


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_the_cycle_finder_finds_cycles(
    edges: dict[str, set[str]], expected: list[list[str]]
) -> None:
    assert _cycles(edges) == expected


def _bare_any(annotation: ast.expr | None) -> bool:
    """Whether *annotation* holds ``Any``: JSON is named (``JSONObject``, ``JSONMapping``
    from :mod:`lmml_mdit.jsontypes`), so no signature spells ``Any`` out."""
    if annotation is None:
        return False
    return re.search(r"\bAny\b", ast.unparse(annotation)) is not None


def _public_signatures() -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The public functions and methods of every module, private modules too: the public
    names live there (``Bundle`` in ``lmml_mdit.bundle._bundle``), re-exported."""
    for module in MODULES:
        body = TREES[module].body
        classes = [(node.name + ".", node.body) for node in body if isinstance(node, ast.ClassDef)]
        for owner, members in [("", body), *classes]:
            if owner.startswith("_"):
                continue
            for node in members:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    not node.name.startswith("_") or node.name == "__init__"
                ):
                    yield f"{module}:{owner}{node.name}", node


def test_no_any_in_a_public_signature() -> None:
    """Where layers meet the types are named (a Protocol, ``object`` for JSON coming in),
    so mypy checks every seam."""
    found = []
    for where, function in _public_signatures():
        arguments = function.args
        every = [
            *arguments.posonlyargs,
            *arguments.args,
            *arguments.kwonlyargs,
            *([arguments.vararg] if arguments.vararg else []),
            *([arguments.kwarg] if arguments.kwarg else []),
        ]
        untyped = [argument.arg for argument in every if _bare_any(argument.annotation)]
        if _bare_any(function.returns):
            untyped.append("return")
        if untyped:
            found.append(f"{where} {untyped}")
    assert found == []


def test_the_signatures_read_include_the_private_modules() -> None:
    read = {where.partition(" ")[0] for where, _ in _public_signatures()}
    assert "lmml_mdit.bundle._bundle:Bundle.messages" in read
    assert "lmml_mdit.chat._outgoing:request_body" in read


def _public_attributes() -> Iterator[tuple[str, ast.expr]]:
    """The annotated attributes of every public class, private modules too: a caller reads
    each one, and a dataclass's fields are its ``__init__``'s parameters."""
    for module in MODULES:
        for node in TREES[module].body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                for member in node.body:
                    if (
                        isinstance(member, ast.AnnAssign)
                        and isinstance(member.target, ast.Name)
                        and not member.target.id.startswith("_")
                    ):
                        yield f"{module}:{node.name}.{member.target.id}", member.annotation


def test_no_any_in_a_public_attribute() -> None:
    """What a returned object carries (``MessageList.system``) and what a dataclass takes
    (``ToolCallEvent.arguments``) is typed as the signatures are: JSON named, never ``Any``."""
    found = [where for where, annotation in _public_attributes() if _bare_any(annotation)]
    assert found == []


def test_the_attributes_read_include_the_private_modules() -> None:
    read = {where for where, _ in _public_attributes()}
    assert "lmml_mdit.chat._outgoing:MessageList.system" in read
    assert "lmml_mdit.chat.providers.sending:ToolCallEvent.arguments" in read


@pytest.mark.parametrize(
    ("annotation", "bare"),
    [("Any", True), ("dict[str, Any]", True), ("JSONObject", False), ("object", False)],
)
def test_the_any_finder_finds_any(annotation: str, bare: bool) -> None:
    expression = ast.parse(annotation, mode="eval").body
    assert _bare_any(expression) is bare


def test_the_architecture_page_draws_the_code() -> None:
    """``docs/architecture.md`` lists every module once, under its own layer, the layers in
    the declared order."""
    page = _architecture_page()
    listed: dict[str, str] = {}
    sections: list[str] = []
    layer = None
    for line in page.splitlines():
        heading = re.match(r"^### (\w+)$", line)
        if heading:
            layer = heading[1]
            sections.append(layer)
        row = re.match(r"^\| `(lmml_mdit[\w.]*)` \|", line)
        if row and layer is not None:
            assert row[1] not in listed, row[1]
            listed[row[1]] = layer
    assert sections == list(LAYERS)
    assert listed == {module: layer_of(module) for module in MODULES}


def _architecture_page() -> str:
    return (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_the_architecture_diagram_draws_the_declared_order() -> None:
    block = _architecture_page().split("```text\n", 1)[1].split("```", 1)[0]
    drawn = [line.split()[0] for line in block.splitlines() if line.strip() not in ("", "│")]
    assert drawn == list(reversed(LAYERS))


def test_every_file_the_page_says_to_touch_holds_code() -> None:
    """A file named under "touch these files" exists and is where the code is, not a
    public path that only re-exports a private module's names."""
    guides = _architecture_page().split("## To add a", 1)[1]
    named = set(re.findall(r"`(lmml_mdit/[\w/]+\.py)`", guides))
    assert named
    for path in sorted(named):
        tree = ast.parse((PACKAGE.parent / path).read_text(encoding="utf-8"))
        defines = [
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Assign | ast.AnnAssign)
            and not (isinstance(node, ast.Assign) and _names_all(node))
        ]
        assert defines, f"{path} only re-exports: name the module that holds the code"


def _names_all(node: ast.Assign) -> bool:
    return [getattr(target, "id", None) for target in node.targets] == ["__all__"]


def test_no_two_public_classes_share_a_name() -> None:
    """One class per idea: two public classes of one name are two ideas, or one written
    twice."""
    seen: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                seen.setdefault(node.name, []).append(str(path.relative_to(PACKAGE.parent)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_the_architecture_page_lists_every_delegation() -> None:
    """The table of delegations on the page is the test's two lists."""
    rows = re.findall(
        r"^ *\| `(lmml_mdit[\w.]*)` \| `(lmml_mdit[\w.]*)` \| (on call|on first use|types only) \|",
        _architecture_page(),
        re.MULTILINE,
    )
    assert len(rows) == len(set(rows))
    assert {(source, target) for source, target, runs in rows if runs != "types only"} == set(
        DELEGATIONS
    )
    assert {(source, target) for source, target, runs in rows if runs == "types only"} == set(
        TYPED_DELEGATIONS
    )
    lazy = {(found.source, found.target) for found in ALL_IMPORTS if found.lazy}
    assert {(source, target) for source, target, runs in rows if runs == "on first use"} == (
        set(DELEGATIONS) & lazy
    )


def _modules_naming(names: frozenset[str]) -> set[str]:
    """The modules outside ``chat.providers`` with a string literal equal to one of *names*."""
    found: set[str] = set()
    for module in MODULES:
        if module.startswith("lmml_mdit.chat.providers"):
            continue
        for node in ast.walk(TREES[module]):
            if isinstance(node, ast.Constant) and node.value in names:
                found.add(module)
                break
    return found


# The modules that still name a chat format outside the providers, each with why; the list
# may only shrink (issue 27 moves each into its provider module or derives the name from
# the registry). None of them can read the registry: it sits in the chat layer above them.
NAMING_A_FORMAT_TODAY = {
    "lmml_mdit.formats": "the default provider, written once below every layer, so that "
    "Bundle's methods (bundle layer) and chat._format_names (the CLI's start-up) share it "
    "without loading a format",
    "lmml_mdit.conversation._remote": "FILE_ID_PROVIDERS: the services that issue the file ids a "
    "remote asset holds (OpenAI's Files API for Chat and Responses, Anthropic's), checked by "
    "Bundle.validate before any format loads",
    "lmml_mdit.narrative._native": "NATIVE_PROVIDERS: the names a native item's fence may "
    "start with, read by the narrative parser before any format loads (tests/"
    "test_native_items.py keeps it equal to the registry's built-in providers)",
    "lmml_mdit.syntax._roles": "not a format: 'gemini' is a speaker label people write "
    "('Gemini:'), among 'chatgpt', 'claude' and 'copilot', read as the assistant",
}


def test_no_new_module_names_a_chat_format() -> None:
    from lmml_mdit.chat.providers import FORMATS

    naming = _modules_naming(frozenset(FORMATS))
    assert naming <= set(NAMING_A_FORMAT_TODAY), (
        f"name it through the registry: {sorted(naming - set(NAMING_A_FORMAT_TODAY))}"
    )
    assert naming == set(NAMING_A_FORMAT_TODAY), (
        f"drop from the list: {sorted(set(NAMING_A_FORMAT_TODAY) - naming)}"
    )


def _private_module(module: str) -> bool:
    """Whether *module* is a private module inside a subpackage (``lmml_mdit.chat._content``)."""
    return any(part.startswith("_") for part in module.split(".")[2:])


def _private_reaches() -> set[tuple[str, str]]:
    """The (module, private name) pairs where a module imports a ``_name`` of another
    subpackage's module, or anything from another subpackage's private module (a
    subpackage's own private modules and names are its business)."""
    found: set[tuple[str, str]] = set()
    for module in MODULES:
        for node in ast.walk(TREES[module]):
            if isinstance(node, ast.Import):
                found |= {
                    (module, alias.name)
                    for alias in node.names
                    if alias.name in MODULES
                    and layer_of(alias.name) != layer_of(module)
                    and _private_module(alias.name)
                }
            if not isinstance(node, ast.ImportFrom):
                continue
            target = _absolute(module, node)
            if target not in MODULES or layer_of(target) == layer_of(module):
                continue
            if _private_module(target):
                found.add((module, target))
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.add((module, f"{target}.{alias.name}"))
    return found


# The imports of another subpackage's private names left; the list may only shrink (each
# wants a public name in its own package).
REACHING_INTO_PRIVATES_TODAY: frozenset[tuple[str, str]] = frozenset()


def test_no_module_imports_another_packages_private_name() -> None:
    found = _private_reaches()
    assert found <= REACHING_INTO_PRIVATES_TODAY, (
        f"use the package's public name: {sorted(found - REACHING_INTO_PRIVATES_TODAY)}"
    )
    assert found == REACHING_INTO_PRIVATES_TODAY, (
        f"drop from the list: {sorted(REACHING_INTO_PRIVATES_TODAY - found)}"
    )
