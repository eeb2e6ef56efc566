"""The ``lmml`` command line, the top layer: it reads every layer below and nothing reads it.

:mod:`~lmml_mdit.cli.commands` runs it (:func:`main`), :mod:`~lmml_mdit.cli.parser` builds
the argument tree from the pieces in :mod:`~lmml_mdit.cli.options` into a typed
:mod:`~lmml_mdit.cli.arguments` namespace; the subcommands live by concern in
:mod:`~lmml_mdit.cli.inspection` (validate, turns, ls, cat, info),
:mod:`~lmml_mdit.cli.render` (render, preview), :mod:`~lmml_mdit.cli.rewrite` (new, pack,
inline, to-md) and :mod:`~lmml_mdit.cli.interchange` (import, export); they open bundles
through :mod:`~lmml_mdit.cli.sources`, print and write through
:mod:`~lmml_mdit.cli.output` and draw progress with :mod:`~lmml_mdit.cli.progress`.
"""

from __future__ import annotations

from .commands import main
from .output import shown
from .parser import build_parser

__all__ = ["build_parser", "main", "shown"]
