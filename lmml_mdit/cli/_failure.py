"""The command line's own failure, in a module of its own so that the argument parser (and
with it ``lmml --help``) needs nothing else."""

from __future__ import annotations

__all__ = ["CliError"]


class CliError(Exception):
    """A failure the CLI reports as one ``lmml: error:`` line and exit status 2."""
