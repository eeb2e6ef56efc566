"""The package's installed metadata, as a wheel built from this tree declares it.

The tools LMML plugs into (mdformat, Pygments, pre-commit) find it through entry points in
the installed metadata. A wheel built from the working tree carries the entry points
``pyproject.toml`` declares now; its ``.dist-info`` folder, put first on ``sys.path`` (or
``PYTHONPATH`` for a subprocess), is what those tools read, exactly as after
``pip install``.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def built_wheel() -> Path:
    """A wheel of this tree, built once per test run (``pip wheel``, its build backend
    fetched as for any install)."""
    folder = Path(tempfile.mkdtemp(prefix="lmml-wheel-"))
    # Built from a copy: a build leaves its egg-info beside the sources, where it would be
    # found as installed metadata of this tree for the rest of the run.
    source = folder / "source"
    shutil.copytree(
        ROOT / "lmml_mdit", source / "lmml_mdit", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(source)],
        check=True,
        timeout=600,
        capture_output=True,
    )
    return next(folder.glob("*.whl"))


@functools.cache
def metadata_folder() -> Path:
    """A folder holding only the wheel's ``.dist-info``: the metadata, not the code (the
    code is this tree's, on the path already)."""
    wheel = built_wheel()
    site = wheel.parent / "metadata"
    with zipfile.ZipFile(wheel) as archive:
        members = [
            name for name in archive.namelist() if ".dist-info/" in name.split("/", 1)[0] + "/"
        ]
        archive.extractall(site, members)
    return site


def entry_points_text() -> str:
    """The wheel's ``entry_points.txt``."""
    with zipfile.ZipFile(built_wheel()) as archive:
        name = next(
            item for item in archive.namelist() if item.endswith(".dist-info/entry_points.txt")
        )
        return archive.read(name).decode("utf-8")


def subprocess_env() -> dict[str, str]:
    """The environment for a tool run in a subprocess: the metadata and this tree first."""
    env = dict(os.environ)
    parts = [str(metadata_folder()), str(ROOT), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(part for part in parts if part)
    return env
