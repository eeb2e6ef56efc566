"""The sdist is complete: built from this checkout, unpacked in a temporary folder, its own
tests collect and a fast subset of them passes there, against the sources it ships."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FAST_SUBSET = [
    "tests/test_fixtures.py",
    "tests/test_readme.py",
    "tests/test_package.py",
    "tests/test_bundle_open.py",
]
"""Tests that read the shipped fixtures, examples, README and package, in a few seconds."""


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sdist")
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    (archive,) = out.glob("lmml_mdit-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(out, filter="data")
    (folder,) = (path for path in out.iterdir() if path.is_dir())
    return folder


def test_the_sdist_ships_what_the_suite_needs(unpacked: Path) -> None:
    shipped = {path.relative_to(unpacked).as_posix() for path in unpacked.rglob("*")}
    if (ROOT / ".git").exists():
        tracked = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    else:  # run from an unpacked sdist: a new sdist must hold all that this one does
        made = {"__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache", "test-artifacts"}
        tracked = [
            path.relative_to(ROOT).as_posix()
            for path in ROOT.rglob("*")
            if path.is_file()
            and made.isdisjoint(path.parts)
            and not any(part.endswith(".egg-info") for part in path.parts)
        ]
    wanted = {name for name in tracked if not name.startswith((".ci/", ".gitignore"))}
    assert wanted - shipped == set()
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in shipped)


def test_a_fast_subset_passes_from_the_unpacked_sdist(unpacked: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(unpacked)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *FAST_SUBSET],
        cwd=unpacked,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " passed" in done.stdout
    imported = subprocess.run(
        [sys.executable, "-c", "import lmml_mdit; print(lmml_mdit.__file__)"],
        cwd=unpacked,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert Path(imported.strip()).is_relative_to(unpacked)
