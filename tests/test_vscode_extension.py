"""The VS Code extension in ``editors/vscode``: its manifest, and its TextMate grammar run
against the snapshot files by ``vscode-tmgrammar-snap`` (through ``npm run test:grammar``).

The grammar tests need Node.js and npm. Under CI (the ``CI`` environment variable set, as
``.ci/run`` sets it) a missing npm is a failure; elsewhere the test is skipped with that
reason. The extension's packages are installed with ``npm ci`` when they are not there yet.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

import lmml_mdit

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "editors" / "vscode"
GRAMMAR = EXTENSION / "syntaxes" / "lmml.tmLanguage.json"
SNAPSHOTS = EXTENSION / "tests" / "snap"
_NO_NPM = "npm is not installed (install Debian's 'nodejs' and 'npm' packages)"


def _under_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _require_npm() -> str:
    """npm's path; a skip on a developer machine without it, a failure under CI."""
    npm = shutil.which("npm")
    if npm is not None:
        return npm
    if _under_ci():
        pytest.fail(f"{_NO_NPM}; CI must run the grammar tests")
    pytest.skip(_NO_NPM)


def _manifest() -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((EXTENSION / "package.json").read_text("utf-8"))
    return manifest


def _grammar() -> dict[str, Any]:
    grammar: dict[str, Any] = json.loads(GRAMMAR.read_text("utf-8"))
    return grammar


def test_manifest_registers_the_language_grammar_and_settings() -> None:
    manifest = _manifest()
    contributes = manifest["contributes"]
    (language,) = contributes["languages"]
    assert language["id"] == "lmml" and language["extensions"] == [".lmml"]
    (grammar,) = contributes["grammars"]
    assert grammar["language"] == "lmml"
    assert grammar["scopeName"] == _grammar()["scopeName"] == "text.lmml"
    assert (EXTENSION / grammar["path"]).resolve() == GRAMMAR
    settings = contributes["configuration"]["properties"]
    assert {"lmml.server.command", "lmml.server.pythonPath", "lmml.server.debounce"} <= set(
        settings
    )
    assert "vscode-languageclient" in manifest["dependencies"]
    assert (EXTENSION / "package-lock.json").is_file()
    assert (EXTENSION / "LICENSE").is_file()


def test_every_embedded_scope_is_mapped_to_its_language() -> None:
    """VS Code learns which language a fence's content is in from ``embeddedLanguages``:
    every content scope the grammar gives must be there."""
    text = GRAMMAR.read_text("utf-8")
    scopes = set(re.findall(r"meta\.embedded\.block\.(\w+)", text)) - {"lmml"}
    mapped = _manifest()["contributes"]["grammars"][0]["embeddedLanguages"]
    assert {f"meta.embedded.block.{scope}" for scope in scopes} == set(mapped)
    assert {"json", "yaml", "python"} <= scopes


def test_snapshots_cover_every_construct() -> None:
    snapshots = "\n".join(path.read_text("utf-8") for path in SNAPSHOTS.glob("*.snap"))
    for scope in (
        "meta.embedded.block.json string.quoted.double.json",
        "meta.embedded.block.yaml entity.name.tag.yaml",
        "meta.embedded.block.python storage.type.function.python",
        "meta.embedded.block.lmml",
        "punctuation.definition.embed.begin.lmml",
        "punctuation.definition.embed.end.lmml",
        "entity.name.embed.lmml",
        "meta.reference.lmml entity.name.reference.lmml",
        "constant.character.escape.lmml",
        "markup.heading.role.lmml keyword.other.role.lmml",
        "punctuation.separator.role.lmml",
        "meta.role-delimiter.comment.lmml keyword.other.role.lmml",
    ):
        assert scope in snapshots, scope
    # Ordinary headings and mentions that are no references stay Markdown's and text.
    assert ">## System requirements\n#^^ text.lmml markup.heading.markdown" in snapshots
    assert "bob@example.com" in snapshots


def test_grammar_snapshots_pass() -> None:
    npm = _require_npm()
    _npm_ci(npm, "vscode-tmgrammar-snap")
    result = subprocess.run(
        [npm, "run", "--silent", "test:grammar"],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    for source in sorted(SNAPSHOTS.glob("*.lmml")):
        assert f"{source.relative_to(EXTENSION)} run successfully" in output


def test_missing_npm_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the grammar tests"):
        _require_npm()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="npm is not installed"):
        _require_npm()


_SHIPPED = {
    "extension/package.json",
    "extension/out/extension.js",
    "extension/syntaxes/lmml.tmLanguage.json",
    "extension/language-configuration.json",
    "extension/README.md",
    "extension/LICENSE.txt",
}
"""What the ``.vsix`` holds besides its own manifest: one bundled script and the files VS
Code reads, no sources, tests, maps or ``node_modules``."""


def test_the_vsix_ships_one_bundled_script_and_no_development_files(tmp_path: Path) -> None:
    npm = _require_npm()
    _npm_ci(npm, "esbuild")
    vsix = tmp_path / "lmml.vsix"
    packaged = subprocess.run(
        [
            npm,
            "exec",
            "--",
            "vsce",
            "package",
            "--no-dependencies",
            "--allow-missing-repository",
            "--out",
            str(vsix),
        ],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=600,
    )  # vscode:prepublish type-checks and bundles first
    assert packaged.returncode == 0, (packaged.stdout + packaged.stderr)[-3000:]
    with zipfile.ZipFile(vsix) as archive:
        names = set(archive.namelist()) - {"extension.vsixmanifest", "[Content_Types].xml"}
        script = archive.read("extension/out/extension.js").decode("utf-8")
    assert names == _SHIPPED
    required = set(re.findall(r"require\(\"([^\"]+)\"\)", script))
    assert "vscode" in required  # the one module left outside the bundle: VS Code's own
    assert all(name == "vscode" or name.startswith("node:") or "/" not in name for name in required)
    assert "vscode-languageclient" not in required


def _fence_openings() -> list[re.Pattern[str]]:
    """Each ``@@@`` fence's opening pattern, for Python's ``re`` (the ``\\G`` anchor, which
    it lacks, left out: a line's start is the case that matters here)."""
    patterns = _grammar()["repository"]["embed-fence"]["patterns"]
    return [re.compile(pattern["begin"].replace("(?:^|\\G)", "^")) for pattern in patterns]


@pytest.mark.parametrize(
    ("line", "fence"),
    [
        ("@@@x.json", True),
        ("   @@@x.json", True),
        ("> @@@x.json", True),
        (">    @@@x.json", True),  # the marker's space, then three
        ("> > @@@x.json", True),
        ("    @@@x.json", False),  # indented code, as the parser and the Pygments lexer read it
        ("        @@@x.json", False),
        ("\t@@@x.json", False),
        (">      @@@x.json", False),  # indented code inside the quote
    ],
)
def test_a_fence_opens_with_at_most_three_spaces_of_indentation(line: str, fence: bool) -> None:
    patterns = _fence_openings()
    assert len(patterns) > 10
    assert any(pattern.search(line) is not None for pattern in patterns) == fence, line
    assert (lmml_mdit.parse(f"{line}\n{{}}\n@@@\n").embeds != ()) == fence


def _npm_ci(npm: str, tool: str) -> None:
    """Install the extension's packages when *tool* is not there yet."""
    if (EXTENSION / "node_modules" / ".bin" / tool).exists():
        return
    installed = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]


def test_the_server_command_expands_workspace_folder_and_user_home(tmp_path: Path) -> None:
    """The docs' ``"lmml.server.pythonPath": "${workspaceFolder}/.venv/bin/python"`` names
    the folder's Python: VS Code leaves an extension's settings unexpanded, so the
    extension expands the variables itself (it used to start the literal path)."""
    npm = _require_npm()
    _npm_ci(npm, "esbuild")
    script = tmp_path / "command.js"
    bundled = subprocess.run(
        [
            *(npm, "exec", "--", "esbuild", "src/command.ts", "--bundle"),
            *("--format=cjs", "--platform=node", f"--outfile={script}"),
        ],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bundled.returncode == 0, bundled.stderr[-2000:]
    cases = [
        ({"pythonPath": "${workspaceFolder}/.venv/bin/python"}, "/w s"),
        ({"command": ["${userHome}/bin/lmml", "lsp", "${workspaceFolder}"]}, "/w s"),
        ({"pythonPath": "${workspaceFolder}/py"}, None),
        ({}, "/w s"),
    ]
    program = (
        f"const m = require({json.dumps(str(script))});"
        f"const cases = {json.dumps(cases)};"
        "console.log(JSON.stringify(cases.map(([settings, folder]) => m.serverCommand("
        "{get: (key, fallback) => key in settings ? settings[key] : fallback},"
        "{workspaceFolder: folder ?? undefined, userHome: '/home/u'}))));"
    )
    node = shutil.which("node")
    assert node is not None
    ran = subprocess.run([node, "-e", program], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert json.loads(ran.stdout) == [
        {"command": "/w s/.venv/bin/python", "args": ["-m", "lmml_mdit", "lsp"]},
        {"command": "/home/u/bin/lmml", "args": ["lsp", "/w s"]},
        # No folder open: the variable is left as written, so the start error names it.
        {"command": "${workspaceFolder}/py", "args": ["-m", "lmml_mdit", "lsp"]},
        {"command": "lmml", "args": ["lsp"]},
    ]


@pytest.mark.parametrize(
    ("line", "fence"),
    [
        # A bare marker opens nothing: vscode-textmate matches each line with its newline,
        # which a name pattern of "not a space" would take for a name.
        ("@@@", False),
        ("   @@@", False),
        ("> @@@", False),
        ("@@@   ", False),
        # Fences work in list items too, as in block quotes.
        ("- @@@x.json", True),
        ("* @@@notes.txt", True),
        ("1. @@@x.yaml", True),
        ("12) @@@x.py", True),
        ("> - @@@x.json", True),
        ("-@@@x.json", False),  # no list item: a paragraph's text
    ],
)
def test_a_fence_opens_only_with_a_name_and_in_list_items_too(line: str, fence: bool) -> None:
    patterns = _fence_openings()
    # vscode-textmate hands each line to the patterns with its line end.
    assert any(pattern.search(line + "\n") is not None for pattern in patterns) == fence, line
    assert (lmml_mdit.parse(f"{line}\n   {{}}\n   @@@\n").embeds != ()) == fence


def _role_heading() -> re.Pattern[str]:
    return re.compile(_grammar()["repository"]["role-heading"]["match"])


@pytest.mark.parametrize(
    "line",
    [
        "# user",
        "# USER",
        "## User:",
        "## User :",
        "## user ##",
        "## Turn 1 -- user",
        "## Turn 1 -- user ##",
        "## Turn 5 - user",
        "### Turn 2: assistant",
        "## Turn 3\u2014user",
        "## Turn 4--user",
        "## Turn 4 \u2013 tool",
        "## alice -- assistant",
        "### alice \u2014 assistant",
        "## user#",
        "## alice--user",
        "## System requirements",
        "## Turn3: user",
        "## Turn 2 -- assistant:",
        "## Users",
        "####### user",
        "    ## user",
    ],
)
def test_the_grammar_marks_a_heading_as_a_role_exactly_when_the_parser_does(line: str) -> None:
    turn = lmml_mdit.parse(f"{line}\nhi\n").turns[0]
    delimiter = turn.delimiter_line is not None
    assert (_role_heading().search(line + "\n") is not None) == delimiter, line


def _reference() -> re.Pattern[str]:
    return re.compile(_grammar()["repository"]["reference"]["match"])


@pytest.mark.parametrize(
    "mention",
    [
        "@chart.png",
        "@chart.PNG",
        "@data.tar.gz",
        "@report.v2.pdf",
        "@scope/pkg.js",
        "@notes.md",
        "@chart.pgn",  # a typo in a known extension: a reference, reported missing
        "@app.route",  # a decorator, a handle, a version: no reference
        "@john.smith",
        "@emma.design",
        "@a.b/c",
        "@example.com",
        "@alice",
        "@日本.txt",  # a name may start with any letter, as the parser reads it
        "@ünits.csv",
        "@b.md-",  # trailing punctuation ends the name, as in "see @b.md-"
        "@c.md/",
        "@d.md/-.",
        "@e.png.",
        "@a.png-x",  # no known extension once the word is read whole: no reference
        "@a.png.x",
        "@a.png/x",
    ],
)
def test_the_grammar_marks_a_mention_as_a_reference_exactly_when_the_parser_does(
    mention: str,
) -> None:
    """Without the files beside the narrative (which the grammar cannot see), a reference
    is a name with a known extension (or one with a typo in it), as the parser reads it."""
    names = [embed.name for embed in lmml_mdit.parse(f"See {mention} now.\n").embeds]
    found = _reference().search(f"See {mention} now.\n")
    assert (found.group(2) if found else None) == (names[0] if names else None), mention


def test_the_grammar_knows_the_parser_s_extensions() -> None:
    from lmml_mdit.media import FILE_EXTENSIONS, TYPO_EXTENSIONS

    found = re.search(r"\\\.\(\?i:([a-z0-9|]+)\)", _grammar()["repository"]["reference"]["match"])
    assert found is not None
    known = {extension.lstrip(".").lower() for extension in FILE_EXTENSIONS | TYPO_EXTENSIONS}
    assert set(found.group(1).split("|")) == known
