"""The bundles the benchmark scripts build are ones the library takes as they mean them.

A benchmark asserts on what it measures (``bench_bundle.py`` measures ``validate()`` of a
clean bundle): when a later check starts reporting its input, the script stops with an
assertion instead of printing figures. These tests build the same inputs, small, and hold
them to what the script asserts; no time or memory is measured here.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

import lmml_mdit

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _script(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The benchmark script *name* as a module (its sibling ``goals`` importable)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_bench_bundle_many_assets_validates_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _script("bench_bundle", monkeypatch)
    path = bench.build_many(str(tmp_path), 5, 1)
    with lmml_mdit.open(path) as bundle:
        assert len(bundle.entries) == 5
        assert bundle.validate() == []


def test_bench_bundle_big_asset_opens_and_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _script("bench_bundle", monkeypatch)
    for deflate in (False, True):
        path = bench.build_big(str(tmp_path), 1, deflate)
        with lmml_mdit.open(path) as bundle:
            assert len(bundle.read("big.bin")) == bench.MB
