"""The ``lmml`` command line, the top layer: it reads every layer below and nothing reads it.

:mod:`~lmml_mdit.cli.launch` is the entry point (:func:`main`: help and the version from the
parser alone), :mod:`~lmml_mdit.cli.commands` runs everything else,
:mod:`~lmml_mdit.cli.parser` builds the argument tree of the subcommands listed in
:mod:`~lmml_mdit.cli.table` from the pieces in
:mod:`~lmml_mdit.cli.options` into a typed :mod:`~lmml_mdit.cli.arguments` namespace; the
subcommands live by concern in :mod:`~lmml_mdit.cli.inspection` (validate, turns, ls, cat,
info), :mod:`~lmml_mdit.cli.render` (render, preview), :mod:`~lmml_mdit.cli.rewrite` (new,
pack, inline, to-md) and :mod:`~lmml_mdit.cli.interchange` (import, export); they open
bundles through :mod:`~lmml_mdit.cli.sources`, print and write through
:mod:`~lmml_mdit.cli.output` and draw progress with :mod:`~lmml_mdit.cli.progress`.
"""

from __future__ import annotations

from ..lazy import lazy_attributes
from .launch import main

__all__ = ["build_parser", "main", "shown"]

# The entry point is light (``lmml --version`` loads the parser alone); the rest on first use.
__getattr__ = lazy_attributes(__name__, {"build_parser": ".parser", "shown": ".output"})
