"""Every example in the documentation runs and shows what it claims.

For README.md and each ``docs/*.md`` page, the fenced blocks are taken in document order
and run in one namespace, inside a temporary folder holding a copy of ``examples/``:

- a ``python`` block is executed; an expression statement followed by a comment that is
  a Python literal (``placeholder("a.png")  # '[Image: a.png]'``, or a comment-only line
  or lines right below it) must evaluate to that literal;
- a ``console`` or ``bash`` line that starts with ``$ lmml`` (or ``lmml``,
  ``.venv/bin/lmml``) is run as ``python -m lmml_mdit ...`` and must exit 0; the lines
  shown below it, up to the next ``$`` line, are its expected output (standard output,
  or both streams as a terminal shows them; a ``...`` stands for any text, across lines).

A block that cannot run here (it needs an API key or the network) is preceded by the line
``<!-- skip-test: why -->``; the reason is required.
"""

from __future__ import annotations

import ast
import io
import re
import shlex
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from lmml_mdit import register_handler, unregister_handler
from lmml_mdit.chat import registered_handlers

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = ("python", "console", "bash")
SKIP_MARKER = re.compile(r"<!--\s*skip-test:\s*(?P<reason>\S.*?)\s*-->")
FENCE_OPEN = re.compile(r"^(?P<indent> *)(?P<ticks>`{3,})(?P<info>[^`]*)$")
SHELL_OPERATORS = ("|", ">", "<", "&&", ";")


@dataclass(frozen=True)
class Block:
    """One fenced block of a page."""

    page: str
    line: int  # 1-based line of the opening fence
    language: str
    text: str
    skip_reason: str | None


def fenced_blocks(path: Path) -> list[Block]:
    """Every fenced block of *path*, in document order, with its skip marker."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE_OPEN.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, ticks = len(opening["indent"]), opening["ticks"]
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not re.fullmatch(rf" *{ticks}`* *", lines[end]):
            body.append(lines[end][indent:] if lines[end][:indent].isspace() else lines[end])
            end += 1
        language = opening["info"].strip().split(" ")[0]
        blocks.append(
            Block(path.name, index + 1, language, "\n".join(body) + "\n", skip_reason(lines, index))
        )
        index = end + 1
    return blocks


def skip_reason(lines: list[str], fence_index: int) -> str | None:
    """The reason of a ``<!-- skip-test: ... -->`` line right above the fence, if any."""
    above = fence_index - 1
    while above >= 0 and not lines[above].strip():
        above -= 1
    marker = SKIP_MARKER.search(lines[above]) if above >= 0 else None
    return marker["reason"] if marker else None


def comments_by_line(source: str) -> dict[int, tuple[str, bool]]:
    """Comment text per line, and whether the comment is the whole line."""
    found: dict[int, tuple[str, bool]] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            whole_line = not token.line[: token.start[1]].strip()
            found[token.start[0]] = (token.string[1:].strip(), whole_line)
    return found


def claimed_value(node: ast.expr, comments: dict[int, tuple[str, bool]]) -> object:
    """The literal a comment claims for the expression *node*, or ``NO_CLAIM``."""
    assert node.end_lineno is not None
    candidates: list[str] = []
    below, line = [], node.end_lineno + 1
    while line in comments and comments[line][1]:
        below.append(comments[line][0])
        line += 1
    if below:
        candidates.append(" ".join(below))
    trailing = comments.get(node.end_lineno)
    if trailing is not None and not trailing[1]:
        candidates.append(trailing[0])
    for candidate in candidates:
        try:
            return ast.literal_eval(candidate)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return NO_CLAIM


NO_CLAIM = object()


def run_python(block: Block, namespace: dict[str, object]) -> None:
    """Execute *block* statement by statement, checking the literal each comment claims."""
    filename = f"{block.page}:{block.line}"
    source = "\n" * block.line + block.text  # line numbers in tracebacks match the page
    comments = comments_by_line(source)
    for statement in ast.parse(source, filename).body:
        if isinstance(statement, ast.Expr):
            value = eval(compile(ast.Expression(statement.value), filename, "eval"), namespace)
            claim = claimed_value(statement.value, comments)
            if claim is not NO_CLAIM:
                assert value == claim, f"{filename}+{statement.lineno - block.line}: {value!r}"
        else:
            exec(compile(ast.Module([statement], []), filename, "exec"), namespace)


def console_commands(block: Block) -> list[tuple[list[str], list[str]]]:
    """The ``lmml`` command lines of a shell block, each with the output shown below it."""
    commands: list[tuple[list[str], list[str]]] = []
    current: list[str] | None = None
    for line in block.text.splitlines():
        prompted = line.startswith("$ ")
        command_text = line[2:] if prompted else line
        if prompted or (block.language == "bash" and line.strip()):
            argv = shlex.split(command_text, comments=True)
            is_lmml = bool(argv) and Path(argv[0]).name == "lmml"
            current = [] if is_lmml else None
            if is_lmml:
                assert not set(argv) & set(SHELL_OPERATORS), f"{block.page}:{block.line}: {line}"
                commands.append((argv[1:], current))
        elif current is not None:
            current.append(line)
    return commands


def output_pattern(expected: list[str]) -> re.Pattern[str]:
    """A pattern for the shown output: exact text, trailing blanks ignored, ``...`` = any.

    Blanks around ``...`` belong to it, so ``[ ... ]`` also matches an indented JSON list.
    """
    shown = "\n".join(line.rstrip() for line in expected).strip("\n")
    parts = [re.escape(part) for part in re.split(r"[ \t]*\.\.\.[ \t]*", shown)]
    return re.compile(".*?".join(parts), flags=re.S)


def run_console(block: Block, cwd: Path) -> None:
    """Run the block's ``lmml`` commands and compare what they print with the page."""
    for arguments, expected in console_commands(block):
        shown = f"{block.page}:{block.line}: lmml {shlex.join(arguments)}"
        result = subprocess.run(
            [sys.executable, "-m", "lmml_mdit", *arguments],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, f"{shown}: exit {result.returncode}: {result.stderr}"
        if not any(line.strip() for line in expected):
            continue
        stdout, stderr = normalized(result.stdout), normalized(result.stderr)
        # A terminal shows both streams: the page may show stderr lines (a confirmation).
        seen = [stdout, f"{stderr}\n{stdout}".strip("\n"), f"{stdout}\n{stderr}".strip("\n")]
        pattern = output_pattern(expected)
        assert any(pattern.fullmatch(text) for text in seen), f"{shown} printed:\n{seen[2]}"


def normalized(output: str) -> str:
    """*output* without trailing blanks on its lines or blank lines around it."""
    return "\n".join(line.rstrip() for line in output.splitlines()).strip("\n")


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_page_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    handlers_before = registered_handlers()
    try:
        for block in fenced_blocks(page):
            if block.language not in RUNNABLE or block.skip_reason is not None:
                continue
            if block.language == "python":
                run_python(block, namespace)
            else:
                run_console(block, tmp_path)
    finally:  # a page that registers a handler must not change the other tests' registry
        for key in set(registered_handlers()) - set(handlers_before):
            unregister_handler(key)
        for key, handler in handlers_before.items():
            register_handler(key, handler)


def test_every_skip_is_on_a_runnable_block() -> None:
    """A skip marker above prose or a ``text`` block is a stale marker."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        marked = len(SKIP_MARKER.findall(text))
        on_blocks = [block for block in fenced_blocks(page) if block.skip_reason is not None]
        assert marked == len(on_blocks), page.name
        assert all(block.language in RUNNABLE for block in on_blocks), page.name


def test_the_checker_catches_false_claims(tmp_path: Path) -> None:
    """The checks themselves can fail: a wrong claimed value and wrong shown output."""
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- skip-test: needs the network -->\n```python\nraise SystemExit\n```\n\n"
        "```python\nlen('abc')  # 4\n```\n\n```console\n$ lmml --version\nnot-a-version\n```\n",
        encoding="utf-8",
    )
    skipped, claim, console = fenced_blocks(page)
    assert skipped.skip_reason == "needs the network"
    with pytest.raises(AssertionError):
        run_python(claim, {})
    with pytest.raises(AssertionError, match="printed"):
        run_console(console, tmp_path)
    assert output_pattern(["{", "  ...", "}"]).fullmatch('{\n  "a": 1,\n  "b": 2\n}')


def private_imports(block: Block) -> list[str]:
    """The imports of *block* (a ``python`` block) that reach past the public surface: a
    name from a module that is neither ``lmml_mdit`` nor a package exporting it in its
    ``__all__``."""
    import importlib

    found = []
    for node in ast.walk(ast.parse(block.text)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith("lmml_mdit.")]
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("lmml_mdit"):
            continue
        module = importlib.import_module(node.module or "")
        package = module.__file__ is not None and Path(module.__file__).name == "__init__.py"
        exported = getattr(module, "__all__", ()) if package else ()
        found += [f"{node.module}.{a.name}" for a in node.names if a.name not in exported]
    return found


def test_examples_import_from_the_public_surface() -> None:
    """A page's example imports each name from ``lmml_mdit`` or its package's ``__init__``,
    never from the module that happens to define it today (skipped blocks included)."""
    reaching = [
        f"{block.page}:{block.line}: {name}"
        for page in PAGES
        for block in fenced_blocks(page)
        if block.language == "python"
        for name in private_imports(block)
    ]
    assert reaching == []


DOTTED_NAME = re.compile(r"`(lmml_mdit(?:\.\w+)+)(?:\(\))?`")


def test_a_dotted_name_in_the_docs_is_exported_where_it_says() -> None:
    """A page's `lmml_mdit.module.NAME` is an attribute of that module, listed in its
    ``__all__`` (the package root lists its own names in ``API``)."""
    import importlib

    import lmml_mdit
    from lmml_mdit.chat import PLUGIN_GROUP

    wrong = []
    for page in PAGES:
        for found in DOTTED_NAME.finditer(page.read_text(encoding="utf-8")):
            dotted = found[1]
            if dotted == PLUGIN_GROUP:  # the entry point group, named like a module
                continue
            parts = dotted.split(".")
            for end in range(len(parts), 0, -1):
                try:
                    module = importlib.import_module(".".join(parts[:end]))
                except ImportError:
                    continue
                break
            if end == len(parts):
                continue
            name = parts[end]
            exported = hasattr(module, name) and (
                module is lmml_mdit or name in getattr(module, "__all__", (name,))
            )
            if not exported:
                wrong.append(f"{page.name}: {dotted}")
    assert wrong == []


COMMAND_LINE = re.compile(r"(?<![\w/.-])(?<!--extensions )lmml ([a-z][\w-]*)")
OPTION = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def command_mentions(page: Path) -> list[tuple[int, str, str]]:
    """Each ``lmml COMMAND ...`` a page writes in code (a code span, or a line of a fenced
    block with the indented lines continuing it), as (line, command, the rest of it), cut at
    a shell operator, a comment and a `` / `` joining two commands."""
    lines = page.read_text(encoding="utf-8").splitlines()
    fenced = {
        block.line + offset
        for block in fenced_blocks(page)
        for offset in range(1, block.text.count("\n") + 1)
    }
    found = []
    for number, line in enumerate(lines, 1):
        if number in fenced:
            pieces = [line.removeprefix("$ ")]
            while number + len(pieces) in fenced and re.match(
                r" {6,}\S", lines[number + len(pieces) - 1]
            ):
                pieces.append(lines[number + len(pieces) - 1].strip())
            pieces = [" ".join(pieces)]
        else:
            pieces = re.findall(r"`([^`]+)`", line)
        for piece in pieces:
            for part in re.split(r" / | \| | # |&&|;|>|<", piece):
                for mention in COMMAND_LINE.finditer(part):
                    found.append((number, mention[1], part[mention.end() :]))
    return found


def test_a_command_line_in_the_docs_names_a_command_and_its_options() -> None:
    """Every ``lmml COMMAND`` a page writes in code is a command of ``lmml --help``, and
    every option written after it is one of that command's (``lmml COMMAND --help``)."""
    import argparse

    from lmml_mdit.cli import COMMANDS, build_parser

    subcommands = next(
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    options = {
        name: {flag for action in parser._actions for flag in action.option_strings}
        for name, parser in subcommands.choices.items()
    }
    placeholders = {"COMMAND", "toy"}  # the synopsis, and the planted command of a test
    wrong = []
    for page in PAGES:
        for line, command, rest in command_mentions(page):
            if command in placeholders:
                continue
            if command not in COMMANDS:
                wrong.append(f"{page.name}:{line}: lmml {command}")
                continue
            for option in OPTION.findall(rest):
                if option not in options[command]:
                    wrong.append(f"{page.name}:{line}: lmml {command} {option}")
    assert wrong == []


def test_the_command_line_check_finds_a_wrong_command_and_option(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Use `lmml send x`, `lmml cat a | head -c 1`.\n\n"
        "```text\nlmml run PATH [--provider P]\n         [--nope]\n```\n",
        encoding="utf-8",
    )
    assert command_mentions(page) == [
        (1, "send", " x"),
        (1, "cat", " a"),
        (4, "run", " PATH [--provider P] [--nope]"),
    ]
