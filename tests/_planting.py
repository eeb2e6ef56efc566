"""A module planted into a copy of the package: the copy made, the files that differ from
the package listed, and Python run with the copy first on its path (the tests of a chat
format, a command and a reserved embed that are each one module)."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests._cli import ROOT

PACKAGE = ROOT / "lmml_mdit"
"""The package the copies are made of."""


def plant(tmp_path: Path, modules: Mapping[str, str]) -> Path:
    """A copy of the package under ``tmp_path/site``, with each of *modules* (a path inside
    the package, ``"cli/toy.py"``, and its text) written into it; returns ``tmp_path/site``,
    the folder to put on the path."""
    site = tmp_path / "site"
    copy = site / "lmml_mdit"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name, text in modules.items():
        (copy / name).write_text(text, encoding="utf-8")
    return site


def differences(site: Path) -> list[str]:
    """The files of the package copied into *site* that differ from the package's own,
    each named by its path inside the package, sorted."""
    return _differences(filecmp.dircmp(PACKAGE, site / "lmml_mdit", ignore=["__pycache__"]))


def _differences(compared: filecmp.dircmp[str], prefix: str = "") -> list[str]:
    found = [f"{prefix}{name} (only in the package)" for name in compared.left_only]
    found += [f"{prefix}{name} (only in the copy)" for name in compared.right_only]
    found += [f"{prefix}{name} (changed)" for name in compared.diff_files]
    for name, below in sorted(compared.subdirs.items()):
        found += _differences(below, f"{prefix}{name}/")
    return sorted(found)


def run_python(
    path: Path,
    *arguments: str,
    cwd: Path,
    environ: Mapping[str, str] | None = None,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``python ARGUMENTS`` (this interpreter) in *cwd*, with *path* (a site folder or a
    zip archive) as its ``PYTHONPATH``, its output captured as text.

    :param environ: the rest of its environment; by default this process's.
    :param check: raise for a non-zero exit status.
    """
    env = {**(os.environ if environ is None else environ), "PYTHONPATH": str(path)}
    return subprocess.run(
        [sys.executable, *arguments],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=check,
    )
