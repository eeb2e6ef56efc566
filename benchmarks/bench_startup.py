"""Start-up time of the command line (a script, not a test).

Run ``python benchmarks/bench_startup.py [--reps 10]``. It times, as whole processes, in
interleaved rounds:

- the yardstick: ``python -c "import markdown_it, yaml;
  markdown_it.MarkdownIt('commonmark').parse('x')"``;
- ``python -m lmml_mdit validate small.lmml`` on a three-turn narrative with a reference
  and an inline fence.

Both read their bytecode from one cache in a scratch folder, which the warm-up runs fill
whatever ``PYTHONDONTWRITEBYTECODE`` says: an installed package has its bytecode compiled,
and compiling this package's sources on every start would be measured instead.

It prints the best CPU time (user + system) of each process, which other programs on a
busy machine disturb less than its wall time, and their ratio, with its goal: at most 1.5
(the command should import only what validating needs). It exits 1 when the goal is
missed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 1.5
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
        }
        best = dict.fromkeys(commands, float("inf"))
        for command in commands.values():  # warm the file cache and the bytecode
            _run(command, env)
        names = list(commands)
        for round_ in range(args.reps):
            for name in names if round_ % 2 == 0 else names[::-1]:
                best[name] = min(best[name], _run(commands[name], env))
    base, ours = best.values()
    for name, seconds in best.items():
        print(f"{name:<50} {seconds * 1000:8.1f} ms")
    ratio = ours / base
    verdict = "ok" if ratio <= GOAL else "MISSED"
    print(f"{'start-up ratio':<50} {ratio:8.2f}   goal <= {GOAL}  {verdict}")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    raise SystemExit(main())
