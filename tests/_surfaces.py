"""The package surfaces that import names on first use: each package, its table of those
names, and what its source writes for type checkers."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import types
from pathlib import Path

import lmml_mdit


def lazy_packages() -> list[tuple[types.ModuleType, dict[str, str]]]:
    """Each package whose module ``__getattr__`` imports names on first use, with its table
    of them (each name by its module, as the package wrote it)."""
    names = ["lmml_mdit"] + [
        info.name for info in pkgutil.walk_packages(lmml_mdit.__path__, "lmml_mdit.") if info.ispkg
    ]
    found = []
    for name in names:
        package = importlib.import_module(name)
        getter = vars(package).get("__getattr__")
        cells = getattr(getter, "__closure__", None) or ()
        tables = [cell.cell_contents for cell in cells if isinstance(cell.cell_contents, dict)]
        if tables:
            found.append((package, dict(tables[0])))
    return found


def source_of(package: types.ModuleType) -> ast.Module:
    assert package.__file__ is not None
    return ast.parse(Path(package.__file__).read_text(encoding="utf-8"))


def typing_only_imports(package: types.ModuleType) -> dict[str, tuple[str, bool]]:
    """The package's names imported under ``if TYPE_CHECKING:`` from the package itself:
    each one's module (absolute) and whether it is written as an explicit re-export
    (``from ._module import Name as Name``)."""
    found: dict[str, tuple[str, bool]] = {}
    for node in source_of(package).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for inner in ast.walk(node):
                if not isinstance(inner, ast.ImportFrom):
                    continue
                module = importlib.util.resolve_name(
                    "." * inner.level + (inner.module or ""), package.__name__
                )
                if module.startswith("lmml_mdit"):
                    for alias in inner.names:
                        found[alias.asname or alias.name] = (module, alias.asname == alias.name)
    return found


def own_names(package: types.ModuleType) -> set[str]:
    """The public names the package binds itself when imported: its explicit re-exports
    (``from ._module import Name as Name``) and the functions and classes it defines."""
    found: set[str] = set()
    for node in source_of(package).body:
        if isinstance(node, ast.ImportFrom):
            found.update(alias.name for alias in node.names if alias.asname == alias.name)
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            found.add(node.name)
    return found


def writes_all(package: types.ModuleType) -> bool:
    """Whether the package writes its ``__all__`` out, where type checkers read it (rather
    than computing it at run time, under ``if not TYPE_CHECKING:``)."""
    return any(
        isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]
        for node in source_of(package).body
    )
