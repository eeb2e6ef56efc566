"""The package surface: every exported name is the API object, never a shadowing submodule."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import subprocess
import sys
import types
from pathlib import Path

import lmml_mdit


def test_every_export_resolves_to_an_api_object_after_all_submodules_load() -> None:
    for module in pkgutil.walk_packages(lmml_mdit.__path__, "lmml_mdit."):
        importlib.import_module(module.name)
    for name in lmml_mdit.__all__:
        value = getattr(lmml_mdit, name)
        assert not isinstance(value, types.ModuleType), name


def test_every_error_derives_from_lmml_error() -> None:
    errors = importlib.import_module("lmml_mdit.errors")
    classes = [value for value in vars(errors).values() if isinstance(value, type)]
    warnings = [cls for cls in classes if issubclass(cls, Warning)]
    assert lmml_mdit.LmmlWarning in warnings  # the others live here too (the next test)
    assert all(issubclass(cls, lmml_mdit.LmmlWarning) for cls in warnings)
    assert all(issubclass(cls, lmml_mdit.LmmlError) for cls in classes if cls not in warnings)


def test_every_warning_class_is_in_errors() -> None:
    """One module holds every error and warning class; the others only import them."""
    package = Path(lmml_mdit.__file__).parent
    for path in package.rglob("*.py"):
        if path.name == "errors.py" and path.parent == package:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                bases = {ast.unparse(base) for base in node.bases}
                assert not any(base.endswith("Warning") for base in bases), (path, node.name)


def test_every_error_class_is_used_by_the_package() -> None:
    """No error class is documented but never raised: each is named by some module."""
    package = Path(lmml_mdit.__file__).parent
    sources = [
        path.read_text(encoding="utf-8")
        for path in package.rglob("*.py")
        if path.parent != package or path.name not in ("__init__.py", "errors.py")
    ]
    errors = importlib.import_module("lmml_mdit.errors")
    names = [name for name, value in vars(errors).items() if isinstance(value, type)]
    unused = [
        name for name in names if not any(re.search(rf"\b{name}\b", text) for text in sources)
    ]
    assert names and unused == []


def test_import_is_lazy() -> None:
    code = (
        "import sys, lmml_mdit; print(sorted(m for m in sys.modules if m.startswith('lmml_mdit.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert "lmml_mdit.chat" not in loaded.stdout
    assert "lmml_mdit.preview._page" not in loaded.stdout


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        _ = lmml_mdit.no_such_name  # type: ignore[attr-defined]
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def _drawn_tree() -> list[tuple[int, str, tuple[str, ...]]]:
    """The tree in ``errors.py``'s docstring: (depth, class, builtin bases) per line."""
    errors = importlib.import_module("lmml_mdit.errors")
    assert errors.__doc__ is not None
    drawing = errors.__doc__.split("::", 1)[1]
    rows = []
    for line in drawing.splitlines():
        found = re.match(r"^(?P<lead>[ │├└─]*)(?P<name>\w+)(?: \[(?P<builtins>[\w, ]+)\])?$", line)
        if found is None:
            continue
        depth = len(found["lead"]) // 4 - 1  # the drawing is indented one level
        builtins = tuple(found["builtins"].split(", ")) if found["builtins"] else ()
        rows.append((depth, found["name"], builtins))
    return rows


def test_the_error_tree_in_the_docstring_is_the_class_tree_in_file_order() -> None:
    errors = importlib.import_module("lmml_mdit.errors")
    classes = [value for value in vars(errors).values() if isinstance(value, type)]
    drawn = _drawn_tree()
    assert [name for _, name, _ in drawn] == [cls.__name__ for cls in classes]
    parents: list[str] = []
    for depth, name, builtins in drawn:
        del parents[depth:]
        cls = getattr(errors, name)
        own_bases = [base.__name__ for base in cls.__bases__ if base.__module__ == errors.__name__]
        assert own_bases == parents[-1:], name
        assert tuple(base.__name__ for base in cls.__bases__ if base.__module__ == "builtins") == (
            builtins
            if parents
            else ("UserWarning",)
            if issubclass(cls, Warning)
            else ("Exception",)
        ), name
        parents.append(name)


def _all_order(name: str) -> tuple[int, str]:
    """ruff's order of ``__all__``: constants, classes, then the rest."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def test_every_warning_derives_from_lmml_warning() -> None:
    """One filter on ``LmmlWarning`` takes every warning class the package defines."""
    for module in pkgutil.walk_packages(lmml_mdit.__path__, "lmml_mdit."):
        importlib.import_module(module.name)
    defined = [
        value
        for name in sys.modules
        if name.startswith("lmml_mdit")
        for value in vars(sys.modules[name]).values()
        if isinstance(value, type) and issubclass(value, Warning) and value.__module__ == name
    ]
    assert len(defined) >= 8
    assert all(issubclass(cls, lmml_mdit.LmmlWarning) for cls in defined), defined
    assert issubclass(lmml_mdit.LmmlWarning, UserWarning)
    names = {cls.__name__ for cls in defined}
    assert names <= set(lmml_mdit.__all__)


def test_the_api_table_is_the_surface() -> None:
    """``API`` drives ``__all__``; the type checker's imports name the same names."""
    table = {name for names in lmml_mdit.API.values() for name in names}
    assert lmml_mdit.__all__ == sorted((table - {"open"}) | {"__version__"}, key=_all_order)
    source = Path(lmml_mdit.__file__).read_text(encoding="utf-8")
    block = source.split("if TYPE_CHECKING:", 1)[1].split("\nAPI", 1)[0]
    for module, names in lmml_mdit.API.items():
        assert f"from {module} import" in block, module
        for name in names:
            assert re.search(rf"\b{name}\b", block), name
            assert getattr(importlib.import_module(module, "lmml_mdit"), name) is getattr(
                lmml_mdit, name
            )
    assert "open" not in lmml_mdit.__all__ and callable(lmml_mdit.open)


# What a package's ``__all__`` leaves out of its names on purpose: ``open``, so that
# ``import *`` keeps the builtin (both packages write their ``__all__`` out, so that type
# checkers read the same).
LEFT_OUT_OF_ALL = {"lmml_mdit": {"open"}, "lmml_mdit.chat": {"open"}}


def test_each_package_all_is_the_names_it_imports_on_first_use_and_its_own() -> None:
    """A package's ``__all__`` names what it imports on first use and what it binds itself
    (an explicit re-export, a function or class it defines), each once, in ruff's order:
    a name missing from either list, or listed in ``__all__`` alone, fails."""
    from lmml_mdit.lazy import public_names
    from tests._surfaces import lazy_packages, own_names

    for package, lazy in lazy_packages():
        name = package.__name__
        own = own_names(package) | ({"__version__"} if package is lmml_mdit else set())
        assert package.__all__ == public_names({*lazy, *own} - LEFT_OUT_OF_ALL.get(name, set()))
        for left_out in LEFT_OUT_OF_ALL.get(name, ()):
            assert callable(getattr(package, left_out)), (name, left_out)
        namespace: dict[str, object] = {}
        exec(f"from {name} import *", namespace)
        assert set(namespace) - {"__builtins__"} == set(package.__all__), name


def test_the_errors_page_lists_every_warning() -> None:
    """Each warning class has its row in the table of docs/errors.md."""
    errors = importlib.import_module("lmml_mdit.errors")
    page = (Path(__file__).parent.parent / "docs" / "errors.md").read_text(encoding="utf-8")
    warnings = [
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, lmml_mdit.LmmlWarning)
    ]
    missing = [name for name in warnings if name != "LmmlWarning" and f"| `{name}` |" not in page]
    assert missing == []


def test_each_warning_imports_from_the_module_its_row_names() -> None:
    """The errors page's warning table gives the module that issues each warning, and the
    page promises it is importable there: it is, as the very class of ``lmml_mdit``."""
    page = (Path(__file__).parent.parent / "docs" / "errors.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+Warning)` \| `([\w.]+)` \|", page, flags=re.M)
    assert len(rows) >= 10
    wrong = [
        f"{module}.{name}"
        for name, module in rows
        if getattr(importlib.import_module(module), name, None) is not getattr(lmml_mdit, name)
    ]
    assert wrong == []


# Names the docs gave at a module's path before its package made its modules private; each
# must stay importable there and be the package's own object (issue 27: moved names stay
# importable from their documented place).
DOCUMENTED_BEFORE = (
    "lmml_mdit.dataset.arrow.from_arrow",
    "lmml_mdit.dataset.arrow.iter_from_arrow",
    "lmml_mdit.dataset.arrow.to_arrow",
    "lmml_mdit.dataset.hf.hf_rows",
    "lmml_mdit.dataset.parquet.import_parquet",
    "lmml_mdit.dataset.parquet.read_parquet",
    "lmml_mdit.dataset.parquet.write_parquet",
    "lmml_mdit.dataset.schema.conversation_schema",
    "lmml_mdit.lsp.document.analyse",
    "lmml_mdit.lsp.server.build_server",
    "lmml_mdit.lsp.server.serve",
    "lmml_mdit.preview.markdown.display_markdown",
    "lmml_mdit.preview.page.render_html",
    "lmml_mdit.preview.page.MAX_HIGHLIGHT_CHARS",
    "lmml_mdit.toolchain.formatter.format_text",
    "lmml_mdit.toolchain.sphinx.setup",
    "lmml_mdit.ray.datasource.read_lmml",
    "lmml_mdit.ray.datasink.write_lmml",
    "lmml_mdit.ray.batches.add_payloads",
    "lmml_mdit.ray.batches.validate_batch",
    "lmml_mdit.ray.batches.render_case_batch",
    "lmml_mdit.ray.evaluation.eval_batches",
    "lmml_mdit.run.api.SendOptions",
    "lmml_mdit.run.api.StreamOptions",
    "lmml_mdit.bundle.inputs.InputSpec",
    "lmml_mdit.chat.handlers.TextPart",
    "lmml_mdit.chat.content.RequestOptions",
    "lmml_mdit.chat.content.SystemContentWarning",
    "lmml_mdit.chat.content.MissingSettingWarning",
    "lmml_mdit.chat.detect.detect_format",
    "lmml_mdit.chat.escape.escape_text",
    "lmml_mdit.chat.export.export_folder",
    "lmml_mdit.chat.handlers.Asset",
    "lmml_mdit.chat.imported.ImportedConversation",
    "lmml_mdit.chat.importer.Progress",
    "lmml_mdit.chat.importer.READ_CHUNK",
    "lmml_mdit.chat.importer.MAX_DEPTH",
    "lmml_mdit.chat.importer.import_path",
    "lmml_mdit.chat.midway.place_midway_system",
    "lmml_mdit.chat.native.NativeItemDroppedWarning",
    "lmml_mdit.chat.opening.open",
    "lmml_mdit.chat.outgoing.request_body",
    "lmml_mdit.chat.outgoing.messages",
    "lmml_mdit.chat.pieces.cut_offsets",
    "lmml_mdit.chat.pieces.PIECE_CHARACTERS",
    "lmml_mdit.chat.template.ChatTokenizer",
    "lmml_mdit.chat.template.flatten",
    "lmml_mdit.chat.tools.ToolSpec",
    "lmml_mdit.chat.tools.NativeTool",
    "lmml_mdit.chat.tools.ToolChoice",
    "lmml_mdit.chat.tools.OutputSchema",
    "lmml_mdit.chat.tools.portable_tools",
    "lmml_mdit.chat.tools.from_native",
    "lmml_mdit.chat.tools.to_native",
    "lmml_mdit.chat.tools.portable_choice",
    "lmml_mdit.chat.tools.choice_from_native",
    "lmml_mdit.chat.tools.choice_owner",
    "lmml_mdit.chat.tools.choice_to_native",
    "lmml_mdit.chat.tools.portable_output",
    "lmml_mdit.chat.tools.output_from_native",
    "lmml_mdit.chat.tools.output_to_native",
    "lmml_mdit.chat.tools.portable_settings",
    "lmml_mdit.chat.tools.provider_settings",
    "lmml_mdit.chat.writer.save_conversation",
    "lmml_mdit.narrative.toolcalls.ToolCall",
    "lmml_mdit.narrative.images.markdown_images",
    "lmml_mdit.narrative.images.unsent_image_issues",
    "lmml_mdit.narrative.index.StructureIndex",
    "lmml_mdit.narrative.index.Records",
    "lmml_mdit.narrative.index.Block",
    "lmml_mdit.narrative.index.Fence",
    "lmml_mdit.narrative.index.Delimiter",
    "lmml_mdit.narrative.index.AttachmentParagraph",
    "lmml_mdit.narrative.narrative.Narrative",
    "lmml_mdit.narrative.narrative.parse",
    "lmml_mdit.narrative.narrative.parse_shared",
    "lmml_mdit.narrative.narrative.numbered_turns",
    "lmml_mdit.narrative.narrative.PARSE_CACHE_BYTES",
    "lmml_mdit.narrative.native.NATIVE_PROVIDERS",
    "lmml_mdit.narrative.native.native_name",
    "lmml_mdit.narrative.native.is_structure_name",
    "lmml_mdit.narrative.placeholders.Placeholder",
    "lmml_mdit.narrative.toolcalls.tool_call_fence",
    "lmml_mdit.narrative.toolcalls.tool_calls",
    "lmml_mdit.syntax.triggers.INLINE_TRIGGERS",
    "lmml_mdit.syntax.positions.FoundInline",
    "lmml_mdit.syntax.deferred.records_in_place",
    "lmml_mdit.syntax.links.LinkParser",
    "lmml_mdit.syntax.links.normalize_link",
    "lmml_mdit.syntax.blocks.DispatchingBlockParser",
    "lmml_mdit.syntax.write.embed_fence",
    "lmml_mdit.syntax.write.check_fenceable",
    "lmml_mdit.syntax.write.code_fence",
    "lmml_mdit.syntax.write.code_fence_marker",
    "lmml_mdit.syntax.write.reference",
    "lmml_mdit.syntax.write.escape_at",
    "lmml_mdit.transcript.message.Message",
    "lmml_mdit.transcript.message.MessageRef",
    "lmml_mdit.transcript.message.Pov",
    "lmml_mdit.transcript.message.MAX_METADATA_DEPTH",
    "lmml_mdit.transcript.encoding.encode_author",
    "lmml_mdit.transcript.encoding.decode_author",
    "lmml_mdit.transcript.regions.message_turns",
    "lmml_mdit.transcript.source.SourceNarrative",
    "lmml_mdit.transcript.plans.plan_messages",
    "lmml_mdit.transcript.readback.settle",
    "lmml_mdit.transcript.record.record_of",
    "lmml_mdit.transcript.writing.write_bundle",
    "lmml_mdit.transcript.writing.narrative_text",
    "lmml_mdit.transcript.reading.read_bundle",
    "lmml_mdit.transcript.jsonfile.SCHEMA_VERSION",
    "lmml_mdit.transcript.parts.content_parts",
    "lmml_mdit.transcript.rendering.Renderable",
    "lmml_mdit.transcript.transcript.Transcript",
    "lmml_mdit.bundle.bundle.Bundle",
    "lmml_mdit.bundle.bundle.DefectWarning",
    "lmml_mdit.bundle.bundle.CLOSEST_NAME_BUDGET",
    "lmml_mdit.bundle.opening.open_bundle",
    "lmml_mdit.bundle.opening.STREAM_CHUNK",
    "lmml_mdit.bundle.packing.OrphanedEntryWarning",
    "lmml_mdit.bundle.packing.inline_assets",
    "lmml_mdit.bundle.remote.parse_remote",
    "lmml_mdit.bundle.remote.remote_entry",
    "lmml_mdit.bundle.saving.save_bundle",
    "lmml_mdit.bundle.saving.save_archive",
    "lmml_mdit.bundle.setting_values.range_problems",
    "lmml_mdit.bundle.source.BundleSource",
    "lmml_mdit.bundle.validation.find_issues",
    "lmml_mdit.cli.parser.COMMANDS",
    "lmml_mdit.cli.parser.build_parser",
    "lmml_mdit.cli.parser.parse_arguments",
    "lmml_mdit.cli.table.command",
    "lmml_mdit.cli.output.shown",
    "lmml_mdit.cli.progress.ProgressLine",
    "lmml_mdit.cli.arguments.Arguments",
    "lmml_mdit.cli.options.Parser",
    "lmml_mdit.cli.options.add_bundle",
    "lmml_mdit.cli.options.add_quiet",
    "lmml_mdit.cli.sources.open_source",
    "lmml_mdit.cli.inspection.cmd_validate",
    "lmml_mdit.cli.render.cmd_render",
    "lmml_mdit.cli.rewrite.cmd_pack",
    "lmml_mdit.cli.interchange.cmd_import",
    "lmml_mdit.cli.templates.cmd_inputs",
    "lmml_mdit.cli.toolchain.cmd_fmt",
)


def test_a_name_documented_at_a_module_path_still_imports_from_it() -> None:
    for dotted in DOCUMENTED_BEFORE:
        module_name, name = dotted.rsplit(".", 1)
        module = importlib.import_module(module_name)
        value = getattr(module, name)
        package = importlib.import_module(module_name.rsplit(".", 1)[0])
        if name in getattr(package, "__all__", ()):
            assert getattr(package, name) is value, dotted
