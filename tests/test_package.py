"""The package surface: every exported name is the API object, never a shadowing submodule."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import types

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


def test_import_is_lazy() -> None:
    code = (
        "import sys, lmml_mdit; print(sorted(m for m in sys.modules if m.startswith('lmml_mdit.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert "lmml_mdit.bridge" not in loaded.stdout
    assert "lmml_mdit.preview" not in loaded.stdout


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        _ = lmml_mdit.no_such_name  # type: ignore[attr-defined]
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")
