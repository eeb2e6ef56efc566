"""The documented path ``lmml_mdit.bundle.validation``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_validation`` (see docs/architecture.md)."""

from ._validation import *  # noqa: F403
from ._validation import __all__ as __all__
