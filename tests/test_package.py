"""The package surface: every exported name is the API object, never a shadowing submodule."""

from __future__ import annotations

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
    assert all(issubclass(cls, lmml_mdit.LmmlError) for cls in classes)


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
    assert "lmml_mdit.preview.page" not in loaded.stdout


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        _ = lmml_mdit.no_such_name  # type: ignore[attr-defined]
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")
