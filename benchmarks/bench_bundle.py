"""Memory benchmark for bundles (a script, not a test).

1. Builds a ``.lmmlz`` of 1,000 assets totalling 200 MB in a temporary folder and measures,
   in a fresh subprocess, the peak RSS of ``open()`` + ``validate()`` above the peak of the
   same interpreter after only importing lmml_mdit. Goal: under 30 MB, since only the
   central directory, the narrative and the head of each asset (what tells its media type,
   for the ``unsendable_embed`` check) are read. The assets are random bytes after a PNG
   signature: images every provider takes, so the bundle validates clean.
2. Builds bundles holding one 100 MB asset (stored, and deflated) and measures the peak RSS
   of reading it, as a multiple of the asset's size. Goal: about two copies (at most 2.2).

It prints each figure with its goal and exits 1 when one is missed.

Run: ``python benchmarks/bench_bundle.py [--assets 1000] [--total-mb 200] [--big-mb 100]``
Peak RSS is read from ``/proc/self/status`` (VmHWM) where available, else from
:func:`resource.getrusage`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import zipfile

from goals import exit_status

MB = 1024 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
OPEN_GOAL_MB = 30
"""Peak RSS of open + validate above the baseline, for any number of assets."""
COPIES_GOAL = 2.2
"""Peak RSS of reading one asset above the baseline, in copies of the asset (about two)."""

_MEASURE = r"""
import os, resource, sys, time

def peak():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

from lmml_mdit.bundle import Limits
from lmml_mdit.chat import open as open_bundle
import lmml_mdit.narrative._toolcalls  # noqa: F401
mode, path = sys.argv[1], sys.argv[2]
started = time.perf_counter()
if mode == "baseline":
    pass
elif mode == "open-validate":
    with open_bundle(path) as bundle:
        issues = bundle.validate()
        assert not issues, issues[:3]
        assert len(bundle.entries) > 0
elif mode == "read-one":
    limits = Limits(max_entry_size=1024 * 1024 * 1024)
    with open_bundle(path, limits=limits) as bundle:
        data = bundle.read("big.bin")
        assert len(data) > 0
print(peak(), time.perf_counter() - started)
"""


def _measure(mode: str, path: str) -> tuple[int, float]:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, mode, path], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"measuring {mode} failed:\n{done.stderr}")
    output = done.stdout.split()
    return int(output[0]), float(output[1])


def build_many(folder: str, assets: int, total_mb: int) -> str:
    """A bundle of *assets* random (incompressible) assets totalling *total_mb* MB, each
    after a PNG signature, so that every provider would take it and the bundle is clean
    (a ``.bin`` of random bytes is an ``unsendable_embed``)."""
    path = os.path.join(folder, "many.lmmlz")
    size = total_mb * MB // assets
    names = [f"assets/file{index:04d}.png" for index in range(assets)]
    narrative = "# Many assets\n\n<!-- user -->\n" + "\n".join(f"- @{name}" for name in names)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("many.lmml", narrative)
        for name in names:
            archive.writestr(name, PNG_SIGNATURE + os.urandom(size - len(PNG_SIGNATURE)))
    return path


def build_big(folder: str, big_mb: int, deflate: bool) -> str:
    """A bundle with one *big_mb* MB asset, stored (random bytes) or deflated (hex text)."""
    path = os.path.join(folder, f"big-{'deflate' if deflate else 'stored'}.lmmlz")
    method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", method) as archive:
        archive.writestr(os.path.basename(path)[:-1], "Here: @big.bin\n")
        with archive.open("big.bin", "w", force_zip64=True) as stream:
            for _ in range(big_mb):
                chunk = os.urandom(MB // 2).hex().encode() if deflate else os.urandom(MB)
                stream.write(chunk)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=int, default=1000)
    parser.add_argument("--total-mb", type=int, default=200)
    parser.add_argument("--big-mb", type=int, default=100)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        many = build_many(folder, options.assets, options.total_mb)
        print(
            f"built {options.assets} assets, {os.path.getsize(many) / MB:.1f} MB on disk "
            f"in {time.perf_counter() - started:.1f} s"
        )
        baseline, _ = _measure("baseline", many)
        peak, seconds = _measure("open-validate", many)
        print(f"interpreter + lmml_mdit baseline peak RSS: {baseline / MB:.1f} MB")
        print(
            f"open + validate: peak RSS {peak / MB:.1f} MB, "
            f"{(peak - baseline) / MB:.1f} MB above baseline (goal < {OPEN_GOAL_MB} MB), "
            f"{seconds:.2f} s"
        )
        missed = [] if peak - baseline < OPEN_GOAL_MB * MB else ["open + validate"]
        for deflate in (False, True):
            big = build_big(folder, options.big_mb, deflate)
            peak, seconds = _measure("read-one", big)
            above = peak - baseline
            print(
                f"read one {options.big_mb} MB asset ({'deflate' if deflate else 'stored'}): "
                f"{above / MB:.1f} MB above baseline = "
                f"{above / (options.big_mb * MB):.2f} copies (goal <= {COPIES_GOAL}), "
                f"{seconds:.2f} s"
            )
            if above > COPIES_GOAL * options.big_mb * MB:
                missed.append(f"read one {'deflate' if deflate else 'stored'}")
            os.unlink(big)
    return exit_status(missed, "every figure within its goal")


if __name__ == "__main__":
    sys.exit(main())
