"""A user's code type-checks: tests/typing/readme_tour.py (the README's API tour) passes
``mypy --strict`` and pyright in strict mode, with lmml_mdit found as an installed package
would be."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

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


def _mypy_strict(programs: list[Path], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` on a user's *programs*, lmml_mdit found as an installed package."""
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
            *map(str, programs),
        ],
        tmp_path,
        MYPYPATH=str(ROOT),
    )


@dataclass(frozen=True)
class Checked:
    """One ``mypy --strict`` run over every program of this file and one pyright run over
    the three it checks: each run loads the package's types once, not once per test."""

    programs: dict[str, Path]
    mypy: subprocess.CompletedProcess[str]
    pyright: subprocess.CompletedProcess[str]

    def mypy_lines(self, program: Path) -> list[str]:
        """mypy's lines about *program* (each program's file name is its own), once it is
        known that mypy ran to its end (its summary names one file with errors: mistakes.py)."""
        assert re.search(
            r"^Found \d+ errors? in 1 file \(checked 5 source files\)$", self.mypy.stdout, re.M
        ), self.mypy.stdout + self.mypy.stderr
        return [
            line
            for line in self.mypy.stdout.splitlines()
            if Path(line.split(":", 1)[0]).name == program.name
        ]

    def mypy_errors(self, program: Path) -> list[str]:
        return [line for line in self.mypy_lines(program) if ": error:" in line]


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Checked:
    folder = tmp_path_factory.mktemp("typing")
    programs = {"readme_tour": PROGRAM}
    for name, text in (
        ("mistakes", MISTAKES),
        ("lazy_names", LAZY_NAMES),
        ("documented", DOCUMENTED),
        ("surfaces", _every_surface_name()),
    ):
        programs[name] = folder / f"{name}.py"
        programs[name].write_text(text, encoding="utf-8")
    mypy = _mypy_strict(list(programs.values()), folder)
    pyright = _pyright_strict([PROGRAM, programs["documented"], programs["surfaces"]], folder)
    return Checked(programs, mypy, pyright)


def test_the_readme_tour_passes_mypy_strict(checked: Checked) -> None:
    assert checked.mypy_errors(PROGRAM) == [], checked.mypy.stdout + checked.mypy.stderr


def _pyright_strict(programs: list[Path], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """pyright in strict mode on *programs*, lmml_mdit found as the test venv has it."""
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
            *map(str, programs),
        ],
        tmp_path,
    )


def test_the_readme_tour_passes_pyright_strict(checked: Checked) -> None:
    done = checked.pyright
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


def test_a_misspelt_or_wrong_option_is_a_type_error(checked: Checked) -> None:
    """The request options are typed keywords: mypy names each mistake of a caller."""
    errors = "\n".join(checked.mypy_errors(checked.programs["mistakes"]))
    assert checked.mypy.returncode == 1, checked.mypy.stdout + checked.mypy.stderr
    assert 'Unexpected keyword argument "contxt"' in errors, errors
    assert 'Unexpected keyword argument "retrys"' in errors, errors
    assert 'Unexpected keyword argument "stream"' in errors, errors
    for line in (6, 7, 10):
        assert f"mistakes.py:{line}: error" in errors, errors


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


DOCUMENTED = """
import lmml_mdit
from lmml_mdit.chat import MessageList
from lmml_mdit.run import TextDelta, ToolCallEvent

with lmml_mdit.open("examples/sales-review.lmmlz") as bundle:
    listed = bundle.messages("anthropic", system="separate")
typed: MessageList = listed
blocks = listed.system if isinstance(listed.system, list) else []
kinds: list[str] = [str(block["type"]) for block in blocks]
provider: str = listed.provider
omitted: list[str] = listed.warnings
reveal_type(listed)
reveal_type(listed.system)


def on_event(event: TextDelta | ToolCallEvent) -> None:
    if isinstance(event, ToolCallEvent):
        reveal_type(event.arguments)
"""


def test_the_documented_attributes_are_typed(checked: Checked) -> None:
    """What docs/messages.md and docs/run.md read from a result type-checks in a user's
    code: ``bundle.messages()`` is a ``MessageList`` (``.system``, ``.provider``,
    ``.warnings``), its ``system`` JSON, a tool call event's ``arguments`` an ``object`` to
    narrow, neither of them ``Any``."""
    program = checked.programs["documented"]
    done = checked.mypy
    assert checked.mypy_errors(program) == [], done.stdout + done.stderr
    revealed = [
        line.split('Revealed type is "', 1)[1][:-1]
        for line in checked.mypy_lines(program)
        if ': note: Revealed type is "' in line
    ]
    assert revealed == [
        "lmml_mdit.chat._outgoing.MessageList",
        "list[dict[str, Any]] | dict[str, Any] | None",
        "object",
    ]
    assert done.returncode == 1, done.stdout + done.stderr  # mistakes.py alone
    pyright = checked.pyright.stdout
    errors = [
        line for line in pyright.splitlines() if f"{program.name}:" in line and "- error" in line
    ]
    assert errors == [], pyright
    lines = "\n".join(line for line in pyright.splitlines() if f"{program.name}:" in line)
    assert re.findall(r'Type of "[\w.]+" is "(.*)"', lines) == [
        "MessageList",
        "list[dict[str, Any]] | dict[str, Any] | None",
        "object",
    ], pyright


LAZY_NAMES = """
import argparse

from lmml_mdit.cli import build_parser, shown

parser: argparse.ArgumentParser = build_parser("render")
text: str = shown("name\\x1b[2J")
"""


def test_a_lazily_imported_name_has_its_real_type(checked: Checked) -> None:
    """A name a package imports on first use (``lmml_mdit.cli.build_parser``) is typed as
    its definition, not as what the module ``__getattr__`` returns."""
    lazy = checked.programs["lazy_names"]
    assert checked.mypy_errors(lazy) == [], checked.mypy.stdout + checked.mypy.stderr


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


def test_every_surface_name_has_its_real_type_for_mypy(checked: Checked) -> None:
    """``mypy --strict`` sees every name of every package surface at its public path, each
    with the type of its definition, never the ``object`` of the module ``__getattr__``."""
    program = checked.programs["surfaces"]
    done = checked.mypy
    assert checked.mypy_errors(program) == [], done.stdout + done.stderr
    revealed = [
        line.split('Revealed type is "', 1)[1][:-1]
        for line in checked.mypy_lines(program)
        if ': note: Revealed type is "' in line
    ]
    assert len(revealed) == program.read_text(encoding="utf-8").count("reveal_type(")
    # mypy 2 writes ``object`` (older releases wrote ``builtins.object``).
    assert [kind for kind in revealed if kind in ("object", "builtins.object", "Any")] == []


def test_every_surface_name_has_its_real_type_for_pyright(checked: Checked) -> None:
    """The same program in pyright's strict mode: no name private or unknown, none ``object``."""
    program = checked.programs["surfaces"]
    done = checked.pyright
    assert done.returncode == 0, done.stdout + done.stderr
    lines = "\n".join(line for line in done.stdout.splitlines() if f"{program.name}:" in line)
    revealed = dict(re.findall(r'Type of "(\w+)" is "(.*)"', lines))
    assert len(revealed) == program.read_text(encoding="utf-8").count("reveal_type(")
    assert [name for name, kind in revealed.items() if kind in ("object", "Unknown")] == []
