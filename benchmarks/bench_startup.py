"""Start-up time of the command line (a script, not a test).

Run ``python benchmarks/bench_startup.py [--reps 10]``. It times, as whole processes, in
interleaved rounds:

- the yardstick: ``python -c "import markdown_it, yaml;
  markdown_it.MarkdownIt('commonmark').parse('x')"``;
- ``python -m lmml_mdit validate small.lmml`` on a three-turn narrative with a reference
  and an inline fence;
- the bare interpreter, ``python -c pass``, and against it ``lmml --version`` and
  ``lmml --help`` started as the installed ``lmml`` script starts them.

Both read their bytecode from one cache in a scratch folder, which the warm-up runs fill
whatever ``PYTHONDONTWRITEBYTECODE`` says: an installed package has its bytecode compiled,
and compiling this package's sources on every start would be measured instead.

It prints the best CPU time (user + system) of each process, which other programs on a
busy machine disturb less than its wall time, and the ratios, with their goals: validating
at most 1.5 times the yardstick (the command should import only what validating needs);
``--version`` and ``--help`` at most 1.3 times the bare interpreter (they import the
argument parser and nothing else). It exits 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from goals import exit_status

ROOT = Path(__file__).resolve().parent.parent
GOAL = 1.5
QUICK_GOAL = 1.3
SCRIPT = "import sys; from lmml_mdit.cli import main; sys.exit(main())"
"""What the ``lmml`` script pip writes runs."""
YARDSTICK = "import markdown_it, yaml; markdown_it.MarkdownIt('commonmark').parse('x')"
SMALL = """## system
Answer briefly.

## user
What does @notes.txt say?

@@@notes.txt
Three short lines
of plain text
to read.
@@@

## assistant
It says to read it.
"""


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(command: list[str], env: dict[str, str]) -> float:
    """The CPU time of one run of *command*, as a child process."""
    started = _cpu()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return _cpu() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(scratch) / "bytecode")
        small = Path(scratch) / "small.lmml"
        small.write_text(SMALL, encoding="utf-8")
        commands = {
            "python -c 'import markdown_it, yaml; ...parse'": [sys.executable, "-c", YARDSTICK],
            "lmml validate small.lmml": [sys.executable, "-m", "lmml_mdit", "validate", str(small)],
            "python -c pass": [sys.executable, "-c", "pass"],
            "lmml --version": [sys.executable, "-c", SCRIPT, "--version"],
            "lmml --help": [sys.executable, "-c", SCRIPT, "--help"],
        }
        best = dict.fromkeys(commands, float("inf"))
        for command in commands.values():  # warm the file cache and the bytecode
            _run(command, env)
        names = list(commands)
        for round_ in range(args.reps):
            for name in names if round_ % 2 == 0 else names[::-1]:
                best[name] = min(best[name], _run(commands[name], env))
    for name, seconds in best.items():
        print(f"{name:<50} {seconds * 1000:8.1f} ms")
    checks = [
        ("start-up ratio (validate)", best["lmml validate small.lmml"], names[0], GOAL),
        ("lmml --version / python -c pass", best["lmml --version"], "python -c pass", QUICK_GOAL),
        ("lmml --help / python -c pass", best["lmml --help"], "python -c pass", QUICK_GOAL),
    ]
    missed = []
    for label, ours, base, goal in checks:
        ratio = ours / best[base]
        verdict = "ok" if ratio <= goal else "MISSED"
        print(f"{label:<50} {ratio:8.2f}   goal <= {goal}  {verdict}")
        if ratio > goal:
            missed.append(label)
    return exit_status(missed)


if __name__ == "__main__":
    raise SystemExit(main())
