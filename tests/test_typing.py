"""A user's code type-checks: tests/typing/readme_tour.py (the README's API tour) passes
``mypy --strict`` and pyright in strict mode, with lmml_mdit found as an installed package
would be."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "tests" / "typing" / "readme_tour.py"


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=600,
        check=False,
    )


def _mypy_strict(program: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` on a user's *program*, lmml_mdit found as an installed package."""
    return _run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",  # the package's own errors are its own check's
            "--python-executable",
            sys.executable,
            "--cache-dir",
            str(tmp_path / "cache"),
            str(program),
        ],
        tmp_path,
        MYPYPATH=str(ROOT),
    )


def test_the_readme_tour_passes_mypy_strict(tmp_path: Path) -> None:
    done = _mypy_strict(PROGRAM, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def _pyright_strict(program: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """pyright in strict mode on *program*, lmml_mdit found as the test venv has it."""
    config = {"typeCheckingMode": "strict", "extraPaths": [str(ROOT)], "pythonVersion": "3.10"}
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return _run(
        [
            sys.executable,
            "-m",
            "pyright",
            "--project",
            str(tmp_path / "pyrightconfig.json"),
            "--pythonpath",
            sys.executable,
            str(program),
        ],
        tmp_path,
    )


def test_the_readme_tour_passes_pyright_strict(tmp_path: Path) -> None:
    done = _pyright_strict(PROGRAM, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\b0 errors, 0 warnings", done.stdout), done.stdout


def test_the_program_follows_the_readme_tour() -> None:
    """Each public name the README's tour calls is one the program calls too."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = readme.split("## A short API tour", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    tour = re.sub(r"#.*", "", tour)  # the comments' own examples are not calls
    program = PROGRAM.read_text(encoding="utf-8")
    names = set(re.findall(r"lmml_mdit\.(\w+)", tour)) | set(re.findall(r"\.(\w+)\(", tour))
    missing = sorted(name for name in names if not re.search(rf"\b{name}\b", program))
    assert missing == []


MISTAKES = """
import lmml_mdit

bundle = lmml_mdit.open("chat.lmml")
bundle.messages("anthropic", contxt="user")
bundle.to_request("openai", system="top")
lmml_mdit.render_payload(bundle, "gemini", strict="yes")
bundle.send("openai", retrys=2)
bundle.stream("openai", stream=True)
lmml_mdit.Transcript.from_bundle(bundle).send("openai", timeout="soon")
"""


def test_a_misspelt_or_wrong_option_is_a_type_error(tmp_path: Path) -> None:
    """The request options are typed keywords: mypy names each mistake of a caller."""
    program = tmp_path / "mistakes.py"
    program.write_text(MISTAKES, encoding="utf-8")
    done = _mypy_strict(program, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'Unexpected keyword argument "contxt"' in done.stdout, done.stdout
    assert 'Unexpected keyword argument "retrys"' in done.stdout, done.stdout
    assert 'Unexpected keyword argument "stream"' in done.stdout, done.stdout
    for line in (6, 7, 10):
        assert f"mistakes.py:{line}: error" in done.stdout, done.stdout


def test_the_typed_send_options_are_the_parameters_of_send() -> None:
    """``SendOptions`` (for type checkers) names exactly what ``send`` takes: its own
    parameters and the request options; ``StreamOptions`` all of them but two."""
    import inspect

    from lmml_mdit.chat import RequestOptions
    from lmml_mdit.run import SendOptions, StreamOptions, send

    own = {
        name
        for name, parameter in inspect.signature(send).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    }
    assert set(SendOptions.__annotations__) == own | set(RequestOptions.__annotations__)
    assert set(SendOptions.__annotations__) - set(StreamOptions.__annotations__) == {
        "stream",
        "on_event",
    }


def test_the_typed_options_are_the_checked_ones() -> None:
    """``RequestOptions`` (for type checkers) and ``Options`` (checked at run time) name the
    same options."""
    import dataclasses

    from lmml_mdit.chat import Options, RequestOptions

    assert set(RequestOptions.__annotations__) == {
        field.name for field in dataclasses.fields(Options)
    }


LAZY_NAMES = """
import argparse

from lmml_mdit.cli import build_parser, shown

parser: argparse.ArgumentParser = build_parser("render")
text: str = shown("name\\x1b[2J")
"""


def test_a_lazily_imported_name_has_its_real_type(tmp_path: Path) -> None:
    """A name a package imports on first use (``lmml_mdit.cli.build_parser``) is typed as
    its definition, not as what the module ``__getattr__`` returns."""
    program = tmp_path / "lazy_names.py"
    program.write_text(LAZY_NAMES, encoding="utf-8")
    done = _mypy_strict(program, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_lazily_imported_name_is_imported_for_type_checkers() -> None:
    """Each package's table of the names it imports on first use and its imports under
    ``if TYPE_CHECKING:`` name the same names from the same modules: a name missing from
    either fails. Where a package computes its ``__all__`` (type checkers cannot read it),
    each import is an explicit re-export (``Name as Name``), or ``mypy --strict`` would not
    see the name at the package's path."""
    import importlib.util

    from tests._surfaces import lazy_packages, typing_only_imports, writes_all

    checked = []
    for package, lazy in lazy_packages():
        imports = typing_only_imports(package)
        assert set(imports) == set(lazy), package.__name__
        for name, module in lazy.items():
            assert imports[name][0] == importlib.util.resolve_name(module, package.__name__), name
        if not writes_all(package):
            implicit = sorted(name for name, (_, explicit) in imports.items() if not explicit)
            assert implicit == [], package.__name__
        checked.append(package.__name__)
    assert {"lmml_mdit", "lmml_mdit.cli", "lmml_mdit.dataset", "lmml_mdit.ray"} <= set(checked)


def _every_surface_name() -> str:
    """A user's program that imports each name of each lazy package's surface by its
    public path and reveals its type."""
    from tests._surfaces import lazy_packages

    lines = []
    for package, lazy in lazy_packages():
        for name in sorted({*package.__all__, *lazy} - {"__version__"}):
            alias = f"{package.__name__.replace('.', '_')}__{name}"
            lines += [f"from {package.__name__} import {name} as {alias}", f"reveal_type({alias})"]
    return "\n".join(lines) + "\n"


def test_every_surface_name_has_its_real_type_for_mypy(tmp_path: Path) -> None:
    """``mypy --strict`` sees every name of every package surface at its public path, each
    with the type of its definition, never the ``object`` of the module ``__getattr__``."""
    program = tmp_path / "surfaces.py"
    program.write_text(_every_surface_name(), encoding="utf-8")
    done = _mypy_strict(program, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    revealed = re.findall(r'Revealed type is "(.*)"', done.stdout)
    assert len(revealed) == program.read_text(encoding="utf-8").count("reveal_type(")
    assert [kind for kind in revealed if kind in ("builtins.object", "Any")] == []


def test_every_surface_name_has_its_real_type_for_pyright(tmp_path: Path) -> None:
    """The same program in pyright's strict mode: no name private or unknown, none ``object``."""
    program = tmp_path / "surfaces.py"
    program.write_text(_every_surface_name(), encoding="utf-8")
    done = _pyright_strict(program, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    revealed = dict(re.findall(r'Type of "(\w+)" is "(.*)"', done.stdout))
    assert len(revealed) == program.read_text(encoding="utf-8").count("reveal_type(")
    assert [name for name, kind in revealed.items() if kind in ("object", "Unknown")] == []
