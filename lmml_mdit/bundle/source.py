"""The documented path ``lmml_mdit.bundle.source``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_source`` (see docs/architecture.md)."""

from ._source import *  # noqa: F403
from ._source import __all__ as __all__
