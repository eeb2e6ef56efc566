"""A command is its module: a toy command planted as one more private module of
:mod:`lmml_mdit.cli` (``_toy.py``, in a copy of the package, no other file changed) is
listed by ``lmml --help`` in its place, without being imported, and has its own help,
options, errors and exit status."""

from __future__ import annotations

import json
import textwrap
import zipfile
from pathlib import Path

from tests._cli import ROOT
from tests._planting import plant, run_python

TOY = textwrap.dedent(
    '''
    """``lmml toy``: a greeting, as many times as asked."""

    from __future__ import annotations

    import argparse

    from ._arguments import Arguments
    from ._options import add_quiet, positive_int
    from ._table import command


    class ToyArguments(Arguments):
        """``lmml toy``'s own options, typed."""

        times: int
        shout: bool


    def _toy_options(parser: argparse.ArgumentParser) -> None:
        """``lmml toy``'s own options."""
        parser.add_argument(
            "--times", type=positive_int, default=1, metavar="N", help="greetings (default: 1)"
        )
        parser.add_argument("--shout", action="store_true", help="greet in capitals")
        add_quiet(parser)


    @command(
        order=25,
        summary="print a greeting, "
        "as many times as asked",
        example="lmml toy --times 2",
        options=_toy_options,
    )
    def cmd_toy(args: ToyArguments) -> int:
        """``lmml toy``: the greeting; exit 1 when asked for none."""
        greeting = "HELLO" if args.shout else "hello"
        print("\\n".join([greeting] * args.times))
        return 0 if args.times else 1
    '''
)

CHECKS = textwrap.dedent(
    """
    import contextlib, io, json, sys
    from lmml_mdit.cli import main

    def run(*argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(argv))
        return [status, out.getvalue(), err.getvalue()]

    runs = {"help": run("--help")}
    runs["imported_for_help"] = "lmml_mdit.cli._toy" in sys.modules
    runs["toy_help"] = run("toy", "--help")
    runs["toy"] = run("toy", "--times", "2", "--shout")
    runs["none"] = run("toy", "--times", "0")
    runs["bad"] = run("toy", "--times", "x")
    runs["unknown"] = run("toy", "--bogus")
    print(json.dumps(runs))
    """
)

ENVIRON = {"COLUMNS": "100", "PATH": ""}
"""The environment the planted copy runs in, beside its ``PYTHONPATH``."""


def test_a_command_module_planted_in_the_package_is_a_command(tmp_path: Path) -> None:
    site = plant(tmp_path, {"cli/_toy.py": TOY})
    done = run_python(site, "-c", CHECKS, cwd=tmp_path, environ=ENVIRON)
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)
    status, listing, _ = runs["help"]
    assert status == 0 and not runs["imported_for_help"]
    commands = [line.split()[0] for line in listing.splitlines() if line.startswith("    ")]
    assert commands[:3] == ["new", "validate", "toy"]  # its order, 25, after validate's 20
    assert "    toy       print a greeting, as many times as asked\n" in listing
    status, toy_help, _ = runs["toy_help"]
    assert status == 0
    assert toy_help.startswith("usage: lmml toy [-h] [--times N] [--shout] [-q]\n")
    assert "Print a greeting, as many times as asked." in toy_help
    assert "--times N    greetings (default: 1)" in toy_help
    assert toy_help.endswith("example:\n  lmml toy --times 2\n")
    assert runs["toy"] == [0, "HELLO\nHELLO\n", ""]
    assert runs["none"] == [1, "\n", ""]
    assert runs["bad"] == [
        2,
        "",
        "lmml: error: toy: argument --times: not a whole number: 'x' (see 'lmml toy --help')\n",
    ]
    status, _, error = runs["unknown"]
    assert status == 2 and error.startswith("lmml: error: toy: unrecognized arguments: --bogus")


def test_the_summaries_read_from_the_sources_follow_an_edit(tmp_path: Path) -> None:
    site = plant(tmp_path, {"cli/_toy.py": TOY})
    copy = site / "lmml_mdit"
    toy = copy / "cli" / "_toy.py"

    def listing() -> str:
        command = "from lmml_mdit.cli import main; main(['--help'])"
        return run_python(site, "-c", command, cwd=tmp_path, environ=ENVIRON, check=True).stdout

    assert "    toy       print a greeting, as many times as asked\n" in listing()
    assert list((copy / "cli" / "__pycache__").glob("lmml-commands.*"))  # kept for next time
    toy.write_text(TOY.replace("print a greeting, ", "print a hello, "), encoding="utf-8")
    assert "    toy       print a hello, as many times as asked\n" in listing()
    toy.unlink()
    assert "toy" not in listing()


def test_a_declaration_help_cannot_read_is_refused_by_name(tmp_path: Path) -> None:
    toy = TOY.replace("order=25", "order=ORDER").replace(
        "class ToyArguments", "ORDER = 25\n\n\nclass ToyArguments"
    )
    site = plant(tmp_path, {"cli/_toy.py": toy})
    command = "from lmml_mdit.cli import main; main(['--help'])"
    done = run_python(site, "-c", command, cwd=tmp_path, environ={"PATH": ""})
    assert done.returncode != 0
    assert "_toy: the @command of toy needs a literal order and summary" in done.stderr


def test_a_package_imported_from_a_zip_archive_finds_its_commands(tmp_path: Path) -> None:
    archive = tmp_path / "site.zip"
    with zipfile.ZipFile(archive, "w") as packed:
        for path in sorted((ROOT / "lmml_mdit").rglob("*.py")):
            packed.write(path, path.relative_to(ROOT).as_posix())
        packed.writestr("lmml_mdit/cli/_toy.py", TOY)
    done = run_python(archive, "-c", CHECKS, cwd=tmp_path, environ=ENVIRON)
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)
    assert "    toy       print a greeting, as many times as asked\n" in runs["help"][1]
    assert runs["toy"] == [0, "HELLO\nHELLO\n", ""]
