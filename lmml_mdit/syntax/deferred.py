"""The documented path ``lmml_mdit.syntax.deferred``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_deferred`` (see docs/architecture.md)."""

from ._deferred import *  # noqa: F403
from ._deferred import __all__ as __all__
