"""The documented path ``lmml_mdit.cli.rewrite``, kept: its names, from
``lmml_mdit.cli``'s private module ``_rewrite`` (see docs/architecture.md)."""

from ._rewrite import *  # noqa: F403
from ._rewrite import __all__ as __all__
