"""``lmml lsp`` on the command line: its options, the message when the ``lsp`` extra is
missing, and that the other commands never load the server's packages. (The server itself
is driven over stdio in tests/test_lsp.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, path: str = str(ROOT)) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=path, PYTHONIOENCODING="utf-8")
    env.pop("LMML_DEBUG", None)
    return subprocess.run(
        [sys.executable, *args],
        input="",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_help_names_the_debounce_option() -> None:
    result = _run("-m", "lmml_mdit", "lsp", "--help")
    assert result.returncode == 0
    assert "usage: lmml lsp" in result.stdout and "--debounce SECONDS" in result.stdout
    assert "--stdio" in result.stdout


def test_a_bad_debounce_is_a_one_line_error() -> None:
    for value in ("-1", "soon", "inf"):
        result = _run("-m", "lmml_mdit", "lsp", "--debounce", value)
        assert result.returncode == 2
        (line,) = result.stderr.splitlines()
        assert line.startswith("lmml: error: ") and "--debounce" in line and value in line


def test_without_the_extra_the_command_says_what_to_install(tmp_path: Path) -> None:
    # A pygls that cannot be imported, first on the path.
    (tmp_path / "pygls.py").write_text(
        "raise ImportError(\"No module named 'pygls'\", name='pygls')\n", encoding="utf-8"
    )
    result = _run("-m", "lmml_mdit", "lsp", path=os.pathsep.join([str(tmp_path), str(ROOT)]))
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert "needs the lsp extra (pygls is not installed)" in line
    assert "pip install 'lmml-mdit[lsp]'" in line


def test_other_commands_do_not_load_the_server() -> None:
    code = (
        "import contextlib, io, sys\n"
        "from lmml_mdit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['validate', sys.argv[1]])\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol')"
        " or m.startswith('lmml_mdit.lsp')))\n"
    )
    result = _run("-c", code, str(ROOT / "examples" / "sales-review.lmml"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
