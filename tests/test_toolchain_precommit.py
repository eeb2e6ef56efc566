"""The pre-commit hooks, run by the real ``pre-commit try-repo`` on a temporary git
repository holding a good and a bad bundle.

``try-repo`` installs the hooks' repository into a virtual environment of its own,
fetching the dependencies from the package index. The repository it is given is a
commit of this tree's package files (so it tests the working tree, committed or not,
checkout or not); ``PRE_COMMIT_HOME`` in a temporary folder keeps its environments apart
from the user's cache, and the second run reuses the first one's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _installed import ROOT

import lmml_mdit
from lmml_mdit import Bundle

GOOD = "## Turn 1 -- user\n\nLook at @note.txt.\n\n## Turn 2 -- assistant\n\nRead it.\n"
# Unformatted (a list written with "*", no blank line after the heading) and defective
# (a reference to a file that does not exist).
BAD = "## Turn 1 -- user\n* see @missing.txt\n"
# An archive: valid, with its narrative unformatted (the format hook rewrites the entry).
ARCHIVE = "## Turn 1 -- user\n* see @note.txt\n"

_NO_GIT = "pre-commit needs git (apt-get install git)"


def _under_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


@pytest.fixture(autouse=True)
def _git_present() -> None:
    """A skip on a developer machine without git; a failure under CI, which installs it."""
    if shutil.which("git") is None:
        if _under_ci():
            pytest.fail(f"{_NO_GIT}; CI must run the pre-commit tests")
        pytest.skip(_NO_GIT)


def test_the_hooks_file_names_both_hooks() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert {hook["id"]: hook["entry"] for hook in hooks} == {
        "lmml-validate": "lmml validate",
        "lmml-format": "lmml fmt",
    }
    assert all(hook["files"] == r"\.lmmlz?$" for hook in hooks)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


_AUTHOR = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def _hooks_repository(folder: Path) -> Path:
    """A git repository holding this tree's package, committed."""
    shutil.copytree(
        ROOT / "lmml_mdit", folder / "lmml_mdit", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, folder / name)
    _git(folder, "init", "-q")
    _git(folder, "add", ".")
    subprocess.run(
        ["git", "-C", str(folder), "commit", "-q", "-m", "hooks"],
        check=True,
        capture_output=True,
        env={**os.environ, **_AUTHOR},
    )
    return folder


def _try_repo(hooks: Path, repo: Path, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **_AUTHOR, "PRE_COMMIT_HOME": str(home)}
    env.pop("PYTHONPATH", None)  # the hooks must run from their own install
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), "--files", *files],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_try_repo_passes_the_good_file_and_fails_the_bad_one(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "good.lmml").write_text(GOOD)
    (repo / "note.txt").write_text("a note\n")
    (repo / "bad.lmml").write_text(BAD)
    Bundle.from_zip("good", GOOD, {"note.txt": b"a note\n"}).save(repo / "good.lmmlz")
    Bundle.from_zip("messy", ARCHIVE, {"note.txt": b"a note\n"}).save(repo / "messy.lmmlz")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    home = tmp_path / "pre-commit-home"
    hooks = _hooks_repository(tmp_path / "hooks")

    good = _try_repo(hooks, repo, home, "good.lmml", "note.txt", "good.lmmlz")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "lmml validate" in good.stdout and "lmml fmt" in good.stdout
    assert "Failed" not in good.stdout

    bad = _try_repo(hooks, repo, home, "good.lmml", "bad.lmml", "messy.lmmlz")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    output = bad.stdout
    assert "missing_reference" in output or "missing.txt" in output
    assert "files were modified by this hook" in output
    assert (repo / "bad.lmml").read_text() == "## Turn 1 -- user\n\n- see @missing.txt\n"
    assert (repo / "good.lmml").read_text() == GOOD
    # The hooks take archives too: the narrative inside is formatted, the archive valid.
    assert "messy.lmmlz: reformatted" in output
    with lmml_mdit.open(repo / "messy.lmmlz") as archive:
        assert archive.narrative.text == "## Turn 1 -- user\n\n- see @note.txt\n"
        assert archive.read("note.txt") == b"a note\n"
        assert not archive.validate()


def _extra(name: str) -> list[str]:
    """The requirements of the package's extra *name*, as ``pyproject.toml`` declares them
    (read by hand: ``tomllib`` is not in Python 3.10)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = text.split("\n[project.optional-dependencies]\n", 1)[1].split("\n[", 1)[0]
    match = re.search(rf"^{re.escape(name)} = \[([^\]]*)\]", table, flags=re.MULTILINE)
    assert match is not None, name
    return re.findall(r'"([^"]+)"', match.group(1))


def test_the_format_hook_installs_what_the_mdformat_extra_requires() -> None:
    # One fact: the hook's environment gets the mdformat the package's extra asks for.
    from packaging.requirements import Requirement

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = [hook for hook in hooks if hook["id"] == "lmml-format"]
    wanted = sorted(str(Requirement(line)) for line in _extra("mdformat"))
    assert [Requirement(line).name for line in wanted] == ["mdformat"]
    assert sorted(str(Requirement(line)) for line in hook["additional_dependencies"]) == wanted
