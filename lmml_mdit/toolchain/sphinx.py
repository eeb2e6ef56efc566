"""The Sphinx extension ``lmml_mdit.toolchain.sphinx``: the name users put in ``extensions``
in ``conf.py``, so it stays at this path. The code is in ``_sphinx``; see docs/toolchain.md."""

from __future__ import annotations

from ._sphinx import DIRECTIVE_NAME, LmmlDirective, setup

__all__ = ["DIRECTIVE_NAME", "LmmlDirective", "setup"]
